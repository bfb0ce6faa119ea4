"""The reachability study: noisy label starts and the quick table run."""

from __future__ import annotations

import numpy as np
import pytest

import papers  # noqa: F401  (registers the papers' tables)
from marginclust.bench import TABLES, RunContext
from papers.reachability import CASES_BY_NAME, noisy_labels


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.5, 0.7, 1.0])
def test_noisy_labels_redraws_the_requested_fraction(fraction):
    y = np.repeat(np.array(["a", "b", "c", "d"]), 50)
    codes = np.unique(y, return_inverse=True)[1]
    out = noisy_labels(y, fraction, 4, np.random.RandomState(0))
    assert out.shape == y.shape and out.min() >= 0 and out.max() <= 3
    changed = np.mean(out != codes)
    # a redrawn label keeps its value with probability 1/4
    assert changed <= fraction + 1e-12
    assert changed == pytest.approx(0.75 * fraction, abs=0.1)
    again = noisy_labels(y, fraction, 4, np.random.RandomState(0))
    assert np.array_equal(out, again)


def test_quick_reachability_runs_every_start(shared_data_dir):
    table = TABLES["reachability"]
    ctx = RunContext(quick=True, data_home=str(shared_data_dir))
    rows = table.run(table, ctx)
    assert {r["status"] for r in rows} == {"ok"}
    cases = {r["case"] for r in rows}
    assert cases == {"bmmc-ionosphere", "slmc-glass", "emmc-letterabcd-multi", "emmc-t7-letterab"}
    for case in cases:
        starts = [r["start"] for r in rows if r["case"] == case]
        assert starts == ["label-free", "0%", "50%"]
    exact = [r for r in rows if r["start"] == "0%"]
    assert all(r["start_ca"] == 1.0 for r in exact)
    report = table.report(rows, table)
    assert "bmmc-ionosphere | 0.788" in report and "emmc-usps" not in report


def test_table7_cases_fit_single_output_gaussian_emmc_from_the_given_labels():
    # Table 7's protocol: single output, Gaussian nodes, L = n resolved at fit, the start used
    case = CASES_BY_NAME["emmc-t7-digits89"]
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(0, 1, (20, 3)), rng.normal(4, 1, (20, 3))])
    init = np.repeat([0, 1], 20)
    est = case.factory(2, init, 3).fit(X)
    emmc = est.estimator_
    assert (emmc.n_hidden, emmc.output, emmc.activation) == (40, "single", "gaussian")
    np.testing.assert_array_equal(emmc.init, init)
    assert {"emmc-t7-satimage", "emmc-t7-svmguide1", "emmc-t7-digits89",
            "emmc-t7-letterab"} <= set(TABLES["reachability-emmc-table7"].methods)

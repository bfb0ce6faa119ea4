"""Reports print how many label-picked settings stand behind a 'best' column."""

from __future__ import annotations

import papers  # noqa: F401  (registers the papers' tables)
from marginclust.bench._report import _settings_per_run


def test_settings_per_run_counts_paper_rows_only():
    rows = [
        {"method": "m", "dataset": "d", "run": r, "protocol": "paper", "params": {"C": c}}
        for r in range(2)
        for c in (1, 2, 3)
    ]
    rows += [{"method": "m", "dataset": "d", "run": 0, "protocol": "default", "params": {}}]
    rows += [{"method": "k", "dataset": "d", "run": 0, "protocol": "paper", "params": {}}]
    assert _settings_per_run(rows) == {"m": 3, "k": 1}


def test_contradicted_published_cell_gets_its_note_not_a_shortfall_marker():
    from marginclust.bench._report import format_report
    from marginclust.bench._runner import get_table

    table = get_table("bmmc-table4")
    rows = [
        {
            "dataset": "ionosphere",
            "method": "kmeans",
            "protocol": "paper",
            "run": 0,
            "params": {"n_init": 1},
            "ca_majority": 0.50,  # far below the published .5428: would be a shortfall
            "fit_time": 0.1,
            "error": None,
        }
    ]
    report = format_report(rows, table)
    line = next(r for r in report.splitlines() if r.startswith("| ionosphere"))
    assert "†" in line and "▼" not in line
    assert "lowest value majority-mapped accuracy" in report


def test_paper_units_c_follows_the_papers_scaling_law():
    """The paper's model on 2X with C equals its model on X with 4C (w -> w / 2)."""
    import numpy as np
    from sklearn.datasets import make_blobs

    from marginclust import BMMC
    from papers.bmmc import PaperUnitsC

    X, _ = make_blobs(80, 3, centers=2, cluster_std=2.5, random_state=3)
    a = PaperUnitsC(BMMC(2, C=0.05, random_state=0)).fit(2 * X)
    b = PaperUnitsC(BMMC(2, C=0.2, random_state=0)).fit(X)
    assert np.array_equal(a.labels_, b.labels_)
    assert a.estimator_.C == b.estimator_.C  # the same C in marginclust's scale-free units


def test_explained_shortfall_gets_its_note_and_only_when_short():
    from dataclasses import replace

    from marginclust.bench._report import format_report
    from marginclust.bench._runner import get_table

    key = ("ionosphere", "kmeans", "ca_majority")
    table = replace(get_table("bmmc-table4"), contradicted={},
                    explained={key: "scaling decides this row (see table x)"})

    def line(ca: float) -> tuple[str, str]:
        rows = [{"dataset": "ionosphere", "method": "kmeans", "protocol": "paper", "run": 0,
                 "params": {"n_init": 1}, "ca_majority": ca, "fit_time": 0.1, "error": None}]
        report = format_report(rows, table)
        return next(r for r in report.splitlines() if r.startswith("| ionosphere")), report

    short, report = line(0.30)  # far below the published .5428
    assert "‡" in short and "▼" not in short and "†" not in short
    assert "- ‡ ionosphere / kmeans / ca_majority: shortfall explained: scaling decides" in report
    above, _ = line(0.90)
    assert "‡" not in above and "▼" not in above

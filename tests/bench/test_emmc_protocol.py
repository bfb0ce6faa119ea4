"""EMMC Tables 4/5 protocol helpers: how C is picked with the labels."""

from __future__ import annotations

import pytest

from marginclust.bench._registry import TABLES, load_protocols
from marginclust.bench.protocols.emmc import TABLE5_PUBLISHED, _pick_c, _report_single_multi


def _rows():
    # run 0 is best at C=1, run 1 at C=4; C=2 has the best mean (70 vs 65 and 60)
    acc = {
        (0, 1.0): 80.0,
        (0, 2.0): 70.0,
        (0, 4.0): 40.0,
        (1, 1.0): 50.0,
        (1, 2.0): 70.0,
        (1, 4.0): 80.0,
    }
    return [
        dict(
            L=1000,
            run=run,
            output=out,
            protocol="paper",
            C=C,
            n_settings=3,
            time=1.0,
            acc=a + (0.0 if out == "multi" else -10.0),
        )
        for (run, C), a in acc.items()
        for out in ("single", "multi")
    ]


def test_pick_c_per_setting_is_one_c_with_the_best_mean():
    rows = [r for r in _rows() if r["output"] == "multi"]
    kept, C = _pick_c(rows, "setting")
    assert C == 2.0 and {r["C"] for r in kept} == {2.0} and len(kept) == 2


def test_pick_c_per_run_is_an_upper_bound_of_the_per_setting_pick():
    rows = [r for r in _rows() if r["output"] == "multi"]
    per_run, C = _pick_c(rows, "run")
    assert C is None and sorted(r["C"] for r in per_run) == [1.0, 4.0]
    per_setting, _ = _pick_c(rows, "setting")
    mean = lambda rs: sum(r["acc"] for r in rs) / len(rs)  # noqa: E731
    assert mean(per_run) == pytest.approx(80.0) and mean(per_setting) == pytest.approx(70.0)


def test_report_shows_both_picks_and_the_chosen_c():
    load_protocols()
    text = _report_single_multi(_rows(), TABLES["emmc-table5"], TABLE5_PUBLISHED)
    assert "| 1000 | paper: C per setting | 60.00 | 0.00 | 2^1 |" in text
    assert "| 1000 | paper: C per run | 70.00 |" in text
    assert "71.72" in text  # the published multi-output cell


def test_reachability_slmc_table_runs_only_slmc_cases():
    load_protocols()
    table = TABLES["reachability-slmc"]
    assert set(table.methods) == {"slmc-glass", "slmc-pendigits39", "slmc-segmentation"}

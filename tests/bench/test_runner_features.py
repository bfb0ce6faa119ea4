"""Runner features the custom tables needed: per-data-set parameters, skip, per-setting
aggregation (curve / count), a status column, best-of-k timing, shared fits, tiny mode."""

from __future__ import annotations

import json

import numpy as np

from marginclust.bench import TABLES, Table, register_table
from marginclust.bench._report import format_report, summarize
from marginclust.bench._runner import expand_jobs, load_data, row_status, run_table
from marginclust.bench._seeds import derive_seed

from .test_harness import FITS, TINY, _register_once  # registers the test methods / data


def _table(name, **kw):
    base = dict(title="t", source="unit test", datasets=["test-tiny"],
                methods=["test-threshold"], measures=["ca_majority"], n_runs=2,
                protocols=("paper",))
    base.update(kw)
    return _register_once(TABLES, Table(name=name, **base), register_table)


PER_DATASET = _table(
    "test-per-dataset",
    grids={"test-threshold": {"warn": [False]}},
    dataset_params={"test-tiny": {"threshold": 10.0}},
)
SKIPPING = _table(
    "test-skip", methods=["test-threshold", "test-warns"],
    skip=lambda d, m, X: f"too large ({X.shape[0]} rows)" if m == "test-warns" else None,
)
CURVE = _table("test-curve", aggregate="setting")
COUNT = _table("test-count", aggregate="count", measures=["correct"], n_runs=3)
TIMED = _table("test-timed", timing_repeats=3, n_runs=1,
               grids={"test-threshold": {"threshold": [0.0]}})
SOURCE = _table("test-source", measures=["ca_majority"], also_measures=["nmi"], n_runs=1)
VIEW = _table("test-view", measures=["nmi"], rows_from="test-source", n_runs=1)
SEEDED = _table("test-seed-key", seed_key=lambda job: ("old-code", job.params["threshold"],
                                                      job.run))


def test_dataset_params_reach_every_setting_and_the_row():
    rows = run_table(PER_DATASET, progress=False)
    assert {json.dumps(json.loads(r["params"]), sort_keys=True) for r in rows} == {
        '{"threshold": 10.0, "warn": false}'
    }
    assert all(r["ca_majority"] == 0.5 for r in rows)  # threshold 10 puts all in one cluster
    assert PER_DATASET.params_for("test-tiny", "test-threshold") == {"threshold": 10.0}


def test_skip_hook_gives_a_status_row_with_the_reason_and_fits_nothing():
    FITS.clear()
    rows = run_table(SKIPPING, progress=False)
    skipped = [r for r in rows if r["method"] == "test-warns"]
    assert len(skipped) == 1 and skipped[0]["status"] == "skipped"
    assert skipped[0]["error"] == "too large (30 rows)"
    assert len(FITS) == 2 * 3  # only test-threshold: 2 runs x 3 thresholds
    report = format_report(rows, SKIPPING)
    assert "skipped: too large (30 rows)" in report and "skipped: 1" in report


def test_status_column_replaces_string_matching():
    assert row_status({"error": None}) == "ok"
    assert row_status({"error": "data set not available: x"}) == "no-data"
    assert row_status({"error": "ValueError: not applicable: binary"}) == "not-applicable"
    assert row_status({"error": "boom"}) == "failed"
    assert row_status({"error": "whatever", "status": "skipped"}) == "skipped"
    rows = run_table(TINY, progress=False)
    assert {r["status"] for r in rows} == {"ok"}


def test_setting_aggregation_reports_every_setting_as_its_own_column():
    rows = run_table(CURVE, progress=False)
    summary = summarize(rows, CURVE)
    means = {m: s["ca_majority"]["mean"] for (_, m, _), s in summary.items()}
    assert means == {
        "test-threshold[threshold=-10]": 0.5,
        "test-threshold[threshold=0]": 1.0,
        "test-threshold[threshold=10]": 0.5,
    }
    assert all(s["n_runs"] == 2 for s in summary.values())
    assert "test-threshold[threshold=0] ours (paper)" in format_report(rows, CURVE)


def test_count_aggregation_sums_the_first_measure_over_runs():
    rows = run_table(COUNT, progress=False)
    report = format_report(rows, COUNT, layout="long")
    line = next(x for x in report.splitlines() if "[threshold=0]" in x)
    assert "3/3" in line
    line = next(x for x in report.splitlines() if "[threshold=10]" in x)
    assert "0/3" in line


def test_best_of_k_timing_fits_k_times_and_keeps_the_fastest():
    FITS.clear()
    rows = run_table(TIMED, progress=False)
    assert len(rows) == 1 and len(FITS) == 3
    assert {f["seed"] for f in FITS} == {rows[0]["seed"]}  # same start every time


def test_rows_from_reports_another_tables_fits_without_refitting():
    FITS.clear()
    source = run_table(SOURCE, progress=False)
    n_fits = len(FITS)
    view = run_table(VIEW, progress=False)
    assert len(FITS) == n_fits  # not fitted again
    assert [r["key"] for r in view] == [r["key"] for r in source]
    assert all(r["nmi"] is not None for r in view)


def test_tiny_mode_one_dataset_one_run_one_setting_few_rows():
    jobs = expand_jobs(TINY, tiny=True)
    assert {(j.protocol, j.run) for j in jobs} == {("paper", 0), ("default", 0)}
    assert len(jobs) == 2
    X, y, prep = load_data("iris", "raw", max_samples=40) if _has_iris() else (None, None, "")
    if X is not None:
        assert X.shape[0] == 40 and prep.endswith("subsample-40+raw")
        assert np.unique(y).size > 1


def _has_iris():
    try:
        load_data("iris", "raw")
    except (FileNotFoundError, OSError, ValueError):
        return False
    return True


def test_runs_per_method():
    table = _table("test-runs-per-method", methods=["test-threshold", "test-warns"],
                   n_runs={"test-warns": 1, "*": 3})
    runs = {}
    for job in expand_jobs(table):
        runs.setdefault(job.method, set()).add(job.run)
    assert runs == {"test-threshold": {0, 1, 2}, "test-warns": {0}}


def test_curve_picks_the_best_setting_per_run_within_each_curve_point():
    table = _table(
        "test-curve-best",
        grids={"test-threshold": {"threshold": [-10.0, 0.0, 10.0], "warn": [False, True]}},
        curve=("warn",),
    )
    rows = run_table(table, progress=False)
    assert len(rows) == 2 * 6
    assert {r["variant"] for r in rows} == {
        "test-threshold[warn=False]", "test-threshold[warn=True]"
    }
    summary = summarize(rows, table)
    assert {m for (_, m, _) in summary} == {
        "test-threshold[warn=False]", "test-threshold[warn=True]"
    }
    for s in summary.values():  # best of the three thresholds in every run: threshold 0
        assert s["ca_majority"]["mean"] == 1.0 and s["n_runs"] == 2
        assert json.loads(s["params"])["threshold"] == 0.0


def test_a_custom_table_that_raises_gives_a_failed_row_and_a_report():
    def boom(table, context):
        raise RuntimeError("no solver")

    table = _table("test-custom-raises", run=boom)
    rows = run_table(table, progress=False)
    assert len(rows) == 1 and rows[0]["status"] == "failed"
    assert "RuntimeError: no solver" in format_report(rows, table)


def test_seed_key_derives_each_jobs_seed_from_the_tables_keys():
    default = expand_jobs(CURVE, seed=7)
    assert {j.seed for j in default if j.run == 1} == {derive_seed(7, "test-tiny",
                                                                  "test-threshold", 1)}
    jobs = expand_jobs(SEEDED, seed=7)
    assert [j.seed for j in jobs] == [
        derive_seed(7, "old-code", j.params["threshold"], j.run) for j in jobs
    ]
    assert len({j.seed for j in jobs}) == len(jobs)  # per setting here, not per run
    FITS.clear()
    rows = run_table(SEEDED, seed=7, progress=False)
    assert sorted(f["seed"] for f in FITS) == sorted(j.seed for j in jobs)
    assert [r["seed"] for r in rows] == [j.seed for j in jobs]

"""The benchmark harness: seeds, registry, job expansion, runs, resume, reports, schema."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning

from marginclust.bench import (
    DATASETS,
    METHODS,
    TABLES,
    Dataset,
    Measure,
    Method,
    Table,
    register_dataset,
    register_measure,
    register_method,
    register_table,
)
from marginclust.bench._report import format_report, summarize
from marginclust.bench._runner import (
    ROW_FIELDS,
    expand_jobs,
    parse_dataset,
    read_rows,
    run_table,
    select_best,
)
from marginclust.bench._seeds import derive_seed
from papers.baselines import Sigma0Scaled, mean_pairwise_distance  # registers the tables

FITS: list[dict] = []  # every ThresholdClusterer fit, for the resume test


class ThresholdClusterer(ClusterMixin, BaseEstimator):
    """Two clusters split at ``x_0 > threshold``; a tiny, fully predictable method."""

    def __init__(self, n_clusters=2, *, threshold=0.0, random_state=None, warn=False):
        self.n_clusters = n_clusters
        self.threshold = threshold
        self.random_state = random_state
        self.warn = warn

    def fit(self, X, y=None):
        if self.threshold == "bad":
            raise ValueError("threshold 'bad' is infeasible")
        FITS.append({"threshold": self.threshold, "seed": self.random_state})
        if self.warn:
            warnings.warn("did not converge", ConvergenceWarning, stacklevel=2)
        self.labels_ = (np.asarray(X)[:, 0] > self.threshold).astype(int)
        p = 1.0 / (1.0 + np.exp(-(np.asarray(X)[:, 0] - self.threshold)))
        self.memberships_ = np.column_stack([1 - p, p])
        self.n_iter_ = 3
        self.converged_ = True
        return self


def _tiny_data(data_home=None):
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(-2, 0.5, (15, 2)), rng.normal(2, 0.5, (15, 2))])
    y = np.repeat([0, 1], 15)
    return X, y


def _register_once(registry, item, register):
    if item.name not in registry:
        register(item)
    return registry[item.name]


_register_once(DATASETS, Dataset("test-tiny", _tiny_data), register_dataset)
_register_once(
    METHODS,
    Method(
        "test-threshold",
        ThresholdClusterer,
        grid={"threshold": [-10.0, 0.0, 10.0]},
        defaults={"threshold": 10.0},
    ),
    register_method,
)
_register_once(
    METHODS,
    Method("test-warns", ThresholdClusterer, grid={"warn": [True]}, defaults={"warn": True}),
    register_method,
)
_register_once(
    METHODS,
    Method("test-fails", ThresholdClusterer, grid={"threshold": ["bad", 0.0]}),
    register_method,
)
TINY = _register_once(
    TABLES,
    Table(
        name="test-tiny-table",
        title="tiny",
        source="unit test",
        datasets=["test-tiny"],
        methods=["test-threshold"],
        measures=["ca_majority", "pc"],
        n_runs=3,
        published={("test-tiny", "test-threshold", "ca_majority"): 0.8765},
        published_spread={("test-tiny", "test-threshold", "ca_majority"): 0.0123},
        quick={"n_runs": 1, "grid_points": 2},
    ),
    register_table,
)


def test_derive_seed_stable_and_distinct():
    assert derive_seed(0, "iris", "fcm", 1) == derive_seed(0, "iris", "fcm", 1)
    seeds = {derive_seed(s, d, m, r) for s, d, m, r in itertools.product(
        [0, 1], ["iris", "wine"], ["fcm", "kmeans"], range(5))}
    assert len(seeds) == 40
    assert all(0 <= s < 2**31 - 1 for s in seeds)


def test_registry_rejects_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        register_method(Method("test-threshold", ThresholdClusterer))
    with pytest.raises(ValueError, match="already registered"):
        register_measure(Measure("ca_majority", lambda *a: 0.0))
    with pytest.raises(ValueError, match="already registered"):
        register_table(Table("slmc-table6", "x", "x", [], [], []))


def test_parse_dataset():
    assert parse_dataset("iris") == ("iris", None)
    assert parse_dataset("slmc-four-gaussians@k=5") == ("slmc-four-gaussians", 5)
    with pytest.raises(ValueError, match="@k="):
        parse_dataset("iris@x=3")


def test_expand_jobs_shares_seed_across_settings():
    jobs = expand_jobs(TINY, seed=7)
    paper = [j for j in jobs if j.protocol == "paper"]
    default = [j for j in jobs if j.protocol == "default"]
    assert len(paper) == 3 * 3 and len(default) == 3
    for run in range(3):
        seeds = {j.seed for j in jobs if j.run == run}
        assert seeds == {derive_seed(7, "test-tiny", "test-threshold", run)}
    quick = expand_jobs(TINY, quick=True)
    assert len([j for j in quick if j.protocol == "paper"]) == 2  # 1 run x 2 grid points


def test_run_table_end_to_end_schema_and_selection(tmp_path):
    rows = run_table(TINY, out_dir=tmp_path, progress=False, seed=3)
    assert len(rows) == len(expand_jobs(TINY, seed=3))
    for row in rows:
        assert set(ROW_FIELDS) <= set(row)
        assert set(TINY.measures) <= set(row)
        assert json.loads(row["params"]).keys() == {"threshold"}
        assert row["error"] is None and row["fit_time"] >= 0.0
        assert row["n_samples"] == 30 and row["n_features"] == 2 and row["n_clusters"] == 2
        assert row["preprocessing"] == "raw" and row["n_iter"] == 3 and row["converged"]
    by_threshold = {json.loads(r["params"])["threshold"]: r["ca_majority"] for r in rows}
    assert by_threshold[0.0] == 1.0 and by_threshold[10.0] == 0.5
    best = [r for r in select_best(rows, "ca_majority") if r["protocol"] == "paper"]
    assert len(best) == 3
    assert all(json.loads(r["params"])["threshold"] == 0.0 for r in best)
    summary = summarize(rows, TINY)
    assert summary[("test-tiny", "test-threshold", "paper")]["ca_majority"]["mean"] == 1.0
    assert summary[("test-tiny", "test-threshold", "default")]["ca_majority"]["mean"] == 0.5
    assert len(read_rows(tmp_path / "test-tiny-table.jsonl")) == len(rows)


def test_resume_skips_done_jobs(tmp_path):
    FITS.clear()
    first = run_table(TINY, out_dir=tmp_path, progress=False, quick=True)
    assert len(FITS) == len(first) > 0
    FITS.clear()
    second = run_table(TINY, out_dir=tmp_path, progress=False, quick=True)
    assert FITS == []
    assert [r["key"] for r in second] == [r["key"] for r in first]
    # Remove one row from the cache: only that job runs again.
    path = tmp_path / "test-tiny-table.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[1:]) + "\n")
    run_table(TINY, out_dir=tmp_path, progress=False, quick=True)
    assert len(FITS) == 1
    # A different seed is a different job.
    FITS.clear()
    run_table(TINY, out_dir=tmp_path, progress=False, quick=True, seed=1)
    assert len(FITS) == len(first)


def test_run_job_needs_no_registry(monkeypatch):
    """What a worker process receives is enough: no registry lookups in run_job."""
    import pickle

    from marginclust.bench import _runner

    job = expand_jobs(TINY)[1]
    payload = pickle.dumps((job, METHODS[job.method], {"ca_majority": _ca_measure()}))
    job2, method, measures = pickle.loads(payload)
    monkeypatch.setattr(_runner, "METHODS", {})
    monkeypatch.setattr(_runner, "MEASURES", {})
    X, y = _tiny_data()
    row = _runner.run_job(job2, X, y, 2, "raw", ["ca_majority"], "v",
                          method=method, measure_objs=measures)
    assert row["error"] is None and row["ca_majority"] == 1.0


def _ca_measure():
    from marginclust.bench._registry import MEASURES

    return MEASURES["ca_majority"]


def test_warnings_counted_and_failures_recorded(tmp_path):
    table = Table(
        "test-warn-fail", "t", "unit test", ["test-tiny"], ["test-warns", "test-fails"],
        ["ca_majority"], n_runs=2, protocols=("paper",),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may escape the runner
        rows = run_table(table, progress=False)
    warned = [r for r in rows if r["method"] == "test-warns"]
    assert all(r["n_convergence_warnings"] == 1 and r["n_warnings"] == 1 for r in warned)
    failed = [r for r in rows if r["method"] == "test-fails" and r["error"]]
    assert len(failed) == 2
    assert all("infeasible" in r["error"] and r["ca_majority"] is None for r in failed)
    ok = [r for r in rows if r["method"] == "test-fails" and not r["error"]]
    assert len(ok) == 2 and all(r["ca_majority"] == 1.0 for r in ok)
    report = format_report(rows, table)
    assert "failed: 2" in report and "ConvergenceWarnings: 2" in report


def test_report_shows_published_beside_ours():
    rows = run_table(TINY, progress=False)
    report = format_report(rows, TINY, seed=0)
    assert "test-threshold published" in report
    assert "0.8765 ± 0.0123" in report
    line = next(ln for ln in report.splitlines() if ln.startswith("| test-tiny |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1].startswith("1.0000") and cells[3] == "0.8765 ± 0.0123"
    assert float(cells[4]) == pytest.approx(1.0 - 0.8765)
    assert "Preprocessing" in report and "seed: 0" in report


def test_report_pooled_column_takes_best_over_methods():
    table = Table(
        "test-pooled", "t", "unit test", ["test-tiny"], ["test-threshold", "test-fails"],
        ["ca_majority"], n_runs=2, protocols=("paper",),
        published={("test-tiny", "test-fails", "ca_majority"): 0.5},
        pooled={"both": ["test-fails", "test-threshold"]},
    )
    rows = run_table(table, progress=False)
    report = format_report(rows, table)
    header = next(ln for ln in report.splitlines() if ln.startswith("| dataset"))
    line = next(ln for ln in report.splitlines() if ln.startswith("| test-tiny"))
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")],
                     [c.strip() for c in line.strip("|").split("|")]))
    assert cells["both ours (paper)"].startswith("1.0000")
    assert cells["both published"] == "0.5000" and cells["both gap"] == "+0.5000"
    assert "both ours (default)" not in cells


def test_report_marks_shortfall():
    published = {("test-tiny", "test-threshold", "ca_majority"): 0.99}
    table = Table(
        "test-short", "t", "unit test", ["test-tiny"], ["test-threshold"], ["ca_majority"],
        n_runs=1, published=published, protocols=("default",),
    )
    report = format_report(run_table(table, progress=False), table)
    assert "▼" in report and "on 1 of 1 cells" in report


def test_custom_table_run_and_report(tmp_path):
    calls = []

    def run(table, context):
        calls.append(context)
        return [{"what": "x", "value": float(context.seed)}]

    table = Table("test-custom", "c", "unit test", [], [], [], run=run,
                  report=lambda rows, t: f"custom {len(rows)}")
    rows = run_table(table, seed=5, out_dir=tmp_path, progress=False)
    assert rows[0]["value"] == 5.0 and rows[0]["table"] == "test-custom"
    assert calls[0].seed == 5 and calls[0].out_dir == str(tmp_path)
    run_table(table, seed=5, out_dir=tmp_path, progress=False)
    assert len(calls) == 1  # cached
    assert format_report(rows, table) == "custom 1"


def test_measures_match_metrics_and_hard_methods_get_nan():
    from marginclust.bench._registry import MEASURES
    from marginclust.metrics import clustering_accuracy, partition_coefficient

    X, y = _tiny_data()
    labels = (X[:, 0] > 1.5).astype(int)
    U = np.column_stack([1 - labels * 0.9, labels * 0.9 + 0.0])
    U = U / U.sum(axis=1, keepdims=True)
    ca = MEASURES["ca_majority"].func(y, labels, None, X)
    assert ca == clustering_accuracy(y, labels, mapping="majority")
    assert MEASURES["pc"].func(y, labels, U, X) == partition_coefficient(U)
    assert math.isnan(MEASURES["pc"].func(y, labels, None, X))
    assert math.isnan(MEASURES["xb"].func(y, labels, None, X))
    assert MEASURES["xb"].func(y, labels, U, X) > 0
    assert not MEASURES["pe"].greater_is_better and MEASURES["nmi"].greater_is_better


def test_xb_kernel_uses_fitted_sigma():
    from marginclust.bench._registry import MEASURES
    from marginclust.metrics import kernel_xie_beni, xie_beni

    X, y = _tiny_data()
    est = ThresholdClusterer().fit(X)
    U = est.memberships_
    W = U**2
    centers = (W.T @ X) / W.sum(axis=0)[:, None]
    measure = MEASURES["xb_kernel"]
    assert measure.needs_estimator and not measure.greater_is_better
    assert measure.func(y, est.labels_, U, X, estimator=est) == xie_beni(X, U, centers)
    est.sigma_ = 1.7
    assert measure.func(y, est.labels_, U, X, estimator=est) == pytest.approx(
        kernel_xie_beni(X, U, centers, 1.7)
    )


def test_mean_pairwise_distance_matches_pdist(rng):
    X = rng.normal(size=(57, 3))
    assert mean_pairwise_distance(X) == pytest.approx(pdist(X).mean(), rel=1e-10)


def test_sigma0_scaled_sets_width():
    class Kern(ClusterMixin, BaseEstimator):
        def __init__(self, sigma=1.0):
            self.sigma = sigma

        def fit(self, X, y=None):
            self.labels_ = np.zeros(len(X), dtype=int)
            return self

    X, _ = _tiny_data()
    est = Sigma0Scaled(Kern(), sigma_factor=0.5).fit(X)
    assert est.sigma_ == pytest.approx(0.5 * pdist(X).mean())
    assert est.estimator_.sigma == est.sigma_
    assert est.labels_.shape == (30,)


def test_binary_method_on_multiclass_set_is_not_applicable_not_failed():
    import numpy as np

    from marginclust import IterativeLSSVM
    from marginclust.bench._registry import Method
    from marginclust.bench._runner import NOT_APPLICABLE, Job, run_job

    X = np.random.RandomState(0).normal(size=(30, 2))
    y = np.arange(30) % 3
    method = Method("binary", lambda n_clusters, random_state: IterativeLSSVM(n_clusters))
    job = Job(table="t", dataset="d", method="binary", protocol="default")
    row = run_job(job, X, y, 3, "raw", [], "0", method=method, measure_objs={})
    assert row["error"].startswith(f"ValueError: {NOT_APPLICABLE}")

"""The harness's label-free protocol: a search per run, a column beside paper and default."""

from __future__ import annotations

import json

from marginclust.bench import METHODS, TABLES, Method, Table, register_method, register_table
from marginclust.bench._report import format_report
from marginclust.bench._runner import expand_jobs, run_table

from ._helpers import GridKMeans


def _grid_kmeans(*, n_clusters, random_state, **params):
    return GridKMeans(n_clusters, random_state=random_state, **params)


def _table():
    if "test-lf-kmeans" not in METHODS:
        register_method(Method("test-lf-kmeans", _grid_kmeans, grid={"collapse": [False, True]}))
    if "test-lf-table" not in TABLES:
        register_table(Table(
            "test-lf-table", "iris by k-means", "unit test", ["sk-iris"], ["test-lf-kmeans"],
            ["ca_hungarian"], n_runs=2, preprocessing="standardize",
            published={("sk-iris", "test-lf-kmeans", "ca_hungarian"): 0.89},
        ))
    return TABLES["test-lf-table"]


def test_label_free_protocol_is_opt_in():
    table = _table()
    assert {j.protocol for j in expand_jobs(table)} == {"paper", "default"}
    jobs = [j for j in expand_jobs(table, label_free=True) if j.protocol == "label-free"]
    assert len(jobs) == 2  # one search per run


def test_label_free_rows_and_report_column():
    table = _table()
    rows = run_table(table, label_free=True, progress=False)
    lf = [r for r in rows if r["protocol"] == "label-free"]
    assert len(lf) == 2 and all(r["error"] is None for r in lf)
    # the pick comes from the estimator's own label-free grid (n_clusters 2..4 here)
    assert all(json.loads(r["params"])["n_clusters"] in (2, 3, 4) for r in lf)
    report = format_report(rows, table)
    assert "test-lf-kmeans ours (label-free)" in report
    assert "test-lf-kmeans ours (paper)" in report and "0.8900" in report
    assert all(r["error"] is None for r in rows)

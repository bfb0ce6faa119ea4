"""Bench reports that read in a terminal, from a public API."""

from __future__ import annotations

import pytest
from sklearn.cluster import KMeans

from marginclust.bench import (
    METHODS,
    TABLES,
    Method,
    Table,
    format_report,
    register_method,
    register_table,
    run_table,
)
from marginclust.cli import main

METHOD_NAMES = [f"test-report-km{i}" for i in range(7)]


@pytest.fixture(scope="module")
def table():
    for name in METHOD_NAMES:
        if name not in METHODS:
            register_method(Method(name, KMeans, grid={"n_init": [1, 2, 3, 4, 5]},
                                   defaults={"n_init": 1}))
    name = "test-report-wide"
    if name not in TABLES:
        published = {("sk-iris", m, "ca_majority"): 0.89 for m in METHOD_NAMES}
        spread = {("sk-iris", m, "ca_majority"): 0.0 for m in METHOD_NAMES}  # scalars
        register_table(Table(
            name, "iris by seven k-means", "unit test", ["sk-iris"], METHOD_NAMES,
            ["ca_majority"], n_runs=3, published=published, published_spread=spread,
            quick={"n_runs": 1, "grid_points": 2},
        ))
    return TABLES[name]


def _widths(report: str) -> list[int]:
    return [ln.count("|") - 1 for ln in report.splitlines() if ln.startswith("| dataset")]


def test_terminal_report_has_few_columns(table, tmp_path, capsys):
    # 7 methods x (paper, default, published, gap) + dataset = 29 columns when wide.
    rows = run_table(table, quick=True, progress=False)
    assert max(_widths(format_report(rows, table))) == 29
    assert max(_widths(format_report(rows, table, layout="long"))) <= 6
    assert main(["bench", "--table", table.name, "--quick", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert max(_widths(printed)) <= 6
    assert max(len(ln) for ln in printed.splitlines() if ln.startswith("|")) < 100


def test_quick_lists_only_the_grid_it_ran(table):
    rows = run_table(table, quick=True, progress=False)
    report = format_report(rows, table, quick=True)
    assert 'grid {"n_init": [1, 5]}' in report  # thinned to two points
    assert "[1, 2, 3, 4, 5]" not in report


def test_scalars_print_without_zero_spread(table):
    rows = run_table(table, quick=True, progress=False)  # one run: no spread either
    report = format_report(rows, table, layout="long")
    assert "± 0.0000" not in report
    assert "0.8900" in report


def test_public_bench_api_is_what_the_readme_uses():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "marginclust.bench._" not in readme
    assert re.search(r"from marginclust\.bench import .*run_table", readme)


def test_reasons_are_not_cut_mid_word():
    from marginclust.utils import shorten

    text = "Unknown data set 'wine': no data directory is configured " * 5
    short = shorten(text, 120)
    assert len(short) <= 120 and short.endswith("...")
    assert text.startswith(short[:-3]) and text[len(short) - 3] == " "
    assert shorten("short", 120) == "short"

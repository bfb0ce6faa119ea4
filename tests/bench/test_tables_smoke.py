"""Every registered table runs end to end in its tiny mode and gives a report (CI smoke test).

Tiny mode: one data set, one run, one setting, a subsample of the rows (see
``run_table(tiny=True)``); seconds per table. It proves the table's plumbing
(data, methods, measures, published keys, report), not its numbers.
"""

from __future__ import annotations

import pytest

import papers  # noqa: F401  (registers the papers' tables)
from marginclust.bench import TABLES
from marginclust.bench._report import format_report
from marginclust.bench._runner import row_status, run_table

PAPER_TABLES = sorted(n for n in TABLES if not n.startswith("test-"))


@pytest.mark.parametrize("name", PAPER_TABLES)
def test_every_table_runs_in_tiny_mode(name, shared_data_dir):
    table = TABLES[name]
    rows = run_table(table, tiny=True, progress=False, data_home=str(shared_data_dir))
    assert rows, f"{name}: no rows in tiny mode"
    if table.run is None:  # grid tables: every row has a status, none failed
        failed = [r["error"] for r in rows if row_status(r) == "failed"]
        assert not failed, f"{name}: {failed[:3]}"
    report = format_report(rows, table, seed=0, quick=True)
    assert name in report or table.title in report


def test_a_figure_table_writes_its_figure(shared_data_dir, tmp_path):
    pytest.importorskip("matplotlib")
    rows = run_table("slmc-fig2", tiny=True, progress=False, out_dir=tmp_path,
                     data_home=str(shared_data_dir))
    assert {row_status(r) for r in rows} == {"ok"}
    assert (tmp_path / "slmc_fig2.png").stat().st_size > 0



@pytest.mark.parametrize("name", [n for n in PAPER_TABLES if TABLES[n].run is None])
def test_every_grid_table_runs_label_free_in_tiny_mode(name, shared_data_dir):
    # a label-free job has no paper parameters and searches clones of the method: each
    # row is fitted, or not applicable (a wrapper that cannot be cloned), never failed
    rows = run_table(TABLES[name], tiny=True, label_free=True, progress=False,
                     data_home=str(shared_data_dir))
    assert any(r.get("protocol") == "label-free" for r in rows), f"{name}: no label-free rows"
    failed = [r["error"] for r in rows if row_status(r) == "failed"]
    assert not failed, f"{name}: {failed[:3]}"

"""Benchmark harness reproducing the papers' tables (never imported by the core).

The public API: :func:`run_table` runs (or resumes) a registered table and
returns its rows, :func:`format_report` turns them into Markdown, and the
registry (:class:`Table`, :class:`Method`, :class:`Measure`, :class:`Dataset`,
``register_*``) describes the experiments; :func:`load_published` reads the papers'
printed numbers (one CSV per paper).
"""

from ._published import Published, load_published
from ._registry import (
    DATASETS,
    MEASURES,
    METHODS,
    TABLES,
    Dataset,
    Measure,
    Method,
    RunContext,
    Table,
    load_protocols,
    register_dataset,
    register_measure,
    register_method,
    register_table,
)
from ._report import format_report, summarize
from ._runner import get_table, read_rows, run_table, system_info

__all__ = [
    "DATASETS", "MEASURES", "METHODS", "TABLES", "Dataset", "Measure", "Method", "Published",
    "RunContext", "Table", "format_report", "get_table", "load_protocols", "load_published",
    "register_dataset", "register_measure", "register_method", "register_table", "read_rows",
    "run_table", "summarize", "system_info",
]

"""Benchmark harness: tables of data sets x methods x measures, run and reported.

The library's own experiment runner, usable without the repository: register
:class:`Method`, :class:`Dataset` and :class:`Table` entries (the measures of
:mod:`marginclust.metrics` are registered already), then :func:`run_table` runs
(or resumes) a table and returns its rows and :func:`format_report` turns them
into Markdown, beside published numbers when the table has them
(:func:`load_published` reads them from CSV files). :func:`load_benchmark`
imports a benchmark by path, as benchopt imports a benchmark folder: the
papers' tables live in the repository's ``benchmarks/papers`` folder, which
``marginclust bench`` loads. No estimator, solver or command other than
``marginclust bench`` imports this package.
"""

from . import _measures  # noqa: F401  (registers the measures of marginclust.metrics)
from ._published import Published, load_published
from ._registry import (
    DATASETS,
    MEASURES,
    METHODS,
    TABLES,
    Dataset,
    Measure,
    Method,
    Table,
    load_benchmark,
    register_dataset,
    register_measure,
    register_method,
    register_table,
)
from ._report import format_report, summarize
from ._runner import RunContext, get_table, read_rows, run_table, system_info

__all__ = [
    "DATASETS", "MEASURES", "METHODS", "TABLES", "Dataset", "Measure", "Method", "Published",
    "RunContext", "Table", "format_report", "get_table", "load_benchmark", "load_published",
    "register_dataset", "register_measure", "register_method", "register_table", "read_rows",
    "run_table", "summarize", "system_info",
]

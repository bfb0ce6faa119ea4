"""Benchmark harness reproducing the papers' tables (never imported by the core)."""

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

__all__ = [
    "DATASETS",
    "MEASURES",
    "METHODS",
    "TABLES",
    "Dataset",
    "Measure",
    "Method",
    "RunContext",
    "Table",
    "load_protocols",
    "register_dataset",
    "register_measure",
    "register_method",
    "register_table",
]

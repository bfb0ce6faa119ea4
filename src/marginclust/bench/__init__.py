"""Benchmark harness reproducing the papers' tables (never imported by the core)."""

from ._registry import (
    MEASURES,
    METHODS,
    TABLES,
    Measure,
    Method,
    RunContext,
    Table,
    load_protocols,
    register_measure,
    register_method,
    register_table,
)

__all__ = [
    "MEASURES",
    "METHODS",
    "TABLES",
    "Measure",
    "Method",
    "RunContext",
    "Table",
    "load_protocols",
    "register_measure",
    "register_method",
    "register_table",
]

"""Helpers shared by the protocol modules: registration with the published numbers,
estimator wrappers, resumable units, Markdown."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from marginclust.bench import RunContext, Table, read_rows
from marginclust.bench import register_table as _register_table
from marginclust.bench._published import split_method, spreads
from marginclust.bench._published import values as _values
from marginclust.bench._report import md_table, table_head

__all__ = ["PUBLISHED", "Delegating", "UnitCache", "fmt_value", "md_table", "mean_of",
           "mean_table", "register_table", "split_method", "table_head", "values"]

# The numbers the papers print, one CSV per paper (see marginclust.bench._published).
PUBLISHED = Path(__file__).resolve().parent / "published"


def values(table: str) -> dict[tuple[str, str, str], float]:
    """``(dataset, method, measure) -> value`` that the paper prints for ``table``."""
    return _values(table, PUBLISHED)


def register_table(table: Table) -> Table:
    """Register ``table`` with the paper's printed numbers (``published/<paper>.csv``).

    The numbers are those of ``table.published_from`` when set, else of the table
    itself; a table that brings its own ``published`` keeps them.
    """
    if not table.published:
        source = table.published_from or table.name
        table = replace(table, published=values(source),
                        published_spread=spreads(source, PUBLISHED))
    return _register_table(table)


class Delegating:
    """Mixin of the harness's estimator wrappers: ``predict`` and the fitted attributes
    (names ending in ``_``, plus those in ``_delegated``) are the fitted ``estimator_``'s."""

    _delegated: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        fitted = self.__dict__.get("estimator_")
        wanted = name.endswith("_") or name in self._delegated
        if fitted is not None and wanted and not name.startswith("__"):
            return getattr(fitted, name)
        raise AttributeError(name)

    def predict(self, X: Any) -> Any:
        """Cluster labels of new data (the fitted estimator's)."""
        return self.__dict__["estimator_"].predict(X)


class UnitCache:
    """Resumable rows of a long custom table, one unit of work (e.g. a case and run) at a
    time, in ``<out_dir>/<table>.units.jsonl`` (shared by subsets ``<table>@...``): a
    rerun with the same seed and quick flag reuses them. Without ``out_dir``, nothing."""

    def __init__(self, table: Table, context: RunContext) -> None:
        self._prefix = f"seed={context.seed}|quick={context.quick}|"
        self.path = None if context.out_dir is None else (
            Path(context.out_dir) / f"{table.name.split('@')[0]}.units.jsonl")
        self.done = {rec["unit"]: rec["rows"] for rec in (read_rows(self.path) if self.path
                                                          else [])}

    def get(self, unit: str) -> list[dict[str, Any]] | None:
        """The saved rows of ``unit``, or None when it has not been run."""
        return self.done.get(self._prefix + unit)

    def put(self, unit: str, rows: list[dict[str, Any]]) -> None:
        """Save the rows of a finished ``unit``."""
        key = self._prefix + unit
        self.done[key] = rows
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"unit": key, "rows": rows}, default=float) + "\n")


def fmt_value(value: Any, spec: str = ".4g") -> str:
    """A report cell: ``"-"`` for None or NaN, numbers by ``spec``, anything else by ``str``.

    With a ``g`` spec, magnitudes of 1e5 and above are printed as ``.3e``.
    """
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "-"
    if isinstance(value, float):
        if spec.endswith("g") and abs(value) >= 1e5:
            return f"{value:.3e}"
        return format(value, spec)
    return str(value)


def mean_of(rows: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """Mean of the finite ``row[key]`` values (None when there are none)."""
    vals = [float(r[key]) for r in rows if r.get(key) is not None]
    vals = [v for v in vals if np.isfinite(v)]
    return float(np.mean(vals)) if vals else None


def mean_table(
    rows: Sequence[Mapping[str, Any]], by: Sequence[str], columns: Sequence[str],
    spec: str = ".4g",
) -> list[str]:
    """Markdown lines: a line per distinct ``by`` values (first-seen order) with, per
    column, the mean over those rows (``mean ± std`` when they differ; None and NaN
    skipped) and the row count."""
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in by), []).append(row)
    body = []
    for key, members in groups.items():
        cells = [str(v) for v in key]
        for column in columns:
            vals = np.array([float(r[column]) for r in members if r.get(column) is not None])
            vals = vals[np.isfinite(vals)]
            mean = fmt_value(float(vals.mean()) if vals.size else None, spec)
            std = float(vals.std()) if vals.size > 1 else 0.0
            cells.append(f"{mean} ± {fmt_value(std, spec)}" if std > 0 else mean)
        body.append(cells + [str(len(members))])
    return md_table([*by, *columns, "rows"], body)

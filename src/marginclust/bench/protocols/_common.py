"""Helpers shared by the protocol modules: timed fits and markdown tables.

Not a protocol module itself (it registers nothing).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._registry import RunContext, Table

__all__ = [
    "Delegating", "UnitCache", "load_xy", "md_table", "mean_table", "table_head", "timed_fit",
]


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


def load_xy(name: str, context: RunContext, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Data set ``name`` preprocessed by ``how`` (see :func:`..._runner.load_data`)."""
    from .._runner import load_data

    X, y, _ = load_data(name, how, data_home=context.data_home, max_samples=context.max_samples)
    return X, y


class UnitCache:
    """Resumable rows of a long custom table, saved one unit of work at a time.

    With ``context.out_dir`` set, every finished unit (e.g. one data set and run)
    is appended to ``<out_dir>/<table>.units.jsonl``; a rerun of the same table,
    seed and quick flag reuses the saved units instead of fitting them again, so
    an interrupted run resumes and a partial run can still be reported. A subset
    of a table (renamed ``<table>@...``) shares the table's file. Without
    ``out_dir`` nothing is saved.
    """

    def __init__(self, table: Table, context: RunContext) -> None:
        import json
        from pathlib import Path

        self._json = json
        self._prefix = f"seed={context.seed}|quick={context.quick}|"
        self.path = (
            None
            if context.out_dir is None
            else Path(context.out_dir) / f"{table.name.split('@')[0]}.units.jsonl"
        )
        self.done: dict[str, list[dict[str, Any]]] = {}
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    rec = json.loads(line)
                    self.done[rec["unit"]] = rec["rows"]

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
                fh.write(self._json.dumps({"unit": key, "rows": rows}, default=float) + "\n")


def table_head(table: Table) -> list[str]:
    """Markdown heading lines of a table report: name, title and source."""
    return [f"## {table.name}: {table.title}", "", f"Source: {table.source}.", ""]


def timed_fit(est: Any, X: Any, **fit_params: Any) -> tuple[Any, float, int]:
    """Fit ``est`` on ``X`` and time only the fit (:func:`time.perf_counter`).

    Warnings raised during the fit are caught (not shown) and counted.

    Parameters
    ----------
    est : estimator
        Unfitted estimator.
    X : array-like of shape (n_samples, n_features)
        Training data.
    **fit_params : dict
        Passed to ``est.fit``.

    Returns
    -------
    est : estimator
        The fitted estimator.
    elapsed : float
        Wall-clock seconds of ``fit``.
    n_warnings : int
        Number of warnings raised during ``fit``.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X, **fit_params)
        elapsed = time.perf_counter() - t0
    return est, elapsed, len(caught)


def md_table(
    header: Sequence[str], body: Sequence[Sequence[Any]], fmt: Callable[[Any], str] = str
) -> list[str]:
    """Lines of a markdown table.

    Parameters
    ----------
    header : sequence of str
        Column names.
    body : sequence of sequences
        Rows of cells.
    fmt : callable, default=str
        Turns a cell into its text.

    Returns
    -------
    lines : list of str
        The header, the separator and one line per row.
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in body]
    return lines


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
    """Markdown lines: a line per distinct ``by`` values (first-seen order), per column
    the mean over those rows, ``mean ± std`` when they differ, and the row count.

    Parameters
    ----------
    rows : sequence of mapping
        Result rows (e.g. one per run).
    by : sequence of str
        Row keys that name a line (e.g. ``("dataset", "n_constraints")``).
    columns : sequence of str
        Row keys averaged per line (None and NaN skipped).
    spec : str, default=".4g"
        Number format.

    Returns
    -------
    lines : list of str
        A Markdown table.
    """
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

"""Published numbers read from a folder of CSV files (one per paper), one loader.

A benchmark keeps the numbers its tables are compared with as data, e.g. the
repository's ``benchmarks/papers/published/<paper>.csv``. Every file has the
columns ``table, dataset, method, measure, value, spread, note``: one printed
number per line, keyed by the registered table, the data set name the table
uses, our method name and our measure name. Two
conventions keep the keys registry names:

* a method may name a setting of a registered method, ``name[param=value,...]``
  (e.g. ``fcm[m=1.5]`` or ``pkm[solver=agp,step=0.01]``);
* a measure may name a statistic other than the mean, ``measure:stat``
  (``ca_majority:max``).

``spread`` is what the paper prints after "+-" (empty when nothing is
printed); ``note`` says anything else (units, "as printed" labels).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "FIELDS",
    "Published",
    "load_published",
    "published_for",
    "split_measure",
    "split_method",
]

FIELDS = ("table", "dataset", "method", "measure", "value", "spread", "note")


@dataclass(frozen=True)
class Published:
    """One published number (a line of a published-numbers CSV file).

    Parameters
    ----------
    table : str
        Registered table name.
    dataset : str
        Data set name as the table uses it.
    method : str
        Method registry key, or a setting of one (``fcm[m=1.5]``).
    measure : str
        Measure registry key, or a statistic of one (``ca_majority:max``).
    value : float
        The number as printed (fractions for accuracies).
    spread : float or None, default=None
        What the paper prints after "+-".
    note : str, default=""
        Units, labels as printed, anything else.
    paper : str, default=""
        The CSV file (paper) the line comes from.
    """

    table: str
    dataset: str
    method: str
    measure: str
    value: float
    spread: float | None = None
    note: str = ""
    paper: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        """``(dataset, method, measure)``, the key of ``Table.published``."""
        return (self.dataset, self.method, self.measure)


def load_published(folder: str | Path) -> tuple[Published, ...]:
    """Every published number in the CSV files of ``folder`` (each folder read once).

    Parameters
    ----------
    folder : str or path-like
        A folder of ``<paper>.csv`` files with the columns ``table, dataset,
        method, measure, value, spread, note``.

    Returns
    -------
    published : tuple of Published
        The lines of every ``*.csv`` file of the folder, papers in name order.

    Raises
    ------
    ValueError
        If a file does not have exactly those columns.
    """
    return _load(str(Path(folder).resolve()))


@lru_cache(maxsize=8)
def _load(folder: str) -> tuple[Published, ...]:
    out: list[Published] = []
    for entry in sorted(Path(folder).glob("*.csv"), key=lambda e: e.name):
        reader = csv.DictReader(io.StringIO(entry.read_text(encoding="utf-8"), newline=""))
        if tuple(reader.fieldnames or ()) != FIELDS:
            raise ValueError(f"{entry.name}: columns must be {', '.join(FIELDS)}.")
        out += [
            Published(line["table"], line["dataset"], line["method"], line["measure"],
                      float(line["value"]), float(line["spread"]) if line["spread"] else None,
                      line["note"], paper=entry.name[:-4])
            for line in reader
        ]
    return tuple(out)


def published_for(table: str, folder: str | Path) -> dict[tuple[str, str, str], Published]:
    """``(dataset, method, measure) -> Published`` of one table in ``folder``, in file order."""
    return {p.key: p for p in load_published(folder) if p.table == table}


def values(table: str, folder: str | Path) -> dict[tuple[str, str, str], float]:
    """``(dataset, method, measure) -> value`` of one table (a ``Table.published``)."""
    return {k: p.value for k, p in published_for(table, folder).items()}


def spreads(table: str, folder: str | Path) -> dict[tuple[str, str, str], float]:
    """``(dataset, method, measure) -> spread`` where the paper prints one."""
    return {k: p.spread for k, p in published_for(table, folder).items()
            if p.spread is not None}


def split_method(name: str) -> tuple[str, dict[str, Any]]:
    """``"pkm[solver=agp,step=0.01]"`` -> ``("pkm", {"solver": "agp", "step": 0.01})``."""
    base, sep, rest = name.partition("[")
    if not sep:
        return name, {}
    params: dict[str, Any] = {}
    for item in rest.rstrip("]").split(","):
        key, _, text = item.partition("=")
        try:
            value: Any = float(text)
        except ValueError:
            value = text
        params[key.strip()] = value
    return base, params


def method_key(base: str, params: Mapping[str, Any]) -> str:
    """Inverse of :func:`split_method` (numbers as ``%g``)."""
    if not params:
        return base
    items = ",".join(
        f"{k}={v:g}" if isinstance(v, float | int) and not isinstance(v, bool) else f"{k}={v}"
        for k, v in params.items()
    )
    return f"{base}[{items}]"


def split_measure(name: str) -> tuple[str, str]:
    """``"ca_majority:max"`` -> ``("ca_majority", "max")``; a plain name is a mean."""
    base, _, stat = name.partition(":")
    return base, stat or "mean"

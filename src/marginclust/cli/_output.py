"""Writing the ``fit`` command's output, and the notes it prints about the input.

The rows are formatted in blocks with one %-format per row (no per-cell Python
calls), so a million rows take about a second; text columns (IDs, labels) are
quoted only when a value needs it.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = ["check_out_file", "format_params", "open_output", "plural", "scale_note",
           "write_clusters"]

_BLOCK = 2_000


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 cluster"``, ``"3 clusters"``, ``"1,200 rows"``: a count and its noun."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def format_params(params: Mapping[str, Any] | None, digits: int = 4) -> str:
    """``{'gamma': 1.2499999999999984, 'lam': 100.0}`` -> ``"gamma=1.25, lam=100"``.

    Floats are shown to ``digits`` significant digits (grid values computed from the
    data carry rounding noise); None or ``{}`` -> ``"the defaults"``.
    """
    if not params:
        return "the defaults"

    def show(value: Any) -> str:
        if isinstance(value, float | np.floating):
            return f"{float(value):.{digits}g}"
        if isinstance(value, list | tuple):
            return "[" + ", ".join(show(v) for v in value) + "]"
        return str(value) if isinstance(value, str) else repr(value)

    return ", ".join(f"{k}={show(v)}" for k, v in params.items())


def check_out_file(out: str | None) -> None:
    """Fail before any work when ``--out`` cannot be written as a file.

    ``-`` (standard output) and existing character devices or pipes
    (``/dev/null``, ``/dev/stdout``, a named pipe) are accepted.
    """
    if out is None or out == "-":
        return
    path = Path(out)
    if path.is_dir():
        raise ValueError(f"--out {out} is a directory; name a file, e.g. {path / 'clusters.csv'}.")
    if path.exists() and (path.is_char_device() or path.is_fifo()):
        return
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"--out {out}: the directory {parent} does not exist; create it first.")
    if path.exists() and not path.is_file():
        raise ValueError(f"--out {out} exists and is not a regular file.")


def scale_note(X: np.ndarray, names: list[str], scaled: bool = False) -> str | None:
    """A note when the features' spreads differ by more than ``UNITS_SPREAD`` (100).

    ``scaled``: whether ``--scale auto`` standardised them for that reason.
    """
    from marginclust.utils._preprocessing import UNITS_SPREAD

    if X.shape[1] < 2 or X.shape[0] < 2:
        return None
    std = X.std(axis=0)
    live = np.flatnonzero(std > 0)
    if live.size < 2:
        return None
    hi, lo = live[np.argmax(std[live])], live[np.argmin(std[live])]
    ratio = float(std[hi] / std[lo])
    if ratio <= UNITS_SPREAD:
        return None
    said = (f"the features' scales differ by {ratio:,.0f}x (standard deviation of "
            f"{names[hi]!r} {std[hi]:.3g}, of {names[lo]!r} {std[lo]:.3g})")
    if scaled:
        return said + ": each feature was standardised (--scale none keeps them as they are)"
    return (said + ": distance-based methods then mostly see the largest; --scale standard "
            "gives every feature unit variance")


def _text_column(values: np.ndarray) -> list[str]:
    """Values as CSV cells, quoted only where needed."""
    out = []
    for v in values.tolist():
        v = str(v)
        if any(c in v for c in ',"\n\r'):
            buf = io.StringIO()
            csv.writer(buf, lineterminator="").writerow([v])
            v = buf.getvalue()
        out.append(v)
    return out


def write_clusters(fh: IO[str], labels: np.ndarray, memberships: np.ndarray | None,
                   ids: Mapping[str, np.ndarray], truth: np.ndarray | None,
                   truth_name: str | None) -> None:
    """One CSV row per sample: ID columns, ``cluster``, memberships, the label column."""
    header = [*ids, "cluster"]
    k = 0 if memberships is None else memberships.shape[1]
    header += [f"membership_{j}" for j in range(k)]
    if truth is not None and truth_name is not None:
        header.append(truth_name)
    fh.write(",".join(_text_column(np.array(header))) + "\n")
    fmt = ",".join(["%s"] * len(ids) + ["%d"] + ["%.6g"] * k + (["%s"] if truth is not None
                                                                   else [])) + "\n"
    texts = [_text_column(col) for col in ids.values()]
    tail = _text_column(truth) if truth is not None else None
    n = labels.shape[0]
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        cols: list[Any] = [t[lo:hi] for t in texts]
        cols.append(labels[lo:hi].tolist())
        if memberships is not None:
            cols.extend(memberships[lo:hi, j].tolist() for j in range(k))
        if tail is not None:
            cols.append(tail[lo:hi])
        fh.write("".join(map(fmt.__mod__, zip(*cols, strict=True))))


def open_output(out: str | None) -> tuple[IO[str], bool]:
    """The output stream and whether to close it (``None`` and ``-`` are stdout)."""
    if out is None or out == "-":
        return sys.stdout, False
    return open(out, "w", newline="", encoding="utf-8"), True

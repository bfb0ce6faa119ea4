"""Reading the ``fit`` command's input: a numeric CSV file (optionally gzip'd).

Every problem a CSV file can have ends in one ``ValueError`` sentence that
names the file, the row and column when there is one, and the fix: a directory
given as input, a ``.gz`` file that is not gzip or is truncated, text that is not
UTF-8, a ``;``- or tab-separated file, a file without a header row, ragged rows,
text, ``NA``, ``nan`` or ``inf`` in a feature column.
"""

from __future__ import annotations

import csv
import gzip
import io
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["CSVData", "parse_delimiter", "read_csv"]

_GZIP_MAGIC = b"\x1f\x8b"
_DELIMITER_NAMES = {"comma": ",", "semicolon": ";", "tab": "\t", "\\t": "\t", "space": " "}


@dataclass
class CSVData:
    """What :func:`read_csv` found: features, labels, names and notes for the user."""

    X: np.ndarray
    labels: np.ndarray | None
    feature_names: list[str]
    notes: list[str] = field(default_factory=list)


def parse_delimiter(value: str | None) -> str | None:
    """``"tab"``, ``"\\t"``, ``"semicolon"``, ``";"``, ... -> the one-character delimiter."""
    if value is None:
        return None
    value = _DELIMITER_NAMES.get(value.lower(), value)
    if len(value) != 1:
        raise ValueError(
            f"--delimiter takes one character or comma/semicolon/tab/space; got {value!r}."
        )
    return value


def _read_text(path: str) -> str:
    file = Path(path)
    if file.is_dir():
        raise ValueError(
            f"{path} is a directory; give a CSV file inside it (e.g. {file / 'data.csv'})."
        )
    if not file.exists():
        raise FileNotFoundError(f"Input file {path!r} not found.")
    raw = file.read_bytes()
    if file.name.endswith(".gz") or raw[:2] == _GZIP_MAGIC:
        if raw[:2] != _GZIP_MAGIC:
            raise ValueError(
                f"{path} ends in .gz but is not gzip-compressed; rename it without '.gz' "
                "if it is plain text, or compress it with 'gzip'."
            )
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise ValueError(
                f"{path} is truncated or corrupt gzip data ({exc}); download or compress "
                "it again ('gzip -t' checks a file)."
            ) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise ValueError(
            f"{path} is not UTF-8 text (byte 0x{bad} at offset {exc.start}); convert it, "
            f"e.g. 'iconv -f latin1 -t utf-8 {path} > converted.csv', or save it as "
            "'CSV UTF-8' from your spreadsheet."
        ) from None


def _sniff_delimiter(first_line: str) -> str | None:
    """A delimiter other than ',' when the header row plainly uses one."""
    if "," in first_line:
        return None
    for candidate in (";", "\t"):
        if candidate in first_line:
            return candidate
    return None


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def read_csv(
    path: str, label_column: str | None = None, *, delimiter: str | None = None
) -> CSVData:
    """Read a numeric CSV (optionally gzip'd) with a header row.

    Parameters
    ----------
    path : str
        ``.csv`` or ``.csv.gz`` file.
    label_column : str, default=None
        Column kept out of the features and returned as strings.
    delimiter : str, default=None
        Cell separator; None detects ``;`` or tab when the header row has no comma.

    Returns
    -------
    data : CSVData
        ``notes`` say what was detected (delimiter, a missing header row).

    Raises
    ------
    ValueError
        One sentence naming the file, row and column, and what to do.
    """
    text = _read_text(path)
    notes: list[str] = []
    first_line = text.split("\n", 1)[0]
    if delimiter is None:
        delimiter = _sniff_delimiter(first_line)
        if delimiter is not None:
            shown = "tab" if delimiter == "\t" else repr(delimiter)
            notes.append(f"{path}: cells are separated by {shown}, read as such "
                         f"(--delimiter sets it explicitly)")
        else:
            delimiter = ","
    rows = [
        r for r in csv.reader(io.StringIO(text), delimiter=delimiter)
        if r and any(c.strip() for c in r)
    ]
    if not rows:
        raise ValueError(f"{path} is empty; expected a header row and data rows.")
    first = [h.strip() for h in rows[0]]
    if all(_is_number(c) for c in first):
        header = [f"x{j}" for j in range(len(first))]
        notes.append(
            f"{path} has no header row (its first row is all numbers): the first row is "
            f"read as data and the columns are named x0..x{len(first) - 1}"
        )
        body = rows
        first_data_line = 1
    else:
        header = first
        body = rows[1:]
        first_data_line = 2
    if not body:
        raise ValueError(f"{path}: expected a header row and at least one data row.")
    labels = None
    if label_column is not None:
        if label_column not in header:
            raise ValueError(
                f"{path}: no column {label_column!r}; columns are {header[:20]}"
                f"{' ...' if len(header) > 20 else ''}. Pass --label-column with one of them, "
                "or omit it."
            )
        li = header.index(label_column)
    keep = [j for j, h in enumerate(header) if h != label_column]
    if not keep:
        raise ValueError(f"{path}: no feature column besides the label column.")
    X = np.empty((len(body), len(keep)), dtype=np.float64)
    for i, r in enumerate(body):
        line = i + first_data_line
        if len(r) != len(header):
            hint = ""
            if len(header) == 1 and (";" in r[0] or "\t" in r[0]):
                hint = " It looks separated by ';' or tabs: pass --delimiter ';' or tab."
            raise ValueError(
                f"{path}: row {line} has {len(r)} cells, the header {len(header)}.{hint}"
            )
        for jj, j in enumerate(keep):
            cell = r[j].strip()
            try:
                value = float(cell)
            except ValueError:
                value = np.nan
            if not np.isfinite(value):
                hint = "Features must be finite numbers; name a text label column with "
                hint += "--label-column, or drop or impute missing values first."
                if "," in cell and delimiter == ";":
                    hint = "Decimal commas: write numbers with a point (1.5, not 1,5)."
                elif ";" in cell and delimiter != ";":
                    hint = "The file looks ';'-separated: pass --delimiter ';'."
                raise ValueError(
                    f"{path}: row {line}, column {header[j]!r} holds {cell!r}, not a finite "
                    f"number. {hint}"
                )
            X[i, jj] = value
    if label_column is not None:
        labels = np.array([r[li].strip() for r in body])
    return CSVData(X, labels, [header[j] for j in keep], notes)

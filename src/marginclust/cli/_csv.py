"""Reading the ``fit`` command's input: a numeric CSV file, plain or compressed, or stdin.

Numbers, labels and IDs are parsed in bulk by one :func:`numpy.loadtxt` pass (its C
reader, with a structured dtype that also checks every row's cell count); a file with
quoted cells or space separators has its rows split in Python first. Only when that
fails is the file read cell by cell, to name the file, row and column of
the problem and the fix in one ``ValueError`` sentence: a directory given as
input, a compressed file that is truncated or mislabelled, an Excel workbook,
text that is not UTF-8, a ``;``- or tab-separated file, a file without a
header row, ragged rows, thousands separators, text (an identifier, a label),
``NA``, ``nan`` or ``inf`` in a feature column, a duplicated column name.
gzip, bzip2, xz and single-file zip archives are read transparently; ``-``
reads standard input. ``#`` comment lines before the header and a delimiter
at the end of every line are skipped with a note.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import re
import sys
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._output import plural

__all__ = ["CSVData", "LABEL_LIKE", "parse_delimiter", "read_csv"]

_DELIMITER_NAMES = {"comma": ",", "semicolon": ";", "tab": "\t", "\\t": "\t", "space": " "}
# Column names that usually hold labels rather than features.
LABEL_LIKE = frozenset({"label", "labels", "target", "class", "classes", "y", "species",
                        "category", "cluster", "truth", "ground_truth", "outcome", "diagnosis"})
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")


@dataclass
class CSVData:
    """What :func:`read_csv` found: features, labels, ID columns, names and notes."""

    X: np.ndarray
    labels: np.ndarray | None
    feature_names: list[str]
    notes: list[str] = field(default_factory=list)
    ids: dict[str, np.ndarray] = field(default_factory=dict)
    seconds: float = 0.0


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


def _excel(path: str) -> ValueError:
    return ValueError(
        f"{path} is an Excel workbook, not a CSV file; save the sheet as 'CSV UTF-8' from "
        "your spreadsheet, or convert it: python -c \"import pandas; pandas.read_excel("
        f"'{path}').to_csv('data.csv', index=False)\" (needs pandas and openpyxl)."
    )


def _unzip(path: str, raw: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        names = [n for n in zf.namelist() if not n.endswith("/") and not n.startswith("__MACOSX")]
        if any(n.startswith("xl/") for n in names) or path.lower().endswith((".xlsx", ".xlsm")):
            raise _excel(path)
        if len(names) != 1:
            shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
            raise ValueError(f"{path} is a zip archive of {len(names)} files ({shown}); unzip "
                             "it and pass the CSV file you mean.")
        return zf.read(names[0])


# magic bytes, suffix, name, decompress
_CODECS = (
    (b"\x1f\x8b", ".gz", "gzip", gzip.decompress),
    (b"BZh", ".bz2", "bzip2", bz2.decompress),
    (b"\xfd7zXZ\x00", ".xz", "xz", lzma.decompress),
)


def _decompress(path: str, raw: bytes) -> bytes:
    name = path.lower()
    for magic, suffix, kind, decompress in _CODECS:
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (EOFError, OSError, zlib.error, lzma.LZMAError, ValueError) as exc:
                raise ValueError(
                    f"{path} is truncated or corrupt {kind} data ({exc}); download or "
                    "compress it again."
                ) from None
        if name.endswith(suffix):
            raise ValueError(
                f"{path} ends in {suffix} but is not {kind}-compressed; rename it without "
                f"'{suffix}' if it is plain text, or compress it with '{kind}'."
            )
    if raw.startswith(b"PK\x03\x04"):
        try:
            return _unzip(path, raw)
        except zipfile.BadZipFile as exc:
            raise ValueError(f"{path} is a corrupt zip archive ({exc}).") from None
    if raw.startswith(b"\xd0\xcf\x11\xe0") or name.endswith((".xls", ".xlsx", ".xlsm")):
        raise _excel(path)
    if name.endswith(".zip"):
        raise ValueError(f"{path} ends in .zip but is not a zip archive.")
    return raw


def _read_text(path: str) -> str:
    if path == "-":
        raw = sys.stdin.buffer.read()
        path = "standard input"
    else:
        file = Path(path)
        if file.is_dir():
            raise ValueError(
                f"{path} is a directory; give a CSV file inside it (e.g. {file / 'data.csv'})."
            )
        if not file.exists():
            raise FileNotFoundError(f"Input file {path!r} not found.")
        raw = file.read_bytes()
    raw = _decompress(path, raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        if raw.count(b"\x00") > len(raw) // 100:
            raise ValueError(f"{path} is a binary file, not CSV text (byte 0x{bad} at offset "
                             f"{exc.start}); export the data as CSV.") from None
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


def _split_header(text: str, path: str, notes: list[str]) -> tuple[str, str, int]:
    """``(header line, body, line number of the header)``; ``#`` lines before it skipped."""
    pos = 0
    skipped = 0
    line_no = 1
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end].strip()
        if line.startswith("#") or not line:
            skipped += line.startswith("#")
            pos, line_no = end + 1, line_no + 1
            continue
        if skipped:
            notes.append(f"{path}: skipped {plural(skipped, 'comment line')} starting with "
                         "'#' before the header")
        return text[pos:end].rstrip("\r"), text[end + 1 :], line_no
    raise ValueError(f"{path} is empty; expected a header row and data rows.")


def _column(header: list[str], name: str, option: str, path: str) -> int:
    if name not in header:
        raise ValueError(
            f"{path}: no column {name!r}; columns are {header[:20]}"
            f"{' ...' if len(header) > 20 else ''}. Pass {option} with one of them, or omit it."
        )
    where = [j for j, h in enumerate(header) if h == name]
    if len(where) > 1:
        cols = ", ".join(str(j + 1) for j in where)
        raise ValueError(
            f"{path}: the column name {name!r} appears {len(where)} times (columns {cols}); "
            f"rename the copies so that {option} names one column."
        )
    return where[0]


def read_csv(
    path: str,
    label_column: str | None = None,
    *,
    delimiter: str | None = None,
    id_columns: tuple[str, ...] | list[str] = (),
) -> CSVData:
    """Read a numeric CSV (plain, gzip, bzip2, xz or zip; ``-`` for stdin) with a header row.

    Parameters
    ----------
    path : str
        The file, or ``"-"`` for standard input.
    label_column : str, default=None
        Column kept out of the features and returned as strings.
    delimiter : str, default=None
        Cell separator; None detects ``;`` or tab when the header row has no comma.
    id_columns : sequence of str, default=()
        Columns kept out of the features and returned as strings (row identifiers).

    Returns
    -------
    data : CSVData
        ``notes`` say what was detected (delimiter, a missing header row, skipped
        comment lines, a label-like feature column).

    Raises
    ------
    ValueError
        One sentence naming the file, row and column, and what to do.
    """
    start = time.perf_counter()
    text = _read_text(path)
    shown = "standard input" if path == "-" else path
    notes: list[str] = []
    head, body, head_line = _split_header(text, shown, notes)
    delimiter = _delimiter(head, delimiter, shown, notes)
    header, body, first_data_line = _header_row(head, body, head_line, delimiter, shown, notes)
    if not body.strip():
        raise ValueError(f"{shown}: expected a header row and at least one data row.")
    header, n_cells, trailing = _trailing_column(header, body, delimiter, shown, notes)
    _note_duplicates(header, shown, notes)
    if label_column is not None and label_column in id_columns:
        raise ValueError(f"{label_column!r} is given both as --label-column and --id-column; "
                         "name it once.")
    li = None if label_column is None else _column(header, label_column, "--label-column", shown)
    id_idx = {name: _column(header, name, "--id-column", shown) for name in id_columns}
    text_columns = [*id_idx.values(), *([li] if li is not None else [])]
    skip = set(text_columns)
    if trailing:
        skip.add(len(header) - 1)
    keep = [j for j in range(len(header)) if j not in skip]
    if not keep:
        raise ValueError(f"{shown}: no feature column besides the label and ID columns.")
    X, strings = _parse_body(body, delimiter, header, keep, text_columns, n_cells,
                             first_data_line, shown, label_column)
    ids = {name: strings[j] for name, j in id_idx.items()}
    labels = None if li is None else strings[li]
    if labels is not None:
        _check_labels(labels, label_column or "", shown)
    for j in keep:
        if header[j].strip().lower() in LABEL_LIKE:
            notes.append(
                f"{shown}: column {header[j]!r} looks like labels but is used as a feature; "
                f"pass --label-column {header[j]} to keep it out of the fit (its classes then "
                "score the result)"
            )
    return CSVData(X, labels, [header[j] for j in keep], notes, ids,
                   time.perf_counter() - start)


def _delimiter(head: str, delimiter: str | None, path: str, notes: list[str]) -> str:
    """The delimiter given, else ';' or tab when the header row plainly uses one, else ','."""
    if delimiter is not None:
        return delimiter
    sniffed = _sniff_delimiter(head)
    if sniffed is None:
        return ","
    name = "tab" if sniffed == "\t" else repr(sniffed)
    notes.append(f"{path}: cells are separated by {name}, read as such "
                 f"(--delimiter sets it explicitly)")
    return sniffed


def _header_row(head: str, body: str, head_line: int, delimiter: str, path: str,
                notes: list[str]) -> tuple[list[str], str, int]:
    """``(column names, data rows, line number of the first data row)``.

    A first row of numbers only is data: the columns are then named ``x0, x1, ...``.
    """
    first = [h.strip() for h in next(csv.reader([head], delimiter=delimiter))]
    if not all(_is_number(c) for c in first if c):
        return first, body, head_line + 1
    notes.append(
        f"{path} has no header row (its first row is all numbers): the first row is "
        f"read as data and the columns are named x0..x{len(first) - 1}"
    )
    return [f"x{j}" for j in range(len(first))], head + "\n" + body, head_line


def _trailing_column(header: list[str], body: str, delimiter: str, path: str,
                     notes: list[str]) -> tuple[list[str], int, bool]:
    """``(header, cells per row, whether the last cell of every row is an empty extra)``.

    A delimiter ending every line makes an empty last column, ignored with a note;
    when only the data rows end with one, the header gets an empty name for it.
    """
    first_row = body.split("\n", 1)[0]
    n_cells = len(header)
    trailing = False
    if header and header[-1] == "" and len(header) > 1:
        trailing = True
    elif first_row.rstrip("\r").endswith(delimiter) and (
            first_row.count(delimiter) == n_cells and '"' not in first_row):
        trailing = True
        n_cells += 1
        header = [*header, ""]
    if trailing:
        notes.append(f"{path}: every line ends with {delimiter!r} (an empty last column), "
                     "which is ignored")
    return header, n_cells, trailing


def _note_duplicates(header: list[str], path: str, notes: list[str]) -> None:
    named = [h for h in header if h]
    if len(set(named)) < len(named):
        dup = sorted({h for h in named if named.count(h) > 1})
        names = "column name" if len(dup) == 1 else "column names"
        notes.append(f"{path}: {names} {dup} appear{'s' if len(dup) == 1 else ''} more than "
                     "once")


def _parse_body(body: str, delimiter: str, header: list[str], keep: list[int],
                text_columns: list[int], n_cells: int, first_data_line: int, path: str,
                label_column: str | None) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Features and text columns: in bulk when the rows are clean, else the named error.

    The C reader first, then the rows split in Python (quoted cells, space
    separators); when both fail, the cell-by-cell reader raises the one-sentence
    error naming the problem.
    """
    fast = _fast_read(body, delimiter, keep, text_columns, n_cells)
    if fast is not None:
        return fast
    lines = body.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    found = _fast_numbers(lines, delimiter, keep, n_cells)
    if found is None:
        _explain(lines, delimiter, header, keep, first_data_line, path, n_cells, label_column)
        raise AssertionError("unreachable: the cell-by-cell reader found no problem")
    return found, _string_columns(lines, delimiter, text_columns)


def _fast_read(body: str, delimiter: str, keep: list[int], text_columns: list[int],
               n_cells: int) -> tuple[np.ndarray, dict[int, np.ndarray]] | None:
    """Features and text columns in one pass of :func:`numpy.loadtxt`'s C reader, or None.

    One structured dtype (a float per feature, a fixed-width string per label, ID or
    ignored trailing column) makes the reader check that every row has exactly
    ``n_cells`` cells, so the rows need no splitting in Python. Quoted cells, space
    separators, blank-looking lines of spaces, non-finite numbers and strings wider than
    the guessed width all return None: the line-by-line reader then handles the file
    (and names the problem when there is one).
    """
    if '"' in body or delimiter == " ":
        return None
    # String widths from the first rows, with room to spare; a wider cell further down
    # would be cut silently by the reader, so it is detected below and sends the file to
    # the line-by-line reader.
    sample = [ln.split(delimiter) for ln in body[:65536].split("\n")[:-1] if ln.strip()]
    widths: dict[int, int] = {}
    for j in text_columns:
        longest = max((len(r[j]) for r in sample if len(r) > j), default=0)
        widths[j] = 2 * longest + 8
    # Runs of adjacent feature columns become one float sub-array field each, so that
    # ``X`` is gathered in a few block copies rather than one strided copy per column.
    fields: list[tuple[str, str] | tuple[str, str, tuple[int]]] = []
    runs: list[str] = []
    features = set(keep)
    j = 0
    while j < n_cells:
        if j in features:
            end = j
            while end + 1 < n_cells and end + 1 in features:
                end += 1
            runs.append(f"x{j}")
            fields.append((f"x{j}", "f8", (end - j + 1,)))
            j = end + 1
        else:
            fields.append((f"c{j}", f"U{widths.get(j, 1)}"))
            j += 1
    # A text stream over UTF-8 bytes feeds the C reader faster than a StringIO.
    stream = io.TextIOWrapper(io.BytesIO(body.encode("utf-8")), encoding="utf-8")
    try:
        table = np.loadtxt(stream, delimiter=delimiter, dtype=fields, comments=None,
                           quotechar=None, ndmin=1)
    except ValueError:
        return None
    blocks = [table[name].reshape(table.shape[0], -1) for name in runs]
    X = np.ascontiguousarray(blocks[0]) if len(blocks) == 1 else np.hstack(blocks)
    if X.shape[0] == 0 or not np.all(np.isfinite(X)):
        return None
    strings: dict[int, np.ndarray] = {}
    for j in text_columns:
        column = table[f"c{j}"]
        longest = int(np.char.str_len(column).max()) if column.size else 0
        if longest >= widths[j]:
            return None
        # Narrowed first: hashing and copying then touch a fraction of the bytes.
        column = column.astype(f"U{max(1, longest)}")
        distinct = np.unique(column)
        if not np.array_equal(np.char.strip(distinct), distinct):
            column = np.char.strip(column)
        strings[j] = column
    return X, strings


def _fast_numbers(lines: list[str], delimiter: str, keep: list[int],
                  n_cells: int) -> np.ndarray | None:
    """The feature columns parsed in bulk, or None when any row has a problem."""
    quoted = any('"' in ln for ln in lines)
    if quoted:
        counts = [len(r) for r in csv.reader(lines, delimiter=delimiter)]
    else:
        counts = [ln.count(delimiter) + 1 for ln in lines]
    blank = [not ln.strip() for ln in lines]
    if any(c != n_cells and not b for c, b in zip(counts, blank, strict=True)):
        return None
    rows = [ln for ln, b in zip(lines, blank, strict=True) if not b]
    try:
        X = np.loadtxt(rows, delimiter=delimiter, usecols=keep, dtype=np.float64,
                       comments=None, quotechar='"' if quoted else None, ndmin=2)
    except ValueError:
        return None
    if X.shape != (len(rows), len(keep)) or not np.all(np.isfinite(X)):
        return None
    return X


def _string_columns(lines: list[str], delimiter: str, columns: list[int]) -> dict[int, np.ndarray]:
    if not columns:
        return {}
    rows = [ln for ln in lines if ln.strip()]
    if any('"' in ln for ln in rows):
        cells = list(csv.reader(rows, delimiter=delimiter))
    else:
        cells = [ln.rstrip("\r").split(delimiter) for ln in rows]
    return {j: np.array([r[j].strip() for r in cells]) for j in columns}


def _check_labels(labels: np.ndarray, name: str, path: str) -> None:
    n = labels.size
    if n >= 20 and np.unique(labels).size == n:
        raise ValueError(
            f"{path}: --label-column {name!r} has a different value on each of the {n} rows, "
            f"so it looks like an identifier, not classes; pass it as --id-column {name} "
            "(copied to the output, kept out of the fit)."
        )


def _cell_hint(cell: str, column: list[str], delimiter: str, name: str) -> str:
    """What to do about a cell that is not a finite number."""
    if _THOUSANDS.match(cell.replace(" ", "")) and delimiter != ",":
        return (f"It has a thousands separator: write {cell.replace(',', '')} (remove the "
                "',' between digit groups).")
    if _THOUSANDS.match(cell):
        return (f"It has a thousands separator: write {cell.replace(',', '')} (export the "
                "numbers without digit grouping).")
    if "," in cell and delimiter == ";" and _is_number(cell.replace(",", ".")):
        return "Decimal commas: write numbers with a point (1.5, not 1,5)."
    if ";" in cell and delimiter != ";":
        return "The file looks ';'-separated: pass --delimiter ';'."
    texts = [c.strip() for c in column if not _is_number(c.strip())]
    if texts and len(set(column)) == len(column) and len(column) >= 2:
        return (f"Column {name!r} holds a different text on every row, like an identifier: "
                f"keep it out of the fit with --id-column {name} (it is copied to the output).")
    if texts and len(texts) == len(column):
        return (f"Column {name!r} holds text: if it is the true class, name it with "
                f"--label-column {name}; if it identifies rows, with --id-column {name}.")
    return ("Features must be finite numbers; drop or impute missing values first (or name "
            "a text column with --label-column or --id-column).")


def _explain(lines: list[str], delimiter: str, header: list[str], keep: list[int],
             first_line: int, path: str, n_cells: int, label_column: str | None) -> None:
    """Read cell by cell and raise the one-sentence error for the first problem."""
    rows = list(csv.reader(lines, delimiter=delimiter))
    numbered = [(i + first_line, r) for i, r in enumerate(rows) if r and any(c.strip() for c in r)]
    for line, r in numbered:
        if len(r) != n_cells:
            hint = ""
            if len(header) == 1 and (";" in r[0] or "\t" in r[0]):
                hint = " It looks separated by ';' or tabs: pass --delimiter ';' or tab."
            elif delimiter == "," and len(r) > n_cells and any(
                    re.fullmatch(r"\d{3}(\.\d*)?", c.strip()) for c in r[1:]):
                hint = (" A number with a thousands separator (1,065.0) splits into two "
                        "cells: export the numbers without digit grouping, or quote them.")
            elif len(r) == n_cells + 1 and r[-1].strip() == "":
                hint = (f" The row ends with {delimiter!r}: remove the delimiter at the end "
                        "of the line (or end the header with one too).")
            raise ValueError(
                f"{path}: row {line} has {len(r)} cells, the header {len(header)}.{hint}"
            )
    for j in keep:
        column = [r[j] for _, r in numbered]
        for line, r in numbered:
            cell = r[j].strip()
            try:
                value = float(cell)
            except ValueError:
                value = np.nan
            if not np.isfinite(value):
                hint = _cell_hint(cell, column, delimiter, header[j])
                raise ValueError(
                    f"{path}: row {line}, column {header[j]!r} holds {cell!r}, not a finite "
                    f"number. {hint}"
                )

"""Offline loaders: scikit-learn bundled sets, shared CSV(.gz) files, class subsets.

Nothing here downloads. CSV files are parsed with the standard library (no pandas)
and cached in memory, because the benchmark harness loads the same set many times.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import io
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np

from ._synthetic import make_four_gaussians, make_pkm_310

__all__ = ["DATA_ENV", "dataset_exists", "list_datasets", "load_dataset", "resolve_data_home"]

DATA_ENV = "MARGINCLUST_DATA"

_SKLEARN = {
    "sk-iris": "load_iris",
    "sk-wine": "load_wine",
    "sk-breast_cancer": "load_breast_cancer",
    "sk-digits": "load_digits",
}
_ALIASES = {"optdigits": "sk-digits"}
_SYNTHETIC = {
    "slmc-four-gaussians": (
        make_four_gaussians,
        "SLMC paper Table 2: four 2-D Gaussians, 100 points each (seed 0)",
    ),
    "pkm-310": (
        make_pkm_310,
        "PKM paper Sec. IV-A artificial set: 150+150+5+5 points in 2-D (seed 0; "
        "means/covariances chosen by us, see make_pkm_310)",
    ),
}
_OPTDIGITS_PAIR = re.compile(r"^optdigits-(\d)-(\d)$")


# ---------------------------------------------------------------- helpers
def _resolve_home(data_home: str | os.PathLike[str] | None) -> Path | None:
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV)
    return Path(env).expanduser() if env else None


def _csv_path(home: Path | None, name: str) -> Path | None:
    if home is None or not home.is_dir():
        return None
    for suffix in (".csv.gz", ".csv"):
        path = home / f"{name}{suffix}"
        if path.is_file():
            return path
    return None


def _csv_names(home: Path | None) -> list[str]:
    if home is None or not home.is_dir():
        return []
    names = set()
    for path in home.iterdir():
        for suffix in (".csv.gz", ".csv"):
            if path.name.endswith(suffix):
                names.add(path.name[: -len(suffix)])
    return sorted(names)


def _label_sort_key(values: list[str]) -> list[str]:
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def _encode_labels(raw: np.ndarray) -> tuple[np.ndarray, list[str]]:
    names = _label_sort_key([str(v) for v in np.unique(raw)])
    index = {v: i for i, v in enumerate(names)}
    y = np.fromiter((index[str(v)] for v in raw), dtype=np.intp, count=raw.shape[0])
    return y, names


@lru_cache(maxsize=64)
def _parse_csv(path_str: str, mtime: float) -> tuple[np.ndarray, np.ndarray, tuple, dict]:
    """Parse a CSV(.gz) file once; ``mtime`` is part of the cache key."""
    path = Path(path_str)
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        text = fh.read().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ValueError(f"{path} is empty; expected a header row with a 'label' column.")
    header = [h.strip() for h in rows[0]]
    if "label" not in header:
        raise ValueError(
            f"{path} has no 'label' column (header: {header[:10]}...); the shared layout "
            "puts the class label in a last column named 'label'."
        )
    body = [r for r in rows[1:] if r and any(c.strip() for c in r)]
    width = len(header)
    bad = [i + 2 for i, r in enumerate(body) if len(r) != width]
    if bad:
        raise ValueError(
            f"{path}: rows {bad[:5]} have a different number of cells than the header "
            f"({width})."
        )
    li = header.index("label")
    raw_y = np.array([r[li].strip() for r in body], dtype=str)
    keep = raw_y != ""
    n_dropped = int((~keep).sum())
    raw_y = raw_y[keep]
    feat_idx = [j for j in range(width) if j != li]
    feature_names = tuple(header[j] for j in feat_idx)
    y, class_names = _encode_labels(raw_y)
    meta = {"n_unlabeled_dropped": n_dropped, "imputed_cells": {}, "encoded_columns": {}}
    try:  # fast path (C parser): every feature cell is a number
        X = np.loadtxt(
            io.StringIO(text), delimiter=",", skiprows=1, usecols=feat_idx, dtype=np.float64,
            ndmin=2, quotechar='"',
        )
        if X.shape[0] != len(body):
            raise ValueError("row count differs")
        X = X[keep]
    except ValueError:
        X = _parse_features_slowly(body, keep, feat_idx, feature_names, meta)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y, (feature_names, tuple(class_names)), meta


def _parse_features_slowly(
    body: list[list[str]], keep: np.ndarray, feat_idx: list[int], feature_names: tuple,
    meta: dict,
) -> np.ndarray:
    """Column-wise parse with mean imputation of empty cells and ordinal encoding."""
    cells = np.array(body, dtype=str)[keep]
    F = np.char.strip(cells[:, feat_idx])
    X = np.empty(F.shape, dtype=np.float64)
    encoded: dict[str, list[str]] = {}
    imputed: dict[str, int] = {}
    for j, fname in enumerate(feature_names):
        col = F[:, j]
        missing = col == ""
        present = col[~missing]
        try:
            values = present.astype(np.float64)
        except ValueError:
            cats = sorted(set(present.tolist()))
            lookup = {c: float(i) for i, c in enumerate(cats)}
            values = np.array([lookup[c] for c in present], dtype=np.float64)
            encoded[fname] = cats
        out = np.empty(col.shape[0], dtype=np.float64)
        out[~missing] = values
        if missing.any():
            fill = float(values.mean()) if values.size else 0.0
            out[missing] = fill
            imputed[fname] = int(missing.sum())
        X[:, j] = out
    meta["imputed_cells"] = imputed
    meta["encoded_columns"] = encoded
    return X


def _load_csv(path: Path) -> tuple[np.ndarray, np.ndarray, list[str], dict[str, Any]]:
    X, y, (_, class_names), info = _parse_csv(str(path), path.stat().st_mtime)
    notes = ["raw values (not standardised)"]
    if info["n_unlabeled_dropped"]:
        notes.append(f"dropped {info['n_unlabeled_dropped']} rows with a missing label")
    if info["imputed_cells"]:
        total = sum(info["imputed_cells"].values())
        notes.append(
            f"imputed {total} missing feature cells with the column mean "
            f"(columns: {', '.join(info['imputed_cells'])})"
        )
    if info["encoded_columns"]:
        notes.append(
            "ordinal-encoded non-numeric columns (categories sorted, codes 0..): "
            + ", ".join(info["encoded_columns"])
        )
    meta = {
        "source": f"csv:{path}",
        "preprocessing": "; ".join(notes),
        "imputed_cells": dict(info["imputed_cells"]),
        "encoded_columns": {k: list(v) for k, v in info["encoded_columns"].items()},
        "n_unlabeled_dropped": info["n_unlabeled_dropped"],
    }
    return X.copy(), y.copy(), list(class_names), meta


@lru_cache(maxsize=8)
def _sklearn_arrays(name: str) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, _SKLEARN[name])()
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.intp)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y, tuple(str(t) for t in bunch.target_names)


def _load_sklearn(name: str) -> tuple[np.ndarray, np.ndarray, list[str], dict[str, Any]]:
    X, y, target_names = _sklearn_arrays(name)
    X, y = X.copy(), y.copy()
    note = "raw values (not standardised)"
    if name == "sk-digits":
        note += "; = UCI optdigits test set (1797 x 64, pixel counts 0..16)"
    meta = {
        "source": f"scikit-learn sklearn.datasets.{_SKLEARN[name]}()",
        "preprocessing": note,
        "original_labels": [str(v) for v in range(int(y.max()) + 1)],
    }
    return X, y, list(target_names), meta


def _load_base(
    name: str, home: Path | None
) -> tuple[np.ndarray, np.ndarray, list[str], dict[str, Any]]:
    """Load a set by exact (alias-resolved) name; class names are original label values."""
    if name in _SKLEARN:
        X, y, target_names, meta = _load_sklearn(name)
        meta["target_names"] = target_names
        return X, y, meta.pop("original_labels"), meta
    if name in _SYNTHETIC:
        maker, note = _SYNTHETIC[name]
        X, y = maker(random_state=0)
        names = [str(v) for v in range(int(y.max()) + 1)]
        return X, y, names, {"source": f"synthetic:{maker.__name__}", "preprocessing": note}
    path = _csv_path(home, name)
    if path is None:
        known = sorted(_SKLEARN) + sorted(_ALIASES) + sorted(_SYNTHETIC) + _csv_names(home)
        close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
        if home is None:
            where = (
                f"it is not a bundled or synthetic set and no data directory is configured "
                f"(pass data_home= or set the environment variable {DATA_ENV})"
            )
        else:
            where = (
                f"no {name}.csv.gz or {name}.csv in {home} (the directory comes from "
                f"data_home= or the environment variable {DATA_ENV})"
            )
            if not home.is_dir():
                where += "; that directory does not exist"
        raise FileNotFoundError(
            f"Unknown data set {name!r}: {where}. Close names: {close or 'none'}. "
            "Call list_datasets() to see what is available."
        )
    return _load_csv(path)


def _parse_name(name: str) -> tuple[str, list[str] | None]:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty string; got {name!r}.")
    name = name.strip()
    match = _OPTDIGITS_PAIR.match(name)
    if match:
        return "sk-digits", [match.group(1), match.group(2)]
    base, sep, rest = name.partition(":")
    base = _ALIASES.get(base.strip(), base.strip())
    if not sep:
        return base, None
    classes = [c.strip() for c in rest.split(",") if c.strip()]
    if len(classes) < 1:
        raise ValueError(
            f"{name!r}: list the classes to keep after ':' separated by commas, e.g. "
            f"'{base}:1,2'."
        )
    if len(set(classes)) != len(classes):
        raise ValueError(f"{name!r} repeats a class.")
    return base, classes


# ----------------------------------------------------------------- public
def resolve_data_home(data_home: str | os.PathLike[str] | None = None) -> Path | None:
    """The CSV directory the loaders read: ``data_home``, else ``$MARGINCLUST_DATA``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        An explicit directory; ``None`` uses the environment variable
        ``MARGINCLUST_DATA``.

    Returns
    -------
    home : Path or None
        The directory (user-expanded, not checked for existence), or None when
        neither is given.

    Examples
    --------
    >>> from marginclust.datasets import resolve_data_home
    >>> resolve_data_home("/tmp/data").as_posix()
    '/tmp/data'
    """
    return _resolve_home(data_home)


def dataset_exists(name: str, *, data_home: str | os.PathLike[str] | None = None) -> bool:
    """Whether :func:`load_dataset` can find the set ``name`` offline, without loading it.

    Bundled (scikit-learn) and synthetic sets always exist; a CSV set exists when
    ``<name>.csv.gz`` or ``<name>.csv`` is in the data directory. A class subset
    (``"name:c1,c2"``) exists when its base set does (the classes are checked on
    loading).

    Parameters
    ----------
    name : str
        A name as :func:`load_dataset` takes it.
    data_home : str or path-like, default=None
        CSV directory; ``None`` uses the environment variable ``MARGINCLUST_DATA``.

    Returns
    -------
    exists : bool
        True when the set can be loaded from what is on this machine.

    Raises
    ------
    ValueError
        If ``name`` is not a well-formed data set name.

    Examples
    --------
    >>> from marginclust.datasets import dataset_exists
    >>> dataset_exists("sk-iris")
    True
    """
    base = _parse_name(name)[0]
    if base in _SKLEARN or base in _SYNTHETIC:
        return True
    return _csv_path(_resolve_home(data_home), base) is not None


@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = ...,
    return_meta: Literal[False] = ...,
) -> tuple[np.ndarray, np.ndarray]: ...


@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = ...,
    return_meta: Literal[True],
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]: ...


@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = ...,
    return_meta: bool,
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, dict[str, Any]]: ...


def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    return_meta: bool = False,
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Load a data set by name, offline.

    Parameters
    ----------
    name : str
        One of:

        - a scikit-learn bundled set: ``"sk-iris"``, ``"sk-wine"``,
          ``"sk-breast_cancer"``, ``"sk-digits"`` (alias ``"optdigits"``: scikit-learn's
          digits are the UCI optdigits *test* set, 1797 x 64);
        - a synthetic seeded set: ``"slmc-four-gaussians"`` (SLMC Table 2) or
          ``"pkm-310"`` (PKM artificial set), both generated with ``random_state=0``
          (call :func:`make_four_gaussians` / :func:`make_pkm_310` for other seeds);
        - the stem of a CSV file ``<name>.csv.gz`` or ``<name>.csv`` in the data
          directory (e.g. ``"iris"``, ``"satimage"``);
        - a class subset of any of these, ``"<name>:c1,c2,..."``, where the classes
          are the ORIGINAL label values written as strings (``"satimage:1,2"``,
          ``"letter:A,B"``, ``"usps:1,2,3,4"``, ``"optdigits:3,8"``); the alias
          ``"optdigits-3-8"`` means ``"optdigits:3,8"``.
    data_home : str or path-like, default=None
        Directory holding the CSV files (layout of the shared ``datasets`` folder:
        header row, feature columns, a ``label`` column). ``None`` uses the
        environment variable ``MARGINCLUST_DATA``.
    return_meta : bool, default=False
        Also return a dict with ``name``, ``source``, ``n_classes``,
        ``class_names`` (original label values, in the order of the codes of
        ``y``), ``preprocessing`` (a note) and, for CSV files, ``imputed_cells``,
        ``encoded_columns`` and ``n_unlabeled_dropped``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        Raw features (not standardised).
    y : ndarray of shape (n_samples,), int
        Class codes ``0 .. n_classes - 1``: the original labels sorted (numerically
        when they are all numbers, else lexicographically). For a subset the codes
        follow the sorted kept classes.
    meta : dict
        Only with ``return_meta=True``.

    Raises
    ------
    FileNotFoundError
        If no set of that name exists; the message names the directory searched,
        the environment variable and close names.
    ValueError
        On a malformed name, a class that does not exist in the set, or a bad file.

    Notes
    -----
    CSV parsing uses only the standard library and NumPy. Rows whose label cell is
    empty are dropped. Empty feature cells are imputed with the mean of the column
    (over the rows kept) and counted in ``meta["imputed_cells"]``. Non-numeric
    feature columns are ordinal-encoded (categories sorted as strings, codes
    ``0, 1, ...``) and listed in ``meta["encoded_columns"]``. Parsed files are
    cached in memory (keyed by path and modification time); each call returns
    fresh copies.
    """
    home = _resolve_home(data_home)
    base, classes = _parse_name(name)
    X, y, class_names, meta = _load_base(base, home)
    if classes is not None:
        missing = [c for c in classes if c not in class_names]
        if missing:
            raise ValueError(
                f"{name!r}: classes {missing} are not in {base!r}; its classes (original "
                f"label values) are {class_names}."
            )
        codes = [class_names.index(c) for c in classes]
        order = sorted(codes)
        mask = np.isin(y, order)
        remap = np.full(len(class_names), -1, dtype=np.intp)
        remap[order] = np.arange(len(order))
        X, y = X[mask], remap[y[mask]]
        class_names = [class_names[c] for c in order]
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    if not return_meta:
        return X, y
    meta = {
        "name": name,
        "n_classes": len(class_names),
        "class_names": class_names,
        **meta,
    }
    return X, y, meta


def list_datasets(data_home: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """Describe every loadable set (bundled, synthetic and CSV files found).

    Parameters
    ----------
    data_home : str or path-like, default=None
        CSV directory; ``None`` uses the environment variable ``MARGINCLUST_DATA``.
        Without a directory only the bundled and synthetic sets are listed.

    Returns
    -------
    sets : list of dict
        One dict per set with ``name``, ``n_samples``, ``n_features``,
        ``n_classes`` and ``where`` (``"sklearn"``, ``"synthetic"`` or the file path).
        Class subsets (``name:c1,c2``) and aliases are not listed.
    """
    home = _resolve_home(data_home)
    out = []
    for name in list(_SKLEARN) + list(_SYNTHETIC):
        X, y = load_dataset(name, data_home=data_home)
        where = "sklearn" if name in _SKLEARN else "synthetic"
        out.append(_describe(name, X, y, where))
    for name in _csv_names(home):
        path = _csv_path(home, name)
        X, y = load_dataset(name, data_home=data_home)
        out.append(_describe(name, X, y, str(path)))
    return out


def _describe(name: str, X: np.ndarray, y: np.ndarray, where: str) -> dict[str, Any]:
    return {
        "name": name,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": int(np.unique(y).size),
        "where": where,
    }

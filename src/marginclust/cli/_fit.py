"""``marginclust fit``: cluster a CSV file, write labels and memberships as CSV."""

from __future__ import annotations

import argparse
import ast
import csv
import gzip
import io
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["METHOD_ALIASES", "add_parser", "available_methods", "parse_params", "run"]

# Short command-line names of the public estimators (class names work too).
METHOD_ALIASES = {
    "fcm": "FuzzyCMeans",
    "kernel-fcm": "KernelFuzzyCMeans",
    "kernel-kmeans": "KernelKMeans",
    "slmc": "SLMC",
    "iterative-lssvm": "IterativeLSSVM",
    "pkm": "PKM",
    "emmc": "EMMC",
    "itersvr": "IterSVR",
    "itersvm": "IterSVM",
    "bmmc": "BMMC",
    "cpmmc": "CPMMC",
    "wocsvm": "WOCSVMClustering",
    "ocsvm-hard": "OCSVMHardClustering",
}
# Public names that are not clusterers.
_NOT_CLUSTERERS = {"ELMFeatures", "__version__"}


def clusterer_names() -> list[str]:
    """Public estimator class names of ``marginclust.__all__`` that are clusterers."""
    import marginclust

    return [n for n in marginclust.__all__ if n not in _NOT_CLUSTERERS]


def available_methods() -> tuple[dict[str, type], dict[str, str]]:
    """``(name -> estimator class, class name -> import error)`` for every clusterer.

    Names are the short aliases of :data:`METHOD_ALIASES` and the class names.
    """
    import marginclust

    found: dict[str, type] = {}
    failed: dict[str, str] = {}
    for cls_name in clusterer_names():
        try:
            cls = getattr(marginclust, cls_name)
        except Exception as exc:  # noqa: BLE001 - a module still being written
            failed[cls_name] = f"{type(exc).__name__}: {exc}"
            continue
        found[cls_name] = cls
    methods = {alias: found[c] for alias, c in METHOD_ALIASES.items() if c in found}
    methods.update(found)
    return methods, failed


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """Parse ``key=value`` strings; values go through :func:`ast.literal_eval`.

    A value that is not a Python literal is kept as a string (``kernel=rbf``).
    """
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"--param expects key=value (e.g. m=2.0); got {item!r}.")
        try:
            params[key] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key] = value.strip()
    return params


def read_csv(
    path: str, label_column: str | None
) -> tuple[np.ndarray, np.ndarray | None, list[str]]:
    """Read a numeric CSV (optionally gzip'd) with a header row.

    Returns the feature matrix, the label column (as strings) if named, and the
    feature names. Empty cells or text in a feature column raise ValueError.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"Input file {path!r} not found.")
    opener = gzip.open if file.name.endswith(".gz") else open
    with opener(file, "rb") as fh:
        text = fh.read().decode("utf-8-sig")
    rows = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    if len(rows) < 2:
        raise ValueError(f"{path}: expected a header row and at least one data row.")
    header = [h.strip() for h in rows[0]]
    labels = None
    if label_column is not None:
        if label_column not in header:
            raise ValueError(
                f"{path}: no column {label_column!r}; columns are {header}. "
                "Pass --label-column with one of them, or omit it."
            )
        li = header.index(label_column)
        labels = np.array([r[li].strip() for r in rows[1:]])
    keep = [j for j, h in enumerate(header) if h != label_column]
    X = np.empty((len(rows) - 1, len(keep)), dtype=np.float64)
    for i, r in enumerate(rows[1:]):
        if len(r) != len(header):
            raise ValueError(f"{path}: row {i + 2} has {len(r)} cells, the header {len(header)}.")
        for jj, j in enumerate(keep):
            try:
                X[i, jj] = float(r[j])
            except ValueError:
                raise ValueError(
                    f"{path}: row {i + 2}, column {header[j]!r} holds {r[j]!r}, not a number. "
                    "Features must be numeric; name a text label column with --label-column."
                ) from None
    return X, labels, [header[j] for j in keep]


def add_parser(sub: Any) -> None:
    """Register the ``fit`` subcommand."""
    p = sub.add_parser(
        "fit",
        help="cluster a CSV file",
        description="Fit a clusterer to a CSV file (header row, numeric features) and write "
        "one row per sample: the cluster label and, for soft methods, the memberships.",
    )
    p.add_argument("input", nargs="?", help="CSV file (may be .csv.gz)")
    p.add_argument("--method", default="fcm", help="method name (see --list-methods)")
    p.add_argument("--n-clusters", type=int, default=None, help="number of clusters")
    p.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="estimator parameter, value parsed as a Python literal (repeatable)",
    )
    p.add_argument("--label-column", default=None, help="column holding true labels (not used "
                   "for fitting; clustering accuracy is reported)")
    p.add_argument("--standardize", action="store_true", help="zero mean, unit variance first")
    p.add_argument("--seed", type=int, default=0, help="random_state (default 0)")
    p.add_argument("--out", default=None, help="output CSV (default: standard output)")
    p.add_argument("--list-methods", action="store_true", help="list the methods and exit")
    from ._search import add_search_arguments

    add_search_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the ``fit`` subcommand."""
    methods, failed = available_methods()
    if args.list_methods:
        for alias, cls_name in METHOD_ALIASES.items():
            state = "available" if alias in methods else "not available"
            print(f"{alias:<16} {cls_name:<20} {state}")
        for name, err in failed.items():
            print(f"  {name}: {err}", file=sys.stderr)
        return 0
    if args.input is None:
        raise ValueError("name the input CSV file (or pass --list-methods).")
    key = args.method if args.method in methods else args.method.lower()
    cls_name = METHOD_ALIASES.get(key, args.method)
    if key not in methods and cls_name in failed:
        raise ValueError(f"Method {args.method!r} ({cls_name}) is not available: "
                         f"{failed[cls_name]}.")
    if key not in methods:
        names = ", ".join(sorted(methods))
        raise ValueError(f"Unknown or unavailable method {args.method!r}; available: {names}.")
    X, labels, _ = read_csv(args.input, args.label_column)
    if args.standardize:
        from marginclust.bench._preprocessing import preprocess

        X = preprocess(X, "standardize")
    params = parse_params(args.param)
    cls = methods[key]
    init_params = cls().get_params(deep=False)
    if args.n_clusters is not None:
        params["n_clusters"] = args.n_clusters
    if "random_state" in init_params:
        params.setdefault("random_state", args.seed)
    unknown = sorted(set(params) - set(init_params))
    if unknown:
        raise ValueError(
            f"{cls.__name__} has no parameter(s) {unknown}; its parameters are "
            f"{sorted(init_params)}."
        )
    estimator = cls(**params)
    from ._search import fit_estimator

    start = time.perf_counter()
    estimator = fit_estimator(estimator, X, args)  # with --search: the search's pick
    elapsed = time.perf_counter() - start
    labels_ = np.asarray(estimator.labels_)
    U = getattr(estimator, "memberships_", None)
    header = ["cluster"]
    if U is not None:
        header += [f"membership_{k}" for k in range(U.shape[1])]
    if labels is not None:
        header.append(args.label_column)
    fh = open(args.out, "w", newline="", encoding="utf-8") if args.out else sys.stdout
    try:
        writer = csv.writer(fh)
        writer.writerow(header)
        for i in range(X.shape[0]):
            row: list[Any] = [int(labels_[i])]
            if U is not None:
                row += [f"{u:.6g}" for u in U[i]]
            if labels is not None:
                row.append(labels[i])
            writer.writerow(row)
    finally:
        if args.out:
            fh.close()
    summary = (
        f"{cls.__name__}: {X.shape[0]} samples, {np.unique(labels_).size} clusters, "
        f"fit {elapsed:.3f} s, n_iter {getattr(estimator, 'n_iter_', '-')}"
    )
    if labels is not None:
        from marginclust.metrics import clustering_accuracy

        summary += (
            f", CA majority {clustering_accuracy(labels, labels_, mapping='majority'):.4f}"
            f", CA hungarian {clustering_accuracy(labels, labels_, mapping='hungarian'):.4f}"
        )
    print(summary, file=sys.stderr if not args.out else sys.stdout)
    return 0

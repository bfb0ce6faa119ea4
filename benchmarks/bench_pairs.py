"""Accuracy against the number of must-link / cannot-link pairs, beside COP-KMeans and PCKMeans.

The standard figure of semi-supervised clustering (Wagstaff et al. 2001; Basu,
Banerjee & Mooney 2004): for each data set, pairs of rows are drawn at random and
labelled must-link or cannot-link from the reference partition, and each method
is scored (NCA, ARI against the reference) at 0, 20, 50, 100, 200 and 500 pairs,
5 draws each. Two variants:

- ``all``: pairs of distinct rows drawn uniformly, so must-links and cannot-links
  come in the proportion they occur;
- ``cannot``: cannot-links only (pairs drawn until that many join two classes).

Data: the shared sets (``$MARGINCLUST_DATA``; K = number of classes, standardised
features, missing cells imputed by the loader) and Gagolewski's battery
(``benchmarks/_battery.py``: the framework's "original" preprocessing, K and the
pairs from the first reference, noise points never in a pair and not scored).

Methods (every one at its defaults, ``random_state`` = the draw):

- ``bmmc``, ``cpmmc``: :class:`marginclust.BMMC`, :class:`marginclust.CPMMC` (pair margin);
- ``bmmc-paper``: BMMC with the paper's pair loss (``pair_loss="paper"``);
- ``mmc``: :class:`marginclust.MaxMarginClustering` (the global search over candidate
  partitions, judged by the pairs they break and then the voting margin; its candidates
  do not depend on the pairs, so their fits are cached in ``--candidate-cache`` and
  shared by every budget and draw of a data set);
- ``cop-kmeans``, ``pckmeans``: the peers, :mod:`constrained_kmeans` beside this file.

Budget 0 is each method's unconstrained fit. Every fit is one JSON line in the
cache (``--cache``, default ``benchmarks/results/pairs.jsonl``), keyed by data set,
method, variant, budget and draw, so a run resumes where it stopped and
``--report`` only reads it: it writes ``benchmarks/results/pairs.md`` (mean NCA and
ARI over the data sets, per method and budget, both variants; and for K >= 3) and
``benchmarks/results/pairs_curves.csv`` (the figure's numbers; beside ``--report-path``).

Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python \\
        benchmarks/bench_pairs.py [--datasets iris,wine,fcps/hepta] [--max-rows 3000] \\
        [--methods bmmc,pckmeans] [--draws 5] [--report]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _battery import battery_root, list_sets, load_set, preprocess  # noqa: E402
from constrained_kmeans import COPKMeans, PCKMeans  # noqa: E402

from marginclust import BMMC, CPMMC, MaxMarginClustering  # noqa: E402
from marginclust.metrics import (  # noqa: E402
    adjusted_rand_index,
    normalized_clustering_accuracy,
)

BUDGETS = (0, 20, 50, 100, 200, 500)
VARIANTS = ("all", "cannot")
METHODS = ("bmmc", "cpmmc", "bmmc-paper", "mmc", "cop-kmeans", "pckmeans")
CACHE = HERE / "results" / "pairs.jsonl"
REPORT = HERE / "results" / "pairs.md"
READING = "## Coverage and reading"


def shared_sets(max_rows: int | None) -> list[str]:
    """The shared CSV sets with at least two classes and at most ``max_rows`` rows."""
    folder = Path(os.environ.get("MARGINCLUST_DATA", HERE.parents[1] / "shared" / "datasets"))
    meta = json.loads((folder / "manifest.json").read_text())
    entries = meta if isinstance(meta, list) else meta.get("datasets", list(meta.values()))
    names = []
    for e in entries:
        name = str(e.get("file", e.get("name", ""))).replace(".csv.gz", "")
        if not name:
            continue
        n = int(e.get("n", e.get("n_samples", 0)) or 0)
        k = int(e.get("classes", e.get("n_classes", 2)) or 2)
        if k >= 2 and (max_rows is None or n <= max_rows):
            names.append(name)
    return sorted(names)


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Standardised features and integer labels (0 = noise for the battery)."""
    if "/" in name:
        ds = load_set(name)
        ref = np.asarray(ds.references[0], dtype=np.int64)
        return preprocess(ds.X), ref
    from sklearn.preprocessing import StandardScaler

    from marginclust.datasets import load_dataset

    X, y = load_dataset(name)
    return StandardScaler().fit_transform(X), np.asarray(y, dtype=np.int64) + 1


def draw_pairs(
    y: np.ndarray, n_pairs: int, variant: str, rng: np.random.RandomState
) -> tuple[np.ndarray, np.ndarray]:
    """Must-link and cannot-link index pairs among the non-noise rows (label > 0)."""
    rows = np.flatnonzero(y > 0)
    ml: list[tuple[int, int]] = []
    cl: list[tuple[int, int]] = []
    while len(ml) + len(cl) < n_pairs:
        u, v = rng.choice(rows, size=2, replace=False)
        if y[u] != y[v]:
            cl.append((int(u), int(v)))
        elif variant == "all":
            ml.append((int(u), int(v)))
    return np.array(ml, dtype=np.intp).reshape(-1, 2), np.array(cl, dtype=np.intp).reshape(-1, 2)


def fit_labels(
    method: str, X: np.ndarray, k: int, ml: Any, cl: Any, seed: int, memory: Any = None
) -> np.ndarray:
    """Labels of one method's fit under the pairs (``memory``: cache of MMC's candidates)."""
    if method in ("cop-kmeans", "pckmeans"):
        peer = COPKMeans if method == "cop-kmeans" else PCKMeans
        return peer(k, random_state=seed).fit(X, must_link=ml, cannot_link=cl).labels_
    est: Any
    # C=10: what C="auto" fits with pairs, so the budget without pairs is the same model
    if method == "bmmc":
        est = BMMC(k, C=10.0, random_state=seed)
    elif method == "cpmmc":
        est = CPMMC(k, C=10.0, random_state=seed)
    elif method == "bmmc-paper":
        est = BMMC(k, C=10.0, pair_loss="paper", random_state=seed)
    elif method == "mmc":
        est = MaxMarginClustering(k, memory=memory, random_state=seed)
    else:
        raise ValueError(f"unknown method {method!r}; choose from {METHODS}")
    ml_, cl_ = (ml if len(ml) else None), (cl if len(cl) else None)
    return est.fit(X, must_link=ml_, cannot_link=cl_).labels_


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["dataset"], row["method"], row["variant"], row["budget"], row["draw"]


def read_cache(path: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Rows already computed (the last of duplicates wins)."""
    done: dict[tuple[Any, ...], dict[str, Any]] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[_key(row)] = row
    return done


def cells(
    datasets: list[str], methods: list[str], budgets: list[int], draws: int
) -> Iterator[tuple[str, str, str, int, int]]:
    """Every (data set, method, variant, budget, draw) of the grid (budget 0 once)."""
    for ds in datasets:
        for method in methods:
            for budget in budgets:
                for variant in VARIANTS if budget else ("all",):
                    if method == "bmmc-paper" and budget and variant != "cannot":
                        continue  # the paper's term is measured where it fails: cannot-links
                    for draw in range(draws):
                        yield ds, method, variant, budget, draw


def run(args: argparse.Namespace) -> None:
    """Fit every missing cell, appending each result to the cache."""
    done = read_cache(args.cache)
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    with args.cache.open("a") as out:
        for ds, method, variant, budget, draw in cells(
            args.datasets, args.methods, args.budgets, args.draws
        ):
            if (ds, method, variant, budget, draw) in done:
                continue
            if ds not in data:
                data.clear()
                data[ds] = load(ds)
            X, y = data[ds]
            k = int(y.max())
            rng = np.random.RandomState(draw * 7919 + budget)  # the same pairs for every method
            ml, cl = draw_pairs(y, budget, variant, rng)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                labels = fit_labels(method, X, k, ml, cl, draw, str(args.candidate_cache))
            seconds = time.perf_counter() - t0
            keep = y > 0
            row = {
                "dataset": ds,
                "method": method,
                "variant": variant,
                "budget": budget,
                "draw": draw,
                "k": k,
                "n": int(keep.sum()),
                "nca": float(normalized_clustering_accuracy(y[keep], labels[keep])),
                "ari": float(adjusted_rand_index(y[keep], labels[keep])),
                "seconds": round(seconds, 3),
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{ds:28s} {method:11s} {variant:6s} {budget:4d} {draw} "
                  f"nca={row['nca']:.3f} {seconds:.1f}s", flush=True)


def report(args: argparse.Namespace) -> None:
    """Write the tables (markdown) and the figure's numbers (CSV) from the cache."""
    rows = list(read_cache(args.cache).values())
    methods = [m for m in args.methods if any(r["method"] == m for r in rows)]
    budgets = sorted({r["budget"] for r in rows})
    datasets = sorted({r["dataset"] for r in rows})

    def complete(ds: str, method: str, variant: str) -> bool:
        have = {(r["variant"], r["budget"]) for r in rows if r["dataset"] == ds
                and r["method"] == method}
        need = {("all", 0)} | {(variant, b) for b in budgets if b}
        return need <= have

    lines = [
        "# Accuracy against the number of pairs",
        "",
        "Written by `benchmarks/bench_pairs.py --report` from its cache; each cell is the mean",
        "over data sets of the mean over draws (5 unless stated) of NCA (ARI), each method at",
        "its defaults on standardised features, pairs drawn at random from the reference",
        "labels (the same pairs for every method). Budget 0 is the unconstrained fit. Only",
        "data sets every listed method has complete at every budget enter a table.",
        "",
    ]
    csv = ["variant,subset,method,budget,nca,ari,n_datasets"]
    for variant in VARIANTS:
        for subset, keep in (
            ("all K", lambda ds, k: True),
            ("K >= 3", lambda ds, k: k >= 3),
            ("shared sets K >= 3", lambda ds, k: "/" not in ds and k >= 3),
        ):
            ms = [m for m in methods if not (m == "bmmc-paper" and variant == "all")]
            sets = [
                ds for ds in datasets
                if all(complete(ds, m, variant) for m in ms)
                and keep(ds, next(r["k"] for r in rows if r["dataset"] == ds))
            ]
            if not sets:
                continue
            title = "all pairs (must and cannot as they occur)" if variant == "all" else (
                "cannot-links only")
            lines += [f"## {title}, {subset}: {len(sets)} data sets", "",
                      "| method | " + " | ".join(str(b) for b in budgets) + " |",
                      "|---|" + "---|" * len(budgets)]
            for m in ms:
                cellv = []
                for b in budgets:
                    v = "all" if b == 0 else variant
                    per_ds = []
                    for ds in sets:
                        rs = [r for r in rows if r["dataset"] == ds and r["method"] == m
                              and r["variant"] == v and r["budget"] == b]
                        per_ds.append((np.mean([r["nca"] for r in rs]),
                                       np.mean([r["ari"] for r in rs])))
                    nca, ari = np.mean([p[0] for p in per_ds]), np.mean([p[1] for p in per_ds])
                    cellv.append(f"{nca:.3f} ({ari:.3f})")
                    csv.append(f"{variant},{subset},{m},{b},{nca:.4f},{ari:.4f},{len(sets)}")
                lines.append(f"| {m} | " + " | ".join(cellv) + " |")
            lines += ["", "Data sets: " + ", ".join(sets), ""]
    # the hand-written reading of the tables is kept from the previous report
    old = args.report_path.read_text() if args.report_path.is_file() else ""
    if READING in old:
        lines += [old[old.index(READING) :].rstrip(), ""]
    args.report_path.write_text("\n".join(lines) + "\n")
    curves = args.report_path.with_name(args.report_path.stem + "_curves.csv")
    curves.write_text("\n".join(csv) + "\n")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    """Command line: run the grid (cached), then optionally write the report."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=None,
                   help="comma-separated names (shared stems or battery/name); default: all")
    p.add_argument("--max-rows", type=int, default=3000,
                   help="skip data sets with more rows (default 3000)")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    p.add_argument("--draws", type=int, default=5)
    p.add_argument("--cache", type=Path, default=CACHE)
    p.add_argument("--candidate-cache", type=Path,
                   default=Path(tempfile.gettempdir()) / "marginclust-bench-pairs",
                   help="joblib cache of MaxMarginClustering's candidate fits")
    p.add_argument("--report", action="store_true", help="only write the report from the cache")
    p.add_argument("--report-path", type=Path, default=REPORT)
    args = p.parse_args(argv)
    if args.datasets:
        args.datasets = args.datasets.split(",")
    else:
        args.datasets = shared_sets(args.max_rows) + list_sets(
            max_samples=args.max_rows, root=battery_root()
        )
    args.methods = args.methods.split(",")
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if not args.report:
        run(args)
    report(args)


if __name__ == "__main__":
    main()

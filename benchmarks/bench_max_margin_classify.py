"""MaxMarginClustering at 1e6 rows: the margin classifier's labelling three ways, beside Genie.

The margin classifier labels every row beyond the fitted sample; this times whole
fits labelling with

- ``LIBSVM predict``: LIBSVM's ``SVC.predict`` on the row blocks;
- ``float64 vote``: the one-against-one vote by matrix products in float64 only;
- ``float32 vote``: the library's labelling (float32 decisions with an error
  bound, the rows within it rechecked in float64),

interleaved in one process, same data and seeds, with genieclust's ``Genie``
(benchmark-only peer, AGPL, skipped when absent; on the 10-dimensional blobs only
with ``--genie-all``, where it takes minutes) in the same rounds. CPU seconds
(``time.process_time``), median of ``--repeats``; the load average is printed
before and after. Then, for each labelling, the peak resident memory of a fresh
process doing one fit (the interpreter, libraries and data included), and the
number of rows the library's labelling rechecked in float64. Run with one BLAS
thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_classify.py
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.datasets import make_blobs, make_moons
from sklearn.svm import SVC

import marginclust.estimators._max_margin as max_margin
from marginclust import MaxMarginClustering
from marginclust.starts import _vote
from marginclust.utils._blocks import BLOCK_ROWS


def libsvm_classify(classifier: SVC, Z: np.ndarray) -> np.ndarray:
    """LIBSVM's prediction, a block of rows at a time."""
    parts = [classifier.predict(Z[lo:lo + BLOCK_ROWS]) for lo in range(0, Z.shape[0], BLOCK_ROWS)]
    return np.concatenate(parts).astype(np.intp)


def float64_classify(classifier: SVC, Z: np.ndarray) -> np.ndarray:
    """The one-against-one vote by matrix products, every decision in float64."""
    vote = _vote._Vote.of(classifier)
    out = np.empty(Z.shape[0], dtype=np.intp)
    for lo in range(0, Z.shape[0], BLOCK_ROWS):
        first = _vote._decisions64(vote, np.asarray(Z[lo:lo + BLOCK_ROWS])) > 0.0
        out[lo:lo + BLOCK_ROWS] = _vote._winners(first, vote.pairs, vote.n_classes)
    return np.asarray(classifier.classes_, dtype=np.intp)[out]


LABELLINGS: dict[str, Callable[[SVC, np.ndarray], np.ndarray]] = {
    "libsvm": libsvm_classify, "float64": float64_classify, "float32": _vote.classify,
}


DATA: dict[str, Callable[[int], tuple[np.ndarray, np.ndarray]]] = {
    "moons {n:.0e} x 2": lambda n: make_moons(n, noise=0.05, random_state=0),
    "blobs {n:.0e} x 10, K=5": lambda n: make_blobs(n, 10, centers=5, random_state=0),
}


def fit(X: np.ndarray, k: int, labelling: str) -> np.ndarray:
    max_margin.classify = LABELLINGS[labelling]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(MaxMarginClustering(k, random_state=0).fit(X).labels_)
    finally:
        max_margin.classify = _vote.classify


def peak_rss_of_fit(args: tuple[int, str, str]) -> float:
    """MiB: the peak resident set of this (fresh) process after one fit."""
    n, data, labelling = args
    X, y = DATA[data](n)
    if labelling == "genie":
        import genieclust
        genieclust.Genie(n_clusters=len(np.unique(y))).fit_predict(X)
    else:
        fit(X, len(np.unique(y)), labelling)
    # VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the forking
    # parent through exec, VmHWM belongs to this process's own memory map
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def rechecked_rows(X: np.ndarray, k: int) -> int:
    """Rows the library's labelling recomputed in float64 during one fit."""
    counts = []
    decisions64 = _vote._decisions64

    def counting(vote: Any, B: np.ndarray) -> np.ndarray:
        counts.append(B.shape[0])
        return decisions64(vote, B)

    _vote._decisions64 = counting  # type: ignore[assignment]
    try:
        fit(X, k, "float32")
    finally:
        _vote._decisions64 = decisions64  # type: ignore[assignment]
    return sum(counts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--genie-all", action="store_true", help="Genie on the blobs too")
    args = ap.parse_args()
    try:
        import genieclust
    except ImportError:
        genieclust = None
    print("load", os.getloadavg(), "OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS"),
          flush=True)
    rows = []
    for d, (data, make) in enumerate(DATA.items()):
        name = data.format(n=args.n)
        X, y = make(args.n)
        k = len(np.unique(y))
        runs = list(LABELLINGS)
        if genieclust is not None and (d == 0 or args.genie_all):
            runs.append("genie")
        times: dict[str, list[float]] = {which: [] for which in runs}
        labels = {}
        for _ in range(args.repeats):
            for which in runs:
                start = time.process_time()
                if which == "genie":
                    genieclust.Genie(n_clusters=k).fit_predict(X)
                else:
                    labels[which] = fit(X, k, which)
                times[which].append(time.process_time() - start)
        med = {w: float(np.median(v)) for w, v in times.items()}
        ctx = multiprocessing.get_context("spawn")
        rss = {}
        for which in runs:
            with ctx.Pool(1) as pool:
                rss[which] = pool.map(peak_rss_of_fit, [(args.n, data, which)])[0]
        rows.append((name, med, rss, rechecked_rows(X, k),
                     np.array_equal(labels["libsvm"], labels["float64"]),
                     np.array_equal(labels["float64"], labels["float32"])))
        print(name, {w: [round(t, 2) for t in v] for w, v in times.items()}, flush=True)
    print("load", os.getloadavg())
    print("| data | LIBSVM predict | float64 vote | float32 vote | float64 / float32 | "
          "Genie | float32 / Genie | rows rechecked | peak RSS MiB (LIBSVM, float64, "
          "float32, Genie) | labels equal (LIBSVM = float64, float64 = float32) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, med, rss, rechecked, eq_libsvm, eq_f64 in rows:
        genie = med.get("genie", float("nan"))
        mem = ", ".join(f"{rss[w]:.0f}" if w in rss else "-" for w in [*LABELLINGS, "genie"])
        print(f"| {name} | {med['libsvm']:.2f} s | {med['float64']:.2f} s | "
              f"{med['float32']:.2f} s | {med['float64'] / med['float32']:.2f}x | "
              f"{genie:.2f} s | {med['float32'] / genie:.2f}x | {rechecked} | {mem} | "
              f"{eq_libsvm}, {eq_f64} |")


if __name__ == "__main__":
    main()

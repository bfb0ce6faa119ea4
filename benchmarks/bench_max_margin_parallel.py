"""MaxMarginClustering on joblib workers: one process against ``parallel_config(n_jobs=2)``.

Inside ``joblib.parallel_config(n_jobs=...)`` the search fits its candidates on the
workers, and the margin classifier labels the rows (from ``2 * 8192``) in as many
contiguous parts; the fit is the sequential one (tested). This times whole fits,
wall-clock seconds (``time.perf_counter``: the work is in other processes), the two
settings interleaved in one process on the same data and seeds, median of
``--repeats``, one BLAS thread per process; the labels are checked equal. The load
average is printed at the start and the end: run it on an otherwise idle machine
with at least as many cores as ``--n-jobs``. The loky workers are started once,
before the first timed fit (a warm pool, as when fits are repeated in one process). Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_parallel.py \\
        --root /path/to/clustering-data-v1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import joblib
import numpy as np
from sklearn.datasets import make_blobs, make_moons

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import load_set, preprocess  # noqa: E402
from _report import publish  # noqa: E402


def data_sets(root: str | None) -> Iterator[tuple[str, np.ndarray, int]]:
    """``(name, X, K)``: generated sets, then sipu/birch1 when ``root`` is given."""
    yield "make_moons(3000)", make_moons(3000, noise=0.06, random_state=0)[0], 2
    yield "make_blobs(1e5, 10, K=5)", make_blobs(100_000, 10, centers=5, random_state=0)[0], 5
    yield "make_moons(1e6)", make_moons(1_000_000, noise=0.05, random_state=0)[0], 2
    if root is not None:
        ds = load_set("sipu/birch1", root=root)
        yield "sipu/birch1 (1e5, K=100)", preprocess(ds.X), 100


def fit(X: np.ndarray, k: int) -> np.ndarray:
    from marginclust import MaxMarginClustering

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MaxMarginClustering(k, random_state=0).fit(X).labels_


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None, help="a folder of battery folders (for birch1)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    with joblib.parallel_config(n_jobs=args.n_jobs):  # start the workers once
        joblib.Parallel()(joblib.delayed(fit)(np.eye(3)[[0, 0, 1, 1, 2, 2]] + 1e-3 * i, 2)
                          for i in range(args.n_jobs))
    lines = [f"| data | one process | n_jobs={args.n_jobs} | ratio | labels equal |",
             "|---|---|---|---|---|"]
    for name, X, k in data_sets(args.root):
        seconds: dict[str, list[float]] = {"one": [], "par": []}
        same = True
        for _ in range(args.repeats):  # interleaved
            start = time.perf_counter()
            a = fit(X, k)
            seconds["one"].append(time.perf_counter() - start)
            start = time.perf_counter()
            with joblib.parallel_config(n_jobs=args.n_jobs):
                b = fit(X, k)
            seconds["par"].append(time.perf_counter() - start)
            same &= bool(np.array_equal(a, b))
        one, par = (float(np.median(seconds[m])) for m in ("one", "par"))
        lines.append(f"| {name} | {one:.2f} s | {par:.2f} s | {par / one:.2f}x | {same} |")
        print(lines[-1], flush=True)
    text = (f"`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/"
            f"bench_max_margin_parallel.py --n-jobs {args.n_jobs} --repeats {args.repeats}` "
            f"({time.strftime('%Y-%m-%d')}; {os.cpu_count()} cores; load average {load:.2f} "
            f"at the start, {os.getloadavg()[0]:.2f} at the end). Wall-clock seconds of a "
            "whole fit, K given, median of the repeats.\n\n" + "\n".join(lines) + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

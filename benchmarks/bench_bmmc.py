"""Speed of BMMC beside CPMMC, IterSVR and K-means, and BMMC's scaling to a million samples.

Run: ``MARGINCLUST_DATA=../shared/datasets python benchmarks/bench_bmmc.py [--big]``

1. Table 7 data (ionosphere, letter A-B, satimage 1-2, USPS 1-4; min-max scaled):
   best-of-``--reps`` ``fit`` seconds of BMMC, CPMMC (binary only), IterSVR (binary
   only) and K-means (one initialisation), with 1 and 2 BLAS threads
   (threadpoolctl), beside the paper's MATLAB seconds (Table 7) and the ratio.
2. Linear scaling: dense two-Gaussian data, 100 features, n = 1e4, 1e5 (and 1e6
   with ``--big``; target < 60 s), BMMC binary, ``init="pca"``.
3. Sparse: 1e6 x 1e5 CSR with 50 non-zeros per row (``--big``; target < 180 s),
   BMMC binary, ``init="pca"``; never densified.

Timings taken while other jobs share the machine are inflated; the script
prints the load average so the reader can judge.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from marginclust import BMMC, CPMMC
from marginclust.metrics import clustering_accuracy

PAPER_SECONDS = {  # Table 7 (MATLAB R2012b, 2.5 GHz Core i7)
    "ionosphere": {"kmeans": 0.047, "itersvr": 1.132, "cpmmc": 0.052, "bmmc": 0.021},
    "letter:A,B": {"kmeans": 0.031, "itersvr": 15.765, "cpmmc": 0.077, "bmmc": 0.033},
    "satimage:1,2": {"kmeans": 0.109, "itersvr": 37.954, "cpmmc": 0.128, "bmmc": 0.040},
    "usps:1,2,3,4": {"kmeans": 0.967, "cpmmc": 25.319, "bmmc": 0.571},
}


def _time(make, X, reps):
    best, est = np.inf, None
    for _ in range(reps):
        est = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tic = time.perf_counter()
            est.fit(X)
            best = min(best, time.perf_counter() - tic)
    return best, est


def table7(reps: int) -> None:
    from sklearn.cluster import KMeans

    from marginclust import IterSVR
    from marginclust.bench._runner import load_data

    print(f"\n## Table 7 data: fit seconds (best of {reps}), ours vs paper")
    print("| data set | method | threads | ours (s) | paper (s) | ours/paper | CA |")
    print("|---|---|---|---|---|---|---|")
    for ds, paper in PAPER_SECONDS.items():
        X, y, _ = load_data(ds, "minmax")
        k = int(np.unique(y).size)
        makers = {
            "bmmc": lambda k=k: BMMC(k, random_state=0),
            "cpmmc": (lambda: CPMMC(2, random_state=0)) if k == 2 else None,
            "itersvr": (lambda: IterSVR(2, random_state=0)) if k == 2 else None,
            "kmeans": lambda k=k: KMeans(k, n_init=1, random_state=0),
        }
        for method, make in makers.items():
            if make is None:
                continue
            for threads in (1, 2):
                with threadpool_limits(threads):
                    t, est = _time(make, X, reps if method != "itersvr" else 1)
                p = paper.get(method)
                ratio = "-" if p is None else f"{t / p:.2f}"
                ca = clustering_accuracy(y, est.labels_, mapping="majority")
                print(
                    f"| {ds} | {method} | {threads} | {t:.3f} | {p if p else '-'} | {ratio} "
                    f"| {ca:.4f} |"
                )


def two_gaussians(n: int, d: int, rng: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
    y = rng.randint(2, size=n)
    X = rng.standard_normal((n, d))
    X[:, 0] += 3.0 * (2 * y - 1)
    return X, y


def sparse_two_topics(
    n: int, d: int, nnz: int, rng: np.random.RandomState
) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR with ``nnz`` entries per row, 10 of them in a class-specific block of 1,000 features."""
    y = rng.randint(2, size=n)
    cols = rng.randint(0, d, size=(n, nnz)).astype(np.int32)
    cols[:, :10] = rng.randint(0, 1000, size=(n, 10)) + 1000 * y[:, None]
    vals = rng.uniform(0.5, 1.5, size=n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int64)
    return sp.csr_matrix((vals, cols.ravel(), indptr), shape=(n, d)), y


def scaling(sizes: list[int]) -> None:
    print("\n## Dense binary scaling (d = 100, init='pca', 1 BLAS thread)")
    print("| n | fit (s) | CCCP iter | bundle iter | CA |")
    print("|---|---|---|---|---|")
    rng = np.random.RandomState(0)
    times = []
    for n in sizes:
        X, y = two_gaussians(n, 100, rng)
        with threadpool_limits(1):
            t, est = _time(lambda: BMMC(init="pca", random_state=0), X, 1)
        times.append(t)
        ca = clustering_accuracy(y, est.labels_, mapping="majority")
        print(f"| {n} | {t:.2f} | {est.n_iter_} | {int(est.n_inner_iter_.sum())} | {ca:.4f} |")
        del X
    if len(sizes) >= 2:
        slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
        print(f"\nlog-log slope of time vs n: {slope:.2f}")


def sparse_big(n: int, d: int, nnz: int, C: float = 100.0) -> None:
    print(
        f"\n## Sparse binary: {n} x {d}, {nnz} non-zeros per row (init='pca', C={C}, 1 BLAS thread)"
    )
    rng = np.random.RandomState(0)
    tic = time.perf_counter()
    X, y = sparse_two_topics(n, d, nnz, rng)
    print(f"data generated in {time.perf_counter() - tic:.1f} s (nnz = {X.nnz})")
    with threadpool_limits(1):
        t, est = _time(lambda: BMMC(C=C, init="pca", random_state=0), X, 1)
    ca = clustering_accuracy(y, est.labels_, mapping="majority")
    print(
        f"fit {t:.1f} s (target < 180 s), CCCP iter {est.n_iter_}, bundle iter "
        f"{int(est.n_inner_iter_.sum())}, CA {ca:.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="run the 1e6-sample problems")
    parser.add_argument("--skip-table7", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument(
        "--sparse-C",
        type=float,
        default=100.0,
        help="C of the sparse run: its scores are ~0.05 at C=1 (every sample inside the "
        "margin), where the MMC optimum puts all samples on one side",
    )
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    if not args.skip_table7:
        table7(args.reps)
    if not args.skip_scaling:
        scaling([10_000, 100_000, 1_000_000] if args.big else [10_000, 30_000, 100_000])
    if args.big:
        sparse_big(1_000_000, 100_000, 50, args.sparse_C)
    print(f"\nload average: {os.getloadavg()}")


if __name__ == "__main__":
    main()

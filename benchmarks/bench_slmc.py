"""SLMC speed beside what a user would pick instead, compared like with like.

Three cases, each run in ONE process, interleaved (ours, peer, ours, peer, ...),
same data and seeds, the median of ``--repeats`` runs, with 1 and 2 BLAS threads
(threadpoolctl); ratios are printed beside the load average, because absolute
seconds on a shared machine are inflated.

1. **Low rank vs Nystroem + KMeans** (n = 100,000 x 20, K = 10, L = 500): low-rank
   SLMC (float64 and float32 features) against scikit-learn's
   ``Nystroem(n_components=500, gamma=same)`` followed by ``KMeans(n_clusters=10,
   n_init=1)``, the usual kernel-clustering pipeline. Accuracy: ARI against the
   generating labels. Also the feature-map setup alone: ours vs ``Nystroem``.
2. **Exact vs auto on pendigits** (3,498 x 16, K = 10, the issue's user CSV):
   ``n_components=None`` (exact, one Cholesky per sweep) against the default
   ``n_components="auto"`` (rank 500 above 2,000 rows): seconds and Hungarian CA.
3. ``--memory``: peak traced memory (tracemalloc) of one low-rank fit at
   ``--n-memory`` rows (1e6 by default; run it once, alone), ``--memory-iters``
   sweeps (the peak is reached in the first), ``--memory-dtype`` input.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_slmc.py [--quick] [--repeats 3]
        [--threads 1 2] [--n 100000] [--rank 500] [--no-exact] [--memory]

``--quick``: n = 20,000, one repeat, 1 thread, exact case on 2,100 pendigits rows
capped at 30 sweeps (a time-per-sweep comparison; under a minute on a quiet machine).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np
from _ratios import record
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits

from marginclust import SLMC
from marginclust.feature_maps import resolve_gamma
from marginclust.feature_maps._low_rank import LowRankKernelMap


def _timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return time.perf_counter() - t0, out


def interleave(cases: dict[str, Any], repeats: int) -> dict[str, tuple[float, Any]]:
    """Run every case ``repeats`` times, interleaved; median seconds and the last result."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    last: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in cases.items():
            t, out = _timed(fn)
            times[name].append(t)
            last[name] = out
    return {k: (float(np.median(v)), last[k]) for k, v in times.items()}


def low_rank_case(n: int, d: int, K: int, L: int, repeats: int, threads: int) -> None:
    X, y = make_blobs(n, d, centers=K, cluster_std=4.0, random_state=0)
    Xc = X - X.mean(axis=0)
    gamma = resolve_gamma("scale", Xc)
    X32 = X.astype(np.float32)

    def ours(Xin: Any) -> Any:
        return lambda: SLMC(K, n_components=L, random_state=0).fit(Xin)

    def peer() -> Any:
        Phi = Nystroem(gamma=gamma, n_components=L, random_state=0).fit_transform(X)
        return KMeans(K, n_init=1, random_state=0).fit(Phi)

    cases = {"SLMC low rank f64": ours(X), "Nystroem+KMeans": peer,
             "SLMC low rank f32": ours(X32)}
    with threadpool_limits(limits=threads):
        res = interleave(cases, repeats)
        maps = interleave({
            "our map f64": lambda: LowRankKernelMap(gamma=gamma, n_components=L,
                                                    random_state=0).fit(Xc).transform(Xc),
            "sklearn Nystroem": lambda: Nystroem(gamma=gamma, n_components=L,
                                                 random_state=0).fit_transform(X),
            "our map f32": lambda: LowRankKernelMap(gamma=gamma, n_components=L,
                                                    random_state=0).fit(Xc).transform(
                                                        Xc.astype(np.float32)),
        }, repeats)
    base = res["Nystroem+KMeans"][0]
    print(f"\n### Low rank, n={n:,} x {d}, K={K}, L={L}, {threads} thread(s), "
          f"load {os.getloadavg()[0]:.1f}\n")
    print("| method | median s | ratio to Nystroem+KMeans | ARI | sweeps |")
    print("|---|---|---|---|---|")
    for name, (t, est) in res.items():
        if name != "Nystroem+KMeans":
            record(name, f"Nystroem({L}) + KMeans", f"blobs {n} x {d}, K={K}", threads,
                   t / base, 1.2 if n >= 100_000 else None)
        sweeps = getattr(est, "n_iter_", "")
        print(f"| {name} | {t:.2f} | {t / base:.2f} | "
              f"{adjusted_rand_score(y, est.labels_):.3f} | {sweeps} |")
    mb = maps["sklearn Nystroem"][0]
    print("\n| feature map only | median s | ratio to sklearn Nystroem |\n|---|---|---|")
    for name, (t, _) in maps.items():
        print(f"| {name} | {t:.2f} | {t / mb:.2f} |", flush=True)


def exact_case(n_rows: int | None, repeats: int, threads: int, max_iter: int = 300) -> None:
    from marginclust.datasets import load_dataset
    from marginclust.metrics import clustering_accuracy

    X, y = load_dataset("pendigits_test")[:2]
    if n_rows is not None:
        X, y = X[:n_rows], y[:n_rows]
    K = int(np.unique(y).size)
    cases = {
        "exact (n_components=None)": lambda: SLMC(K, n_components=None, max_iter=max_iter,
                                                  random_state=0).fit(X),
        "auto (default)": lambda: SLMC(K, max_iter=max_iter, random_state=0).fit(X),
    }
    with threadpool_limits(limits=threads):
        res = interleave(cases, repeats)
    base = res["exact (n_components=None)"][0]
    print(f"\n### pendigits_test, {X.shape[0]} x {X.shape[1]}, K={K}, {threads} thread(s), "
          f"max_iter={max_iter}, load {os.getloadavg()[0]:.1f}\n")
    print("| mode | median s | ratio to exact | Hungarian CA | sweeps | n_components_ |")
    print("|---|---|---|---|---|---|")
    for name, (t, est) in res.items():
        record(f"SLMC {name}", "time budget", f"pendigits {X.shape[0]} x {X.shape[1]}", threads,
               t, 15.0 if name.startswith("auto") and X.shape[0] >= 3000 else None, unit="s")
        print(f"| {name} | {t:.1f} | {t / base:.3f} | "
              f"{clustering_accuracy(y, est.labels_):.4f} | {est.n_iter_} | "
              f"{est.n_components_} |", flush=True)


def memory_case(n: int, d: int, K: int, L: int, dtype: str, iters: int) -> None:
    X, _ = make_blobs(n, d, centers=K, cluster_std=4.0, random_state=0)
    if dtype == "float32":
        X = X.astype(np.float32)
    tracemalloc.start()
    t, est = _timed(lambda: SLMC(K, n_components=L, max_iter=iters, random_state=0).fit(X))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\n### Memory: n={n:,} x {d} ({dtype} input, {X.nbytes / 2**30:.2f} GiB, not "
          f"counted), K={K}, L={L}, max_iter={iters}: peak traced {peak / 2**30:.2f} GiB, "
          f"{t:.0f} s, load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--clusters", type=int, default=10)
    ap.add_argument("--rank", type=int, default=500)
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--no-low-rank", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--n-memory", type=int, default=1_000_000)
    ap.add_argument("--memory-dtype", default="float32")
    ap.add_argument("--memory-iters", type=int, default=3,
                    help="sweeps of the memory fit (the peak is reached in the first)")
    args = ap.parse_args()
    if args.quick:
        args.n, args.repeats, args.threads = 20_000, 1, [1]
    print(f"load average at start {os.getloadavg()}")
    for threads in args.threads:
        if not args.no_low_rank:
            low_rank_case(args.n, args.features, args.clusters, args.rank, args.repeats,
                          threads)
        if not args.no_exact:
            exact_case(2100 if args.quick else None, 1 if args.quick else args.repeats,
                       threads, max_iter=30 if args.quick else 300)
    if args.memory:
        memory_case(args.n_memory, args.features, args.clusters, args.rank,
                    args.memory_dtype, args.memory_iters)


if __name__ == "__main__":
    main()

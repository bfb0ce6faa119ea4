"""Speed and memory of SLMC: exact at n = 2,000, low-rank at n = 100,000 (L = 500), beside FCM.

For each case the script fits FCM and SLMC on the same synthetic data (Gaussian
blobs) and prints the fit time, the number of sweeps, the time per sweep and the
peak memory traced by :mod:`tracemalloc` (NumPy allocations are traced), with
1 and 2 BLAS threads (threadpoolctl). Targets: low-rank SLMC at n = 100,000 fits
in < 60 s and < 2 GiB.

Usage::

    python benchmarks/bench_slmc.py [--quick] [--threads 1 2] [--n-low 100000] [--rank 500]

Timings taken while other jobs share the machine are inflated; the CPU time of
the process (``time.process_time``, all threads) is printed beside the wall time.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from marginclust import FuzzyCMeans
from marginclust.estimators._slmc import SLMC


def time_fit(make: Any, X: np.ndarray) -> dict[str, float]:
    """Fit once with tracemalloc on; return seconds, sweeps, s/sweep and peak MiB."""
    est = make()
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n_iter = int(getattr(est, "n_iter_", 1))
    return {"time": elapsed, "cpu": cpu, "n_iter": n_iter, "per_iter": elapsed / max(n_iter, 1),
            "peak_mib": peak / 2**20, "n_clusters_found": int(np.unique(est.labels_).size)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="n = 500 exact, 10,000 low-rank")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--n-exact", type=int, default=2000)
    ap.add_argument("--n-low", type=int, default=100_000)
    ap.add_argument("--rank", type=int, default=500)
    ap.add_argument("--clusters", type=int, default=5)
    ap.add_argument("--features", type=int, default=10)
    args = ap.parse_args()
    n_exact, n_low = (500, 10_000) if args.quick else (args.n_exact, args.n_low)
    K, d, L = args.clusters, args.features, args.rank
    common = {"lam": 10.0, "sigma_scale": 0.5, "init": "k-means", "random_state": 0}
    cases = [
        ("FCM", n_exact, lambda: FuzzyCMeans(K, m=2.0, random_state=0)),
        ("SLMC exact", n_exact, lambda: SLMC(K, **common)),
        ("FCM", n_low, lambda: FuzzyCMeans(K, m=2.0, random_state=0)),
        (f"SLMC low-rank Nystroem L={L}", n_low, lambda: SLMC(K, n_components=L, **common)),
        (f"SLMC low-rank RFF L={L}", n_low,
         lambda: SLMC(K, n_components=L, low_rank="rff", **common)),
    ]
    data = {n: make_blobs(n, d, centers=K, cluster_std=2.0, random_state=0)[0]
            for n in {n_exact, n_low}}
    print(f"Synthetic blobs, d={d}, K={K}; lam=10, sigma=0.5 sigma0, k-means init.\n")
    print("| method | n | BLAS threads | fit s (wall) | fit s (CPU) | sweeps | wall s / sweep "
          "| peak MiB | clusters |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = {}
    for threads in args.threads:
        with threadpool_limits(limits=threads):
            for name, n, make in cases:
                r = time_fit(make, data[n])
                results[(name, n, threads)] = r
                print(f"| {name} | {n:,} | {threads} | {r['time']:.2f} | {r['cpu']:.2f} | "
                      f"{r['n_iter']} | "
                      f"{r['per_iter']:.4f} | {r['peak_mib']:.0f} | {r['n_clusters_found']} |",
                      flush=True)
    print("\nRatios (SLMC / FCM fit time, same n and threads):")
    for (name, n, threads), r in results.items():
        if name.startswith("SLMC"):
            base = results[("FCM", n, threads)]
            print(f"  {name}, n={n:,}, {threads} thread(s): {r['time'] / base['time']:.1f}x")
    for threads in args.threads:
        r = results[(f"SLMC low-rank Nystroem L={L}", n_low, threads)]
        ok = r["time"] < 60 and r["peak_mib"] < 2048
        print(f"Target (low-rank n={n_low:,}: < 60 s and < 2 GiB), {threads} thread(s): "
              f"{'met' if ok else 'NOT met'} ({r['time']:.1f} s, {r['peak_mib']:.0f} MiB)")


if __name__ == "__main__":
    main()

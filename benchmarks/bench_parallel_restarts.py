"""Restarts in parallel: ``with joblib.parallel_config(n_jobs=2): est.fit(X)`` vs sequential.

Interleaved (sequential, parallel, sequential, parallel, ... same process, same
seeds), median of ``--repeats`` fits per arm, BLAS limited to one thread per
process (threadpoolctl in the parent; loky workers get one thread each by
joblib's default). Checks that every parallel fit equals the sequential one
(labels and objective bitwise) and prints ``os.getloadavg()`` beside the times.

    PYTHONPATH=src python benchmarks/bench_parallel_restarts.py [--repeats 5] [--backend loky]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

from marginclust import EMMC, KernelKMeans, WOCSVMClustering

try:
    from _ratios import record
except ImportError:  # run from another directory
    def record(*args, **kwargs):  # type: ignore[no-redef]
        return None


def _cases():
    rng = np.random.RandomState(0)
    centres = rng.randn(4, 8) * 3
    X = np.vstack([c + rng.randn(1000, 8) for c in centres])
    return [
        ("KernelKMeans", lambda: KernelKMeans(n_clusters=4, init="random", n_init=8,
                                              random_state=0), X),
        ("EMMC", lambda: EMMC(n_clusters=4, n_hidden=300, n_init=8, random_state=0), X),
        ("WOCSVMClustering", lambda: WOCSVMClustering(n_clusters=4, n_init=4,
                                                      random_state=0), X[:400]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--backend", default="loky", choices=["loky", "threading"])
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"backend={args.backend} n_jobs={args.n_jobs} repeats={args.repeats}")
    print(f"{'estimator':18s} {'seq s':>8s} {'par s':>8s} {'speed-up':>8s}  equal  loadavg")
    with threadpool_limits(1):
        for name, make, X in _cases():
            with joblib.parallel_config(backend=args.backend, n_jobs=args.n_jobs):
                make().fit(X[:200])  # start the workers once, outside the timings
            seq, par, equal = [], [], True
            for _ in range(args.repeats):
                t = time.perf_counter()
                a = make().fit(X)
                seq.append(time.perf_counter() - t)
                with joblib.parallel_config(backend=args.backend, n_jobs=args.n_jobs):
                    t = time.perf_counter()
                    b = make().fit(X)
                    par.append(time.perf_counter() - t)
                equal &= bool(np.array_equal(a.labels_, b.labels_) and a.objective_ == b.objective_)
            s, p = statistics.median(seq), statistics.median(par)
            load = tuple(round(v, 2) for v in os.getloadavg())
            print(f"{name:18s} {s:8.3f} {p:8.3f} {s / p:8.2f}  {equal!s:5s}  {load}", flush=True)
            record(f"{name} n_init restarts, {args.n_jobs} {args.backend} workers",
                   "sequential restarts", f"{X.shape[0]}x{X.shape[1]}", 1, p / s, None)


if __name__ == "__main__":
    main()

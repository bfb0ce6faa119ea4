"""MaxMarginClustering on 1e5 x 10 beside KMeans(n_init=10) and GaussianMixture.

Same data (``make_blobs(n, d, centers=K, cluster_std=2)``), same seeds, one process,
the three fits interleaved in every repeat, one BLAS thread (threadpoolctl); the
median of the repeats is reported with the 1-minute load average before and after
each fit (the machine is shared: read the times beside the load). Peak memory is
the resident set of a fresh child process that generates the data and runs one fit
(``VmHWM`` of ``/proc/self/status``: data, interpreter and libraries included;
not ``ru_maxrss``, which Linux carries over from the parent through fork and exec).
Targets: under 60 s and under 2 GiB for MaxMarginClustering. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_speed.py
    python benchmarks/bench_max_margin_speed.py --n 20000 --repeats 1   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _ratios import record  # noqa: E402

METHODS = ("MaxMarginClustering", "KMeans(n_init=10)", "GaussianMixture")


def make_data(n: int, d: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's blobs (seed 0)."""
    from sklearn.datasets import make_blobs

    return make_blobs(n, d, centers=k, cluster_std=2.0, random_state=0)


def fit(method: str, X: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fit one method; return its labels."""
    if method == "MaxMarginClustering":
        from marginclust import MaxMarginClustering

        return MaxMarginClustering(n_clusters=k, random_state=seed).fit(X).labels_
    if method == "KMeans(n_init=10)":
        from sklearn.cluster import KMeans

        return KMeans(k, n_init=10, random_state=seed).fit(X).labels_
    from sklearn.mixture import GaussianMixture

    return GaussianMixture(k, random_state=seed).fit(X).predict(X)


def _child(method: str, n: int, d: int, k: int) -> None:
    """One fit in this (fresh) process; print its seconds and peak resident set."""
    import resource

    from threadpoolctl import threadpool_limits

    X, _ = make_data(n, d, k)
    with threadpool_limits(1):
        start = time.perf_counter()
        fit(method, X, k, 0)
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # fallback: KiB
    try:  # this process's own high-water mark (ru_maxrss includes the parent's)
        with open("/proc/self/status") as f:
            peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        pass
    print(json.dumps({"seconds": seconds, "peak_mib": peak}))


def peak_memory(method: str, n: int, d: int, k: int) -> float:
    """Peak RSS (MiB) of a child process that makes the data and fits ``method`` once."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", method, "--n", str(n), "--d", str(d),
         "--k", str(k)],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"),
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["peak_mib"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.n, args.d, args.k)
        return 0

    from sklearn.metrics import adjusted_rand_score
    from threadpoolctl import threadpool_info, threadpool_limits

    X, y = make_data(args.n, args.d, args.k)
    size = f"{args.n} x {args.d}, K={args.k}"
    blas = "; ".join(f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                     if i.get("user_api") == "blas")
    print(f"# MaxMarginClustering speed: make_blobs({size}, cluster_std=2)\n")
    print(f"BLAS: {blas}, limited to 1 thread; {os.cpu_count()} cores; load average at "
          f"start {' / '.join(f'{v:.1f}' for v in os.getloadavg())}.\n")
    times: dict[str, list[float]] = {m: [] for m in METHODS}
    ari: dict[str, list[float]] = {m: [] for m in METHODS}
    loads: dict[str, list[float]] = {m: [] for m in METHODS}
    with threadpool_limits(1):
        for r in range(args.repeats):
            for m in METHODS:  # interleaved: each repeat runs all three
                before = os.getloadavg()[0]
                start = time.perf_counter()
                labels = fit(m, X, args.k, r)
                times[m].append(time.perf_counter() - start)
                loads[m] += [before, os.getloadavg()[0]]
                ari[m].append(adjusted_rand_score(y, labels))
                print(f"repeat {r}: {m} {times[m][-1]:.2f} s, ARI {ari[m][-1]:.4f}", flush=True)
    peaks = {m: peak_memory(m, args.n, args.d, args.k) for m in METHODS}
    base = float(np.median(times["KMeans(n_init=10)"]))
    print("\n| method | median s | / KMeans(n_init=10) | ARI (mean) | peak RSS MiB | "
          "load during fits |")
    print("|---|---|---|---|---|---|")
    for m in METHODS:
        med = float(np.median(times[m]))
        print(f"| {m} | {med:.2f} | {med / base:.2f}x | {np.mean(ari[m]):.4f} | "
              f"{peaks[m]:.0f} | {min(loads[m]):.1f}-{max(loads[m]):.1f} |")
    med = float(np.median(times["MaxMarginClustering"]))
    record("MaxMarginClustering fit", "target", size, 1, med, 60.0, unit="s")
    record("MaxMarginClustering", "KMeans(n_init=10)", size, 1, med / base, None)
    ok = med < 60.0 and peaks["MaxMarginClustering"] < 2048.0
    print(f"\nTargets (< 60 s, < 2 GiB): {'met' if ok else 'NOT met'}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

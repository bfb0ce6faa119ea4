"""What pairs add to a fit's time: BMMC and CPMMC on 1e5 rows with and without 500 pairs.

One process, one BLAS thread (threadpoolctl), the same data, seeds and stopping
rule; fits with and without pairs interleaved, ``--repeats`` of each, the median
reported with the ratio and the machine's load before and after. Both the wall
time and the process CPU time are measured: on a shared machine the CPU time of a
one-thread fit is the steadier of the two (the other processes' load moves the
wall time of both cases, but not evenly). The pairs are
drawn at random from the blobs' labels, must-links and cannot-links in the
proportion they occur (as in ``bench_pairs.py``).

Run::

    nice -n 5 .venv/bin/python benchmarks/bench_pairs_speed.py [--n 100000] [--pairs 500]

Results and their reading: ``benchmarks/results/pairs_speed.md``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from marginclust import BMMC, CPMMC


def main(argv: list[str] | None = None) -> None:
    """Print the median fit times and their ratio for each estimator and K."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--d", type=int, default=10)
    p.add_argument("--pairs", type=int, default=500)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ks", default="2,3")
    args = p.parse_args(argv)
    print(f"load average before: {os.getloadavg()}; 1 BLAS thread; n={args.n}, d={args.d}, "
          f"{args.pairs} pairs, median of {args.repeats} interleaved repeats")
    with threadpool_limits(1):
        for k in (int(v) for v in args.ks.split(",")):
            X, y = make_blobs(args.n, n_features=args.d, centers=k, cluster_std=3.0,
                              random_state=0)
            rng = np.random.RandomState(0)
            uv = rng.randint(args.n, size=(4 * args.pairs, 2))
            uv = uv[uv[:, 0] != uv[:, 1]][: args.pairs]
            same = y[uv[:, 0]] == y[uv[:, 1]]
            ml, cl = uv[same], uv[~same]
            for Est in (BMMC, CPMMC):
                times: dict[str, list[float]] = {"none": [], "pairs": []}
                cpu: dict[str, list[float]] = {"none": [], "pairs": []}
                for _ in range(args.repeats):
                    for case in ("none", "pairs"):
                        kw = {"must_link": ml, "cannot_link": cl} if case == "pairs" else {}
                        t0, c0 = time.perf_counter(), time.process_time()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            Est(k, random_state=0).fit(X, **kw)
                        times[case].append(time.perf_counter() - t0)
                        cpu[case].append(time.process_time() - c0)
                a, b = np.median(times["none"]), np.median(times["pairs"])
                ca, cb = np.median(cpu["none"]), np.median(cpu["pairs"])
                print(f"{Est.__name__:6s} k={k}: CPU without pairs {ca:.3f} s, with {args.pairs} "
                      f"pairs {cb:.3f} s, ratio {cb / ca:.2f}; wall {a:.3f} s -> {b:.3f} s, ratio "
                      f"{b / a:.2f}  (CPU all: none {np.round(cpu['none'], 3)}, "
                      f"pairs {np.round(cpu['pairs'], 3)})", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

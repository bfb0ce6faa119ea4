"""EMMC speed and memory: USPS (9298 x 256, 10 clusters, L = 1000) and 1,000,000 x 50 (L = 500).

Each case runs in its own subprocess so its peak RSS (``ru_maxrss``) is its own.
Wall-clock and process CPU time of ``fit`` are both printed: on a shared machine the
CPU time (all threads of the process) is the fairer number for one BLAS thread.
BLAS threads are limited with threadpoolctl (1 and 2 threads for USPS).

    python benchmarks/bench_emmc.py            # both cases
    python benchmarks/bench_emmc.py --case usps
    python benchmarks/bench_emmc.py --case large --n 1000000

Paper (MATLAB, i5-2400): USPS, L = 1000, single output: 94.47 % in 536.61 s (15.46
iterations on average; Tables 6 and 9). Targets here: USPS < 20 s; the large case
< 5 minutes and < 4 GiB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def case_usps(threads: int, output: str, seed: int) -> dict:
    from threadpoolctl import threadpool_limits

    from marginclust import EMMC
    from marginclust.datasets import load_dataset
    from marginclust.metrics import clustering_accuracy, rand_index

    X, y = load_dataset("usps")
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = EMMC(10, n_hidden=1000, C=500.0, balance=0.15, output=output, random_state=seed)
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X)
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(
        case="usps",
        output=output,
        threads=threads,
        seed=seed,
        acc=100 * clustering_accuracy(y, est.labels_, mapping="hungarian"),
        ri=rand_index(y, est.labels_),
        n_iter=est.n_iter_,
        stop=est.stop_reason_,
        time=t,
        cpu=cpu,
        peak_rss_gib=_peak_rss_gib(),
    )


def case_large(n: int, threads: int, seed: int) -> dict:
    from threadpoolctl import threadpool_limits

    from marginclust import EMMC
    from marginclust.metrics import clustering_accuracy

    rng = np.random.RandomState(seed)
    k, d = 5, 50
    centers = rng.randn(k, d) * 0.3  # overlapping clusters, so EMMC iterates
    y = rng.randint(k, size=n)
    X = centers[y]
    X += rng.randn(n, d)
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # tol=1e-4: stop when at most 100 of 1e6 labels change in an iteration
        est = EMMC(
            k, n_hidden=500, C=500.0, balance=0.03, output="multi", tol=1e-4, random_state=seed
        )
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X)
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(
        case="large",
        n=n,
        d=d,
        k=k,
        L=500,
        threads=threads,
        acc=100 * clustering_accuracy(y, est.labels_, mapping="hungarian"),
        n_iter=est.n_iter_,
        stop=est.stop_reason_,
        time=t,
        cpu=cpu,
        peak_rss_gib=_peak_rss_gib(),
        data_gib=X.nbytes / 2**30,
    )


def _spawn(args: list[str]) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2")
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, env=env
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=["usps", "large", "all"], default="all")
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=0, help="0: run 1 and 2")
    p.add_argument("--output", default="single")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        if a.case == "usps":
            res = case_usps(a.threads or 1, a.output, a.seed)
        else:
            res = case_large(a.n, a.threads or 1, a.seed)
        print(json.dumps(res))
        return
    threads = [a.threads] if a.threads else [1, 2]
    if a.case in ("usps", "all"):
        print("USPS 9298 x 256, 10 clusters, L = 1000, C = 500, balance 0.15 n")
        print("paper (MATLAB): single output 94.47 % in 536.61 s (15.46 it); multi 94.89 %")
        for output in ["single", "multi"]:
            for th in threads:
                r = _spawn(
                    [
                        "--case",
                        "usps",
                        "--threads",
                        str(th),
                        "--output",
                        output,
                        "--seed",
                        str(a.seed),
                    ]
                )
                print(
                    f"  {output:6s} threads={th}: acc {r['acc']:.2f} %  RI {r['ri']:.3f}  "
                    f"iter {r['n_iter']} ({r['stop']})  wall {r['time']:.2f} s  "
                    f"CPU {r['cpu']:.2f} s  (paper/ours wall {536.61 / r['time']:.0f}x)  "
                    f"peak RSS {r['peak_rss_gib']:.2f} GiB"
                )
    if a.case in ("large", "all"):
        print(
            f"Synthetic {a.n} x 50, 5 overlapping Gaussian clusters, L = 500, multi output, "
            "C = 500, tol = 1e-4 (H streamed in float32 blocks of 8192 rows)"
        )
        r = _spawn(
            [
                "--case",
                "large",
                "--n",
                str(a.n),
                "--threads",
                str(threads[-1]),
                "--seed",
                str(a.seed),
            ]
        )
        print(
            f"  threads={r['threads']}: acc {r['acc']:.2f} %  iter {r['n_iter']} ({r['stop']})  "
            f"wall {r['time']:.1f} s  CPU {r['cpu']:.1f} s (target < 300)  "
            f"peak RSS {r['peak_rss_gib']:.2f} GiB "
            f"(target < 4; the data alone {r['data_gib']:.2f} GiB)"
        )


if __name__ == "__main__":
    main()

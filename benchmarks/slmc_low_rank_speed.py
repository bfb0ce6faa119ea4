"""Low-rank SLMC at its defaults beside Nystroem(500) + KMeans: accuracy and time.

Data: ``make_blobs(100_000, 20, centers=10, cluster_std=2)`` (well-separated
clusters: every method should find all ten), float64 and float32 input.

Compared in ONE process, interleaved (ours, peers, ours, peers, ...), same data
and seeds (``random_state`` of both), the median of ``--repeats`` runs per seed,
BLAS threads limited by threadpoolctl (``--threads``, stated in the output), the
load average printed before and after:

- ``SLMC`` at its defaults (``n_components="auto"`` is rank 500 above 2,000 rows;
  ``--rank`` is passed as ``n_components``);
- ``SLMC w_step="exact"``: the same fit with the exact W-step at every sweep;
- ``Nystroem+KMeans (same gamma)``: scikit-learn's ``Nystroem(n_components=500,
  gamma=SLMC's gamma_)`` then ``KMeans(10)`` at its defaults (one k-means++ run):
  the same kernel and rank;
- ``Nystroem+KMeans (gamma scale)``: the same at ``gamma = 1 / (d X.var())``
  (SLMC's former default width).

Wall and CPU (``time.process_time``) seconds are both printed; with one BLAS
thread on an oversubscribed machine the CPU ratio is the steadier one. Accuracy
is the Hungarian clustering accuracy against the generating labels.

Run::

    OMP_NUM_THREADS=1 python benchmarks/slmc_low_rank_speed.py --repeats 3 --seeds 0 1 2
    python benchmarks/slmc_low_rank_speed.py --quick      # n = 20,000, one repeat
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.kernel_approximation import Nystroem
from threadpoolctl import threadpool_limits

from marginclust import SLMC
from marginclust.feature_maps import resolve_gamma
from marginclust.metrics import clustering_accuracy


def timed(fn: Any) -> tuple[float, float, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        return time.perf_counter() - t0, time.process_time() - c0, out


def run(n: int, d: int, K: int, L: int, repeats: int, seeds: list[int], threads: int) -> None:
    X64, y = make_blobs(n, d, centers=K, cluster_std=2.0, random_state=0)
    gamma_scale = resolve_gamma("scale", X64 - X64.mean(axis=0))
    print(f"load average before: {os.getloadavg()}; BLAS threads: {threads}", flush=True)
    for dtype in (np.float64, np.float32):
        X = X64.astype(dtype)
        # SLMC's own width rule, resolved as its fit does (on the centred data, seed 0)
        gamma_ours = resolve_gamma(SLMC().gamma, X64 - X64.mean(axis=0), random_state=0)
        cases = {
            "SLMC (defaults)": lambda s, X=X: SLMC(K, n_components=L, random_state=s).fit(X),
            "SLMC w_step='exact'": lambda s, X=X: SLMC(K, n_components=L, w_step="exact",
                                                       random_state=s).fit(X),
            "SLMC init='spectral'": lambda s, X=X: SLMC(K, n_components=L, init="spectral",
                                                        random_state=s).fit(X),
            "Nystroem+KMeans (same gamma)": lambda s, X=X, g=gamma_ours: KMeans(
                K, random_state=s).fit(Nystroem(gamma=g, n_components=L,
                                                random_state=s).fit_transform(X)),
            "Nystroem+KMeans (gamma scale)": lambda s, X=X: KMeans(K, random_state=s).fit(
                Nystroem(gamma=gamma_scale, n_components=L, random_state=s).fit_transform(X)),
        }
        wall: dict[str, list[float]] = {k: [] for k in cases}
        cpu: dict[str, list[float]] = {k: [] for k in cases}
        acc: dict[str, list[float]] = {k: [] for k in cases}
        info: dict[str, list[str]] = {k: [] for k in cases}
        with threadpool_limits(limits=threads):
            for seed in seeds:
                for _ in range(repeats):
                    for name, fn in cases.items():
                        w, c, est = timed(lambda fn=fn, seed=seed: fn(seed))
                        wall[name].append(w)
                        cpu[name].append(c)
                        acc[name].append(clustering_accuracy(y, est.labels_))
                        info[name].append(str(getattr(est, "n_iter_", "")))
        print(f"\n### n={n:,} x {d}, K={K}, L={L}, {np.dtype(dtype).name}, seeds {seeds}, "
              f"{repeats} repeat(s), {threads} BLAS thread(s), SLMC gamma_={gamma_ours:.4g}, "
              f"gamma scale={gamma_scale:.4g}, load {os.getloadavg()[0]:.1f}\n")
        print("| method | median wall s | median CPU s | CPU ratio to same-gamma peer | "
              "CPU ratio to gamma-scale peer | accuracy (min over runs) | sweeps / iters |")
        print("|---|---|---|---|---|---|---|")
        peer1 = float(np.median(cpu["Nystroem+KMeans (same gamma)"]))
        peer2 = float(np.median(cpu["Nystroem+KMeans (gamma scale)"]))
        for name in cases:
            c = float(np.median(cpu[name]))
            print(f"| {name} | {np.median(wall[name]):.2f} | {c:.2f} | {c / peer1:.2f} | "
                  f"{c / peer2:.2f} | {min(acc[name]):.4f} | "
                  f"{', '.join(sorted(set(info[name])))} |", flush=True)
    print(f"\nload average after: {os.getloadavg()}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--clusters", type=int, default=10)
    p.add_argument("--rank", type=int, default=500)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="n = 20,000, one repeat, seed 0")
    args = p.parse_args()
    if args.quick:
        args.n, args.repeats, args.seeds = 20_000, 1, [0]
    run(args.n, args.features, args.clusters, args.rank, args.repeats, args.seeds, args.threads)


if __name__ == "__main__":
    main()

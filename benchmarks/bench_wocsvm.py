"""WOC-SVM speed against its peer, and the low-rank path against the exact one.

Three parts, each printing the load average beside its numbers:

1. **Exact path vs one scikit-learn OneClassSVM of the same size** (the peer a
   user would run instead; same RBF ``gamma``, ``nu``), in process CPU time. Data: ``make_blobs``
   with 3 centres in 4 dimensions, standardised. For each n the two are timed
   interleaved (ours, peer, ours, peer, ...; same data, ``--repeats`` times) under
   ``threadpoolctl`` limits of 1 and 2 threads; the table gives the medians and
   their ratio (a ratio survives a loaded machine, absolute seconds do not).
   Run the script with ``PYTHONPATH`` pointing at another checkout (e.g. the
   main branch) to compare two versions by their ratios.
2. **Low rank** (``n_components``): fit time up to 1e5 rows (``--lowrank-sizes``)
   beside the same OneClassSVM peer where it fits in the budget.
3. **Low rank vs exact accuracy** on the paper's Table 1 data sets with the
   paper's (tau, nu) and preprocessing, GMM init, 2 seeds: clustering accuracy
   (majority mapping, as the paper) of both paths.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_wocsvm.py            # full (minutes)
    OMP_NUM_THREADS=1 python benchmarks/bench_wocsvm.py --quick    # under a minute
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import time
import warnings

import numpy as np
from _ratios import record
from sklearn.datasets import make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.svm import OneClassSVM
from threadpoolctl import threadpool_limits

from marginclust.estimators._wocsvm import WOCSVMClustering


def _load() -> str:
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def _fit_seconds(est, X, clock=time.perf_counter) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = clock()
        est.fit(X)
        return clock() - t0


def _woc(**params) -> WOCSVMClustering:
    """A WOCSVMClustering with only the parameters this checkout knows (old versions too)."""
    known = inspect.signature(WOCSVMClustering).parameters
    return WOCSVMClustering(**{k: v for k, v in params.items() if k in known})


def _blobs(n: int) -> np.ndarray:
    X, _ = make_blobs(n_samples=n, centers=3, n_features=4, random_state=0)
    return StandardScaler().fit_transform(X)


def exact_vs_peer(sizes, repeats, threads) -> None:
    print("\n## 1. Exact WOC-SVM (3 clusters, gamma='scale', nu=0.9) vs one OneClassSVM "
          f"({_load()})")
    print("Seconds are process CPU time (less sensitive to other users' load than wall time);")
    print("medians of interleaved repeats.")
    print("| threads | n | WOC-SVM s | OneClassSVM s | ratio | WOC-SVM wall s | SVM fits |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        with threadpool_limits(limits=t):
            for n in sizes:
                X = _blobs(n)
                gamma = 1.0 / (X.shape[1] * X.var())
                ours, peer, wall = [], [], []
                fits = 0
                for _ in range(repeats):
                    est = _woc(n_clusters=3, gamma="scale", random_state=0, n_components=None)
                    t0 = time.perf_counter()
                    ours.append(_fit_seconds(est, X, time.process_time))
                    wall.append(time.perf_counter() - t0)
                    fits = est.n_fits_
                    peer.append(_fit_seconds(OneClassSVM(gamma=gamma, nu=0.9), X,
                                             time.process_time))
                mo, mp = statistics.median(ours), statistics.median(peer)
                record("WOC-SVM exact fit (CPU s)", "one OneClassSVM, same size", f"blobs {n} x 4",
                       t, mo / mp, None)
                print(f"| {t} | {n} | {mo:.3f} | {mp:.3f} | {mo / mp:.2f} | "
                      f"{statistics.median(wall):.3f} | {fits} |", flush=True)
    print(_load())


def lowrank_scaling(sizes, components, budget, threads) -> None:
    print(f"\n## 2. Low-rank WOC-SVM (n_components={components}) vs one exact OneClassSVM "
          f"({_load()})")
    print("| threads | n | WOC-SVM low rank wall s | CPU s | iterations | OneClassSVM wall s "
          "| ratio (wall) |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        peer_alive = True
        with threadpool_limits(limits=t):
            for n in sizes:
                X = _blobs(n)
                gamma = 1.0 / (X.shape[1] * X.var())
                est = _woc(n_clusters=3, gamma="scale", random_state=0,
                           n_components=components)
                c0, t0 = time.process_time(), time.perf_counter()
                _fit_seconds(est, X)
                s_ours, c_ours = time.perf_counter() - t0, time.process_time() - c0
                s_peer = float("nan")
                if peer_alive and n <= 20000:  # the exact peer is quadratic in n
                    s_peer = _fit_seconds(OneClassSVM(gamma=gamma, nu=0.9), X)
                    peer_alive = s_peer <= budget / 4
                record(f"WOC-SVM low rank (n_components={components})", "time budget",
                       f"blobs {n} x 4", t, s_ours, 60.0 if n >= 100_000 else None, unit="s")
                print(f"| {t} | {n} | {s_ours:.2f} | {c_ours:.2f} | {est.n_iter_} | {s_peer:.2f} | "
                      f"{s_ours / s_peer:.2f} |", flush=True)
    print(_load())


# The paper's Table 1 sets available offline (Pima is not).
TABLE1 = ("iris", "breast_cancer_wisconsin", "wine", "biomed")


def lowrank_accuracy(datasets, components, seeds) -> None:
    from marginclust.metrics import clustering_accuracy
    from papers.wocsvm import PAPER_SETTINGS, load_paper_data

    print(f"\n## 3. Low rank (n_components={components}) vs exact on Table 1 sets, paper's "
          f"(tau, nu) and preprocessing, GMM init, seeds {list(seeds)}, CA with majority "
          f"mapping ({_load()})")
    print("| set | n | exact CA % | low-rank CA % | difference (points) | exact s | low-rank s |")
    print("|---|---|---|---|---|---|---|")
    for name in datasets:
        tau, nu, _, k = PAPER_SETTINGS[name]
        loaded = load_paper_data(name)
        if loaded is None:
            print(f"| {name} | - | no data (set MARGINCLUST_DATA) | | | | |")
            continue
        X, y, _ = loaded
        ca: dict = {None: [], components: []}
        secs = {None: 0.0, components: 0.0}
        for seed in seeds:
            for nc in (None, components):
                est = _woc(n_clusters=k, gamma=tau, nu=nu, random_state=seed, n_components=nc)
                secs[nc] += _fit_seconds(est, X)
                ca[nc].append(clustering_accuracy(y, est.labels_, mapping="majority"))
        e, lr = 100 * np.mean(ca[None]), 100 * np.mean(ca[components])
        print(f"| {name} | {len(X)} | {e:.1f} | {lr:.1f} | {lr - e:+.1f} | {secs[None]:.2f} | "
              f"{secs[components]:.2f} |", flush=True)
    print(_load())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--lowrank-sizes", type=int, nargs="+",
                        default=[10000, 30000, 100000])
    parser.add_argument("--components", type=int, default=300)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.lowrank_sizes, args.repeats = [500, 1000], [5000], 2
        args.threads = args.threads[:1]
    print(f"# bench_wocsvm ({_load()}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')})")
    if 1 in args.parts:
        exact_vs_peer(args.sizes, args.repeats, args.threads)
    if 2 in args.parts:
        lowrank_scaling(args.lowrank_sizes, args.components, args.budget, args.threads)
    if 3 in args.parts:
        sets = ["iris", "wine"] if args.quick else list(TABLE1)
        lowrank_accuracy(sets, args.components, (0,) if args.quick else (0, 1))


if __name__ == "__main__":
    main()

"""EMMC speed on USPS (9298 x 256, 10 clusters, L = 1000): init share, old init, KMeans peer.

EMMC's fit on USPS was dominated (83-89 %) by its initialisation,
``KMeans(n_init=10)`` on the 9298 x 1000 hidden layer. The init is now the best
of five k-means runs on a 2000-row subsample of the float32 hidden layer,
polished by at most 10 Lloyd iterations on all rows. This script measures,
in ONE process, INTERLEAVED (same seeds, same data, threadpoolctl 1 and 2 BLAS
threads, median of the repeats):

- ``new``: ``EMMC(10, n_hidden=1000, C=500, balance=0.15, output=...)`` at
  ``init="k-means-elm"`` (its default before 0.2), with the init's own time
  (timed by wrapping the init function) and its share of the fit;
- ``old``: the same EMMC started from the old init, ``KMeans(n_init=10)`` on the
  float64 hidden layer of the same random layer (time = layer + k-means + fit);
- ``peer``: what a user would run instead, scikit-learn ``KMeans(10, n_init=10)``
  on X.

Each row prints seconds, the ratio old / new and peer / new, the start and final
clustering accuracy (Hungarian), and ``os.getloadavg()``.

    python benchmarks/bench_emmc.py --quick        # < 1 min on a quiet machine
    python benchmarks/bench_emmc.py --repeats 3    # both outputs, 3 repeats
    python benchmarks/bench_emmc.py --large 1000000  # 1e6 x 50, L = 500: time, peak RSS

``--init-study`` (instead of the timing table) measures the start's quality with
and without the seeding projection of :func:`marginclust.solvers.kmeans_labels`
(``seed_dims="auto"`` vs ``None``), over ``--seeds`` (default 0-4), interleaved,
1 thread: the start's k-means cost in the full hidden layer (label-free; lower is
better), EMMC's final objective (label-free), the start and final clustering
accuracy (labels only score), the init time and its share of the fit::

    python benchmarks/bench_emmc.py --init-study --seeds 0 1 2 3 4

``--large N`` (instead of USPS) fits EMMC on N x 50 overlapping Gaussian clusters
(5 clusters, L = 500, multi output, tol 1e-4; H streamed in float32 blocks beyond
1 GiB) and prints the time, the accuracy and the process's peak RSS (targets
from the earlier memory issue: 1e6 rows in < 5 minutes and < 4 GiB).

Paper (MATLAB, i5-2400): USPS, L = 1000, single output: 94.47 % in 536.61 s
(cross-machine; Tables 6 and 9).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _ratios import record


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="one repeat, multi output only")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--large", type=int, default=0, help="rows of the large synthetic case")
    p.add_argument("--init-study", action="store_true", help="start quality, projected or not")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    a = p.parse_args()
    if a.init_study:
        _init_study(a.seeds)
        return
    if a.large:
        _large(a.large, a.threads[-1], a.seed)
        return
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    from marginclust import EMMC
    from marginclust.datasets import load_dataset
    from marginclust.estimators import _emmc
    from marginclust.metrics import clustering_accuracy

    X, y = load_dataset("usps")
    repeats = 1 if a.quick else a.repeats
    outputs = ["multi"] if a.quick else ["multi", "single"]

    def ca(labels: np.ndarray) -> float:
        return 100.0 * clustering_accuracy(y, labels)

    init_time: list[float] = []
    real_init = _emmc.start_labels  # the estimator's start (looked up in its module)

    def timed_init(*args, **kw):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = real_init(*args, **kw)
        init_time.append(time.perf_counter() - t0)
        return out

    _emmc.start_labels = timed_init
    warnings.simplefilter("ignore")
    print(f"USPS {X.shape[0]} x {X.shape[1]}, 10 clusters, L = 1000, C = 500, balance 0.15 n")
    for threads in a.threads:
        for output in outputs:
            rows: dict[str, list[tuple[float, ...]]] = {"new": [], "old": [], "peer": []}
            for r in range(repeats):
                seed = a.seed + r
                kw = dict(n_hidden=1000, C=500.0, balance=0.15, output=output, random_state=seed)
                start = dict(init="k-means-elm")  # the start this script times
                with threadpool_limits(threads):
                    # new: default init
                    init_time.clear()
                    t0 = time.perf_counter()
                    est = EMMC(10, **start, **kw).fit(X)
                    t_new = time.perf_counter() - t0
                    rows["new"].append((t_new, init_time[0], ca(est.init_labels_), ca(est.labels_)))
                    # old: KMeans(n_init=10) on the float64 layer of the same draw
                    t0 = time.perf_counter()
                    H = est.feature_map_.transform(X)
                    km = KMeans(10, n_init=10, random_state=seed).fit(H)
                    t_init_old = time.perf_counter() - t0
                    del H
                    t1 = time.perf_counter()
                    old = EMMC(10, init=km.labels_, **kw).fit(X)
                    t_old = t_init_old + time.perf_counter() - t1
                    rows["old"].append((t_old, t_init_old, ca(km.labels_), ca(old.labels_)))
                    # peer: KMeans(n_init=10) on X
                    t0 = time.perf_counter()
                    pk = KMeans(10, n_init=10, random_state=seed).fit(X)
                    t_peer = time.perf_counter() - t0
                    rows["peer"].append((t_peer, t_peer, ca(pk.labels_), ca(pk.labels_)))
            med = {k: np.median(np.asarray(v), axis=0) for k, v in rows.items()}
            new = med["new"]
            load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
            print(f"threads={threads} output={output} repeats={repeats} (load {load})")
            for name in ("new", "old", "peer"):
                t, ti, ca0, ca1 = med[name]
                what = {
                    "new": "EMMC, init k-means-elm (new)",
                    "old": "EMMC, init KMeans(n_init=10) on H",
                    "peer": "sklearn KMeans(n_init=10) on X",
                }[name]
                extra = f"init {ti:6.2f} s ({100 * ti / t:4.1f} %)" if name != "peer" else " " * 21
                size = f"USPS 9298 x 256, L=1000, {output}"
                if name == "new":
                    record("EMMC init share of its fit", "-", size, threads, ti / t, 0.30, unit="%")
                elif name == "old":
                    record("EMMC fit (new init)", "EMMC with KMeans(n_init=10) on H", size,
                           threads, t / new[0], 3.0, better="higher")
                else:
                    record("EMMC fit", "KMeans(10, n_init=10) on X", size, threads,
                           new[0] / t, None)
                print(
                    f"  {what:36s} fit {t:6.2f} s  {extra}  x{t / new[0]:5.2f} of new  "
                    f"start CA {ca0:5.2f}  final CA {ca1:5.2f}"
                )
    _emmc.start_labels = real_init


def _init_study(seeds: list[int]) -> None:
    import functools

    from threadpoolctl import threadpool_limits

    from marginclust import EMMC
    from marginclust.datasets import load_dataset
    from marginclust.estimators import _emmc
    from marginclust.metrics import clustering_accuracy
    from marginclust.solvers import kmeans_labels

    X, y = load_dataset("usps")
    warnings.simplefilter("ignore")
    clock = time.process_time
    seconds: list[float] = []
    real_init = _emmc.start_labels  # the estimator's start (looked up in its module)

    def timed_init(*args, **kw):  # type: ignore[no-untyped-def]
        t0 = clock()
        out = real_init(*args, **kw)
        seconds.append(clock() - t0)
        return out

    def layer_cost(H: np.ndarray, labels: np.ndarray) -> float:
        return sum(
            float(((H[labels == j] - H[labels == j].mean(axis=0)) ** 2).sum())
            for j in np.unique(labels)
        )

    variants = {"projected (auto)": "auto", "unprojected": None}
    print(f"USPS, EMMC(10, n_hidden=1000, C=500, balance=0.15, output='multi'), 1 thread, "
          f"CPU seconds (load {os.getloadavg()[0]:.1f})\n")
    print("| seed | seeding | start cost in H | final objective | start CA | final CA | "
          "init s | fit s | init share |")
    print("|---|---|---|---|---|---|---|---|---|")
    _emmc.start_labels = timed_init
    sums: dict[str, list[np.ndarray]] = {k: [] for k in variants}
    try:
        with threadpool_limits(1):
            for seed in seeds:
                for name, dims in variants.items():
                    _emmc.kmeans_labels = functools.partial(kmeans_labels, seed_dims=dims)
                    seconds.clear()
                    t0 = clock()
                    est = EMMC(10, n_hidden=1000, C=500.0, balance=0.15, output="multi",
                               init="k-means-elm", random_state=seed).fit(X)
                    t = clock() - t0
                    H = est.feature_map_.transform(X)
                    row = np.array([
                        layer_cost(H, est.init_labels_), est.objective_,
                        100 * clustering_accuracy(y, est.init_labels_),
                        100 * clustering_accuracy(y, est.labels_), seconds[0], t,
                    ])
                    sums[name].append(row)
                    print(f"| {seed} | {name} | {row[0]:.1f} | {row[1]:.1f} | {row[2]:.2f} | "
                          f"{row[3]:.2f} | {row[4]:.2f} | {row[5]:.2f} | "
                          f"{100 * row[4] / row[5]:.1f} % |", flush=True)
    finally:
        _emmc.kmeans_labels = kmeans_labels
        _emmc.start_labels = real_init
    for name, rows in sums.items():
        r = np.mean(rows, axis=0)
        print(f"| mean | {name} | {r[0]:.1f} | {r[1]:.1f} | {r[2]:.2f} | {r[3]:.2f} | "
              f"{r[4]:.2f} | {r[5]:.2f} | {100 * r[4] / r[5]:.1f} % |")
    print(f"\nload {os.getloadavg()}")


def _large(n: int, threads: int, seed: int) -> None:
    import resource

    from threadpoolctl import threadpool_limits

    from marginclust import EMMC
    from marginclust.metrics import clustering_accuracy

    rng = np.random.RandomState(seed)
    k, d = 5, 50
    centers = rng.randn(k, d) * 0.3  # overlapping clusters, so EMMC iterates
    y = rng.randint(k, size=n)
    X = centers[y]
    X += rng.randn(n, d)
    warnings.simplefilter("ignore")
    with threadpool_limits(threads):
        est = EMMC(
            k, n_hidden=500, C=500.0, balance=0.03, output="multi", tol=1e-4,
            init="k-means-elm", random_state=seed,
        )
        t0 = time.perf_counter()
        est.fit(X)
        t = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(
        f"{n} x {d}, L = 500, threads={threads}: {t:.1f} s, CA "
        f"{100 * clustering_accuracy(y, est.labels_):.2f} %, {est.n_iter_} iterations "
        f"({est.stop_reason_}), peak RSS {rss:.2f} GiB (data {X.nbytes / 2**30:.2f} GiB), "
        f"load {load}"
    )


if __name__ == "__main__":
    main()

"""PKM (default path) vs scikit-learn KMeans, like with like, interleaved; PKM faithful solvers.

Speed. For each data set and BLAS thread count, in one process:

- the same k-means++ centres ``C0`` (scikit-learn's ``kmeans_plusplus``, one per
  repeat seed) are given to ``PKM(K, init=C0)`` and to
  ``KMeans(K, init=C0, n_init=1, tol=0, algorithm="lloyd")`` (same start, same
  stopping rule: no point moves), fitted alternately (ours, peer, ours, peer...);
- ``PKM(K, random_state=s)`` (k-means++ seeding inside, the default) against
  ``KMeans(K, n_init=1, random_state=s)`` at its default tol (seeding inside both);
- the table gives median times, the ratio ours / KMeans (target <= 1.5 at 1e5 and
  1e6 x 20, K = 10, 1 thread, and with 2 threads), iterations, and SSE / KMeans' SSE
  (target <= 1 + 1e-9; the SSE of both is recomputed here from the returned labels).
  The load average is printed beside every row: ratios taken on a busy machine are
  only indicative.

Faithful solvers (``--faithful``): the PKM paper's Table VI sets with FMSAGP (one
released constraint per step) beside the paper's MATLAB seconds (cross-machine
ratios, labelled as such).

Usage::

    python benchmarks/bench_pkm.py --quick          # 1e5 x 20, 1 thread, < 1 minute
    python benchmarks/bench_pkm.py                  # 1e5 and 1e6 x 20, 1 and 2 threads
    python benchmarks/bench_pkm.py --sizes 100000 --threads 1 2 --repeat 5
    python benchmarks/bench_pkm.py --faithful       # + FMSAGP on the paper's sets
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _ratios import record
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from marginclust.estimators._pkm import PKM


def _sse(X: np.ndarray, labels: np.ndarray, k: int) -> float:
    Xc = X - X.mean(axis=0)
    total = 0.0
    for j in range(k):
        Z = Xc[labels == j]
        if Z.shape[0]:
            total += float(((Z - Z.mean(axis=0)) ** 2).sum())
    return total


def _timed(make, X):
    est = make()
    t0 = time.perf_counter()
    est.fit(X)
    return time.perf_counter() - t0, est


def make_data(kind: str, n: int, d: int = 20, k: int = 10):
    if kind == "blobs":  # the case: well separated, K-means converges in a few steps
        X, _ = make_blobs(n_samples=n, n_features=d, centers=k, cluster_std=2.0, random_state=0)
    else:  # "overlap": heavily overlapping blobs, dozens of Lloyd steps (per-iteration cost)
        X, _ = make_blobs(n_samples=n, n_features=d, centers=k, cluster_std=8.0, random_state=0)
    return np.ascontiguousarray(X)


def run_speed(kind: str, n: int, threads: int, repeat: int, k: int = 10) -> dict:
    X = make_data(kind, n, k=k)
    t_ours, t_peer, t_ours_d, t_peer_d = [], [], [], []
    sse_ratio, iters = [], []
    with threadpool_limits(limits=threads, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(repeat):
            C0, _ = kmeans_plusplus(X, k, random_state=seed)
            # same centres, same stopping rule (no point moves), alternately
            tp, km = _timed(
                lambda C0=C0: KMeans(k, init=C0, n_init=1, tol=0, algorithm="lloyd"), X
            )
            to, pk = _timed(lambda C0=C0: PKM(k, init=C0), X)
            t_ours.append(to)
            t_peer.append(tp)
            s_ours, s_peer = _sse(X, pk.labels_, k), _sse(X, km.labels_, k)
            sse_ratio.append(s_ours / s_peer)
            iters.append((pk.n_iter_, km.n_iter_))
            # defaults, seeding inside both
            to, _ = _timed(lambda s=seed: PKM(k, random_state=s), X)
            tp, _ = _timed(lambda s=seed: KMeans(k, n_init=1, random_state=s), X)
            t_ours_d.append(to)
            t_peer_d.append(tp)
    return {
        "kind": kind,
        "n": n,
        "threads": threads,
        "ours": float(np.median(t_ours)),
        "peer": float(np.median(t_peer)),
        "ratio": float(np.median(np.array(t_ours) / np.array(t_peer))),
        "ratio_default": float(np.median(np.array(t_ours_d) / np.array(t_peer_d))),
        "sse_ratio_max": float(np.max(sse_ratio)),
        "iters": iters,
        "load": os.getloadavg(),
    }


def print_speed(rows: list[dict]) -> None:
    print(
        "\n| data | n x d, K | threads | PKM s (init=C0) | KMeans s (init=C0, tol=0) | "
        "ratio | ratio, defaults (seeding inside) | max SSE ratio | iters PKM/KMeans | "
        "load 1/5/15 min |"
    )
    print("|" + "---|" * 10)
    for r in rows:
        it = ", ".join(f"{a}/{b}" for a, b in r["iters"])
        load = "/".join(f"{v:.1f}" for v in r["load"])
        print(
            f"| {r['kind']} | {r['n']} x 20, 10 | {r['threads']} | {r['ours']:.3f} | "
            f"{r['peer']:.3f} | **{r['ratio']:.2f}** | {r['ratio_default']:.2f} | "
            f"{r['sse_ratio_max']:.9f} | {it} | {load} |",
            flush=True,
        )


# name -> (loader name, rows to keep or None, n_clusters, paper FMSAGP s)
# Paper Table VI (MATLAB 2015a, i7-4790 3.6 GHz): cross-machine figures.
SETS = {
    "parkinson": ("parkinsons", None, 2, 0.1395),
    "iris": ("iris", None, 3, 0.2691),
    "seeds": ("seeds", None, 3, 0.4868),
    "glass": ("glass", None, 6, 2.4432),
    "segmentation": ("segmentation", 210, 7, 2.7152),
    "breast-cancer": ("breast_cancer_wisconsin", None, 2, 0.8911),
}


def run_faithful(repeat: int) -> None:
    from marginclust.datasets import load_dataset

    print("\n### FMSAGP (the paper's algorithm) vs the paper's MATLAB seconds (cross-machine)\n")
    print("| data | n x d | K | paper FMSAGP s | ours FMSAGP s | cross-machine ratio | steps |")
    print("|---|---|---|---|---|---|---|")
    for name, (loader, rows, k, paper) in SETS.items():
        try:
            X, _ = load_dataset(loader)
        except Exception as exc:  # noqa: BLE001 - a missing set is a row, not a crash
            print(f"| {name} | - | {k} | {paper} | skipped: {exc} | | |")
            continue
        if rows is not None:
            X = X[:rows]
        init = np.random.RandomState(0).dirichlet(np.ones(k), size=X.shape[0])
        with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts = []
            for _ in range(repeat):
                t, est = _timed(lambda k=k, init=init: PKM(k, solver="fmsagp", init=init), X)
                ts.append(t)
        t = float(np.median(ts))
        print(
            f"| {name} | {X.shape[0]} x {X.shape[1]} | {k} | {paper:g} | {t:.4f} | "
            f"{paper / t:,.0f}x | {est.n_iter_} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e5 x 20 blobs, 1 thread, 3 seeds")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--kinds", nargs="+", default=["blobs", "overlap"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--faithful", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.threads, args.kinds, args.repeat = [100_000], [1], ["blobs"], 3
    print(f"PKM vs scikit-learn KMeans; load at start {os.getloadavg()}")
    rows = []
    for n in args.sizes:
        for kind in args.kinds:
            if kind == "overlap" and n > 100_000:
                continue  # dozens of iterations at 1e6 rows: minutes; the 1e5 row shows it
            for threads in args.threads:
                rows.append(run_speed(kind, n, threads, args.repeat))
                print_speed(rows[-1:])
                r = rows[-1]
                size = f"{kind} {n} x 20, K=10"
                record("PKM (init=C0)", "KMeans(init=C0, n_init=1, tol=0)", size, threads,
                       r["ratio"], 1.5)
                record("PKM (defaults)", "KMeans(n_init=1), seeding inside", size, threads,
                       r["ratio_default"], 1.5)
                record("PKM SSE (init=C0)", "KMeans' SSE", size, threads, r["sse_ratio_max"],
                       1.0 + 1e-9, unit="exact")
    print("\n### Summary")
    print_speed(rows)
    if args.faithful:
        run_faithful(args.repeat)


if __name__ == "__main__":
    main()

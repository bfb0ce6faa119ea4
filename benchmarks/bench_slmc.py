"""SLMC speed beside what a user would pick instead, compared like with like.

Three cases, each run in ONE process, interleaved (ours, peer, ours, peer, ...),
same data and seeds, the median of ``--repeats`` runs, with 1 and 2 BLAS threads
(threadpoolctl); ratios are printed beside the load average, because absolute
seconds on a shared machine are inflated.

1. **Low rank vs Nystroem + KMeans** (n = 100,000 x 20, K = 10, L = 500): low-rank
   SLMC (float64 and float32 input) against scikit-learn's
   ``Nystroem(n_components=500, gamma=same)`` followed by ``KMeans(n_clusters=10)``
   at its default ``n_init="auto"`` (one k-means++ run: what a user would run), on
   the SAME input dtype (the ratio of each SLMC row is to the peer of its dtype),
   same ``random_state`` for both, for each of ``--seeds``. Accuracy: ARI against
   the generating labels, per seed (a single start of either method can land in a
   local optimum: two seeds in one blob). Also the feature-map setup alone.
2. **Exact vs auto on pendigits** (3,498 x 16, K = 10, the issue's user CSV):
   ``n_components=None`` (exact, one Cholesky per sweep) against the default
   ``n_components="auto"`` (rank 500 above 2,000 rows): seconds and Hungarian CA.
3. ``--stopping``: the membership-move tolerance of the stopping rule, old default
   ``tol_memberships=1e-4`` against the new ``1e-3``, on the shared data sets
   (standardised, seeds 0 and 1, label-free defaults otherwise): Hungarian CA,
   sweeps, largest relative difference of the final objective, CPU seconds.
4. ``--memory``: peak resident memory (``ru_maxrss``, the whole process: interpreter,
   data and fit) of one low-rank fit at ``--n-memory`` rows (1e6 by default), in a
   fresh subprocess; ``--memory-iters`` sweeps (the peak is reached in the first),
   ``--memory-dtype`` input. Above ``FEATURE_CACHE_BYTES`` the features are
   streamed per row block, never held as an n x L array.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/bench_slmc.py [--quick] [--repeats 3]
        [--threads 1 2] [--n 100000] [--rank 500] [--seeds 0 1 2] [--no-exact]
        [--memory [--n-memory 1000000] [--memory-dtype float32] [--cache-bytes 0]]
        [--stopping]

Wall and CPU seconds are both printed: on a shared machine the CPU ratio (1 BLAS
thread) is the steadier one.

``--quick``: n = 20,000, one repeat, 1 thread, exact case on 2,100 pendigits rows
capped at 30 sweeps (a time-per-sweep comparison; under a minute on a quiet machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
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
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    _CPU.append(time.process_time() - c0)
    return time.perf_counter() - t0, out


# CPU seconds of every _timed call, in call order: on an oversubscribed machine the
# process's CPU time (1 BLAS thread) is a steadier measure than wall seconds
_CPU: list[float] = []


def interleave(cases: dict[str, Any], repeats: int,
               all_times: bool = False) -> dict[str, tuple[Any, Any]]:
    """Run every case ``repeats`` times, interleaved; median seconds (or all of them with
    ``all_times``) and the last result. ``cpu_times[name]`` collects CPU seconds."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    last: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in cases.items():
            t, out = _timed(fn)
            times[name].append(t)
            cpu_times.setdefault(name, []).append(_CPU[-1])
            last[name] = out
    if all_times:
        return {k: (v, last[k]) for k, v in times.items()}
    return {k: (float(np.median(v)), last[k]) for k, v in times.items()}


cpu_times: dict[str, list[float]] = {}


def low_rank_case(n: int, d: int, K: int, L: int, repeats: int, threads: int,
                  seeds: list[int], peer_n_init: int | None = None) -> None:
    X, y = make_blobs(n, d, centers=K, cluster_std=4.0, random_state=0)
    Xc = X - X.mean(axis=0)
    gamma = resolve_gamma("scale", Xc)
    X32 = X.astype(np.float32)

    def ours(Xin: Any, seed: int) -> Any:
        return lambda: SLMC(K, n_components=L, random_state=seed).fit(Xin)

    def peer(Xin: Any, seed: int, n_init: Any = "auto") -> Any:
        # what a user would run: scikit-learn's defaults (KMeans n_init="auto" = 1 run
        # from k-means++), same gamma, same rank, same seed, same input dtype
        def run() -> Any:
            Phi = Nystroem(gamma=gamma, n_components=L, random_state=seed).fit_transform(Xin)
            return KMeans(K, n_init=n_init, random_state=seed).fit(Phi)
        return run

    names = ["SLMC low rank f64", "Nystroem+KMeans f64", "SLMC low rank f32",
             "Nystroem+KMeans f32"]
    extra = f"Nystroem+KMeans(n_init={peer_n_init}) f32"
    if peer_n_init is not None:
        names.append(extra)
    times: dict[str, list[float]] = {k: [] for k in names}
    aris: dict[str, list[float]] = {k: [] for k in names}
    sweeps: dict[str, list[int]] = {k: [] for k in names}
    cpu_times.clear()
    with threadpool_limits(limits=threads):
        for seed in seeds:
            cases = {names[0]: ours(X, seed), names[1]: peer(X, seed),
                     names[2]: ours(X32, seed), names[3]: peer(X32, seed)}
            if peer_n_init is not None:
                cases[extra] = peer(X32, seed, peer_n_init)
            res = interleave(cases, repeats, all_times=True)
            for name, (ts, est) in res.items():
                times[name] += ts
                aris[name].append(adjusted_rand_score(y, est.labels_))
                sweeps[name].append(int(getattr(est, "n_iter_", 0)))
        maps = interleave({
            "our map f64 (materialised)": lambda: LowRankKernelMap(
                gamma=gamma, n_components=L, random_state=0).fit(Xc).transform(Xc),
            "sklearn Nystroem f64": lambda: Nystroem(gamma=gamma, n_components=L,
                                                     random_state=0).fit_transform(X),
            "our map f32 (materialised)": lambda: LowRankKernelMap(
                gamma=gamma, n_components=L, random_state=0).fit(Xc).transform(
                    Xc.astype(np.float32)),
            "sklearn Nystroem f32": lambda: Nystroem(gamma=gamma, n_components=L,
                                                     random_state=0).fit_transform(X32),
        }, repeats)
    print(f"\n### Low rank, n={n:,} x {d}, K={K}, L={L}, {threads} thread(s), seeds {seeds}, "
          f"load {os.getloadavg()[0]:.1f}\n")
    print("| method | median s | ratio to the peer (KMeans defaults) of the same dtype | "
          "median CPU s | "
          "CPU ratio | ARI per seed | SLMC sweeps / KMeans iterations |")
    print("|---|---|---|---|---|---|---|")
    for i, name in enumerate(names):
        peer_name = names[i - i % 2 + 1] if i < 4 else names[3]
        t = float(np.median(times[name]))
        base = float(np.median(times[peer_name]))
        c = float(np.median(cpu_times[name]))
        cb = float(np.median(cpu_times[peer_name]))
        record(name, peer_name, f"blobs {n} x {d}, K={K}", threads, t / base,
               1.2 if n >= 100_000 else None)
        print(f"| {name} | {t:.2f} | {t / base:.2f} | {c:.2f} | {c / cb:.2f} | "
              f"{', '.join(f'{a:.3f}' for a in aris[name])} | "
              f"{', '.join(map(str, sweeps[name]))} |")
    print("\n| feature map only | median s | ratio to sklearn Nystroem f64 |\n|---|---|---|")
    mb = maps["sklearn Nystroem f64"][0]
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


def memory_case(n: int, d: int, K: int, L: int, dtype: str, iters: int,
                cache_bytes: int | None) -> None:
    """Peak RSS of one low-rank fit, measured in a fresh subprocess (``ru_maxrss``)."""
    cmd = [sys.executable, __file__, "--memory-child", "--n-memory", str(n), "--features",
           str(d), "--clusters", str(K), "--rank", str(L), "--memory-dtype", dtype,
           "--memory-iters", str(iters)]
    if cache_bytes is not None:
        cmd += ["--cache-bytes", str(cache_bytes)]
    print(f"\n$ {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, check=True)


def memory_child(n: int, d: int, K: int, L: int, dtype: str, iters: int,
                 cache_bytes: int | None) -> None:
    import resource

    from marginclust.feature_maps import _low_rank

    if cache_bytes is not None:
        _low_rank.FEATURE_CACHE_BYTES = cache_bytes

    X, _ = make_blobs(n, d, centers=K, cluster_std=4.0, random_state=0)
    if dtype == "float32":
        X = X.astype(np.float32)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    t, est = _timed(lambda: SLMC(K, n_components=L, max_iter=iters, random_state=0).fit(X))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(f"\n### Memory: n={n:,} x {d} ({dtype} input, {X.nbytes / 2**30:.2f} GiB), K={K}, "
          f"L={L}, max_iter={iters} ({est.n_iter_} sweeps), features "
          f"{'streamed' if n * L * X.itemsize > _low_rank.FEATURE_CACHE_BYTES else 'cached'}"
          f": peak RSS of the process "
          f"{peak:.2f} GiB (before the fit, with the data generated: {before:.2f} GiB); "
          f"{t:.0f} s, load {os.getloadavg()[0]:.1f}", flush=True)


def stopping_case(seeds: tuple[int, ...] = (0, 1)) -> None:
    """CA, sweeps and objective at ``tol_memberships`` 1e-4 (old default) and 1e-3."""
    from sklearn.preprocessing import StandardScaler

    from marginclust.datasets import load_dataset
    from marginclust.metrics import clustering_accuracy

    print("\n| data set | CA 1e-4 | CA 1e-3 | sweeps 1e-4 | sweeps 1e-3 "
          "| max rel. J difference | CPU s 1e-4 | CPU s 1e-3 |\n|---|---|---|---|---|---|---|---|")
    for name in ("iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
                 "segmentation"):
        X, y = load_dataset(name)[:2]
        X = StandardScaler().fit_transform(X)
        K = int(np.unique(y).size)
        out = {}
        for tol_u in (1e-4, 1e-3):
            fits = [_timed(lambda s=s, t=tol_u, K=K, X=X:
                           SLMC(K, tol_memberships=t, random_state=s).fit(X)) for s in seeds]
            cpu = sum(_CPU[-len(seeds):])
            out[tol_u] = ([clustering_accuracy(y, est.labels_) for _, est in fits],
                          [est.n_iter_ for _, est in fits],
                          np.array([est.objective_ for _, est in fits]), cpu)
        (ca0, it0, j0, c0), (ca1, it1, j1, c1) = out[1e-4], out[1e-3]
        rel = float(np.max(np.abs(j1 - j0) / np.abs(j0)))
        print(f"| {name} | {np.mean(ca0):.4f} | {np.mean(ca1):.4f} | {it0} | {it1} "
              f"| {rel:.1e} | {c0:.2f} | {c1:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--clusters", type=int, default=10)
    ap.add_argument("--rank", type=int, default=500)
    ap.add_argument("--peer-n-init", type=int, default=None,
                    help="also run the f32 peer with this KMeans n_init (e.g. 10)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0],
                    help="random_state of both sides; accuracy depends on the start, so "
                         "report several")
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--no-low-rank", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--stopping", action="store_true",
                    help="only the tol_memberships study on the shared data sets")
    ap.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache-bytes", type=int, default=None,
                    help="FEATURE_CACHE_BYTES for the memory fit (0: always stream)")
    ap.add_argument("--n-memory", type=int, default=1_000_000)
    ap.add_argument("--memory-dtype", default="float32")
    ap.add_argument("--memory-iters", type=int, default=3,
                    help="sweeps of the memory fit (the peak is reached in the first)")
    args = ap.parse_args()
    if args.memory_child:
        memory_child(args.n_memory, args.features, args.clusters, args.rank,
                     args.memory_dtype, args.memory_iters, args.cache_bytes)
        return
    if args.stopping:
        stopping_case()
        return
    if args.quick:
        args.n, args.repeats, args.threads = 20_000, 1, [1]
    print(f"load average at start {os.getloadavg()}")
    for threads in args.threads:
        if not args.no_low_rank:
            low_rank_case(args.n, args.features, args.clusters, args.rank, args.repeats,
                          threads, args.seeds, args.peer_n_init)
        if not args.no_exact:
            exact_case(2100 if args.quick else None, 1 if args.quick else args.repeats,
                       threads, max_iter=30 if args.quick else 300)
    if args.memory:
        memory_case(args.n_memory, args.features, args.clusters, args.rank,
                    args.memory_dtype, args.memory_iters, args.cache_bytes)


if __name__ == "__main__":
    main()

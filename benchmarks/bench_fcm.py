"""Fuzzy c-means: cost of one iteration against one GEMM, and fit time against scikit-fuzzy.

Speed targets, measured like with like, interleaved in one process (ours, peer,
ours, peer, ...; medians of ``--repeat``; the load average printed beside each row):

1. **One iteration <= 3x one GEMM** at 1e6 x 10, K = 5: the per-iteration time of
   ``FuzzyCMeans(5, init=V0, tol=0, max_iter=N)`` is ``(t(N = 1 + r) - t(N = 1))``
   divided by the difference of the iterations run (``r`` unless a fit reaches an
   exact fixed point first; set-up cancels; ``r = --extra-iterations``, default 20,
   so that the difference is not lost in the noise of a shared machine), against the
   time of the unavoidable product ``X @ V.T`` (n x d times d x K, the input dtype)
   on the same data (median of three calls per repeat); the table also gives the
   ratio of process CPU times (less sensitive to a loaded machine; with 2 threads it
   sums both threads' time, the GEMM's too). With ``tol = 0`` every pass
   but the last stops measuring the membership change after the first block (it
   exceeds ``tol``); a fully measured pass costs one more difference and ``i?amax``
   over the memberships.
2. **At least 8x scikit-fuzzy** (``skfuzzy.cmeans``) at 20k x 10, K = 5: the same
   initial memberships ``U0`` (Dirichlet, seed 0) and the same stopping rule: both
   run exactly ``max_iter`` iterations (``tol = 0`` / ``error = 0``), so both compute
   the same iterates; the largest centre difference is printed as a check. A second
   row lets each stop at its own rule with tolerance 1e-5 (ours: largest membership
   change; scikit-fuzzy: Frobenius norm of the change).

3. With ``--baseline-src OLD/src``: one iteration of the solver
   (:func:`marginclust.solvers._fuzzy.fuzzy_alternation`, same centred data, same
   start, ``tol = 0``) of the current code against the code under ``OLD/src``
   (imported in this process as ``marginclust_base``), interleaved, process CPU
   time, both dtypes, 1 thread: the ratio old / new (> 1: the current code is faster).
   Make ``OLD`` with ``git worktree add /tmp/fcm_old <commit>`` or ``git archive``.

Usage::

    python benchmarks/bench_fcm.py --quick     # 2e5-row GEMM ratio, 20k skfuzzy, 1 thread
    python benchmarks/bench_fcm.py             # 1e6 rows, 1 and 2 threads
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _ratios import record
from threadpoolctl import threadpool_limits

from marginclust import FuzzyCMeans
from marginclust.exceptions import ConvergenceWarning

try:
    import skfuzzy

    HAVE_SKFUZZY = True
except ImportError:  # pragma: no cover - optional peer
    HAVE_SKFUZZY = False


def make_data(n: int, d: int = 10, k: int = 5, dtype=np.float64) -> np.ndarray:
    rng = np.random.RandomState(0)
    centres = rng.randn(k, d) * 3
    X = centres[rng.randint(0, k, size=n)] + rng.randn(n, d)
    return np.ascontiguousarray(X, dtype=dtype)


def _fit_time(X, init, k, max_iter, tol=0.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = FuzzyCMeans(k, init=init, tol=tol, max_iter=max_iter)
        t0 = time.perf_counter()
        est.fit(X)
        return time.perf_counter() - t0, est


def _fit_times(X, init, k, max_iter):
    """Wall and process CPU seconds of one fit (tol = 0), and the fitted estimator."""
    c0 = time.process_time()
    t, est = _fit_time(X, init, k, max_iter)
    return t, time.process_time() - c0, est


def iteration_vs_gemm(n: int, threads: int, repeat: int, dtype, k: int = 5, r: int = 20):
    X = make_data(n, k=k, dtype=dtype)
    V0 = X[np.random.RandomState(1).choice(n, k, replace=False)]
    t_iter, t_gemm, c_iter, c_gemm = [], [], [], []
    with threadpool_limits(limits=threads, user_api="blas"):
        for _ in range(repeat):
            t1, c1, e1 = _fit_times(X, V0, k, 1)
            tr, cr, er = _fit_times(X, V0, k, 1 + r)
            n_more = max(1, er.n_iter_ - e1.n_iter_)
            t_iter.append((tr - t1) / n_more)
            c_iter.append((cr - c1) / n_more)
            for _ in range(3):
                c0, t0 = time.process_time(), time.perf_counter()
                X @ V0.T
                t_gemm.append(time.perf_counter() - t0)
                c_gemm.append(time.process_time() - c0)
    it, gm = float(np.median(t_iter)), float(np.median(t_gemm))
    cpu_ratio = float(np.median(c_iter)) / float(np.median(c_gemm))
    name = np.dtype(dtype).name
    record("FCM one iteration", "one GEMM X @ V.T", f"{n} x 10, K={k}, {name}", threads,
           it / gm, 3.0)
    load = "/".join(f"{v:.1f}" for v in os.getloadavg())
    print(
        f"| {n} x 10, K={k} | {np.dtype(dtype).name} | {threads} | {it * 1e3:.1f} | "
        f"{gm * 1e3:.1f} | **{it / gm:.2f}** | {cpu_ratio:.2f} | {load} |",
        flush=True,
    )


def versus_skfuzzy(n: int, threads: int, repeat: int, k: int = 5, m: float = 2.0):
    X = make_data(n, k=k)
    U0 = np.random.RandomState(0).dirichlet(np.ones(k), size=n)
    for mode, tol, max_iter in (("fixed 100 iterations", 0.0, 100), ("own rule, 1e-5", 1e-5, 300)):
        t_ours, t_sk = [], []
        with threadpool_limits(limits=threads, user_api="blas"):
            for _ in range(repeat):
                t, est = _fit_time(X, U0, k, max_iter, tol)
                t_ours.append(t)
                t0 = time.perf_counter()
                cntr, _, _, _, _, p, _ = skfuzzy.cluster.cmeans(
                    X.T, k, m, error=tol, maxiter=max_iter, init=U0.T, seed=0
                )
                t_sk.append(time.perf_counter() - t0)
        diff = float(np.max(np.abs(cntr - est.cluster_centers_)))
        ratio = float(np.median(np.array(t_sk) / np.array(t_ours)))
        record(f"FuzzyCMeans fit, {mode}", "scikit-fuzzy cmeans (same U0)", f"{n} x 10, K={k}",
               threads, ratio, 8.0 if tol == 0.0 else None, better="higher")
        load = "/".join(f"{v:.1f}" for v in os.getloadavg())
        print(
            f"| {n} x 10, K={k} | {mode} | {threads} | {np.median(t_ours):.3f} "
            f"({est.n_iter_}) | {np.median(t_sk):.3f} ({int(p)}) | **{ratio:.1f}x** | "
            f"{diff:.1e} | {load} |",
            flush=True,
        )


def versus_baseline(base_src: str, n: int, repeat: int, m: float = 2.0, r: int = 5) -> None:
    from bench_bmmc import load_baseline

    from marginclust.solvers._fuzzy import fuzzy_alternation as new

    old = load_baseline(base_src)
    import marginclust_base.solvers._fuzzy as old_mod  # noqa: E402  (loaded just above)

    del old
    print(f"\n### One solver iteration, current vs {base_src} (CPU time, 1 thread)\n")
    print("| data | dtype | m | old ms / iteration | new ms / iteration | old / new | load |")
    print("|---|---|---|---|---|---|---|")
    clock = time.process_time
    for dtype in (np.float64, np.float32):
        X = make_data(n, dtype=dtype)
        X -= X.mean(axis=0)
        w = np.ones(n, dtype=dtype)
        V0 = X[np.random.RandomState(1).choice(n, 5, replace=False)] + dtype(0.01)
        times: dict[str, list[float]] = {"old": [], "new": []}
        with threadpool_limits(limits=1, user_api="blas"):
            for _ in range(repeat):
                for name, fn in (("old", old_mod.fuzzy_alternation), ("new", new)):
                    t0 = clock()
                    fn(X, w, m, centres=V0, tol=0.0, max_iter=1)
                    t1 = clock() - t0
                    t0 = clock()
                    fn(X, w, m, centres=V0, tol=0.0, max_iter=1 + r)
                    times[name].append((clock() - t0 - t1) / r)
        to, tn = float(np.median(times["old"])), float(np.median(times["new"]))
        load = "/".join(f"{v:.1f}" for v in os.getloadavg())
        print(f"| {n} x 10, K=5 | {np.dtype(dtype).name} | {m} | {to * 1e3:.1f} | "
              f"{tn * 1e3:.1f} | **{to / tn:.2f}** | {load} |", flush=True)
        record("FCM solver iteration", "the code under --baseline-src",
               f"{n} x 10, K=5, {np.dtype(dtype).name}, m={m}", 1, to / tn, None,
               better="higher")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-gemm", type=int, default=1_000_000)
    parser.add_argument("--n-peer", type=int, default=20_000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--extra-iterations", type=int, default=20,
        help="iterations r between the two fits of the per-iteration time",
    )
    parser.add_argument("--baseline-src", default=None, help="src/ of the code to compare with")
    parser.add_argument("--baseline-m", type=float, nargs="+", default=[2.0])
    args = parser.parse_args(argv)
    if args.quick:
        args.n_gemm, args.threads, args.repeat = 200_000, [1], 3
    print(f"load at start {os.getloadavg()}")
    if args.baseline_src:
        for m in args.baseline_m:
            versus_baseline(args.baseline_src, args.n_gemm, args.repeat, m)
        return
    print("\n### One FCM iteration vs one GEMM (X @ V.T)\n")
    print(
        "| data | dtype | threads | ms / iteration | ms / GEMM | ratio (target <= 3) | "
        "CPU-time ratio | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for threads in args.threads:
        for dtype in (np.float64, np.float32):
            iteration_vs_gemm(args.n_gemm, threads, args.repeat, dtype, r=args.extra_iterations)
    if not HAVE_SKFUZZY:
        print("\nscikit-fuzzy is not installed: peer comparison skipped")
        return
    print("\n### FuzzyCMeans vs scikit-fuzzy cmeans, same U0\n")
    print(
        "| data | stopping | threads | ours s (iters) | skfuzzy s (iters) | "
        "skfuzzy / ours (target >= 8) | max centre diff | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for threads in args.threads:
        versus_skfuzzy(args.n_peer, threads, args.repeat)


if __name__ == "__main__":
    main()

"""Fuzzy c-means fit time: marginclust beside scikit-fuzzy and fuzzy-c-means.

Same data, same m, same iteration cap and the same tolerance value, timed with
threadpoolctl limiting BLAS to 1 and to 2 threads. Two modes:

- ``fixed``: every implementation runs exactly ``max_iter`` iterations (tol 0; the
  fuzzy-c-means package validates ``error >= 1e-9`` in its constructor, so its
  ``error`` is set to 0 afterwards; it draws its own random initial memberships).
  marginclust and scikit-fuzzy start from the same initial memberships, so their
  final centres must agree: the script prints the largest difference as a
  correctness check. This mode compares cost per iteration.
- ``tol``: each runs to its own stopping rule with ``tol = 1e-5`` (marginclust: largest
  membership change; scikit-fuzzy and fuzzy-c-means: Frobenius norm of the change).

Run: ``.venv/bin/python benchmarks/bench_fcm.py [--quick]``. Peers are optional
(extra ``peers``); missing ones are reported and skipped. Timings taken while other
jobs run on the machine are inflated; compare the ratios, which are measured in the
same run.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from marginclust import FuzzyCMeans
from marginclust.datasets import load_dataset
from marginclust.exceptions import ConvergenceWarning

try:
    import skfuzzy

    HAVE_SKFUZZY = True
except ImportError:  # pragma: no cover - optional peer
    HAVE_SKFUZZY = False
try:
    from fcmeans import FCM as FCMPackage

    HAVE_FCMEANS = True
except ImportError:  # pragma: no cover - optional peer
    HAVE_FCMEANS = False


def datasets(quick: bool):
    out = []
    X, y = load_dataset("sk-iris")
    out.append(("iris", X, 3))
    try:
        X, y = load_dataset("pendigits_train")
        out.append(("pendigits_train", X, 10))
    except FileNotFoundError:
        print("pendigits_train not found (set MARGINCLUST_DATA); skipped")
    rng = np.random.RandomState(0)
    n = 20_000 if quick else 100_000
    centres = rng.randn(5, 10) * 3
    Xs = centres[rng.randint(0, 5, size=n)] + rng.randn(n, 10)
    out.append((f"synthetic_{n // 1000}k_x10", Xs, 5))
    return out


def best_time(fn, repeats, *args):
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), result


def run_ours(X, U0, k, m, tol, max_iter):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = FuzzyCMeans(k, m=m, init=U0, tol=tol, max_iter=max_iter).fit(X)
    return est.cluster_centers_, est.n_iter_


def run_skfuzzy(X, U0, k, m, tol, max_iter):
    cntr, u, u0, d, jm, p, fpc = skfuzzy.cluster.cmeans(
        X.T, k, m, error=tol, maxiter=max_iter, init=U0.T, seed=0
    )
    return cntr, p


def run_fcmeans(X, U0, k, m, tol, max_iter):
    fcm = FCMPackage(n_clusters=k, m=m, max_iter=max_iter, error=max(tol, 1e-9), random_state=0)
    if tol == 0:
        fcm.error = 0.0  # its validator demands >= 1e-9; assigning after construction forces
        # exactly max_iter iterations, like the other two in "fixed" mode
    fcm.fit(X)
    return fcm.centers, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k synthetic rows, 1 repeat")
    args = parser.parse_args(argv)
    os.environ.setdefault(
        "MARGINCLUST_DATA", str(Path(__file__).resolve().parents[2] / "shared" / "datasets")
    )
    if not HAVE_SKFUZZY:
        print("scikit-fuzzy is not installed: skipped (pip install scikit-fuzzy)")
    if not HAVE_FCMEANS:
        print(
            "fuzzy-c-means is not installed: skipped (it pins numpy<2; install with "
            "pip install --no-deps fuzzy-c-means pydantic 'typer<0.10' tabulate)"
        )
    m = 2.0
    rows = []
    for name, X, k in datasets(args.quick):
        X = np.ascontiguousarray(X, dtype=np.float64)
        U0 = np.random.RandomState(0).dirichlet(np.ones(k), size=X.shape[0])
        big = X.shape[0] > 50_000
        repeats = 1 if (args.quick or big) else 3
        for mode, tol, max_iter in (("fixed", 0.0, 30 if big else 100), ("tol", 1e-5, 300)):
            for threads in (1, 2):
                with threadpool_limits(limits=threads, user_api="blas"):
                    t_ours, (c_ours, it_ours) = best_time(
                        run_ours, repeats, X, U0, k, m, tol, max_iter
                    )
                    row = {
                        "data": name, "n": X.shape[0], "d": X.shape[1], "k": k, "mode": mode,
                        "threads": threads, "ours_s": t_ours, "ours_iter": it_ours,
                    }
                    if HAVE_SKFUZZY:
                        t_sk, (c_sk, it_sk) = best_time(
                            run_skfuzzy, repeats, X, U0, k, m, tol, max_iter
                        )
                        row.update(skfuzzy_s=t_sk, skfuzzy_iter=int(it_sk))
                        if mode == "fixed":
                            row["max_centre_diff"] = float(np.max(np.abs(c_sk - c_ours)))
                    if HAVE_FCMEANS:
                        t_fc, _ = best_time(
                            run_fcmeans, repeats, X, U0, k, m, tol, max_iter
                        )
                        row["fcmeans_s"] = t_fc
                rows.append(row)
                print(_fmt(row), flush=True)
    print()
    print("| data | n x d, k | mode | BLAS threads | ours s (iter) | skfuzzy s (iter) | "
          "fcmeans s | skfuzzy/ours | fcmeans/ours | centre diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(_md(r))


def _fmt(r):
    parts = [f"{r['data']:>20s} {r['mode']:>5s} thr={r['threads']} ours={r['ours_s']:.4f}s"
             f" ({r['ours_iter']} it)"]
    if "skfuzzy_s" in r:
        parts.append(f"skfuzzy={r['skfuzzy_s']:.4f}s ({r['skfuzzy_iter']} it) "
                     f"ratio={r['skfuzzy_s'] / r['ours_s']:.2f}")
    if "fcmeans_s" in r:
        parts.append(f"fcmeans={r['fcmeans_s']:.4f}s ratio={r['fcmeans_s'] / r['ours_s']:.2f}")
    if "max_centre_diff" in r:
        parts.append(f"centre diff={r['max_centre_diff']:.2e}")
    return "  ".join(parts)


def _md(r):
    sk = f"{r['skfuzzy_s']:.4f} ({r['skfuzzy_iter']})" if "skfuzzy_s" in r else "n/a"
    fc = f"{r['fcmeans_s']:.4f}" if "fcmeans_s" in r else "n/a"
    rs = f"{r['skfuzzy_s'] / r['ours_s']:.2f}" if "skfuzzy_s" in r else "n/a"
    rf = f"{r['fcmeans_s'] / r['ours_s']:.2f}" if "fcmeans_s" in r else "n/a"
    diff = f"{r['max_centre_diff']:.1e}" if "max_centre_diff" in r else ""
    return (f"| {r['data']} | {r['n']} x {r['d']}, {r['k']} | {r['mode']} | {r['threads']} | "
            f"{r['ours_s']:.4f} ({r['ours_iter']}) | {sk} | {fc} | {rs} | {rf} | {diff} |")


if __name__ == "__main__":
    main()

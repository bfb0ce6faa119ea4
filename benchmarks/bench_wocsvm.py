"""Fit time of WOCSVMClustering and OCSVMHardClustering against n, beside scikit-learn peers.

Data: ``make_blobs`` with 3 centres in 4 dimensions, standardised. Methods:
WOC-SVM SC with its defaults (gamma='scale', nu=0.9, sigma=1, GMM init, no
annealing), OC-SVM HC (K-means init), and the peers scikit-learn
GaussianMixture and KMeans (n_init=1), timed in the same run. The sizes grow
until a WOC-SVM fit takes longer than ``--budget`` seconds (default 60); the
largest n that fitted within the budget is printed.

Usage::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_wocsvm.py [--threads 1 2] [--budget 60]
"""

from __future__ import annotations

import argparse
import time
import warnings

from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.mixture import GaussianMixture
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from marginclust.estimators._ocsvm_hard import OCSVMHardClustering
from marginclust.estimators._wocsvm import WOCSVMClustering

SIZES = [1000, 2000, 5000, 10000, 20000, 50000]


def _time(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(X)
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    args = parser.parse_args()
    for threads in args.threads:
        print(f"\n## BLAS threads = {threads}")
        print("| n | WOC-SVM SC s | iters | SVM fits | OC-SVM HC s | GMM s | KMeans s "
              "| WOC/GMM | WOC/KMeans |")
        print("|---|---|---|---|---|---|---|---|---|")
        largest = None
        hc_alive = True
        with threadpool_limits(limits=threads):
            for n in args.sizes:
                X, _ = make_blobs(n_samples=n, centers=3, n_features=4, random_state=0)
                X = StandardScaler().fit_transform(X)
                woc = WOCSVMClustering(3, random_state=0)
                t_woc = _time(woc, X)
                t_hc = float("nan")
                if hc_alive:
                    t_hc = _time(OCSVMHardClustering(3, random_state=0), X)
                    hc_alive = t_hc <= args.budget
                t_gmm = _time(GaussianMixture(3, random_state=0), X)
                t_km = _time(KMeans(3, n_init=1, random_state=0), X)
                print(
                    f"| {n} | {t_woc:.2f} | {woc.n_iter_} | {woc.n_fits_} | {t_hc:.2f} | "
                    f"{t_gmm:.3f} | {t_km:.3f} | {t_woc / t_gmm:.0f}x | {t_woc / t_km:.0f}x |",
                    flush=True,
                )
                if t_woc <= args.budget:
                    largest = n
                else:
                    break
        print(f"\nLargest n fitted by WOC-SVM SC within {args.budget:.0f} s: {largest}")


if __name__ == "__main__":
    main()

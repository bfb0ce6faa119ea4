"""Label-free defaults of WOC-SVM / OC-SVM hard clustering against KMeans(n_init=10).

The brief's protocol: standardise the features, fit at the defaults (or at the
parameters given as JSON) with seeds 0 and 1, Hungarian clustering accuracy;
KMeans(n_clusters=K, n_init=10) from the same seeds. Labels only score.

Usage::

    MARGINCLUST_DATA=/path/to/datasets OMP_NUM_THREADS=1 \\
        python benchmarks/bench_wocsvm_defaults.py [--method ocsvm-hc] [JSON params]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

from marginclust import OCSVMHardClustering, WOCSVMClustering
from marginclust.datasets import load_dataset
from marginclust.metrics import clustering_accuracy

SETS = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc", "segmentation"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("params", nargs="?", default="{}", help="JSON of estimator parameters")
    parser.add_argument("--method", choices=["wocsvm", "ocsvm-hc"], default="wocsvm")
    parser.add_argument("--sets", nargs="+", default=SETS)
    args = parser.parse_args()
    params = json.loads(args.params)
    cls = WOCSVMClustering if args.method == "wocsvm" else OCSVMHardClustering
    print(f"# {cls.__name__}({params}) vs KMeans(n_init=10), standardised, seeds 0 and 1 "
          f"(load {os.getloadavg()[0]:.1f})")
    print("| set | KMeans CA | ours CA | collapsed fits | seconds |")
    print("|---|---|---|---|---|")
    km_all, ours_all = [], []
    for name in args.sets:
        X, y = load_dataset(name)
        X = StandardScaler().fit_transform(X)
        k = len(np.unique(y))
        km, ours, collapsed, secs = [], [], 0, 0.0
        for seed in (0, 1):
            ref = KMeans(k, n_init=10, random_state=seed).fit(X)
            km.append(clustering_accuracy(y, ref.labels_))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                est = cls(k, random_state=seed, **params).fit(X)
                secs += time.perf_counter() - t0
            ours.append(clustering_accuracy(y, est.labels_))
            collapsed += est.n_clusters_found_ < k
        km_all.append(np.mean(km))
        ours_all.append(np.mean(ours))
        print(f"| {name} | {km_all[-1]:.3f} | {ours_all[-1]:.3f} | {collapsed}/2 | {secs:.1f} |",
              flush=True)
    k_arr, o_arr = np.array(km_all), np.array(ours_all)
    print(f"| mean | {k_arr.mean():.3f} | {o_arr.mean():.3f} | wins {(o_arr > k_arr + 1e-9).sum()}"
          f" losses {(o_arr < k_arr - 1e-9).sum()} | load {os.getloadavg()[0]:.1f} |")


if __name__ == "__main__":
    main()

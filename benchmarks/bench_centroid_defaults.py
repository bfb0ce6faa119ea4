"""Label-free defaults of the centre-based estimators (PKM, FCM, kernel FCM, kernel K-means).

The brief's protocol: features standardised, every estimator at its defaults with
``n_clusters`` = the number of classes, seeds 0 and 1, Hungarian clustering accuracy
(labels only score the result) beside ``KMeans(n_clusters, n_init=10)``; plus the
same for ``KMeans(n_init=1)`` from the seed PKM uses and kernel settings at multiples
of the default width (to show how flat the default is). Also checks that labels are
unchanged when X is multiplied by 1e-3 and 1e3 (scale-free defaults).

Usage::

    python benchmarks/bench_centroid_defaults.py [--sets iris wine ...]
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

from marginclust import PKM, FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans
from marginclust.datasets import load_dataset
from marginclust.metrics import clustering_accuracy

SETS = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc", "segmentation"]
METHODS = {
    "KMeans(n_init=10)": lambda k, s: KMeans(k, n_init=10, random_state=s),
    "PKM": lambda k, s: PKM(k, random_state=s),
    "FCM": lambda k, s: FuzzyCMeans(k, random_state=s),
    "KernelFCM": lambda k, s: KernelFuzzyCMeans(k, random_state=s),
    "KernelKMeans": lambda k, s: KernelKMeans(k, random_state=s),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=SETS)
    args = parser.parse_args()
    print(f"load {os.getloadavg()}")
    names = list(METHODS)
    print("| set | " + " | ".join(names) + " | scale-invariant (1e-3, 1e3) |")
    print("|---|" + "---|" * (len(names) + 1))
    means = {m: [] for m in names}
    for name in args.sets:
        X, y = load_dataset(name)
        X = StandardScaler().fit_transform(X)
        k = len(np.unique(y))
        cells, invariant = [], True
        for mname, make in METHODS.items():
            accs = []
            for seed in (0, 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = make(k, seed).fit(X)
                    accs.append(clustering_accuracy(y, est.labels_))
                    if mname != "KMeans(n_init=10)":
                        for f in (1e-3, 1e3):
                            other = make(k, seed).fit(X * f)
                            invariant &= bool(np.array_equal(other.labels_, est.labels_))
            means[mname].append(np.mean(accs))
            cells.append(f"{np.mean(accs):.3f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {'yes' if invariant else 'NO'} |",
              flush=True)
    print("| **mean** | " + " | ".join(f"**{np.mean(means[m]):.3f}**" for m in names) + " | |")


if __name__ == "__main__":
    main()

"""Do better starts or more restarts lift BMMC / CPMMC / EMMC above K-means without labels?

Two label-free studies at each estimator's defaults (standardised features, seeds 0 and
1, Hungarian CA against ``KMeans(n_clusters=K, n_init=10)``; labels only score):

- ``--study restarts``: ``n_init=1`` against ``n_init=5`` (restarts kept by the
  method's own objective, as KMeans keeps the lowest SSE);
- ``--study kmeans-start``: BMMC / CPMMC started from one k-means run (the default)
  against the best of ten k-means runs, i.e. from the partition the KMeans column
  returns.

Usage::

    MARGINCLUST_DATA=../shared/datasets python benchmarks/label_free_starts.py \\
        --study restarts --methods bmmc,cpmmc,emmc
    MARGINCLUST_DATA=../shared/datasets python benchmarks/label_free_starts.py \\
        --study kmeans-start --methods bmmc,cpmmc
"""

from __future__ import annotations

import argparse
import os
import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

import marginclust as mc
import marginclust.starts._linear as mmc_init
from marginclust.datasets import load_dataset
from marginclust.metrics import clustering_accuracy

SETS = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
        "segmentation"]
CLASSES = {"bmmc": mc.BMMC, "cpmmc": mc.CPMMC, "emmc": mc.EMMC}
SEEDS = (0, 1)


def _ca(make: Any, X: np.ndarray, y: np.ndarray) -> float:
    cas = []
    for s in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cas.append(clustering_accuracy(y, make(s).fit(X).labels_))
    return float(np.mean(cas))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", choices=["restarts", "kmeans-start"], required=True)
    ap.add_argument("--methods", default="bmmc,cpmmc")
    a = ap.parse_args()
    print(f"study {a.study}, seeds {SEEDS}, load {os.getloadavg()}")
    for method in a.methods.split(","):
        cls = CLASSES[method]
        arms = ("n_init=1", "n_init=5") if a.study == "restarts" else ("1 k-means run",
                                                                       "best of 10 runs")
        print(f"\n| {method} | {arms[0]} | {arms[1]} | KMeans(n_init=10) |\n|---|---|---|---|")
        means: dict[str, list[float]] = {arm: [] for arm in (*arms, "km")}
        for name in SETS:
            X, y = load_dataset(name)[:2]
            X = StandardScaler().fit_transform(X)
            K = int(np.unique(y).size)
            means["km"].append(_ca(lambda s, K=K: KMeans(K, n_init=10, random_state=s), X, y))
            for i, arm in enumerate(arms):
                if a.study == "restarts":
                    n_init = 5 if i else 1
                    ca = _ca(lambda s, K=K, n=n_init, c=cls: c(K, n_init=n, random_state=s), X, y)
                else:
                    runs = 10 if i else 1
                    real = mmc_init.KMeans
                    # the start's k-means, looked up in the start module, with `runs` restarts
                    mmc_init.KMeans = (lambda *p, r=runs, km=real, n_init=1, **k:
                                       km(*p, n_init=r, **k))
                    try:
                        ca = _ca(lambda s, K=K, c=cls: c(K, random_state=s), X, y)
                    finally:
                        mmc_init.KMeans = real
                means[arm].append(ca)
            print(f"| {name} | {means[arms[0]][-1]:.3f} | {means[arms[1]][-1]:.3f} "
                  f"| {means['km'][-1]:.3f} |")
        print(f"| mean | {np.mean(means[arms[0]]):.4f} | {np.mean(means[arms[1]]):.4f} "
              f"| {np.mean(means['km']):.4f} |")


if __name__ == "__main__":
    main()

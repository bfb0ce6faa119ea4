"""Label-free EMMC / IterSVR / IterSVM defaults vs KMeans(n_init=10), 8 shared sets.

Protocol of the brief: StandardScaler, fit at defaults with seeds 0 and 1, Hungarian
clustering accuracy; labels only score the result. Also the former EMMC defaults
(C=500, balance=0.03) for comparison. Takes about 2 minutes on a quiet machine.

    python benchmarks/emmc_label_free.py
"""

import os
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from marginclust import EMMC, IterSVM, IterSVR
from marginclust.datasets import load_dataset
from marginclust.metrics import clustering_accuracy

warnings.simplefilter("ignore")
sets = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc", "segmentation"]
out = {}
with threadpool_limits(1):
    for name in sets:
        X, y = load_dataset(name)
        X = StandardScaler().fit_transform(X)
        k = len(np.unique(y))
        r = {
            "KMeans(n_init=10)": [],
            "EMMC (was: C=500, bal .03)": [],
            "EMMC defaults": [],
            "IterSVR": [],
            "IterSVM": [],
        }
        for s in (0, 1):
            r["KMeans(n_init=10)"].append(
                clustering_accuracy(y, KMeans(k, n_init=10, random_state=s).fit(X).labels_)
            )
            r["EMMC (was: C=500, bal .03)"].append(
                clustering_accuracy(
                    y, EMMC(k, C=500.0, balance=0.03, random_state=s).fit(X).labels_
                )
            )
            r["EMMC defaults"].append(
                clustering_accuracy(y, EMMC(k, random_state=s).fit(X).labels_)
            )
            if k == 2:
                r["IterSVR"].append(clustering_accuracy(y, IterSVR(random_state=s).fit(X).labels_))
                r["IterSVM"].append(clustering_accuracy(y, IterSVM(random_state=s).fit(X).labels_))
        out[name] = {a: (float(np.mean(b)) if b else float("nan")) for a, b in r.items()}
        print(name, {a: round(b, 3) for a, b in out[name].items()}, os.getloadavg()[0], flush=True)
cols = list(next(iter(out.values())))
print("| set | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for name, o in out.items():
    print(
        f"| {name} | " + " | ".join("-" if np.isnan(o[c]) else f"{o[c]:.3f}" for c in cols) + " |"
    )
print(
    "| mean (8 sets) | "
    + " | ".join(
        f"{np.nanmean([o[c] for o in out.values()]):.3f}" if c in cols[:3] else "-" for c in cols
    )
    + " |"
)
print(
    "| wins/losses vs KMeans | "
    + " | ".join(
        f"{sum(o[c] > o[cols[0]] + 1e-9 for o in out.values())}/"
        f"{sum(o[c] < o[cols[0]] - 1e-9 for o in out.values())}"
        for c in cols
    )
    + " |"
)

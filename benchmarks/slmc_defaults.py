"""Choose SLMC / IterativeLSSVM defaults without labels (labels only score the result).

Protocol (the shared brief's): standardise the features, fit each candidate
configuration with seeds 0 and 1, score with the Hungarian clustering accuracy
against ``KMeans(n_clusters=K, n_init=10)`` from the same seeds, and count
collapsed fits (fewer non-empty clusters than asked, or a cluster below
``marginclust.utils.min_cluster_size``). Candidates are scale-free rules only
(``gamma`` in {"scale", "sigma0"}), so whatever wins is invariant to a uniform
rescaling of X; the default is the candidate with the best MEAN accuracy over
all sets (one configuration for every set, never picked per set).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/slmc_defaults.py [--quick] [--seeds 0 1]
        [--datasets iris wine ...] [--configs "scale,1,fcm-sharp" ...]
    OMP_NUM_THREADS=1 python benchmarks/slmc_defaults.py --lssvm

``--quick``: iris and wine, seed 0, three candidates (well under a minute).
Prints Markdown tables; timings are not the point here.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

from marginclust import SLMC, IterativeLSSVM
from marginclust.datasets import load_dataset
from marginclust.metrics import clustering_accuracy
from marginclust.utils import degeneracy

SETS = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
        "segmentation"]
GAMMAS = ("scale", "sigma0")
LAMS = (1.0, 10.0, 100.0)
INITS = ("fcm-sharp", "k-means++", "k-means")
LSSVM_SETS = ["ionosphere", "heart_statlog", "wdbc"]


def _load(name: str) -> tuple[np.ndarray, np.ndarray, int]:
    X, y = load_dataset(name)[:2]
    return StandardScaler().fit_transform(X), y, int(np.unique(y).size)


def _fit(make, X, y, K, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(seed).fit(X)
    return clustering_accuracy(y, est.labels_), degeneracy(est.labels_, K).degenerate


def kmeans_row(data, seeds):
    out = {}
    for name, (X, y, K) in data.items():
        out[name] = float(np.mean([
            clustering_accuracy(y, KMeans(K, n_init=10, random_state=s).fit(X).labels_)
            for s in seeds]))
    return out


def parse_config(text: str) -> tuple[str, float, str]:
    g, lam, init = text.split(",")
    return g, float(lam), init


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    ap.add_argument("--configs", nargs="*", default=None,
                    help='candidates as "gamma,lam,init" (default: the full grid)')
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--lssvm", action="store_true", help="IterativeLSSVM on binary sets")
    args = ap.parse_args()
    seeds = [0] if args.quick else args.seeds
    if args.lssvm:
        sets = args.datasets or LSSVM_SETS
        configs = [(g, lam, "k-means") for g in GAMMAS for lam in (0.1, 1.0)]
    else:
        sets = args.datasets or (["iris", "wine"] if args.quick else SETS)
        if args.configs:
            configs = [parse_config(c) for c in args.configs]
        elif args.quick:
            configs = [("scale", 1.0, "fcm-sharp"), ("scale", 10.0, "fcm-sharp"),
                       ("sigma0", 10.0, "fcm-sharp")]
        else:
            configs = [(g, lam, i) for g in GAMMAS for lam in LAMS for i in INITS]
    data = {name: _load(name) for name in sets}
    print(f"load average {os.getloadavg()}; seeds {seeds}; standardised features; "
          "Hungarian CA (mean over seeds); collapsed = degenerate fits of "
          f"{len(seeds) * len(sets)}\n")
    km = kmeans_row(data, seeds)
    print("| method | " + " | ".join(sets) + " | mean | wins/losses vs KMeans | collapsed | s |")
    print("|---|" + "---|" * (len(sets) + 4))
    print("| KMeans(n_init=10) | " + " | ".join(f"{km[s]:.3f}" for s in sets)
          + f" | {np.mean(list(km.values())):.3f} | | | |", flush=True)
    for g, lam, init in configs:
        t0 = time.perf_counter()
        row, collapsed = {}, 0
        for name, (X, y, K) in data.items():
            if args.lssvm:
                def make(seed, K=K, g=g, lam=lam):
                    return IterativeLSSVM(K, gamma=g, lam=lam, random_state=seed)
            else:
                def make(seed, K=K, g=g, lam=lam, init=init):
                    return SLMC(K, gamma=g, lam=lam, init=init, random_state=seed)
            res = [_fit(make, X, y, K, s) for s in seeds]
            row[name] = float(np.mean([r[0] for r in res]))
            collapsed += sum(r[1] for r in res)
        wins = sum(row[s] > km[s] + 1e-9 for s in sets)
        losses = sum(row[s] < km[s] - 1e-9 for s in sets)
        label = f"{'LSSVM' if args.lssvm else 'SLMC'} gamma={g} lam={lam:g}" + (
            "" if args.lssvm else f" init={init}")
        print(f"| {label} | " + " | ".join(f"{row[s]:.3f}" for s in sets)
              + f" | {np.mean(list(row.values())):.3f} | {wins}/{losses} | {collapsed} | "
              f"{time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()

"""MaxMarginClustering's ``scale="auto"`` beside ``"none"`` and ``"standard"``, K given.

Raw tables (the shared UCI-like sets as the loader gives them, in their own units,
and scikit-learn's digits) and shape data (the shared battery, "original"
preprocessing), each fitted once per setting with K = the number of classes (the
battery: each reference's K, a set's score the best over its references) and
``random_state=0``. Printed per set: the column spread ratio, what ``"auto"``
resolved to, and the normalised clustering accuracy (NCA) under each setting. A
fit whose scaling is the same as another's is the same fit and is not repeated.

Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scale_default.py \\
        [--root DIR --batteries uci,other] [--tables-only | --battery-only]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _battery import list_sets, load_set, preprocess  # noqa: E402

from marginclust import MaxMarginClustering  # noqa: E402
from marginclust.metrics import normalized_clustering_accuracy as nca  # noqa: E402
from marginclust.utils._preprocessing import column_spread_ratio, resolve_scaling  # noqa: E402

SETTINGS = ("auto", "none", "standard")


def tables() -> list[tuple[str, np.ndarray, list[np.ndarray]]]:
    """The shared UCI-like sets in their own units, and scikit-learn's digits."""
    from sklearn.datasets import load_digits

    from marginclust.datasets import list_datasets, load_dataset

    home = os.environ.get("MARGINCLUST_DATA") or str(HERE.parents[1] / "shared" / "datasets")
    out = []
    for info in list_datasets(home):
        if info["where"] in ("sklearn", "synthetic") or info["n_samples"] > 3000:
            continue
        X, y = load_dataset(info["name"], data_home=home)
        out.append((f"table/{info['name']}", np.asarray(X, float), [np.asarray(y) + 1]))
    X, y = load_digits(return_X_y=True)
    out.append(("table/sklearn-digits", X.astype(float), [y + 1]))
    return out


def battery(root: str | None, batteries: tuple[str, ...]) -> list[tuple[str, np.ndarray,
                                                                         list[np.ndarray]]]:
    return [(key, preprocess((ds := load_set(key, root=root)).X), list(ds.references))
            for key in list_sets(batteries, max_samples=3000, root=root)]


def fit_set(X: np.ndarray, refs: list[np.ndarray]) -> dict[str, float]:
    """NCA per setting (the best over the references); settings resolving alike share a fit."""
    done: dict[str, float] = {}
    scores = {}
    for setting in SETTINGS:
        how = resolve_scaling(X, setting)
        if how not in done:
            best = 0.0
            for ref in refs:
                keep = ref > 0
                k = len(np.unique(ref[keep]))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    labels = MaxMarginClustering(k, scale=how, random_state=0).fit(X).labels_
                best = max(best, float(nca(ref[keep], labels[keep])))
            done[how] = best
        scores[setting] = done[how]
    return scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None, help="another battery root (e.g. a held-out one)")
    ap.add_argument("--batteries", default="fcps,graves,wut")
    ap.add_argument("--tables-only", action="store_true")
    ap.add_argument("--battery-only", action="store_true")
    args = ap.parse_args()
    groups = []
    if not args.battery_only:
        groups.append(("tables", tables()))
    if not args.tables_only:
        groups.append(("battery", battery(args.root, tuple(args.batteries.split(",")))))
    print("| set | spread ratio | auto is | " + " | ".join(SETTINGS) + " |")
    print("|---|---|---|" + "---|" * len(SETTINGS))
    for group, sets in groups:
        means = np.zeros(len(SETTINGS))
        for name, X, refs in sets:
            s = fit_set(X, refs)
            ratio = column_spread_ratio(X)
            means += [s[k] for k in SETTINGS]
            print(f"| {name} | {ratio or float('nan'):,.1f} | {resolve_scaling(X, 'auto')} | "
                  + " | ".join(f"{s[k]:.3f}" for k in SETTINGS) + " |", flush=True)
        print(f"| **{group} mean ({len(sets)})** | | | "
              + " | ".join(f"**{m / len(sets):.3f}**" for m in means) + " |", flush=True)


if __name__ == "__main__":
    main()

"""How deep a valley the data can show: an oracle bound for touching clusters.

``MaxMarginClustering(n_clusters="auto")`` keeps a boundary between two clusters
when, among other things, the density there is at most two thirds of the
clusters' (``VALLEY = 1.5``), read at the lower end of a confidence interval so
that data without clusters give one cluster. This study asks, for the pairs of
clusters the rule merges, whether *any* test of that kind could have shown the
valley from the sample at hand.

The test is given every advantage (labels are used: this is an oracle, not a
label-free rule). The union of two reference clusters is projected on the line
through their means (where two Gaussians' valley is deepest); for a half-width
``h`` the points within ``h`` of each cluster's projected mean are counted, and
within ``h`` of every position between the two means, of which the sparsest is
taken as the saddle; ``h`` runs over a grid and the best is kept. The valley's
point estimate is the smaller mode count over the saddle count, and its lower
bound the one-sided 97.5 % Clopper-Pearson bound of that ratio (the saddle's
count out of both; the same interval as the neck's reading in
``marginclust.starts._separation``). Picking the saddle and ``h`` after seeing
the data makes the bound optimistic: the null rows (uniform and Gaussian data
cut at a median) show how far above 1 it then reads where there is no valley.

Cases: scikit-learn's default spread (``make_blobs(1000, 2, centers=c,
random_state=s)``), every pair of blobs that are each other's nearest; the
battery's ``wut/mk3`` and ``wut/x3`` (its three-cluster reference); null data.

Run with one BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/valley_power.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import beta
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _battery import load_set  # noqa: E402

CONFIDENCE = 0.975
HALF_WIDTHS = np.linspace(0.2, 1.6, 15)  # in sd of the clusters along the line
POSITIONS = 41  # candidate saddles between the two means


def valley_bound(A: np.ndarray, B: np.ndarray) -> tuple[float, float, float]:
    """The oracle's best valley lower bound for clusters ``A`` and ``B``.

    Returns the lower bound, the point estimate at the same ``h``, and the
    distance between the means in the clusters' pooled sd along the line.
    """
    ma, mb = A.mean(axis=0), B.mean(axis=0)
    gap = float(np.linalg.norm(mb - ma))
    u = (mb - ma) / gap
    pa, pb = A @ u, B @ u
    sd = float(np.sqrt((pa.var() + pb.var()) / 2))
    p = np.sort(np.concatenate([pa, pb]))
    ca, cb = float(pa.mean()), float(pb.mean())
    best = (0.0, 0.0)
    for h in HALF_WIDTHS * sd:
        def count(t: float, h: float = h) -> int:
            return int(np.searchsorted(p, t + h, "right") - np.searchsorted(p, t - h, "left"))
        modes = min(count(ca), count(cb))
        places = np.linspace(ca + h, cb - h, POSITIONS) if cb - ca > 2 * h else [(ca + cb) / 2]
        saddle = min(count(t) for t in places)
        n = modes + saddle
        upper = float(beta.ppf(CONFIDENCE, saddle + 1, n - saddle)) if saddle < n else 1.0
        lower = (1 - upper) / upper
        if lower > best[0]:
            best = (lower, modes / max(saddle, 1))
    return best[0], best[1], gap / sd


def nearest_pairs(X: np.ndarray, y: np.ndarray) -> list[tuple[int, int]]:
    """Each class with the class whose mean is nearest its own (indices into the classes)."""
    classes = np.unique(y)
    means = np.array([X[y == c].mean(axis=0) for c in classes])
    D = np.linalg.norm(means[:, None] - means[None], axis=2)
    np.fill_diagonal(D, np.inf)
    nearest = D.argmin(axis=1)
    pairs = {(min(i, int(j)), max(i, int(j))) for i, j in enumerate(nearest)}
    return sorted(pairs, key=lambda ij: D[ij])


def rows(cases: list[tuple[str, np.ndarray, np.ndarray]]) -> list[str]:
    """One table row per nearest pair of every case."""
    out = []
    for name, X, y in cases:
        classes = np.unique(y)
        for i, j in nearest_pairs(X, y):
            A, B = X[y == classes[i]], X[y == classes[j]]
            lower, point, apart = valley_bound(A, B)
            out.append(f"| {name} | {classes[i]}-{classes[j]} | {len(A)}+{len(B)} | {apart:.2f} "
                       f"| {point:.2f} | {lower:.2f} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="the battery's root")
    parser.add_argument("--defaults", default="c3/s0,c3/s4,c3/s5,c5/s0,c5/s2,c5/s5,c5/s8,"
                        "c5/s9,c8/s6,c3/s1,c3/s3", help="default-spread cases, c<K>/s<seed>")
    args = parser.parse_args(argv)
    cases = []
    for key in args.defaults.split(","):
        c, s = key[1:].split("/s")
        X, y = make_blobs(1000, 2, centers=int(c), random_state=int(s))
        cases.append((f"default {key}", X, y))
    for key, which in (("wut/mk3", 0), ("wut/x3", 1)):
        data = load_set(key, root=args.root)
        y = data.references[which]
        keep = y > 0
        cases.append((f"battery {key}", data.X[keep], y[keep]))
    rng = np.random.RandomState(0)
    for d, n in ((2, 1000), (2, 400), (3, 600)):
        for kind in ("uniform", "gaussian"):
            X = rng.uniform(size=(n, d)) if kind == "uniform" else rng.standard_normal((n, d))
            y = (X[:, 0] > np.median(X[:, 0])).astype(int)
            cases.append((f"null {kind} {n}x{d}", X, y))
    print("| case | pair | points | means apart (sd) | valley (oracle) | lower bound |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows(cases)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

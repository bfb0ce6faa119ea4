"""Genie by its literal definition (Gagolewski, Bartoszuk & Cena 2016), for small data.

Every step recomputes the single-linkage distance of every pair of current
clusters from the full distance matrix, and merges the closest pair, restricted
to pairs with a cluster of the smallest current size whenever the Gini index of
the sizes exceeds the threshold. O(n^4): a reference for the MST-based solver.
"""

from __future__ import annotations

import numpy as np


def genie_bruteforce(X: np.ndarray, n_clusters: int, gini_threshold: float) -> np.ndarray:
    """Labels (numbered by first appearance) of Genie's partition into ``n_clusters``."""
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    clusters = [[i] for i in range(n)]
    while len(clusters) > n_clusters:
        k = len(clusters)
        sizes = [len(c) for c in clusters]
        numerator = sum(abs(a - b) for i, a in enumerate(sizes) for b in sizes[i + 1:])
        restricted = k > 1 and numerator > gini_threshold * (k - 1) * n
        smallest = min(sizes)
        best, pair = np.inf, None
        for i in range(k):
            for j in range(i + 1, k):
                if restricted and smallest not in (sizes[i], sizes[j]):
                    continue
                d = D[np.ix_(clusters[i], clusters[j])].min()
                if d < best:
                    best, pair = d, (i, j)
        assert pair is not None
        i, j = pair
        clusters[i] = clusters[i] + clusters[j]
        del clusters[j]
    labels = np.empty(n, dtype=np.intp)
    for c, members in enumerate(sorted(clusters, key=min)):
        labels[members] = c
    return labels

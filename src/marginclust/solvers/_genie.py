"""Genie hierarchical clustering on the Euclidean minimum spanning tree.

Genie (Gagolewski, Bartoszuk & Cena, Information Sciences 363, 2016) is single
linkage with a guard against outliers and chaining: it merges clusters
bottom-up, each time the pair at the smallest single-linkage distance, except
that whenever the Gini index of the current cluster sizes exceeds a threshold
``g``, only pairs in which at least one cluster is of the smallest current size
may merge. It is written here from the paper's definition.

Why the minimum spanning tree suffices: clusters merged along tree edges stay
subtrees, and by the cut property the shortest distance from a cluster ``A`` to
the rest of the data is the shortest tree edge leaving ``A``. The closest pair
overall is hence the shortest tree edge joining two clusters, and the closest
pair with a smallest cluster the shortest tree edge leaving a smallest cluster
(every tree edge not yet used joins two clusters, since the tree has no cycle).
With distinct distances this is the paper's rule exactly;
``tests/_oracles/genie_bruteforce.py`` checks it against the literal
definition on small data. Prior validation of the inputs is assumed throughout
this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["SpanningTree", "euclidean_mst", "genie_labels"]


@dataclass(frozen=True)
class SpanningTree:
    """A spanning tree as ``n - 1`` edges ``(u, v)`` with lengths, shortest first.

    Parameters
    ----------
    u, v : ndarray of shape (n_samples - 1,)
        End points of each edge.
    length : ndarray of shape (n_samples - 1,)
        Euclidean length of each edge, non-decreasing.
    """

    u: npt.NDArray[np.intp]
    v: npt.NDArray[np.intp]
    length: npt.NDArray[np.float64]

    @property
    def n_samples(self) -> int:
        """Number of points the tree spans."""
        return int(self.u.size) + 1


def euclidean_mst(X: npt.NDArray[np.floating]) -> SpanningTree:
    """Euclidean minimum spanning tree by Prim's algorithm, O(n^2 d) time, O(n d) memory.

    Dense Prim suits the complete distance graph: it never stores the n x n
    distance matrix, one row of squared distances per added point. Equal
    distances are resolved by the lowest point index, so the tree is a
    deterministic function of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Points (at least one).

    Returns
    -------
    tree : SpanningTree
        The ``n - 1`` edges, sorted by length (ties kept in the order added).

    Examples
    --------
    >>> import numpy as np
    >>> tree = euclidean_mst(np.array([[0.0], [1.0], [3.0], [3.5]]))
    >>> tree.length.tolist()
    [0.5, 1.0, 2.0]
    """
    Z = np.asarray(X, dtype=np.float64)
    n = Z.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    best = np.full(n, np.inf)
    parent = np.zeros(n, dtype=np.intp)
    u = np.empty(n - 1, dtype=np.intp)
    v = np.empty(n - 1, dtype=np.intp)
    sq = np.empty(n - 1)
    j = 0
    for step in range(n):
        in_tree[j] = True
        best[j] = np.inf
        if step == n - 1:
            break
        diff = Z - Z[j]
        d2 = np.einsum("ij,ij->i", diff, diff)
        closer = ~in_tree & (d2 < best)
        best[closer] = d2[closer]
        parent[closer] = j
        j = int(np.argmin(best))
        u[step], v[step], sq[step] = parent[j], j, best[j]
    order = np.argsort(sq, kind="stable")
    return SpanningTree(u[order], v[order], np.sqrt(sq[order]))


def _gini_numerator(count: npt.NDArray[np.int64], k: int) -> int:
    """``sum_{i<j} |c_i - c_j|`` from the histogram ``count[s]`` of cluster sizes.

    Sizes sorted increasingly take positions ``1..k``; a size ``s`` held by ``m``
    clusters after ``p`` smaller ones contributes ``s m (2 p + m - k)``.
    """
    s = np.flatnonzero(count)
    m = count[s]
    p = np.cumsum(m) - m
    return int(np.sum(s * m * (2 * p + m - k)))


def genie_labels(
    tree: SpanningTree, n_clusters: int | Iterable[int], gini_threshold: float = 0.3
) -> dict[int, npt.NDArray[np.intp]]:
    """Genie partitions cut from one merge sequence, for one or several numbers of clusters.

    Parameters
    ----------
    tree : SpanningTree
        The Euclidean minimum spanning tree of the points (:func:`euclidean_mst`).
    n_clusters : int or iterable of int
        The number(s) of clusters wanted, each in ``1 .. n_samples``.
    gini_threshold : float, default=0.3
        ``g`` in [0, 1]: while the Gini index of the cluster sizes exceeds it, a
        merge must involve a smallest cluster. ``1`` gives single linkage; 0.3 is
        the paper's recommended value.

    Returns
    -------
    labels : dict of int to ndarray of shape (n_samples,)
        For each wanted number of clusters, the cluster of each point, numbered
        by first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [0.3], [5.0], [5.1], [5.2], [5.3], [20.0]])
    >>> tree = euclidean_mst(X)
    >>> genie_labels(tree, 2, gini_threshold=1.0)[2].tolist()  # single linkage
    [0, 0, 0, 0, 0, 0, 0, 0, 1]
    >>> genie_labels(tree, 2, gini_threshold=0.3)[2].tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 1]
    """
    wanted = sorted({int(n_clusters)} if isinstance(n_clusters, int | np.integer)
                    else {int(k) for k in n_clusters})
    n = tree.n_samples
    comp = np.arange(n)  # cluster id of each point: a member's index
    size = np.ones(n, dtype=np.int64)  # size of the cluster with that id
    count = np.zeros(n + 1, dtype=np.int64)  # number of clusters of each size
    count[1] = n
    remaining = np.arange(n - 1)  # unused tree edges, shortest first
    out: dict[int, npt.NDArray[np.intp]] = {}
    k = n
    g = float(gini_threshold)
    while True:
        if k in wanted:
            _, first, inverse = np.unique(comp, return_index=True, return_inverse=True)
            out[k] = np.argsort(np.argsort(first))[inverse].astype(np.intp)
        if k <= wanted[0]:
            return out
        pos = 0
        if k > 1 and _gini_numerator(count, k) > g * (k - 1) * n:
            smallest = int(np.flatnonzero(count)[0])
            eu, ev = tree.u[remaining], tree.v[remaining]
            touches = (size[comp[eu]] == smallest) | (size[comp[ev]] == smallest)
            pos = int(np.argmax(touches))
        e = remaining[pos]
        remaining = np.delete(remaining, pos)
        a, b = comp[tree.u[e]], comp[tree.v[e]]
        if size[a] < size[b]:
            a, b = b, a
        comp[comp == b] = a
        count[size[a]] -= 1
        count[size[b]] -= 1
        size[a] += size[b]
        count[size[a]] += 1
        k -= 1

"""Flat clusterings cut from a SciPy linkage matrix, for several numbers of clusters at once.

The first ``n - k`` merges of a hierarchy leave exactly ``k`` clusters; the cut
joins, for each of those merges, one member of each merged cluster, and takes the
connected components. O(n) per cut, and ``k`` clusters even when merge heights tie
(``scipy.cluster.hierarchy.fcluster`` with ``maxclust`` may return fewer then).
Prior validation of the inputs is assumed.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

__all__ = ["cut_linkage"]


def cut_linkage(
    linkage_matrix: npt.ArrayLike, n_clusters: Iterable[int]
) -> dict[int, npt.NDArray[np.intp]]:
    """Labels after the first ``n - k`` merges of a linkage matrix, for each ``k``.

    Parameters
    ----------
    linkage_matrix : array-like of shape (n_samples - 1, 4)
        SciPy's linkage matrix (merge ``i`` joins clusters ``Z[i, 0]`` and ``Z[i, 1]``
        into cluster ``n + i``).
    n_clusters : iterable of int
        Numbers of clusters, each in ``1 .. n_samples``.

    Returns
    -------
    labels : dict of int to ndarray of shape (n_samples,)
        The cluster of each point, per number of clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.cluster.hierarchy import linkage
    >>> L = linkage(np.array([[0.0], [0.1], [5.0], [5.2], [9.0]]), "single")
    >>> cut_linkage(L, [2, 3])[3].tolist()
    [0, 0, 1, 1, 2]
    """
    L = np.asarray(linkage_matrix)
    n = L.shape[0] + 1
    leader = np.empty(2 * n - 1, dtype=np.intp)  # one original point of every cluster
    leader[:n] = np.arange(n)
    a, b = L[:, 0].astype(np.intp), L[:, 1].astype(np.intp)
    for i in range(n - 1):
        leader[n + i] = leader[a[i]]
    u, v = leader[a], leader[b]
    out = {}
    for k in n_clusters:
        m = n - int(k)
        graph = sp.coo_matrix((np.ones(m), (u[:m], v[:m])), shape=(n, n))
        out[int(k)] = connected_components(graph, directed=False)[1].astype(np.intp)
    return out

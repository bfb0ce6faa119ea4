"""The spectral start: self-tuning spectral clustering in the data's local geometry.

:func:`spectral_labels`: the leading eigenvectors of the normalised Laplacian of
the locally scaled k-NN graph
(:func:`~marginclust.feature_maps.local_scaling_affinity`; scikit-learn's
:func:`~sklearn.manifold.spectral_embedding`), rows normalised and clustered by
k-means (Ng, Jordan & Weiss 2002). Connected but non-convex groups (rings,
chains, spirals) come out whole, where k-means in input space cuts them.

Above ``max_samples`` rows it works on a seeded subsample (the graph and its
eigenvectors cost grows faster than n); the other rows take the label of their
nearest subsample point (:class:`SampleLabels`).

References
----------
L. Zelnik-Manor and P. Perona, "Self-tuning spectral clustering", NIPS 17, 2004.
A. Y. Ng, M. I. Jordan and Y. Weiss, "On spectral clustering: analysis and an
algorithm", NIPS 14, 2002.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..feature_maps._graph import (
    GRAPH_NEIGHBORS,
    MAX_SAMPLES,
    SCALE_NEIGHBOR,
    _normalised,
    _subsample,
    local_scaling_affinity,
)

__all__ = [
    "SampleLabels",
    "first_appearance_order",
    "nearest_labels",
    "spectral_labels",
    "spectral_sample_labels",
]


def spectral_labels(
    X: npt.ArrayLike,
    n_clusters: int,
    *,
    n_neighbors: int = GRAPH_NEIGHBORS,
    scale_neighbor: int = SCALE_NEIGHBOR,
    max_samples: int = MAX_SAMPLES,
    random_state: int | np.random.RandomState | None = None,
) -> npt.NDArray[np.intp]:
    """Labels of self-tuning spectral clustering: a start in the kernel's own geometry.

    The ``n_clusters`` leading eigenvectors of the normalised Laplacian of
    :func:`local_scaling_affinity` (scikit-learn's
    :func:`~sklearn.manifold.spectral_embedding`), each row scaled to unit norm
    (Ng, Jordan & Weiss), clustered by ``KMeans(n_init=10)``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data.
    n_clusters : int
        Number of clusters (>= 1).
    n_neighbors, scale_neighbor : int, default=10, 7
        See :func:`local_scaling_affinity`.
    max_samples : int, default=2000
        Above this many rows the labels are computed on a seeded subsample and
        every other row takes the label of its nearest subsample point.
    random_state : int, RandomState instance or None, default=None
        Seeds the subsample, the eigensolver's start and k-means.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Integers in ``0 .. n_clusters - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import spectral_labels
    >>> t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    >>> rings = np.vstack([np.c_[np.cos(t), np.sin(t)], 4 * np.c_[np.cos(t), np.sin(t)]])
    >>> labels = spectral_labels(rings, 2, random_state=0)
    >>> len(set(labels[:100])), len(set(labels[100:])), bool(labels[0] != labels[100])
    (1, 1, True)
    """
    rng = check_random_state(random_state)
    if not sp.issparse(X):
        X = np.asarray(X)
    Xs, idx = _subsample(X, int(max_samples), rng)
    sub = spectral_sample_labels(Xs, n_clusters, n_neighbors=n_neighbors,
                                 scale_neighbor=scale_neighbor, random_state=rng)
    if idx is None:
        return sub
    return SampleLabels(Xs, sub).predict(X)


class SampleLabels:
    """Labels of a row sample extended to any row: the label of its nearest sample row.

    How :func:`spectral_labels` labels the rows beyond its sample; a row-block
    fit applies :meth:`predict` block by block (the same labels). Dense rows are
    compared in the sample's normalised units (no overflow at extreme scales).

    Parameters
    ----------
    Xs : {ndarray, sparse matrix} of shape (n_sample, n_features)
        The sample's rows (float).
    labels : ndarray of shape (n_sample,)
        Their labels.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts._spectral import SampleLabels
    >>> SampleLabels(np.array([[0.0], [10.0]]), np.array([0, 1])).predict([[1.0], [8.0]])
    array([0, 1])
    """

    def __init__(self, Xs: Any, labels: npt.NDArray[np.intp]) -> None:
        self.labels = np.asarray(labels, dtype=np.intp)
        if sp.issparse(Xs):
            self.centre, self.unit, self.Zs = None, 1.0, Xs
        else:
            Xs = np.asarray(Xs, dtype=np.float64)
            self.centre = Xs.mean(axis=0)
            _, self.unit = _normalised(Xs)
            self.Zs = (Xs - self.centre) / self.unit

    def predict(self, X: Any) -> npt.NDArray[np.intp]:
        """The label of each row's nearest sample row."""
        if self.centre is None:
            return nearest_labels(X, self.Zs, self.labels)
        X = X.toarray() if sp.issparse(X) else X
        return nearest_labels((np.asarray(X, dtype=np.float64) - self.centre) / self.unit,
                              self.Zs, self.labels)


def first_appearance_order(labels: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The same partition with clusters numbered in the order their first row appears.

    A spectral start's numbering comes from the signs and order of eigenvectors and
    from k-means in the embedding, which the rounding of the eigensolver can permute
    (sparse and dense copies of the same data, another BLAS kernel); a method that
    starts from these labels then ends in the same partition numbered otherwise.
    Numbering by first appearance makes the start depend on the partition only.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts._spectral import first_appearance_order
    >>> first_appearance_order(np.array([2, 2, 0, 1, 0]))
    array([0, 0, 1, 2, 1])
    """
    labels = np.asarray(labels, dtype=np.intp)
    if labels.size == 0:
        return labels
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size, dtype=np.intp)
    return rank[inverse.ravel()]


def spectral_sample_labels(
    Xs: Any,
    n_clusters: int,
    *,
    n_neighbors: int = GRAPH_NEIGHBORS,
    scale_neighbor: int = SCALE_NEIGHBOR,
    random_state: Any = None,
) -> npt.NDArray[np.intp]:
    """:func:`spectral_labels` of every row of ``Xs`` (no subsampling; see there).

    Clusters are numbered in the order their first row appears
    (:func:`first_appearance_order`), so the labels depend on the partition only.

    Repeated rows are merged first (dense ``Xs``): the graph is built on the
    distinct rows, each edge weighted by the product of its ends'
    multiplicities, and k-means in the embedding weighs a row by its
    multiplicity. Without it
    ``n_neighbors`` copies of one point are each other's neighbours at distance
    0, their local scale is 0 and they form a clique cut off from the rest
    (measured: integer-valued data with many repeated rows, breast-cancer
    Wisconsin, lost a whole class to such cliques).
    """
    return first_appearance_order(_spectral_partition(
        Xs, n_clusters, n_neighbors=n_neighbors, scale_neighbor=scale_neighbor,
        random_state=random_state,
    ))


def _spectral_partition(
    Xs: Any,
    n_clusters: int,
    *,
    n_neighbors: int,
    scale_neighbor: int,
    random_state: Any,
) -> npt.NDArray[np.intp]:
    """The partition of :func:`spectral_sample_labels`, in k-means' own numbering."""
    from sklearn.cluster import KMeans
    from sklearn.manifold import spectral_embedding

    rng = check_random_state(random_state)
    n = Xs.shape[0]
    k = int(n_clusters)
    if k <= 1:
        return np.zeros(n, dtype=np.intp)
    inverse = None
    counts = None
    if not sp.issparse(Xs):
        uniq, inverse, counts = np.unique(Xs, axis=0, return_inverse=True, return_counts=True)
        if uniq.shape[0] == n:
            inverse = counts = None
        else:
            Xs, inverse = uniq, inverse.ravel()
    m = Xs.shape[0]
    if m <= k:
        labels = np.minimum(np.arange(m), k - 1).astype(np.intp)
        return labels if inverse is None else labels[inverse]
    Z = _normalised(Xs)[0]
    A = local_scaling_affinity(Z, n_neighbors=n_neighbors, scale_neighbor=scale_neighbor)
    from scipy.sparse.csgraph import connected_components

    n_comp, comp = connected_components(A, directed=False)
    if n_comp > k:
        labels = _merge_components(Z, comp, n_comp, k, counts)
        return labels if inverse is None else labels[inverse]
    if counts is not None:
        c = sp.diags(counts.astype(np.float64))
        A = (c @ A @ c).tocsr()
    with warnings.catch_warnings():
        # a disconnected graph is fine: its components are what the embedding shows
        warnings.simplefilter("ignore", UserWarning)
        E = spectral_embedding(A, n_components=k, drop_first=False, norm_laplacian=True,
                               random_state=rng)
    norms = np.linalg.norm(E, axis=1, keepdims=True)
    E /= np.where(norms > 0, norms, 1.0)
    labels = np.asarray(
        KMeans(k, n_init=10, random_state=rng).fit_predict(E, sample_weight=counts),
        dtype=np.intp,
    )
    return labels if inverse is None else labels[inverse]


def _merge_components(
    Z: Any, comp: npt.NDArray[np.intp], n_comp: int, k: int, counts: Any
) -> npt.NDArray[np.intp]:
    """``k`` groups from a graph of ``n_comp > k`` connected components.

    Every split along components cuts no edge, so the eigenvectors cannot choose
    among them (their null space has ``n_comp`` dimensions and the embedding
    returns an arbitrary basis of it). Of those zero-cut partitions the most
    balanced is kept: the smallest group (by weight) joins the group of its
    nearest point outside it, until ``k`` remain (a small separate group, e.g.
    a few outliers, joins its nearest cluster).
    """
    from sklearn.metrics import pairwise_distances_argmin_min

    weight = np.ones(Z.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
    group = comp.astype(np.intp).copy()
    alive = list(range(n_comp))
    while len(alive) > k:
        mass = {g: float(weight[group == g].sum()) for g in alive}
        g = min(alive, key=lambda a: (mass[a], a))
        inside = group == g
        idx, dist = pairwise_distances_argmin_min(Z[inside], Z[~inside])
        target = int(group[np.flatnonzero(~inside)[idx[int(np.argmin(dist))]]])
        group[inside] = target
        alive.remove(g)
    _, labels = np.unique(group, return_inverse=True)
    return labels.astype(np.intp).ravel()


def nearest_labels(X: Any, Xs: Any, labels: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The label of each row's nearest row of ``Xs`` (Euclidean; ties to the lower row)."""
    from sklearn.metrics import pairwise_distances_argmin

    # scikit-learn's chunked Cython search needs C-ordered dense rows; others (a
    # pandas frame's Fortran-ordered values) fall back to full distance blocks, about
    # 9x slower for 20,000 x 2,000 rows of 16 features
    if not sp.issparse(X):
        X = np.ascontiguousarray(X)
    if not sp.issparse(Xs):
        Xs = np.ascontiguousarray(Xs)
    return np.asarray(labels[pairwise_distances_argmin(X, Xs)], dtype=np.intp)

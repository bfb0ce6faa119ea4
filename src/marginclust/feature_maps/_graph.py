"""The data's local geometry: a k-nearest-neighbour width and a locally scaled graph.

Two label-free tools shared by the kernel clusterers' defaults:

- :func:`neighbor_scale`: the median distance of a point to its 7th nearest
  neighbour, the local scale of self-tuning spectral clustering (Zelnik-Manor &
  Perona 2004) summarised by one number. ``gamma="local"``
  (:func:`marginclust.feature_maps.resolve_gamma`) is ``1 / scale^2``, the width
  of their locally scaled affinity ``exp(-d^2 / (sigma_i sigma_j))`` at
  ``sigma_i = sigma_j = scale``. Unlike ``"scale"`` and ``"sigma0"`` (the spread
  of the whole data set) it follows the distances between neighbours, so a ring
  or a spiral whose arms are close to each other relative to the data's extent
  still looks separated in the kernel.
- :func:`local_scaling_affinity`: their locally scaled affinity on the k-NN
  graph, the graph of the spectral start
  (:func:`marginclust.starts.spectral_labels`).

Above ``max_samples`` rows the width is computed on a seeded subsample.

References
----------
L. Zelnik-Manor and P. Perona, "Self-tuning spectral clustering", NIPS 17, 2004.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..utils._blocks import query_jobs, sample_row_indices

__all__ = ["local_scaling_affinity", "neighbor_scale"]

#: The neighbour whose distance is a point's local scale (Zelnik-Manor & Perona's 7th).
SCALE_NEIGHBOR = 7
#: Neighbours per point in the spectral start's graph (scikit-learn's SpectralClustering
#: default ``n_neighbors``).
GRAPH_NEIGHBORS = 10
#: Rows the width and the spectral start are computed on (a seeded subsample above).
MAX_SAMPLES = 2000


def _as_float(X: Any) -> Any:
    return X.astype(np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def _subsample(X: Any, max_samples: int, random_state: Any) -> tuple[Any, Any]:
    """``(rows, indices)``: at most ``max_samples`` rows of ``X`` (all of them, in order,
    and ``random_state`` untouched, when there are not more), drawn by
    :func:`~marginclust.solvers._blocks.sample_row_indices` (the rows the Dask
    path's sampler gathers for the same seed)."""
    n = X.shape[0]
    if n <= max_samples:
        return _as_float(X), None
    idx = sample_row_indices(n, int(max_samples), check_random_state(random_state))
    return _as_float(X[idx]), idx


def _normalised(X: Any) -> tuple[Any, float]:
    """``(Z, s)``: X divided by its largest absolute (centred, when dense) value ``s``.

    Distances and their ratios are unchanged up to the factor ``s``, and extreme
    scales (``X * 1e200``, ``X * 1e-150``) neither overflow nor underflow.
    """
    if sp.issparse(X):
        peak = float(abs(X).max()) if X.nnz else 0.0
        return (X / peak if peak > 0 and np.isfinite(peak) else X), (peak or 1.0)
    Z = X - X.mean(axis=0)
    peak = float(np.max(np.abs(Z))) if Z.size else 0.0
    if not (peak > 0 and np.isfinite(peak)):
        return Z, 1.0
    return Z / peak, peak


def _neighbors(X: Any, k: int) -> tuple[Any, Any]:
    """Distances and indices of the ``k`` nearest other rows of every row (self excluded)."""
    from sklearn.neighbors import NearestNeighbors

    k = min(k, X.shape[0] - 1)
    nn = NearestNeighbors(n_neighbors=k + 1, n_jobs=query_jobs(X.shape[0]))
    dist, idx = nn.fit(X).kneighbors(X)
    return dist[:, 1:], idx[:, 1:]


def neighbor_scale(
    X: npt.ArrayLike,
    *,
    n_neighbors: int = SCALE_NEIGHBOR,
    max_samples: int = MAX_SAMPLES,
    random_state: int | np.random.RandomState | None = 0,
) -> float:
    """Median distance of a point to its ``n_neighbors``-th nearest neighbour.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data.
    n_neighbors : int, default=7
        Which neighbour (Zelnik-Manor & Perona's local scale uses the 7th);
        capped at ``n_samples - 1``.
    max_samples : int, default=2000
        Above this many rows the neighbours are searched within a seeded
        subsample of this size (so the width does not shrink as more rows of
        the same distribution arrive, and the search stays cheap).
    random_state : int, RandomState instance or None, default=0
        Seeds the subsample.

    Returns
    -------
    scale : float
        Positive. Repeated rows count once (the distances are between
        distinct points, as in the spectral start's graph).

    Raises
    ------
    ValueError
        With fewer than 2 samples, or when all samples coincide.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps import neighbor_scale
    >>> X = np.arange(10.0)[:, None]  # 7th neighbour 4 away (middle) to 7 (ends)
    >>> neighbor_scale(X)
    5.0
    """
    Xs, _ = _subsample(X if sp.issparse(X) else np.asarray(X), int(max_samples), random_state)
    if Xs.shape[0] < 2:
        raise ValueError(f"The neighbour scale needs at least 2 samples; got {Xs.shape[0]}.")
    if not sp.issparse(Xs):
        Xs = np.unique(Xs, axis=0)  # repeated rows: the scale is between distinct points
    if Xs.shape[0] < 2:
        raise ValueError("The neighbour scale is undefined when all samples coincide.")
    Xs, unit = _normalised(Xs)
    dist, _ = _neighbors(Xs, int(n_neighbors))
    dist = dist * unit
    scale = float(np.median(dist[:, -1]))
    if not scale > 0:  # sparse rows repeated more than n_neighbors times
        positive = dist[dist > 0]
        if positive.size == 0:
            raise ValueError("The neighbour scale is undefined when all samples coincide.")
        scale = float(np.median(positive))
    return scale


def local_scaling_affinity(
    X: Any,
    *,
    n_neighbors: int = GRAPH_NEIGHBORS,
    scale_neighbor: int = SCALE_NEIGHBOR,
) -> sp.csr_matrix:
    """Zelnik-Manor & Perona's locally scaled affinity on the symmetric k-NN graph.

    ``A_ij = exp(-||x_i - x_j||^2 / (sigma_i sigma_j))`` for ``j`` among the
    ``n_neighbors`` nearest neighbours of ``i`` or ``i`` among those of ``j``,
    0 elsewhere, with ``sigma_i`` the distance of ``x_i`` to its
    ``scale_neighbor``-th neighbour.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data, at least 2 rows.
    n_neighbors : int, default=10
        Neighbours per point (capped at ``n_samples - 1``).
    scale_neighbor : int, default=7
        The neighbour that sets each point's scale (capped at ``n_neighbors``).

    Returns
    -------
    A : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps import local_scaling_affinity
    >>> A = local_scaling_affinity(np.random.RandomState(0).rand(30, 2))
    >>> A.shape, bool(abs(A - A.T).max() == 0)
    ((30, 30), True)
    """
    X = _as_float(X)
    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    dist, idx = _neighbors(X, max(k, min(int(scale_neighbor), n - 1)))
    sigma = dist[:, min(int(scale_neighbor), dist.shape[1]) - 1].copy()
    positive = sigma[sigma > 0]
    # duplicated points have a zero local scale: floor it so their affinities stay finite
    floor = 1e-3 * float(np.median(positive)) if positive.size else 1.0
    np.maximum(sigma, floor, out=sigma)
    rows = np.repeat(np.arange(n), k)
    cols = idx[:, :k].ravel()
    d2 = dist[:, :k].ravel() ** 2
    w = np.exp(-d2 / (sigma[rows] * sigma[cols]))
    A = sp.csr_matrix((w, (rows, cols)), shape=(n, n))
    return A.maximum(A.T).tocsr()



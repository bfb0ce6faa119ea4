"""Internal (label-free) indices: within-cluster SSE and the Davies-Bouldin index."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from sklearn.metrics import davies_bouldin_score

__all__ = ["davies_bouldin", "sse"]


def _check_X_labels(X: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X)
    if X.dtype.kind not in "fiu":
        raise ValueError(f"X must be numeric; got dtype {X.dtype}.")
    X = X.astype(np.float64, copy=False)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if X.shape[0] == 0:
        raise ValueError("X is empty; pass at least one sample.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf.")
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != X.shape[0]:
        raise ValueError(
            f"labels must be 1-D with one entry per sample ({X.shape[0]}); got shape "
            f"{labels.shape}."
        )
    return X, labels


def sse(X: npt.ArrayLike, labels: npt.ArrayLike, centers: npt.ArrayLike | None = None) -> float:
    """Within-cluster sum of squared Euclidean distances (PKM eq. 40).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    labels : array-like of shape (n_samples,)
        Cluster labels. With ``centers`` they must be integer indices into its rows.
    centers : array-like of shape (n_clusters, n_features), default=None
        Cluster centres. ``None`` uses the mean of each cluster (which minimises
        the SSE for the given partition).

    Returns
    -------
    sse : float
        ``sum_i ||x_i - c_{labels_i}||^2``.
    """
    X, labels = _check_X_labels(X, labels)
    if centers is None:
        _, codes = np.unique(labels, return_inverse=True)
        codes = codes.ravel()
        k = int(codes.max()) + 1
        counts = np.bincount(codes, minlength=k).astype(np.float64)
        sums = np.zeros((k, X.shape[1]))
        np.add.at(sums, codes, X)
        centers_arr = sums / counts[:, None]
    else:
        centers_arr = np.asarray(centers, dtype=np.float64)
        if centers_arr.ndim != 2 or centers_arr.shape[1] != X.shape[1]:
            raise ValueError(
                f"centers must have shape (n_clusters, {X.shape[1]}); got {centers_arr.shape}."
            )
        if not np.issubdtype(labels.dtype, np.integer):
            raise ValueError("With centers, labels must be integer indices into its rows.")
        if labels.min() < 0 or labels.max() >= centers_arr.shape[0]:
            raise ValueError(
                f"labels must lie in [0, {centers_arr.shape[0] - 1}] to index centers."
            )
        codes = labels
    diff = X - centers_arr[codes]
    return float(np.einsum("ij,ij->", diff, diff))


def davies_bouldin(X: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Davies-Bouldin index (smaller is better).

    For clusters ``i`` with centroid ``c_i`` and mean member-to-centroid distance
    ``s_i``, ``DB = mean_i max_{j != i} (s_i + s_j) / ||c_i - c_j||``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    labels : array-like of shape (n_samples,)
        Cluster labels; at least 2 and at most ``n_samples - 1`` distinct values.

    Returns
    -------
    db : float
        Non-negative; 0 when every cluster is a single point or clusters sit on
        their centroids. Coinciding centroids give ``inf`` ratios, which are
        treated as 0 (scikit-learn's convention).
    """
    X, labels = _check_X_labels(X, labels)
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.ravel()
    k = int(codes.max()) + 1
    if not 1 < k < X.shape[0]:
        raise ValueError(
            f"davies_bouldin needs 2 <= n_clusters <= n_samples - 1; got {k} clusters for "
            f"{X.shape[0]} samples."
        )
    return float(davies_bouldin_score(X, codes))

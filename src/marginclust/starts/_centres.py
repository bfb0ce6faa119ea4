"""Starts of the centroid methods (FCM, kernel FCM, kernel K-means): centres or memberships."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..utils._validation import check_memberships, resolve_alias
from ._kmeans import kmeans_plusplus_centres

__all__ = ["check_center_init", "initial_point"]


def check_center_init(init: Any, n_clusters: int, X: np.ndarray) -> None:
    """Check an ``init`` given as a method name, centres or memberships.

    Parameters
    ----------
    init : {"k-means++", "random"} or array-like
        A method name (old spelling ``"kmeans++"`` accepted with a FutureWarning),
        centres of shape (n_clusters, n_features) or memberships of shape
        (n_samples, n_clusters).
    n_clusters : int
        Number of clusters.
    X : ndarray of shape (n_samples, n_features)
        The validated data.

    Raises
    ------
    ValueError
        If ``init`` is an unknown name, an array of another shape, or not
        numeric and finite.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import check_center_init
    >>> check_center_init(np.zeros((2, 3)), 2, np.ones((5, 3)))
    """
    if isinstance(init, str):
        resolve_alias(init, "init", ("k-means++", "random"), {"kmeans++": "k-means++"})
        return
    arr = np.asarray(init)
    n, d = X.shape
    if arr.ndim != 2 or arr.shape not in ((n_clusters, d), (n, n_clusters)):
        raise ValueError(
            f"An array init must be centres of shape (n_clusters, n_features) = "
            f"({n_clusters}, {d}) or memberships of shape (n_samples, n_clusters) = "
            f"({n}, {n_clusters}); got shape {arr.shape}."
        )
    if arr.dtype.kind not in "fiu" or not np.all(np.isfinite(arr)):
        raise ValueError("An array init must be numeric and finite.")


def initial_point(
    init: Any,
    X: np.ndarray,
    n_clusters: int,
    sample_weight: np.ndarray,
    random_state: np.random.RandomState,
    *,
    allow_memberships: bool = True,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Starting point of one restart: centres, or memberships.

    Parameters
    ----------
    init : {"k-means++", "random"} or array-like
        Checked by :func:`check_center_init`. ``"k-means++"``: weighted k-means++
        seeding (scikit-learn's); ``"random"``: distinct samples drawn with
        probability proportional to their weight; an array: centres or memberships.
    X : ndarray of shape (n_samples, n_features)
        The data (centres are returned in its dtype).
    n_clusters : int
        Number of clusters.
    sample_weight : ndarray of shape (n_samples,)
        Non-negative weights, at least one positive.
    random_state : numpy.random.RandomState
        Source of randomness of this restart.
    allow_memberships : bool, default=True
        Accept an ``(n_samples, n_clusters)`` membership array.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features) or None
        The starting centres, or None when memberships are given.
    memberships : ndarray of shape (n_samples, n_clusters) or None
        The starting memberships, or None when centres are given.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import initial_point
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> centres, U = initial_point("random", X, 2, np.ones(4), np.random.RandomState(0))
    >>> centres.shape, U is None
    ((2, 2), True)
    """
    n, d = X.shape
    if isinstance(init, str):
        if init in ("k-means++", "kmeans++"):
            centres = kmeans_plusplus_centres(X, n_clusters, random_state, sample_weight)
        else:
            p = sample_weight / sample_weight.sum()
            n_pos = int(np.count_nonzero(p))
            idx = random_state.choice(n, size=n_clusters, replace=n_pos < n_clusters, p=p)
            centres = X[idx]
        return np.array(centres, dtype=X.dtype), None
    arr = np.asarray(init, dtype=np.float64)
    if arr.shape == (n_clusters, d):
        return arr.astype(X.dtype), None
    if not allow_memberships:
        raise ValueError(
            f"init must be centres of shape (n_clusters, n_features) = ({n_clusters}, {d}); "
            f"got shape {arr.shape}."
        )
    U = check_memberships(arr, n, n_clusters, name="init")
    return None, U.astype(X.dtype)

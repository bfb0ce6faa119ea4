"""Starts: centres of centroid methods (FCM, kernel FCM, kernel K-means), the k-means start."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import kmeans_plusplus

from ._validation import check_memberships, resolve_alias

__all__ = ["check_center_init", "initial_point", "kmeans_start"]


def kmeans_start(X: Any, n_clusters: int, random_state: Any) -> np.ndarray:
    """Labels of one scikit-learn k-means run (k-means++ seeding): the k-means start.

    The start of the margin and one-class clusterers (MMC, IterativeLSSVM, SLMC,
    WOC-SVM, OC-SVM hard clustering) when ``init="k-means"``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data the start is drawn on.
    n_clusters : int
        Number of clusters.
    random_state : int, RandomState or None
        Seeds the k-means++ draw.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype intp
        The cluster of each sample after one k-means run.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import kmeans_start
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> labels = kmeans_start(X, 2, 0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=n_clusters, n_init=1, random_state=random_state)
    return np.asarray(km.fit(X).labels_, dtype=np.intp)


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
    >>> from marginclust.utils import check_center_init
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
    >>> from marginclust.utils import initial_point
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> centres, U = initial_point("random", X, 2, np.ones(4), np.random.RandomState(0))
    >>> centres.shape, U is None
    ((2, 2), True)
    """
    n, d = X.shape
    if isinstance(init, str):
        if init in ("k-means++", "kmeans++"):
            centres, _ = kmeans_plusplus(
                X, n_clusters, sample_weight=sample_weight, random_state=random_state
            )
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

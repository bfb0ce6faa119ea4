"""Starts: centres of centroid methods (FCM, kernel FCM, kernel K-means), the k-means start."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import kmeans_plusplus

from ._validation import check_memberships, resolve_alias

__all__ = [
    "ScaledKMeans",
    "check_center_init",
    "initial_point",
    "kmeans_start",
    "kmeans_start_states",
    "power_of_two_scale",
    "scaled_kmeans",
]


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
    km = scaled_kmeans(X, n_clusters=n_clusters, n_init=1, random_state=random_state)
    return np.asarray(km.labels_, dtype=np.intp)


def power_of_two_scale(X: Any) -> float:
    """The power of two that brings data of an extreme scale near 1 (else 1.0).

    k-means labels do not change when the data are multiplied by a constant, and a
    power of two multiplies exactly; float32 data beyond ``2^+-40`` and float64 data
    beyond ``2^+-300`` (about 1e+-90) would overflow or underflow the squares of
    scikit-learn's k-means (its tolerance is the data's variance, its distances
    squared norms). Data within those bounds are left alone.

    Parameters
    ----------
    X : {ndarray, sparse matrix}

    Returns
    -------
    scale : float

    Examples
    --------
    >>> import numpy as np
    >>> power_of_two_scale(np.array([[3e30]], dtype=np.float32))
    1.9721522630525295e-31
    """
    if np.dtype(X.dtype) not in (np.float32, np.float64):
        return 1.0
    bound = 40 if np.dtype(X.dtype) == np.float32 else 300
    data = X.data if sp.issparse(X) else np.asarray(X)
    peak = float(np.max(np.abs(data))) if data.size else 0.0
    if not np.isfinite(peak) or peak == 0.0 or 2.0**-bound < peak < 2.0**bound:
        return 1.0
    # 2**-e, its exponent kept within the dtype's normal range (subnormal data and data
    # near the float maximum: the scale itself must be a finite, normal number)
    info = np.finfo(X.dtype)
    return float(np.ldexp(1.0, min(max(-int(np.frexp(peak)[1]), info.minexp), info.maxexp - 1)))


class ScaledKMeans:
    """A fitted k-means that sees its input multiplied by ``scale`` (:func:`power_of_two_scale`).

    Parameters
    ----------
    km : KMeans
        Fitted on the scaled data.
    scale : float
    """

    def __init__(self, km: Any, scale: float) -> None:
        self.km = km
        self.scale = scale
        self.labels_ = km.labels_

    def predict(self, X: Any) -> Any:
        """Nearest centre of each row of ``X``."""
        return self.km.predict(X * X.dtype.type(self.scale) if self.scale != 1.0 else X)


def scaled_kmeans(X: Any, **params: Any) -> ScaledKMeans:
    """``KMeans(**params)`` fitted on ``X`` at a safe scale (float32 at extreme scales).

    Parameters
    ----------
    X : {ndarray, sparse matrix}
    **params
        Parameters of :class:`sklearn.cluster.KMeans`.

    Returns
    -------
    km : ScaledKMeans
        ``labels_`` and ``predict`` in the units of ``X``.
    """
    from sklearn.cluster import KMeans

    scale = power_of_two_scale(X)
    Xs = X * X.dtype.type(scale) if scale != 1.0 else X
    return ScaledKMeans(KMeans(**params).fit(Xs), scale)


def _nearest_block(Xb: Any, state: Any, km: Any) -> tuple[Any, None]:
    return np.asarray(km.predict(Xb), dtype=np.intp), None


def kmeans_start_states(
    rows: Any, n_clusters: int, random_state: Any, sample_size: int | None = None
) -> list[Any]:
    """The k-means start on a row-block backend: its labels per block.

    One k-means run (:func:`kmeans_start`'s) on the rows a start is drawn from:
    every row in memory (so the labels are :func:`kmeans_start`'s), a uniform
    sample out of core, whose fitted centres then label each block (one pass).

    Parameters
    ----------
    rows : row-block backend
        :class:`~marginclust.utils._blocks.RowBlocks` or an out-of-core backend.
    n_clusters : int
        Number of clusters.
    random_state : RandomState
        Seeds the sample and the k-means++ draw.
    sample_size : int, optional
        Rows of the out-of-core sample (default:
        :func:`~marginclust.utils._blocks.init_sample_size`).

    Returns
    -------
    states : list
        The labels of each block, in block order.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils._blocks import RowBlocks
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> states = kmeans_start_states(RowBlocks(X, 2), 2, np.random.RandomState(0))
    >>> [s.tolist() for s in states] in ([[0, 0], [1, 1]], [[1, 1], [0, 0]])
    True
    """
    from ._blocks import init_sample_size

    size = init_sample_size(n_clusters) if sample_size is None else int(sample_size)
    sample, _ = rows.start_rows(size, random_state)
    km = scaled_kmeans(sample, n_clusters=n_clusters, n_init=1, random_state=random_state)
    if sample.shape[0] == rows.shape[0]:  # every row: the run's own labels
        return list(rows.split(np.asarray(km.labels_, dtype=np.intp)))
    states, _ = rows.states(_nearest_block, None, km)
    return list(states)


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

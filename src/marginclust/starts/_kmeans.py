"""The k-means starts: one scikit-learn k-means run (in memory or by blocks), k-means++ centres."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import kmeans_plusplus

from ..utils._blocks import init_sample_size
from ..utils._scaled_kmeans import scaled_kmeans

__all__ = ["kmeans_plusplus_centres", "kmeans_start", "kmeans_start_states"]


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
    >>> from marginclust.starts import kmeans_start
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> labels = kmeans_start(X, 2, 0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    km = scaled_kmeans(X, n_clusters=n_clusters, n_init=1, random_state=random_state)
    return np.asarray(km.labels_, dtype=np.intp)


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
    size = init_sample_size(n_clusters) if sample_size is None else int(sample_size)
    sample, _ = rows.start_rows(size, random_state)
    km = scaled_kmeans(sample, n_clusters=n_clusters, n_init=1, random_state=random_state)
    if sample.shape[0] == rows.shape[0]:  # every row: the run's own labels
        return list(rows.split(np.asarray(km.labels_, dtype=np.intp)))
    states, _ = rows.states(_nearest_block, None, km)
    return list(states)


def kmeans_plusplus_centres(
    X: Any, n_clusters: int, random_state: Any, sample_weight: Any = None,
) -> np.ndarray:
    """Centres of scikit-learn's k-means++ seeding: the k-means++ start.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows the centres are drawn from.
    n_clusters : int
        Number of centres.
    random_state : int, RandomState or None
        Seeds the draw.
    sample_weight : ndarray of shape (n_samples,), default=None
        Rows are drawn with probability proportional to their weight.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts._kmeans import kmeans_plusplus_centres
    >>> kmeans_plusplus_centres(np.array([[0.0], [0.1], [5.0]]), 2, 0).shape
    (2, 1)
    """
    centres, _ = kmeans_plusplus(np.asarray(X), n_clusters, sample_weight=sample_weight,
                                 random_state=random_state)
    return centres

"""The margin search as a start: the partition maximum-margin clustering picks at its defaults.

The kernel clusterers' ``init="max-margin"``: :func:`margin_search_labels` on a
sample of rows, :func:`margin_search_start` on every row of in-memory data.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.utils import check_random_state

from ..feature_maps._graph import MAX_SAMPLES as START_SAMPLE_ROWS
from ..objectives._constraints import make_pairs
from ..utils import count_distinct_rows
from ..utils._blocks import sample_row_indices
from ._candidates import DEFAULT_POOL
from ._margin_search import (
    fitted_sample_size,
    margin_classifier,
    margin_gamma,
    margin_search,
    weighted_points,
)
from ._spectral import SampleLabels, first_appearance_order, spectral_sample_labels
from ._vote import classify

__all__ = ["margin_search_labels", "margin_search_start"]

# MaxMarginClustering's defaults: the search a start runs
_N_NEIGHBORS = 7
_MAX_VOTE_SAMPLES = 10_000
_C = 10.0


def _searched_labels(
    X: npt.NDArray[np.floating], k: int, random_state: Any,
) -> npt.NDArray[np.intp]:
    """``MaxMarginClustering(k, random_state=random_state).fit(X).labels_``, up to numbering."""
    points, live, weights = weighted_points(X, None)
    P = X[points.first]
    search = margin_search(
        P, live, weights, (k,), make_pairs(None, None, X.shape[0], k), pool=list(DEFAULT_POOL),
        n_neighbors=_N_NEIGHBORS, max_samples=fitted_sample_size("auto", k), auto=False,
        random_state=check_random_state(random_state), n_clusters=k,
        max_vote_samples=_MAX_VOTE_SAMPLES,
    )
    on_points = np.zeros(len(P), dtype=np.intp)
    if search.rows.size < len(P):  # points beyond the judged ones: the margin classifier's
        if np.unique(search.labels).size > 1:
            clf = margin_classifier(search, _C, margin_gamma(search.width))
            on_points = classify(clf, search.Z)
        else:
            on_points[:] = search.labels[0]
    on_points[search.rows] = search.labels
    return on_points[points.inverse]


def margin_search_labels(
    X: npt.NDArray[np.float64], n_clusters: int, random_state: Any
) -> npt.NDArray[np.intp]:
    """The partition :class:`~marginclust.MaxMarginClustering` picks on ``X`` at its defaults.

    The kernel clusterers' ``init="max-margin"`` (their default): the label-free
    search over diverse candidates (Genie, a Gaussian mixture, spectral clustering,
    k-means, Ward) judged by the class-balanced voting margin, so the local margin
    solver starts from a partition that is already well separated whatever its
    shape. ``X`` is a sample of at most a few thousand rows (the caller labels the
    others by their nearest sample row); the search's warnings (no clearly
    separated candidate, a failed family) are left to the solver that follows,
    whose own diagnostics judge the end result. On one column the voting margin
    cannot tell the cuts of a line apart (measured: SLMC on the nine one-column
    sets of two Gaussians in Gagolewski's g2mg battery, mean NCA .50 from the
    search's start against .99 from the spectral one), so there the
    start is :func:`~marginclust.starts.spectral_labels` of every row.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense rows.
    n_clusters : int
        Number of clusters (at most the number of distinct rows).
    random_state : int, RandomState instance or None
        Seeds the candidates that draw (k-means, the mixture, spectral).

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Integers in ``0 .. n_clusters - 1``, numbered by first appearance; fewer
        clusters when ``X`` has fewer distinct rows than ``n_clusters``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import margin_search_labels
    >>> t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    >>> rings = np.vstack([np.c_[np.cos(t), np.sin(t)], 4 * np.c_[np.cos(t), np.sin(t)]])
    >>> labels = margin_search_labels(rings, 2, random_state=0)
    >>> len(set(labels[:100])), len(set(labels[100:])), bool(labels[0] != labels[100])
    (1, 1, True)
    """
    if X.shape[1] == 1:
        # on a line the voting margin cannot tell cuts apart (any cut leaves about
        # n_neighbors mixed neighbours on each side, whatever the density there)
        return spectral_sample_labels(X, int(n_clusters), random_state=random_state)
    # a sample may hold fewer distinct rows than the data: then as many clusters as it has
    k = min(int(n_clusters), count_distinct_rows(X, int(n_clusters)))
    if k <= 1:
        return np.zeros(X.shape[0], dtype=np.intp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = _searched_labels(X, k, random_state)
    return first_appearance_order(labels)


def margin_search_start(
    X: npt.NDArray[np.float64], n_clusters: int, random_state: Any
) -> npt.NDArray[np.intp]:
    """:func:`margin_search_labels` of every row of dense, in-memory ``X``.

    The search runs on the rows the spectral start samples (at most
    2,000, the rows
    :func:`~marginclust.starts.spectral_labels` samples); every other row takes the
    label of its nearest sample row.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense rows.
    n_clusters : int
        Number of clusters (at most the number of distinct rows).
    random_state : int, RandomState instance or None
        Seeds the sample and the candidates that draw.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Integers in ``0 .. n_clusters - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import margin_search_start
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(3000, 2), rng.randn(1000, 2) + 10]  # 2,000 rows searched
    >>> np.bincount(margin_search_start(X, 2, random_state=0)).tolist()
    [3000, 1000]
    """
    n = X.shape[0]
    if n <= START_SAMPLE_ROWS:
        return margin_search_labels(X, n_clusters, random_state)
    rng = check_random_state(random_state)
    idx = sample_row_indices(n, START_SAMPLE_ROWS, rng)
    labels = margin_search_labels(X[idx], n_clusters, rng)
    return SampleLabels(X[idx], labels).predict(X)

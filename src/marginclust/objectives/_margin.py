"""A label-free margin criterion for a partition: the out-of-fold voting margin of its k-NN rule.

A partition is judged by how well each point's cluster is predicted from the
other points, without the point itself (out of fold). The predictor is the
k-nearest-neighbour vote, a kernel classifier whose width adapts to the local
density (the balloon estimator: the window of point ``i`` reaches its k-th
neighbour), so one kernel width serves dense and sparse regions, rings and
blobs alike. The functional margin of the vote for point ``i`` of cluster ``c``
is::

    m_i = (v_ic - max_{c' != c} v_ic') / k        in [-1, 1],

with ``v_ic`` the number of its k nearest neighbours (itself excluded) in
cluster ``c``: ``m_i = 1`` when every neighbour shares its cluster, ``0`` on a
tie with another cluster, ``< 0`` when another cluster wins the vote. The
partition's score is the class-balanced mean (the mean over clusters of each
cluster's mean margin), so a large cluster cannot hide a badly separated small
one; an empty cluster counts as ``-1``.

The rule against spurious tiny clusters is built in: a cluster of ``s``
points, however isolated, gives each member at most ``s - 1`` votes, so its
margin is at most ``(2 (s - 1) - k) / k``: clusters of ``s <= k / 2 + 1``
points (outliers taken for a cluster) score at most 0, while a separated
cluster of at least ``k + 1`` points scores 1, however small against the
others. Prior validation of the inputs is assumed throughout this module.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["class_balanced_error", "class_balanced_mean", "vote_margins"]


def vote_margins(
    labels: npt.NDArray[np.intp], neighbors: npt.NDArray[np.intp], n_clusters: int,
    weights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """Out-of-fold functional margin of the k-nearest-neighbour vote, per point.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster of each point, in ``0 .. n_clusters - 1``.
    neighbors : ndarray of shape (n_samples, k)
        Indices of each point's k nearest neighbours, the point itself excluded.
    n_clusters : int
        Number of clusters.
    weights : ndarray of shape (n_samples,) or None, default=None
        Positive weight of each point (a point of weight ``r`` stands for ``r``
        identical rows): a neighbour's vote counts its weight, and the margin is
        divided by the neighbours' total weight. Scaling every weight by one
        factor leaves the margins unchanged; unit weights give the unweighted vote.

    Returns
    -------
    margins : ndarray of shape (n_samples,)
        ``(votes for its own cluster - most votes for another) / k``, in [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.array([0, 0, 0, 1, 1, 1])
    >>> neighbors = np.array([[1, 2], [0, 2], [1, 3], [4, 5], [3, 5], [4, 3]])
    >>> vote_margins(labels, neighbors, 2).tolist()
    [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    """
    n, k = neighbors.shape
    votes = np.zeros((n, n_clusters))
    rows = np.repeat(np.arange(n), k)
    if weights is None:
        np.add.at(votes, (rows, labels[neighbors].ravel()), 1.0)
        total: float | npt.NDArray[np.float64] = float(k)
    else:
        w = weights[neighbors]
        np.add.at(votes, (rows, labels[neighbors].ravel()), w.ravel())
        total = w.sum(axis=1)
    own = votes[np.arange(n), labels].copy()
    votes[np.arange(n), labels] = -np.inf
    other = votes.max(axis=1) if n_clusters > 1 else np.zeros(n)
    return (own - other) / total


def class_balanced_mean(
    values: npt.NDArray[np.floating], labels: npt.NDArray[np.intp], n_clusters: int,
    *, empty: float = -1.0, weights: npt.NDArray[np.float64] | None = None,
) -> float:
    """Mean over clusters of each cluster's mean value (``empty`` for an empty cluster).

    Parameters
    ----------
    values : ndarray of shape (n_samples,)
        One value per point (e.g. :func:`vote_margins`).
    labels : ndarray of shape (n_samples,)
        Cluster of each point, in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters asked for (empty ones included).
    empty : float, default=-1.0
        The value of a cluster without points.
    weights : ndarray of shape (n_samples,) or None, default=None
        Positive weight of each point: each cluster's mean is then weighted.

    Returns
    -------
    score : float
        The class-balanced mean.

    Examples
    --------
    >>> import numpy as np
    >>> class_balanced_mean(np.array([1.0, 1.0, 1.0, 0.0]), np.array([0, 0, 0, 1]), 2)
    0.5
    >>> class_balanced_mean(np.array([1.0, 1.0]), np.array([0, 0]), 2)
    0.0
    """
    if weights is None:
        sums = np.bincount(labels, weights=values, minlength=n_clusters)
        counts = np.bincount(labels, minlength=n_clusters)
        means = np.where(counts > 0, sums / np.maximum(counts, 1), empty)
    else:
        sums = np.bincount(labels, weights=values * weights, minlength=n_clusters)
        mass = np.bincount(labels, weights=weights, minlength=n_clusters)
        means = np.where(mass > 0, sums / np.where(mass > 0, mass, 1.0), empty)
    return float(means.mean())


def class_balanced_error(
    values: npt.NDArray[np.floating], labels: npt.NDArray[np.intp], n_clusters: int,
    *, weights: npt.NDArray[np.float64] | None = None,
) -> float:
    """Standard error of :func:`class_balanced_mean`, the values taken as independent draws.

    The mean of ``K`` cluster means has variance ``sum_c s_c^2 / n_c / K^2``, with
    ``s_c^2`` the (weighted) variance of cluster ``c``'s values and ``n_c`` its
    number of points (with weights, Kish's effective number ``(sum w)^2 / sum w^2``).
    Empty clusters add nothing (their value is a constant).

    Parameters
    ----------
    values : ndarray of shape (n_samples,)
        One value per point.
    labels : ndarray of shape (n_samples,)
        Cluster of each point, in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters asked for (empty ones included).
    weights : ndarray of shape (n_samples,) or None, default=None
        Positive weight of each point.

    Returns
    -------
    error : float

    Examples
    --------
    >>> import numpy as np
    >>> class_balanced_error(np.array([1.0, 0.0, 1.0, 0.0]), np.array([0, 0, 1, 1]), 2)
    0.25
    """
    w = np.ones(values.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    mass = np.bincount(labels, weights=w, minlength=n_clusters)
    sums = np.bincount(labels, weights=w * values, minlength=n_clusters)
    squares = np.bincount(labels, weights=w * values * values, minlength=n_clusters)
    live = mass > 0
    mean = sums[live] / mass[live]
    variance = np.maximum(squares[live] / mass[live] - mean * mean, 0.0)
    effective: npt.NDArray[np.float64]
    if weights is None:
        effective = np.asarray(mass[live], dtype=np.float64)  # Kish's number: the count
    else:
        # Kish's number from each cluster's weights over their largest: the ratio is
        # scale-free, and the squares of weights far below one would underflow
        top = np.zeros(n_clusters)
        np.maximum.at(top, labels, w)
        scaled = w / np.where(top > 0, top, 1.0)[labels]
        scaled_mass = np.bincount(labels, weights=scaled, minlength=n_clusters)
        square_mass = np.bincount(labels, weights=scaled * scaled, minlength=n_clusters)
        effective = scaled_mass[live] ** 2 / square_mass[live]
    return float(np.sqrt(np.sum(variance / effective)) / n_clusters)

"""Maximum-margin clustering's search as functions: the judge, the working frame, the start."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.utils import check_random_state

from ..feature_maps._graph import MAX_SAMPLES as START_SAMPLE_ROWS
from ..feature_maps._neighbors import NeighborGraph
from ..objectives._constraints import PairSet
from ..objectives._margin import class_balanced_mean, vote_margins
from ..objectives._pairs import assign_in_order, honour_pairs
from ..utils import centred_frame, count_distinct_rows
from ..utils._blocks import sample_row_indices
from ._spectral import SampleLabels, first_appearance_order, spectral_sample_labels

__all__ = ["margin_search_labels", "margin_search_start", "partition_margin"]


def _candidate_name(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, tuple):
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(spec[1].items()))
        return f"{spec[0]}({params})"
    return type(spec).__name__


def _working_frame(
    X: npt.NDArray[np.floating], weights: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """``Z = (X - mean) * scale`` with unit overall standard deviation, and the map's terms.

    The centring and power-of-two rescaling of :func:`~marginclust.utils.centred_frame`
    keep the squares finite at any scale; one more factor brings the overall standard
    deviation to 1 (the benchmark framework's "original" preprocessing). With
    ``weights`` (a row of weight ``r`` counts ``r`` times) the mean and the standard
    deviation are weighted.
    """
    frame = centred_frame(np.asarray(X, dtype=np.float64))
    if weights is None:
        spread = float(np.sqrt(frame.sq_total / frame.Z.size))
        Z = np.asarray(frame.Z / spread, dtype=np.float64)
        return Z, np.asarray(frame.mean, dtype=np.float64), frame.scale / spread
    share = weights / weights.sum()
    shift = share @ frame.Z
    Z = np.asarray(frame.Z - shift, dtype=np.float64)
    spread = float(np.sqrt(share @ np.einsum("ij,ij->i", Z, Z) / Z.shape[1]))
    Z /= spread
    return Z, np.asarray(frame.mean + shift / frame.scale, dtype=np.float64), frame.scale / spread


def partition_margin(
    X: Any, labels: npt.NDArray[np.intp], n_clusters: int, n_neighbors: int = 7
) -> float:
    """The judge of :class:`MaxMarginClustering` for one partition of the rows of ``X``.

    The class-balanced mean of the out-of-fold voting margin of the
    ``n_neighbors``-nearest-neighbour rule
    (:func:`~marginclust.objectives._margin.vote_margins`), in [-1, 1]: 1 when no
    point has a neighbour in another cluster; an empty cluster counts -1. Euclidean
    neighbours, so the score does not change under translation or uniform
    rescaling of ``X``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Rows (at least two; a few thousand at most: the neighbours are exact).
    labels : ndarray of shape (n_samples,)
        Their clusters, in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters asked for.
    n_neighbors : int, default=7
        Neighbours of the vote (at most ``n_samples - 1`` are used).

    Returns
    -------
    score : float
        The partition's voting margin.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts import partition_margin
    >>> X = np.r_[np.zeros((10, 1)), np.ones((10, 1))] + np.arange(20)[:, None] * 1e-3
    >>> partition_margin(X, np.repeat([0, 1], 10), 2, n_neighbors=3)
    1.0
    >>> partition_margin(X, np.tile([0, 1], 10), 2, n_neighbors=3) < 0
    True
    """
    labels = np.asarray(labels, dtype=np.intp)
    graph = NeighborGraph.from_data(X, int(n_neighbors))
    return class_balanced_mean(vote_margins(labels, graph.indices, n_clusters), labels,
                               n_clusters)


def _violated_pairs(
    labels: npt.NDArray[np.intp],
    pu: npt.NDArray[np.intp],
    pv: npt.NDArray[np.intp],
    z: npt.NDArray[np.float64],
) -> int:
    """Must-links split and cannot-links joined by ``labels`` (pairs as positions in them)."""
    same = labels[pu] == labels[pv]
    return int(np.count_nonzero(same != (z > 0)))


def _repair(
    labels: npt.NDArray[np.intp],
    rows: npt.NDArray[np.intp],
    neighbors: npt.NDArray[np.intp],
    k: int,
    pairs: PairSet,
) -> npt.NDArray[np.intp]:
    """``labels`` (of ``rows``) with the pairs' rows relabelled to keep the pairs.

    Each pair row's score for a cluster is its votes there among itself and its
    neighbours (the voting margin's vote); :func:`~marginclust.objectives._pairs.honour_pairs`
    gives each must-link component its most voted cluster and moves
    cannot-linked components apart. If cannot-links stay broken,
    :func:`~marginclust.objectives._pairs.assign_in_order` places the components
    in turn, and its labels are kept if they break fewer.
    """
    closure = pairs.closure
    assert closure is not None
    pos = np.searchsorted(rows, closure.rows)
    votes = np.zeros((pos.size, k))
    voters = np.column_stack([pos, neighbors[pos]])
    np.add.at(votes, (np.repeat(np.arange(pos.size), voters.shape[1]),
                      labels[voters].ravel()), 1.0)
    comp, cannot = closure.component, closure.cannot
    member = np.zeros(closure.n_components, dtype=np.intp)
    member[comp] = np.arange(comp.size)  # one row of each component

    def broken(lab: npt.NDArray[np.intp]) -> int:
        return int(np.count_nonzero(lab[member[cannot[:, 0]]] == lab[member[cannot[:, 1]]]))

    fixed = honour_pairs(votes, comp, cannot)
    if broken(fixed):
        placed = assign_in_order(votes, comp, cannot)
        if broken(placed) < broken(fixed):
            fixed = placed
    out = labels.copy()
    out[pos] = fixed
    return out


def margin_search_labels(
    X: npt.NDArray[np.float64], n_clusters: int, random_state: Any
) -> npt.NDArray[np.intp]:
    """The partition :class:`MaxMarginClustering` picks on ``X`` at its defaults: a start.

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
    start is :func:`~marginclust.feature_maps._graph.spectral_sample_labels`.

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
    from ..estimators._max_margin import MaxMarginClustering  # replaced by the search below

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaxMarginClustering(k, random_state=random_state).fit(X)
    return first_appearance_order(model.labels_)


def margin_search_start(
    X: npt.NDArray[np.float64], n_clusters: int, random_state: Any
) -> npt.NDArray[np.intp]:
    """:func:`margin_search_labels` of every row of dense, in-memory ``X``.

    The search runs on the rows the spectral start samples (at most
    :data:`~marginclust.feature_maps._graph.MAX_SAMPLES`, drawn by
    :func:`~marginclust.utils._blocks.sample_row_indices`); every other row takes the
    label of its nearest sample row.

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

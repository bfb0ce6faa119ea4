"""Maximum-margin clustering's search: diverse candidates judged by the voting margin.

:func:`margin_search` is the whole search of
:class:`~marginclust.MaxMarginClustering` on the distinct points of the data
(the estimator validates, then learns the margin classifier on its result):
the working frame, the rows the candidates are fitted to, the candidates
judged by the class-balanced voting margin (:func:`partition_margin`), the
choice of the partition and of K (:mod:`._selection`) and the repair of
must-link / cannot-link pairs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.neighbors import NearestNeighbors
from sklearn.svm import SVC
from sklearn.utils.validation import check_memory

from ..feature_maps._neighbors import NeighborGraph
from ..objectives._constraints import PairClosure, PairSet
from ..objectives._margin import class_balanced_error, class_balanced_mean, vote_margins
from ..objectives._pairs import assign_in_order, honour_pairs
from ..utils import centred_frame, distinct_rows, report, spawn_seeds
from ..utils._blocks import query_jobs
from ..utils._memory import check_memory as check_memory_budget
from ..utils._validation import DistinctRows
from ._candidates import fit_candidate
from ._discrete import discrete_columns, spread_over_bins
from ._selection import Candidate, KScore, Ranked, _consistent, _select

__all__ = [
    "MarginSearch",
    "fitted_sample_size",
    "largest_k",
    "margin_classifier",
    "margin_gamma",
    "margin_search",
    "partition_margin",
    "weighted_points",
]


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
    X: Any, labels: npt.NDArray[np.intp], n_clusters: int, n_neighbors: int = 7,
    random_state: int = 0,
) -> float:
    """The judge of :class:`~marginclust.MaxMarginClustering` for one partition of ``X``'s rows.

    The class-balanced mean of the out-of-fold voting margin of the
    ``n_neighbors``-nearest-neighbour rule (for each point, the share of its
    neighbours in its own cluster minus the largest share in another), in
    [-1, 1]: 1 when no
    point has a neighbour in another cluster; an empty cluster counts -1. Euclidean
    neighbours, so the score does not change under translation or uniform
    rescaling of ``X``. As in the search, the discrete columns of a mixed table
    (2 to 10 distinct values beside continuous ones) are read as bins: each value
    drawn uniformly over its bin (seeded by ``random_state``) before the
    neighbours are found.

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
    random_state : int, default=0
        Seeds the draws over the bins of discrete columns (none without them).

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
    if not sp.issparse(X):
        discrete = discrete_columns(np.asarray(X))
        if discrete.size:
            X = spread_over_bins(np.asarray(X, dtype=np.float64), discrete,
                                 np.random.RandomState(random_state))
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


Judged = tuple[Candidate, npt.NDArray[np.intp], npt.NDArray[np.float64]]


@dataclass
class MarginSearch:
    """What :func:`margin_search` found on the distinct points of the data.

    Parameters
    ----------
    best : Candidate
        The chosen partition.
    labels : ndarray of shape (n_voters,)
        Its labels on the points the vote judged (pairs repaired; the non-empty
        clusters numbered first).
    rows : ndarray of shape (n_voters,)
        The points the vote judged (positions among the points): the fitted
        points and, beyond ``max_samples``, more up to ``max_vote_samples``.
    Z : ndarray of shape (n_points, n_features)
        Every point in the working frame.
    mean, scale
        The frame's map: ``Z = (P - mean) * scale`` (``scale`` per column).
    weights : ndarray of shape (n_voters,) or None
        The judged points' relative weights (None when all are equal).
    width : float
        The fitted points' median distance to their ``n_neighbors``-th neighbour.
    candidates : list of Candidate
        Every candidate judged, then the failed ones.
    k_scores : list of KScore
        One row per number of clusters judged.
    fitted : ndarray of int or None, default=None
        Positions in ``rows`` of the points the candidates were fitted to (None:
        all of them).
    """

    best: Candidate
    labels: npt.NDArray[np.intp]
    rows: npt.NDArray[np.intp]
    Z: npt.NDArray[np.float64]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64] | None
    width: float
    candidates: list[Candidate]
    k_scores: list[KScore]
    fitted: npt.NDArray[np.intp] | None = None

    @property
    def fitted_rows(self) -> npt.NDArray[np.intp]:
        """The points the candidates were fitted to (positions among the points)."""
        return self.rows if self.fitted is None else self.rows[self.fitted]

    @property
    def sample(self) -> npt.NDArray[np.float64]:
        """The fitted points in the working frame."""
        return np.ascontiguousarray(self.Z[self.fitted_rows])

    @property
    def sample_labels(self) -> npt.NDArray[np.intp]:
        """The chosen partition's labels of the fitted points."""
        return self.labels if self.fitted is None else self.labels[self.fitted]

    @property
    def sample_weights(self) -> npt.NDArray[np.float64] | None:
        """The fitted points' relative weights (None when all are equal)."""
        if self.weights is None or self.fitted is None:
            return self.weights
        return self.weights[self.fitted]

    @property
    def chosen(self) -> KScore:
        """The row of :attr:`k_scores` of the chosen number of clusters."""
        return next(row for row in self.k_scores if row.n_clusters == self.best.n_clusters)


def _working_points(
    P: npt.NDArray[np.floating], live: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64] | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """Every point in the frame of the points of positive weight (:func:`_working_frame`)."""
    Z, mean, scale = _working_frame(P[live], weights)
    if live.size < len(P):
        Z = (np.asarray(P, dtype=np.float64) - mean) * scale
    return Z, mean, scale


def _fitted_rows(
    live: npt.NDArray[np.intp], max_samples: int, closure: PairClosure | None,
    rng: np.random.RandomState,
) -> npt.NDArray[np.intp]:
    """The points the candidates are fitted to: at most ``max_samples``, the pairs' among them."""
    m = min(live.size, int(max_samples))
    if m == live.size:
        return live
    if closure is None:
        return np.sort(live[rng.choice(live.size, m, replace=False)])
    # the pairs' points, and a random subset of the others
    others = np.setdiff1d(live, closure.rows)
    fill = rng.choice(others, max(m - closure.rows.size, 0), replace=False)
    return np.sort(np.concatenate([closure.rows, fill]))


def _voting_rows(
    live: npt.NDArray[np.intp], rows: npt.NDArray[np.intp], max_vote_samples: int | None,
    rng: np.random.RandomState,
) -> npt.NDArray[np.intp]:
    """The points the vote judges: the fitted ``rows`` and more, up to ``max_vote_samples``.

    Nothing is drawn when the fitted rows are all the points or the cap adds none,
    so a search that fits every point runs exactly as without the cap.
    """
    if max_vote_samples is None or rows.size == live.size or max_vote_samples <= rows.size:
        return rows
    if live.size <= max_vote_samples:
        return live
    others = np.setdiff1d(live, rows, assume_unique=True)
    more = rng.choice(others, int(max_vote_samples) - rows.size, replace=False)
    return np.sort(np.concatenate([rows, more]))


def _nearest_fitted(
    Z: npt.NDArray[np.float64], voters: npt.NDArray[np.intp], fitted: npt.NDArray[np.intp],
) -> npt.NDArray[np.intp] | None:
    """For each judged point, the position among the fitted points of its nearest one.

    A fitted point is its own nearest (the points are distinct); None when every
    judged point was fitted.
    """
    if fitted.size == voters.size:
        return None
    nearest = np.empty(voters.size, dtype=np.intp)
    nearest[fitted] = np.arange(fitted.size)
    rest = np.ones(voters.size, dtype=bool)
    rest[fitted] = False
    tree = NearestNeighbors(n_neighbors=1, n_jobs=query_jobs(voters.size)).fit(Z[voters[fitted]])
    nearest[rest] = tree.kneighbors(Z[voters[rest]], return_distance=False)[:, 0]
    return nearest


def _local_width(Zs: npt.NDArray[np.float64], graph: NeighborGraph, n_neighbors: int) -> float:
    """The median distance to the ``n_neighbors``-th neighbour (the spread when it is 0)."""
    width = float(np.median(graph.local_scale(int(n_neighbors))))
    if not width > 0:  # more duplicates than neighbours: the spread of the data instead
        width = float(np.sqrt(np.mean(Zs * Zs)))
    return width


def _check_ward_memory(pool: list[Any], m: int) -> None:
    if any(isinstance(spec, str) and spec == "ward" for spec in pool):
        # scipy's Ward linkage: the condensed distance matrix and a working copy
        # (measured peak 2 x 8 m (m - 1) / 2 bytes at m = 4,000 and 8,000)
        check_memory_budget(8.0 * m * (m - 1), f"The Ward candidate on max_samples={m} rows "
                            "(a condensed distance matrix)",
                            "lower max_samples or leave 'ward' out of candidates")


def _fit_or_error(fit: Any, *args: Any) -> Any:
    """``fit(*args)`` (a candidate's fit), or the exception it raised, returned."""
    try:
        return fit(*args)
    except Exception as exc:  # noqa: BLE001 - reported by the caller, in pool order
        return exc


def _judge_candidates(
    pool: list[Any], seeds: Any, Zs: npt.NDArray[np.float64], ks: tuple[int, ...],
    width: float, weights: npt.NDArray[np.float64] | None, graph: NeighborGraph,
    pair_pos: tuple[Any, Any, Any], memory: Any, verbose: int,
    nearest: npt.NDArray[np.intp] | None = None,
    vote_weights: npt.NDArray[np.float64] | None = None,
) -> tuple[list[Judged], list[Candidate]]:
    """Every candidate's partitions with their voting margins; the failed candidates.

    The candidates are fitted to ``Zs`` (weights ``weights``); with ``nearest``,
    each judged point takes the label of its nearest fitted point, and the vote
    (``graph``, ``vote_weights``) runs on the judged points.
    """
    fit_cached = check_memory(memory).cache(fit_candidate)
    calls = [delayed(_fit_or_error)(fit_cached, spec, Zs, ks, int(seed), width, weights)
             for spec, seed in zip(pool, seeds)]
    # inside joblib.parallel_config(n_jobs=...) the candidates are fitted on its workers;
    # each fit depends on its own seed only, and the results come back in pool order
    fits = (Parallel()(calls) if len(calls) > 1 and effective_n_jobs(None) > 1
            else [fn(*args, **kwargs) for fn, args, kwargs in calls])
    judged: list[Judged] = []
    failures = []
    for spec, fitted in zip(pool, fits):
        name = _candidate_name(spec)
        if isinstance(fitted, Exception):  # one failed family must not end the search
            exc = fitted
            message = f"{type(exc).__name__}: {exc}"
            failures.append(Candidate(name, 0, float("nan"), (), 0.0, message))
            warnings.warn(f"Candidate {name} failed and is left out: {message}",
                          UserWarning, stacklevel=4)
            continue
        by_k, seconds = fitted
        for k in ks:
            labels = by_k[k] if nearest is None else by_k[k][nearest]
            wv = weights if nearest is None else vote_weights
            margins = vote_margins(labels, graph.indices, k, wv)
            score = class_balanced_mean(margins, labels, k, weights=wv)
            sizes = tuple(int(s) for s in np.bincount(labels, minlength=k))
            broken = _violated_pairs(labels, *pair_pos)
            judged.append((Candidate(name, k, score, sizes, seconds, "", broken), labels,
                           margins))
            report(verbose, "%s K=%d: margin %.4f, sizes %s, violated pairs %d "
                   "(%.2f s)", name, k, score, sizes, broken, seconds)
    if not judged:
        raise RuntimeError(
            "Every candidate generator failed: " + "; ".join(
                f"{c.name}: {c.error}" for c in failures)
        )
    return judged, failures


def _rank_near_ties_by_own_labels(
    judged: list[Judged], fitted_graph: NeighborGraph,
    fitted_weights: npt.NDArray[np.float64] | None,
    vote_weights: npt.NDArray[np.float64] | None,
) -> Callable[[list[Ranked]], list[Ranked]]:
    """One K's candidates ranked by the vote on the judged points, near ties by their own labels.

    Beyond the fitted points a candidate's labels are its nearest fitted point's,
    an extension that makes a jagged fitted boundary look mixed; the fitted
    points carry the candidate's own decisions. The candidates whose score is
    within one standard error of the best (:func:`class_balanced_error` of the
    best's margins, the points taken as independent) are those the judged
    points cannot tell apart: they are ordered by their voting margin on the
    fitted points (``fitted_graph``), the others follow by score.
    """
    on_judged = {id(cand): (labels, margins) for cand, labels, margins in judged}

    def own_score(entry: Ranked) -> float:
        cand, labels = entry
        margins = vote_margins(labels, fitted_graph.indices, cand.n_clusters, fitted_weights)
        return class_balanced_mean(margins, labels, cand.n_clusters, weights=fitted_weights)

    def rank(entries: list[Ranked]) -> list[Ranked]:
        ranked = sorted(entries, key=lambda entry: -entry[0].score)
        best = ranked[0][0]
        labels, margins = on_judged[id(best)]
        error = class_balanced_error(margins, labels, best.n_clusters, weights=vote_weights)
        tied = [entry for entry in ranked if entry[0].score >= best.score - error]
        # a stable sort: equal own scores keep the judged points' order
        return sorted(tied, key=lambda entry: -own_score(entry)) + ranked[len(tied):]

    return rank


def weighted_points(
    X: npt.NDArray[np.floating], sample_weight: npt.NDArray[np.float64] | None,
) -> tuple[DistinctRows, npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """The distinct rows of ``X`` as points: ``(points, live, weights)``.

    Identical rows are one point of their summed weight, so the vote, the K rule
    and the candidates see the same points however often a row is repeated;
    ``live`` are the points of positive weight and ``weights`` are relative to the
    largest (rows repeated ``r`` times each give unit weights exactly, and so the
    same operations as rows given once).
    """
    points = distinct_rows(X, sample_weight)
    live = np.flatnonzero(points.weights > 0)
    return points, live, points.weights / points.weights[live].max()


# max_samples="auto": 3,000 fitted rows, or ROWS_PER_CLUSTER per cluster when K asks more,
# up to MAX_FITTED_ROWS (the Ward candidate's linkage on that many rows peaks at 800 MB)
FITTED_ROWS = 3000
ROWS_PER_CLUSTER = 60
MAX_FITTED_ROWS = 10_000


def fitted_sample_size(max_samples: int | str, n_clusters: int | None) -> int:
    """The rows the candidates are fitted to, at most: ``max_samples`` with ``"auto"`` resolved.

    ``"auto"`` keeps :data:`ROWS_PER_CLUSTER` rows a cluster on average:
    ``max(3000, 60 K)`` rows, at most 10,000. Up to ``K = 50`` this is 3,000
    rows; beyond, a fixed sample would leave each cluster too few rows for the
    neighbour vote and the classifier to see its shape (sipu/birch1, 1e5 rows,
    ``K = 100``: NCA .921 on 3,000 rows against .944 on 6,000, seeds 0-2).

    Parameters
    ----------
    max_samples : int or "auto"
        The estimator's parameter.
    n_clusters : int or None
        The largest number of clusters sought (None: not known in advance,
        3,000 rows).

    Returns
    -------
    rows : int

    Examples
    --------
    >>> fitted_sample_size("auto", 8), fitted_sample_size("auto", 100)
    (3000, 6000)
    >>> fitted_sample_size("auto", 500), fitted_sample_size(1000, 500)
    (10000, 1000)
    """
    if not isinstance(max_samples, str):
        return int(max_samples)
    if n_clusters is None:
        return FITTED_ROWS
    return min(max(FITTED_ROWS, ROWS_PER_CLUSTER * int(n_clusters)), MAX_FITTED_ROWS)


def largest_k(n_points: int, n_neighbors: int) -> int:
    """The most clusters the search extends to: ``2 * n_neighbors`` points each on average.

    A cluster is recognised by the neighbour vote when it holds about
    ``n_neighbors + 1`` points; twice that leaves each cluster neighbours of its
    own beyond its boundary's.

    Parameters
    ----------
    n_points : int
        Points the candidates are fitted to.
    n_neighbors : int
        Neighbours of the voting margin.

    Returns
    -------
    k : int
        At least 2.

    Examples
    --------
    >>> largest_k(3000, 7)
    214
    """
    return max(2, int(n_points) // (2 * int(n_neighbors)))


def margin_gamma(width: float) -> float:
    """The margin classifier's RBF ``gamma``: a width twice the data's local scale."""
    return 1.0 / (2.0 * (2.0 * width) ** 2)


def margin_search(
    P: npt.NDArray[np.floating],
    live: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64],
    ks: tuple[int, ...],
    pairs: PairSet,
    *,
    pool: list[Any],
    n_neighbors: int,
    max_samples: int,
    auto: bool,
    random_state: np.random.RandomState,
    memory: Any = None,
    verbose: int = 0,
    n_clusters: Any = None,
    extend: bool = False,
    columns: npt.NDArray[np.float64] | None = None,
    max_vote_samples: int | None = None,
) -> MarginSearch:
    """The label-free search of maximum-margin clustering on weighted distinct points.

    Parameters
    ----------
    P : ndarray of shape (n_points, n_features)
        The distinct points (validated, dense).
    live : ndarray of int
        The points of positive weight (the others are labelled by the classifier only).
    weights : ndarray of shape (n_points,)
        Their weights relative to the largest (:func:`weighted_points`).
    ks : tuple of int
        The numbers of clusters to try (at most the points of positive weight).
    pairs : PairSet
        Must-link / cannot-link pairs between the points.
    pool : list
        The candidate generators (see :func:`~._candidates.fit_candidate`).
    n_neighbors : int
        Neighbours of the voting margin.
    max_samples : int
        Points the candidates are fitted to, at most.
    auto : bool
        Choose K among ``ks`` (else ``ks`` holds the one K asked for).
    random_state : numpy.random.RandomState
        Draws the fitted points and the candidates' seeds.
    memory : str, joblib.Memory or None, default=None
        Cache of the candidates' fits.
    verbose : int, default=0
        Report each candidate's margin.
    n_clusters : int or str, optional
        The ``n_clusters`` asked for, named when ``max_samples`` leaves no K.
    extend : bool, default=False
        With ``auto`` and no pairs: while the K chosen is the largest K tried,
        or one less (the choice is the largest clear K, and one unclear K does
        not end it), try up to half as many again, up to
        :func:`largest_k` of the fitted points.
    columns : ndarray of shape (n_features,) or None, default=None
        Each column's divisor (:func:`~marginclust.utils._preprocessing.column_divisors`)
        before the frame's uniform scale; None divides by 1.
    max_vote_samples : int or None, default=None
        Points the voting margin ranks the candidates on, at most: beyond the
        fitted ones (drawn after them), each labelled by its nearest fitted
        point, with ``n_neighbors`` times (these points / the fitted points)
        neighbours, rounded (the reach of ``n_neighbors`` among the fitted
        points); near ties there go to the vote on the fitted points
        (:func:`_rank_near_ties_by_own_labels`). The boundaries' tests, the
        width and the classifier stay on the fitted points. None: the fitted
        points only.

    Returns
    -------
    search : MarginSearch
    """
    uniform = bool(np.all(weights[live] == 1.0))
    closure = pairs.closure
    divisors = np.ones(P.shape[1]) if columns is None else np.asarray(columns, dtype=np.float64)
    Z, mean, uniform_scale = _working_points(P / divisors if columns is not None else P, live,
                                             None if uniform else weights[live])
    # the frame of P itself: (P / c - m) s = (P - m c) (s / c)
    mean, scale = mean * divisors, uniform_scale / divisors
    rows = _fitted_rows(live, max_samples, closure, random_state)
    m = rows.size
    Zs = np.ascontiguousarray(Z[rows])
    ws = None if uniform else weights[rows]
    ks = tuple(k for k in ks if k <= m)
    if not ks:
        raise ValueError(
            f"n_clusters={n_clusters} is larger than max_samples={max_samples}, "
            "the rows the candidates are fitted to; raise max_samples."
        )
    _check_ward_memory(pool, m)
    seeds = spawn_seeds(random_state, len(pool) + 1)
    # the vote's points: a sparse sample of a thin structure has gaps that a cut can
    # pass through without a mixed vote, so the candidates are ranked on more rows
    # than they are fitted to (see MaxMarginClustering's max_vote_samples)
    voters = _voting_rows(live, rows, max_vote_samples, random_state)
    fitted = np.searchsorted(voters, rows)
    nearest = _nearest_fitted(Z, voters, fitted)
    wv = None if uniform else weights[voters]
    # the judge's points: discrete columns of a mixed table read as bins (see _discrete)
    Zv = Zs if nearest is None else np.ascontiguousarray(Z[voters])
    discrete = discrete_columns(Zv)
    Zjv = Zv if discrete.size == 0 else spread_over_bins(
        Zv, discrete, np.random.RandomState(int(seeds[-1])))
    # the vote on more rows asks as many more neighbours: the same neighbourhood, in
    # space, as n_neighbors among the fitted rows (a cut must leave the same reach
    # unmixed whatever the number of rows ranked)
    n_vote = int(n_neighbors) if nearest is None else min(
        int(round(int(n_neighbors) * voters.size / rows.size)), voters.size - 1)
    graph_v = NeighborGraph.from_data(Zjv, n_vote)
    if nearest is None:
        Zj, graph = Zjv, graph_v
    else:  # the boundaries' tests and the width stay on the fitted points
        Zj = np.ascontiguousarray(Zjv[fitted])
        graph = NeighborGraph.from_data(Zj, int(n_neighbors))
    width = _local_width(Zj, graph, n_neighbors)
    pair_pos = (np.searchsorted(voters, pairs.u), np.searchsorted(voters, pairs.v), pairs.z)
    judged, failures = _judge_candidates(pool, seeds[:-1], Zs, ks, width, ws, graph_v,
                                         pair_pos, memory, verbose, nearest, wv)

    # each K's judged row, kept when the range grows (the range grows only without
    # pairs, so the candidates of a K never change between selections)
    memo: dict[tuple[int, bool], Any] = {}

    def select() -> tuple[Candidate, npt.NDArray[np.intp], list[KScore]]:
        consistent = _consistent(judged, pairs.size)
        on_fitted = consistent if nearest is None else [
            (c, labels[fitted], margins[fitted]) for c, labels, margins in consistent]
        rank = None if nearest is None else _rank_near_ties_by_own_labels(
            consistent, graph, ws, wv)
        best, labels, table = _select(
            on_fitted, tuple(k for k in ks if any(c.n_clusters == k for c, _, _ in consistent)),
            Zj, graph.indices, ws, int(seeds[-1]), auto=auto, with_pairs=closure is not None,
            memo=memo, rank=rank, distances=graph.distances,
        )
        if nearest is not None:  # the chosen partition on every judged point
            labels = next((lab for c, lab, _ in consistent if c is best),
                          np.zeros(voters.size, dtype=np.intp))
        return best, labels, table

    best, labels, k_scores = select()
    cap = largest_k(m, n_neighbors)
    while (extend and auto and closure is None and max(ks) < cap
           and best.n_clusters in ks and best.n_clusters >= max(ks) - 1):
        # a clear K at the top of the range, or one below an unclear largest K (as
        # the choice skips one unclear K, so does the range): the data may hold more
        # clusters (each K's tests use their own seeds, so the K already judged keep
        # their rows and the search simply continues)
        more = tuple(range(max(ks) + 1, min(max(ks) + max(ks) // 2, cap) + 1))
        report(verbose, "every boundary is clear at K=%d: trying K up to %d", best.n_clusters,
               more[-1])
        extra, failed = _judge_candidates(pool, seeds[:-1], Zs, more, width, ws, graph_v,
                                          pair_pos, memory, verbose, nearest, wv)
        judged += extra
        failures += [f for f in failed if f.name not in {c.name for c in failures}]
        ks = ks + more
        best, labels, k_scores = select()
    if closure is not None and best.n_clusters > 1:
        # the pairs are facts about these rows: their labels keep them (the pairs'
        # points are fitted ones; the others follow their nearest fitted point)
        labels = _repair(labels, voters, graph_v.indices, best.n_clusters, pairs)
        if nearest is not None:
            labels = labels[fitted][nearest]
    # the non-empty clusters numbered first (the contract of every clusterer)
    labels = np.unique(labels, return_inverse=True)[1].astype(np.intp).ravel()
    return MarginSearch(best, labels, voters, Z, mean, scale, wv, width,
                        [c for c, _, _ in judged] + failures, k_scores,
                        None if nearest is None else fitted)


def margin_classifier(
    search: MarginSearch, C: float, gamma: float,
) -> SVC:
    """The RBF SVC trained on the search's partition of the fitted points (their weights)."""
    return SVC(C=float(C), gamma=gamma).fit(search.sample, search.sample_labels,
                                            sample_weight=search.sample_weights)

"""The choice among judged candidate partitions: per K the best clearly separated one, then K."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ._separation import PairSeparation, pair_separations

__all__ = ["Candidate", "KScore"]

# Reference draws of each kind (Gaussian, uniform box) per boundary tested.
_REFERENCE_DRAWS = 2


@dataclass(frozen=True)
class Candidate:
    """One candidate partition as judged by :class:`~marginclust.MaxMarginClustering`.

    Parameters
    ----------
    name : str
        The candidate's generator (or the estimator's class name).
    n_clusters : int
        Number of clusters asked of it.
    score : float
        Its class-balanced out-of-fold voting margin, in [-1, 1] (higher is better).
    cluster_sizes : tuple of int
        Points per cluster (on the rows the candidates were fitted to).
    seconds : float
        Wall time of the generator's fit (for all numbers of clusters at once).
    error : str, default=""
        Why the generator failed (then ``score`` is NaN and the sizes are empty).
    violated_pairs : int, default=0
        Must-link and cannot-link pairs given to ``fit`` that its labels break.
    """

    name: str
    n_clusters: int
    score: float
    cluster_sizes: tuple[int, ...]
    seconds: float
    error: str = ""
    violated_pairs: int = 0


# one candidate partition of one K, as ranked: the candidate and its labels
Ranked = tuple[Candidate, npt.NDArray[np.intp]]


class KScore(NamedTuple):
    """One number of clusters as judged by ``MaxMarginClustering``: a row of ``k_scores_``.

    Parameters
    ----------
    n_clusters : int
        The number of clusters.
    score : float
        Voting margin of its best candidate partition.
    separation : float
        Its weakest boundary's separation against data without clusters (1 when
        no two clusters touch; NaN for one cluster).
    reference : float
        That boundary's reference margin: two-means splits of structureless
        data shaped like the two clusters' union.
    error : float
        The reference's sampling error (standard deviation over the draws).
    valley : float
        The smallest valley (density, modes or neck) among its boundaries (``inf``
        when none).
    separated : bool
        Whether every boundary is clear (separation >= 0.5 in a valley >= 1.5,
        or beyond the reference's error in a valley >= 1.5 between two modes,
        or beyond it between two Gaussians by the mixture's own test, whatever
        the valley).
    untested : int, default=0
        Pairs of touching clusters with fewer than 16 points together: too few
        to test, their boundaries are not clear.
    """

    n_clusters: int
    score: float
    separation: float
    reference: float
    error: float
    valley: float
    separated: bool
    untested: int = 0


def _k_score(cand: Candidate, tests: list[PairSeparation]) -> KScore:
    """The row of ``k_scores_`` of one partition from its boundaries' tests."""
    if not tests:
        return KScore(cand.n_clusters, cand.score, 1.0, float("nan"), float("nan"),
                      float("inf"), True)
    weakest = min(tests, key=lambda t: (t.clear, t.separation))
    return KScore(cand.n_clusters, cand.score, min(t.separation for t in tests),
                  weakest.reference, weakest.error, min(t.valley for t in tests),
                  all(t.clear for t in tests), sum(not t.tested for t in tests))


def _consistent(
    judged: list[tuple[Candidate, npt.NDArray[np.intp], npt.NDArray[np.float64]]], n_pairs: int
) -> list[tuple[Candidate, npt.NDArray[np.intp], npt.NDArray[np.float64]]]:
    """The candidates that break at most one standard error more pairs than the fewest.

    The fewest count ``v`` among ``m`` pairs estimates a violation rate; its
    standard error (Agresti-Coull: ``p = (v + 1) / (m + 2)``, ``sqrt(m p (1 - p))``
    pairs) is the tolerance, so with few pairs a one-pair difference does not
    overrule the margin, and with many it takes a real difference in the rate.
    """
    if n_pairs == 0:
        return judged
    fewest = min(c.violated_pairs for c, _, _ in judged)
    p = (fewest + 1.0) / (n_pairs + 2.0)
    tolerance = float(np.sqrt(n_pairs * p * (1.0 - p)))
    return [entry for entry in judged if entry[0].violated_pairs <= fewest + tolerance]


def _select(
    judged: list[tuple[Candidate, npt.NDArray[np.intp], npt.NDArray[np.float64]]],
    ks: tuple[int, ...],
    Z: npt.NDArray[np.float64],
    neighbors: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64] | None,
    seed: int,
    *,
    auto: bool,
    with_pairs: bool,
    memo: dict[tuple[int, bool], tuple[KScore, Candidate, npt.NDArray[np.intp]]] | None = None,
    rank: Callable[[list[Ranked]], list[Ranked]] | None = None,
    distances: npt.NDArray[np.float64] | None = None,
) -> tuple[Candidate, npt.NDArray[np.intp], list[KScore]]:
    """The best candidate per K (the first in pool order on ties), then the K.

    ``rank`` orders one K's candidates, best first (default: by score, a stable
    sort). ``memo`` keeps each K's judged row (by K and whether an unclear K had come
    before it), so a search that grows its range tests the K it judged before only once.
    ``distances`` are those of ``neighbors`` (see :func:`pair_separations`).

    Each K's best partition has its boundaries judged against structureless
    data (:func:`pair_separations`). With ``auto`` the K kept is the largest
    whose partition is clearly separated, and one cluster when no K is (see the
    class docstring). Up to the first K that is not, each K keeps its
    best-scoring clearly separated candidate; past it only each K's
    best-scoring candidate is judged (a bound on the cost: the finer partitions
    that count are those the margin itself prefers).
    """
    by_k: dict[int, list[Ranked]] = {}
    for cand, labels, _ in judged:
        by_k.setdefault(cand.n_clusters, []).append((cand, labels))
    best_per_k: dict[int, tuple[Candidate, npt.NDArray[np.intp]]] = {}
    table: list[KScore] = []
    chosen, ended = 0, False
    for k in sorted(ks):
        # by score, the first in pool order on ties; the first whose boundaries are
        # all clear is kept (a high margin with a boundary across uniform density,
        # a cut in a sparse tail, is not a partition into clusters), else the top
        if memo is not None and (k, ended) in memo:
            row, cand, labels = memo[(k, ended)]
        else:
            ranked = (rank(by_k[k]) if rank is not None
                      else sorted(by_k[k], key=lambda entry: -entry[0].score))
            rows: list[tuple[KScore, Candidate, npt.NDArray[np.intp]]] = []
            for cand, labels in ranked[:1] if ended else ranked:
                # the others only need to know whether they are separated
                tests = pair_separations(Z, labels, k, neighbors, weights=weights,
                                         draws=_REFERENCE_DRAWS, seed=seed + k,
                                         until_unclear=bool(rows), distances=distances)
                rows.append((_k_score(cand, tests), cand, labels))
                if rows[-1][0].separated:
                    break
            row, cand, labels = next((r for r in rows if r[0].separated), rows[0])
            if memo is not None:
                memo[(k, ended)] = (row, cand, labels)
        best_per_k[k] = (cand, labels)
        table.append(row)
        if row.separated:
            # the largest clear K, also past an unclear one: with few points per
            # cluster one boundary of an intermediate partition can miss its
            # valley while every boundary of a finer one is clear
            chosen = k
        # past the first unclear K only each K's best-scoring candidate is judged
        ended = ended or (chosen > 0 and not row.separated)
    if not auto:
        return (*best_per_k[ks[0]], table)
    if chosen == 0 and with_pairs:  # the pairs ask for clusters: the clearest K
        chosen = max(table, key=lambda row: row.separation).n_clusters
    if chosen == 0:
        m = Z.shape[0]
        one = Candidate("one cluster", 1, 1.0, (m,), 0.0)
        table.insert(0, KScore(1, 1.0, float("nan"), float("nan"), float("nan"),
                               float("nan"), True))
        return one, np.zeros(m, dtype=np.intp), table
    return (*best_per_k[chosen], table)

"""Whether the clusters of a partition are distinct: each boundary against structureless data.

A margin alone cannot count clusters: merging two well-separated clusters keeps
a partition perfectly separable, so the voting margin never falls as ``K``
falls, and it cannot say "one cluster". What it misses is a comparison with
what the same kind of split achieves where there is nothing to find (the gap
statistic's idea, Tibshirani, Walther & Hastie, JRSS-B 2001). The comparison is
made per boundary, not per partition: for every pair of clusters that touch
(some point has a neighbour of the other among its ``n_neighbors``), their
union is split again into the two, and the split's voting margin is compared
with the margin of a two-means split of reference data that holds no cluster
(the hyperplane through its mean across its longest principal axis, where
two-means ends on such data):
as many points as the union, drawn (i) from a Gaussian with the union's mean
and covariance and (ii) uniformly over the box of the union's principal axes
(the reference the gap statistic recommends), ``draws`` of each; the larger of
the two mean margins is the reference (the more separable structureless model
of the two, so that neither uniform nor Gaussian data is taken for clusters).

Two numbers, on one scale, say whether a boundary is real; it is clear when both
reach 0.5 (and the split beats the structureless reference by two of its
standard deviations over the draws):

- its *separation*, ``(score - reference) / (1 - reference)``: the share of the
  structureless split's mixed neighbourhoods that the boundary avoids (1: no
  point has a neighbour across; 0: no better than splitting data without
  clusters shaped like the union).
- its separation *within*, ``1 - mass / own``: ``mass`` is the boundary's
  mass, the margin its points lack counted in points (``sum_i (1 - m_i)``),
  and ``own`` the smallest mass of the two clusters' own cuts (each cluster
  cut through its mean across its longest axis, and at its sparsest link,
  Genie's two-cluster cut of its spanning tree, each judged by the same vote
  within it; the boundaries judged were chosen where the data are sparse, and
  so is the second cut): the boundary must also be cleaner than a cut through
  either cluster itself. A structureless union is a convex blob, so a thin
  ring or chain cut into arcs looks well separated against it; but an arc,
  cut through itself, leaves as many mixed neighbours as the cut between two
  arcs (a curve has the same cross-section everywhere), while two blobs
  touching at a neck, or meeting in a valley of density, are cut more cleanly
  between than through their middles. Masses count points, not shares of a
  cluster, since the own cut halves the cluster it splits. This reference
  needs no draw and keeps the data's intrinsic shape.

A pair whose clusters have no neighbour across is clear (separation 1): no point
has a neighbour in the other cluster, the vote's own notion of a gap. On a line
(one column) that is true of almost any cut, and every cut leaves about
``n_neighbors`` mixed votes, or none, whatever the density there: the vote
cannot judge it. There a boundary is judged by its gap: the shortest distance
across over the sparser cluster's median distance to its ``n_neighbors``-th
neighbour, counted in units of the same ratio for the widest gap of uniform
samples of the same range and size (the widest of ``m`` spacings is about
``ln m`` times the typical one), its *valley*; a gap is clear from 1.5 on, so
that a cut in a sparse tail, or between two pieces of a uniform line, is not.

Prior validation of the inputs is assumed throughout this module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from sklearn.neighbors import NearestNeighbors

from ..feature_maps._neighbors import NeighborGraph
from ..objectives._margin import class_balanced_mean, vote_margins
from ..solvers._genie import euclidean_mst, genie_labels

__all__ = [
    "CLEAR_SEPARATION",
    "VALLEY",
    "PairSeparation",
    "pair_separations",
    "structureless_reference",
]

# A clear boundary removes at least half of the mixed neighbourhoods that splitting
# structureless data of the same size and spread leaves.
CLEAR_SEPARATION = 0.5
# On a line, a gap is clear when it is 1.5 times as wide, in units of the clusters'
# neighbour radius, as the widest gap of uniform data of the same range and size.
VALLEY = 1.5
# The split must beat the reference by this many of its standard deviations: on a line
# or with few points the structureless split is itself nearly perfect and the
# separation's denominator 1 - reference is as small as the reference's sampling error.
_Z_ERROR = 2.0
# Genie's Gini threshold for a cluster's own cut at its sparsest link (its authors'
# default, as in the candidate pool): it keeps the two sides of comparable size.
_GINI = 0.3
# Pairs of clusters smaller than this in total are not tested (the vote needs a few
# neighbours on each side; such a pair is judged by the margin alone).
_MIN_UNION = 16


class PairSeparation(NamedTuple):
    """The boundary between two clusters, judged against structureless data.

    Parameters
    ----------
    clusters : tuple of int
        The two clusters.
    score : float
        Class-balanced voting margin of their two-cluster split, on their union.
    reference : float
        The larger mean margin of two-means splits of Gaussian and uniform
        reference data shaped like the union.
    error : float
        Standard deviation of the reference margins (their sampling error).
    separation : float
        ``(score - reference) / (1 - reference)``, 1 when no point has a
        neighbour across (NaN on a line).
    within : float
        ``1 - mass / own``: the boundary's mass against the smaller mass of the
        two clusters' own principal-axis splits (NaN on a line, or when no
        cluster is large enough to be cut).
    valley : float
        On a line: the gap's width against the widest gap of uniform data (see
        the module); NaN elsewhere.
    """

    clusters: tuple[int, int]
    score: float
    reference: float
    error: float
    separation: float
    within: float
    valley: float

    @property
    def clear(self) -> bool:
        """Whether the boundary is real (see the module)."""
        if not np.isnan(self.valley):  # on a line: the gap alone
            return bool(self.valley >= VALLEY)
        beyond = not self.score - self.reference < _Z_ERROR * self.error  # NaN: no test
        return bool(beyond and not self.separation < CLEAR_SEPARATION
                    and not self.within < CLEAR_SEPARATION)


def structureless_reference(
    Z: npt.NDArray[np.float64], kind: str, rng: np.random.RandomState
) -> npt.NDArray[np.float64]:
    """Points without clusters shaped like ``Z``: a Gaussian, or a uniform principal-axes box.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The points to imitate (at least two).
    kind : {"gaussian", "box"}
        ``"gaussian"``: the mean and covariance of ``Z`` (through its thin SVD,
        so a rank-deficient covariance is fine). ``"box"``: uniform over the
        range of ``Z`` on each principal axis (Tibshirani, Walther & Hastie's
        reference for the gap statistic).
    rng : numpy.random.RandomState
        The draws.

    Returns
    -------
    R : ndarray of shape (n_samples, n_features)
        As many points as ``Z``.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.RandomState(0).randn(200, 2) * [3.0, 1.0]
    >>> R = structureless_reference(Z, "box", np.random.RandomState(1))
    >>> R.shape, bool(np.ptp(R[:, 0]) > 2 * np.ptp(R[:, 1]))
    ((200, 2), True)
    """
    m = Z.shape[0]
    mean = Z.mean(axis=0)
    centred = Z - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    if kind == "gaussian":
        scores = rng.standard_normal((m, s.size)) * (s / np.sqrt(max(m - 1, 1)))
    else:
        P = centred @ vt.T
        lo, hi = P.min(axis=0), P.max(axis=0)
        scores = lo + rng.random_sample((m, s.size)) * (hi - lo)
    return np.asarray(mean + scores @ vt, dtype=np.float64)


def _split_margin(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], n_neighbors: int,
    weights: npt.NDArray[np.float64] | None = None,
) -> float:
    """Class-balanced voting margin of a two-cluster split of ``Z``."""
    return _split_votes(Z, labels, n_neighbors, weights)[0]


def _split_votes(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], n_neighbors: int,
    weights: npt.NDArray[np.float64] | None = None,
) -> tuple[float, float]:
    """A two-cluster split's class-balanced margin and its boundary mass.

    The mass is ``sum_i w_i (1 - m_i)``: the margin the split's points lack,
    counted in points (not as a share of their cluster), so that cuts through
    clusters of different sizes compare by the size of their cross-sections.
    """
    graph = NeighborGraph.from_data(Z, min(int(n_neighbors), Z.shape[0] - 1))
    margins = vote_margins(labels, graph.indices, 2, weights)
    lack = 1.0 - margins
    mass = float(lack.sum() if weights is None else lack @ weights)
    return class_balanced_mean(margins, labels, 2, weights=weights), mass


def _gap_ratio(Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp],
               n_neighbors: int) -> float:
    """The shortest distance across over the sparser cluster's median neighbour radius."""
    graph = NeighborGraph.from_data(Z, n_neighbors)
    scale = graph.local_scale(graph.n_neighbors)
    typical = max(float(np.median(scale[labels == c])) for c in (0, 1))
    A, B = Z[labels == 0], Z[labels == 1]
    gap = float(NearestNeighbors(n_neighbors=1).fit(B).kneighbors(A)[0].min())
    return gap / typical if typical > 0 else 1.0


def _share_avoided(score: float, reference: float) -> float:
    """``(score - reference) / (1 - reference)``; 0 when the reference is perfect too."""
    if reference < 1.0:
        return (score - reference) / (1.0 - reference)
    return 0.0


def _principal_split(R: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """Two-means' split of structureless data: across its longest principal axis, at the mean.

    For a Gaussian or a uniform box the two-means optimum is the hyperplane
    through the mean orthogonal to the first principal axis (the split of least
    within-cluster variance), so it is used directly instead of a k-means fit.
    """
    centred = R - R.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return (centred @ vt[0] > 0).astype(np.intp)


def _line_gap(Z: npt.NDArray[np.float64], n_neighbors: int, rng: np.random.RandomState,
              draws: int) -> float:
    """On a line, the widest gap of uniform data over its neighbour radius.

    Cuts on a line are chosen at its widest gaps, and the widest of ``m``
    spacings of a uniform sample is about ``ln m`` times the typical one: a gap
    is a valley only as far as it is wider than that. Mean over ``draws``
    uniform samples of the line's range and size, at least 1.
    """
    m = Z.shape[0]
    lo, hi = float(Z.min()), float(Z.max())
    ratios = []
    for _ in range(draws):
        x = np.sort(lo + rng.random_sample(m) * (hi - lo))
        radius = NeighborGraph.from_data(x[:, None], n_neighbors).local_scale(n_neighbors)
        ratios.append(float(np.max(np.diff(x)) / np.median(radius)))
    return max(1.0, float(np.mean(ratios)))


def pair_separations(
    Z: npt.NDArray[np.float64],
    labels: npt.NDArray[np.intp],
    n_clusters: int,
    neighbors: npt.NDArray[np.intp],
    *,
    weights: npt.NDArray[np.float64] | None = None,
    n_neighbors: int = 7,
    draws: int = 2,
    seed: int = 0,
    until_unclear: bool = False,
) -> list[PairSeparation]:
    """Every boundary of a partition, judged against structureless data (see the module).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The points.
    labels : ndarray of shape (n_samples,)
        Their clusters, in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters.
    neighbors : ndarray of shape (n_samples, k)
        Each point's nearest neighbours in ``Z`` (itself left out): which
        clusters touch.
    weights : ndarray of shape (n_samples,) or None, default=None
        Weight of each point in the vote (a point of weight ``r`` stands for
        ``r`` identical rows); the references are unweighted points.
    n_neighbors : int, default=7
        Neighbours of the vote.
    draws : int, default=2
        Reference draws of each kind per pair.
    seed : int, default=0
        Seeds the draws and the two-means splits.
    until_unclear : bool, default=False
        Stop at the first boundary that is not clear (its test is the last of
        the list): enough to tell whether the partition is separated.

    Returns
    -------
    pairs : list of PairSeparation
        One per pair of clusters with a neighbour across (and at least
        ``16`` points together), in the order of the clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps._neighbors import NeighborGraph
    >>> rng = np.random.RandomState(0)
    >>> Z = np.r_[rng.randn(150, 2), rng.randn(150, 2) + [6.0, 0.0]]
    >>> labels = np.repeat([0, 1], 150)
    >>> graph = NeighborGraph.from_data(Z, 7)
    >>> all(p.clear for p in pair_separations(Z, labels, 2, graph.indices))
    True
    >>> halves = (Z[:, 1] > np.median(Z[:, 1])).astype(np.intp)  # across both blobs
    >>> [p.clear for p in pair_separations(Z, halves, 2, graph.indices)]
    [False]
    """
    own = labels[:, None]
    across = labels[neighbors]
    touching = np.zeros((n_clusters, n_clusters), dtype=bool)
    mixed = across != own
    touching[np.broadcast_to(own, across.shape)[mixed], across[mixed]] = True
    touching |= touching.T
    rng = np.random.RandomState(seed)
    line = Z.shape[1] == 1
    cuts: dict[int, float] = {}  # boundary mass of each cluster's own principal-axis split

    def own_cut(c: int) -> float:
        if c not in cuts:
            rows = np.flatnonzero(labels == c)
            cuts[c] = float("nan")
            if rows.size >= _MIN_UNION:
                Zc = Z[rows]
                wc = None if weights is None else weights[rows]
                # the cleaner of a cut through the middle and one at the cluster's
                # sparsest link (Genie's two-cluster cut of its spanning tree): the
                # boundaries judged were chosen where the data are sparse, and so is this
                genie = genie_labels(euclidean_mst(Zc), 2, _GINI)[2]
                cuts[c] = min(_split_votes(Zc, _principal_split(Zc), n_neighbors, wc)[1],
                              _split_votes(Zc, genie, n_neighbors, wc)[1])
        return cuts[c]

    out: list[PairSeparation] = []
    # touching pairs first: the boundaries most likely to be unclear
    order = sorted(((a, b) for a in range(n_clusters) for b in range(a + 1, n_clusters)),
                   key=lambda ab: not touching[ab])
    nan = float("nan")
    for a, b in order:
        if until_unclear and out and not out[-1].clear:
            break
        union = np.flatnonzero((labels == a) | (labels == b))
        if union.size < _MIN_UNION:
            continue
        Zu = Z[union]
        split = (labels[union] == b).astype(np.intp)
        k = min(int(n_neighbors), union.size - 1)
        w = None if weights is None else weights[union]
        if line:
            # on a line the vote cannot judge a cut: its gap alone does
            valley = _gap_ratio(Zu, split, k) / _line_gap(Zu, k, rng, int(draws))
            out.append(PairSeparation((a, b), _split_margin(Zu, split, k, w), nan, nan, nan,
                                      nan, valley))
            continue
        if not touching[a, b]:
            # no point has a neighbour across: the vote's own notion of a gap, clear
            out.append(PairSeparation((a, b), 1.0, nan, nan, 1.0, 1.0, nan))
            continue
        score, mass = _split_votes(Zu, split, k, w)
        refs = []
        for kind in ("gaussian", "box"):
            values = []
            for _ in range(int(draws)):
                R = structureless_reference(Zu, kind, rng)
                values.append(_split_margin(R, _principal_split(R), k))
            refs.append(values)
        reference = max(float(np.mean(v)) for v in refs)
        error = float(np.std(np.concatenate(refs)))
        own_cuts = [c for c in (own_cut(a), own_cut(b)) if not np.isnan(c)]
        # the boundary's mass against the cleaner of the two clusters' own cuts
        within = (1.0 - mass / min(own_cuts) if min(own_cuts) > 0 else 0.0) if own_cuts \
            else nan
        out.append(PairSeparation((a, b), score, reference, error,
                                  _share_avoided(score, reference), within, nan))
    return out

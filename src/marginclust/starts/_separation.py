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
With weights the mean, the covariance and so the principal axes are weighted
(a row of weight ``r`` shapes them as ``r`` copies would), and the reference
holds one unweighted point per point (identical rows are one point in the vote).

Two numbers say whether a boundary is real (and the split must beat the
reference by two of its standard deviations over the draws; the second is
read in three ways and the largest counts):

- its *separation*, ``(score - reference) / (1 - reference)``: the share of the
  structureless split's mixed neighbourhoods that the boundary avoids (1: no
  point has a neighbour across; 0: no better than splitting data without
  clusters). A boundary is clear from 0.5 on: it removes at least half (or
  it lies in a valley between two modes, below).
- its *valley*: how much sparser the data are at the boundary than in the
  clusters, ``(rho_B / rho_U) ** d``, with ``rho_B`` the median distance to the
  ``n_neighbors``-th neighbour of the points whose vote is mixed (the
  boundary's points), ``rho_U`` the same median in a cluster, and ``d`` the
  union's intrinsic dimension (Levina & Bickel's maximum-likelihood estimate
  from the same neighbour distances, averaged as MacKay & Ghahramani propose):
  the k-nearest-neighbour density estimate is proportional to ``rho ** -d``, so
  this is the ratio of the typical density to the boundary's. Neighbour counts
  do not see density: a cut across a thin ring or chain leaves few mixed votes
  (a high separation) although the density there is the ring's own; a boundary
  between clusters lies where the data are sparser than in the clusters (a
  valley: Hartigan's clusters are the modes of a density). ``rho_U`` is the
  sparser cluster's median (a valley is sparser than both), and ``rho_B`` a
  lower bound (the median less two standard errors), so that a few boundary
  points in a noisy stretch of a ring do not pass for a valley. Where neither
  cluster has a mode (below: at its centre, or clearly, by two standard
  errors, at the centre of either half of its principal-axis split, as two
  blobs taken as one cluster have) nothing anchors the cut: arcs of a ring,
  pieces of a moon, stretches of uniform density. The search then puts the
  cut where the sample happens to be sparsest: a cut of ``b`` boundary points
  could have taken any of about ``n / b`` places along a union of ``n``, and
  the bound is ``z`` standard errors, ``z`` the normal quantile of 2.5 %
  shared among those places (Bonferroni; at least two). On a uniform tube
  ring of 500 points (radial sd .065 of its radius, as each ring of FCPS's
  chainlink) the search's cut had boundary radii 1.3 to 1.85 times the ring's
  median, and under two standard errors half of such rings were cut. Beside
  a mode the cut lies at the saddle next to it, and two standard errors
  stay. On a line (one
  column) or a curve the vote cannot judge a cut (every cut leaves about
  ``n_neighbors`` mixed votes, or none, whatever the density there), and the
  margin puts its cuts at the widest gaps, so the boundary's radius reads wide
  however it is bounded. There ``rho_B`` is the width of the gap, the
  shortest distance across, counted in units of the widest gap of uniform
  samples of the same size on a segment (the widest of ``m`` spacings is about
  ``ln m`` times the typical one), or the boundary is a neck (below): a cut in
  a sparse tail, between two pieces of a uniform line or across a ring or a
  spiral, is no valley. A union is a curve when its intrinsic dimension ``d``
  is under 1.5 and the link across joins two ends: at an end the mean
  of a point's ``n_neighbors`` nearest points of its own cluster lies behind
  it, away from the other cluster (at the end of a uniform line by
  ``(k + 1) / (2 k)`` of the distance to the ``k``-th of them; half of that
  counts), where inside a curve it lies along the curve, across from nothing.
  Two curves side by side, as two spirals, are not one curve cut: their link
  joins points inside both, and the boundary is judged as off a curve.
  A boundary is in a valley from 1.5 on: the density there is at most two
  thirds of the clusters'.
- the same valley read *between the modes* (Hartigan's clusters are the modes
  of a density, and a boundary between two of them runs through a saddle):
  the density at the sparser cluster's centre over the density at the
  boundary's centre. A cluster's centre is read where its (weighted) mean
  falls, twice: the distance from the mean to its ``n_neighbors``-th nearest
  point, and the median neighbour radius of the tenth of the cluster nearest
  the mean (at least ``n_neighbors`` points). The boundary (its mixed-vote
  points) is read as the median neighbour radius of the tenth of it nearest
  its mean, or of all of it where that is denser: a sparse spot in the middle
  of a cut through data of uniform density is no saddle (and the margin
  prefers cuts through such spots). The reading is a lower bound: the log
  ratio of the radii less two of its standard errors (the relative errors of
  the two medians in quadrature; the distance at the mean is taken as read),
  the smallest over both clusters and both of their readings, times ``d``.
  Both sides are read at a centre, so the comparison holds in any dimension
  (a Gaussian's typical point lies far below its peak from three dimensions
  on, and so does a typical point of the boundary); the median reading
  compares a boundary with a cluster's typical point, which in the plane sits
  at half a Gaussian's peak, so it finds two unit Gaussians only from about
  3.6 standard deviations apart, the modes from about 3
  (``exp(D**2 / 8) / 2 >= 1.5``; noise aside, the error bound asks for a
  little more). A cluster whose centre is no denser than its median point
  has no mode there (the mean of a ring's arc, of a moon or of a shell falls
  where the cluster has no points; a cluster of uniform density has no
  peak), and then the reading is 0. A boundary in a valley between the modes
  needs no separation of 0.5: a saddle below two modes is a boundary by
  Hartigan's definition however many neighbourhoods it mixes, so it only has
  to beat the reference by its two standard deviations.
- the same valley read as a *neck* (Shi & Malik's normalised cut: a real
  boundary is a cheaper cut than any cut through a cluster): the neighbourhoods
  the boundary mixes, ``b`` (weighted), against those mixed by the cheaper of
  the two clusters' own principal-axis cuts, ``m`` (each cluster halved at its
  (weighted) mean across its longest (weighted) principal axis, in its own
  neighbour graph). The
  neck is ``m / b`` at the lower end of its one-sided 97.5 % Clopper-Pearson
  interval (``b`` mixed neighbourhoods out of ``b + m``; with weights, of Kish's
  effective number of them), and the valley is the larger of the two readings.
  Blobs of uniform density that touch at a narrow waist have no density valley
  but a neck; a cut across a ring or a chain
  mixes as many neighbourhoods as a cut across either piece (no neck), and with
  few boundary points the interval is wide (a gap in a sparse sample is no
  neck). Clusters of at most ``n_neighbors + 1`` points have no cut to compare.

Two Gaussian clusters a few standard deviations apart have a valley too
shallow for a sample of a few hundred points to show at this confidence (two
unit Gaussians 3 sd apart: 1.6 between the modes; the best count of points near
the modes and the saddle, placed knowing the labels, bounds it at 0.9 to 1.6
on such pairs of 125 to 333 points; ``benchmarks/valley_power.py``).
Where a boundary beats the reference but misses its valley or its separation,
the mixture's own test stands in for both (``gaussians``): two full-covariance
Gaussians, fitted by EM from the split, must have a lower BIC (Schwarz 1978)
than one Gaussian and than the uniform density on the union's principal-axes
box (the two structureless references), their responsibilities must give the
split's labels to 90 % of the weight, and each must be Gaussian across the
line between their means: there the skewness and the kurtosis of its points
(weighted by their responsibilities) on each of its principal axes pass
D'Agostino's and Anscombe & Glynn's tests; and along the line its tail away
from the other (which that one does not reach) has a Gaussian half's kurtosis
(reflected about the mean); all two-sided at 5 % shared among them. Along the
line the two overlap and their responsibilities shape them, so only the far
tail is tested there. Data without clusters are flat across the line (a
uniform box, a disc), curved (a moon), or end along it (a piece of an arc or
of a uniform stretch), and fail; so does a component whose far tail is cut by
a third cluster. Each component needs 20 effective
points and enough for a full covariance, and the union two columns; weights
are rescaled to sum to Kish's effective number, so repeating every row
changes nothing.

Two draws of each kind are few, and their standard deviation also holds the
difference between the two kinds' means. Where they are all that keeps a
boundary from being one between two modes (it is in a valley and between two
modes, and fails only the two standard deviations), each kind is drawn up to
eight times (a sequential Monte Carlo test, Besag & Clifford, Biometrika 1991:
more draws only where the first leave the answer open), and the split must
beat the larger kind's mean by the upper end of a 95 % prediction interval of
one more of its margins, ``t(0.975, n - 1) * sqrt(1 + 1 / n)`` standard
deviations of its own ``n`` margins. Elsewhere the two draws decide.

A pair whose clusters have no neighbour across is clear (separation 1, valley
``inf``): no point has a neighbour in the other cluster, the vote's own notion of
a gap. On a line that is true of almost any cut, and so it is of a cut through a
sparse stretch of a curve, so there the boundary is judged by its gap alone
(above): where the pair's points lie on a line or a curve (their intrinsic
dimension, read from the neighbour distances at hand, is under 1.5) the pair
is measured, and its gap decides where the link across joins two ends.
Two clusters that touch but hold fewer than 16 points together cannot be
tested (the vote needs a few neighbours on each side, the references a
spread): their boundary is not shown, and not clear (separation 0, valley
1). Thirty points of uniform data cut into ten clusters of three would
otherwise have no boundary to test and pass for ten clusters.
Prior validation of the inputs is assumed throughout this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy.stats import beta, norm
from scipy.stats import t as student_t
from sklearn.neighbors import NearestNeighbors

from ..feature_maps._neighbors import NeighborGraph
from ..objectives._gaussian_mixture import (
    bic,
    effective_size,
    m_step,
    moment_scores,
    tail_kurtosis_score,
)
from ..objectives._margin import class_balanced_mean, vote_margins
from ..solvers._gaussian_em import gaussian_mixture_em
from ..utils._blocks import query_jobs

__all__ = [
    "CLEAR_SEPARATION",
    "MIN_UNION",
    "VALLEY",
    "PairSeparation",
    "intrinsic_dimension",
    "pair_separations",
    "structureless_reference",
]

# A clear boundary removes at least half of the mixed neighbourhoods that splitting
# structureless data of the same size and spread leaves.
CLEAR_SEPARATION = 0.5
# A boundary lies in a valley when the density there is at most 1 / VALLEY of the
# union's typical density (1 would accept a cut through data of uniform density).
VALLEY = 1.5
# The split must beat the reference by this many of its standard deviations: on a line
# or with few points the structureless split is itself nearly perfect and the
# separation's denominator 1 - reference is as small as the reference's sampling error.
_Z_ERROR = 2.0
# the one-sided level of a cut's valley where no mode anchors it, shared among the
# places the cut could take
_FREE_CUT_LEVEL = 0.025
# A centre is this share of a cluster's points nearest its mean (at least n_neighbors of
# them): enough radii for a steady median, few enough to stay at a convex cluster's mode.
_CENTRE_SHARE = 0.1
# One-sided confidence of the neck's lower bound (two standard errors, as the valley's).
_NECK_CONFIDENCE = 0.975
# Points whose intrinsic dimension is under this lie on a line or a curve (it rounds to
# one): there the vote cannot judge a cut, and the gap across does.
_CURVE = 1.5
# Where the first draws leave open a boundary that everything else calls one between two
# modes, each kind is drawn up to this many times, and the split must beat the upper end
# of this one-sided confidence of a further structureless margin.
_SETTLE_DRAWS = 8
_SETTLE_CONFIDENCE = 0.975
# Two Gaussians: the mixture's responsibilities must give the split's labels to this share
# of the weight, each component must hold this many effective points (D'Agostino's
# kurtosis test asks for 20), and its moments must pass at this family-wise confidence.
_GAUSSIAN_AGREEMENT = 0.9
_MIN_GAUSSIAN = 20
_GAUSSIAN_CONFIDENCE = 0.95
# Pairs of clusters smaller than this in total cannot be tested (the vote needs a few
# neighbours on each side): where two such clusters touch, no boundary is shown.
MIN_UNION = 16


class PairSeparation(NamedTuple):
    """The boundary between two clusters, judged against structureless data.

    Parameters
    ----------
    clusters : tuple of int
        The two clusters.
    score : float
        Class-balanced voting margin of their two-cluster split, on their union
        (NaN off a line when no point has a neighbour across: not measured).
    reference : float
        The larger mean margin of two-means splits of Gaussian and uniform
        reference data shaped like the union.
    error : float
        Standard deviation of the reference margins (their sampling error): of
        all of the draws, or of the chosen kind's where more draws settled the
        boundary.
    separation : float
        ``(score - reference) / (1 - reference)``, 1 when no point has a
        neighbour across.
    valley : float
        The union's typical density over the boundary's, or the boundary's
        neck or the valley between the modes where that is larger (see the
        module; ``inf`` when there is no boundary point).
    modes : float, default=0.0
        The valley between the two clusters' modes: the density at the sparser
        cluster's centre over the density at the boundary's centre, at its lower
        bound (0 when a cluster has no mode at its centre, on a line, or when
        not measured).
    multiplier : float, default=2.0
        The split must beat the reference by this many errors: 2, or Student's
        prediction multiplier where more draws of one kind settled the
        boundary (see the module).
    gaussians : bool, default=False
        Whether the two clusters are two Gaussians by the mixture's own test
        (measured only where the split beats the reference and the valley or
        the separation falls short; see the module): it stands in for both.
    tested : bool, default=True
        False for two touching clusters of fewer than ``MIN_UNION`` points
        together: too few to test, no boundary shown (separation 0, valley 1,
        not clear).
    """

    clusters: tuple[int, int]
    score: float
    reference: float
    error: float
    separation: float
    valley: float
    modes: float = 0.0
    multiplier: float = _Z_ERROR
    gaussians: bool = False
    tested: bool = True

    @property
    def clear(self) -> bool:
        """Whether the boundary is real: beyond the reference's error, and in a valley
        and clearly separated unless it lies between two modes, or between two Gaussians;
        never where the pair was too small to test."""
        if not self.tested:
            return False  # no boundary shown (its readings are placeholders, not measured)
        # NaN: no test
        beyond = not self.score - self.reference < self.multiplier * self.error
        # NaN: on a line, no test
        separated = not self.separation < CLEAR_SEPARATION or self.modes >= VALLEY
        return beyond and (self.gaussians or (separated and self.valley >= VALLEY))


def structureless_reference(
    Z: npt.NDArray[np.float64], kind: str, rng: np.random.RandomState,
    weights: npt.NDArray[np.float64] | None = None,
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
    weights : ndarray of shape (n_samples,) or None, default=None
        Positive weights of the points: the mean, the covariance and so the
        principal axes are weighted (the covariance as :func:`numpy.cov` with
        ``aweights``); the reference still has one unweighted point per point.

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
    mean, centred, sd, vt = _principal_axes(Z, weights)
    if kind == "gaussian":
        scores = rng.standard_normal((m, sd.size)) * sd
    else:
        P = centred @ vt.T
        lo, hi = P.min(axis=0), P.max(axis=0)
        scores = lo + rng.random_sample((m, sd.size)) * (hi - lo)
    return np.asarray(mean + scores @ vt, dtype=np.float64)


def _principal_axes(
    Z: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
           npt.NDArray[np.float64]]:
    """The (weighted) mean of ``Z``, ``Z`` centred on it, and its principal axes (module).

    Returns ``(mean, centred, sd, vt)``: the rows of ``vt`` are the axes of the
    covariance (:func:`numpy.cov`'s, with ``aweights=weights``: divided by
    ``V1 - V2 / V1`` for weight sums ``V1`` and squared-weight sums ``V2``, which
    is ``m - 1`` for equal weights) and ``sd`` the standard deviations along them.
    The weighted axes are the right singular vectors of the centred rows scaled
    by the square roots of their weights.
    """
    m = Z.shape[0]
    if weights is None:
        mean = Z.mean(axis=0)
        centred = Z - mean
        _, s, vt = np.linalg.svd(centred, full_matrices=False)
        return mean, centred, s / np.sqrt(max(m - 1, 1)), vt
    w = np.asarray(weights, dtype=np.float64)
    mean = np.average(Z, axis=0, weights=w)
    centred = Z - mean
    _, s, vt = np.linalg.svd(centred * np.sqrt(w)[:, None], full_matrices=False)
    v1 = float(w.sum())
    divisor = v1 - float(np.sum(w * w)) / v1
    return mean, centred, s / np.sqrt(divisor) if divisor > 0 else np.zeros_like(s), vt


def intrinsic_dimension(distances: npt.NDArray[np.float64]) -> float:
    """Maximum-likelihood intrinsic dimension from each point's neighbour distances.

    Levina & Bickel (NIPS 2004): ``1 / mean_j log(T_k / T_j)`` per point, with
    ``T_j`` its distance to the j-th neighbour; the per-point inverses are
    averaged before inverting (MacKay & Ghahramani's correction). Points with a
    zero distance (copies) are left out; at least one dimension.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, k)
        Sorted distances to each point's ``k >= 2`` nearest neighbours.

    Returns
    -------
    dimension : float
        The estimate (1.0 when fewer than ten points qualify).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps._neighbors import NeighborGraph
    >>> plane = np.random.RandomState(0).rand(2000, 2)
    >>> round(intrinsic_dimension(NeighborGraph.from_data(plane, 7).distances))
    2
    """
    inverse = _inverse_dimensions(distances)
    valid = inverse[np.isfinite(inverse)]
    if valid.size < 10 or distances.shape[1] < 2:
        return 1.0
    return _dimension(float(np.mean(valid)))


def _inverse_dimensions(distances: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each point's ``mean_j log(T_k / T_j)`` (:func:`intrinsic_dimension`), NaN for copies."""
    out = np.full(distances.shape[0], np.nan)
    if distances.shape[1] < 2:
        return out
    keep = np.all(distances > 0, axis=1)
    D = distances[keep]
    out[keep] = np.log(D[:, -1:] / D[:, :-1]).sum(axis=1) / (D.shape[1] - 1)
    return out


def _dimension(inverse: float) -> float:
    """The dimension from the mean of the points' inverse estimates, at least one."""
    return max(1.0, 1.0 / inverse) if inverse > 0 else 1.0


def _split_margin(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], n_neighbors: int,
    weights: npt.NDArray[np.float64] | None = None, *, valley: bool = True,
    rng: np.random.RandomState | None = None, draws: int = 2,
) -> tuple[float, float, float, bool]:
    """Voting margin of a two-cluster split, its valley and its modes' valley (the module).

    The valley is the largest of the three readings (density, modes, neck),
    computed only as far as needed to know whether it reaches ``VALLEY``; the
    modes' valley is always computed off a curve (it also stands in for the
    separation). The last value says whether the union lies on a curve (one
    column, or an intrinsic dimension under ``_CURVE`` with the link across
    joining two ends, :func:`_link`): there the valley is the
    gap in units of the widest gap of ``draws`` uniform curves (drawn by ``rng``,
    default seed 0), or the neck where that is larger.
    """
    graph = NeighborGraph.from_data(Z, n_neighbors)
    margins = vote_margins(labels, graph.indices, 2, weights)
    score = class_balanced_mean(margins, labels, 2, weights=weights)
    if not valley:
        return score, float("nan"), float("nan"), False
    scale = graph.local_scale(graph.n_neighbors)
    # the sparser cluster's typical neighbour distance: a valley is sparser than both
    typical = max(float(np.median(scale[labels == c])) for c in (0, 1))
    if not typical > 0:  # more copies than neighbours: no density to compare
        return score, 1.0, 0.0, False
    dimension = intrinsic_dimension(graph.distances)
    boundary = margins < 1.0
    # the gap, the shortest link across (a gap no wider than a cluster's own
    # neighbourhoods is no valley: a cut in a sparse tail, or between the pieces of a
    # uniform line), where it can count: on a line or a curve, or without a mixed vote
    gap, ends = (_link(Z, labels, n_neighbors)
                 if Z.shape[1] == 1 or dimension < _CURVE or not boundary.any()
                 else (float("nan"), False))
    # a cut along a line or a curve: the link across joins the ends of two pieces (two
    # curves side by side are not one curve cut, and their boundary is judged off it)
    curve = Z.shape[1] == 1 or (dimension < _CURVE and ends)
    modes = (_modes_valley(Z, labels, boundary, scale, graph.n_neighbors, weights, dimension)
             if boundary.any() and not curve else 0.0)
    if boundary.any() and not curve:
        # a lower bound of the boundary's neighbour radius: its median less two standard
        # errors (1.2533 sd / sqrt(b) for a median), so that a few boundary points in a
        # noisy stretch of a ring do not pass for a valley; more where no mode anchors
        # the cut (neither cluster has one: the search could slide it along them)
        rho = scale[boundary]
        anchored = modes > 0.0 or any(
            _anchors(Z, scale, np.flatnonzero(labels == c), graph.n_neighbors, weights)
            for c in (0, 1))
        z = _Z_ERROR if anchored else _free_cut_z(rho.size, Z.shape[0])
        at_boundary = max(float(np.median(rho)) - z * _median_error(rho), 0.0)
    else:
        at_boundary = gap  # no mixed vote, or a curve: the gap itself
    density = float((at_boundary / typical) ** dimension)
    if curve:
        # cuts along a curve fall at its widest gaps: a gap counts as far as it is wider
        # than the widest of a uniform curve; a cut across a curve mixes as many votes
        # as a cut across either piece (no neck), one between two curves fewer
        widest = _line_gap(Z.shape[0], n_neighbors,
                           np.random.RandomState(0) if rng is None else rng, draws)
        neck = _neck(Z, labels, boundary, n_neighbors, weights) if boundary.any() else 0.0
        return score, max(density / widest, neck), 0.0, True
    if not boundary.any():
        return score, density, 0.0, False  # no boundary point: the gap alone
    density = max(density, modes)
    if density >= VALLEY:
        return score, density, modes, False  # the neck could only confirm it
    return (score, max(density, _neck(Z, labels, boundary, n_neighbors, weights)), modes,
            False)


def _free_cut_z(b: int, n: int) -> float:
    """Standard errors below the boundary's median radius where no mode anchors the cut.

    Where neither of the two clusters has a mode (arcs of a ring, pieces of a
    moon, stretches of uniform density) the search may put a cut of ``b`` boundary
    points at any of about ``n / b`` places along the union of ``n`` and takes
    the sparsest: the one-sided 2.5 % is shared among those places
    (Bonferroni), and never less than ``_Z_ERROR``.

    Examples
    --------
    >>> round(_free_cut_z(20, 500), 2)
    3.09
    >>> _free_cut_z(500, 500) == _Z_ERROR
    True
    """
    places = max(n / max(b, 1), 1.0)
    return max(_Z_ERROR, float(norm.isf(_FREE_CUT_LEVEL / places)))


def _link(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], n_neighbors: int,
) -> tuple[float, bool]:
    """The shortest link across a two-cluster split, and whether it joins two ends.

    A point is an end facing the other cluster when the mean of its
    ``n_neighbors`` nearest points of its own cluster lies behind it, away from
    the other end, by more than half of what it is at the end of a uniform
    line: ``(k + 1) / (4 k)`` of the distance to the ``k``-th of them (at an end
    all neighbours lie on one side, their mean ``(k + 1) / (2 k)`` of that
    distance away; inside a curve it lies on the curve, across from nothing).
    """
    A, B = Z[labels == 0], Z[labels == 1]
    nn = NearestNeighbors(n_neighbors=1, n_jobs=query_jobs(A.shape[0])).fit(B)
    d, j = nn.kneighbors(A)
    i = int(np.argmin(d[:, 0]))
    a, b = A[i], B[int(j[i, 0])]
    gap = float(d[i, 0])
    if not gap > 0:
        return gap, False
    ends = True
    for point, own, row, other in ((a, A, i, b), (b, B, int(j[i, 0]), a)):
        k = min(n_neighbors, own.shape[0] - 1)
        if k < 2:
            return gap, False
        dist, idx = NearestNeighbors(n_neighbors=k + 1).fit(own).kneighbors(point[None])
        # the point itself left out by its row, not by its rank (a copy may tie with it)
        keep = idx[0] != row
        dist, idx = dist[0][keep][:k], idx[0][keep][:k]
        behind = float((own[idx].mean(axis=0) - point) @ (point - other)) / gap
        ends = ends and behind > (k + 1) / (4.0 * k) * float(dist[-1])
    return gap, ends


def _median_error(values: npt.NDArray[np.float64]) -> float:
    """The standard error of the median of ``values``: ``sqrt(pi / 2) sd / sqrt(n)``.

    The large-sample error of a normal sample's median (0 for fewer than two values).
    """
    if values.size < 2:
        return 0.0
    return 1.2533 * float(np.std(values)) / np.sqrt(values.size)


def _centre(
    Z: npt.NDArray[np.float64], scale: npt.NDArray[np.float64], rows: npt.NDArray[np.intp],
    k: int, weights: npt.NDArray[np.float64] | None,
) -> tuple[npt.NDArray[np.float64], float, float]:
    """The (weighted) mean of ``Z[rows]`` and the median neighbour radius at it (the module).

    Returns the mean, the median of ``scale`` over the rows nearest it (a tenth
    of them, at least ``k``) and that median's standard error.
    """
    w = None if weights is None else weights[rows]
    mean = np.average(Z[rows], axis=0, weights=w)
    gaps = np.einsum("ij,ij->i", Z[rows] - mean, Z[rows] - mean)
    m = min(max(k, int(_CENTRE_SHARE * rows.size)), rows.size)
    radius = scale[rows[np.argsort(gaps, kind="stable")[:m]]]
    return mean, float(np.median(radius)), _median_error(radius)


def _mode(
    Z: npt.NDArray[np.float64], scale: npt.NDArray[np.float64], rows: npt.NDArray[np.intp],
    k: int, weights: npt.NDArray[np.float64] | None,
) -> tuple[float, float, float] | None:
    """A cluster's centre read as a mode, or ``None`` where it has none (the module).

    Returns the distance from the cluster's mean to its ``k``-th nearest point,
    the median neighbour radius of the points nearest the mean and that
    median's standard error; ``None`` when either reading is no denser than
    the cluster's median point (the mean in a hole, or uniform density).
    """
    mean, median, error = _centre(Z, scale, rows, k, weights)
    reach = np.sqrt(np.einsum("ij,ij->i", Z[rows] - mean, Z[rows] - mean))
    j = min(k, rows.size) - 1
    at_mean = float(np.partition(reach, j)[j])  # the k-th nearest point to the mean
    if not (min(at_mean, median) > 0.0
            and max(at_mean, median) <= float(np.median(scale[rows]))):
        return None
    return at_mean, median, error


def _anchors(
    Z: npt.NDArray[np.float64], scale: npt.NDArray[np.float64], rows: npt.NDArray[np.intp],
    k: int, weights: npt.NDArray[np.float64] | None,
) -> bool:
    """Whether a cluster holds a mode that pins a cut beside it (the module).

    Its centre is a mode (:func:`_mode`), or either half of its principal-axis
    split has a centre denser than that half's median point by two standard
    errors of the centre's median radius: two blobs taken as one cluster have
    their mean in the hole between them but a mode in each half. A half of a
    uniform piece (of a ring, a moon) has its mean inside it and its centre
    about as dense as its median point, so only a clearly denser centre counts.
    """
    if _mode(Z, scale, rows, k, weights) is not None:
        return True
    if rows.size < 4 * k:
        return False  # halves too small for a centre of k points and a median
    side = _principal_split(Z[rows], None if weights is None else weights[rows])
    for half in (rows[side == 0], rows[side == 1]):
        if not half.size:
            continue  # copies of one point all fall on one side: no other half
        centre = _mode(Z, scale, half, k, weights)
        if centre is not None and (centre[1] + _Z_ERROR * centre[2]
                                   < float(np.median(scale[half]))):
            return True
    return False


def _modes_valley(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], boundary: npt.NDArray[np.bool_],
    scale: npt.NDArray[np.float64], k: int, weights: npt.NDArray[np.float64] | None,
    dimension: float,
) -> float:
    """The density at the sparser cluster's centre over the density at the boundary's (module).

    A lower bound: the log ratio of the radii less two of its standard errors
    (the relative errors of the two medians in quadrature; the distance from a
    cluster's mean to its ``k``-th point is taken as read), the smallest over
    both clusters and both of their readings. 0 when a cluster's centre is no
    denser than its typical point (its mean in a hole: a ring's arc, a moon, a
    shell; or a cluster of uniform density): there is no mode to compare with.
    """
    centres = []
    for c in (0, 1):
        centre = _mode(Z, scale, np.flatnonzero(labels == c), k, weights)
        if centre is None:
            return 0.0
        centres.append(centre)
    # the boundary's denser reading: at its centre, or along its whole length (a sparse
    # spot in the middle of a cut through data of uniform density is no saddle)
    rho = scale[boundary]
    _, at_centre, centre_error = _centre(Z, scale, np.flatnonzero(boundary), k, weights)
    rho_b, error_b = min((at_centre, centre_error), (float(np.median(rho)), _median_error(rho)))
    if not rho_b > 0:
        return 0.0
    relative_b = error_b / rho_b
    low = min(min(np.log(rho_b / at_mean) - _Z_ERROR * relative_b,
                  np.log(rho_b / median) - _Z_ERROR * np.hypot(relative_b, error / median))
              for at_mean, median, error in centres)
    return float(np.exp(dimension * low))


def _neck(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], boundary: npt.NDArray[np.bool_],
    n_neighbors: int, weights: npt.NDArray[np.float64] | None,
) -> float:
    """The lower bound of (cheaper principal cut's mixed votes) / (the boundary's) (module).

    With weights the mixed votes are weighed and the interval's size is Kish's
    effective number of the points counted, ``(sum w)^2 / sum w^2``: equal weights,
    whatever their value, give the unweighted counts (identical rows are one point:
    repeating every row changes nothing).
    """
    w = np.ones(Z.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    at_boundary = w[boundary]
    cuts = []
    for c in (0, 1):
        inside = labels == c
        if np.count_nonzero(inside) <= n_neighbors + 1:
            return 0.0  # a cluster too small to be cut: nothing to compare with
        Zc, wc = Z[inside], w[inside]
        graph = NeighborGraph.from_data(Zc, n_neighbors)
        own = None if weights is None else wc
        margins = vote_margins(_principal_split(Zc, own), graph.indices, 2, own)
        cuts.append(wc[margins < 1.0])  # the weights of the votes this cut mixes
    cheaper = min(cuts, key=lambda cut: float(cut.sum()))
    b, m = float(at_boundary.sum()), float(cheaper.sum())
    if not m > 0:
        return 0.0
    counted = float(np.sum(at_boundary ** 2) + np.sum(cheaper ** 2))
    n = (b + m) ** 2 / counted  # Kish's effective number of the points counted
    x = n * b / (b + m)  # of which at the boundary
    # Clopper-Pearson: the upper bound of the boundary's share of the mixed votes
    p = float(beta.ppf(_NECK_CONFIDENCE, x + 1.0, n - x))
    return (1.0 - p) / p


def _principal_split(
    R: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.intp]:
    """Two-means' split of structureless data: across its longest principal axis, at the mean.

    For a Gaussian or a uniform box the two-means optimum is the hyperplane
    through the mean orthogonal to the first principal axis (the split of least
    within-cluster variance), so it is used directly instead of a k-means fit.
    With ``weights`` the mean and the axis are weighted (:func:`_principal_axes`):
    a row of integer weight ``r`` is cut as ``r`` copies of it would be.
    """
    _, centred, _, vt = _principal_axes(R, weights)
    return (centred @ vt[0] > 0).astype(np.intp)


def _line_gap(m: int, n_neighbors: int, rng: np.random.RandomState, draws: int) -> float:
    """On a curve of ``m`` points, the widest gap of a uniform one over its neighbour radius.

    Cuts along a curve are chosen at its widest gaps, and the widest of ``m``
    spacings of a uniform sample is about ``ln m`` times the typical one: a gap
    is a valley only as far as it is wider than that. Mean over ``draws``
    uniform samples of ``m`` points on a segment (the ratio does not depend on
    its length), at least 1.
    """
    ratios = []
    for _ in range(draws):
        x = np.sort(rng.random_sample(m))
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
    distances: npt.NDArray[np.float64] | None = None,
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
    distances : ndarray of shape (n_samples, k) or None, default=None
        The distances to ``neighbors``: where a pair's points lie on a curve
        (their intrinsic dimension, read from these, is under 1.5) a pair
        without a neighbour across is measured, and judged by its gap where
        its link across joins two ends. None reads that dimension from the
        pair's own neighbours.

    Returns
    -------
    pairs : list of PairSeparation
        One per pair of clusters with a neighbour across, in the order of the
        clusters; a pair of fewer than ``16`` points together cannot be tested
        and reads separation 0 and valley 1 (no boundary shown, not clear).

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
    touching = _touching(labels, neighbors, n_clusters)
    on_curve = _curve_screen(Z, labels, n_clusters, distances, int(n_neighbors))
    rng = np.random.RandomState(seed)
    out: list[PairSeparation] = []
    # touching pairs first: the boundaries most likely to be unclear
    order = sorted(((a, b) for a in range(n_clusters) for b in range(a + 1, n_clusters)),
                   key=lambda ab: not touching[ab])
    sizes = np.bincount(labels, minlength=n_clusters)
    for a, b in order:
        if until_unclear and out and not out[-1].clear:
            break
        if not sizes[a] or not sizes[b]:
            continue  # an empty cluster: no boundary
        if sizes[a] + sizes[b] < MIN_UNION:
            if touching[a, b]:
                # too few points to test: a boundary that cannot be shown is not clear
                # (else a few points of any data, cut into clusters of a handful, would
                # pass for as many clusters)
                out.append(PairSeparation((a, b), float("nan"), float("nan"), float("nan"),
                                          0.0, 1.0, tested=False))
            continue  # apart: the vote's own gap, as below
        if not touching[a, b] and not on_curve(a, b):
            # no point has a neighbour across: the vote's own notion of a gap, clear (off
            # a curve, where a cut through a sparse stretch leaves no mixed vote however
            # narrow its gap); nothing to measure, which at large K spares most of the
            # K (K - 1) / 2 pairs
            out.append(PairSeparation((a, b), float("nan"), float("nan"), float("nan"), 1.0,
                                      float("inf")))
            continue
        union = np.flatnonzero((labels == a) | (labels == b))
        w = None if weights is None else weights[union]
        out.append(_pair_separation(Z[union], (labels[union] == b).astype(np.intp), (a, b),
                                    bool(touching[a, b]), w, int(n_neighbors), rng,
                                    int(draws)))
    return out


def _curve_screen(
    Z: npt.NDArray[np.float64], labels: npt.NDArray[np.intp], n_clusters: int,
    distances: npt.NDArray[np.float64] | None, n_neighbors: int,
) -> Callable[[int, int], bool]:
    """Whether two clusters' points lie on a line or a curve (intrinsic dimension < 1.5).

    Read from ``distances`` (each point's neighbour distances in ``Z``) when given,
    the points' inverse estimates summed per cluster once, so that each of the
    ``K (K - 1) / 2`` pairs costs two additions; else from the union's own
    neighbours.
    """
    if Z.shape[1] == 1:
        return lambda a, b: True
    if distances is None:
        def own(a: int, b: int) -> bool:
            union = np.flatnonzero((labels == a) | (labels == b))
            k = min(n_neighbors, union.size - 1)
            graph = NeighborGraph.from_data(Z[union], k)
            return intrinsic_dimension(graph.distances) < _CURVE
        return own
    inverse = _inverse_dimensions(distances)
    valid = np.isfinite(inverse)
    sums = np.bincount(labels[valid], weights=inverse[valid], minlength=n_clusters)
    counts = np.bincount(labels[valid], minlength=n_clusters)

    def screen(a: int, b: int) -> bool:
        n = counts[a] + counts[b]
        if n < 10 or distances.shape[1] < 2:
            return True  # too few points to tell: as intrinsic_dimension, one
        return _dimension(float(sums[a] + sums[b]) / float(n)) < _CURVE
    return screen


def _touching(
    labels: npt.NDArray[np.intp], neighbors: npt.NDArray[np.intp], n_clusters: int,
) -> npt.NDArray[np.bool_]:
    """Which pairs of clusters touch: some point has a neighbour of the other (symmetric)."""
    own = labels[:, None]
    across = labels[neighbors]
    touching = np.zeros((n_clusters, n_clusters), dtype=bool)
    mixed = across != own
    touching[np.broadcast_to(own, across.shape)[mixed], across[mixed]] = True
    touching |= touching.T
    return touching


def _pair_separation(
    Zu: npt.NDArray[np.float64], split: npt.NDArray[np.intp], clusters: tuple[int, int],
    touching: bool, weights: npt.NDArray[np.float64] | None, n_neighbors: int,
    rng: np.random.RandomState, draws: int,
) -> PairSeparation:
    """The boundary between two clusters: their union ``Zu`` and its ``split`` into them."""
    k = min(n_neighbors, Zu.shape[0] - 1)
    score, valley, modes, curve = _split_margin(Zu, split, k, weights, rng=rng, draws=draws)
    if not touching and not curve:
        # measured only as a possible cut along a curve: not one, so the gap is the
        # vote's own, clear (as in pair_separations)
        return PairSeparation(clusters, float("nan"), float("nan"), float("nan"), 1.0,
                              float("inf"))
    if curve:
        # along a line or a curve every cut leaves about n_neighbors mixed votes
        # whatever the density there: the vote cannot judge it, the gap (or a neck) does
        return PairSeparation(clusters, score, float("nan"), float("nan"),
                              1.0 if not touching else float("nan"), valley)
    margins = _reference_margins(Zu, k, rng, draws, weights)
    pair = _against(clusters, score, valley, modes, margins)
    if (not pair.clear and pair.score - pair.reference >= pair.multiplier * pair.error
            and _two_gaussians(Zu, split, weights)):
        # beyond the reference, but too close for a valley the sample can show: two
        # Gaussians by the mixture's own test
        return pair._replace(gaussians=True)
    if pair.clear or not (modes >= VALLEY and valley >= VALLEY) or draws >= _SETTLE_DRAWS:
        return pair
    # everything but the reference says "a boundary between two modes": the first
    # draws leave it open, more draws of each kind settle it (only here, so the
    # cost stays with the few boundaries it decides)
    more = _reference_margins(Zu, k, rng, _SETTLE_DRAWS - draws, weights)
    return _against(clusters, score, valley, modes,
                    [np.r_[m, extra] for m, extra in zip(margins, more)], settle=True)


def _two_gaussians(
    Zu: npt.NDArray[np.float64], split: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64] | None,
) -> bool:
    """Whether a two-cluster split is a mixture of two Gaussians, by the mixture's test (module).

    Two full-covariance Gaussians fitted by EM from the split must have a lower
    BIC than one and than the uniform principal-axes box, give (by their
    responsibilities) the split's labels to at least ``_GAUSSIAN_AGREEMENT`` of
    the weight, and each be Gaussian by the skewness and kurtosis on its
    principal axes across the line between the means and by the kurtosis of
    its tail along the line away from the other. Weights are rescaled to sum
    to Kish's effective number of points, so repeating every row changes nothing.
    """
    n, d = Zu.shape
    if d < 2:
        return False  # no direction across the line between the means
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w * (float(w.sum()) / float(np.sum(w * w)))  # sums to Kish's effective number
    smallest = max(float(_MIN_GAUSSIAN), d * (d + 3) / 2.0)
    if min(effective_size(w[split == c]) for c in (0, 1)) < smallest:
        return False  # too few points for a full covariance and its moments
    spread = float(np.mean(np.average((Zu - np.average(Zu, axis=0, weights=w)) ** 2,
                                      axis=0, weights=w)))
    if not spread > 0:
        return False
    reg = 1e-6 * spread  # scikit-learn's reg_covar, relative to the data's scale
    try:
        two = gaussian_mixture_em(Zu, split, w, reg=reg)
        one = gaussian_mixture_em(Zu, np.zeros(n, dtype=np.intp), w, reg=reg)
    except np.linalg.LinAlgError:
        return False  # a covariance without a Cholesky factor: not two Gaussians
    total = float(w.sum())
    criterion = bic(two.log_likelihood, 2, d, total)
    if not criterion < bic(one.log_likelihood, 1, d, total):
        return False
    if not criterion < _box_bic(Zu, total, None if weights is None else w):
        return False  # no better than structureless uniform data
    resp = two.responsibilities
    if float(w @ (resp.argmax(axis=1) == split)) < _GAUSSIAN_AGREEMENT * total:
        return False  # the mixture's boundary is not the split's
    # two-sided, shared among the skewness and kurtosis of each axis across the line of
    # both components and the kurtosis of their two far tails
    z = float(norm.isf((1.0 - _GAUSSIAN_CONFIDENCE) / 2.0 / (4 * (d - 1) + 2)))
    own = m_step(Zu, resp, w, 0.0)  # each component's own mean and covariance
    # the moments across the line between the means: along it the components overlap
    # and their responsibilities shape them
    line = own.means[1] - own.means[0]
    if not float(line @ line) > 0:
        return False  # one mean: no line, not two clusters
    across = np.linalg.svd(np.eye(d) - np.outer(line, line) / float(line @ line))[0][:, :d - 1]
    P = Zu @ across
    for c in (0, 1):
        u = w * resp[:, c]
        if effective_size(u) < _MIN_GAUSSIAN:
            return False
        skewness, kurtosis = moment_scores(P, own.means[c] @ across,
                                           across.T @ own.covariances[c] @ across, u)
        if max(float(np.max(np.abs(skewness))), float(np.max(np.abs(kurtosis)))) > z:
            return False
        # along the line, the tail away from the other component, which that one does
        # not reach: a Gaussian's half, where a piece of an arc or of a uniform stretch
        # ends (flat)
        depth = (Zu - own.means[c]) @ (own.means[c] - own.means[1 - c])
        far = depth > 0
        if effective_size(u[far]) < _MIN_GAUSSIAN:
            return False
        if abs(tail_kurtosis_score(depth[far], u[far])) > z:
            return False
    return True


def _box_bic(
    Z: npt.NDArray[np.float64], total: float, weights: npt.NDArray[np.float64] | None = None,
) -> float:
    """BIC of the uniform density on the principal-axes box of ``Z`` (the box reference).

    The box is the range on each (weighted) principal axis (the
    maximum-likelihood box for those axes), ``2 d`` parameters; ``total`` is the
    weight of the points. A zero range gives ``inf`` (no density to compare).
    """
    _, centred, _, vt = _principal_axes(Z, weights)
    P = centred @ vt.T
    ranges = P.max(axis=0) - P.min(axis=0)
    if not np.all(ranges > 0):
        return float("inf")
    log_likelihood = -total * float(np.sum(np.log(ranges)))
    return -2.0 * log_likelihood + 2 * Z.shape[1] * float(np.log(total))


def _reference_margins(
    Zu: npt.NDArray[np.float64], k: int, rng: np.random.RandomState, draws: int,
    weights: npt.NDArray[np.float64] | None = None,
) -> list[npt.NDArray[np.float64]]:
    """Margins of two-means splits of ``draws`` Gaussian and ``draws`` box references.

    The references take the (weighted) shape of ``Zu`` and one unweighted point
    per point of it (identical rows are one point, as in the vote).
    """
    refs = []
    for kind in ("gaussian", "box"):
        values = np.empty(draws)
        for i in range(draws):
            R = structureless_reference(Zu, kind, rng, weights)
            values[i] = _split_margin(R, _principal_split(R), k, valley=False)[0]
        refs.append(values)
    return refs


def _against(
    clusters: tuple[int, int], score: float, valley: float, modes: float,
    margins: list[npt.NDArray[np.float64]], settle: bool = False,
) -> PairSeparation:
    """A boundary's split margin against the reference margins of each kind.

    The reference is the larger of the kinds' mean margins. Its error is the
    standard deviation of all of the margins, and the split must beat the
    reference by two of them; or, to ``settle`` a boundary with more draws, the
    standard deviation of the chosen kind's own margins (``n`` of them), and
    the split must beat the upper end of the two-sided 95 % prediction
    interval of one more such margin, ``t(0.975, n - 1) * sqrt(1 + 1 / n)``
    of them.
    """
    means = [float(np.mean(m)) for m in margins]
    chosen = int(np.argmax(means))
    reference = means[chosen]
    if settle:
        n = margins[chosen].size
        error = float(np.std(margins[chosen], ddof=1))
        multiplier = float(student_t.ppf(_SETTLE_CONFIDENCE, n - 1) * np.sqrt(1.0 + 1.0 / n))
    else:
        error, multiplier = float(np.std(np.concatenate(margins))), _Z_ERROR
    if reference < 1.0:
        separation = (score - reference) / (1.0 - reference)
    else:  # the structureless split is perfect too: nothing to tell apart
        separation = 0.0
    return PairSeparation(clusters, score, reference, error, separation, valley, modes,
                          multiplier)

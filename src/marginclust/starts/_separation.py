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
With weights the mean, the covariance (:func:`numpy.cov`'s with ``aweights``)
and so the principal axes are weighted (a row of weight ``r`` moves the mean and
the axes as ``r`` copies would), and the reference holds one unweighted point per
point (identical rows are one point in the vote).

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

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy.stats import t as student_t

from ._gaussian_pair import two_gaussians
from ._references import principal_split, structureless_reference
from ._valley import VALLEY, Z_ERROR, curve_screen, split_margin

__all__ = ["CLEAR_SEPARATION", "MIN_UNION", "PairSeparation", "pair_separations"]

# A clear boundary removes at least half of the mixed neighbourhoods that splitting
# structureless data of the same size and spread leaves.
CLEAR_SEPARATION = 0.5
# Where the first draws leave open a boundary that everything else calls one between two
# modes, each kind is drawn up to this many times, and the split must beat the upper end
# of this one-sided confidence of a further structureless margin.
_SETTLE_DRAWS = 8
_SETTLE_CONFIDENCE = 0.975
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
    multiplier: float = Z_ERROR
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
    on_curve = curve_screen(Z, labels, n_clusters, distances, int(n_neighbors))
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
    score, valley, modes, curve = split_margin(Zu, split, k, weights, rng=rng, draws=draws)
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
            and two_gaussians(Zu, split, weights)):
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
            values[i] = split_margin(R, principal_split(R), k, valley=False)[0]
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
        error, multiplier = float(np.std(np.concatenate(margins))), Z_ERROR
    if reference < 1.0:
        separation = (score - reference) / (1.0 - reference)
    else:  # the structureless split is perfect too: nothing to tell apart
        separation = 0.0
    return PairSeparation(clusters, score, reference, error, separation, valley, modes,
                          multiplier)

"""The valley at a boundary between two clusters: density, modes, neck, a curve's gap.

The readings by which :mod:`marginclust.starts._separation` decides whether a
boundary lies where the data are sparser than in the clusters on either side
(its module docstring states the rule and why): the density at the boundary
against the clusters' (:func:`split_margin`, with the boundary's radius bounded
more loosely where no mode anchors the cut, :func:`_free_cut_z`), the same read
between the clusters' modes (:func:`_modes_valley`), the boundary as a neck
against the clusters' own principal cuts (:func:`_neck`), and on a line or a
curve the gap across against the widest gap of a uniform curve
(:func:`_line_gap`, :func:`curve_screen`); the dimension they use is Levina &
Bickel's (:func:`intrinsic_dimension`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy.stats import beta, norm
from sklearn.neighbors import NearestNeighbors

from ..feature_maps._neighbors import NeighborGraph
from ..objectives._gaussian_mixture import effective_size
from ..objectives._margin import class_balanced_mean, vote_margins
from ..utils._blocks import query_jobs
from ._references import principal_split

__all__ = [
    "VALLEY",
    "Z_ERROR",
    "curve_screen",
    "intrinsic_dimension",
    "split_margin",
]

# A boundary lies in a valley when the density there is at most 1 / VALLEY of the
# union's typical density (1 would accept a cut through data of uniform density).
VALLEY = 1.5
# Standard errors of every one-sided bound of the rule: a valley's readings are bounded
# this many below their medians, and the split must beat the reference by this many of
# its standard deviations (on a line or with few points the structureless split is
# itself nearly perfect and the separation's denominator 1 - reference is as small as
# the reference's sampling error).
Z_ERROR = 2.0
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


def split_margin(
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
        z = Z_ERROR if anchored else _free_cut_z(rho.size, Z.shape[0])
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
    (Bonferroni), and never less than ``Z_ERROR``.

    Examples
    --------
    >>> round(_free_cut_z(20, 500), 2)
    3.09
    >>> _free_cut_z(500, 500) == Z_ERROR
    True
    """
    places = max(n / max(b, 1), 1.0)
    return max(Z_ERROR, float(norm.isf(_FREE_CUT_LEVEL / places)))


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
    side = principal_split(Z[rows], None if weights is None else weights[rows])
    for half in (rows[side == 0], rows[side == 1]):
        if not half.size:
            continue  # copies of one point all fall on one side: no other half
        centre = _mode(Z, scale, half, k, weights)
        if centre is not None and (centre[1] + Z_ERROR * centre[2]
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
    low = min(min(np.log(rho_b / at_mean) - Z_ERROR * relative_b,
                  np.log(rho_b / median) - Z_ERROR * np.hypot(relative_b, error / median))
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
        margins = vote_margins(principal_split(Zc, own), graph.indices, 2, own)
        cuts.append(wc[margins < 1.0])  # the weights of the votes this cut mixes
    cheaper = min(cuts, key=lambda cut: float(cut.sum()))
    b, m = float(at_boundary.sum()), float(cheaper.sum())
    if not m > 0:
        return 0.0
    n = effective_size(np.r_[at_boundary, cheaper])  # of the points counted
    x = n * b / (b + m)  # of which at the boundary
    # Clopper-Pearson: the upper bound of the boundary's share of the mixed votes
    p = float(beta.ppf(_NECK_CONFIDENCE, x + 1.0, n - x))
    return (1.0 - p) / p


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


def curve_screen(
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

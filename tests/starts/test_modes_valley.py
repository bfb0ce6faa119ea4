"""The valley between two modes: the density at the clusters' centres against the boundary's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import vote_margins
from marginclust.starts._separation import CLEAR_SEPARATION, pair_separations
from marginclust.starts._valley import VALLEY, _modes_valley, intrinsic_dimension, split_margin


def _two_gaussians(distance, seed, n=400):
    # two unit Gaussians in the plane `distance` standard deviations apart, cut halfway
    rng = np.random.RandomState(seed)
    Z = np.r_[rng.randn(n, 2), rng.randn(n, 2) + [distance, 0.0]]
    return Z, (Z[:, 0] > distance / 2).astype(np.intp)


def _ring(n=600, seed=0):
    rng = np.random.RandomState(seed)
    t = rng.uniform(0, 2 * np.pi, n)
    r = 1 + 0.05 * rng.randn(n)
    return np.c_[r * np.cos(t), r * np.sin(t)]


def _literal(Z, labels, k=7, whole=True):
    """The reading written out with full distance matrices (the module's definition)."""
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    distances = np.sqrt(np.sort(d2, axis=1)[:, :k])
    scale = distances[:, -1]
    nn = np.argsort(d2, axis=1, kind="stable")[:, :k]
    boundary = np.any(labels[nn] != labels[:, None], axis=1)

    def centre(rows, among):
        mean = Z[rows].mean(axis=0)
        at_mean = np.sort(np.linalg.norm(Z[among] - mean, axis=1))[k - 1]
        m = max(k, int(0.1 * rows.size))
        near = rows[np.argsort(np.linalg.norm(Z[rows] - mean, axis=1))[:m]]
        r = scale[near]
        return at_mean, np.median(r), 1.2533 * r.std() / np.sqrt(m)

    lows = []
    b_rows = np.flatnonzero(boundary)
    _, b_centre, b_error = centre(b_rows, np.arange(Z.shape[0]))
    along = scale[b_rows]
    b_whole, b_whole_error = np.median(along), 1.2533 * along.std() / np.sqrt(along.size)
    rho, rho_error = b_centre, b_error
    if whole and b_whole < b_centre:  # the boundary's denser reading
        rho, rho_error = b_whole, b_whole_error
    for c in (0, 1):
        rows = np.flatnonzero(labels == c)
        at_mean, median, error = centre(rows, rows)
        if not max(at_mean, median) <= np.median(scale[rows]):
            return 0.0
        # the log ratio of the radii less two standard errors, per reading of the centre
        lows.append(np.log(rho / at_mean) - 2 * rho_error / rho)
        lows.append(np.log(rho / median) - 2 * np.sqrt((rho_error / rho) ** 2
                                                        + (error / median) ** 2))
    return np.exp(intrinsic_dimension(distances) * min(lows))


def test_the_modes_valley_is_its_literal_definition():
    Z, labels = _two_gaussians(3.4, 1)
    expected = _literal(Z, labels)
    assert expected > 1.0  # a saddle between two modes: the reading is taken
    graph = NeighborGraph.from_data(Z, 7)
    boundary = vote_margins(labels, graph.indices, 2) < 1.0
    got = _modes_valley(Z, labels, boundary, graph.local_scale(7), 7, None,
                        intrinsic_dimension(graph.distances))
    assert got == pytest.approx(expected, rel=1e-9)
    # and the split's valley is at least this reading, which it also returns
    _, valley, modes, curve = split_margin(Z, labels, 7)
    assert modes == pytest.approx(expected, rel=1e-9) and valley >= modes and not curve


def test_equal_weights_change_nothing():
    Z, labels = _two_gaussians(3.4, 1, n=150)
    once = split_margin(Z, labels, 7)
    assert once[2] > 0.0  # both centres are modes: the weighted means are read
    for value in (0.5, 3.0):
        assert split_margin(Z, labels, 7, np.full(Z.shape[0], value)) == pytest.approx(once)


@pytest.mark.parametrize("seed", [1, 2])
def test_gaussians_between_two_modes_are_clear_where_the_count_is_not(seed):
    # 3.4 standard deviations apart: the boundary mixes more neighbourhoods than half
    # of those of a split of structureless data (separation < 0.5), and the median
    # density sits at half a Gaussian's peak, but the saddle is clearly below both modes
    Z, labels = _two_gaussians(3.4, seed)
    (pair,) = pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 7).indices)
    assert pair.separation < CLEAR_SEPARATION
    assert pair.modes >= VALLEY and pair.clear


def test_a_cluster_whose_centre_is_a_hole_has_no_mode():
    # a ring's halves, two moons and a sphere's hemispheres: each mean falls where the
    # cluster has no points, so there is no mode to compare with
    Z = _ring()
    cases = [(Z, (Z[:, 0] > 0).astype(np.intp))]
    X, y = make_moons(500, noise=0.06, random_state=0)
    cases.append((X, y.astype(np.intp)))
    S = np.random.RandomState(0).randn(800, 3)
    S /= np.linalg.norm(S, axis=1, keepdims=True)
    cases.append((S, (S[:, 2] > 0).astype(np.intp)))
    for Z, labels in cases:
        graph = NeighborGraph.from_data(Z, 7)
        boundary = vote_margins(labels, graph.indices, 2) < 1.0
        assert _modes_valley(Z, labels, boundary, graph.local_scale(7), 7, None,
                             intrinsic_dimension(graph.distances)) == 0.0


def test_a_sparse_spot_on_a_structureless_cut_is_no_saddle():
    # uniform data whose cut runs through a sparse spot: both halves' centres are
    # denser than their typical points (the edges of a small sample are sparser), and
    # the boundary's centre alone would read a valley; along its whole length the
    # cut is as dense as the halves, and the denser reading counts
    Z = np.random.RandomState(0).rand(1000, 2)
    spot = np.linalg.norm(Z - 0.5, axis=1) < 0.1
    Z = np.r_[Z[~spot], Z[spot][::3]]  # a third of the density in a small disc
    labels = (Z[:, 0] > 0.5).astype(np.intp)
    at_centre = _literal(Z, labels, whole=False)
    assert at_centre >= VALLEY  # the precondition: the centre alone would pass
    graph = NeighborGraph.from_data(Z, 7)
    boundary = vote_margins(labels, graph.indices, 2) < 1.0
    got = _modes_valley(Z, labels, boundary, graph.local_scale(7), 7, None,
                        intrinsic_dimension(graph.distances))
    assert got == pytest.approx(_literal(Z, labels), rel=1e-9)
    assert 0.0 < got < VALLEY


def test_structureless_halves_have_no_valley_between_modes():
    rng = np.random.RandomState(0)
    for Z in (rng.randn(1000, 2), rng.rand(1000, 2), rng.randn(1000, 5)):
        centred = Z - Z.mean(axis=0)
        labels = (centred @ np.linalg.svd(centred)[2][0] > 0).astype(np.intp)
        (pair,) = pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 7).indices)
        assert pair.modes < VALLEY and not pair.clear


@pytest.mark.parametrize("seed", [0, 2])
def test_auto_finds_two_gaussians_three_and_a_half_sd_apart(seed):
    Z, labels = _two_gaussians(3.4, seed)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(Z)
    assert est.n_clusters_ == 2
    # the label-free answer is the generating split up to the overlap
    agree = np.mean(est.labels_ == labels)
    assert max(agree, 1 - agree) > 0.9
    # with K given, the same judge: no warning that the partition is not separated
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        MaxMarginClustering(n_clusters=2, random_state=0).fit(Z)

"""A cut that no mode anchors: its valley allows for where the search put it."""

from unittest import mock

import numpy as np
import pytest
from scipy.stats import norm

from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.starts import _valley as valley
from marginclust.starts._separation import pair_separations
from marginclust.starts._valley import VALLEY, _free_cut_z


def _tube_ring(n, seed):
    """A ring of radius 1 in 3-D, angles uniform, Gaussian across (as FCPS's chainlink)."""
    rng = np.random.RandomState(seed)
    t = rng.uniform(0.0, 2.0 * np.pi, n)
    r = 1.0 + 0.065 * rng.randn(n)
    return np.c_[r * np.cos(t), r * np.sin(t), 0.041 * rng.randn(n)], t


def _cut_at_sparsest(t, width=15):
    """Labels of a ring cut at its sparsest stretch of ``width`` points and at the
    sparsest one at least a quarter turn from it (where a search would cut it)."""
    s = np.sort(t)
    span = np.r_[s, s + 2.0 * np.pi][width:width + s.size] - s
    i = int(np.argmax(span))
    first = (s[i] + span[i] / 2.0) % (2.0 * np.pi)
    apart = np.abs((s - first + np.pi) % (2.0 * np.pi) - np.pi) > np.pi / 2.0
    j = int(np.argmax(np.where(apart, span, -1.0)))
    lo, hi = sorted((first, (s[j] + span[j] / 2.0) % (2.0 * np.pi)))
    return ((t > lo) & (t < hi)).astype(np.intp)


@pytest.mark.parametrize("b, n", [(1, 10), (7, 500), (20, 500), (60, 3000), (400, 500),
                                  (500, 500)])
def test_the_allowance_is_its_literal_definition(b, n):
    # one-sided 2.5 % shared among n / b places, never under two standard errors (the
    # same operations in the same order as the definition: equal up to the last bits)
    places = max(n / b, 1.0)
    assert _free_cut_z(b, n) == pytest.approx(max(2.0, norm.isf(0.025 / places)), rel=1e-12)


def test_more_places_ask_for_more():
    zs = [_free_cut_z(b, 1000) for b in (1000, 500, 100, 20, 5, 1)]
    assert zs[0] == valley.Z_ERROR
    assert all(a < b for a, b in zip(zs, zs[1:]))


def test_a_uniform_tube_ring_cut_where_it_is_sparsest_is_no_boundary():
    # the cut's boundary points are the ring's sparsest: under two standard errors they
    # read a valley; allowing for the ~n / b places the cut could take, they do not
    Z, t = _tube_ring(500, 21)
    labels = _cut_at_sparsest(t)
    graph = NeighborGraph.from_data(Z, 7)
    (pair,) = pair_separations(Z, labels, 2, graph.indices, distances=graph.distances)
    assert pair.modes == 0.0  # an arc's mean lies off the ring: no mode anchors the cut
    assert pair.valley < VALLEY - 0.2 and not pair.clear
    with mock.patch.object(valley, "_free_cut_z", lambda b, n: valley.Z_ERROR):
        (two,) = pair_separations(Z, labels, 2, graph.indices, distances=graph.distances)
    assert two.valley > VALLEY + 0.1 and two.clear


def test_an_arc_has_no_mode_and_a_gaussian_has_one():
    Z, t = _tube_ring(500, 0)
    scale = NeighborGraph.from_data(Z, 7).local_scale(7)
    arc = np.flatnonzero(t < np.pi)
    assert valley._mode(Z, scale, arc, 7, None) is None
    G = np.random.RandomState(0).randn(400, 2)
    scale = NeighborGraph.from_data(G, 7).local_scale(7)
    at_mean, median, error = valley._mode(G, scale, np.arange(400), 7, None)
    assert 0.0 < at_mean <= np.median(scale) and 0.0 < median <= np.median(scale)
    assert error > 0.0


def test_one_mode_anchors_the_cut():
    # a Gaussian beside two Gaussians taken as one cluster (its mean between them, in a
    # hole): the single Gaussian's mode anchors the cut, so the allowance is not asked
    rng = np.random.RandomState(0)
    Z = np.r_[rng.randn(150, 2), rng.randn(150, 2) + [8.0, 0.0], rng.randn(150, 2) + [4.0, 3.5]]
    labels = np.repeat([0, 0, 1], 150).astype(np.intp)
    graph = NeighborGraph.from_data(Z, 7)
    scale = graph.local_scale(7)
    assert valley._mode(Z, scale, np.flatnonzero(labels == 0), 7, None) is None
    assert valley._mode(Z, scale, np.flatnonzero(labels == 1), 7, None) is not None
    assert np.any(labels[graph.indices] != labels[:, None])  # they touch: a boundary
    with mock.patch.object(valley, "_free_cut_z", side_effect=AssertionError("asked")):
        (pair,) = pair_separations(Z, labels, 2, graph.indices, distances=graph.distances)
    assert np.isfinite(pair.score) and np.isfinite(pair.valley)


def test_two_blobs_taken_as_one_anchor_a_cut_and_arcs_do_not():
    # two Gaussians as one cluster: its mean lies in the hole between them (no mode
    # there), but each half of its principal split is a Gaussian with a clear mode
    rng = np.random.RandomState(1)
    Z = np.r_[rng.randn(200, 2), rng.randn(200, 2) + [8.0, 0.0]]
    scale = NeighborGraph.from_data(Z, 7).local_scale(7)
    rows = np.arange(400)
    assert valley._mode(Z, scale, rows, 7, None) is None
    assert valley._anchors(Z, scale, rows, 7, None)
    # arcs of a uniform tube ring: no mode at their means nor a clear one in their halves
    Z, t = _tube_ring(500, 21)
    scale = NeighborGraph.from_data(Z, 7).local_scale(7)
    labels = _cut_at_sparsest(t)
    for c in (0, 1):
        assert not valley._anchors(Z, scale, np.flatnonzero(labels == c), 7, None)


def test_a_cluster_of_copies_of_one_point_anchors_nothing():
    # its principal split puts every copy on one side; no centre, no error
    Z = np.r_[np.zeros((40, 2)), np.random.RandomState(0).randn(40, 2)]
    scale = NeighborGraph.from_data(Z, 7).local_scale(7)
    assert not valley._anchors(Z, scale, np.arange(40), 7, None)

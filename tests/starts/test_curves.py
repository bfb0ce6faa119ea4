"""Boundaries along a curve: a cut between the ends of two pieces is judged by its gap."""

import numpy as np
import pytest

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.starts._separation import pair_separations
from marginclust.starts._valley import VALLEY, _link, split_margin


def _segment(n, seed):
    """``n`` uniform points on a segment of the plane, sorted along it."""
    t = np.sort(np.random.RandomState(seed).uniform(0.0, 1.0, n))
    return np.c_[t, 0.5 * t]


def _cut_at_widest(t):
    """Labels of a sorted line cut at its widest spacing."""
    cut = int(np.argmax(np.diff(t)))
    return (np.arange(t.size) > cut).astype(np.intp)


def test_an_end_is_its_literal_definition():
    # evenly spaced points 0..9 and 12..30 on a line of the plane: the link across joins
    # 9 and 12; the 7 neighbours of 9 (8 .. 2) have their mean at 5, 4 behind it, where
    # an end's is (k + 1) / (2 k) of the 7th neighbour's distance 7: 4 = 8 / 14 * 7
    x = np.r_[np.arange(10.0), np.arange(12.0, 31.0)]
    Z = np.c_[x, np.zeros_like(x)]
    labels = (x > 10).astype(np.intp)
    gap, ends = _link(Z, labels, 7)
    assert gap == pytest.approx(3.0) and ends
    # side by side, the same points are no ends: their neighbours lie across the link
    side = np.r_[np.c_[x, np.zeros_like(x)], np.c_[x, np.full_like(x, 5.0)]]
    gap, ends = _link(side, np.repeat([0, 1], x.size), 7)
    assert gap == pytest.approx(5.0) and not ends


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_segment_cut_at_its_widest_gap_is_no_boundary(seed):
    Z = _segment(300, seed)
    labels = _cut_at_widest(Z[:, 0])
    graph = NeighborGraph.from_data(Z, 7)
    (pair,) = pair_separations(Z, labels, 2, graph.indices, distances=graph.distances)
    assert pair.valley < VALLEY and not pair.clear


@pytest.mark.parametrize("seed", [1, 2])
def test_pieces_of_a_curve_without_a_neighbour_across_are_measured(seed):
    # these draws' widest gap is wider than every point's 7 neighbours reach: no vote
    # is mixed, and off a curve the pair would be clear without a measurement
    Z = _segment(300, seed)
    labels = _cut_at_widest(Z[:, 0])
    graph = NeighborGraph.from_data(Z, 7)
    assert not np.any(labels[graph.indices] != labels[:, None])
    # the curve read from the neighbour distances at hand, or from the pair's own
    for distances in (graph.distances, None):
        (pair,) = pair_separations(Z, labels, 2, graph.indices, distances=distances)
        assert np.isfinite(pair.valley) and pair.valley < VALLEY and not pair.clear


def test_an_end_with_a_copy_is_still_an_end():
    # the end point 9 has a copy: the copy is one of its neighbours, the point is not
    x = np.r_[np.arange(10.0), 9.0, np.arange(12.0, 31.0)]
    Z = np.c_[x, np.zeros_like(x)]
    gap, ends = _link(Z, (x > 10).astype(np.intp), 7)
    assert gap == pytest.approx(3.0) and ends


@pytest.mark.parametrize("seed", [0, 1])
def test_a_circle_cut_at_its_two_widest_gaps_is_no_boundary(seed):
    rng = np.random.RandomState(seed)
    angle = np.sort(rng.uniform(0.0, 2.0 * np.pi, 400))
    Z = np.c_[np.cos(angle), np.sin(angle)]
    spacing = np.diff(np.r_[angle, angle[0] + 2.0 * np.pi])
    first, second = np.sort(np.argsort(spacing)[-2:])
    labels = ((np.arange(400) > first) & (np.arange(400) <= second)).astype(np.intp)
    score, valley, _, curve = split_margin(Z, labels, 7)
    assert curve and valley < VALLEY
    graph = NeighborGraph.from_data(Z, 7)
    assert not any(p.clear for p in pair_separations(Z, labels, 2, graph.indices))


def test_pieces_apart_and_curves_side_by_side_are_clear():
    rng = np.random.RandomState(0)
    # two pieces of a line, 40 of their spacings apart (a gap no uniform line has)
    t = np.r_[np.sort(rng.uniform(0.0, 1.0, 200)), np.sort(rng.uniform(1.2, 2.2, 200))]
    Z = np.c_[t, 0.5 * t]
    labels = np.repeat([0, 1], 200)
    graph = NeighborGraph.from_data(Z, 7)
    assert all(p.clear for p in pair_separations(Z, labels, 2, graph.indices))
    # two concentric circles, 0.3 apart: no cut of one curve
    angle = rng.uniform(0.0, 2.0 * np.pi, 600)
    radius = np.repeat([1.0, 1.3], 300)
    Z = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    labels = np.repeat([0, 1], 300)
    assert not split_margin(Z, labels, 7)[3]
    graph = NeighborGraph.from_data(Z, 7)
    assert all(p.clear for p in pair_separations(Z, labels, 2, graph.indices))


def test_auto_keeps_a_uniform_curve_whole_and_splits_pieces_apart():
    rng = np.random.RandomState(3)
    angle = np.sort(rng.uniform(0.0, 1.5 * np.pi, 500))  # an open arc of a circle
    arc = np.c_[np.cos(angle), np.sin(angle)]
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(arc)
    assert est.n_clusters_ == 1
    # the same arc with a stretch of a tenth of it left out: two pieces
    keep = (angle < 0.6 * np.pi) | (angle > 0.75 * np.pi)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(arc[keep])
    assert est.n_clusters_ == 2
    assert len(np.unique(est.labels_[angle[keep] < 0.6 * np.pi])) == 1

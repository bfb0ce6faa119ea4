"""The neck reading of a boundary's valley: a cut cheaper than any cut through a cluster."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta, binomtest

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import vote_margins
from marginclust.starts import _valley as valley
from marginclust.starts._separation import pair_separations
from marginclust.starts._valley import VALLEY, _neck, split_margin


def _disc(n, centre, rng):
    r = np.sqrt(rng.uniform(0, 1, n))
    t = rng.uniform(0, 2 * np.pi, n)
    return np.c_[r * np.cos(t), r * np.sin(t)] + centre


def _touching_discs(n=400, seed=1):
    # two discs of uniform density touching at one point: no density valley, a neck
    rng = np.random.RandomState(seed)
    Z = np.r_[_disc(n, [0.0, 0.0], rng), _disc(n, [2.0, 0.0], rng)]
    return Z, np.repeat([0, 1], n).astype(np.intp)


def _ring(n=600, seed=0):
    rng = np.random.RandomState(seed)
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.03, (n, 2))


def test_the_neck_is_the_clopper_pearson_bound_of_the_mixed_counts():
    Z, labels = _touching_discs()
    k = 7
    boundary = vote_margins(labels, NeighborGraph.from_data(Z, k).indices, 2) < 1.0
    # literal: each disc halved at its mean across its first principal axis, in its own
    # 7-NN graph, counting the points whose vote is mixed
    cuts = []
    for c in (0, 1):
        Zc = Z[labels == c]
        centred = Zc - Zc.mean(axis=0)
        axis = np.linalg.svd(centred, full_matrices=False)[2][0]
        half = (centred @ axis > 0).astype(np.intp)
        d2 = ((Zc[:, None] - Zc[None]) ** 2).sum(-1)
        np.fill_diagonal(d2, np.inf)
        nn = np.argsort(d2, axis=1, kind="stable")[:, :k]
        cuts.append(int(np.sum(np.any(half[nn] != half[:, None], axis=1))))
    b, m = int(boundary.sum()), min(cuts)
    assert 0 < b < m
    # the exact two-sided 95 % interval's upper end is the one-sided 97.5 % bound
    high = binomtest(b, b + m).proportion_ci(0.95, method="exact").high
    assert _neck(Z, labels, boundary, k, None) == pytest.approx((1 - high) / high, rel=1e-6)


def test_weights_by_kish_effective_counts():
    Z, labels = _touching_discs(200)
    k = 7
    once = _neck(Z, labels, vote_margins(labels, NeighborGraph.from_data(Z, k).indices, 2) < 1.0,
                 k, None)
    # equal weights, whatever their value, are the unweighted counts (repeated rows are
    # one point of a larger weight, and repeating every row must change nothing)
    for value in (0.25, 3.0):
        w = np.full(Z.shape[0], value)
        boundary = vote_margins(labels, NeighborGraph.from_data(Z, k).indices, 2, w) < 1.0
        assert _neck(Z, labels, boundary, k, w) == pytest.approx(once, rel=1e-9)
    # unequal weights: the weighted share at Kish's effective number (literal below)
    w = np.random.RandomState(0).uniform(0.5, 2.0, Z.shape[0])
    boundary = vote_margins(labels, NeighborGraph.from_data(Z, k).indices, 2, w) < 1.0
    cuts = []
    for c in (0, 1):
        inside = labels == c
        Zc, wc = Z[inside], w[inside]
        # the cut across the weighted principal axis, at the weighted mean
        values, vectors = np.linalg.eigh(np.cov(Zc.T, aweights=wc))
        along = (Zc - np.average(Zc, axis=0, weights=wc)) @ vectors[:, np.argmax(values)]
        assert np.min(np.abs(along)) > 1e-9  # no point on the cut: no rounding can move it
        half = (along > 0).astype(np.intp)
        margins = vote_margins(half, NeighborGraph.from_data(Zc, k).indices, 2, wc)
        cuts.append(wc[margins < 1.0])
    cut = min(cuts, key=np.sum)
    wb = w[boundary]
    n = (wb.sum() + cut.sum()) ** 2 / (np.sum(wb ** 2) + np.sum(cut ** 2))
    x = n * wb.sum() / (wb.sum() + cut.sum())
    high = beta.ppf(0.975, x + 1, n - x)
    assert _neck(Z, labels, boundary, k, w) == pytest.approx((1 - high) / high, rel=1e-9)


def test_touching_discs_have_a_neck_but_no_density_valley(monkeypatch):
    Z, labels = _touching_discs()
    graph = NeighborGraph.from_data(Z, 7)
    (t,) = pair_separations(Z, labels, 2, graph.indices, seed=0)
    assert t.valley >= VALLEY and t.clear
    # the density alone (the neck left out) sees no valley: the boundary is not clear
    monkeypatch.setattr(valley, "_neck", lambda *args: 0.0)
    _, density, _, _ = split_margin(Z, labels, 7)
    assert density < VALLEY
    (without,) = pair_separations(Z, labels, 2, graph.indices, seed=0)
    assert not without.clear
    boundary = vote_margins(labels, graph.indices, 2) < 1.0
    assert _neck(Z, labels, boundary, 7, None) >= VALLEY


def test_a_cut_across_a_ring_is_no_neck():
    Z = _ring()
    halves = (Z[:, 0] > 0).astype(np.intp)
    boundary = vote_margins(halves, NeighborGraph.from_data(Z, 7).indices, 2) < 1.0
    assert _neck(Z, halves, boundary, 7, None) < VALLEY


def test_uniform_noise_cut_in_two_is_no_neck():
    Z = np.random.RandomState(0).rand(1000, 2)
    halves = (Z[:, 0] > 0.5).astype(np.intp)
    boundary = vote_margins(halves, NeighborGraph.from_data(Z, 7).indices, 2) < 1.0
    assert _neck(Z, halves, boundary, 7, None) < 1.0


def test_a_cluster_too_small_to_cut_has_no_neck():
    Z, labels = _touching_discs()
    keep = np.r_[np.arange(400), 400 + np.arange(8)]  # 8 points: at most n_neighbors + 1
    boundary = np.ones(keep.size, dtype=bool)
    assert _neck(Z[keep], labels[keep], boundary, 7, None) == 0.0


def test_touching_discs_are_two_clusters():
    Z, _ = _touching_discs()
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(Z)
    assert est.n_clusters_ == 2

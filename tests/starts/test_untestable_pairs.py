"""Clusters too small to test: a boundary between two that touch is not shown."""

import warnings

import numpy as np
import pytest

from marginclust import MaxMarginClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.starts._separation import MIN_UNION, pair_separations


def _blobs(sizes, apart, seed):
    """Gaussian blobs of unit sd on a line, ``apart`` between neighbouring centres."""
    rng = np.random.RandomState(seed)
    Z = np.concatenate([rng.randn(m, 2) + [apart * i, 0.0] for i, m in enumerate(sizes)])
    return Z, np.repeat(np.arange(len(sizes)), sizes).astype(np.intp)


def _auto(X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    return est, [w for w in caught if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.parametrize("seed", range(3))
def test_two_touching_clusters_too_small_to_test_are_not_clear(seed):
    # 7 + 7 points: with 7 neighbours each point has a neighbour across, however far
    Z, labels = _blobs([7, 7], 20.0, seed)
    assert 14 < MIN_UNION
    (pair,) = pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 7).indices)
    assert not pair.clear
    assert (pair.separation, pair.valley, pair.tested) == (0.0, 1.0, False)
    assert np.isnan(pair.score) and np.isnan(pair.reference)


def test_small_clusters_without_a_neighbour_across_stay_apart():
    # the same pair with 3 neighbours: no point has one across, the vote's own gap
    Z, labels = _blobs([7, 7], 20.0, 0)
    assert pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 3).indices) == []


def test_a_pair_just_large_enough_is_tested():
    Z, labels = _blobs([8, 8], 20.0, 0)
    (pair,) = pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 7).indices)
    assert np.isfinite(pair.score)


@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
@pytest.mark.parametrize("n", [30, 60])
@pytest.mark.parametrize("seed", range(3))
def test_a_few_points_without_clusters_are_one_cluster(kind, n, seed):
    # before, ten clusters of three to six points had no boundary to test and passed
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 2)) if kind == "uniform" else rng.randn(n, 2)
    est, caught = _auto(X)
    assert est.n_clusters_ == 1
    assert np.all(est.labels_ == 0)
    assert any("found one cluster" in str(w.message) for w in caught)


@pytest.mark.parametrize("sizes", [[10, 10, 10], [15, 15], [12, 12, 12, 12, 12]])
def test_small_separated_clusters_are_still_found(sizes):
    X, y = _blobs(sizes, 10.0, 1)
    est, caught = _auto(X)
    assert est.n_clusters_ == len(sizes)
    assert not caught
    # each cluster is one blob: the labels are the blobs' up to a permutation
    assert len({(a, b) for a, b in zip(est.labels_, y)}) == len(sizes)


def test_with_k_given_tiny_touching_clusters_warn_that_they_are_too_few_to_test():
    X = np.random.RandomState(0).uniform(size=(30, 2))
    with pytest.warns(ConvergenceWarning, match="too few to test their boundary"):
        est = MaxMarginClustering(n_clusters=10, random_state=0).fit(X)
    (row,) = est.k_scores_
    assert row.untested >= 1 and not row.separated
    assert est.separation_ <= 0.0  # a pair too small to test reads 0


def test_tested_pairs_count_no_untested():
    X, _ = _blobs([40, 40, 40], 10.0, 0)
    est, caught = _auto(X)
    assert est.n_clusters_ == 3 and not caught
    # clusters of 40 or more up to the K chosen: every touching pair is tested
    assert all(row.untested == 0 for row in est.k_scores_ if row.n_clusters <= 3)


def test_fewer_points_than_a_test_needs_say_so():
    X = np.random.RandomState(0).uniform(size=(12, 2))
    est, caught = _auto(X)
    assert est.n_clusters_ == 1
    assert any("With 12 distinct points no boundary can be tested" in str(w.message)
               for w in caught)


def test_an_untested_pair_is_never_clear_whatever_its_placeholders():
    # its readings are placeholders, not measured: clear depends on tested alone
    Z, labels = _blobs([7, 7], 20.0, 0)
    (pair,) = pair_separations(Z, labels, 2, NeighborGraph.from_data(Z, 7).indices)
    assert not pair._replace(separation=1.0, valley=float("inf")).clear
    assert pair._replace(separation=1.0, valley=float("inf"), tested=True).clear

"""Discrete columns read as bins by the margin's judge."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import adjusted_rand_score

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import class_balanced_mean, vote_margins
from marginclust.starts._discrete import MAX_LEVELS, discrete_columns, spread_over_bins


def _groups_and_an_answer(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two groups 5 sd apart in three continuous columns, and a yes/no column (10% yes)
    unrelated to them; standardised. Returns the table, the groups and the answers."""
    rng = np.random.RandomState(seed)
    groups = np.repeat([0, 1], 200)
    X = np.c_[rng.randn(400, 3) + np.c_[groups * 5.0, np.zeros((400, 2))], rng.rand(400) < 0.1]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, groups, (X[:, 3] > 0).astype(np.intp)


def test_discrete_columns_only_in_a_mixed_table():
    rng = np.random.RandomState(0)
    lattice = rng.randint(0, MAX_LEVELS, (200, 3)).astype(float)
    assert discrete_columns(lattice).size == 0  # all discrete: nothing to compare with
    table = np.c_[lattice, rng.randn(200), np.ones(200), rng.randint(0, MAX_LEVELS + 1, 200)]
    np.testing.assert_array_equal(discrete_columns(table), [0, 1, 2])  # not the constant one
    assert discrete_columns(rng.randn(50, 2)).size == 0


def test_every_value_is_drawn_within_its_bin_and_the_rest_is_untouched():
    rng = np.random.RandomState(1)
    levels = np.array([-1.0, 0.0, 0.5, 3.0])
    Z = np.c_[rng.randn(500), levels[rng.randint(0, 4, 500)]]
    S = spread_over_bins(Z, np.array([1]), np.random.RandomState(2))
    np.testing.assert_array_equal(S[:, 0], Z[:, 0])
    # bins: half the gap to each neighbouring level, the end bins as wide as their gap
    edges = {-1.0: (-1.5, -0.5), 0.0: (-0.5, 0.25), 0.5: (0.25, 1.75), 3.0: (1.75, 4.25)}
    for value, (lo, hi) in edges.items():
        drawn = S[Z[:, 1] == value, 1]
        assert drawn.size and np.all(drawn >= lo) and np.all(drawn <= hi)
    np.testing.assert_array_equal(S, spread_over_bins(Z, np.array([1]),
                                                      np.random.RandomState(2)))


def test_a_yes_no_column_no_longer_reads_as_a_perfect_gap():
    X, groups, answer = _groups_and_an_answer()

    def margin(Z: np.ndarray, labels: np.ndarray) -> float:
        graph = NeighborGraph.from_data(Z, 7)
        return class_balanced_mean(vote_margins(labels, graph.indices, 2), labels, 2)

    # as given, the answer's levels are 3.3 sd apart: no point has a neighbour across
    assert margin(X, answer) == 1.0 > margin(X, groups)
    S = spread_over_bins(X, discrete_columns(X), np.random.RandomState(0))
    assert margin(S, answer) < margin(S, groups) - 0.1


def test_max_margin_finds_the_groups_not_the_answers():
    X, groups, answer = _groups_and_an_answer()
    est = MaxMarginClustering(2, random_state=0).fit(X)
    assert adjusted_rand_score(groups, est.labels_) > 0.5
    assert adjusted_rand_score(answer, est.labels_) < 0.2

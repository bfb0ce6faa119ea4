"""The voting-margin criterion on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.objectives._margin import class_balanced_error, class_balanced_mean, vote_margins


def test_vote_margins_by_hand():
    # points 0-2 in cluster 0, 3-5 in cluster 1, 6 in cluster 2; three neighbours each
    labels = np.array([0, 0, 0, 1, 1, 1, 2])
    neighbors = np.array([
        [1, 2, 3],  # two own, one of cluster 1: (2 - 1) / 3
        [0, 2, 6],  # (2 - 1) / 3
        [0, 1, 5],  # (2 - 1) / 3
        [4, 5, 2],  # (2 - 1) / 3
        [3, 5, 6],  # (2 - 1) / 3
        [3, 4, 4],  # (3 - 0) / 3 (a repeated neighbour votes twice)
        [3, 4, 5],  # no own vote, three for cluster 1: (0 - 3) / 3
    ])
    expected = [1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1.0, -1.0]
    np.testing.assert_allclose(vote_margins(labels, neighbors, 3), expected)


def test_votes_split_between_other_clusters_count_the_largest():
    labels = np.array([0, 1, 1, 2, 2])
    neighbors = np.array([[1, 2, 3, 4]] + [[0, 0, 0, 0]] * 4)
    # point 0: no own vote, two for cluster 1 and two for cluster 2: (0 - 2) / 4
    assert vote_margins(labels, neighbors, 3)[0] == -0.5


def test_class_balanced_mean_by_hand():
    values = np.array([1.0, 1.0, 1.0, 1.0, 0.0, -1.0])
    labels = np.array([0, 0, 0, 0, 1, 1])
    assert class_balanced_mean(values, labels, 2) == pytest.approx((1.0 - 0.5) / 2)
    # the same margins unbalanced would be 1/2: a large cluster cannot hide a small one
    assert values.mean() == pytest.approx(0.5)
    # an empty third cluster counts -1
    assert class_balanced_mean(values, labels, 3) == pytest.approx((1.0 - 0.5 - 1.0) / 3)


@pytest.mark.parametrize("s", [1, 2, 3, 4, 5, 8])
def test_an_isolated_tiny_cluster_is_capped_at_its_own_votes(s):
    # a cluster of s points far from a cluster of 40: each member's k = 7 neighbours are
    # its s - 1 fellows, then the nearest of the big cluster
    k = 7
    rng = np.random.RandomState(0)
    big = rng.randn(40, 2)
    tiny = 100.0 + 0.01 * rng.randn(s, 2)
    X = np.vstack([big, tiny])
    labels = np.r_[np.zeros(40, int), np.ones(s, int)]
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    neighbors = np.argsort(D, axis=1)[:, :k]
    m = vote_margins(labels, neighbors, 2)[labels == 1]
    own = min(s - 1, k)
    np.testing.assert_allclose(m, (own - (k - own)) / k)
    assert (m.max() <= 0) == (s <= k / 2 + 1)


def test_class_balanced_error_is_the_standard_error_of_the_mean_of_cluster_means():
    rng = np.random.RandomState(0)
    values = rng.uniform(-1, 1, 90)
    labels = np.repeat([0, 1, 2], [20, 30, 40])
    # literal: Var(mean of 3 means) = sum_c Var(values_c) / n_c / 3^2 (np.var: ddof 0)
    expected = np.sqrt(sum(np.var(values[labels == c]) / np.sum(labels == c)
                           for c in range(3))) / 3
    assert class_balanced_error(values, labels, 3) == pytest.approx(expected, rel=1e-12)
    # an empty fourth cluster adds no variance but divides by four clusters
    assert class_balanced_error(values, labels, 4) == pytest.approx(expected * 3 / 4, rel=1e-12)
    # constant values: no error
    assert class_balanced_error(np.ones(90), labels, 3) == 0.0


def test_class_balanced_error_with_weights():
    rng = np.random.RandomState(1)
    values = rng.uniform(-1, 1, 50)
    labels = np.repeat([0, 1], 25)
    w = rng.uniform(0.5, 2.0, 50)
    expected = 0.0
    for c in range(2):
        v, wc = values[labels == c], w[labels == c]
        mean = np.sum(wc * v) / np.sum(wc)
        variance = np.sum(wc * (v - mean) ** 2) / np.sum(wc)
        expected += variance / (np.sum(wc) ** 2 / np.sum(wc * wc))  # Kish's effective n
    expected = np.sqrt(expected) / 2
    assert class_balanced_error(values, labels, 2, weights=w) == pytest.approx(expected, rel=1e-9)
    # equal weights, whatever their value, are the unweighted error
    assert class_balanced_error(values, labels, 2, weights=np.full(50, 3.0)) == pytest.approx(
        class_balanced_error(values, labels, 2), rel=1e-12)

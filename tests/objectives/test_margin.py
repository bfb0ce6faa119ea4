"""The voting-margin criterion on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.objectives._margin import class_balanced_mean, vote_margins


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



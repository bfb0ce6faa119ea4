"""The choice of K among judged candidate partitions."""

from __future__ import annotations

import numpy as np

from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.starts._selection import Candidate, _select


def _four_blobs():
    # four Gaussian blobs 12 sd apart on a line, 60 points each
    rng = np.random.RandomState(0)
    Z = np.concatenate([rng.randn(60, 2) + [12.0 * i, 0.0] for i in range(4)])
    blob = np.repeat(np.arange(4), 60)
    return Z, blob


def _judged(Z, blob):
    left = Z[:, 0] < 24.0  # through the middle of the third blob
    halves = np.where(blob == 3, 3, blob) + (blob == 3) * (Z[:, 1] > 0)
    partitions = {
        2: blob // 2,  # two pairs of blobs: clear
        3: np.where(blob == 0, 0, np.where(left, 1, 2)),  # a cut through a blob
        4: blob,  # the blobs: clear
        5: halves,  # the fourth blob halved
    }
    return [(Candidate(f"k{k}", k, 1.0 - 0.01 * k, tuple(np.bincount(lab)), 0.0),
             lab.astype(np.intp), np.ones(Z.shape[0])) for k, lab in partitions.items()]


def test_auto_keeps_the_largest_clearly_separated_k_past_an_unclear_one():
    Z, blob = _four_blobs()
    graph = NeighborGraph.from_data(Z, 7)
    best, labels, table = _select(_judged(Z, blob), (2, 3, 4, 5), Z, graph.indices, None, 0,
                                  auto=True, with_pairs=False)
    assert [row.separated for row in table] == [True, False, True, False]
    assert best.n_clusters == 4
    np.testing.assert_array_equal(labels, blob)


def test_k_given_is_the_k_asked_whatever_the_others():
    # every K's candidates are at hand; K = 3 is asked and kept although it is not
    # clear and K = 4 is
    Z, blob = _four_blobs()
    graph = NeighborGraph.from_data(Z, 7)
    judged = _judged(Z, blob)
    best, labels, table = _select(judged, (3,), Z, graph.indices, None, 0,
                                  auto=False, with_pairs=False)
    assert best is judged[1][0] and not table[0].separated and len(table) == 1
    np.testing.assert_array_equal(labels, judged[1][1])

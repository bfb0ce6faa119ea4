"""cluster_qr recovers the partition of an ideal spectral embedding (Damle, Minden & Ying)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ortho_group

from marginclust.solvers._spectral import cluster_qr


def _ideal(sizes, seed):
    """Normalised cluster indicators, rotated by a random orthogonal matrix."""
    labels = np.repeat(np.arange(len(sizes)), sizes)
    Y = np.eye(len(sizes))[labels] / np.sqrt(np.asarray(sizes, float))[labels][:, None]
    return labels, Y @ ortho_group.rvs(len(sizes), random_state=seed)


def _same_partition(a, b):
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.mark.parametrize("seed", range(5))
def test_ideal_embedding_gives_the_partition(seed):
    labels, Y = _ideal([5, 30, 12, 50], seed)
    assert _same_partition(cluster_qr(Y), labels)


def test_column_signs_do_not_matter():
    labels, Y = _ideal([10, 20, 15], 0)
    flipped = Y * np.array([1.0, -1.0, -1.0])
    np.testing.assert_array_equal(cluster_qr(Y), cluster_qr(flipped))


def test_small_noise_keeps_the_partition():
    labels, Y = _ideal([40, 25, 35], 2)
    noisy = Y + 1e-3 * np.random.RandomState(0).randn(*Y.shape)
    assert _same_partition(cluster_qr(noisy), labels)

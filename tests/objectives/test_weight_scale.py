"""Kish's effective number and the margin's error at any scale of the weights.

Both are ratios of weight sums and so free of the weights' scale; computed
directly, the squares of weights far below one underflow (``2**-1000`` squared
is zero). Scaling by a power of two is exact here (every product stays a normal
number), so the results agree bit for bit.
"""

import numpy as np

from marginclust.objectives._gaussian_mixture import effective_size
from marginclust.objectives._margin import class_balanced_error

TINY = 2.0 ** -1000


def test_effective_size_is_free_of_the_scale():
    w = np.random.RandomState(0).uniform(0.5, 2.0, 50)
    assert effective_size(w * TINY) == effective_size(w)
    assert effective_size(np.full(10, TINY)) == 10.0
    assert effective_size(np.zeros(3)) == 0.0
    assert effective_size(np.array([1.0, 0.0])) == 1.0


def test_margin_error_is_free_of_the_scale_of_each_clusters_weights():
    rng = np.random.RandomState(1)
    values = rng.uniform(0.5, 1.0, 60)
    labels = np.repeat([0, 1, 2], 20).astype(np.intp)
    w = rng.uniform(0.5, 2.0, 60)
    once = class_balanced_error(values, labels, 3, weights=w)
    assert once > 0.0
    assert class_balanced_error(values, labels, 3, weights=w * TINY) == once
    # unit weights take the count for Kish's number: (sum 1)^2 / sum 1 is that count
    # exactly (small integers), and the rest runs the same operations
    assert (class_balanced_error(values, labels, 3, weights=np.ones(60))
            == class_balanced_error(values, labels, 3))
    # one cluster's weights far below the others': its own spread still counts
    mixed = w.copy()
    mixed[labels == 2] *= TINY
    full = class_balanced_error(values, labels, 3, weights=mixed)
    parts = [class_balanced_error(values[labels == c], np.zeros(20, np.intp), 1,
                                  weights=w[labels == c]) for c in range(3)]
    # the error of the mean of three cluster means: sqrt(sum of squared parts) / 3
    assert min(parts) > 0.0
    np.testing.assert_allclose(full, np.sqrt(np.sum(np.square(parts))) / 3, rtol=1e-12)

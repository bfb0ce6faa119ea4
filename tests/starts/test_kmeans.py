"""The k-means starts: one k-means run, its blocks, the k-means++ centres, the sample start."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import kmeans_plusplus

from marginclust.starts._kmeans import kmeans_plusplus_centres, kmeans_start_states
from marginclust.starts._sample import sample_start
from marginclust.starts._spectral import SampleLabels, spectral_sample_labels
from marginclust.utils._blocks import RowBlocks


@pytest.mark.parametrize(("dtype", "scale"), [(np.float64, 1e-300), (np.float64, 1e300),
                                              (np.float32, 1e-30), (np.float32, 1e30)])
def test_kmeans_start_at_extreme_scales_is_that_of_unit_scale(dtype, scale):
    # float64 X * 1e200 overflowed the squares of scikit-learn's k-means (its tolerance
    # is the variance); the data are rescaled by a power of two, exactly
    import warnings

    from marginclust.starts import kmeans_start

    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(20, 3) - 3, rng.randn(20, 3) + 3])
    ref = kmeans_start(X.astype(dtype), 2, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        labels = kmeans_start((X * scale).astype(dtype), 2, 0)
    np.testing.assert_array_equal(labels, ref)


def test_kmeans_plusplus_centres_are_scikit_learns_draw():
    X = np.random.RandomState(0).randn(50, 3)
    w = np.random.RandomState(1).rand(50)
    expected, _ = kmeans_plusplus(X, 4, sample_weight=w, random_state=np.random.RandomState(2))
    got = kmeans_plusplus_centres(X, 4, np.random.RandomState(2), w)
    np.testing.assert_array_equal(got, expected)


def test_kmeans_start_states_in_memory_are_one_kmeans_run():
    from marginclust.starts import kmeans_start

    X = np.random.RandomState(3).randn(60, 2)
    states = kmeans_start_states(RowBlocks(X, 25), 3, np.random.RandomState(4))
    np.testing.assert_array_equal(np.concatenate(states),
                                  kmeans_start(X, 3, np.random.RandomState(4)))


def test_sample_start_labels_the_rows_beyond_its_sample_by_the_nearest_sample_row():
    X = np.random.RandomState(5).randn(2500, 2)
    labels, labeller = sample_start(RowBlocks(X), 2, np.random.RandomState(6), "spectral")
    assert labels is None and isinstance(labeller, SampleLabels)
    rng = np.random.RandomState(6)
    sample, _ = RowBlocks(X).sample(2000, rng)
    np.testing.assert_array_equal(labeller.labels,
                                  spectral_sample_labels(sample, 2, random_state=rng))

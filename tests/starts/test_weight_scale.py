"""The boundary test at any scale of the weights.

The estimator passes weights relative to the largest, so points far lighter
than the heaviest have weights far below one, and their squares underflow
(``2**-1000`` squared is zero). Every reading is a ratio of weight sums, free of
the weights' scale; scaling by a power of two is exact here (every product
stays a normal number), so the readings agree bit for bit.
"""

import warnings

import numpy as np
from sklearn.datasets import make_blobs

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import vote_margins
from marginclust.starts._gaussian_pair import two_gaussians
from marginclust.starts._references import principal_axes
from marginclust.starts._valley import _neck

TINY = 2.0 ** -1000


def _two_blobs(n=150, apart=4.0, seed=0):
    rng = np.random.RandomState(seed)
    Z = np.r_[rng.randn(n, 2), rng.randn(n, 2) + [apart, 0.0]]
    return Z, np.repeat([0, 1], n).astype(np.intp), rng.uniform(0.5, 2.0, 2 * n)


def test_principal_axes_are_free_of_the_scale():
    Z, _, w = _two_blobs()
    for got, expected in zip(principal_axes(Z, w * TINY), principal_axes(Z, w)):
        np.testing.assert_array_equal(got, expected)


def test_neck_is_free_of_the_scale():
    Z, labels, w = _two_blobs(apart=3.0)
    boundary = vote_margins(labels, NeighborGraph.from_data(Z, 7).indices, 2, w) < 1.0
    assert boundary.any()
    once = _neck(Z, labels, boundary, 7, w)
    assert once > 0.0
    assert _neck(Z, labels, boundary, 7, w * TINY) == once


def test_two_gaussians_is_free_of_the_scale():
    Z, labels, w = _two_blobs(apart=4.0)
    assert two_gaussians(Z, labels, w)  # two Gaussians 4 sd apart pass
    assert two_gaussians(Z, labels, w * TINY)


def test_a_fit_with_points_far_lighter_than_the_heaviest():
    # every fiftieth point 2**600 or 2**1000 times heavier than the rest: no error and
    # no floating-point warning, and the same answer at both ratios (the light points'
    # weights vanish beside the heavy ones' in either)
    X, _ = make_blobs(600, 2, centers=3, random_state=0)
    fits = []
    for power in (600, 1000):
        w = np.ones(len(X))
        w[::50] = 2.0 ** power
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            fits.append(MaxMarginClustering(n_clusters="auto", random_state=0)
                        .fit(X, sample_weight=w))
    assert fits[0].n_clusters_ == fits[1].n_clusters_
    for a, b in zip(fits[0].k_scores_, fits[1].k_scores_):
        np.testing.assert_allclose(np.asarray(a[:6], float), np.asarray(b[:6], float),
                                   rtol=1e-9)

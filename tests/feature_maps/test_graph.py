"""The local geometry: the neighbour width and the locally scaled graph."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from marginclust.feature_maps import local_scaling_affinity, neighbor_scale, resolve_gamma
from marginclust.utils._blocks import sample_row_indices


def _rings(n_per: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    t = rng.uniform(0, 2 * np.pi, 2 * n_per)
    r = np.r_[np.ones(n_per), 3 * np.ones(n_per)] + 0.05 * rng.randn(2 * n_per)
    return np.c_[r * np.cos(t), r * np.sin(t)], np.repeat([0, 1], n_per)


def test_neighbor_scale_is_the_median_kth_neighbour_distance():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    kth = np.sort(D, axis=1)[:, 7]  # column 0 is the point itself
    assert neighbor_scale(X) == pytest.approx(float(np.median(kth)))
    # a rule of the data's geometry: it moves with a rescaling, not with a shift
    assert neighbor_scale(3.0 * X + 100.0) == pytest.approx(3.0 * neighbor_scale(X))


def test_neighbor_scale_subsamples_with_the_dask_sampler():
    X = np.random.RandomState(1).randn(3000, 2)
    idx = sample_row_indices(3000, 500, np.random.RandomState(0))
    assert neighbor_scale(X, max_samples=500, random_state=0) == neighbor_scale(X[idx])


def test_neighbor_scale_with_repeated_points_and_errors():
    X = np.vstack([np.zeros((20, 2)), np.ones((20, 2))])  # 7th neighbours all at 0
    assert neighbor_scale(X) == pytest.approx(np.sqrt(2.0))  # between the distinct rows
    with pytest.raises(ValueError, match="coincide"):
        neighbor_scale(np.ones((10, 2)))
    with pytest.raises(ValueError, match="2 samples"):
        neighbor_scale(np.ones((1, 2)))


def test_resolve_gamma_local_is_scale_free():
    X = np.random.RandomState(2).randn(80, 4)
    g = resolve_gamma("local", X)
    assert g == pytest.approx(1.0 / neighbor_scale(X) ** 2)
    assert resolve_gamma("local", 10.0 * X) == pytest.approx(g / 100.0)
    assert resolve_gamma("local", sp.csr_matrix(X)) == pytest.approx(g)
    with pytest.raises(ValueError, match="coincide"):
        resolve_gamma("local", np.ones((5, 2)))


def test_local_scaling_affinity_matches_its_definition():
    X = np.random.RandomState(3).randn(40, 2)
    A = local_scaling_affinity(X, n_neighbors=5, scale_neighbor=3).toarray()
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    order = np.argsort(D, axis=1)[:, 1:]
    sigma = np.sort(D, axis=1)[:, 3]
    knn = np.zeros_like(D, dtype=bool)
    knn[np.arange(40)[:, None], order[:, :5]] = True
    expected = np.where(knn | knn.T, np.exp(-(D**2) / np.outer(sigma, sigma)), 0.0)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(A, expected, rtol=1e-12, atol=0)

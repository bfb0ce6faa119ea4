"""The local geometry: the neighbour width, the locally scaled graph, the spectral start."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons

from marginclust.feature_maps import local_scaling_affinity, neighbor_scale, resolve_gamma
from marginclust.metrics import normalized_clustering_accuracy
from marginclust.starts import spectral_labels
from marginclust.starts._spectral import nearest_labels, spectral_sample_labels
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


def test_spectral_labels_finds_nested_rings_that_kmeans_cuts():
    from sklearn.cluster import KMeans

    X, y = _rings()
    km = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    assert normalized_clustering_accuracy(y, km) < 0.5
    labels = spectral_labels(X, 2, random_state=0)
    assert normalized_clustering_accuracy(y, labels) == 1.0


def test_spectral_labels_moons_blobs_and_determinism():
    X, y = make_moons(300, noise=0.05, random_state=0)
    assert normalized_clustering_accuracy(y, spectral_labels(X, 2, random_state=0)) > 0.98
    X, y = make_blobs(400, 3, centers=4, cluster_std=0.5, random_state=0)
    a = spectral_labels(X, 4, random_state=1)
    assert normalized_clustering_accuracy(y, a) == 1.0
    np.testing.assert_array_equal(a, spectral_labels(X, 4, random_state=1))


def test_spectral_labels_merges_repeated_rows():
    # integer-valued data with many repeated rows: without merging, the copies form
    # cliques of local scale 0 that are cut off from the rest as clusters of their own
    rng = np.random.RandomState(4)
    a = rng.randint(0, 3, size=(300, 4))
    b = rng.randint(5, 8, size=(300, 4))
    X = np.vstack([a, b]).astype(float)
    y = np.repeat([0, 1], 300)
    assert normalized_clustering_accuracy(y, spectral_labels(X, 2, random_state=0)) == 1.0
    uniq = np.unique(X, axis=0)
    assert uniq.shape[0] < X.shape[0]


def test_spectral_labels_above_max_samples_extends_by_nearest_sample_row():
    X, _ = _rings(600)
    rng = np.random.RandomState(5)
    labels = spectral_labels(X, 2, max_samples=300, random_state=rng)
    rng = np.random.RandomState(5)
    idx = sample_row_indices(X.shape[0], 300, rng)
    sub = spectral_sample_labels(X[idx], 2, random_state=rng)
    np.testing.assert_array_equal(labels, nearest_labels(X, X[idx], sub))
    np.testing.assert_array_equal(labels[idx], sub)


def test_spectral_labels_edge_cases():
    X = np.random.RandomState(6).randn(5, 2)
    np.testing.assert_array_equal(spectral_labels(X, 1), np.zeros(5, dtype=np.intp))
    labels = spectral_labels(X, 5, random_state=0)
    assert sorted(labels.tolist()) == [0, 1, 2, 3, 4]
    Xs = sp.csr_matrix(np.random.RandomState(7).rand(40, 6))
    labels = spectral_labels(Xs, 3, random_state=0)
    assert labels.shape == (40,) and set(labels.tolist()) <= {0, 1, 2}


def test_spectral_labels_are_numbered_by_first_appearance():
    """The start's numbering depends on the partition only: sparse and dense copies of
    the same data (whose eigensolver rounding may flip or reorder eigenvectors) give
    the same labels, and a method started from them the same model (EMMC on blobs
    whose dense and CSR fits used to end in the same partition numbered apart)."""
    import scipy.sparse as sp
    from sklearn.datasets import make_blobs

    from marginclust import EMMC
    from marginclust.starts import spectral_labels
    from marginclust.starts._spectral import first_appearance_order

    X, _ = make_blobs(33, 3, centers=3, cluster_std=0.6, random_state=2524)
    dense = spectral_labels(X, 3, random_state=0)
    np.testing.assert_array_equal(dense, first_appearance_order(dense))
    np.testing.assert_array_equal(dense, spectral_labels(sp.csr_matrix(X), 3, random_state=0))
    a = EMMC(3, random_state=0).fit(X)
    b = EMMC(3, random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(first_appearance_order(np.array([2, 2, 0, 1, 0])),
                                  [0, 0, 1, 2, 1])

"""The spectral start: self-tuning spectral clustering of the locally scaled graph."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons

from marginclust.metrics import normalized_clustering_accuracy
from marginclust.starts import spectral_labels
from marginclust.starts._spectral import nearest_labels, spectral_sample_labels
from marginclust.utils._blocks import sample_row_indices


def _rings(n_per: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    t = rng.uniform(0, 2 * np.pi, 2 * n_per)
    r = np.r_[np.ones(n_per), 3 * np.ones(n_per)] + 0.05 * rng.randn(2 * n_per)
    return np.c_[r * np.cos(t), r * np.sin(t)], np.repeat([0, 1], n_per)


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


def test_nearest_labels_are_the_same_for_fortran_ordered_rows():
    """A pandas frame's values are Fortran-ordered; they take scikit-learn's chunked
    search too (made C-ordered), with the labels of the brute-force nearest row."""
    from scipy.spatial.distance import cdist

    rng = np.random.RandomState(0)
    X, Xs = rng.randn(300, 5), rng.randn(40, 5)
    labels = rng.randint(0, 4, size=40)
    expected = labels[np.argmin(cdist(X, Xs), axis=1)]
    np.testing.assert_array_equal(nearest_labels(np.asfortranarray(X), Xs, labels), expected)
    np.testing.assert_array_equal(nearest_labels(X, np.asfortranarray(Xs), labels), expected)

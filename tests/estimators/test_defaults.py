"""The defaults of 0.2: what each one does, and that the former values still give the former fit.

Non-convex clusters (two nested rings) are found at the defaults and cut convexly
with the former values; well-separated blobs keep every cluster; the automatic
fuzzifier keeps every cluster in high dimension where ``m = 2`` merges some.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust import BMMC, CPMMC, EMMC, SLMC, FuzzyCMeans, WOCSVMClustering
from marginclust.estimators._fcm import auto_fuzzifier
from marginclust.metrics import clustering_accuracy, normalized_clustering_accuracy

# the former defaults, as a user passes them to get the fits of 0.1
SLMC_01 = {"init": "fcm-sharp", "gamma": "scale", "w_step": "exact"}
EMMC_01 = {"init": "k-means-elm"}
WOC_01 = {"init": "gmm", "gamma": "sigma0", "nu": 0.9, "temperature": 1.0,
          "decision_scale": "libsvm"}
MMC_01 = {"C": 1.0, "min_cluster_size": 0}


def _rings(n_per: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    t = rng.uniform(0, 2 * np.pi, 2 * n_per)
    r = np.r_[np.ones(n_per), 3 * np.ones(n_per)] + 0.1 * rng.randn(2 * n_per)
    return np.c_[r * np.cos(t), r * np.sin(t)], np.repeat([0, 1], n_per)


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


@pytest.mark.parametrize(
    "cls, old",
    [(SLMC, SLMC_01), (EMMC, EMMC_01), (WOCSVMClustering, WOC_01)],
    ids=["SLMC", "EMMC", "WOCSVMClustering"],
)
def test_nested_rings_found_at_defaults_cut_with_former_values(cls, old):
    X, y = _rings()
    new = _fit(cls(2, random_state=0), X)
    assert normalized_clustering_accuracy(y, new.labels_) == 1.0
    former = _fit(cls(2, random_state=0, **old), X)
    # the former start and width cut both rings in two (a convex split)
    assert normalized_clustering_accuracy(y, former.labels_) < 0.5


@pytest.mark.parametrize("cls", [SLMC, EMMC, WOCSVMClustering, BMMC, CPMMC, FuzzyCMeans])
def test_well_separated_blobs_keep_every_cluster(cls):
    X, y = make_blobs(400, 3, centers=4, cluster_std=0.5, random_state=0)
    est = _fit(cls(4, random_state=0), X)
    assert est.n_clusters_found_ == 4
    assert clustering_accuracy(y, est.labels_) >= 0.99


@pytest.mark.parametrize("cls", [BMMC, CPMMC])
def test_linear_mmc_former_defaults_merge_two_blobs(cls):
    # the case the new C and the size floor fix: two of four 3-D blobs merged at C=1
    X, y = make_blobs(1000, 3, centers=4, cluster_std=0.5, random_state=0)
    former = _fit(cls(4, random_state=0, **MMC_01), X)
    assert former.n_clusters_found_ == 3
    assert clustering_accuracy(y, _fit(cls(4, random_state=0), X).labels_) >= 0.99


def test_size_floor_keeps_every_cluster_and_records_the_moved_rows():
    # three clusters along a line: the linear model empties the middle one
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(100, 2) * 0.6 + [c, 0] for c in (-4, 0, 4)])
    paper = _fit(BMMC(3, C=1.0, balance=0.1, min_cluster_size=0, random_state=0), X)
    floored = _fit(BMMC(3, C=1.0, balance=0.1, random_state=0), X)
    assert paper.n_clusters_found_ < 3
    assert floored.n_clusters_found_ == 3
    assert np.bincount(floored.labels_).min() >= 50  # half the start's smallest cluster
    moved = np.flatnonzero(floored.labels_ != floored.predict(X))
    np.testing.assert_array_equal(floored.size_moved_, moved)
    assert paper.size_moved_.size == 0


def test_fcm_auto_fuzzifier_keeps_clusters_in_high_dimension():
    rng = np.random.RandomState(0)
    centres = rng.randn(10, 100) * 0.7
    y = np.repeat(np.arange(10), 100)
    X = centres[y] + rng.randn(1000, 100)
    m2 = _fit(FuzzyCMeans(10, m=2.0, random_state=0), X)
    auto = _fit(FuzzyCMeans(10, random_state=0), X)
    assert m2.n_clusters_found_ < 10 and m2.m_ == 2.0
    assert auto.n_clusters_found_ == 10
    assert auto.m_ == pytest.approx(auto_fuzzifier(1000, 100))
    assert normalized_clustering_accuracy(y, auto.labels_) > normalized_clustering_accuracy(
        y, m2.labels_) + 0.2


def test_auto_fuzzifier_formula_and_cap():
    # Schwämmle & Jensen (2010), eq. 5, as Mfuzz's mestimate computes it
    N, D = 9298, 256
    m = 1 + (1418 / N + 22.05) * D**-2 + (12.33 / N + 0.243) * D ** (-0.0406 * np.log(N) - 0.1134)
    assert auto_fuzzifier(N, D) == pytest.approx(m, rel=1e-14)
    assert auto_fuzzifier(1000, 2) == 2.0  # the formula gives 7.1 in two dimensions
    assert 1.0 < auto_fuzzifier(20000, 16) < 1.2
    est = FuzzyCMeans(3, m=1.7, random_state=0).fit(np.random.RandomState(0).randn(50, 3))
    assert est.m_ == 1.7
    with pytest.raises(ValueError, match="'auto'"):
        FuzzyCMeans(3, m="high").fit(np.random.RandomState(0).randn(50, 3))


def test_margin_search_start_is_the_search_pick():
    # the start is MaxMarginClustering's partition at its defaults, numbered by first
    # appearance (the same call with the same seed: the same labels)
    from marginclust import MaxMarginClustering
    from marginclust.starts import margin_search_labels

    X, _ = _rings(100)
    start = margin_search_labels(X, 2, np.random.RandomState(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pick = MaxMarginClustering(2, random_state=np.random.RandomState(3)).fit(X).labels_
    assert start[0] == 0
    np.testing.assert_array_equal(start, pick if pick[0] == 0 else 1 - pick)


def test_margin_search_start_beyond_its_sample():
    # above 2,000 rows the search runs on the spectral start's sample and every
    # other row takes the label of its nearest sample row
    from marginclust.starts import margin_search_labels
    from marginclust.starts._one_class import initial_weights
    from marginclust.starts._spectral import SampleLabels
    from marginclust.utils._blocks import sample_row_indices

    X, y = make_blobs(2500, 3, centers=3, cluster_std=1.5, random_state=1)
    W = initial_weights("max-margin", X, 3, np.random.RandomState(0))
    rng = np.random.RandomState(0)
    idx = sample_row_indices(2500, 2000, rng)
    labels = margin_search_labels(X[idx], 3, rng)
    np.testing.assert_array_equal(W, np.eye(3)[SampleLabels(X[idx], labels).predict(X)])
    np.testing.assert_array_equal(W[idx].argmax(axis=1), labels)
    assert clustering_accuracy(y, W.argmax(axis=1)) >= 0.95


def test_margin_search_start_on_one_column_is_the_spectral_start():
    # on a line the voting margin cannot tell cuts apart: the spectral start instead
    from marginclust.starts import margin_search_labels
    from marginclust.starts._spectral import spectral_sample_labels

    rng = np.random.RandomState(0)
    x = np.r_[rng.randn(300), rng.randn(300) + 3.0][:, None]
    np.testing.assert_array_equal(
        margin_search_labels(x, 2, np.random.RandomState(1)),
        spectral_sample_labels(x, 2, random_state=np.random.RandomState(1)))


def test_margin_search_start_on_a_sample_with_few_distinct_rows():
    # a sample of a mostly repeated data set can hold fewer distinct rows than K:
    # the start then has as many clusters as distinct rows (no error)
    from marginclust.starts import margin_search_labels

    X = np.repeat([[0.0, 0.0], [5.0, 5.0]], [40, 10], axis=0)
    labels = margin_search_labels(X, 3, 0)
    np.testing.assert_array_equal(labels, np.repeat([0, 1], [40, 10]))
    np.testing.assert_array_equal(margin_search_labels(X[:40], 3, 0), np.zeros(40))


@pytest.mark.parametrize("cls, field", [(SLMC, "memberships_"), (WOCSVMClustering, "memberships_")])
def test_default_start_keeps_iris_species_whole(cls, field):
    # on real data with two touching classes and one apart, the fit from the margin
    # search's pick keeps the separate species (nearly) whole and parts the other two
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    est = _fit(cls(3, random_state=0), X)
    setosa = np.bincount(est.labels_[y == 0], minlength=3)
    assert setosa.max() >= 45
    assert normalized_clustering_accuracy(y, est.labels_) >= 0.7
    assert getattr(est, field).shape == (150, 3)


@pytest.mark.parametrize("cls", [BMMC, CPMMC])
def test_linear_mmc_max_margin_start(cls):
    # the margin search's start, then the linear solver: on separated blobs the start
    # is already the fixed point; sparse X is refused with the remedy
    import scipy.sparse as sp

    from marginclust.starts import margin_search_start

    X, y = make_blobs(2500, 3, centers=3, cluster_std=0.5, random_state=2)
    est = _fit(cls(3, init="max-margin", random_state=0), X)
    start = margin_search_start(X, 3, np.random.RandomState(0))
    assert clustering_accuracy(start, est.labels_) == 1.0
    assert clustering_accuracy(y, est.labels_) >= 0.99
    with pytest.raises(ValueError, match="dense"):
        cls(3, init="max-margin").fit(sp.csr_matrix(X))

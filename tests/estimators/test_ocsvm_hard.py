"""OCSVMHardClustering: reassignment rule, inits, emptied clusters, bad input, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from marginclust.estimators._ocsvm_hard import OCSVMHardClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.solvers._weighted_ocsvm import fit_weighted_ocsvm


@pytest.fixture
def blobs():
    return make_blobs(n_samples=60, centers=3, cluster_std=0.6, random_state=1)


@pytest.mark.parametrize("init", ["k-means", "random"])
def test_recovers_blobs_and_is_deterministic(blobs, init):
    X, y = blobs
    a = OCSVMHardClustering(3, gamma=0.05, init=init, random_state=0).fit(X)
    b = OCSVMHardClustering(3, gamma=0.05, init=init, random_state=0).fit(X)
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.predict(X), a.labels_)
    if init == "k-means":
        assert adjusted_rand_score(y, a.labels_) > 0.9


def test_fixed_point_of_the_reassignment_rule(blobs):
    """At convergence each sample is in the cluster whose OC-SVM (trained on the
    cluster's samples, LIBSVM decision values) scores it highest."""
    X, _ = blobs
    m = OCSVMHardClustering(3, gamma=0.05, nu=0.8, random_state=0, svm_tol=1e-8).fit(X)
    assert m.converged_
    scores = np.column_stack(
        [
            (lambda s: s.native_scale * s.decision_function(X))(
                fit_weighted_ocsvm(X, (m.labels_ == k).astype(float), nu=0.8, gamma=0.05,
                                   tol=1e-8)
            )
            for k in range(3)
        ]
    )
    assert_array_equal(np.argmax(scores, axis=1), m.labels_)
    assert m.objective_history_.shape == (m.n_iter_,)


def test_array_init_and_emptied_cluster():
    X, _ = make_blobs(n_samples=40, centers=2, cluster_std=0.3, random_state=0)
    lab = np.zeros(40, dtype=int)
    lab[:20] = 1  # cluster 2 starts empty: it is removed and reported
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        m = OCSVMHardClustering(3, gamma=0.05, init=lab).fit(X)
    assert m.absorbed_clusters_
    pred = m.predict(X)
    assert set(np.unique(pred)) <= set(np.unique(m.labels_))


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(init="k-medoids"), "init"),
        (dict(init=np.zeros(3, dtype=int)), "shape"),
        (dict(nu=2.0), "nu"),
        (dict(kernel="sigmoid"), "kernel"),
        (dict(max_iter=0), "max_iter"),
        (dict(gamma="x"), "gamma"),
        (dict(decision_scale="y"), "decision_scale"),
    ],
)
def test_bad_params(blobs, params, match):
    X, _ = blobs
    with pytest.raises(ValueError, match=match):
        OCSVMHardClustering(3, **params).fit(X)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        OCSVMHardClustering(2).fit(np.array([[0.0, np.nan], [1.0, 2.0], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="n_clusters"):
        OCSVMHardClustering(5).fit(np.random.RandomState(0).randn(3, 2))


def test_deprecated_init_spelling(blobs):
    X, y = blobs
    with pytest.warns(FutureWarning, match="k-means"):
        m = OCSVMHardClustering(3, gamma=0.05, init="kmeans", random_state=0).fit(X)
    ref = OCSVMHardClustering(3, gamma=0.05, init="k-means", random_state=0).fit(X)
    assert_array_equal(m.labels_, ref.labels_)


# Hostile-input cases of the property suite, on make_blobs(40, 3, centers=2, cluster_std=0.6, rs=0).
@pytest.fixture
def blobs2():
    return make_blobs(n_samples=40, n_features=3, centers=2, cluster_std=0.6, random_state=0)


@pytest.mark.parametrize("transform", [lambda X: X * 1e-300, lambda X: X * 1e-150,
                                       lambda X: X * 1e150, lambda X: X * 1e300,
                                       lambda X: X + 1e9, lambda X: X * 1e-4])
def test_default_fit_is_scale_and_offset_free(blobs2, transform):
    X, y = blobs2
    ref = OCSVMHardClustering(2, random_state=0).fit(X)
    m = OCSVMHardClustering(2, random_state=0).fit(transform(X))
    assert adjusted_rand_score(y, ref.labels_) == 1.0
    assert_array_equal(m.labels_, ref.labels_)
    assert_array_equal(m.predict(transform(X)), ref.labels_)


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_linear_kernel_mixed_scales_bounded_and_extreme_scales(blobs2):
    """Mixed 1e-8 / 1e8 columns hung LIBSVM; X * 1e150 raised 'dual coefficients ... not finite'."""
    X, y = blobs2
    m = OCSVMHardClustering(2, kernel="linear", max_iter=20, random_state=0)
    m.fit(X * np.array([1e-8, 1e8, 1.0]))
    assert m.labels_.shape == (40,)
    ref = OCSVMHardClustering(2, kernel="linear", random_state=0).fit(X)
    for scale in (1e-300, 1e150, 1e300):  # 1e-300: ZeroDivisionError (scale**2 underflowed)
        big = OCSVMHardClustering(2, kernel="linear", random_state=0).fit(X * scale)
        assert_array_equal(big.labels_, ref.labels_)


def test_low_rank_matches_exact_on_blobs(blobs):
    X, y = blobs
    exact = OCSVMHardClustering(3, gamma=0.05, random_state=0, n_components=None).fit(X)
    low = OCSVMHardClustering(3, gamma=0.05, random_state=0, n_components=40).fit(X)
    assert adjusted_rand_score(exact.labels_, low.labels_) == 1.0


def test_score_and_transform(blobs):
    X, _ = blobs
    m = OCSVMHardClustering(3, gamma=0.05, random_state=0).fit(X)
    D = m.transform(X)
    assert D.shape == (60, 3)
    assert_array_equal(np.argmin(D, axis=1), m.labels_)
    assert np.isclose(m.score(X) * 60, -m.objective_)

"""OCSVMHardClustering: reassignment rule, inits, emptied clusters, bad input, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from marginclust.estimators._ocsvm_hard import OCSVMHardClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.objectives._weighted_ocsvm import fit_weighted_ocsvm


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

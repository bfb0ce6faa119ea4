"""CPMMC baseline: binary clustering, constraint loop, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from marginclust.estimators._bmmc import BMMC
from marginclust.estimators._cpmmc import CPMMC
from marginclust.metrics import adjusted_rand_index


def test_binary_blobs(global_random_seed):
    X, y = make_blobs(
        150, centers=2, n_features=3, cluster_std=0.7, random_state=global_random_seed
    )
    est = CPMMC(C=10.0, random_state=global_random_seed).fit(X)
    assert adjusted_rand_index(y, est.labels_) > 0.95
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.converged_ and est.n_constraints_ >= 1
    assert est.objective_ == pytest.approx(est.objective_history_[-1])
    assert abs(est.decision_function(X).sum()) <= 0.1 * len(X) + 1e-6


def test_same_problem_as_bmmc():
    """CPMMC and BMMC minimise the same objective; on easy data they find the same split."""
    X, _ = make_blobs(120, centers=2, n_features=4, random_state=3)
    a = CPMMC(C=5.0, tol=1e-4, cccp_tol=1e-6, random_state=0).fit(X)
    b = BMMC(C=5.0, random_state=0, tol=1e-6, inner_tol=1e-6).fit(X)
    assert adjusted_rand_index(a.labels_, b.labels_) == pytest.approx(1.0)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-3)
    # the default (absolute) violation tolerance 0.01 stops earlier, at a worse objective
    c = CPMMC(C=5.0, random_state=0).fit(X)
    assert c.objective_ >= a.objective_ - 1e-9


def test_sparse_equals_dense():
    X, _ = make_blobs(80, centers=2, n_features=5, random_state=1)
    X[np.abs(X) < 2] = 0
    init = (X[:, 0] > np.median(X[:, 0])).astype(int)
    a = CPMMC(init=init).fit(X)
    b = CPMMC(init=init).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)


def test_binary_only_and_bad_params():
    X, _ = make_blobs(30, centers=3, random_state=0)
    with pytest.raises(ValueError, match="binary method"):
        CPMMC(3).fit(X)
    for params, match in [
        ({"C": 0}, "C must"),
        ({"tol": -1}, "tol"),
        ({"balance": 2.0}, "balance"),
        ({"cccp_max_iter": 0}, "cccp_max_iter"),
    ]:
        with pytest.raises(ValueError, match=match):
            CPMMC(**params).fit(X)

"""IterSVR says what an exact RBF SVR at epsilon=0 will cost on many rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust import IterSVR
from marginclust.estimators import _itersvr


def test_many_rows_with_the_exact_rbf_svr_at_epsilon_zero_get_a_cost_warning(monkeypatch):
    monkeypatch.setattr(_itersvr, "_SLOW_SVR_ROWS", 100)  # small data stand in for many rows
    X, _ = make_blobs(150, 2, centers=2, random_state=0)
    with pytest.warns(UserWarning, match=r"epsilon=0\) fits LIBSVM's SVR on all 150 rows") as rec:
        IterSVR(random_state=0).fit(X)
    assert rec[0].filename == __file__  # it points at the caller's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        IterSVR(epsilon=0.1, random_state=0).fit(X)
        IterSVR(kernel="linear", random_state=0).fit(X)
        IterSVR(random_state=0).fit(X[:100])


def test_the_default_threshold_leaves_ordinary_sizes_quiet():
    X = np.random.RandomState(0).randn(300, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        IterSVR(random_state=0).fit(X)

"""Every estimator rejects bad input with a clear ValueError."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import marginclust
from marginclust._registry import clusterer_names
from marginclust.exceptions import ConvergenceWarning

from .test_common import TEST_PARAMS

CLUSTERERS = clusterer_names()


def _make(name, n_clusters=2):
    est = getattr(marginclust, name)(**TEST_PARAMS.get(name, {}))
    return est.set_params(n_clusters=n_clusters)


def _data(n=30, d=3, seed=0):
    rng = np.random.RandomState(seed)
    X = np.vstack([rng.normal(-3, 1, (n // 2, d)), rng.normal(3, 1, (n - n // 2, d))])
    return X


def _bad_inputs():
    X = _data()
    nan = X.copy()
    nan[3, 1] = np.nan
    inf = X.copy()
    inf[5, 0] = np.inf
    return {
        "nan": (nan, r"NaN \(a missing value\) at row 3, column 1"),
        "inf": (inf, "inf at row 5, column 0"),
        "empty": (np.empty((0, 3)), "0 sample"),
        "one-sample": (X[:1], "1 sample"),
        "one-dimensional": (X[:, 0], "2D array"),
        "strings": (np.array([["a", "b"], ["c", "d"], ["e", "f"]], dtype=object),
                    "X holds 'a' at row 0, column 0, not a number"),
        "constant": (np.ones((10, 3)), "identical"),
    }


@pytest.mark.parametrize("case", sorted(_bad_inputs()))
@pytest.mark.parametrize("name", CLUSTERERS)
def test_bad_data_raises_clear_error(name, case):
    X, match = _bad_inputs()[case]
    with pytest.raises(ValueError, match=match):
        _make(name).fit(X)


@pytest.mark.parametrize("name", CLUSTERERS)
def test_more_clusters_than_samples(name):
    est = _make(name)
    if getattr(est, "_max_clusters", None) == 2:
        pytest.skip("binary-only method: n_clusters is always 2 <= n_samples")
    with pytest.raises(ValueError, match="larger than n_samples"):
        est.set_params(n_clusters=5).fit(_data(n=4))


@pytest.mark.parametrize("name", CLUSTERERS)
def test_n_clusters_must_be_an_integer(name):
    with pytest.raises(ValueError, match="n_clusters"):
        _make(name).set_params(n_clusters=1.5).fit(_data())


@pytest.mark.parametrize("name", CLUSTERERS)
def test_predict_checks_number_of_features(name):
    est = _make(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(_data(d=3))
    with pytest.raises(ValueError, match="features"):
        est.predict(_data(d=4))


def _takes_weights(name):
    import inspect

    return "sample_weight" in inspect.signature(getattr(marginclust, name).fit).parameters


@pytest.mark.parametrize("name", [n for n in CLUSTERERS if _takes_weights(n)])
def test_weights_whose_sum_overflows_are_a_clear_error(name):
    # every weight is finite, but their sum is not: each fit divides by it
    X = _data()
    w = np.full(len(X), 2.0 ** 1020)
    with np.errstate(over="ignore"):
        assert np.isinf(np.sum(w))
    with pytest.raises(ValueError, match="sample_weight sums past"):
        _make(name).fit(X, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight sums past"):
        _make(name).fit(X, sample_weight=2.0 ** 1020)  # one number for every row

"""ELMFeatures: shapes, data-aware scaling (no saturation, scale invariance), determinism."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from marginclust import ELMFeatures


@parametrize_with_checks([ELMFeatures(n_hidden=10)])
def test_sklearn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("activation", ["sigmoid", "gaussian"])
def test_shape_range_and_determinism(rng, activation):
    X = rng.randn(40, 6)
    H1 = ELMFeatures(n_hidden=17, activation=activation, random_state=3).fit_transform(X)
    H2 = ELMFeatures(n_hidden=17, activation=activation, random_state=3).fit(X).transform(X)
    H3 = ELMFeatures(n_hidden=17, activation=activation, random_state=4).fit_transform(X)
    assert H1.shape == (40, 17)
    assert np.all((H1 > 0) & (H1 <= 1))
    np.testing.assert_array_equal(H1, H2)
    assert not np.allclose(H1, H3)


@pytest.mark.parametrize("activation", ["sigmoid", "gaussian"])
@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_invariant_to_global_data_scale(rng, activation, scale):
    """The draw is scaled by the data, so rescaling X leaves H unchanged (no saturation)."""
    X = rng.rand(50, 30)
    kw = dict(n_hidden=20, activation=activation, random_state=0)
    H = ELMFeatures(**kw).fit_transform(X)
    Hs = ELMFeatures(**kw).fit_transform(X * scale + 7.0 * scale)
    np.testing.assert_allclose(Hs, H, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("activation", ["sigmoid", "gaussian"])
def test_nodes_not_saturated_on_large_raw_features(rng, activation):
    """Pixel-like data with 256 features on a 0..255 scale: most node values stay informative."""
    X = rng.randint(0, 256, size=(200, 256)).astype(float)
    H = ELMFeatures(n_hidden=100, activation=activation, random_state=0).fit_transform(X)
    assert np.mean((H > 0.01) & (H < 0.99)) > 0.9
    # and each node varies over the data (not constant)
    assert np.all(H.std(axis=0) > 1e-3)


def test_larger_weight_scale_is_more_saturated(rng):
    X = rng.randn(200, 10)
    frac = []
    for ws in [0.5, 1.0, 10.0]:
        H = ELMFeatures(n_hidden=50, weight_scale=ws, random_state=0).fit_transform(X)
        frac.append(np.mean((H < 0.01) | (H > 0.99)))
    assert frac[0] <= frac[1] < frac[2]


@pytest.mark.parametrize("activation", ["sigmoid", "gaussian"])
def test_sparse_equals_dense(rng, activation):
    X = sp.random(30, 12, density=0.4, format="csr", random_state=1)
    kw = dict(n_hidden=9, activation=activation, random_state=0)
    Hs = ELMFeatures(**kw).fit_transform(X)
    Hd = ELMFeatures(**kw).fit_transform(X.toarray())
    # sparse and dense products of 12 terms round differently, by about 12 eps |x| |w| in a
    # node's argument (O(1) here); sigmoid and Gaussian nodes pass that on as a relative
    # error of the same size, far below 1e-10
    np.testing.assert_allclose(Hs, Hd, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_hidden": 0}, "n_hidden"),
        ({"n_hidden": 2.5}, "n_hidden"),
        ({"activation": "relu"}, "activation"),
        ({"weight_scale": 0.0}, "weight_scale"),
        ({"weight_scale": np.inf}, "weight_scale"),
    ],
)
def test_bad_parameters(rng, params, match):
    with pytest.raises(ValueError, match=match):
        ELMFeatures(**params).fit(rng.randn(5, 2))


def test_bad_data():
    with pytest.raises(ValueError):
        ELMFeatures().fit(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError):
        ELMFeatures(n_hidden=3).fit(np.ones((4, 2))).transform(np.ones((2, 3)))

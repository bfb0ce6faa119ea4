"""Low-rank kernel maps: exactness at full rank, RFF accuracy, linear features, errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from marginclust.feature_maps import _low_rank
from marginclust.feature_maps._low_rank import LowRankKernelMap, linear_kernel_with_bias
from tests._crosspath import feature_rounding_bound


def _rbf(X, Y, sigma):
    return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))


def _g(sigma):
    return 1.0 / (2.0 * sigma**2)


def test_full_rank_nystroem_reproduces_training_kernel(rng):
    X = rng.randn(30, 3)
    fmap = LowRankKernelMap(gamma=_g(1.5), n_components=30, random_state=0).fit(X)
    Phi = fmap.transform(X)
    np.testing.assert_allclose(Phi @ Phi.T, _rbf(X, X, 1.5), atol=1e-6)


def test_nystroem_is_exact_on_landmarks_and_callable_kernel(rng):
    X = rng.randn(40, 3)
    fmap = LowRankKernelMap(kernel=lambda A, B: _rbf(A, B, 0.8), n_components=10,
                            random_state=0).fit(X)
    Z = fmap.components_
    Pz = fmap.transform(Z)
    np.testing.assert_allclose(Pz @ Pz.T, _rbf(Z, Z, 0.8), atol=1e-8)
    P = fmap.transform(X)
    # Nystroem never overestimates the diagonal (Schur complement is PSD)
    assert np.all(np.einsum("ij,ij->i", P, P) <= 1.0 + 1e-9)


def test_random_fourier_features_approximate_rbf(rng):
    X = rng.randn(20, 2)
    fmap = LowRankKernelMap(gamma=_g(1.0), n_components=20000, method="rff", random_state=0).fit(X)
    P = fmap.transform(X)
    # Hoeffding-type error of order 1/sqrt(L) ~ 0.01
    assert np.abs(P @ P.T - _rbf(X, X, 1.0)).max() < 0.05


def test_linear_features_are_exact(rng):
    X = rng.randn(10, 4)
    P = LowRankKernelMap(kernel="linear", n_components=2).fit(X).transform(X)
    np.testing.assert_allclose(P @ P.T, linear_kernel_with_bias(X, X), atol=1e-12)


def test_blockwise_transform_equals_one_block(rng, monkeypatch):
    # row blocks of other shapes may take other BLAS kernels (another rounding)
    X = rng.randn(50, 3)
    for method in ("nystroem", "rff"):
        fmap = LowRankKernelMap(gamma=_g(1.0), n_components=12, method=method,
                                random_state=1).fit(X)
        full = fmap.transform(X)
        monkeypatch.setattr(_low_rank, "BLOCK_ROWS", 7)
        atol = feature_rounding_bound(fmap, X, np.finfo(float).eps)
        np.testing.assert_allclose(fmap.transform(X), full, rtol=0, atol=atol)
        monkeypatch.undo()


def test_determinism(rng):
    X = rng.randn(50, 3)
    a = LowRankKernelMap(n_components=10, random_state=4).fit(X).transform(X)
    b = LowRankKernelMap(n_components=10, random_state=4).fit(X).transform(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"kernel": "poly"}, "kernel"),
        ({"method": "svd"}, "method"),
        ({"n_components": 0}, "n_components"),
        ({"gamma": 0.0}, "gamma"),
        ({"dtype": "int32"}, "dtype"),
        ({"kernel": lambda A, B: A @ B.T, "method": "rff"}, "RBF kernel only"),
    ],
)
def test_bad_parameters(rng, params, match):
    with pytest.raises(ValueError, match=match):
        LowRankKernelMap(**params).fit(rng.randn(10, 2))


def test_float32_features_match_float64(rng):
    X = rng.randn(60, 4)
    for method in ("nystroem", "rff"):
        f64 = LowRankKernelMap(gamma=0.3, n_components=20, method=method, random_state=0).fit(X)
        P64 = f64.transform(X)
        P32 = f64.transform(X.astype(np.float32))
        asked = f64.set_params(dtype="float32").transform(X)
        assert P64.dtype == np.float64 and P32.dtype == np.float32 and asked.dtype == np.float32
        atol = feature_rounding_bound(f64, X, np.finfo(np.float32).eps)
        np.testing.assert_allclose(P32, P64, atol=atol)


def test_rbf_gamma_matches_definition_and_ignores_offset(rng):
    from marginclust.feature_maps._low_rank import rbf_kernel_gamma

    X = rng.randn(15, 3)
    np.testing.assert_allclose(rbf_kernel_gamma(X, X, 0.7), _rbf(X, X, np.sqrt(1 / 1.4)),
                               atol=1e-12)

"""The one-class SVM clusterers' once-per-fit data: exact power-of-two scaling."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs

from marginclust.feature_maps._one_class import prepare_one_class_data


def _prepare(X, kernel="rbf", gamma="scale"):
    return prepare_one_class_data(X, kernel=kernel, gamma=gamma, n_components=None,
                                  random_state=np.random.RandomState(0))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("k", [-1000, -500, 500, 1000])
def test_power_of_two_rescaling_is_exact(kernel, k):
    # X * 2**k reaches 1e-301 .. 1e301: the scaled data, the width in them and the
    # kernel are those of X bit for bit (an exact ldexp, no division by the peak)
    X, _ = make_blobs(n_samples=30, n_features=3, centers=2, random_state=0)
    ref, data = _prepare(X, kernel), _prepare(np.ldexp(X, k), kernel)
    assert_array_equal(data.X, ref.X)
    assert data.gamma == ref.gamma
    assert_array_equal(data.K, ref.K)
    assert data.exponent == ref.exponent + k
    # the width in the user's units: exact where a float64 holds it, else what it rounds to
    expected = np.ldexp(ref.gamma_user, -2 * k) if abs(k) <= 500 else (np.inf if k < 0 else 0.0)
    assert data.gamma_user == expected
    # new data map the same way
    assert_array_equal(data.transform(np.ldexp(X[:5], k)), ref.transform(X[:5]))


def test_scaled_data_peak_in_half_open_unit_interval():
    X, _ = make_blobs(n_samples=30, n_features=3, centers=2, random_state=0)
    for scale in (1e-300, 1e-200, 1.0, 1e200, 1e300):
        peak = float(np.max(np.abs(_prepare(X * scale).X)))
        assert 0.5 <= peak < 1.0


def test_user_gamma_beyond_the_scaled_range_is_refused():
    # gamma=1 on X * 1e-200 is 1e-400 in the scaled units: a constant kernel
    X, _ = make_blobs(n_samples=30, n_features=3, centers=2, random_state=0)
    with pytest.raises(ValueError, match="overflow or be constant"):
        _prepare(X * 1e-200, gamma=1.0)


def test_overflowing_spread_is_refused():
    X = np.array([[-1.7e308, 0.0], [1.7e308, 1.0], [1.7e308, 2.0]])
    with pytest.raises(ValueError, match="overflows"):
        _prepare(X)

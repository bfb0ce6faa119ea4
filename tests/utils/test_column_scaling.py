"""Per-column scalings: the "auto" rule, the divisors, weights as repeated rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from marginclust.utils._preprocessing import (
    SCALINGS,
    UNITS_SPREAD,
    column_divisors,
    resolve_scaling,
)


def test_standard_divisors_are_the_column_standard_deviations():
    X = np.random.RandomState(0).randn(200, 3) * [0.5, 3.0, 40.0] + [1.0, -7.0, 1e3]
    np.testing.assert_allclose(column_divisors(X, "standard"), X.std(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(column_divisors(X, "none"), np.ones(3))


def test_robust_divisors_are_the_interquartile_range_over_1349():
    # 401 rows: the quartiles are rows 100 and 300 of the sorted column (no interpolation)
    X = np.random.RandomState(1).standard_t(3, size=(401, 2)) * [1.0, 25.0]
    q1, q3 = np.percentile(X, [25, 75], axis=0)
    np.testing.assert_allclose(column_divisors(X, "robust"), (q3 - q1) / 1.349, rtol=1e-12)


def test_a_column_whose_quartiles_coincide_falls_back_to_its_spread_and_a_constant_to_one():
    X = np.zeros((100, 3))
    X[:5, 0] = 1.0  # the quartiles are both 0
    X[:, 1] = np.arange(100.0)
    d = column_divisors(X, "robust")
    assert d[0] == pytest.approx(X[:, 0].std(), rel=1e-12)
    assert d[2] == 1.0
    assert column_divisors(X, "standard")[2] == 1.0


@pytest.mark.parametrize("how", ["standard", "robust"])
def test_weights_count_as_repeated_rows(how):
    rng = np.random.RandomState(2)
    X = rng.randn(301, 3) * [1.0, 5.0, 0.2]
    w = rng.randint(1, 5, 301)
    np.testing.assert_allclose(column_divisors(X, how, w.astype(float)),
                               column_divisors(np.repeat(X, w, axis=0), how), rtol=1e-12)
    assert resolve_scaling(X * [1.0, 1.0, 1e-3], "auto", w.astype(float)) == "standard"


def test_auto_standardises_only_beyond_the_units_factor():
    X = np.random.RandomState(3).randn(500, 2)
    X /= X.std(axis=0)
    assert resolve_scaling(X * [1.0, 0.5 * UNITS_SPREAD], "auto") == "none"
    assert resolve_scaling(X * [1.0, 2.0 * UNITS_SPREAD], "auto") == "standard"
    assert resolve_scaling(X[:, :1], "auto") == "none"  # one column: nothing to compare
    for how in ("none", "standard", "robust"):
        assert resolve_scaling(X * [1.0, 1e6], how) == how


def test_divisors_near_float64s_range_without_overflow():
    X = np.random.RandomState(4).randn(50, 2) * [1.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for s in (1e-300, 1e200):
            for how in ("standard", "robust"):
                np.testing.assert_allclose(column_divisors(X * s, how) / s,
                                           column_divisors(X, how), rtol=1e-10)


def test_unknown_scalings_are_refused():
    X = np.ones((5, 2))
    with pytest.raises(ValueError, match="scale must be one of"):
        resolve_scaling(X, "minmax")
    with pytest.raises(ValueError, match="scaling must be"):
        column_divisors(X, "auto")
    assert SCALINGS == ("auto", "none", "standard", "robust")

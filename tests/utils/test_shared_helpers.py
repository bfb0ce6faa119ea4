"""Shared helpers: aliases, degeneracy, scale, verbosity."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from marginclust.utils import (
    check_finite_scale,
    degeneracy,
    min_cluster_size,
    progress,
    report,
    resolve_alias,
)


def test_resolve_alias_canonical_alias_and_unknown():
    allowed = ("k-means++", "k-means", "random")
    assert resolve_alias("random", "init", allowed, {"kmeans": "k-means"}) == "random"
    with pytest.warns(FutureWarning, match="init='kmeans' is deprecated.*init='k-means'"):
        assert resolve_alias("kmeans", "init", allowed, {"kmeans": "k-means"}) == "k-means"
    with pytest.raises(ValueError, match="init must be one of"):
        resolve_alias("kmeens", "init", allowed, {"kmeans": "k-means"})
    arr = np.zeros((2, 2))
    assert resolve_alias(arr, "init", allowed) is arr


def test_degeneracy_counts_and_threshold():
    assert min_cluster_size(9, 2) == 1 and min_cluster_size(10, 2) == 2
    d = degeneracy([0, 0, 1, 1, 1, 0, 0, 1, 0, 1], 2)
    assert (d.n_found, d.degenerate, d.sizes.tolist()) == (2, False, [5, 5])
    d = degeneracy([0] * 10, 2)
    assert (d.n_found, d.degenerate) == (1, True)
    d = degeneracy([0] * 9 + [1], 2)  # a one-point cluster among 10 samples
    assert (d.n_found, d.degenerate) == (2, True)
    assert not degeneracy([0, 1, 2], 3).degenerate  # too few samples to ask more


@pytest.mark.parametrize("scale", [1e160, 1e-160])
def test_check_finite_scale_rejects_overflow_and_underflow(scale):
    X = np.random.RandomState(0).randn(20, 3) * scale
    with pytest.raises(ValueError, match="Rescale your features"):
        check_finite_scale(X)


def test_check_finite_scale_accepts_ordinary_and_offset_data():
    X = np.random.RandomState(0).randn(20, 3)
    check_finite_scale(X)
    check_finite_scale(X + 1.7e9)
    check_finite_scale(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="MaxAbsScaler"):
        check_finite_scale(sp.csr_matrix(X * 1e160))


def test_report_prints_only_when_verbose(capsys):
    report(0, "quiet %d", 1)
    report(1, "loud %d", 2)
    err = capsys.readouterr().err
    assert "quiet" not in err and "loud 2" in err


def test_progress_yields_every_item_and_writes_a_line(capsys, no_tqdm):
    assert list(progress(range(4), desc="fits")) == [0, 1, 2, 3]
    assert "fits 4/4" in capsys.readouterr().err


def test_check_finite_scale_float32_judged_like_float64():
    X = np.random.RandomState(0).randn(20, 3).astype(np.float32)
    check_finite_scale(X)
    check_finite_scale(X * np.float32(1e-3))
    # the extremes are taken in float32 and differenced in float64: wide float32
    # ranges that float64 squares without overflow are accepted
    check_finite_scale(X * np.float32(1e30))


@pytest.mark.parametrize("value", [1, 1.0, 2.5, True, "3", None, np.float64(3.0)])
def test_integer_at_least_refuses_what_is_not_an_integer_in_range(value):
    from marginclust.utils import IntegerAtLeast

    with pytest.raises(ValueError, match=r"k must be an integer >= 2"):
        IntegerAtLeast(2)(value, "k")


def test_integer_at_least_accepts_numpy_integers():
    from marginclust.utils import IntegerAtLeast

    assert IntegerAtLeast(2)(np.int64(7), "k") == 7 and IntegerAtLeast(0)(0, "k") == 0


def test_column_spread_ratio_dense_sparse_and_unmeasured():
    from marginclust.utils._preprocessing import column_spread_ratio, standardise_advice

    rng = np.random.RandomState(0)
    X = rng.randn(50, 3) * [1.0, 4.0, 0.5]
    X[:, 1] -= 7.0  # an offset does not change a spread
    expected = X.std(axis=0).max() / X.std(axis=0).min()
    np.testing.assert_allclose(column_spread_ratio(X), expected, rtol=1e-12)
    np.testing.assert_allclose(column_spread_ratio(sp.csr_matrix(X)), expected, rtol=1e-10)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    np.testing.assert_allclose(column_spread_ratio(Z), 1.0, rtol=1e-12)
    assert column_spread_ratio(np.c_[X[:, :1], np.zeros(50)]) is None  # one varying column
    assert column_spread_ratio([[0.0, 1.0], [1.0, 0.0]]) is None  # not an array: not measured
    assert standardise_advice(expected).startswith("Standardise the features (")
    assert "already on one scale" in standardise_advice(1.0)


def test_column_spread_ratio_near_float64s_range_without_overflow():
    import warnings

    import scipy.sparse as sp

    from marginclust.utils._preprocessing import column_spread_ratio

    X = np.random.RandomState(0).randn(30, 3) * [1.0, 4.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow in the squares
        for scale in (1e-300, 1.0, 1e200):
            assert np.isclose(column_spread_ratio(X * scale), column_spread_ratio(X))
            assert np.isclose(column_spread_ratio(sp.csr_matrix(X * scale)),
                              column_spread_ratio(X))

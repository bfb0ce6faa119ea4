"""RBF kernel helpers: the sigma0 heuristic and the width rules."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.feature_maps._kernel import mean_pairwise_distance


def test_mean_pairwise_distance_hand_worked_and_brute_force():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 8.0]])
    # distances 5, 8, 5 -> mean 6
    assert mean_pairwise_distance(X) == pytest.approx(6.0)
    rng = np.random.RandomState(0)
    X = rng.randn(50, 3)
    brute = np.mean([np.linalg.norm(X[i] - X[j]) for i in range(50) for j in range(i)])
    assert mean_pairwise_distance(X) == pytest.approx(brute)


def test_mean_pairwise_distance_subsample_is_close_and_seeded():
    rng = np.random.RandomState(1)
    X = rng.randn(3000, 4)
    exact = mean_pairwise_distance(X, max_samples=3000)
    a = mean_pairwise_distance(X, max_samples=500, random_state=0)
    b = mean_pairwise_distance(X, max_samples=500, random_state=0)
    assert a == b
    assert a == pytest.approx(exact, rel=0.03)


def test_mean_pairwise_distance_weights_count_as_repeated_rows():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 8.0]])
    # rows repeated 2, 1, 0 times: pairs (a, a') at 0 and two (a, b) at 5 -> mean 10 / 3
    assert mean_pairwise_distance(X, sample_weight=[2, 1, 0]) == pytest.approx(10.0 / 3.0)
    rng = np.random.RandomState(3)
    X, w = rng.randn(40, 3), rng.randint(0, 4, size=40)
    assert mean_pairwise_distance(X, sample_weight=w) == pytest.approx(
        mean_pairwise_distance(np.repeat(X, w, axis=0)), rel=1e-12)
    # unit weights: the unweighted mean, bitwise (the same computation)
    assert mean_pairwise_distance(X, sample_weight=np.ones(40)) == mean_pairwise_distance(X)
    with pytest.raises(ValueError, match="total weight above 1"):
        mean_pairwise_distance(X, sample_weight=np.full(40, 0.02))


def test_mean_pairwise_distance_with_weights_near_overflow():
    # rows repeated c w_i times, c near the float64 limit: the products of two weights
    # would overflow; the mean is 2 sum_{i<j} p_i p_j d_ij / (1 - 1 / T), p = w / T, and
    # tends to the mean at weights w times (1 - 1 / sum w) as T grows; at c = 2**1021
    # every weight is finite but their total T is not (1 - 1 / T is then 1)
    rng = np.random.RandomState(4)
    X, w = rng.randn(40, 3), rng.randint(1, 4, size=40).astype(np.float64)
    base = mean_pairwise_distance(X, sample_weight=w)
    limit = base * (1.0 - 1.0 / w.sum())
    with np.errstate(over="ignore"):
        assert np.isinf(np.sum(w * 2.0 ** 1021))
    for c in (2.0 ** 600, 2.0 ** 1000, 2.0 ** 1021):
        with np.errstate(all="raise"):
            got = mean_pairwise_distance(X, sample_weight=w * c)
        assert got == pytest.approx(limit, rel=1e-12)


def test_mean_pairwise_distance_errors():
    with pytest.raises(ValueError, match="2 samples"):
        mean_pairwise_distance(np.ones((1, 2)))
    with pytest.raises(ValueError, match="max_samples"):
        mean_pairwise_distance(np.ones((3, 2)), max_samples=1)
    with pytest.raises(ValueError, match="NaN"):
        mean_pairwise_distance(np.array([[np.nan], [1.0]]))


def test_resolve_gamma_rules_floats_and_errors():
    import scipy.sparse as sp

    from marginclust.feature_maps import resolve_gamma

    X = np.random.RandomState(0).randn(50, 4)
    assert resolve_gamma(0.3, X) == 0.3
    assert resolve_gamma("scale", X) == pytest.approx(1 / (4 * X.var()))
    assert resolve_gamma("scale", sp.csr_matrix(X)) == pytest.approx(1 / (4 * X.var()))
    from scipy.spatial.distance import pdist

    assert resolve_gamma("sigma0", X) == pytest.approx(1 / (2 * pdist(X).mean() ** 2))
    # both rules are scale-free: gamma * scale^2 is constant
    for rule in ("scale", "sigma0"):
        assert resolve_gamma(rule, 1e3 * X) * 1e6 == pytest.approx(resolve_gamma(rule, X))
    for bad in ("auto", -1.0, 0.0, np.inf, True, None):
        with pytest.raises(ValueError, match="gamma"):
            resolve_gamma(bad, X)
    with pytest.raises(ValueError, match="zero variance"):
        resolve_gamma("scale", np.ones((5, 2)))


@pytest.mark.parametrize("k", [-600, -300, 300, 600])
def test_resolve_gamma_rules_exact_under_power_of_two_scaling(k):
    # X * 2**k: the rule measured in units of 2**k (an exact rescaling) is the rule of X
    # times 2**-2k bit for bit; where that width leaves float64 (|k| >= 512 here), a
    # clear ValueError (X * 1e-200 raised ZeroDivisionError for "sigma0" and "local",
    # "zero variance" for "scale"; X * 1e200 gave gamma 0.0)
    import scipy.sparse as sp

    from marginclust.feature_maps import resolve_gamma

    X = np.random.RandomState(0).randn(50, 4)
    for rule in ("scale", "sigma0", "local"):
        for fmt in (np.asarray, sp.csr_matrix):  # (each compared with its own format)
            data = fmt(np.ldexp(X, k))
            if abs(k) < 512:
                ref = resolve_gamma(rule, fmt(X))
                assert resolve_gamma(rule, data) == np.ldexp(ref, -2 * k)
            else:
                with pytest.raises(ValueError, match="beyond the float range"):
                    resolve_gamma(rule, data)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_mean_pairwise_distance_at_extreme_scales(scale):
    # squared differences underflowed (0.0: "all samples coincide") or overflowed (inf)
    X = np.random.RandomState(0).randn(30, 3)
    assert mean_pairwise_distance(X * scale) == pytest.approx(scale * mean_pairwise_distance(X),
                                                              rel=1e-12)

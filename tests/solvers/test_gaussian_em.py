"""EM for a weighted Gaussian mixture: monotone, scikit-learn's fixed point, weights as copies."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.mixture import GaussianMixture

from marginclust.objectives._gaussian_mixture import m_step
from marginclust.solvers._gaussian_em import gaussian_mixture_em


def _two(seed=0, n=250, apart=3.0):
    rng = np.random.RandomState(seed)
    X = np.r_[rng.randn(n, 2), rng.randn(n, 2) * [1.5, 0.7] + [apart, 1.0]]
    return X, (X[:, 0] > apart / 2).astype(np.intp)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_em_never_lowers_the_log_likelihood(seed):
    X, labels = _two(seed)
    weights = np.random.RandomState(seed).uniform(0.5, 2.0, X.shape[0])
    fit = gaussian_mixture_em(X, labels, weights, tol=1e-12, max_iter=500)
    steps = np.diff(fit.history)
    assert np.all(steps >= -1e-9 * abs(fit.history[-1]))
    assert fit.converged


@pytest.mark.parametrize("seed", [0, 1])
def test_em_reaches_scikit_learns_fixed_point_from_the_same_start(seed):
    X, labels = _two(seed)
    fit = gaussian_mixture_em(X, labels, reg=1e-6, tol=1e-13, max_iter=2000)
    start = m_step(X, np.eye(2)[labels], np.ones(X.shape[0]), 1e-6)
    gm = GaussianMixture(2, weights_init=start.proportions, means_init=start.means,
                         precisions_init=np.linalg.inv(start.covariances), reg_covar=1e-6,
                         tol=1e-14, max_iter=2000).fit(X)
    # both at the same stationary point, each stopped within a hair of it
    assert np.allclose(fit.params.means, gm.means_, atol=1e-4)
    assert np.allclose(fit.params.covariances, gm.covariances_, atol=1e-4)
    assert fit.log_likelihood / X.shape[0] == pytest.approx(gm.score(X), abs=1e-8)


def test_integer_weights_are_repeated_rows():
    X, labels = _two(3, n=60)
    counts = np.random.RandomState(3).randint(1, 4, X.shape[0])
    weighted = gaussian_mixture_em(X, labels, counts.astype(float), tol=0.0, max_iter=30)
    repeated = gaussian_mixture_em(np.repeat(X, counts, axis=0), np.repeat(labels, counts),
                                   tol=0.0, max_iter=30)
    # the same sums in another order, over 30 contracting iterations: rounding only
    assert np.allclose(weighted.params.means, repeated.params.means, rtol=1e-7, atol=1e-10)
    assert np.allclose(weighted.params.covariances, repeated.params.covariances, rtol=1e-7)
    assert weighted.log_likelihood == pytest.approx(repeated.log_likelihood, rel=1e-8)


def test_one_component_is_the_weighted_gaussian_at_once():
    X, _ = _two(4)
    weights = np.random.RandomState(4).uniform(0.5, 2.0, X.shape[0])
    fit = gaussian_mixture_em(X, np.zeros(X.shape[0], dtype=np.intp), weights, reg=0.0)
    assert fit.converged and len(fit.history) == 2
    assert np.allclose(fit.params.means[0], np.average(X, axis=0, weights=weights))
    assert np.allclose(fit.params.covariances[0], np.cov(X.T, aweights=weights, bias=True))

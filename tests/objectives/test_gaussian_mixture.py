"""The weighted Gaussian mixture's maths against literal formulas and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kurtosistest, multivariate_normal, skewtest

from marginclust.objectives._gaussian_mixture import (
    MixtureParams,
    bic,
    e_step,
    effective_size,
    m_step,
    moment_scores,
    n_parameters,
)


def _data(seed=0, n=300):
    rng = np.random.RandomState(seed)
    X = np.r_[rng.randn(n, 3), rng.randn(n, 3) * [1.0, 2.0, 0.5] + [4.0, 0.0, 1.0]]
    resp = rng.dirichlet([1.0, 1.0], size=2 * n)
    weights = rng.uniform(0.5, 3.0, 2 * n)
    return X, resp, weights


def test_the_m_step_is_the_weighted_mean_and_covariance_of_each_component():
    X, resp, weights = _data()
    params = m_step(X, resp, weights, 0.25)
    for c in range(2):
        u = weights * resp[:, c]
        assert np.allclose(params.means[c], np.average(X, axis=0, weights=u))
        literal = np.cov(X.T, aweights=u, bias=True) + 0.25 * np.eye(3)
        assert np.allclose(params.covariances[c], literal)
    assert np.allclose(params.proportions, (weights @ resp) / weights.sum())


def test_the_e_step_is_bayes_rule_and_the_weighted_log_likelihood():
    X, resp, weights = _data(1)
    params = m_step(X, resp, weights, 1e-6)
    out, log_likelihood = e_step(X, params, weights)
    dens = np.column_stack([p * multivariate_normal(m, S).pdf(X) for p, m, S in zip(*params)])
    assert np.allclose(out, dens / dens.sum(axis=1, keepdims=True))
    # Cholesky and logsumexp against scipy's densities summed: each of the n terms is
    # exact to a few units of round-off times the covariances' condition number (about
    # 10 here), and the sum adds n of them; the bound is that with a factor 100 to spare
    terms = weights * np.log(dens.sum(axis=1))
    cond = max(np.linalg.cond(S) for S in params.covariances)
    bound = 100.0 * X.shape[0] * cond * np.finfo(float).eps * float(np.abs(terms).sum())
    assert abs(log_likelihood - float(terms.sum())) <= bound


def test_bic_counts_means_covariances_and_proportions():
    assert n_parameters(2, 3) == 2 * 3 + 2 * 6 + 1
    assert bic(-50.0, 2, 3, 100.0) == pytest.approx(100.0 + 19 * np.log(100.0))


def test_effective_size_is_kish_and_ignores_a_common_factor():
    w = np.array([1.0, 2.0, 3.0])
    assert effective_size(w) == pytest.approx(36.0 / 14.0)
    assert effective_size(5.0 * w) == pytest.approx(effective_size(w))
    assert effective_size(np.zeros(3)) == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_moment_scores_are_scipys_tests_on_the_principal_axes_without_weights(seed):
    rng = np.random.RandomState(seed)
    X = rng.standard_exponential((250, 3)) @ rng.randn(3, 3)
    mean, cov = X.mean(axis=0), np.cov(X.T, bias=True)
    skewness, kurtosis = moment_scores(X, mean, cov, np.ones(250))
    Y = (X - mean) @ np.linalg.eigh(cov)[1]
    # the moments are summed in another order than scipy's (a dot product against its
    # pairwise mean): a few hundred ulps on 250 values, far inside 1e-8
    assert np.allclose(skewness, skewtest(Y).statistic, rtol=1e-8, atol=1e-10)
    assert np.allclose(kurtosis, kurtosistest(Y).statistic, rtol=1e-8, atol=1e-10)


def test_moment_scores_count_copies_once():
    rng = np.random.RandomState(3)
    X = rng.uniform(size=(120, 2)) * [1.0, 3.0]  # a rectangle: its sides are its axes
    mean, cov = X.mean(axis=0), np.cov(X.T, bias=True)
    once = moment_scores(X, mean, cov, np.ones(120))
    thrice = moment_scores(X, mean, cov, np.full(120, 3.0))
    assert np.allclose(once, thrice, rtol=1e-9)  # the weights' common factor cancels
    # uniform data are flatter than a Gaussian on both axes (excess kurtosis -1.2)
    assert np.all(once[1] < -3.0)


def test_a_point_mass_params_tuple_is_what_the_steps_exchange():
    params = MixtureParams(np.array([1.0]), np.zeros((1, 2)), np.eye(2)[None])
    resp, log_likelihood = e_step(np.zeros((1, 2)), params, np.ones(1))
    assert resp.shape == (1, 1) and log_likelihood == pytest.approx(-np.log(2 * np.pi))

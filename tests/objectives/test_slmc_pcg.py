"""The inexact (preconditioned CG) W-step of low-rank SLMC against the exact step."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust import SLMC
from marginclust.feature_maps._low_rank import LowRankKernelMap
from marginclust.objectives._slmc import (
    SLMCRowProblem,
    alpha_step_features,
    membership_weights,
    pcg_w_step,
    u_step,
)
from marginclust.utils._blocks import RowBlocks
from tests._oracles.slmc_dense import objective_features


def ArrayBlocks(Phi):  # noqa: N802 - the (start, block) pairs pcg_w_step reads
    return [(0, Phi)]


def _problem(seed: int = 0, n: int = 600, L: int = 40, K: int = 3):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4)
    Phi = LowRankKernelMap(gamma=0.3, n_components=L, random_state=seed).fit_transform(X)
    U = rng.dirichlet(np.ones(K), size=n)
    return Phi, U


def _quadratic(Phi, W, U, lam, m):
    """J(W, U) for fixed U: the W-step's objective."""
    return objective_features(W, Phi @ W, U, lam, m)


def test_pcg_reaches_the_exact_w_step():
    Phi, U = _problem()
    lam, m = 5.0, 2.0
    exact = alpha_step_features(Phi, U, lam, m)
    # a poor warm start and a preconditioner from other memberships
    U0 = np.random.RandomState(9).dirichlet(np.ones(3), size=Phi.shape[0])
    _, d0 = membership_weights(U0, m)
    M0 = np.eye(Phi.shape[1]) + lam * Phi.T @ (d0[:, None] * Phi)
    W0 = np.zeros_like(exact)
    W, F, n_it, ok = pcg_w_step(ArrayBlocks(Phi), U, W0, Phi @ W0, lam, m,
                                np.linalg.inv(M0), tol=1e-12, max_iter=200)
    assert ok and n_it > 0
    # the system's condition number bounds the error of the solution from its residual
    np.testing.assert_allclose(W, exact, rtol=0, atol=1e-8 * np.abs(exact).max())
    np.testing.assert_allclose(F, Phi @ W, rtol=0, atol=1e-10 * np.abs(F).max())


def test_pcg_never_raises_the_quadratic_from_its_warm_start():
    Phi, U = _problem(seed=1)
    lam, m = 2.0, 1.7
    _, d = membership_weights(U, m)
    P = np.linalg.inv(np.eye(Phi.shape[1]) + lam * Phi.T @ (d[:, None] * Phi) * 0.5)
    W0 = np.random.RandomState(2).randn(Phi.shape[1], 3) * 0.01
    values = [_quadratic(Phi, W0, U, lam, m)]
    for it in range(1, 8):
        W, _, _, _ = pcg_w_step(ArrayBlocks(Phi), U, W0, Phi @ W0, lam, m, P, tol=0.0,
                                max_iter=it)
        values.append(_quadratic(Phi, W, U, lam, m))
    assert np.all(np.diff(values) <= 1e-12 * abs(values[0]))
    exact = alpha_step_features(Phi, U, lam, m)
    assert values[-1] == pytest.approx(_quadratic(Phi, exact, U, lam, m), rel=1e-8)


def test_pcg_alternation_is_monotone_and_falls_back_when_cg_stalls():
    rng = np.random.RandomState(3)
    X = rng.randn(600, 4)
    fmap = LowRankKernelMap(gamma=0.3, n_components=40, random_state=3).fit(X)
    Phi = fmap.transform(X)
    U = rng.dirichlet(np.ones(3), size=600)
    problem = SLMCRowProblem(RowBlocks(X), fmap, 5.0, 2.0, U, cache=True, w_step="pcg",
                             max_cg=1, cg_tol=1e-14)
    state = problem.initial_state()
    values = []
    for _ in range(6):
        state, J = problem.step(state)
        values.append(J)
    assert np.all(np.diff(values) <= 1e-12 * values[0])
    # one CG iteration cannot reach 1e-14: every sweep is redone exactly
    assert problem.n_exact == 6
    F = problem.decision_values()
    np.testing.assert_allclose(F, Phi @ state[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(problem.states[0]["U"], u_step(F, 2.0))


def test_pcg_and_exact_fits_converge_to_the_same_optimum():
    # well-separated clusters, so the alternation cannot bifurcate between the paths
    X, y = make_blobs(6000, 10, centers=6, cluster_std=1.5, random_state=0)
    fits = {}
    for w_step in ("exact", "pcg"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[w_step] = SLMC(6, n_components=200, w_step=w_step, tol=1e-9,
                                tol_memberships=1e-7, max_iter=200, random_state=0).fit(X)
    ex, cg = fits["exact"], fits["pcg"]
    assert ex.converged_ and cg.converged_
    assert cg.objective_ == pytest.approx(ex.objective_, rel=1e-6)
    np.testing.assert_array_equal(cg.labels_, ex.labels_)
    assert np.all(np.diff(cg.objective_history_) <= 1e-12 * cg.objective_history_[0])


def test_w_step_is_validated():
    with pytest.raises(ValueError, match="w_step"):
        SLMC(2, w_step="cg").fit(np.random.RandomState(0).randn(20, 2))


def test_a_costly_cg_step_makes_the_next_sweep_exact():
    # L = 40 features and K = 10 clusters: an exact step costs about L / (4 K) = 1 CG
    # iteration, so every CG step of two or more iterations refreshes the preconditioner
    rng = np.random.RandomState(4)
    X = rng.randn(600, 4)
    fmap = LowRankKernelMap(gamma=0.3, n_components=40, random_state=4).fit(X)
    U = rng.dirichlet(np.ones(10), size=600)
    problem = SLMCRowProblem(RowBlocks(X), fmap, 5.0, 2.0, U, cache=True, w_step="pcg")
    assert problem.exact_cost() == pytest.approx(1.0)
    state = problem.initial_state()
    values, kinds = [], []
    cg_before = 0
    for _ in range(12):
        exact_before, cg_before = problem.n_exact, problem.n_cg
        state, J = problem.step(state)
        values.append(J)
        kinds.append("exact" if problem.n_exact > exact_before else problem.n_cg - cg_before)
    assert np.all(np.diff(values) <= 1e-12 * values[0])
    for prev, this in zip(kinds, kinds[1:]):
        if prev != "exact" and prev > problem.exact_cost():
            assert this == "exact"
    assert any(k != "exact" for k in kinds) and kinds.count("exact") > 1
    # the refreshed path lands where the exact W-step lands
    F = problem.decision_values()
    np.testing.assert_allclose(F, fmap.transform(X) @ state[0], rtol=1e-10, atol=1e-10)

"""SLMC objective math: gradients, optimality of both closed-form steps, eq. (8) as printed."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime, minimize

from marginclust.objectives._slmc import (
    alpha_step,
    alpha_step_features,
    objective,
    squared_code_distances,
    u_step,
)
from tests._crosspath import feature_rounding_bound
from tests._oracles.slmc_dense import gradient_alpha, objective_features, paper_eq8_alpha


def _problem(rng, n=12, d=3, K=3, kernel="rbf"):
    X = rng.randn(n, d)
    if kernel == "rbf":
        sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        Kmat = np.exp(-sq / 2.0)
    else:
        Kmat = X @ X.T + 1.0
    U = rng.dirichlet(np.ones(K), size=n)
    return X, Kmat, U


def test_gradient_matches_finite_differences(rng):
    _, Kmat, U = _problem(rng)
    A = rng.randn(*U.shape) * 0.3
    lam, m = 0.7, 2.3

    def f(a):
        return objective(Kmat, a.reshape(A.shape), U, lam, m)

    num = approx_fprime(A.ravel(), f, 1e-6).reshape(A.shape)
    ana = gradient_alpha(Kmat, A, U, lam, m)
    np.testing.assert_allclose(ana, num, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("lam,m", [(0.1, 2.0), (1.0, 1.5), (10.0, 3.0)])
def test_alpha_step_zeroes_gradient_and_minimises(rng, kernel, lam, m):
    _, Kmat, U = _problem(rng, kernel=kernel)
    A = alpha_step(Kmat, U, lam, m)
    g = gradient_alpha(Kmat, A, U, lam, m)
    scale = np.abs(Kmat).max() * (1 + lam)
    assert np.abs(g).max() < 1e-8 * scale
    # Any perturbation increases J (convex in A, so the stationary point is the minimum).
    J0 = objective(Kmat, A, U, lam, m)
    for _ in range(5):
        P = rng.randn(*A.shape) * 1e-2
        assert objective(Kmat, A + P, U, lam, m) >= J0 - 1e-12 * max(1.0, J0)
    # and it agrees with a generic optimiser on J in the decision values
    res = minimize(
        lambda a: objective(Kmat, a.reshape(A.shape), U, lam, m),
        np.zeros(A.size),
        jac=lambda a: gradient_alpha(Kmat, a.reshape(A.shape), U, lam, m).ravel(),
        method="L-BFGS-B",
        options={"maxiter": 5000, "gtol": 1e-12, "ftol": 1e-15},
    )
    assert J0 <= res.fun + 1e-7 * max(1.0, abs(res.fun))


def test_paper_eq8_as_printed_is_not_a_minimiser(rng):
    _, Kmat, U = _problem(rng)
    lam, m = 0.5, 2.0
    A8 = paper_eq8_alpha(Kmat, U, lam, m)
    A = alpha_step(Kmat, U, lam, m)
    g8 = gradient_alpha(Kmat, A8, U, lam, m)
    assert np.abs(g8).max() > 1e-3
    assert objective(Kmat, A8, U, lam, m) > objective(Kmat, A, U, lam, m) + 1e-6


def test_feature_space_step_equals_dual_step(rng):
    X, _, U = _problem(rng, kernel="linear")
    Phi = np.hstack([X, np.ones((X.shape[0], 1))])
    Kmat = Phi @ Phi.T
    lam, m = 2.0, 2.0
    A = alpha_step(Kmat, U, lam, m)
    W = alpha_step_features(Phi, U, lam, m)
    np.testing.assert_allclose(Phi @ W, Kmat @ A, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(
        objective_features(W, Phi @ W, U, lam, m), objective(Kmat, A, U, lam, m), rtol=1e-10
    )


@pytest.mark.parametrize("m", [1.3, 2.0, 4.0])
def test_u_step_minimises_over_simplex(rng, m):
    F = rng.randn(20, 4)
    U = u_step(F, m)
    np.testing.assert_allclose(U.sum(axis=1), 1.0)
    assert np.all(U >= 0)
    dist = squared_code_distances(F)
    best = (U**m * dist).sum(axis=1)
    # Compare with random points of the simplex and with the KKT condition:
    # m u_ik^(m-1) dist_ik is the same for every k (all u_ik > 0 here).
    for _ in range(50):
        V = rng.dirichlet(np.ones(4), size=20)
        assert np.all(best <= (V**m * dist).sum(axis=1) + 1e-12)
    kkt = m * U ** (m - 1) * dist
    np.testing.assert_allclose(kkt, kkt[:, :1].repeat(4, axis=1), rtol=1e-8)


def test_u_step_exact_zero_distance_and_extremes():
    F = np.array([[1.0, 0.0, 0.0], [0.3, 0.3, 0.4], [1e8, -1e8, 0.0], [0.5, 0.5, 0.0]])
    U = u_step(F, 2.0)
    np.testing.assert_array_equal(U[0], [1.0, 0.0, 0.0])
    assert np.all(np.isfinite(U))
    np.testing.assert_allclose(U.sum(axis=1), 1.0)
    # ties give equal memberships
    assert U[3, 0] == pytest.approx(U[3, 1])
    # very close to a code: membership close to 1, finite
    U2 = u_step(np.array([[1.0 - 1e-150, 0.0]]), 1.05)
    assert np.all(np.isfinite(U2)) and U2[0, 0] > 0.999


def test_proposition1_argmax_f_equals_argmax_u(rng):
    F = rng.randn(500, 5)
    for m in (1.2, 2.0, 5.0):
        np.testing.assert_array_equal(np.argmax(F, axis=1), np.argmax(u_step(F, m), axis=1))


def test_feature_step_blocked_accumulation_equals_one_block(rng, monkeypatch):
    from marginclust.objectives import _slmc

    Phi = rng.randn(50, 6)
    U = rng.dirichlet(np.ones(3), size=50)
    W = alpha_step_features(Phi, U, 0.7, 2.0)
    monkeypatch.setattr(_slmc, "BLOCK_ROWS", 7)
    np.testing.assert_allclose(alpha_step_features(Phi, U, 0.7, 2.0), W, rtol=1e-10)


def test_normal_equations_block_partials_sum_to_the_dense_gram(rng):
    from marginclust.objectives._slmc import (
        feature_normal_block,
        feature_normal_reduce,
        membership_weights,
        solve_feature_normal,
    )

    Phi = rng.randn(41, 5)
    U = rng.dirichlet(np.ones(3), size=41)
    lam, m = 0.7, 2.0
    Um, d = membership_weights(U, m)
    G_dense = lam * Phi.T @ (d[:, None] * Phi)
    # one block function, in-order reduction over uneven blocks (41 = 4 x 9 + 5)
    G, R = feature_normal_reduce(
        (feature_normal_block(Phi[s:s + 9], U[s:s + 9], lam, m) for s in range(0, 41, 9)), 5, 3)
    np.testing.assert_allclose(G, G_dense, rtol=1e-12)
    np.testing.assert_allclose(R, Phi.T @ Um, rtol=1e-12)
    np.testing.assert_allclose(solve_feature_normal(G, R, lam),
                               alpha_step_features(Phi, U, lam, m), rtol=1e-10)
    # float32 blocks: float32 products (a symmetric rank-b update), float64 sums
    G32, _ = feature_normal_reduce(
        (feature_normal_block(Phi[s:s + 9].astype(np.float32), U[s:s + 9], lam, m)
         for s in range(0, 41, 9)), 5, 3)
    assert G32.dtype == np.float64
    np.testing.assert_array_equal(G32, G32.T)
    np.testing.assert_allclose(G32, G_dense, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_problem_cached_and_streamed_features_equal_the_dense_sweep(rng, dtype):
    """The row-block sweep (features cached in the block states or recomputed every
    pass) gives bitwise the same iterates both ways, and the dense sweep's up to
    rounding: the W-step from ``Phi^T D Phi`` and the U-step of ``Phi W``."""
    from marginclust.feature_maps._low_rank import LowRankKernelMap
    from marginclust.objectives._slmc import SLMCRowProblem, alpha_step_features, u_step
    from marginclust.utils._blocks import RowBlocks

    X = rng.randn(300, 4).astype(dtype)
    fmap = LowRankKernelMap(gamma=0.3, n_components=40, random_state=0).fit(X)
    Phi = fmap.transform(X)
    assert Phi.dtype == dtype
    # features of 64-row blocks (what a pass computes) are the map's, up to the rounding
    # of each (64-row blocks may take other BLAS kernels than one block)
    blocks = np.vstack([P for _, P in fmap.transform_blocks(X, block_rows=64)])
    atol = 2 * feature_rounding_bound(fmap, X.astype(np.float64), np.finfo(dtype).eps)
    np.testing.assert_allclose(blocks, Phi, rtol=0, atol=atol)
    U = rng.dirichlet(np.ones(3), size=300)
    rows = RowBlocks(X, block_rows=64)
    cached = SLMCRowProblem(rows, fmap, 2.0, 2.0, U, cache=True)
    streamed = SLMCRowProblem(rows, fmap, 2.0, 2.0, U, cache=False)
    state_c, state_s = cached.initial_state(), streamed.initial_state()
    U_dense = U
    tol = 1e-5 if dtype == np.float32 else 1e-10
    for _ in range(3):
        state_c, J_c = cached.step(state_c)
        state_s, J_s = streamed.step(state_s)
        assert J_s == J_c
        np.testing.assert_array_equal(state_s[0], state_c[0])
        W = alpha_step_features(Phi.astype(np.float64), U_dense, 2.0, 2.0)
        np.testing.assert_allclose(state_c[0], W, rtol=tol, atol=tol * np.abs(W).max())
        U_dense = u_step(Phi.astype(np.float64) @ W, 2.0)
    np.testing.assert_allclose(cached.decision_values(), Phi.astype(np.float64) @ state_c[0],
                               rtol=tol, atol=tol)


def test_slmc_streams_features_above_the_cache_budget(monkeypatch):
    from marginclust import SLMC
    from marginclust.feature_maps import _low_rank

    X = np.random.RandomState(0).randn(400, 3)
    X[:200] += 4.0
    kw = dict(n_components=50, random_state=0, max_iter=40)
    # streamed features take the exact W-step whatever w_step says (no first-sweep
    # system to precondition with): the same operations as a cached exact-step fit
    ref = SLMC(2, w_step="exact", **kw).fit(X)
    monkeypatch.setattr(_low_rank, "FEATURE_CACHE_BYTES", 0)
    streamed = SLMC(2, **kw).fit(X)
    np.testing.assert_array_equal(streamed.labels_, ref.labels_)
    np.testing.assert_array_equal(streamed.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(streamed.coef_, ref.coef_)


@pytest.mark.parametrize("m", [1.05, 2.0, 5.0])
def test_u_step_equals_the_logsumexp_formula(rng, m):
    from scipy.special import logsumexp

    F = rng.randn(200, 4) * 2.0
    F[0] = [1.0, 0.0, 0.0, 0.0]  # exact zero distance to code 0
    dist = squared_code_distances(F)
    with np.errstate(divide="ignore"):
        logu = -np.log(dist) / (m - 1.0)
    logu[0] = [0.0, -np.inf, -np.inf, -np.inf]
    oracle = np.exp(logu - logsumexp(logu, axis=1, keepdims=True))
    np.testing.assert_allclose(u_step(F, m), oracle, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("numpy_lapack", [False, True])
def test_spd_solve_backends_agree_and_fall_back_on_indefinite_rounding(numpy_lapack):
    from marginclust.objectives._slmc import spd_solve

    rng = np.random.RandomState(0)
    A = rng.randn(30, 5)
    R = rng.randn(30, 3)
    M = np.eye(30) + A @ A.T
    Z = spd_solve(lambda: M.copy(), R, numpy_lapack=numpy_lapack)
    np.testing.assert_allclose(M @ Z, R, atol=1e-10)
    # a matrix that rounding made indefinite: solved with eigenvalues clipped at 1
    bad = M.copy()
    bad[0, 0] = -1.0
    Zb = spd_solve(lambda: bad.copy(), R, numpy_lapack=numpy_lapack)
    w, V = np.linalg.eigh(0.5 * (bad + bad.T))
    np.testing.assert_allclose(Zb, V @ ((V.T @ R) / np.maximum(w, 1.0)[:, None]), atol=1e-10)

"""The small QP solvers: interior point vs generic solvers, KKT of the bundle dual."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from marginclust.objectives._constraints import make_balance
from marginclust.solvers._qp import solve_bundle_dual, solve_qp_active_set, solve_qp_nonneg


def _slsqp_primal(Aw, Ct, o, C, bal):
    """Generic solve of min 1/2||w||^2 + C xi, xi >= a_j.w + c_j.t + o_j, balance."""
    d, q = Aw.shape[1], Ct.shape[1]
    cons = [{"type": "ineq", "fun": lambda x: x[-1] - (Aw @ x[:d] + Ct @ x[d : d + q] + o)}]
    if bal.G.shape[0]:
        cons.append({"type": "ineq", "fun": lambda x: bal.h - bal.G @ x[d : d + q]})
    if bal.E.shape[0]:
        cons.append({"type": "eq", "fun": lambda x: bal.E @ x[d : d + q] - bal.e})
    res = minimize(
        lambda x: 0.5 * x[:d] @ x[:d] + C * x[-1],
        np.zeros(d + q + 1),
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-13, "maxiter": 1000},
    )
    return res.x[:d], res.x[d : d + q], res.fun


@pytest.mark.parametrize("q", [1, 3])
def test_bundle_dual_matches_generic_solver_and_kkt(q, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    for _ in range(4):
        m, d = rng.randint(2, 12), rng.randint(2, 6)
        Aw, Ct, o = rng.randn(m, d), rng.randn(m, q), rng.rand(m)
        Aw[0], Ct[0], o[0] = 0.0, 0.0, 0.0  # the R >= 0 plane keeps the model bounded
        if q > 1:
            Ct -= Ct.mean(axis=1, keepdims=True)  # multiclass planes are shift invariant
        C = float(rng.uniform(0.5, 5))
        bal = make_balance(q, float(rng.uniform(0, 0.5)))
        res = solve_bundle_dual(Aw @ Aw.T, o, Ct, C, bal.G, bal.h, bal.E, bal.e)
        w, t = -res.beta @ Aw, res.t
        model = 0.5 * w @ w + C * np.max(Aw @ w + Ct @ t + o)
        # KKT: dual feasibility, primal feasibility, complementary slackness, no gap
        assert np.all(res.beta >= -1e-12) and res.beta.sum() == pytest.approx(C)
        assert bal.violation(t) <= 1e-8
        vals = Aw @ w + Ct @ t + o
        assert np.all(vals[res.beta > 1e-6 * C] >= vals.max() - 1e-6)
        assert model == pytest.approx(res.lower_bound, rel=1e-7, abs=1e-9)
        w2, t2, f2 = _slsqp_primal(Aw, Ct, o, C, bal)
        assert model == pytest.approx(f2, rel=1e-6, abs=1e-8)
        np.testing.assert_allclose(w, w2, atol=1e-4)


def _slsqp_primal_parts(Aw, Ct, o, groups, C, bal):
    """Generic solve of min 1/2||w||^2 + C sum_g xi_g, xi_g >= a_j.w + c_j.t + o_j (j in g)."""
    d, q, n_g = Aw.shape[1], Ct.shape[1], int(groups.max()) + 1

    def slack(x):
        return x[d + q :][groups] - (Aw @ x[:d] + Ct @ x[d : d + q] + o)

    cons = [{"type": "ineq", "fun": slack}]
    if bal.G.shape[0]:
        cons.append({"type": "ineq", "fun": lambda x: bal.h - bal.G @ x[d : d + q]})
    if bal.E.shape[0]:
        cons.append({"type": "eq", "fun": lambda x: bal.E @ x[d : d + q] - bal.e})
    res = minimize(
        lambda x: 0.5 * x[:d] @ x[:d] + C * x[d + q :].sum(),
        np.zeros(d + q + n_g),
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-13, "maxiter": 1000},
    )
    return res.x[:d], res.fun


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("method", ["ipm", "active-set"])
def test_grouped_bundle_dual_matches_generic_solver(q, method, global_random_seed):
    """Two cutting-plane models (one simplex each): the sum of their maxima is minimised."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(4):
        m, d = rng.randint(4, 12), rng.randint(2, 6)
        Aw, Ct, o = rng.randn(m, d), rng.randn(m, q), rng.rand(m)
        groups = np.concatenate([[0, 1], rng.randint(2, size=m - 2)])
        Aw[:2], Ct[:2], o[:2] = 0.0, 0.0, 0.0  # each part's R >= 0 plane first
        if q > 1:
            Ct -= Ct.mean(axis=1, keepdims=True)
        C = float(rng.uniform(0.5, 5))
        bal = make_balance(q, float(rng.uniform(0, 0.5)))
        res = solve_bundle_dual(
            Aw @ Aw.T, o, Ct, C, bal.G, bal.h, bal.E, bal.e, method=method, groups=groups
        )
        w, t = -res.beta @ Aw, res.t
        vals = Aw @ w + Ct @ t + o
        model = 0.5 * w @ w + C * sum(vals[groups == g].max() for g in (0, 1))
        for g in (0, 1):  # each part's weights on its own simplex, on its active planes
            assert res.beta[groups == g].sum() == pytest.approx(C)
            act = (groups == g) & (res.beta > 1e-6 * C)
            assert np.all(vals[act] >= vals[groups == g].max() - 1e-6)
        assert np.all(res.beta >= -1e-12) and bal.violation(t) <= 1e-8
        assert model == pytest.approx(res.lower_bound, rel=1e-7, abs=1e-9)
        w2, f2 = _slsqp_primal_parts(Aw, Ct, o, groups, C, bal)
        assert model == pytest.approx(f2, rel=1e-6, abs=1e-8)
        np.testing.assert_allclose(w, w2, atol=1e-4)


def test_clarabel_agrees_with_ipm():
    pytest.importorskip("clarabel")
    rng = np.random.RandomState(0)
    m, d = 8, 4
    Aw, Ct, o = rng.randn(m, d), rng.randn(m, 1), rng.rand(m)
    bal = make_balance(1, 0.2)
    a = solve_bundle_dual(Aw @ Aw.T, o, Ct, 2.0, bal.G, bal.h, bal.E, bal.e)
    b = solve_bundle_dual(Aw @ Aw.T, o, Ct, 2.0, bal.G, bal.h, bal.E, bal.e, method="clarabel")
    np.testing.assert_allclose(a.beta @ Aw, b.beta @ Aw, atol=1e-6)
    np.testing.assert_allclose(a.t, b.t, atol=1e-6)
    assert a.lower_bound == pytest.approx(b.lower_bound, rel=1e-8)


def test_qp_nonneg_kkt_random(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    p = 7
    M = rng.randn(3, p)
    H, g = M.T @ M, rng.randn(p)  # singular PSD Hessian ...
    H[-1, -1] += 1.0  # ... but curved in the free variable, so the problem is bounded
    nonneg = np.ones(p, dtype=bool)
    nonneg[-1] = False  # one free variable
    A = np.vstack([np.ones((1, p)), rng.randn(1, p)])
    b = A @ np.concatenate([rng.dirichlet(np.ones(p - 1)), [rng.randn()]])  # feasible
    res = solve_qp_nonneg(H, g, A, b, nonneg)
    assert res.converged
    z = res.z
    np.testing.assert_allclose(A @ z, b, atol=1e-9)
    assert np.all(z[nonneg] >= -1e-12)
    grad = H @ z + g - A.T @ res.y
    np.testing.assert_allclose(grad, res.lam, atol=1e-7)  # stationarity
    assert np.all(res.lam >= -1e-10) and np.allclose(res.lam[~nonneg], 0)
    assert abs(z[nonneg] @ res.lam[nonneg]) < 1e-8  # complementarity


def test_bad_method():
    with pytest.raises(ValueError, match="method"):
        solve_bundle_dual(
            np.eye(1), [0.0], [[0.0]], 1.0, [[1.0]], [1.0], np.zeros((0, 1)), [], method="x"
        )


@pytest.mark.parametrize("q", [1, 3])
def test_active_set_matches_ipm_with_warm_starts(q, global_random_seed):
    """The bundle's use: add one plane at a time, warm start from the previous solution."""
    rng = np.random.RandomState(global_random_seed)
    d = 5
    bal = make_balance(q, float(rng.uniform(0, 0.3)))
    Aw, Ct, o = np.zeros((1, d)), np.zeros((1, q)), np.zeros(1)
    warm = None
    for _ in range(12):
        c = rng.randn(1, q)
        if q > 1:
            c -= c.mean()
        Aw, Ct, o = np.vstack([Aw, rng.randn(1, d)]), np.vstack([Ct, c]), np.append(o, rng.rand())
        args = (Aw @ Aw.T, o, Ct, 2.0, bal.G, bal.h, bal.E, bal.e)
        a = solve_bundle_dual(*args, method="active-set", warm_start=warm)
        ref = solve_bundle_dual(*args)
        np.testing.assert_allclose(a.beta @ Aw, ref.beta @ Aw, atol=1e-6)
        assert a.lower_bound == pytest.approx(ref.lower_bound, rel=1e-7, abs=1e-9)
        w, t = -a.beta @ Aw, a.t
        model = 0.5 * w @ w + 2.0 * np.max(Aw @ w + Ct @ t + o)
        assert model == pytest.approx(ref.lower_bound, rel=1e-6, abs=1e-8)
        assert bal.violation(t) <= 1e-8
        warm = (np.append(a.beta / 2.0, 0.0), a.rest)


def test_active_set_far_from_the_solution_takes_the_steps_it_needs(global_random_seed):
    """From the centre of a 200-variable simplex to a solution with a handful of
    weights, every other bound has to join the working set, one per step: more than
    100 steps, and the method must still certify the solution itself."""
    rng = np.random.RandomState(global_random_seed)
    p = 200
    M = rng.randn(5, p)
    H, g = M.T @ M, rng.randn(p)
    A, b = np.ones((1, p)), np.ones(1)
    nonneg = np.ones(p, dtype=bool)
    res = solve_qp_active_set(H, g, A, b, nonneg, np.full(p, 1.0 / p))
    ref = solve_qp_nonneg(H, g, A, b, nonneg)
    assert res.converged and res.n_iter > 100
    assert np.count_nonzero(res.z) < p - 100
    # the interior point method stops within about 1e-10 of the optimum's value (its
    # tol); two end points of the same QP agree to that, here with a margin of 100
    assert res.value == pytest.approx(ref.value, rel=1e-8, abs=1e-8)


@pytest.mark.timeout(30)
def test_non_finite_qp_data_is_an_error_not_a_hang():
    from marginclust.solvers._qp import solve_bundle_dual, solve_qp_active_set, solve_qp_nonneg

    Q = np.array([[0.0, 0.0], [0.0, np.inf]])
    with pytest.raises(FloatingPointError, match="Rescale your features"):
        solve_bundle_dual(
            Q,
            np.zeros(2),
            np.zeros((2, 1)),
            1.0,
            np.zeros((0, 1)),
            np.zeros(0),
            np.zeros((0, 1)),
            np.zeros(0),
        )
    H = np.array([[np.nan]])
    with pytest.raises(FloatingPointError):
        solve_qp_nonneg(H, [0.0], [[1.0]], [1.0], [True])
    with pytest.raises(FloatingPointError):
        solve_qp_active_set(H, [0.0], [[1.0]], [1.0], [True], [1.0])


@pytest.mark.parametrize("q", [3, 5])
def test_balance_box_has_the_minimum_of_the_pairwise_rows(q, global_random_seed):
    """The multiclass balance ``max t - min t <= b`` written literally (one row per ordered
    pair and ``sum t = 0``) and as the centred box ``|t_r| <= b / 2`` (what
    ``make_balance`` builds) give the same model minimum for shift-invariant planes, and
    the box's ``t``, normalised, lies in the literal set."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(4):
        m, d = rng.randint(3, 15), rng.randint(2, 6)
        Aw, Ct, o = rng.randn(m, d), rng.randn(m, q), rng.rand(m)
        Aw[0], Ct[0], o[0] = 0.0, 0.0, 0.0
        Ct -= Ct.mean(axis=1, keepdims=True)
        C, b = float(rng.uniform(0.5, 5)), float(rng.uniform(0.01, 0.5))
        rows = [(i, j) for i in range(q) for j in range(q) if i != j]
        G = np.zeros((len(rows), q))
        for r, (i, j) in enumerate(rows):
            G[r, i], G[r, j] = 1.0, -1.0
        literal = solve_bundle_dual(
            Aw @ Aw.T, o, Ct, C, G, np.full(len(rows), b), np.ones((1, q)), np.zeros(1)
        )
        bal = make_balance(q, b)
        assert bal.G.shape[0] == 2 * q and bal.shift_free
        for method in ("ipm", "active-set"):
            box = solve_bundle_dual(
                Aw @ Aw.T, o, Ct, C, bal.G, bal.h, bal.E, bal.e, method=method
            )
            assert box.lower_bound == pytest.approx(literal.lower_bound, rel=1e-7, abs=1e-9)
            t = bal.normalise(box.t)
            assert abs(t.sum()) <= 1e-12 and np.all(G @ t <= b + 1e-9)

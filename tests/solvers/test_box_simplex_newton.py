"""Smoothed primal Newton for the box-simplex QP: agrees with a literal QP solve and LIBSVM."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from marginclust.solvers._box_simplex_newton import solve_box_simplex_newton
from marginclust.solvers._weighted_ocsvm import fit_linear_weighted_ocsvm, fit_weighted_ocsvm
from tests._oracles.wocsvm_qp import (
    scholkopf_objective,
    scholkopf_qp,
    tax_duin_objective,
    tax_duin_qp,
)


def _problem(seed, n=50, m=4):
    rng = np.random.RandomState(seed)
    F = rng.randn(n, m) + rng.randn(m)
    w = rng.uniform(0.05, 1.0, size=n)
    return F, w


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nu", [0.3, 0.6, 0.95])
def test_scholkopf_matches_literal_qp(seed, nu):
    F, w = _problem(seed)
    K = F @ F.T
    a_qp, rho_qp = scholkopf_qp(K, w, nu, bound="sum")
    u = w / (nu * w.sum())
    sol = solve_box_simplex_newton(F, u, tol=1e-9)
    # feasible, same objective, same solution, certified gap
    assert np.all(sol.a >= 0) and np.all(sol.a <= u * (1 + 1e-12))
    assert_allclose(sol.a.sum(), 1.0, rtol=1e-12)
    # a^T K a is twice the dual objective whose distance to the minimum the duality gap
    # certifies; the literal QP (clarabel at 1e-12) is within 1e-10 of the minimum, on
    # either side (its point may leave the constraints by its tolerance), which matters
    # when the solver ends at the exact optimum (gap 0 up to round-off)
    f_sol, f_qp = scholkopf_objective(K, sol.a), scholkopf_objective(K, a_qp)
    assert -1e-10 <= f_sol - f_qp <= 2 * sol.gap + 1e-10
    assert_allclose(sol.w, F.T @ sol.a, atol=1e-5)
    assert_allclose(sol.rho, rho_qp, rtol=1e-5, atol=1e-6)
    assert sol.gap <= 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_tax_duin_matches_literal_qp(seed):
    F, w = _problem(seed)
    K = F @ F.T
    C = 2.0 / w.sum()
    a_qp = tax_duin_qp(K, w, C)
    sol = solve_box_simplex_newton(F, C * w, -0.5 * (F * F).sum(axis=1), tol=1e-9)
    # twice the certified dual objective, as above
    f_sol, f_qp = tax_duin_objective(K, sol.a), tax_duin_objective(K, a_qp)
    assert -1e-10 <= f_sol - f_qp <= 2 * sol.gap + 1e-10


@pytest.mark.parametrize("form", ["scholkopf", "tax-duin"])
def test_linear_machine_agrees_with_libsvm_on_the_same_features(form):
    """The linear weighted OC-SVM is LIBSVM's weighted OC-SVM with a linear kernel on F."""
    F, w = _problem(7, n=80, m=5)
    lin = fit_linear_weighted_ocsvm(F, w, form=form, nu=0.5)
    ref = fit_weighted_ocsvm(F, w, form=form, nu=0.5, kernel="linear", tol=1e-10)
    assert_allclose(lin.decision_function(F), ref.decision_function(F), atol=1e-4)
    assert_allclose(lin.native_scale, ref.native_scale, rtol=1e-12)
    assert_allclose(lin.center_sq_norm, ref.center_sq_norm, rtol=1e-5)


def test_warm_start_reaches_the_same_solution():
    F, w = _problem(3, n=200, m=6)
    cold = fit_linear_weighted_ocsvm(F, w, nu=0.9)
    w2 = w * (1 + 0.05 * np.random.RandomState(0).rand(w.size))
    warm = fit_linear_weighted_ocsvm(F, w2, nu=0.9, warm_start=cold)
    again = fit_linear_weighted_ocsvm(F, w2, nu=0.9)
    assert_allclose(warm.coef, again.coef, atol=1e-5)
    assert_allclose(warm.rho, again.rho, atol=1e-5)


def test_all_multipliers_at_the_bound():
    """nu = 1 with bound 'sum': alpha = w / sum w, rho = max score (LIBSVM's rule)."""
    F, w = _problem(1)
    m = fit_linear_weighted_ocsvm(F, w, nu=1.0)
    a = w / w.sum()
    assert_allclose(m.coef, F.T @ a)
    assert_allclose(m.rho, (F @ m.coef).max())


def test_zero_weight_samples_in_the_smoothing_zone_stay_finite():
    """Zero-weight samples stay at zero and the optimum is the QP's (the Hessian skips them)."""
    import warnings

    F = np.random.RandomState(0).randn(30, 3)
    w = np.zeros(30)
    w[:3] = 1.0  # most samples carry no weight
    nu = 0.5
    u = w / (nu * w.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sol = solve_box_simplex_newton(F, u, tol=1e-9)
    K = F @ F.T
    a_qp, _ = scholkopf_qp(K, w, nu, bound="sum")
    assert np.all(np.isfinite(sol.w)) and np.isfinite(sol.rho)
    assert np.all(sol.a[3:] == 0)
    f_sol, f_qp = scholkopf_objective(K, sol.a), scholkopf_objective(K, a_qp)
    assert -1e-10 <= f_sol - f_qp <= 2 * sol.gap + 1e-10  # the certificate, as above


@pytest.mark.parametrize("warm", [False, True])
def test_exact_finish_reaches_the_literal_qp_optimum(warm):
    """Many rows, few free ones (nu = 0.3): the solver ends on the active sets' exact
    optimum, which the literal QP confirms far below the smoothing's tolerance."""
    rng = np.random.RandomState(5)
    F = np.vstack([rng.randn(150, 6) * 0.3 + c for c in (2.0, 3.0)])
    w = rng.uniform(0.1, 1.0, size=F.shape[0])
    nu = 0.3
    u = w / (nu * w.sum())
    w0 = solve_box_simplex_newton(F, u * (1 + 0.1 * rng.rand(u.size)) / 1.05).w if warm else None
    sol = solve_box_simplex_newton(F, u, w0=w0, tol=1e-8)
    a_qp, rho_qp = scholkopf_qp(F @ F.T, w, nu, bound="sum")
    # the exact optimum: no gap but round-off (the smoothing alone stops near tol)
    assert sol.gap <= 1e-12 * max(1.0, float(sol.w @ sol.w))
    assert np.all(sol.a >= 0) and np.all(sol.a <= u * (1 + 1e-12))
    assert_allclose(sol.w, F.T @ sol.a, atol=1e-12)
    assert_allclose(sol.w, F.T @ a_qp, atol=1e-7)
    assert_allclose(sol.rho, rho_qp, rtol=1e-7)


def _screening_problem(seed, n=4000, m=8):
    """Two groups of rows, soft weights, nu = 0.3: most multipliers at a bound, a thin
    smoothing zone (what the screen exploits)."""
    rng = np.random.RandomState(seed)
    F = np.vstack([rng.randn(n // 2, m) * 0.3 + c for c in (1.0, 2.0)])
    w = rng.uniform(0.05, 1.0, size=n)
    return F, w / (0.3 * w.sum())


def _count_screens(monkeypatch):
    import marginclust.solvers._box_simplex_newton as bsn

    kept = []

    class Spy(bsn._Screen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            kept.append(self.rows is not None)

    monkeypatch.setattr(bsn, "_Screen", Spy)
    return kept


@pytest.mark.parametrize("screen", [None, 16])
@pytest.mark.parametrize("tax_duin", [False, True])
@pytest.mark.parametrize("warm", [False, True])
def test_screened_solve_reaches_the_unscreened_optimum(monkeypatch, screen, tax_duin, warm):
    """The screened Newton steps (only the zone and a band around it) against the literal
    steps over every row (``screen=0``). The primal is 1-strongly convex in ``w`` and its
    gap bounds the distance to the optimum, ``||w - w*||^2 <= 2 gap``, so two certified
    solutions are within ``sqrt(2 gap_1) + sqrt(2 gap_2)`` (plus round-off)."""
    F, u = _screening_problem(3)
    # Tax & Duin at C = 1 / (nu sum w): the same bounds, the linear term -||f_i||^2 / 2
    b = -0.5 * (F * F).sum(axis=1) if tax_duin else None
    w0 = None
    if warm:
        w0 = solve_box_simplex_newton(F, u * (1 + 0.1 * np.random.RandomState(0).rand(u.size)),
                                      b, screen=0).w
    kept = _count_screens(monkeypatch)
    literal = solve_box_simplex_newton(F, u, b, w0=w0, screen=0)
    assert not any(kept)  # every step over every row
    kept.clear()
    fast = solve_box_simplex_newton(F, u, b, w0=w0, screen=screen)
    assert any(kept)  # some steps were screened
    assert literal.converged and fast.converged
    bound = np.sqrt(2 * literal.gap) + np.sqrt(2 * fast.gap) + 1e-12
    assert np.linalg.norm(fast.w - literal.w) <= bound
    # the returned multipliers are feasible and give the returned w
    assert np.all(fast.a >= 0) and np.all(fast.a <= u * (1 + 1e-12))
    assert_allclose(fast.a.sum(), 1.0, rtol=1e-12)


def test_screen_values_are_the_unscreened_ones():
    """At a point of its region a screen's smoothed value, offset, multipliers and
    ``F^T a`` are the all-row ones up to round-off: the same sums, grouped differently
    (a sum of n terms moves by at most about ``n eps`` times the sum of their sizes)."""
    import marginclust.solvers._box_simplex_newton as bsn

    F, u = _screening_problem(4)
    n = F.shape[0]
    b = np.zeros(n)
    w_ref = F.T @ (u / u.sum())
    mu = 1e-3
    f_max = bsn._row_norm_max(F)
    scr = bsn._Screen(F, b, u, w_ref, mu, f_max, extra=64)
    assert scr.rows is not None and scr.rows.size < n // 4
    rng = np.random.RandomState(0)
    d = rng.randn(F.shape[1])
    w = w_ref + 0.9 * scr.radius * d / np.linalg.norm(d)  # inside the region
    cS = F[scr.rows] @ w
    val, rho, aS = scr.value(w, cS, mu)
    c = F @ w
    val_all, rho_all, a_all = bsn._smoothed_value(w, c, u, mu)
    eps = np.finfo(float).eps
    # the offset: both roots leave a residual of at most 1e-14 in sum(a) (the polish),
    # and sum(a) grows with rho at the rate sum(u over the zone) / mu
    zone = (rho_all - c > 0) & (rho_all - c < mu)
    assert np.any(zone)
    assert abs(rho - rho_all) <= 2e-14 * mu / u[zone].sum() + 4 * eps * abs(rho_all)
    size = 0.5 * abs(w @ w) + abs(rho_all) + float(u @ (np.abs(rho_all - c) + mu))
    assert abs(val - val_all) <= 4 * n * eps * size + abs(rho - rho_all) * (1 + u.sum())
    # a zone row's multiplier is u_i (rho - c_i) / mu; each solve's feasibility repair
    # then moves the multipliers by its polish residual in sum(a) (1e-14 when it stops)
    a = scr.full_a(aS)
    dc = np.zeros(n)
    dc[scr.rows] = cS - c[scr.rows]  # the same products, up to the BLAS kernel's order
    assert np.all(np.abs(a - a_all) <= u * (abs(rho - rho_all) + np.abs(dc)) / mu + 2e-14)
    sizes = np.abs(F).T @ u  # bounds the terms of each component of F^T a
    assert np.all(np.abs(scr.Fa(aS) - F.T @ a_all) <= 4 * n * eps * sizes
                  + np.abs(F).T @ np.abs(a - a_all))
    # outside the region the screen refuses (the rows it certifies might change sets)
    assert not scr.covers(w_ref + 1.1 * scr.radius * d / np.linalg.norm(d))


def test_root_leaving_its_window_falls_back_to_every_row(monkeypatch):
    """A screen refuses a root outside its window (where the rows it certifies could
    change sets), and the solve then keeps every row for the level: still the optimum."""
    import marginclust.solvers._box_simplex_newton as bsn

    F, u = _screening_problem(5)
    w_ref = F.T @ (u / u.sum())
    scr = bsn._Screen(F, np.zeros(F.shape[0]), u, w_ref, 1e-3, bsn._row_norm_max(F), extra=64)
    assert scr.rows is not None
    shift = 4 * scr.f_max * scr.radius  # every kept score moved: the root moves as much
    with pytest.raises(bsn._Uncertified):
        scr.value(w_ref, scr.cS - shift, 1e-3)

    refused = []

    class Refusing(bsn._Screen):
        def value(self, w, cS, mu):
            if self.rows is not None and not np.array_equal(w, self.w_ref) and not refused:
                refused.append(True)  # the first trial point of a screened step
                raise bsn._Uncertified
            return super().value(w, cS, mu)

    literal = solve_box_simplex_newton(F, u, screen=0)
    monkeypatch.setattr(bsn, "_Screen", Refusing)
    fast = solve_box_simplex_newton(F, u)
    assert refused and literal.converged and fast.converged
    assert np.linalg.norm(fast.w - literal.w) <= np.sqrt(2 * literal.gap) + np.sqrt(
        2 * fast.gap) + 1e-12

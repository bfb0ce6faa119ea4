"""Literal QP solves of the weighted one-class SVM duals (test oracle, small n only).

Eq. (11): ``min a^T K a  s.t. 0 <= a_i <= ub_i, sum a = 1`` with ``ub_i = w_i / (nu N)``
(or ``w_i / (nu sum w)``); eq. (10): ``min a^T K a - a^T diag(K)`` with ``ub_i = C w_i``.
Solved with clarabel when installed (interior point, tight tolerances), else
scipy's SLSQP. No LIBSVM involved.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def _box_simplex_qp(K, lin, ub):
    """min a^T K a + lin^T a  s.t.  0 <= a <= ub, sum a = 1."""
    n = K.shape[0]
    P = 2.0 * (K + K.T) / 2.0
    # make P PSD up to round-off (K is PSD by construction in the tests)
    P = P + 1e-12 * np.eye(n)
    try:
        import clarabel
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - fallback
        clarabel = None
    if clarabel is not None:
        A = sp.csc_matrix(np.vstack([np.ones((1, n)), -np.eye(n), np.eye(n)]))
        b = np.concatenate([[1.0], np.zeros(n), ub])
        cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * n)]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        settings.tol_gap_abs = 1e-12
        settings.tol_gap_rel = 1e-12
        settings.tol_feas = 1e-12
        solver = clarabel.DefaultSolver(sp.csc_matrix(np.triu(P)), lin, A, b, cones, settings)
        sol = solver.solve()
        a = np.asarray(sol.x)
    else:  # pragma: no cover
        a0 = np.minimum(ub, 1.0 / n)
        a0 = a0 / a0.sum()
        res = minimize(
            lambda a: a @ K @ a + lin @ a,
            a0,
            jac=lambda a: 2 * K @ a + lin,
            bounds=list(zip(np.zeros(n), ub)),
            constraints=[{"type": "eq", "fun": lambda a: a.sum() - 1, "jac": lambda a: np.ones(n)}],
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        a = res.x
    return np.clip(a, 0.0, ub)


def scholkopf_qp(K, w, nu, *, bound="n"):
    """Solve eq. (11); returns (alpha, rho) with rho from the free multipliers (eq. 7)."""
    w = np.asarray(w, dtype=float)
    n = K.shape[0]
    denom = nu * (n if bound == "n" else w.sum())
    ub = w / denom
    a = _box_simplex_qp(K, np.zeros(n), ub)
    Ka = K @ a
    free = (a > 1e-7) & (a < ub - 1e-7)
    if np.any(free):
        rho = float(Ka[free].mean())
    else:  # LIBSVM's rule: midpoint of the feasible interval
        at_ub = a >= ub - 1e-7
        at_lb = a <= 1e-7
        rho = 0.5 * (Ka[at_ub].min(initial=np.inf) + Ka[at_lb].max(initial=-np.inf))
    return a, rho


def tax_duin_qp(K, w, C):
    """Solve eq. (10) (as the minimisation of the dual's negative); returns alpha."""
    w = np.asarray(w, dtype=float)
    return _box_simplex_qp(K, -np.diag(K).copy(), C * w)


def scholkopf_objective(K, a):
    """a^T K a."""
    return float(a @ K @ a)


def tax_duin_objective(K, a):
    """a^T K a - sum a_i K_ii."""
    return float(a @ K @ a - a @ np.diag(K))

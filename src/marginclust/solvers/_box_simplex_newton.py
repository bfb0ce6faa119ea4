"""Smoothed primal Newton for box-simplex QPs with a low-rank Hessian (linear one-class SVMs).

The dual problem solved is::

    min_a  1/2 ||F^T a||^2 + b^T a    s.t.  0 <= a_i <= u_i,  sum_i a_i = 1,

with ``F`` an (n, m) matrix of explicit features (m small), ``u`` the upper
bounds (``sum u >= 1``) and ``b`` an optional linear term. Its Lagrangian dual
is the primal::

    min_{w, rho}  P(w, rho) = 1/2 ||w||^2 - rho + sum_i u_i (rho - f_i.w - b_i)_+ ,

at whose optimum ``w = F^T a`` and ``a_i = u_i`` on rows with a positive margin
violation, 0 on rows inside, free on the rows exactly at ``rho``. The primal has
only ``m + 1`` variables, so it is solved by Newton's method on the Huber
smoothing of the hinge (width ``mu``), with ``rho`` eliminated exactly (a
one-dimensional monotone piecewise-linear equation solved by one sort) and an
Armijo line search; ``mu`` decreases geometrically to ``tol * min(1, ...)``.
The smoothing changes the optimum by at most ``mu * sum(u) / 2`` in objective;
the returned duality gap of the *unsmoothed* problem certifies the solution.

After each smoothing level the rows inside the zone are taken as the free
support vectors and the exact optimum on those active sets is solved for (a
linear system of their number, at most ``m + 1``); it ends the solve when it
meets every optimality condition. With a small ``nu`` and a narrow kernel the
free rows are few and found early, while the levels below would take tens of
Newton steps whose full step crosses many kinks of the hinge.

Each Newton step costs three passes over ``F`` (``F @ w``, ``F @ step`` and
``F^T a``; the line search moves the scores along ``F @ step``), one sort of
``n`` numbers per trial step and an ``m x m`` solve: linear in ``n``, BLAS-shaped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["BoxSimplexSolution", "solve_box_simplex_newton"]

_VECTOR_MAX = 4096  # up to this many samples rho is located by one vectorised pass


@dataclass(frozen=True)
class BoxSimplexSolution:
    """Solution of the box-simplex QP and of its primal.

    Parameters
    ----------
    w : ndarray of shape (m,)
        Primal weights ``F^T a``.
    rho : float
        Primal offset.
    a : ndarray of shape (n,)
        Dual variables (feasible: in the box, summing to one).
    gap : float
        Duality gap of the unsmoothed problem at ``(w, rho, a)``.
    n_iter : int
        Newton steps taken.
    converged : bool
        Whether ``gap <= tol`` was reached.
    """

    w: npt.NDArray[np.float64]
    rho: float
    a: npt.NDArray[np.float64]
    gap: float
    n_iter: int
    converged: bool


def _rho_and_a(
    c: npt.NDArray[np.float64], u: npt.NDArray[np.float64], mu: float
) -> tuple[float, npt.NDArray[np.float64]]:
    """Solve ``g(rho) = sum_i u_i clip((rho - c_i) / mu, 0, 1) = 1`` exactly (one sort).

    With ``c`` sorted and prefix sums ``U``, ``V`` of ``u`` and ``u c``, ``g`` at
    any point costs two binary searches; a bisection over the breakpoints
    (``c_i`` and ``c_i + mu``) finds the linear piece that crosses 1, and two
    Newton corrections with direct sums remove the prefix sums' round-off.
    """
    order = np.argsort(c)
    cs = c[order]
    us = u[order]
    U = np.concatenate([[0.0], np.cumsum(us)])
    V = np.concatenate([[0.0], np.cumsum(us * cs)])

    n = cs.size

    def g(r: float) -> float:
        k1 = int(np.searchsorted(cs, r, side="left"))
        k2 = int(np.searchsorted(cs, r - mu, side="left"))
        return (r * (U[k1] - U[k2]) - (V[k1] - V[k2]) + mu * U[k2]) / mu

    def last_below(shift: float) -> int:
        """Largest j with g(cs[j] + shift) <= 1 (g is non-decreasing), or -1."""
        lo, hi = -1, n - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if g(float(cs[mid]) + shift) <= 1.0:
                lo = mid
            else:
                hi = mid - 1
        return lo if lo >= 0 and g(float(cs[lo]) + shift) <= 1.0 else -1

    # the crossing lies between the largest breakpoint with g <= 1 and the next one
    if n <= _VECTOR_MAX:  # few samples: g at every breakpoint at once (no Python loop)
        bp = np.concatenate([cs, cs + mu])
        k1 = np.searchsorted(cs, bp, side="left")
        k2 = np.searchsorted(cs, bp - mu, side="left")
        gb = (bp * (U[k1] - U[k2]) - (V[k1] - V[k2]) + mu * U[k2]) / mu
        below = bp[gb <= 1.0]
        cands_lo = [float(below.max())] if below.size else []
    else:
        cands_lo = [float(cs[j]) + sh for sh in (0.0, mu) for j in [last_below(sh)] if j >= 0]
    lo = max(cands_lo) if cands_lo else float(cs[0])
    nxt = [float(v) for v in (cs[np.searchsorted(cs, lo, side="right"):][:1])]
    nxt += [float(v) + mu for v in (cs[np.searchsorted(cs, lo - mu, side="right"):][:1])]
    if not nxt:  # sum(u) == 1 up to round-off: every multiplier at its bound
        rho = float(cs[-1]) + mu
    else:
        hi = min(nxt)
        g_lo, g_hi = g(lo), g(hi)
        rho = hi if g_hi <= g_lo else lo + (1.0 - g_lo) * (hi - lo) / (g_hi - g_lo)
    # the prefix sums cancel when mu is tiny: polish rho with direct sums (Newton on g)
    for _ in range(3):
        r = rho - c
        a = u * np.clip(r / mu, 0.0, 1.0)
        total = float(a.sum())
        slope = float(u[(r > 0.0) & (r < mu)].sum()) / mu
        if slope <= 0.0 or abs(total - 1.0) <= 1e-14:
            break
        rho += (1.0 - total) / slope
    a = u * np.clip((rho - c) / mu, 0.0, 1.0)
    # exact feasibility (a correction of round-off size): scale down an excess, or
    # spread a deficit over the slack to the upper bounds
    total = float(a.sum())
    if total > 1.0:
        a *= 1.0 / total
    elif total < 1.0:
        slack = u - a
        a += (1.0 - total) / float(slack.sum()) * slack
    return rho, a


def _huber(r: npt.NDArray[np.float64], mu: float) -> npt.NDArray[np.float64]:
    return np.where(r <= 0.0, 0.0, np.where(r < mu, r * r / (2.0 * mu), r - 0.5 * mu))


def _smoothed_value(
    w: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    mu: float,
) -> tuple[float, float, npt.NDArray[np.float64]]:
    """The smoothed primal at ``w`` with ``rho`` eliminated, given the scores ``c = F w + b``."""
    rho, a = _rho_and_a(c, u, mu)
    val = 0.5 * float(w @ w) - rho + float(u @ _huber(rho - c, mu))
    return val, rho, a


def solve_box_simplex_newton(
    F: npt.NDArray[np.floating],
    u: npt.ArrayLike,
    b: npt.ArrayLike | None = None,
    *,
    w0: npt.ArrayLike | None = None,
    tol: float = 1e-8,
    max_iter: int = 200,
) -> BoxSimplexSolution:
    """Solve ``min 1/2 ||F^T a||^2 + b^T a`` over ``0 <= a <= u, sum a = 1`` (see module).

    Prior validation is assumed: ``F`` finite, ``u >= 0`` with ``sum u >= 1``.

    Parameters
    ----------
    F : ndarray of shape (n, m)
        Explicit features (rows are samples).
    u : array-like of shape (n,)
        Upper bounds.
    b : array-like of shape (n,) or None, default=None
        Linear term (zero when None).
    w0 : array-like of shape (m,) or None, default=None
        Warm start for the primal weights (e.g. the previous solution).
    tol : float, default=1e-8
        Target duality gap, relative to ``max(1, ||w||^2)``.
    max_iter : int, default=200
        Maximum Newton steps over all smoothing levels.

    Returns
    -------
    solution : BoxSimplexSolution
        Primal ``(w, rho)``, dual ``a`` and the certified gap.
    """
    F = np.asarray(F)
    n, m = F.shape
    u = np.asarray(u, dtype=np.float64)
    b = np.zeros(n) if b is None else np.asarray(b, dtype=np.float64)
    sum_u = float(u.sum())
    if w0 is None:
        a0 = u / sum_u
        w = np.asarray(F.T @ a0, dtype=np.float64)
    else:
        w = np.array(w0, dtype=np.float64)
    c = F @ w + b
    spread = float(c.max() - c.min()) if n else 0.0
    scale = max(1.0, float(w @ w))
    mu_final = max(tol * scale / max(sum_u, 1.0), 1e-10 * scale)
    mu = max(1e-2 * spread, mu_final) if w0 is None else max(min(spread, 1e3 * mu_final), mu_final)
    n_iter = 0
    rho = 0.0
    a = u / sum_u
    eye = np.eye(m)
    while True:
        c = F @ w + b
        val, rho, a = _smoothed_value(w, c, u, mu)
        for _ in range(max_iter):
            grad = w - np.asarray(F.T @ a, dtype=np.float64)
            r = rho - c
            # zero-weight samples carry no curvature (and would make d.sum() zero)
            zone = (r > 0.0) & (r < mu) & (u > 0.0)
            if np.any(zone):
                d = u[zone] / mu
                Fz = np.asarray(F[zone], dtype=np.float64)
                Fd = Fz.T * d
                H = eye + Fd @ Fz
                v = Fd.sum(axis=1)
                H -= np.outer(v, v) / d.sum()
            else:
                H = eye
            step = -np.linalg.solve(H, grad)
            slope = float(grad @ step)
            if not slope < 0 or float(grad @ grad) <= (1e-3 * mu) ** 2 * scale:
                break
            # the scores move along F @ step: one product per Newton step, not one per
            # trial (at small mu the step crosses many kinks and is halved several times)
            c_step = np.asarray(F @ step, dtype=np.float64)
            t = 1.0
            while True:
                w_new = w + t * step
                c_new = c + t * c_step
                val_new, rho_new, a_new = _smoothed_value(w_new, c_new, u, mu)
                if val_new <= val + 1e-4 * t * slope or t < 1e-10:
                    break
                t *= 0.5
            n_iter += 1
            decrease = val - val_new
            w, val, rho, a, c = w_new, val_new, rho_new, a_new, c_new
            if decrease <= 1e-15 * max(1.0, abs(val)) or n_iter >= max_iter:
                break
        if mu <= mu_final or n_iter >= max_iter:
            break
        exact = _active_set_solution(F, b, u, c, rho, mu, tol * scale)
        if exact is not None:
            w, rho, a, c = exact
            break
        mu = max(mu * 0.1, mu_final)
    c = F @ w + b  # the line search updated the scores incrementally
    gap = _duality_gap(w, rho, a, F, b, u, c)
    converged = gap <= tol * max(1.0, float(w @ w)) * 10
    return BoxSimplexSolution(w=w, rho=float(rho), a=a, gap=float(gap), n_iter=n_iter,
                              converged=bool(converged))


def _active_set_solution(
    F: npt.NDArray[np.floating],
    b: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    rho: float,
    mu: float,
    target_gap: float,
    max_rounds: int = 3,
) -> tuple[npt.NDArray[np.float64], float, npt.NDArray[np.float64],
           npt.NDArray[np.float64]] | None:
    """The exact optimum on the active sets the smoothed solution suggests, if it certifies.

    Rows inside the smoothing zone (``0 < rho - c_i < mu``) are taken as free
    (``c_i = rho`` at the optimum), rows beyond it as at their bound ``u_i``, the
    others at 0; the free multipliers and ``rho`` then solve one linear system of
    the free rows' size (``F_S F_S^T a_S - rho 1 = -b_S - F_S F_B^T u_B``,
    ``sum a_S = 1 - sum u_B``). Free rows that leave their box are moved to the
    bound they cross, and the system is solved again (a few rounds). The answer is
    kept only when the duality gap of the unsmoothed problem is at most
    ``target_gap``, the smoothing's own certificate: once the zone holds the
    free rows, the smoothing levels below ``mu`` would only approach this point
    (each halving the step several times where it crosses the kinks of the hinge).
    Returns ``(w, rho, a, c)`` or None.
    """
    n, m = F.shape
    r = rho - c
    live = u > 0.0
    free = (r > 0.0) & (r < mu) & live
    bound = (r >= mu) & live
    for _ in range(max_rounds):
        S = np.flatnonzero(free)
        if S.size == 0 or S.size > m + 1:  # more free rows than the features can pin
            return None
        FS = np.asarray(F[S], dtype=np.float64)
        uB = np.where(bound, u, 0.0)
        wB = np.asarray(F.T @ uB, dtype=np.float64)
        A = np.zeros((S.size + 1, S.size + 1))
        A[:-1, :-1] = FS @ FS.T
        A[:-1, -1] = -1.0
        A[-1, :-1] = 1.0
        rhs = np.append(-b[S] - FS @ wB, 1.0 - float(uB.sum()))
        with np.errstate(all="ignore"):
            try:
                x = np.linalg.solve(A, rhs)
            except np.linalg.LinAlgError:
                return None
        if not np.all(np.isfinite(x)):
            return None
        aS, rho_new = x[:-1], float(x[-1])
        low, high = aS < 0.0, aS > u[S]
        if np.any(low) or np.any(high):
            free[S[low | high]] = False
            bound[S[high]] = True
            continue
        a = uB.copy()
        a[S] = aS
        w = wB + FS.T @ aS
        c_new = np.asarray(F @ w + b, dtype=np.float64)
        # rows on the wrong side of the new offset change sets (the free ones stay);
        # with none, the point meets every KKT condition: the exact optimum
        r = rho_new - c_new
        moved = ~free & live & ((r > 0.0) != bound)
        if not np.any(moved):
            if _duality_gap(w, rho_new, a, F, b, u, c_new) <= target_gap:
                return w, rho_new, a, c_new
            return None
        bound[moved] = r[moved] > 0.0
    return None


def _duality_gap(
    w: npt.NDArray[np.float64],
    rho: float,
    a: npt.NDArray[np.float64],
    F: npt.NDArray[np.floating],
    b: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
) -> float:
    """Unsmoothed primal at (w, rho) minus the dual value at the feasible ``a``."""
    primal = 0.5 * float(w @ w) - rho + float(u @ np.maximum(rho - c, 0.0))
    Fa = np.asarray(F.T @ a, dtype=np.float64)
    dual = -0.5 * float(Fa @ Fa) - float(b @ a)
    return max(primal - dual, 0.0)

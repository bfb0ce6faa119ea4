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

A Newton step over every row costs two passes over ``F`` (``F @ step``, along
which the line search moves the scores, and ``F^T a``), one sort of ``n`` numbers
per trial step and an ``m x m`` solve. Most rows cannot change state in one step,
though: a row far below the offset stays at its bound, one far above stays
inside. The steps are therefore screened (:class:`_Screen`): from a reference
point (one pass for the scores, one for the sum of the bound rows' features)
the largest row norm bounds how far any score, and the offset, can move within
a radius, and the rows that cannot reach the zone there enter every quantity
through three sums; a step recomputes only the zone and a band around it
(``max(256, n / 32)`` rows), and a step leaving the radius sets a new
reference. Each value is the all-row one in exact arithmetic (the same sums,
grouped differently), and the returned gap is computed on every row
(measured in ``benchmarks/results/defaults-cost.md``: a WOC-SVM fit on 1e5 rows
and 300 features, the same steps at a third of the time).
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
    c: npt.NDArray[np.float64], u: npt.NDArray[np.float64], mu: float, target: float = 1.0
) -> tuple[float, npt.NDArray[np.float64]]:
    """Solve ``g(rho) = sum_i u_i clip((rho - c_i) / mu, 0, 1) = target`` exactly (one sort).

    ``target`` is 1 on all rows; on the screened rows it is 1 minus the bounds of
    the rows certified at their bound (see :class:`_Screen`).

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
        """Largest j with g(cs[j] + shift) <= target (g is non-decreasing), or -1."""
        lo, hi = -1, n - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if g(float(cs[mid]) + shift) <= target:
                lo = mid
            else:
                hi = mid - 1
        return lo if lo >= 0 and g(float(cs[lo]) + shift) <= target else -1

    # the crossing lies between the largest breakpoint with g <= target and the next one
    if n <= _VECTOR_MAX:  # few samples: g at every breakpoint at once (no Python loop)
        bp = np.concatenate([cs, cs + mu])
        k1 = np.searchsorted(cs, bp, side="left")
        k2 = np.searchsorted(cs, bp - mu, side="left")
        gb = (bp * (U[k1] - U[k2]) - (V[k1] - V[k2]) + mu * U[k2]) / mu
        below = bp[gb <= target]
        cands_lo = [float(below.max())] if below.size else []
    else:
        cands_lo = [float(cs[j]) + sh for sh in (0.0, mu) for j in [last_below(sh)] if j >= 0]
    lo = max(cands_lo) if cands_lo else float(cs[0])
    nxt = [float(v) for v in (cs[np.searchsorted(cs, lo, side="right"):][:1])]
    nxt += [float(v) + mu for v in (cs[np.searchsorted(cs, lo - mu, side="right"):][:1])]
    if not nxt:  # sum(u) == target up to round-off: every multiplier at its bound
        rho = float(cs[-1]) + mu
    else:
        hi = min(nxt)
        g_lo, g_hi = g(lo), g(hi)
        rho = hi if g_hi <= g_lo else lo + (target - g_lo) * (hi - lo) / (g_hi - g_lo)
    # the prefix sums cancel when mu is tiny: polish rho with direct sums (Newton on g)
    for _ in range(3):
        r = rho - c
        a = u * np.clip(r / mu, 0.0, 1.0)
        total = float(a.sum())
        slope = float(u[(r > 0.0) & (r < mu)].sum()) / mu
        if slope <= 0.0 or abs(total - target) <= 1e-14:
            break
        rho += (target - total) / slope
    a = u * np.clip((rho - c) / mu, 0.0, 1.0)
    # exact feasibility (a correction of round-off size): scale down an excess, or
    # spread a deficit over the slack to the upper bounds
    total = float(a.sum())
    if total > target:
        a *= target / total
    elif total < target:
        slack = u - a
        a += (target - total) / float(slack.sum()) * slack
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


class _Uncertified(Exception):
    """The root left the window in which the screened rows' states are certified."""


class _Screen:
    """The rows a Newton step can change, and sums over the rows it cannot.

    At a reference point ``w_ref`` with scores ``c_ref = F w_ref + b`` and root
    ``rho_ref`` (of ``g`` on every row), a score moves by at most
    ``f_max ||w - w_ref||`` (``f_max`` the largest row norm of ``F``), and so does the
    root (``g`` is non-decreasing in every ``rho - c_i``). While
    ``||w - w_ref|| <= R`` and ``|rho - rho_ref| <= f_max R``, a row whose reference
    score lies more than ``2 f_max R`` below ``rho_ref - mu`` is at its bound
    (``a_i = u_i``, hinge ``rho - c_i``), one more than ``2 f_max R`` above ``rho_ref``
    inside (``a_i = 0``, no hinge): only the others, the zone and a band around it,
    need their scores. The rows at their bound enter the smoothed primal, the
    gradient and the dual through three sums (``F_B^T u_B``, ``u_B^T b_B``,
    ``sum u_B``), so every screened quantity is the unscreened one in exact
    arithmetic. ``R`` is set so that the band holds ``extra`` rows besides the zone.

    ``rows`` is None when every row is kept (few rows, a band holding a quarter of
    the data or more, or no screening asked for): the computations are then the unscreened
    ones, operation for operation.
    """

    def __init__(self, F: npt.NDArray[np.floating], b: npt.NDArray[np.float64],
                 u: npt.NDArray[np.float64], w: npt.NDArray[np.float64], mu: float,
                 f_max: float | None, extra: int, step_norm: float = 0.0,
                 c: npt.NDArray[np.float64] | None = None, rho: float | None = None) -> None:
        n = F.shape[0]
        if c is None:
            c = np.asarray(F @ w + b, dtype=np.float64)
        self.n, self.u = n, u
        self.rows: npt.NDArray[np.intp] | None = None
        self.FS, self.cS, self.uS, self.bS = F, c, u, b
        self.radius, self.rho_ref, self.f_max = np.inf, 0.0, 0.0
        self.w_ref, self.c_ref = w, c
        self.bound_rows = np.zeros(0, dtype=np.intp)
        self.G_B = np.zeros(F.shape[1])
        self.U_B = self.beta_B = 0.0
        if f_max is None or not f_max > 0.0:
            return
        rho_ref = _rho_and_a(c, u, mu)[0] if rho is None else rho
        # how far each reference score lies beyond the zone [rho_ref - mu, rho_ref]
        dist = np.maximum(c - rho_ref, (rho_ref - mu) - c)
        k = int(np.count_nonzero(dist <= 0.0)) + extra
        if 4 * k >= n:  # the kept rows' copy of F stays below a quarter of it
            return
        band = max(float(np.partition(dist, k)[k]), 4.0 * f_max * step_norm)
        radius = band / (2.0 * f_max)
        # a margin for the round-off of the scores (of relative size 1e-16)
        inner = dist < band * (1.0 + 1e-7) + 1e-12 * (1.0 + abs(rho_ref) + mu)
        if 4 * int(np.count_nonzero(inner)) >= n:
            return
        below = ~inner & (c < rho_ref)
        self.rows = np.flatnonzero(inner)
        self.FS = np.asarray(F[self.rows], dtype=np.float64)
        self.cS, self.uS, self.bS = c[self.rows], u[self.rows], b[self.rows]
        self.radius, self.rho_ref, self.f_max = radius, rho_ref, f_max
        self.w_ref = w.copy()
        self.bound_rows = np.flatnonzero(below)
        uB = np.where(below, u, 0.0)
        self.G_B = np.asarray(F.T @ uB, dtype=np.float64)
        self.U_B = float(uB.sum())
        self.beta_B = float(uB @ b)

    def covers(self, w: npt.NDArray[np.float64], rho: float | None = None) -> bool:
        """Whether ``w`` (and ``rho``) are in the certified region; the trial points
        between two covered ``w`` are covered too (a ball is convex)."""
        if self.rows is None:
            return True
        if not float(np.linalg.norm(w - self.w_ref)) <= self.radius:
            return False
        return rho is None or abs(rho - self.rho_ref) <= self.f_max * self.radius

    def value(self, w: npt.NDArray[np.float64], cS: npt.NDArray[np.float64],
              mu: float) -> tuple[float, float, npt.NDArray[np.float64]]:
        """The smoothed primal, ``rho`` and the kept rows' multipliers at a covered ``w``."""
        if self.rows is None:
            return _smoothed_value(w, cS, self.uS, mu)
        rho, aS = _rho_and_a(cS, self.uS, mu, 1.0 - self.U_B)
        if not self.covers(w, rho):
            raise _Uncertified
        hinge_B = self.U_B * (rho - 0.5 * mu) - (float(w @ self.G_B) + self.beta_B)
        val = 0.5 * float(w @ w) - rho + hinge_B + float(self.uS @ _huber(rho - cS, mu))
        return val, rho, aS

    def Fa(self, aS: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``F^T a`` for multipliers ``u`` on the rows at their bound, 0 inside."""
        if self.rows is None:
            return np.asarray(self.FS.T @ aS, dtype=np.float64)
        return np.asarray(self.G_B + self.FS.T @ aS, dtype=np.float64)

    def full_a(self, aS: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The multipliers of every row."""
        if self.rows is None:
            return aS
        a = np.zeros(self.n)
        a[self.bound_rows] = self.u[self.bound_rows]
        a[self.rows] = aS
        return a


def _screen(F: npt.NDArray[np.floating], b: npt.NDArray[np.float64],
            u: npt.NDArray[np.float64], w: npt.NDArray[np.float64], mu: float,
            f_max: float | None, extra: int, step_norm: float = 0.0,
            c: npt.NDArray[np.float64] | None = None, rho: float | None = None,
            ) -> tuple[_Screen, float, float, npt.NDArray[np.float64]]:
    """A screen at ``w`` with the smoothed value there (every row kept when the root
    at the reference point itself falls outside its window, by round-off)."""
    scr = _Screen(F, b, u, w, mu, f_max, extra, step_norm, c, rho)
    try:
        return (scr, *scr.value(w, scr.cS, mu))
    except _Uncertified:
        scr = _Screen(F, b, u, w, mu, None, extra, c=scr.c_ref)
        return (scr, *scr.value(w, scr.cS, mu))


def _row_norm_max(F: npt.NDArray[np.floating]) -> float:
    """The largest row norm of ``F``: a bound on how far a score moves with ``w``."""
    return float(np.sqrt(np.max(np.einsum("ij,ij->i", F, F)))) if F.shape[0] else 0.0


def solve_box_simplex_newton(
    F: npt.NDArray[np.floating],
    u: npt.ArrayLike,
    b: npt.ArrayLike | None = None,
    *,
    w0: npt.ArrayLike | None = None,
    tol: float = 1e-8,
    max_iter: int = 200,
    screen: int | None = None,
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
    screen : int or None, default=None
        Rows a Newton step recomputes besides those in the smoothing zone (the
        others are certified at their bound or inside, see the module notes);
        0 recomputes every row at every step. None: ``max(256, n // 32)``.

    Returns
    -------
    solution : BoxSimplexSolution
        Primal ``(w, rho)``, dual ``a`` and the certified gap.
    """
    F = np.asarray(F)
    n, m = F.shape
    u = np.asarray(u, dtype=np.float64)
    b = np.zeros(n) if b is None else np.asarray(b, dtype=np.float64)
    extra = max(256, n // 32) if screen is None else int(screen)
    f_max = _row_norm_max(F) if 0 < extra and 4 * extra < n else None
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
    eye = np.eye(m)
    exact = None
    while True:
        scr, val, rho, aS = _screen(F, b, u, w, mu, f_max, extra)
        fresh = True  # the screen was set at this w
        while True:
            grad = w - scr.Fa(aS)
            r = rho - scr.cS
            # zero-weight samples carry no curvature (and would make d.sum() zero)
            zone = (r > 0.0) & (r < mu) & (scr.uS > 0.0)
            if np.any(zone):
                d = scr.uS[zone] / mu
                Fz = np.asarray(scr.FS[zone], dtype=np.float64)
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
            if not scr.covers(w + step):
                # a new reference here, with a band the step cannot leave (the scores of
                # every row are known when the reference is already here)
                here = fresh and scr.rows is not None
                scr, val, rho, aS = _screen(F, b, u, w, mu, f_max, extra,
                                            float(np.linalg.norm(step)),
                                            c=scr.c_ref if here else None,
                                            rho=scr.rho_ref if here else None)
                fresh = True
                continue
            # the scores move along F @ step: one product per Newton step, not one per
            # trial (at small mu the step crosses many kinks and is halved several times)
            c_step = np.asarray(scr.FS @ step, dtype=np.float64)
            t = 1.0
            try:
                while True:
                    w_new = w + t * step
                    c_new = scr.cS + t * c_step
                    val_new, rho_new, a_new = scr.value(w_new, c_new, mu)
                    if val_new <= val + 1e-4 * t * slope or t < 1e-10:
                        break
                    t *= 0.5
            except _Uncertified:  # the root at its window's edge: keep every row
                scr, val, rho, aS = _screen(F, b, u, w, mu, None, extra)
                fresh = True
                continue
            fresh = False
            n_iter += 1
            decrease = val - val_new
            w, val, rho, aS, scr.cS = w_new, val_new, rho_new, a_new, c_new
            if decrease <= 1e-15 * max(1.0, abs(val)) or n_iter >= max_iter:
                break
            if scr.rows is None and f_max is not None:
                # every row was kept (the steps moved them all): screen from here once a
                # step of this length would leave most rows certified (no pass over F for
                # the scores, which are those of every row)
                fine = _Screen(F, b, u, w, mu, f_max, extra, t * float(np.linalg.norm(step)),
                               c=scr.cS, rho=rho)
                if fine.rows is not None:
                    try:
                        val, rho, aS = fine.value(w, fine.cS, mu)
                        scr, fresh = fine, True
                    except _Uncertified:
                        pass
        if mu <= mu_final or n_iter >= max_iter:
            break
        exact = _active_set_solution(F, b, u, scr, w, rho, mu, tol * scale)
        if exact is not None:
            break
        mu = max(mu * 0.1, mu_final)
    if exact is not None:
        w, rho, a = exact
    else:
        a = scr.full_a(aS)
    c = F @ w + b  # the line search updated the scores incrementally
    gap = _duality_gap(w, rho, a, F, b, u, c)
    converged = gap <= tol * max(1.0, float(w @ w)) * 10
    return BoxSimplexSolution(w=w, rho=float(rho), a=a, gap=float(gap), n_iter=n_iter,
                              converged=bool(converged))


def _active_set_solution(
    F: npt.NDArray[np.floating],
    b: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    scr: _Screen,
    w: npt.NDArray[np.float64],
    rho: float,
    mu: float,
    target_gap: float,
    max_rounds: int = 3,
) -> tuple[npt.NDArray[np.float64], float, npt.NDArray[np.float64]] | None:
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
    On a screen (``scr``, the scores of its kept rows at ``w``) the rows it
    certifies keep their sets while the answer stays in its region; outside it
    the sets are decided on every row. Returns ``(w, rho, a)`` or None.
    """
    m = F.shape[1]
    FS, cS, uS, bS = scr.FS, scr.cS, scr.uS, scr.bS
    r = rho - cS
    live = uS > 0.0
    free = (r > 0.0) & (r < mu) & live
    bound = (r >= mu) & live
    for _ in range(max_rounds):
        S = np.flatnonzero(free)
        if S.size == 0 or S.size > m + 1:  # more free rows than the features can pin
            return None
        Ff = np.asarray(FS[S], dtype=np.float64)
        uB = np.where(bound, uS, 0.0)
        wB = scr.Fa(uB)
        A = np.zeros((S.size + 1, S.size + 1))
        A[:-1, :-1] = Ff @ Ff.T
        A[:-1, -1] = -1.0
        A[-1, :-1] = 1.0
        rhs = np.append(-bS[S] - Ff @ wB, 1.0 - (scr.U_B + float(uB.sum())))
        with np.errstate(all="ignore"):
            try:
                x = np.linalg.solve(A, rhs)
            except np.linalg.LinAlgError:
                return None
        if not np.all(np.isfinite(x)):
            return None
        aS, rho_new = x[:-1], float(x[-1])
        low, high = aS < 0.0, aS > uS[S]
        if np.any(low) or np.any(high):
            free[S[low | high]] = False
            bound[S[high]] = True
            continue
        a = uB.copy()
        a[S] = aS
        w_new = wB + Ff.T @ aS
        if not scr.covers(w_new, rho_new):  # the certified rows might change sets
            full = _Screen(F, b, u, w, mu, None, 0)
            return _active_set_solution(F, b, u, full, w, rho, mu, target_gap, max_rounds)
        c_new = np.asarray(FS @ w_new + bS, dtype=np.float64)
        # rows on the wrong side of the new offset change sets (the free ones stay);
        # with none, the point meets every KKT condition: the exact optimum
        r = rho_new - c_new
        moved = ~free & live & ((r > 0.0) != bound)
        if not np.any(moved):
            a_full = scr.full_a(a)
            if scr.rows is None:
                gap = _duality_gap(w_new, rho_new, a_full, F, b, u, c_new)
            else:
                gap = _screened_gap(scr, w_new, rho_new, a, c_new)
            return (w_new, rho_new, a_full) if gap <= target_gap else None
        bound[moved] = r[moved] > 0.0
    return None


def _screened_gap(scr: _Screen, w: npt.NDArray[np.float64], rho: float,
                  aS: npt.NDArray[np.float64], cS: npt.NDArray[np.float64]) -> float:
    """:func:`_duality_gap` on a screen, from its kept rows and the sums over the others."""
    hinge_B = scr.U_B * rho - (float(w @ scr.G_B) + scr.beta_B)
    primal = 0.5 * float(w @ w) - rho + hinge_B + float(scr.uS @ np.maximum(rho - cS, 0.0))
    Fa = scr.Fa(aS)
    dual = -0.5 * float(Fa @ Fa) - (scr.beta_B + float(scr.bS @ aS))
    return max(primal - dual, 0.0)


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

"""Small dense convex QPs: a primal-dual interior point solver and the bundle-method dual.

The bundle method (:mod:`._bundle`) and the cutting-plane MMC baseline
(:mod:`._cutting_plane`) both need, at every step, the minimiser of a
cutting-plane model of a regularised risk,

    min_{w, t, xi}  1/2 ||w||^2 + C xi
    s.t.            xi >= a_j . w + c_j . t + o_j      (j = 1..m, the planes)
                    G t <= h,  E t = e                  (the balance constraints on t)

where ``w`` may be huge (the weights) and ``t`` is small (one mean score per
output; see :mod:`marginclust.objectives._mmc`). Its Lagrange dual is small:

    max_{beta, mu, eta}  -1/2 beta' Q beta + o' beta - h' mu - e' eta
    s.t.  beta >= 0, sum(beta) = C, mu >= 0,  Ct' beta + G' mu + E' eta = 0

with ``Q = A A'`` the Gram matrix of the plane slopes ``a_j``. The primal is
recovered as ``w = -A' beta`` and ``t`` = the multipliers of the last block of
equalities (see :func:`solve_bundle_dual`). The dual is solved by the dense
Mehrotra predictor-corrector interior point method :func:`solve_qp_nonneg`
(exact to ``tol``, no dependency) or, optionally, by clarabel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import lu_factor, lu_solve
from scipy.linalg.lapack import dgesv as _gesv

__all__ = [
    "BundleQPResult",
    "QPResult",
    "solve_bundle_dual",
    "solve_qp_active_set",
    "solve_qp_nonneg",
]

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class QPResult:
    """Solution of ``min 1/2 z'Hz + g'z  s.t.  Az = b, z[nonneg] >= 0``.

    Attributes
    ----------
    z : ndarray
        Primal solution.
    y : ndarray
        Multipliers of ``Az = b`` (sign: stationarity reads ``Hz + g - A'y - lam = 0``).
    lam : ndarray
        Multipliers of the bounds (zero on free variables).
    value : float
        ``1/2 z'Hz + g'z``.
    n_iter : int
        Interior point iterations.
    converged : bool
        Whether the residuals met the tolerance.
    """

    z: Array
    y: Array
    lam: Array
    value: float
    n_iter: int
    converged: bool


def _solve_kkt(K: Array, rhs: Array) -> Array:
    try:
        return np.asarray(np.linalg.solve(K, rhs), dtype=np.float64)
    except np.linalg.LinAlgError:
        return np.asarray(np.linalg.lstsq(K, rhs, rcond=None)[0], dtype=np.float64)


def _max_step(v: Array, dv: Array) -> float:
    """Largest step in [0, 1] keeping ``v + step * dv >= 0``."""
    neg = dv < 0
    if not neg.any():
        return 1.0
    return min(1.0, float((-v[neg] / dv[neg]).min()))


def _newton_direction(
    r_c: Array,
    rhs_d: Array,
    rhs_p: Array,
    idx: npt.NDArray[np.intp],
    zi: Array,
    lam: Array,
    lu: Any,
    K: Array,
) -> tuple[Array, Array, Array]:
    """Solve the reduced KKT system for one interior point direction."""
    p = rhs_d.size
    rhs = np.concatenate([rhs_d, rhs_p])
    rhs[idx] -= r_c / zi
    sol = lu_solve(lu, rhs, check_finite=False) if lu is not None else _solve_kkt(K, rhs)
    dz, dy = sol[:p], sol[p:]
    dlam = (-r_c - lam * dz[idx]) / zi
    return dz, dy, dlam


def _qp_arrays(
    H: Any, g: Any, A: Any, b: Any, nonneg: Any
) -> tuple[Array, Array, Array, Array, npt.NDArray[np.bool_], float]:
    """The QP data as float64 arrays (``A`` as r x p), the bool mask and the scale
    ``max(1, |H|_max, |g|_max)`` of the objective."""
    H = np.asarray(H, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64).reshape(-1, g.size)
    b = np.asarray(b, dtype=np.float64).ravel()
    nn = np.asarray(nonneg, dtype=bool)
    _check_finite(H, g, A, b)
    scale = max(1.0, np.abs(H).max(initial=0.0), np.abs(g).max(initial=0.0))
    return H, g, A, b, nn, scale


def _check_finite(*arrays: Any) -> None:
    """Refuse NaN / inf in QP data: LAPACK may loop for a very long time on them."""
    for arr in arrays:
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(
                "The QP received non-finite numbers (an overflow in the data or the weights). "
                "Rescale your features (e.g. sklearn.preprocessing.StandardScaler)."
            )


def solve_qp_nonneg(
    H: npt.ArrayLike,
    g: npt.ArrayLike,
    A: npt.ArrayLike,
    b: npt.ArrayLike,
    nonneg: npt.ArrayLike,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> QPResult:
    """Convex QP with equalities and sign constraints, by a primal-dual interior point method.

    Solves ``min 1/2 z'Hz + g'z  s.t.  A z = b,  z_i >= 0 for i in nonneg``
    (``H`` symmetric positive semidefinite) with Mehrotra's predictor-corrector
    steps on the dense KKT system. Meant for problems of a few hundred variables
    at most (the bundle duals). Prior validation of the inputs is assumed. It
    stays one function: the predictor and the corrector of an iteration share its
    factorisation and residuals, and the loop reads as Mehrotra's method.

    Parameters
    ----------
    H : array-like of shape (p, p)
        Positive semidefinite Hessian.
    g : array-like of shape (p,)
        Linear term.
    A : array-like of shape (r, p)
        Equality constraint matrix (full row rank expected; a tiny regularisation
        copes with mild rank deficiency).
    b : array-like of shape (r,)
        Equality right-hand side.
    nonneg : array-like of bool of shape (p,)
        Which variables are constrained to be non-negative; the others are free.
    tol : float, default=1e-10
        Tolerance on the scaled primal, dual and complementarity residuals.
    max_iter : int, default=100
        Maximum interior point iterations.

    Returns
    -------
    result : QPResult

    Raises
    ------
    FloatingPointError
        If the QP data hold NaN or infinity.
    """
    H, g, A, b, nn, scale = _qp_arrays(H, g, A, b, nonneg)
    p, r = g.size, b.size
    idx = np.flatnonzero(nn)
    n_nn = max(idx.size, 1)
    b_scale = max(1.0, np.abs(b).max(initial=0.0))
    z = np.zeros(p)
    z[idx] = 1.0
    lam = np.ones(idx.size)
    y = np.zeros(r)
    reg = 1e-13 * scale
    # KKT matrix without the barrier diagonal; only that diagonal changes per iteration.
    K0 = np.zeros((p + r, p + r))
    K0[:p, :p] = H
    K0[np.arange(p), np.arange(p)] += reg
    K0[:p, p:] = -A.T
    K0[p:, :p] = A
    K0[np.arange(p, p + r), np.arange(p, p + r)] = -reg
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        lam_full = np.zeros(p)
        lam_full[idx] = lam
        r_d = H @ z + g - A.T @ y - lam_full
        r_p = A @ z - b
        zi = z[idx]
        mu = float(zi @ lam) / n_nn
        res = max(np.abs(r_d).max() / scale, np.abs(r_p).max(initial=0.0) / b_scale, mu / scale)
        if res < tol:
            converged = True
            break
        K = K0.copy()
        K[idx, idx] += lam / zi
        if not np.all(np.isfinite(K)):  # the barrier blew up: stop, report not converged
            break
        try:
            lu = lu_factor(K, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):  # pragma: no cover - defensive
            lu = None
        rhs_d = -r_d
        rhs_p = -r_p

        def direction(r_c: Array) -> tuple[Array, Array, Array]:
            return _newton_direction(r_c, rhs_d, rhs_p, idx, zi, lam, lu, K)  # noqa: B023

        try:  # predictor (affine scaling)
            dz_a, _, dlam_a = direction(zi * lam)
        except np.linalg.LinAlgError:  # singular beyond least squares: stop, not converged
            break
        dza = dz_a[idx]
        a_p = _max_step(zi, dza)
        a_d = _max_step(lam, dlam_a)
        mu_aff = float((zi + a_p * dza) @ (lam + a_d * dlam_a)) / n_nn
        sigma = (mu_aff / mu) ** 3 if mu > 0 else 0.0
        try:  # corrector
            dz, dy, dlam = direction(zi * lam + dza * dlam_a - sigma * mu)
        except np.linalg.LinAlgError:
            break
        a_p = 0.99 * _max_step(zi, dz[idx])
        a_d = 0.99 * _max_step(lam, dlam)
        z += a_p * dz
        y += a_d * dy
        lam += a_d * dlam
        z[idx] = np.maximum(z[idx], 1e-300)
    lam_full = np.zeros(p)
    lam_full[idx] = lam
    value = float(0.5 * z @ H @ z + g @ z)
    return QPResult(z=z, y=y, lam=lam_full, value=value, n_iter=it, converged=converged)


def solve_qp_active_set(
    H: npt.ArrayLike,
    g: npt.ArrayLike,
    A: npt.ArrayLike,
    b: npt.ArrayLike,
    nonneg: npt.ArrayLike,
    z0: npt.ArrayLike,
    *,
    max_iter: int | None = None,
    tol: float = 1e-10,
) -> QPResult:
    """Same QP as :func:`solve_qp_nonneg`, by a primal active-set method from a feasible start.

    Nocedal & Wright (2006), Algorithm 16.3: with the bounds of the working set
    fixed at zero, take the equality-constrained Newton step on the free
    variables; shorten it at the first bound it would cross (which joins the
    working set); at a zero step release the bound with the most negative
    multiplier, or stop when none is negative. A curvature of ``1e-11 * scale``
    is added so that variables without curvature (the balance multipliers) keep
    the steps well defined. Made for warm starts (the previous bundle step's
    solution with the new plane at weight 0 is feasible), where it usually needs
    one to three steps. Returns ``converged=False`` when it cannot certify the
    KKT conditions; callers then fall back to the interior point method. It stays
    one function: a step (its working set, KKT solve, ratio test) is one
    iteration of that algorithm, cheap enough that call overhead shows.

    Parameters
    ----------
    H, g, A, b, nonneg
        As in :func:`solve_qp_nonneg`.
    z0 : array-like of shape (p,)
        A feasible starting point (``A z0 = b``, ``z0 >= 0`` on ``nonneg``).
    max_iter : int or None, default=None
        Maximum active-set steps; None: ``max(100, 2 p)``. Each step adds a bound to
        the working set or releases one, so from a warm start far from the new
        solution (many balance multipliers changing) a QP with many variables needs
        more than a fixed number of steps; twice the number of variables lets every
        bound join and leave once.
    tol : float, default=1e-10
        Relative tolerance of the KKT checks.

    Returns
    -------
    result : QPResult
    """
    H, g, A, b, nn, scale = _qp_arrays(H, g, A, b, nonneg)
    r = b.size
    if max_iter is None:
        max_iter = max(100, 2 * g.size)
    delta = 1e-11 * scale
    z = np.array(z0, dtype=np.float64)
    W = nn & (z <= 1e-13)
    z[W] = 0.0
    nu = np.zeros(r)
    converged = False
    it = 0
    # The data are finite (checked above) and every step is checked by its residual,
    # so the loop needs no other finiteness test; it indexes the free set by position
    # and calls LAPACK's gesv directly (the per-step cost is mostly call overhead).
    for it in range(1, max_iter + 1):  # noqa: B007
        free = np.flatnonzero(~W)
        nF = free.size
        grad = H @ z + g
        K = np.zeros((nF + r, nF + r))
        K[:nF, :nF] = H[free[:, None], free]
        K.ravel()[: nF * (nF + r + 1) : nF + r + 1] += delta
        AF = A[:, free]
        K[:nF, nF:] = -AF.T
        K[nF:, :nF] = AF
        rhs = np.zeros(nF + r)
        rhs[:nF] = -grad[free]
        _, _, sol, info = _gesv(K, rhs)
        resid = np.abs(K @ sol - rhs).max() if info == 0 else np.inf
        if not resid <= 1e-9 * (scale + np.abs(rhs).max()):  # also catches NaN
            try:
                sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
            except np.linalg.LinAlgError:
                break  # not converged: the caller falls back to the interior point method
        pF, nu = sol[:nF], sol[nF:]
        if np.abs(pF).max(initial=0.0) <= 1e-12 * (1.0 + np.abs(z).max()):
            fixed = np.flatnonzero(W)
            lam_W = grad[fixed] - nu @ A[:, fixed]
            if lam_W.size == 0 or lam_W.min() >= -tol * scale:
                converged = True
                break
            W[fixed[np.argmin(lam_W)]] = False
            continue
        alpha = 1.0
        j = -1
        down = (pF < 0) & nn[free]
        if down.any():
            idx = free[down]
            ratios = -z[idx] / pF[down]
            k = int(np.argmin(ratios))
            if ratios[k] < 1.0:
                alpha, j = float(max(ratios[k], 0.0)), int(idx[k])
        z[free] += alpha * pF
        if j >= 0:
            z[j] = 0.0
            W[j] = True
    z[nn] = np.maximum(z[nn], 0.0)
    lam = H @ z + g - A.T @ nu
    lam[~nn] = 0.0
    value = float(0.5 * z @ H @ z + g @ z)
    if converged:  # certify: feasibility, dual feasibility, stationarity, complementarity
        kkt = H @ z + g - A.T @ nu
        ok = (
            np.abs(A @ z - b).max(initial=0.0) <= 1e-8 * max(1.0, np.abs(b).max(initial=0.0))
            and np.abs(kkt[~W]).max(initial=0.0) <= 1e-7 * scale
            and kkt[W].min(initial=0.0) >= -1e-7 * scale
        )
        converged = bool(ok)
    return QPResult(z=z, y=nu, lam=lam, value=value, n_iter=it, converged=converged)


@dataclass(frozen=True)
class BundleQPResult:
    """Minimiser of the cutting-plane model, from its dual.

    Attributes
    ----------
    beta : ndarray of shape (m,)
        Plane weights (non-negative, summing to ``C``); ``w = -A' beta``.
    t : ndarray of shape (q,)
        The offsets (mean scores) at the model minimiser.
    lower_bound : float
        Dual value = minimum of the model, a lower bound on the true minimum.
    n_iter : int
        Iterations of the QP solver.
    rest : ndarray or None
        Scaled balance multipliers ``(mu, eta) / C`` (for warm starts).
    method : str
        The solver that produced the solution.
    """

    beta: Array
    t: Array
    lower_bound: float
    n_iter: int
    rest: Array | None = None
    method: str = ""


def _balance_blocks(
    m: int,
    q: int,
    Ct: Array,
    G: Array,
    h: Array,
    E: Array,
    e: Array,
    C: float,
    Q: Array,
    o: Array,
    groups: npt.NDArray[np.intp] | None = None,
) -> tuple[Array, Array, Array, Array, Array]:
    """Assemble the dual as ``min 1/2 z'Hz + g'z, Az = b, z >= 0 on beta and mu``.

    ``groups``: the plane group of each plane (one simplex row per group; None: one).
    """
    nG, nE = G.shape[0], E.shape[0]
    groups = np.zeros(m, dtype=np.intp) if groups is None else groups
    n_groups = int(groups.max()) + 1 if m else 1
    p = m + nG + nE
    H = np.zeros((p, p))
    H[:m, :m] = Q
    g = np.concatenate([-o, h, e])
    A = np.zeros((n_groups + q, p))
    A[groups, np.arange(m)] = 1.0
    A[n_groups:, :m] = Ct.T
    A[n_groups:, m : m + nG] = G.T
    A[n_groups:, m + nG :] = E.T
    b = np.zeros(n_groups + q)
    b[:n_groups] = C
    nonneg = np.zeros(p, dtype=bool)
    nonneg[: m + nG] = True
    return H, g, A, b, nonneg


def solve_bundle_dual(
    Q: npt.ArrayLike,
    o: npt.ArrayLike,
    Ct: npt.ArrayLike,
    C: float,
    G: npt.ArrayLike,
    h: npt.ArrayLike,
    E: npt.ArrayLike,
    e: npt.ArrayLike,
    *,
    method: str = "ipm",
    tol: float = 1e-13,
    warm_start: tuple[Array, Array] | None = None,
    groups: npt.ArrayLike | None = None,
) -> BundleQPResult:
    """Minimise the model ``1/2||w||^2 + C max_j(a_j.w + c_j.t + o_j)`` on the balance set.

    With ``groups``, the risk is a sum of parts, each with its own cutting-plane
    model: ``1/2||w||^2 + C sum_g max_{j in g}(a_j.w + c_j.t + o_j)`` (a
    disaggregated bundle), and the dual has one simplex per part.

    Parameters
    ----------
    Q : array-like of shape (m, m)
        Gram matrix of the plane slopes in ``w``.
    o : array-like of shape (m,)
        Plane offsets.
    Ct : array-like of shape (m, q)
        Plane slopes in ``t``.
    C : float
        Weight of the risk.
    G, h : array-like of shape (nG, q) and (nG,)
        Inequalities ``G t <= h`` (may have zero rows).
    E, e : array-like of shape (nE, q) and (nE,)
        Equalities ``E t = e`` (may have zero rows).
    method : {"ipm", "active-set", "clarabel"}, default="ipm"
        ``"ipm"``: the built-in interior point method; ``"active-set"``: the
        built-in primal active-set method (:func:`solve_qp_active_set`) from
        ``warm_start`` (or from all weight on plane 0, which must then be the
        ``R >= 0`` plane), falling back to ``"ipm"`` when it cannot certify its
        solution; ``"clarabel"``: the optional clarabel solver
        (``pip install marginclust[qp]``).
    tol : float, default=1e-13
        Interior point tolerance (tight: at a degenerate vertex the error in
        ``beta`` is of the order of the square root of the complementarity gap).
    warm_start : tuple (alpha, rest) or None, default=None
        Feasible start for ``"active-set"``: plane weights on the simplex (shape
        (m,); summing to 1 in each group) and the scaled balance multipliers
        (:attr:`BundleQPResult.rest`).
    groups : array-like of shape (m,) or None, default=None
        The part ``0 .. n_groups - 1`` of each plane (each part needs a plane;
        None: one part). Without a warm start, the first plane of each part
        must be its ``R >= 0`` plane for ``"active-set"``.

    Returns
    -------
    result : BundleQPResult

    Raises
    ------
    FloatingPointError
        If ``Q``, ``o``, ``Ct`` or ``C`` hold NaN or infinity.
    """
    Q = np.asarray(Q, dtype=np.float64)
    o = np.asarray(o, dtype=np.float64)
    _check_finite(Q, o, Ct, np.asarray(C, dtype=np.float64))
    m = o.size
    Ct = np.asarray(Ct, dtype=np.float64).reshape(m, -1)
    q = Ct.shape[1]
    G = np.asarray(G, dtype=np.float64).reshape(-1, q)
    h = np.asarray(h, dtype=np.float64).ravel()
    E = np.asarray(E, dtype=np.float64).reshape(-1, q)
    e = np.asarray(e, dtype=np.float64).ravel()
    grp = None if groups is None else np.asarray(groups, dtype=np.intp).ravel()
    # Scale the problem so that the QP solver sees O(1) numbers: beta = C * alpha.
    H, g, A, b, nonneg = _balance_blocks(m, q, Ct, G, h, E, e, 1.0, C * Q, o, grp)
    z, y, n_iter, used = _solve_dual_qp(
        method, (H, g, A, b, nonneg), tol=tol, warm_start=warm_start, groups=grp
    )
    alpha = np.maximum(z[:m], 0.0)
    if grp is None:
        alpha /= alpha.sum()
    else:  # each part's weights on its simplex
        alpha /= np.bincount(grp, weights=alpha)[grp]
    beta = C * alpha
    # Dual value in the original scale: C * (-1/2 C a'Qa + o'a - h'mu' - e'eta') where
    # (mu', eta') = (mu, eta) / C; the multipliers of the t-rows are t itself.
    t = y[A.shape[0] - q :].copy()
    rest = z[m:]
    lower = C * float(-0.5 * C * alpha @ Q @ alpha + o @ alpha - np.concatenate([h, e]) @ rest)
    return BundleQPResult(
        beta=beta, t=t, lower_bound=lower, n_iter=int(n_iter), rest=rest.copy(), method=used
    )


def _solve_dual_qp(
    method: str,
    qp: tuple[Array, Array, Array, Array, Array],
    *,
    tol: float,
    warm_start: tuple[Array, Array] | None,
    groups: npt.NDArray[np.intp] | None,
) -> tuple[Array, Array, int, str]:
    """The bundle dual ``qp = (H, g, A, b, nonneg)`` by ``method``: ``(z, y, n_iter, used)``.

    The active-set method starts from ``warm_start`` (or all weight on the first
    plane of each group) and falls back to the interior point method when it
    cannot certify its solution; ``used`` names the method that solved it.
    """
    H, g, A, b, nonneg = qp
    used = method
    if method == "active-set":
        if warm_start is None:
            z0 = np.zeros(H.shape[0])
            if groups is None:
                z0[0] = 1.0
            else:  # the first plane of each group
                firsts = np.unique(groups, return_index=True)[1]
                z0[firsts] = 1.0
        else:
            z0 = np.concatenate(
                [np.asarray(warm_start[0], float), np.asarray(warm_start[1], float)]
            )
        res = solve_qp_active_set(H, g, A, b, nonneg, z0)
        z, y, n_iter = res.z, res.y, res.n_iter
        if not res.converged:
            res = solve_qp_nonneg(H, g, A, b, nonneg, tol=tol)
            z, y, n_iter, used = res.z, res.y, n_iter + res.n_iter, "ipm"
    elif method == "ipm":
        res = solve_qp_nonneg(H, g, A, b, nonneg, tol=tol)
        z, y, n_iter = res.z, res.y, res.n_iter
    elif method == "clarabel":
        z, y, n_iter = _clarabel_solve(H, g, A, b, nonneg, tol)
    else:
        raise ValueError(f"method must be 'ipm', 'active-set' or 'clarabel'; got {method!r}.")
    return z, y, n_iter, used


def _clarabel_solve(
    H: Array, g: Array, A: Array, b: Array, nonneg: Array, tol: float
) -> tuple[Array, Array, int]:
    try:
        import clarabel
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "qp='clarabel' needs the optional clarabel package: pip install 'marginclust[qp]', "
            "or use qp='ipm' (the built-in solver)."
        ) from exc
    import scipy.sparse as sp

    p = g.size
    idx = np.flatnonzero(nonneg)
    # clarabel: A_c x + s = b_c, s in cones. Equalities: zero cone; z_i >= 0: -z_i + s = 0.
    S = sp.csr_matrix((-np.ones(idx.size), (np.arange(idx.size), idx)), shape=(idx.size, p))
    A_c = sp.vstack([sp.csr_matrix(A), S]).tocsc()
    b_c = np.concatenate([b, np.zeros(idx.size)])
    cones = [clarabel.ZeroConeT(b.size), clarabel.NonnegativeConeT(idx.size)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = max(tol, 1e-12)
    solver = clarabel.DefaultSolver(sp.csc_matrix(np.triu(H)), g, A_c, b_c, cones, settings)
    sol = solver.solve()
    z = np.asarray(sol.x, dtype=np.float64)
    # clarabel's duals satisfy H z + g + A_c' y = 0; ours read H z + g - A' y - lam = 0.
    y = -np.asarray(sol.z, dtype=np.float64)[: b.size]
    return z, y, int(sol.iterations)

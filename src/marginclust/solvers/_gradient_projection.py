"""Active-set gradient projection on products of simplices (Rosen's method, PKM paper §3).

The feasible set is ``{P : P >= 0, P 1 = 1}`` (one probability simplex per row).
The active matrix ``N`` of Rosen's method holds the n equality rows and the unit
rows of the active inequalities ``p_ij = 0``. Since every constraint touches a
single row of P, ``N N^T`` and the projection ``Pr = I - N^T (N N^T)^-1 N`` are
block diagonal, one block per row: with free set ``F_i`` (entries not held at
zero), the projected gradient of row i is ``g_ij - mean_{F_i} g`` on ``F_i`` and
0 elsewhere, and when it vanishes the multipliers ``q = (N N^T)^-1 N g`` are
``lambda_i = mean_{F_i} g`` (equality) and ``mu_ij = g_ij - lambda_i`` (active
inequality ``p_ij >= 0``; KKT needs ``mu_ij >= 0``). So a projection costs
O(n K) instead of the dense O((nK)^3); the dense literal version lives in the
tests (``tests/_oracles/pkm_dense.py``) and both give the same iterates.

Methods
-------
``"agp"``
    Rosen's active gradient projection with a fixed step ``t`` (capped by the
    largest feasible step so the iterate stays feasible). When the projected
    gradient vanishes, the single most negative multiplier is released.
``"msagp"``
    As AGP, with the step equal to the largest feasible step (safe because the
    objective is concave). From a point with all ``p_ij > 0`` each step zeroes
    one entry, so it takes ``n (K - 1)`` steps plus one per released
    constraint, and each step needs an O(n K d) gradient: O(n^2 K^2 d) overall.
``"fmsagp"``
    MSAGP's iterates, with the projection (here: the free sets) updated
    incrementally when constraints become active -- the block form of the
    paper's rank-one Lemma -- instead of being rebuilt from P.
``"block"`` (our extension)
    Each row takes its own maximal step along its projected gradient, and every
    row whose projected gradient vanishes releases its most violated
    constraint at the same time. The stacked step ``S`` (row i scaled by its
    own step ``t_i``) satisfies ``<g, S> = -sum_i t_i ||Pr_i g_i||^2 < 0`` (or
    ``-t_i (g_ia - g_ij)^2 / 2`` for a released row), so it is a feasible descent
    direction; J is concave, so ``J(P + s S)`` decreases on the whole segment
    ``s in [0, 1]`` and the full step never increases J. Once the rows are hard,
    an iteration moves every point to its nearest centre: Lloyd's K-means step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..exceptions import EmptyClusterError
from ._base import requires
from ._result import SolverResult

__all__ = ["METHODS", "active_gradient_projection"]

METHODS = ("block", "fmsagp", "msagp", "agp")

# Rows per chunk of the block variant's pass. Not the library's BLOCK_ROWS: the
# centre sums of a pass are accumulated chunk by chunk, so another chunk size would
# regroup them (other rounding, other iterates); and a chunk's working set is about
# ten K x chunk arrays, which half a row block keeps in cache.
BLOCK_CHUNK_ROWS = 4096

# Entries at or below this value after a step are set to exactly zero (their
# constraint becomes active) and every row is renormalised to sum to one. The dense oracle in the
# tests uses the same rule.
SNAP = 1e-13

Array = npt.NDArray[np.float64]


def _direction(G: Array, free: npt.NDArray[np.bool_]) -> tuple[Array, Array]:
    """Row-block projected negative gradient and the row means of G over the free sets."""
    cnt = free.sum(axis=1)
    lam = np.where(free, G, 0.0).sum(axis=1) / np.maximum(cnt, 1)
    D = np.where(free, lam[:, None] - G, 0.0)
    return D, lam


def _snap(P: Array) -> npt.NDArray[np.bool_]:
    """Zero the entries ``<= SNAP``, renormalise every row; return the mask of zeros."""
    hit = P <= SNAP
    P[hit] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    return hit


def _hard_accumulate(
    Xr: Array, sqr: Array, lab: npt.NDArray[np.intp], k: int
) -> tuple[Array, Array, Array]:
    onehot = np.zeros((k, lab.shape[0]))
    onehot[lab, np.arange(lab.shape[0])] = 1.0
    return (
        onehot @ Xr,
        np.bincount(lab, minlength=k).astype(np.float64),
        np.bincount(lab, weights=sqr, minlength=k).astype(np.float64),
    )


def _objective_from_sums(S: Array, m: Array, a: Array) -> float:
    """``J = sum_ij p_ij ||x_i||^2 - sum_j ||S_j||^2 / m_j`` with ``S = P^T X``, ``m = P^T 1``."""
    if np.any(m <= 1e-300):
        empty = np.flatnonzero(m <= 1e-300).tolist()
        raise EmptyClusterError(
            f"Cluster(s) {empty} lost all membership; their centres are undefined."
        )
    return max(float(a.sum() - np.sum(np.einsum("kd,kd->k", S, S) / m)), 0.0)


def _chunk_gradient(C: Array, cc: Array, Xr: Array, sqr: Array) -> Array:
    """The gradient of a chunk (K x c, transposed) at the centres ``C`` (``cc = ||C||^2``)."""
    G = C @ Xr.T
    G *= -2.0
    G += sqr[None, :]
    G += cc[:, None]
    np.maximum(G, 0.0, out=G)
    return G


def _hard_chunk(
    G: Array, lab: npt.NDArray[np.intp], thr: float, apply: bool, worst: float
) -> tuple[int, int, float]:
    """A Lloyd step on a chunk of labels (changed in place when ``apply``).

    Returns the samples that move, those moved, and ``worst`` raised to the
    chunk's largest gain of a move.
    """
    rr = np.arange(G.shape[1])
    jmin = np.argmin(G, axis=0)
    gap = G[jmin, rr] - G[lab, rr]
    move = gap < -thr
    worst = max(worst, float(-gap.min()))
    nm = int(np.count_nonzero(move))
    released = 0
    if apply and nm:
        lab[move] = jmin[move]
        released = nm
    return nm, released, worst


def _soft_chunk(
    G: Array, Pc: Array, thr: float, apply: bool, worst: float
) -> tuple[int, int, float]:
    """Release and maximal projected step of each sample of a chunk (``Pc``, K x c).

    ``Pc`` changes in place when ``apply``. Returns the samples that move or
    release, the releases made, and ``worst`` raised to the chunk's largest KKT
    violation.
    """
    rr = np.arange(G.shape[1])
    free = Pc > 0
    lam = (G * free).sum(axis=0) / free.sum(axis=0)
    D = lam[None, :] - G
    D *= free
    absmax = np.abs(D).max(axis=0)
    moving = absmax > thr
    all_moving = bool(moving.all())
    worst = max(worst, float(absmax.max()))
    if all_moving:
        rel = np.zeros(G.shape[1], dtype=bool)
    else:
        mu = np.where(free | moving[None, :], np.inf, G - lam[None, :])
        jmin = np.argmin(mu, axis=0)
        mumin = mu[jmin, rr]
        rel = mumin < -thr
        worst = max(worst, float(-min(mumin.min(), 0.0)))
    nm = int(np.count_nonzero(moving) + np.count_nonzero(rel))
    released = 0
    if apply and nm:
        ri = np.flatnonzero(rel)
        if ri.size:
            free[jmin[ri], ri] = True
            released = int(ri.size)
            fr, Gr = free[:, ri], G[:, ri]
            lr = (Gr * fr).sum(axis=0) / fr.sum(axis=0)
            D[:, ri] = np.where(fr, lr[None, :] - Gr, 0.0)
            moving |= rel
        if not all_moving:
            D[:, ~moving] = 0.0
        # Largest feasible step of each sample: min over D_ij < 0 of P_ij / -D_ij.
        neg = D < 0
        R = np.where(neg, Pc / np.where(neg, D, -1.0), -np.inf)
        t = R.max(axis=0)
        np.negative(t, out=t)
        if not all_moving:
            t[~moving] = 0.0
        D *= t[None, :]
        Pc += D
        Pc *= Pc > SNAP
        Pc /= Pc.sum(axis=0)[None, :]
    return nm, released, worst


def _block(
    objective: Any,
    P: Array,
    thr: float,
    max_iter: int,
    callback: Callable[[int, float], bool | None] | None,
    lloyd_fast_path: bool,
    chunk_rows: int,
) -> tuple[Array, float, float, list[float], int, int, bool, float, bool]:
    """The block variant, one pass over row chunks per iteration (cache-friendly).

    Memberships are held transposed (K x n) so that the per-sample reductions over
    clusters run along the short axis of contiguous arrays. Each pass computes the
    gradient of a chunk from the current centres, moves its samples, and accumulates
    ``P^T X``, ``P^T 1`` and ``P^T ||x||^2`` of the new P, from which the next centres
    and the new J follow without another pass.
    """
    Xc, sq = objective.Xc, objective.sq_norms
    n, k = P.shape
    Pt = np.ascontiguousarray(P.T)
    bounds = [(lo, min(lo + chunk_rows, n)) for lo in range(0, n, chunk_rows)]
    S, m, a = Pt @ Xc, Pt.sum(axis=1), Pt @ sq
    J = J0 = _objective_from_sums(S, m, a)
    hard = lloyd_fast_path and bool(np.all(Pt.max(axis=0) == 1.0))
    labels = np.argmax(Pt, axis=0) if hard else np.empty(0, dtype=np.intp)
    history: list[float] = []
    n_iter = n_released = 0
    converged = emptied = False
    stop_crit = float("nan")
    while True:
        C = S / m[:, None]
        cc = np.einsum("kd,kd->k", C, C)
        apply = n_iter < max_iter
        S_new, m_new, a_new = np.zeros_like(S), np.zeros(k), np.zeros(k)
        n_moved = 0
        worst = 0.0
        for lo, hi in bounds:
            Xr, sqr = Xc[lo:hi], sq[lo:hi]
            G = _chunk_gradient(C, cc, Xr, sqr)
            if hard:
                lab = labels[lo:hi]
                nm, released, worst = _hard_chunk(G, lab, thr, apply, worst)
                n_moved += nm
                n_released += released
                Sr, mr, ar = _hard_accumulate(Xr, sqr, lab, k)
                S_new += Sr
                m_new += mr
                a_new += ar
                continue
            Pc = Pt[:, lo:hi]
            nm, released, worst = _soft_chunk(G, Pc, thr, apply, worst)
            n_moved += nm
            n_released += released
            S_new += Pc @ Xr
            m_new += Pc.sum(axis=1)
            a_new += Pc @ sqr
        if n_moved == 0:
            converged = True
            stop_crit = worst
            break
        if not apply:
            stop_crit = worst
            break
        if np.any(m_new <= 1e-300):
            # a cluster lost all membership: its centre is undefined. Stop here with
            # the current memberships; the caller may harden them and re-seed it.
            emptied = True
            stop_crit = worst
            break
        n_iter += 1
        S, m, a = S_new, m_new, a_new
        J = _objective_from_sums(S, m, a)
        history.append(J)
        if callback is not None and callback(n_iter, J):
            break
        if not hard and lloyd_fast_path and bool(np.all(Pt.max(axis=0) == 1.0)):
            # Every row is hard: from here each iteration moves every point whose nearest
            # centre is better by more than thr to it (release + maximal step), i.e. a
            # Lloyd step. Continue on integer labels: the same iterates, less work.
            hard = True
            labels = np.argmax(Pt, axis=0)
    if hard:
        P = np.zeros((n, k))
        P[np.arange(n), labels] = 1.0
    else:
        P = np.ascontiguousarray(Pt.T)
    return P, J, J0, history, n_iter, n_released, converged, stop_crit, emptied


def _faithful(
    objective: Any,
    P: Array,
    method: str,
    step: float,
    thr: float,
    max_iter: int,
    callback: Callable[[int, float], bool | None] | None,
) -> tuple[Array, float, float, list[float], int, int, bool, float]:
    """AGP / MSAGP / FMSAGP: one global step, one released constraint at a time."""
    J, G = objective.value_and_grad(P)
    J0 = J
    free = P > 0
    history: list[float] = []
    n_released = n_iter = 0
    converged = False
    stop_crit = float("nan")
    while True:
        D, lam = _direction(G, free)
        if np.abs(D).max() <= thr:
            mu = np.where(free, np.inf, G - lam[:, None])
            flat = int(np.argmin(mu))
            stop_crit = float(-min(mu.flat[flat], 0.0))
            if mu.flat[flat] >= -thr:
                converged = True
                break
            if n_iter >= max_iter:
                break
            free.flat[flat] = True
            n_released += 1
            D, lam = _direction(G, free)
        elif n_iter >= max_iter:
            stop_crit = float(np.abs(D).max())
            break
        neg = D < 0
        if not neg.any():  # pragma: no cover - a non-zero direction always has one
            break
        t_max = float(np.min(P[neg] / -D[neg]))
        t = t_max if method != "agp" else min(step, t_max)
        P += t * D
        hit = _snap(P)
        if method == "fmsagp":
            free &= ~hit  # incremental update of the active set (block form of the Lemma)
        else:
            free = P > 0
        n_iter += 1
        J, G = objective.value_and_grad(P)
        history.append(J)
        if callback is not None and callback(n_iter, J):
            break
    return P, J, J0, history, n_iter, n_released, converged, stop_crit


@requires("value_and_grad", arg="objective")
def active_gradient_projection(
    objective: Any,
    P0: npt.ArrayLike,
    *,
    method: str = "block",
    step: float = 0.01,
    tol: float = 1e-9,
    max_iter: int = 300,
    callback: Callable[[int, float], bool | None] | None = None,
    lloyd_fast_path: bool = True,
    chunk_rows: int = BLOCK_CHUNK_ROWS,
) -> SolverResult:
    """Minimise a concave objective over a product of simplices by gradient projection.

    Parameters
    ----------
    objective : object
        Provides ``value_and_grad(P) -> (float, ndarray)`` and a positive
        ``scale`` attribute (the unit of ``tol``), e.g.
        :class:`~marginclust.objectives._pkm.PKMObjective`.
    P0 : array-like of shape (n_samples, n_clusters)
        Feasible start (non-negative rows summing to one).
    method : {"block", "fmsagp", "msagp", "agp"}, default="block"
        Which variant (see the module docstring).
    step : float, default=0.01
        Fixed step of ``"agp"`` (ignored otherwise).
    tol : float, default=1e-9
        A projected gradient entry or multiplier counts as zero when its size is
        at most ``tol * objective.scale``.
    max_iter : int, default=300
        Maximum number of steps.
    callback : callable, default=None
        ``callback(iteration, objective_value)``; returning True stops.
    lloyd_fast_path : bool, default=True
        For ``"block"``: once every row is hard, continue on integer labels
        (centres by ``objective.hard_centers`` in O(n d)); the iterates are the
        same as those of the general code path.
    chunk_rows : int, default=BLOCK_CHUNK_ROWS
        For ``"block"``: rows per chunk of the single pass per iteration. The
        block variant needs ``objective.Xc`` (centred data) and
        ``objective.sq_norms`` besides ``scale``.

    Returns
    -------
    result : SolverResult
        ``x`` is the final P; ``info`` has ``n_released`` (constraints released),
        ``objective_initial``, ``method`` and ``emptied`` (``"block"`` only: a
        cluster lost all membership and the run stopped there, not converged).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    P = np.array(P0, dtype=np.float64, copy=True)
    thr = float(tol) * float(getattr(objective, "scale", 1.0))
    if method == "block":
        P, J, J0, history, n_iter, n_released, converged, stop_crit, emptied = _block(
            objective, P, thr, max_iter, callback, lloyd_fast_path, int(chunk_rows)
        )
    else:
        emptied = False
        P, J, J0, history, n_iter, n_released, converged, stop_crit = _faithful(
            objective, P, method, float(step), thr, max_iter, callback
        )
    message = ""
    if emptied:
        message = "A cluster lost all membership (its centre is undefined)."
    elif not converged:
        # generic: the estimator words its own advice in its parameters
        message = (
            f"Gradient projection ({method}) stopped after max_iter={max_iter} steps before "
            "reaching a KKT point."
        )
    return SolverResult(
        x=P,
        objective=float(J),
        objective_history=np.asarray(history, dtype=np.float64),
        n_iter=n_iter,
        converged=converged,
        stop_crit=stop_crit,
        message=message,
        info={
            "n_released": n_released,
            "objective_initial": float(J0),
            "method": method,
            "emptied": emptied,
        },
    )


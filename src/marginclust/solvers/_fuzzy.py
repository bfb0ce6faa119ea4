"""Alternating minimisation of (kernel) fuzzy c-means, one chunked pass over X per iteration.

At centres ``V_t`` one pass over row blocks of X computes, per block and in the
dtype of X: the squared distances (one BLAS product), for the kernel variant
``D = 2 (1 - k)`` with ``k = exp(-gamma D2)``, the optimal memberships ``U_t``
(:func:`~marginclust.objectives._fcm.memberships_from_distances`, with the
closed-form per-sample cost), the largest membership change against ``U_{t-1}``
(the convergence measure), and the sums of the next centre step: ``W^T X`` and
``W^T 1`` with ``W = w u^m`` (FCM) or ``W = w u^m k`` (kernel FCM, the
majorise-minimise step). So ``V_{t+1}`` follows without another pass. The
iterates are those of the textbook alternation ``V -> U -> V``; the objective
recorded after each pass is ``J(U_t, V_t)``, which neither step can increase.

Memberships are held as a K x n array (clusters along the short axis of each
block). A cluster whose weights all underflow (every ``u^m`` or kernel factor
below the float range) has its centre recomputed in log space from the stored
memberships (:func:`~marginclust.objectives._fcm.log_weighted_means`), one extra
pass, only then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..objectives._fcm import (
    log_weighted_means,
    membership_floor,
    memberships_from_distances,
    memberships_into,
    safe_log,
)
from ._blocks import BlockRunner
from ._lloyd import chunk_rows_for
from ._result import SolverResult

__all__ = ["fuzzy_alternation"]

Array = npt.NDArray[np.floating]


def _block_distances(
    Xb: Array, xsq: Array, V2: Array, vsq: Array, gamma: float | None
) -> tuple[Array, Array | None]:
    """K x c distances of a block (kernel distances and kernel values with ``gamma``).

    ``V2`` is ``-2 V`` (the factor folded into the product). Squared distances are
    not clipped at 0 here: a rounding-negative value sends the block to the safe
    membership path, which clips.
    """
    D2 = V2 @ Xb.T
    D2 += xsq[None, :]
    D2 += vsq[:, None]
    if gamma is None:
        return D2, None
    np.maximum(D2, 0.0, out=D2)
    E = np.multiply(D2, -gamma)
    D = np.expm1(E)
    D *= -2.0
    np.exp(E, out=E)
    return D, E


def fuzzy_alternation(
    X: Array,
    sample_weight: Array,
    m: float,
    *,
    centres: Array | None = None,
    memberships: Array | None = None,
    gamma: float | None = None,
    tol: float = 1e-4,
    max_iter: int = 300,
    chunk_rows: int | None = None,
    callback: Callable[[int, float], bool | None] | None = None,
    n_threads: int | None = None,
) -> SolverResult:
    """(Kernel) fuzzy c-means by alternating exact steps, one pass over X per iteration.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense data, float64 or float32 (kept). Centre it first for accuracy.
    sample_weight : ndarray of shape (n_samples,)
        Non-negative weights, dtype of X.
    m : float
        Fuzzifier > 1.
    centres : ndarray of shape (n_clusters, n_features), default=None
        Starting centres; or give ``memberships``.
    memberships : ndarray of shape (n_samples, n_clusters), default=None
        Starting memberships; the first centres are their FCM weighted means.
    gamma : float, default=None
        ``None``: Euclidean FCM. A float: RBF kernel FCM with centres in data
        space, ``k(x, v) = exp(-gamma ||x - v||^2)``.
    tol : float, default=1e-4
        Stop when the largest membership change between two passes is at most ``tol``.
    max_iter : int, default=300
        Maximum number of centre steps.
    chunk_rows : int, default=None
        Rows per block (None: at least 8192, or about 512 KiB of X).
    callback : callable, default=None
        ``callback(iteration, objective)``; True stops.
    n_threads : int, default=None
        Threads sharing the row blocks, BLAS held to one thread meanwhile (None: the
        current BLAS limit); see :class:`~marginclust.solvers._blocks.BlockRunner`.

    Returns
    -------
    result : SolverResult
        ``x`` is ``(memberships n x K, centres K x d)`` in the dtype of X.
    """
    n, d = X.shape
    dt = X.dtype
    w = sample_weight.astype(dt, copy=False)
    if chunk_rows is None:
        # per-block work is on K x c arrays: larger blocks than Lloyd's amortise the calls
        chunk_rows = max(8192, chunk_rows_for(d, dt.itemsize))
    xsq = np.einsum("ij,ij->i", X, X)
    if memberships is not None:
        # the first centre step from the given memberships (FCM: their weighted means;
        # kernel FCM: one majorise-minimise step from those means), then passes as below
        Ut = np.ascontiguousarray(np.asarray(memberships, dtype=dt).T)
        k = Ut.shape[0]
        V0 = _log_space_centres(X, xsq, Ut, w, m, np.zeros((k, d), dtype=dt), None)
        V = V0 if gamma is None else _log_space_centres(X, xsq, Ut, w, m, V0, gamma)
        n_iter, first = 1, False
    else:
        V = np.array(centres, dtype=dt)
        k = V.shape[0]
        Ut = np.empty((k, n), dtype=dt)
        n_iter, first = 0, True
    # two membership buffers used in turn: the new memberships are written next to the
    # old ones (no copy), the change is measured between them
    U_next = np.empty_like(Ut)
    unweighted = bool(np.all(w == 1))
    floor = membership_floor(dt, k, m)
    history: list[float] = []
    converged = False
    shift = float("inf")
    step = chunk_rows

    def work(
        V2: Array, vsq: Array, first: bool, lo0: int, hi0: int
    ) -> tuple[Array, Array, float, float]:
        """One pass over rows [lo0, hi0): memberships into U_next, partial sums."""
        S = np.zeros((k, d))
        tot = np.zeros(k)
        J = 0.0
        shift = 0.0
        for lo in range(lo0, hi0, step):
            hi = min(lo + step, hi0)
            D, Kb = _block_distances(X[lo:hi], xsq[lo:hi], V2, vsq, gamma)
            U = U_next[:, lo:hi]
            fast = memberships_into(D, m, U, floor)
            if fast is None:  # zero / tiny distances: the shifted, overflow-free path
                np.maximum(D, 0.0, out=D)
                U_safe, cost = memberships_from_distances(
                    D, m, return_cost=True, transposed=True
                )
                U[...] = U_safe
            else:
                cost = fast
            J += float(cost.sum()) if unweighted else float(np.dot(cost, w[lo:hi]))
            if not first:
                np.subtract(Ut[:, lo:hi], U, out=D)
                shift = max(shift, float(D.max()), -float(D.min()))
            # weights of the next centre step
            if m == 2.0:
                W = np.multiply(U, U, out=D)
            else:
                W = np.power(U, m, out=D)
            if Kb is not None:
                W *= Kb
            if not unweighted:
                W *= w[lo:hi][None, :]
            S += W @ X[lo:hi]
            tot += W.sum(axis=1, dtype=np.float64)
        return S, tot, J, shift

    runner = BlockRunner(n, n_threads)
    runner.__enter__()
    try:
        while True:
            vsq = np.einsum("kd,kd->k", V, V)
            V2 = V * dt.type(-2.0)
            parts = runner.map(functools.partial(work, V2, vsq, first))
            S = sum((p[0] for p in parts), np.zeros((k, d)))
            tot = sum((p[1] for p in parts), np.zeros(k))
            J = float(sum(p[2] for p in parts))
            shift = max(p[3] for p in parts)
            Ut, U_next = U_next, Ut
            if not first:
                history.append(J)
                if shift <= tol:
                    converged = True
                    break
                if callback is not None and callback(n_iter, J):
                    break
            if n_iter >= max_iter:
                break
            first = False
            n_iter += 1
            ok = tot > np.finfo(dt).tiny * 1e10
            V_new = (S / np.where(ok, tot, 1.0)[:, None]).astype(dt)
            if not ok.all():
                bad = np.flatnonzero(~ok)
                V_new[bad] = _log_space_centres(X, xsq, Ut[bad], w, m, V[bad], gamma)
            V = V_new
    finally:
        runner.__exit__(None, None, None)
    hist = np.asarray(history, dtype=np.float64)
    return SolverResult(
        x=(np.ascontiguousarray(Ut.T), V),
        objective=float(hist[-1]) if hist.size else float(J),
        objective_history=hist,
        n_iter=n_iter,
        converged=converged,
        stop_crit=shift,
        message=""
        if converged
        else f"Fuzzy c-means stopped at max_iter={max_iter} with a membership change of "
        f"{shift:.3g} > tol={tol}; increase max_iter or tol.",
    )


def _log_space_centres(
    X: Array, xsq: Array, Ut: Array, w: Array, m: float, V: Array, gamma: float | None
) -> Array:
    """Centres of clusters whose weights underflow, from log-weights (one extra pass)."""
    logW = safe_log(w)[None, :] + m * safe_log(Ut)
    if gamma is not None:
        vsq = np.einsum("kd,kd->k", V, V)
        D2 = V @ X.T
        D2 *= -2.0
        D2 += xsq[None, :]
        D2 += vsq[:, None]
        np.maximum(D2, 0.0, out=D2)
        logW = logW - gamma * D2
    return log_weighted_means(X, logW, V, transposed=True)

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
from scipy.linalg.blas import idamax as _idamax
from scipy.linalg.blas import isamax as _isamax

from ..objectives._fcm import (
    log_weighted_means,
    membership_floor,
    memberships_from_distances,
    memberships_into,
    safe_log,
)
from ._blocks import BlockRunner
from ._result import SolverResult

__all__ = ["BlockScratch", "block_rows", "fcm_block", "fuzzy_alternation"]

Array = npt.NDArray[np.floating]


# Bytes of the working set of one block (its rows of X, the two scratch arrays, the new
# and the previous memberships): a few MiB stays in the L2/L3 caches while making
# blocks long enough that the ~25 NumPy calls per block cost little.
_BLOCK_BYTES = 1 << 22


def block_rows(n: int, k: int, d: int, itemsize: int) -> int:
    """Rows per block: about ``_BLOCK_BYTES`` of working set, blocks of equal size."""
    rows = int(min(32768, max(2048, _BLOCK_BYTES // ((d + 4 * k) * itemsize))))
    n_blocks = max(1, -(-n // rows))
    return max(1, -(-n // n_blocks))


def _amax(x: Array) -> int:
    """Index of the largest ``|x_i|`` of a contiguous vector (BLAS ``i?amax``, one pass)."""
    if x.dtype == np.float32:
        return int(_isamax(x))
    return int(_idamax(x))


class BlockScratch:
    """Two K x c work arrays and a vector of ones, reused by every block of a pass.

    One per thread (``rows`` = the block size); a shorter last block uses views.
    """

    __slots__ = ("A", "B", "ones")

    def __init__(self, k: int, rows: int, dtype: npt.DTypeLike) -> None:
        self.A = np.empty((k, rows), dtype=dtype)
        self.B = np.empty((k, rows), dtype=dtype)
        self.ones = np.ones(rows, dtype=dtype)


def fcm_block(
    Xb: Array,
    xsq: Array,
    wb: Array | None,
    V2: Array,
    vsq: Array,
    m: float,
    gamma: float | None,
    floor: float,
    out: Array,
    previous: Array | None,
    scratch: BlockScratch,
) -> tuple[Array, Array, float, float]:
    """One block of a (kernel) FCM pass: memberships, change, cost and centre sums.

    Everything over the K x c block happens in the dtype of X, in place, on
    cache-sized arrays: the distances (one BLAS product, ``V2 = -2 V`` folded in),
    the memberships written into ``out``, the largest change against ``previous``,
    and the weights ``W = w u^m`` (times the kernel values for kernel FCM) of the
    next centre step, whose sums ``W X`` and ``W 1`` are two more BLAS products.
    ``u^m`` needs no power over the block: on the fast path
    ``u_ik^m = u_ik * cost_i / D_ik`` (``cost_i = sum_k u_ik^m D_ik``), and
    ``u * u`` for ``m = 2``.

    Parameters
    ----------
    Xb : ndarray of shape (c, n_features)
        Rows of the block.
    xsq : ndarray of shape (c,)
        Their squared norms.
    wb : ndarray of shape (c,) or None
        Their sample weights (None: all ones).
    V2 : ndarray of shape (n_clusters, n_features)
        ``-2`` times the centres.
    vsq : ndarray of shape (n_clusters,)
        Squared norms of the centres.
    m : float
        Fuzzifier > 1.
    gamma : float or None
        RBF kernel parameter (None: Euclidean FCM).
    floor : float
        :func:`~marginclust.objectives._fcm.membership_floor` for this dtype, K, m.
    out : ndarray of shape (n_clusters, c)
        Receives the memberships (a view of the K x n membership array).
    previous : ndarray of shape (n_clusters, c) or None
        Memberships of the previous pass (None: no change is measured).
    scratch : BlockScratch
        Work arrays with at least ``c`` columns.

    Returns
    -------
    S : ndarray of shape (n_clusters, n_features)
        ``W Xb``, dtype of X.
    tot : ndarray of shape (n_clusters,)
        ``W 1``, dtype of X.
    J : float
        ``sum_i w_i sum_k u_ik^m D_ik`` over the block (float64 sum).
    shift : float
        ``max |out - previous|`` (0 without ``previous``).
    """
    c = Xb.shape[0]
    A = scratch.A[:, :c]
    B = scratch.B[:, :c]
    D = np.matmul(V2, Xb.T, out=A)
    D += xsq[None, :]
    D += vsq[:, None]
    Kb = None
    if gamma is not None:  # kernel distances 2 (1 - k) and kernel values k, in B
        np.maximum(D, 0.0, out=D)
        np.multiply(D, -gamma, out=B)
        np.expm1(B, out=D)
        D *= -2.0
        np.exp(B, out=B)
        Kb = B
    cost = memberships_into(D, m, out, floor)
    fast = cost is not None
    if cost is None:  # zero / tiny distances: the shifted, overflow-free path
        np.maximum(D, 0.0, out=D)
        U_safe, cost64 = memberships_from_distances(  # type: ignore[misc]
            D, m, return_cost=True, transposed=True
        )
        out[...] = U_safe
        cost = cost64
    # per-block sum in the dtype of X (pairwise), blocks added in float64
    J = float(cost.sum()) if wb is None else float(np.dot(cost, wb))
    shift = 0.0
    if previous is not None:  # largest |change|: a difference and one BLAS i?amax pass
        E = np.subtract(previous, out, out=B if Kb is None else np.empty_like(B))
        flat = E.reshape(-1)
        shift = abs(float(flat[_amax(flat)]))
    # W = w u^m (k): the weights of the next centre step, in A (the distances are done)
    if m == 2.0:
        W = np.multiply(out, out, out=A)
        if wb is not None:
            W *= wb[None, :]
    elif fast:
        W = np.divide(out, D, out=A)
        W *= (cost if wb is None else cost * wb)[None, :]
    else:
        W = np.power(out, m, out=A)
        if wb is not None:
            W *= wb[None, :]
    if Kb is not None:
        W *= Kb
    return W @ Xb, W @ scratch.ones[:c], J, shift


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
        Rows per block (None: :func:`block_rows`, about 4 MiB of working set).
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
    k0 = len(memberships[0]) if memberships is not None else len(centres)  # type: ignore[arg-type]
    if chunk_rows is None:
        chunk_rows = block_rows(n, k0, d, dt.itemsize)
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

    wts = None if unweighted else w
    scratches: dict[int, BlockScratch] = {}  # one per thread's row range, kept across passes

    def work(V2: Array, vsq: Array, first: bool, lo0: int, hi0: int):  # type: ignore[no-untyped-def]
        """One pass over rows [lo0, hi0): memberships into U_next, partial sums."""
        scratch = scratches.get(lo0)
        if scratch is None:
            scratch = scratches[lo0] = BlockScratch(k, min(step, hi0 - lo0), dt)
        S = np.zeros((k, d))
        tot = np.zeros(k)
        J = 0.0
        shift = 0.0
        for lo in range(lo0, hi0, step):
            hi = min(lo + step, hi0)
            Sb, tb, Jb, sb = fcm_block(
                X[lo:hi],
                xsq[lo:hi],
                None if wts is None else wts[lo:hi],
                V2,
                vsq,
                m,
                gamma,
                floor,
                U_next[:, lo:hi],
                None if first else Ut[:, lo:hi],
                scratch,
            )
            S += Sb
            tot += tb
            J += Jb
            shift = max(shift, sb)
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

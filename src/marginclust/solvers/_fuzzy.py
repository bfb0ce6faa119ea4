"""Alternating minimisation of (kernel) fuzzy c-means, one chunked pass over X per iteration.

At centres ``V_t`` one pass over row blocks of X computes, per block and in the
dtype of X: the squared distances (one BLAS product), for the kernel variant
``D = 2 (1 - k)`` with ``k = exp(-gamma D2)``, the optimal memberships ``U_t``
(the model's update, with the closed-form per-sample cost), the largest
membership change against ``U_{t-1}``
(the convergence measure; once one block's change exceeds ``tol`` the pass cannot
converge, so the later blocks that the same process runs skip it, except on the
last pass ``max_iter`` allows), and the sums of the next centre step: ``W^T X`` and
``W^T 1`` with ``W = w u^m`` (FCM) or ``W = w u^m k`` (kernel FCM, the
majorise-minimise step). So ``V_{t+1}`` follows without another pass. The
iterates are those of the textbook alternation ``V -> U -> V``; the objective
recorded after each pass is ``J(U_t, V_t)``, which neither step can increase.

Every pass runs through a row-block backend
(:class:`~marginclust.utils._blocks.RowBlocks` in memory, shared among threads on
large data; the dask backend out of core): each block keeps its memberships
(K x c, clusters along the short axis) in its state beside the data, so the
in-memory and the out-of-core fits are the same computation. A cluster whose
weights all underflow (every ``u^m`` or kernel factor
below the float range) has its centre recomputed in log space from the stored
memberships (the model's log-space centres), one extra pass, only then (in
memory; out of core the fit stops with advice).

The model enters through the problem object the caller hands in (a
:class:`FuzzyModel`, e.g. :class:`marginclust.objectives._fcm.FuzzyProblem`):
its fuzzifier, membership update and log-space centres.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from scipy.linalg.blas import idamax as _idamax
from scipy.linalg.blas import isamax as _isamax

from ..utils._blocks import RowBlockBackend, RowBlocks, out_of_core
from ._base import requires
from ._result import SolverResult

__all__ = [
    "BlockScratch",
    "FuzzyModel",
    "fcm_block",
    "fcm_chunk_rows",
    "fcm_iterations",
    "fuzzy_alternation",
    "reduce_fcm_partials",
]

Array = npt.NDArray[np.floating]


class FuzzyModel(Protocol):
    """What the fuzzy solvers need of the model.

    :class:`marginclust.objectives._fcm.FuzzyProblem` is one.
    """

    @property
    def m(self) -> float:
        """The fuzzifier ``m > 1``."""
        ...

    def floor(self, dtype: npt.DTypeLike, n_clusters: int) -> float:
        """Smallest distance the fast membership update handles without overflow."""
        ...

    def memberships_into(self, D: Array, out: Array, floor: float) -> Array | None:
        """Memberships of a K x c block into ``out``; the cost, or None (use the safe path)."""
        ...

    def memberships(self, D: Array) -> tuple[Array, Array]:
        """Overflow-free memberships of a K x c block and the per-sample cost."""
        ...

    def log_centres(
        self, X: Array, Ut: Array, w: Array, V: Array, log_kernel: Array | None = None
    ) -> Array:
        """Centres of weights ``w u^m`` (times ``exp(log_kernel)``) in log space."""
        ...


# Bytes of the working set of one block (its rows of X, the two scratch arrays, the new
# and the previous memberships): about 3 MiB keeps a block in the L2/L3 caches while
# making blocks long enough that the ~25 NumPy calls per block cost little. Measured
# (1 thread, CPU time of 11 passes, interleaved, shared machine at load ~5): 1e6 x 10,
# K = 5, float32 26214-row blocks 256-269 ms vs 13107-row 270-277 ms; float64 13107-row
# 416-433 ms vs 6536-row 431-443 ms; 20000 x 10 float64, 100 passes: 2 blocks of 10000
# rows 71-77 ms vs 4 blocks of 5000 rows 74-80 ms (was 1.5 MiB: 13107 / 6536 / 5000).
_BLOCK_BYTES = 3 << 20


def fcm_chunk_rows(
    n_features: int, itemsize: int, n_clusters: int = 2, n_samples: int | None = None
) -> int:
    """Rows per block of the FCM pass: about ``_BLOCK_BYTES`` of working set per block.

    The working set of a block is its rows of X and four K x c arrays (two scratch
    arrays, the new and the previous memberships). With ``n_samples`` the blocks
    are of equal size (the last one is not a short remainder).
    """
    per_row = (n_features + 4 * n_clusters) * itemsize
    rows = int(min(32768, max(2048, _BLOCK_BYTES // max(1, per_row))))
    if n_samples is None:
        return rows
    n_blocks = max(1, -(-n_samples // rows))
    return max(1, -(-n_samples // n_blocks))


def _amax(x: Array) -> int:
    """Index of the largest ``|x_i|`` of a contiguous vector (BLAS ``i?amax``, one pass)."""
    if x.dtype == np.float32:
        return int(_isamax(x))
    return int(_idamax(x))


class BlockScratch:
    """Two K x c work arrays and a vector of ones, reused by every block of a pass.

    One per thread (``rows`` = the block size); a shorter block uses views.
    """

    __slots__ = ("A", "B", "ones")

    def __init__(self, k: int, rows: int, dtype: npt.DTypeLike) -> None:
        self.A = np.empty((k, rows), dtype=dtype)
        self.B = np.empty((k, rows), dtype=dtype)
        self.ones = np.ones(rows, dtype=dtype)


def _memberships(
    Xb: Array,
    xsq_b: Array,
    V2: Array,
    vsq: Array,
    problem: FuzzyModel,
    gamma: float | None,
    floor: float,
    U: Array,
    scratch: BlockScratch,
) -> tuple[Array, Array, Array | None, bool]:
    """Distances (into ``scratch.A``), kernel values (``scratch.B``), memberships into ``U``.

    Returns ``(cost, D, Kb, fast)``; ``fast`` says the unshifted membership formula
    applied (no distance at or below the overflow floor), so ``D > 0`` everywhere.
    Squared distances are not clipped at 0 before it: a rounding-negative value
    sends the block to the safe path, which clips.
    """
    c = Xb.shape[0]
    A = scratch.A if scratch.A.shape[1] == c else scratch.A[:, :c]
    D = np.matmul(V2, Xb.T, out=A)
    D += xsq_b
    D += vsq[:, None]
    Kb = None
    if gamma is not None:  # kernel distances 2 (1 - k) and kernel values k
        B = scratch.B[:, :c]
        np.maximum(D, 0.0, out=D)
        np.multiply(D, -gamma, out=B)
        np.expm1(B, out=D)
        D *= -2.0
        np.exp(B, out=B)
        Kb = B
    cost = problem.memberships_into(D, U, floor)
    if cost is not None:
        return cost, D, Kb, True
    # zero / tiny distances: the shifted, overflow-free path
    np.maximum(D, 0.0, out=D)
    U_safe, cost64 = problem.memberships(D)
    U[...] = U_safe
    return cost64, D, Kb, False


def fcm_block(
    Xb: Array,
    xsq_b: Array,
    wb: Array | None,
    V2: Array,
    vsq: Array,
    problem: FuzzyModel,
    gamma: float | None,
    floor: float,
    U: Array,
    U_prev: Array | None,
    *,
    scratch: BlockScratch | None = None,
    with_counts: bool = True,
) -> tuple[Array, Array, float, float, npt.NDArray[np.intp] | None]:
    """One FCM pass over a block: the block function shared by every execution path.

    Writes the block's memberships at the centres ``V = -V2 / 2`` into ``U``
    (K x c) and returns the block's partials ``(S, tot, J, shift, counts)``:
    centre sums ``W^T X_b`` and weights ``W^T 1`` (dtype of X; the reduction adds
    them in float64), the objective (float64 sum), the largest membership change
    against ``U_prev`` over the rows of positive weight (0 when None: the caller
    does not need it) and the sizes of
    the block's crisp clusters (argmax of the memberships; None unless
    ``with_counts``). ``wb`` None means unit weights.

    Everything over the K x c block happens in the dtype of X, in place, on the
    cache-sized arrays of ``scratch`` (allocated if None): the distances (one BLAS
    product, ``V2 = -2 V`` folded in), the memberships, the largest change (a
    difference and one BLAS ``i?amax`` pass), and the weights ``W = w u^m``
    (times the kernel values for kernel FCM) of the next centre step, whose sums
    are two more BLAS products. ``u^m`` needs no power over the block: on the fast
    path ``u_ik^m = u_ik * cost_i / D_ik`` (``cost_i = sum_k u_ik^m D_ik``), and
    ``u * u`` for ``m = 2``.
    """
    c = Xb.shape[0]
    if scratch is None:
        scratch = BlockScratch(V2.shape[0], c, Xb.dtype)
    cost, D, Kb, fast = _memberships(Xb, xsq_b, V2, vsq, problem, gamma, floor, U, scratch)
    m = problem.m
    # per-block sum in the dtype of X (pairwise), blocks added in float64
    J = float(cost.sum()) if wb is None else float(np.dot(cost, wb))
    shift = 0.0
    if U_prev is not None:
        E = np.subtract(U_prev, U, out=scratch.B[:, :c] if Kb is None else np.empty_like(U))
        if wb is not None:
            # a row of weight 0 is out of the objective (as a removed row): its change
            # does not count, so the stop is that of the fit on repeated rows
            absent = wb == 0
            if absent.any():
                E[:, absent] = 0
        flat = E.reshape(-1)
        shift = abs(float(flat[_amax(flat)]))
    counts = np.bincount(U.argmax(axis=0), minlength=U.shape[0]) if with_counts else None
    # W = w u^m (k): the weights of the next centre step, over the distances
    if m == 2.0:
        W = np.multiply(U, U, out=D)
        if wb is not None:
            W *= wb
    elif fast:
        W = np.divide(U, D, out=D)
        W *= cost if wb is None else cost * wb
    else:
        W = np.power(U, m, out=D)
        if wb is not None:
            W *= wb
    if Kb is not None:
        W *= Kb
    ones = scratch.ones if scratch.ones.shape[0] == c else scratch.ones[:c]
    return W @ Xb, W @ ones, J, shift, counts


FCMPartial = tuple[Array, Array, float, float, npt.NDArray[np.intp] | None]


def reduce_fcm_partials(
    parts: Iterable[FCMPartial], k: int, d: int
) -> tuple[Array, Array, float, float, npt.NDArray[np.intp] | None]:
    """Sum the block partials of a pass in block order (the one reduction of every path).

    ``counts`` is None when the blocks did not count (the in-memory path).
    """
    S = np.zeros((k, d))
    tot = np.zeros(k)
    J = 0.0
    shift = 0.0
    counts: npt.NDArray[np.intp] | None = np.zeros(k, dtype=np.intp)
    for Sb, tb, Jb, sb, cb in parts:
        S += Sb
        tot += tb
        J += Jb
        if sb > shift:
            shift = sb
        if cb is None or counts is None:
            counts = None
        else:
            counts += cb
    return S, tot, J, shift, counts


class FCMRun:
    """Outcome of :func:`fcm_iterations`: final centres, history and stopping state."""

    def __init__(
        self,
        V: Array,
        history: list[float],
        n_iter: int,
        converged: bool,
        shift: float,
        J: float,
        counts: npt.NDArray[np.intp] | None,
    ) -> None:
        self.V = V
        self.history = history
        self.n_iter = n_iter
        self.converged = converged
        self.shift = shift
        self.J = J
        self.counts = counts


def fcm_iterations(
    run_pass: Callable[..., list[FCMPartial]],
    V: Array,
    *,
    tol: float,
    max_iter: int,
    first: bool,
    n_iter: int,
    callback: Callable[[int, float], bool | None] | None = None,
    underflow: Callable[[npt.NDArray[np.intp], Array], Array] | None = None,
    partial_shift: bool = False,
) -> FCMRun:
    """The alternation ``V -> U -> V`` given a pass function (in-memory or dask).

    ``run_pass(V2, vsq, first)`` runs :func:`fcm_block` over every block of X at
    the centres ``V`` (``V2 = -2 V``, ``vsq = ||v||^2``) and returns the block
    partials in block order; ``first`` says that there are no previous
    memberships to compare with. ``underflow(bad, V_bad)`` gives the centres of
    the clusters ``bad`` whose weights all underflow (None: refuse).

    With ``partial_shift=True`` the pass is called as
    ``run_pass(V2, vsq, first, exact)``: unless ``exact``, the pass may stop
    measuring the membership change once a block's change exceeds ``tol`` (the
    stopping decision is then already known: not converged), so the shift it
    returns is only a lower bound above ``tol``. ``exact`` is set on the last
    pass ``max_iter`` allows and whenever a ``callback`` may stop the loop, so
    the reported final shift is always the largest change itself.

    """
    k, d = V.shape
    dt = V.dtype
    history: list[float] = []
    converged = False
    tiny = float(np.finfo(dt).tiny) * 1e10
    minus2 = dt.type(-2.0)
    while True:
        vsq = np.einsum("kd,kd->k", V, V)
        V2 = V * minus2
        if partial_shift:
            exact = callback is not None or n_iter >= max_iter
            parts = run_pass(V2, vsq, first, exact)
        else:
            parts = run_pass(V2, vsq, first)
        S, tot, J, shift, counts = reduce_fcm_partials(parts, k, d)
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
        if tot.min() > tiny:  # the common case: every cluster has weight
            V = (S / tot[:, None]).astype(dt)
            continue
        ok = tot > tiny
        V_new = (S / np.where(ok, tot, 1.0)[:, None]).astype(dt)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            if underflow is None:
                raise ValueError(
                    f"The weights of cluster(s) {bad.tolist()} underflow (memberships ** m "
                    "below the float range). Standardise the features or lower m."
                )
            V_new[bad] = underflow(bad, V[bad])
        V = V_new
    return FCMRun(V, history, n_iter, converged, shift, J, counts)


def _scratch(k: int, rows: int, dtype: npt.DTypeLike) -> BlockScratch:
    """This thread's work arrays for blocks of up to ``rows`` rows (kept across passes)."""
    cache = _SCRATCH.__dict__.setdefault("arrays", {})
    key = (k, np.dtype(dtype).str)
    scratch = cache.get(key)
    if scratch is None or scratch.A.shape[1] < rows:
        scratch = cache[key] = BlockScratch(k, rows, dtype)
    return scratch


_SCRATCH = threading.local()


class _SkipAfter:
    """Shared by the blocks of one pass that one process runs: once a block's membership
    change exceeds ``tol`` the pass cannot converge, so later blocks skip measuring it."""

    __slots__ = ("tol", "tripped")

    def __init__(self, tol: float) -> None:
        self.tol = tol
        self.tripped = False


def _fcm_pass(Xb: Array, state: dict[str, Any] | None, *rest: Any) -> tuple[dict[str, Any], Any]:
    """One FCM pass over a block, the block's memberships kept in its state.

    The state holds the block's ``||x||^2``, weights, memberships (K x c) and a
    spare array the next memberships are written into (the two swap each
    pass: no allocation after the first). ``rest`` is ``([w_b,] V2, vsq,
    problem, gamma, floor, skip)``; the weights come with the first pass only;
    ``skip`` (a :class:`_SkipAfter` or None) may spare the change measure.
    """
    if state is None:
        wb = None
        if len(rest) == 7:
            wb, rest = np.asarray(rest[0]).ravel(), rest[1:]
        Xb = np.asarray(Xb)
        k = rest[0].shape[0]
        state = {
            "xsq": np.einsum("ij,ij->i", Xb, Xb),
            "w": wb,
            "U": None,
            "spare": np.empty((k, Xb.shape[0]), dtype=Xb.dtype),
        }
    V2, vsq, problem, gamma, floor, skip = rest
    Xb = np.asarray(Xb)
    U_prev, U = state["U"], state["spare"]
    measure = U_prev is not None and (skip is None or not skip.tripped)
    part = fcm_block(
        Xb, state["xsq"], state["w"], V2, vsq, problem, gamma, floor, U,
        U_prev if measure else None,
        scratch=_scratch(V2.shape[0], Xb.shape[0], Xb.dtype), with_counts=False,
    )
    if skip is not None and part[3] > skip.tol:
        skip.tripped = True
    new_state = dict(state)
    new_state["U"] = U
    new_state["spare"] = U_prev if U_prev is not None else np.empty_like(U)
    return new_state, part


def _state_sizes(state: dict[str, Any], k: int) -> npt.NDArray[np.intp]:
    """Sizes of the block's crisp clusters (argmax of its memberships)."""
    return np.bincount(state["U"].argmax(axis=0), minlength=k)


def _state_memberships(state: dict[str, Any]) -> Array:
    return np.ascontiguousarray(state["U"].T)


@requires("floor", "memberships_into", "memberships", "log_centres")
def fuzzy_alternation(
    X: Any,
    sample_weight: Array | None,
    problem: FuzzyModel,
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
    X : ndarray of shape (n_samples, n_features) or row-block backend
        Dense data, float64 or float32 (kept). Centre it first for accuracy. A
        row-block backend (:class:`~marginclust.utils._blocks.RowBlocks`, or the
        dask one) runs every pass through its block methods.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights, dtype of X (a dask array with the row chunks of an
        out-of-core X); None: unit weights.
    problem : FuzzyModel
        The model at its fuzzifier ``m > 1``
        (:class:`~marginclust.objectives._fcm.FuzzyProblem`).
    centres : ndarray of shape (n_clusters, n_features), default=None
        Starting centres; or give ``memberships``.
    memberships : ndarray of shape (n_samples, n_clusters), default=None
        Starting memberships (in-memory X only); the first centres are their
        FCM weighted means.
    gamma : float, default=None
        ``None``: Euclidean FCM. A float: RBF kernel FCM with centres in data
        space, ``k(x, v) = exp(-gamma ||x - v||^2)``.
    tol : float, default=1e-4
        Stop when the largest membership change between two passes is at most ``tol``.
    max_iter : int, default=300
        Maximum number of centre steps.
    chunk_rows : int, default=None
        Rows per block of an in-memory X (None: :func:`fcm_chunk_rows`, about
        3 MiB of working set); a backend keeps its blocks.
    callback : callable, default=None
        ``callback(iteration, objective)``; True stops.
    n_threads : int, default=None
        Threads sharing the row blocks, BLAS held to one thread meanwhile (None: the
        current BLAS limit); see :class:`~marginclust.utils._blocks.BlockRunner`.
        The block partials are reduced in block order whatever the thread count.

    Returns
    -------
    result : SolverResult
        ``x`` is ``(memberships n x K, centres K x d)`` in the dtype of X (the
        memberships lazy for an out-of-core X); ``info["cluster_sizes"]`` holds
        the sizes of the crisp clusters of the last memberships.
    """
    n, d = X.shape
    dt = np.dtype(X.dtype)
    k = len(memberships[0]) if memberships is not None else len(centres)  # type: ignore[arg-type]
    rows, w = _blocks_and_weights(X, sample_weight, k, chunk_rows, n_threads)
    floor = problem.floor(dt, k)
    states: list[Any] | None = None
    if memberships is not None:
        V, states = _start_from_memberships(rows, w, memberships, problem, gamma, k, dt)
        n_iter, first = 1, False
    else:
        V = np.array(centres, dtype=dt)
        n_iter, first = 0, True
    held: dict[str, Any] = {"states": states}

    def run_pass(V2: Array, vsq: Array, first: bool, exact: bool) -> list[FCMPartial]:
        extra = (w,) if held["states"] is None and w is not None else ()
        skip = None if exact else _SkipAfter(tol)
        held["states"], parts = rows.states(
            _fcm_pass, held["states"], V2, vsq, problem, gamma, floor, skip, extra=extra
        )
        return parts

    underflow = None
    if not out_of_core(rows):  # the log-space rescue reads every row at once

        def underflow(bad: npt.NDArray[np.intp], V_bad: Array) -> Array:
            Xa = rows.X
            Ut = np.concatenate([s["U"] for s in held["states"]], axis=1)
            w_all = np.ones(n, dtype=dt) if w is None else w
            xsq = np.einsum("ij,ij->i", Xa, Xa)
            return _log_space_centres(Xa, xsq, Ut[bad], w_all, problem, V_bad, gamma)

    with rows.threaded():
        run = fcm_iterations(
            run_pass, V, tol=tol, max_iter=max_iter, first=first, n_iter=n_iter,
            callback=callback, underflow=underflow, partial_shift=True,
        )
    return _fuzzy_result(rows, held["states"], run, k, dt, tol=tol, max_iter=max_iter)


def _blocks_and_weights(
    X: Any, sample_weight: Array | None, k: int, chunk_rows: int | None, n_threads: int | None
) -> tuple[Any, Array | None]:
    """The row blocks of ``X`` (a backend keeps its own) and the weights in X's dtype
    (None for unit weights)."""
    n, d = X.shape
    dt = np.dtype(X.dtype)
    if not isinstance(X, RowBlockBackend):
        X = np.asarray(X)
        if chunk_rows is None:
            chunk_rows = fcm_chunk_rows(d, dt.itemsize, k, n)
        rows: Any = RowBlocks(X, chunk_rows, n_threads)
    else:
        rows = X
    w = sample_weight
    if w is not None and isinstance(w, np.ndarray):
        w = w.astype(dt, copy=False)
        if bool(np.all(w == 1)):
            w = None
    return rows, w


def _start_from_memberships(
    rows: Any, w: Array | None, memberships: Any, problem: FuzzyModel, gamma: float | None,
    k: int, dt: np.dtype[Any],
) -> tuple[Array, list[dict[str, Any]]]:
    """The first centre step from given memberships (FCM: their weighted means; kernel
    FCM: one majorise-minimise step from those means) and the block states holding them.
    """
    Xa = rows.X
    n = Xa.shape[0]
    xsq = np.einsum("ij,ij->i", Xa, Xa)
    Ut = np.ascontiguousarray(np.asarray(memberships, dtype=dt).T)
    w_all = np.ones(n, dtype=dt) if w is None else w
    V0 = _membership_centres(Xa, xsq, Ut, w_all, problem, unit=w is None)
    V = V0 if gamma is None else _log_space_centres(Xa, xsq, Ut, w_all, problem, V0, gamma)
    states = [
        {"xsq": xsq[sl], "w": None if w is None else w[sl],
         "U": np.ascontiguousarray(Ut[:, sl]), "spare": np.empty((k, sl.stop - sl.start), dt)}
        for sl in rows.slices
    ]
    return V, states


def _fuzzy_result(
    rows: Any, final: Any, run: FCMRun, k: int, dt: np.dtype[Any], *, tol: float, max_iter: int
) -> SolverResult:
    """The memberships and centres of the last pass, the crisp cluster sizes, the history."""
    sizes = np.sum(rows.from_states(_state_sizes, final, k), axis=0).astype(np.intp)
    U = rows.gather_states(_state_memberships, final, dtype=dt, tail=(k,))
    hist = np.asarray(run.history, dtype=np.float64)
    converged, shift = run.converged, run.shift
    return SolverResult(
        x=(U, run.V),
        objective=float(hist[-1]) if hist.size else float(run.J),
        objective_history=hist,
        n_iter=run.n_iter,
        converged=converged,
        stop_crit=shift,
        message=""
        if converged
        else f"Fuzzy c-means stopped at max_iter={max_iter} with a membership change of "
        f"{shift:.3g} > tol={tol}; increase max_iter or tol.",
        info={"cluster_sizes": sizes},
    )


def _membership_centres(
    X: Array, xsq: Array, Ut: Array, w: Array, problem: FuzzyModel, *, unit: bool = False
) -> Array:
    """FCM centres of given memberships ``Ut`` (K x n): means weighted by ``w u^m``.

    Each cluster's memberships are divided by their maximum before the power (the
    scale cancels, and the largest weight is ``w`` there), so this needs no
    logarithms; only a cluster whose weights still underflow is recomputed in log
    space. A cluster with no positive weight gets the centre 0 (the frame's mean).
    ``unit`` says that every weight is 1.
    """
    d = X.shape[1]
    m = problem.m
    top = Ut.max(axis=1)
    W = Ut / np.where(top > 0, top, 1.0).astype(Ut.dtype)[:, None]
    if m == 2.0:
        W *= W
    else:
        np.power(W, m, out=W)
    if not unit:
        W *= w
    tot = W.sum(axis=1)
    ok = tot > np.finfo(W.dtype).tiny * 1e10
    V = ((W @ X) / np.where(ok, tot, 1.0)[:, None]).astype(X.dtype, copy=False)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        V[bad] = _log_space_centres(
            X, xsq, Ut[bad], w, problem, np.zeros((bad.size, d), X.dtype), None
        )
    return V


def _log_space_centres(
    X: Array, xsq: Array, Ut: Array, w: Array, problem: FuzzyModel, V: Array,
    gamma: float | None,
) -> Array:
    """Centres of clusters whose weights underflow, from log-weights (one extra pass)."""
    log_kernel = None
    if gamma is not None:
        vsq = np.einsum("kd,kd->k", V, V)
        D2 = V @ X.T
        D2 *= -2.0
        D2 += xsq[None, :]
        D2 += vsq[:, None]
        np.maximum(D2, 0.0, out=D2)
        log_kernel = -gamma * D2
    return problem.log_centres(X, Ut, w, V, log_kernel)

"""Fuzzy c-means on a dask array: the in-memory solver's block function, mapped over blocks.

Each iteration is one graph execution: every row block runs
:func:`marginclust.solvers._fuzzy.fcm_block` at the current centres (the
function the in-memory solver runs on its blocks) and returns its partials,
``K x d`` centre sums, ``K`` weights, the objective, the largest membership
change and ``K`` cluster sizes; the client reduces them in block order with
:func:`~marginclust.solvers._fuzzy.reduce_fcm_partials` and takes the centre
step in :func:`~marginclust.solvers._fuzzy.fcm_iterations`, the loop of the
in-memory solver. Memberships are not kept between passes: the previous ones,
needed for the convergence measure, are recomputed in the block from the
previous centres (the same function on the same numbers, so the same values),
which keeps the graph stateless at the price of a second distance product.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

from ..estimators._fcm import FuzzyCMeans
from ..objectives._fcm import FuzzyProblem
from ..solvers import SolverResult
from ..solvers._fuzzy import fcm_block, fcm_block_memberships, fcm_iterations
from ..utils import check_sample_weight_form, check_sample_weight_values, initial_point
from ..utils._frame import Frame
from . import _ops
from ._clusterer import check_fit_data, register
from ._frame import dask_frame

__all__ = ["fit_fcm"]

Array = npt.NDArray[np.floating]


def _block(
    Zb: Array,
    *rest: Any,
) -> tuple[Any, ...]:
    """One block of a dask FCM pass: previous memberships recomputed, then ``fcm_block``."""
    if len(rest) == 8:
        wb, V2, vsq, prev, problem, gamma, floor, _ = rest
        wb = np.asarray(wb).ravel()
    else:
        V2, vsq, prev, problem, gamma, floor, _ = rest
        wb = None
    k, c = V2.shape[0], Zb.shape[0]
    xsq = np.einsum("ij,ij->i", Zb, Zb)
    U_prev = None
    if prev is not None:
        U_prev = np.empty((k, c), dtype=Zb.dtype)
        fcm_block_memberships(Zb, xsq, prev[0], prev[1], problem, gamma, floor, U_prev)
    U = np.empty((k, c), dtype=Zb.dtype)
    return fcm_block(Zb, xsq, wb, V2, vsq, problem, gamma, floor, U, U_prev)


def _memberships_block(
    Zb: Array, V2: Array, vsq: Array, problem: FuzzyProblem, gamma: float | None, floor: float
) -> Array:
    """Memberships (c x K) of a block at the final centres, as the in-memory fit stores them."""
    xsq = np.einsum("ij,ij->i", Zb, Zb)
    U = np.empty((V2.shape[0], Zb.shape[0]), dtype=Zb.dtype)
    fcm_block_memberships(Zb, xsq, V2, vsq, problem, gamma, floor, U)
    return np.ascontiguousarray(U.T)


def _fit_one(
    est: FuzzyCMeans, context: dict[str, Any], random_state: np.random.RandomState
) -> SolverResult:
    frame: Frame = context["frame"]
    Z: da.Array = frame.Z  # type: ignore[assignment]
    w: da.Array | None = context["sample_weight"]
    k, problem, gamma = est._n_clusters, FuzzyProblem(est._m), context["gamma"]
    dt = Z.dtype
    init = context["init"]
    if isinstance(init, str):
        src = Z if w is None else da.concatenate([Z, w.astype(dt)[:, None]], axis=1)
        rows, _ = _ops.sample_rows(src, _ops.init_sample_size(k), random_state)
        Zs = rows if w is None else rows[:, :-1]
        ws = np.ones(rows.shape[0], dtype=dt) if w is None else rows[:, -1]
        centres, _ = initial_point(init, np.ascontiguousarray(Zs), k, ws, random_state)
    else:
        centres = np.asarray(init, dtype=dt)
    assert centres is not None
    floor = problem.floor(dt, k)
    extra = [] if w is None else [w]
    state: dict[str, Any] = {"prev": None}

    def run_pass(V2: Array, vsq: Array, first: bool) -> list[Any]:
        prev = None if first else state["prev"]
        parts = _ops.block_partials(
            Z, _block, V2, vsq, prev, problem, gamma, floor, None, extra_blocks=extra
        )
        state["prev"] = (V2, vsq)
        return parts

    run = fcm_iterations(
        run_pass,
        np.array(centres, dtype=dt),
        tol=float(est.tol),
        max_iter=int(est.max_iter),
        first=True,
        n_iter=0,
        callback=est._iteration_callback(),
    )
    V = run.V
    V2, vsq = state["prev"]
    U = Z.map_blocks(
        _memberships_block,  # type: ignore[arg-type]
        V2,
        vsq,
        problem,
        gamma,
        floor,
        dtype=dt,
        chunks=(Z.chunks[0], (k,)),
    )
    hist = np.asarray(run.history, dtype=np.float64)
    res = SolverResult(
        x=(U, V),
        objective=float(hist[-1]) if hist.size else float(run.J),
        objective_history=hist,
        n_iter=run.n_iter,
        converged=run.converged,
        stop_crit=run.shift,
        message=""
        if run.converged
        else f"Fuzzy c-means stopped at max_iter={est.max_iter} with a membership change of "
        f"{run.shift:.3g} > tol={est.tol}; increase max_iter or tol.",
        info={"cluster_sizes": run.counts},
    )
    out = est._restart_result(res, context)
    # labels blockwise from the memberships (a picklable graph, no cross-block reduction)
    out.x["labels_"] = U.map_blocks(_argmax_rows, dtype=np.intp, drop_axis=1)
    return out


def _argmax_rows(U: Array) -> npt.NDArray[np.intp]:
    return np.asarray(U.argmax(axis=1), dtype=np.intp)


@register(FuzzyCMeans)
def fit_fcm(est: FuzzyCMeans, X: da.Array, sample_weight: Any = None) -> dict[str, da.Array]:
    """Fit ``est`` (FuzzyCMeans) on the dask array X; return the lazy labels and memberships.

    ``init`` may be a string or centres of shape (n_clusters, n_features);
    initial memberships (one row per sample) are refused. ``sample_weight`` is
    None, a number or a 1-D dask array (rechunked to X's row chunks).
    """
    check_fit_data(est, X)
    if not isinstance(est.init, str) and np.shape(est.init) != (est._n_clusters, X.shape[1]):
        raise ValueError(
            "On a dask array, init must be 'k-means++', 'random' or centres of shape "
            f"(n_clusters, n_features) = ({est._n_clusters}, {X.shape[1]}); initial "
            "memberships would be an n_samples x n_clusters array in memory."
        )
    w = _check_weight(sample_weight, X)
    frame, unit = dask_frame(X, w)
    if unit:
        w = None  # unit weights: the in-memory solver's unweighted path
    context = est._context(frame, w)
    est._fit_restarts(context, fit_one=lambda ctx, rs: _fit_one(est, ctx, rs))
    return {"labels_": est.labels_, "memberships_": est.memberships_}


def _check_weight(sample_weight: Any, X: da.Array) -> da.Array | None:
    if sample_weight is None:
        return None
    n = X.shape[0]
    if np.isscalar(sample_weight):
        value = float(sample_weight)  # type: ignore[arg-type]
        check_sample_weight_values(bool(np.isfinite(value) and value >= 0), value > 0)
        return da.full(n, value, dtype=X.dtype, chunks=(X.chunks[0],))
    w = sample_weight if isinstance(sample_weight, da.Array) else da.asarray(sample_weight)
    check_sample_weight_form(w, n)
    return w.astype(X.dtype).rechunk((X.chunks[0],))

"""PKM (default solver) on a dask array: Lloyd passes by the in-memory block function.

PKM's default solver from a hard start is Lloyd's K-means with a move threshold
(:mod:`marginclust.solvers._lloyd`). Its per-row state, the labels, stays beside
the data: each pass maps :func:`~marginclust.solvers._lloyd.lloyd_block` (the
function the in-memory solver runs on its blocks) over the row blocks, keeping
the new labels where they were computed (on the workers under ``distributed``)
and bringing back only the partials, ``K x d`` changes of the centre sums and
``K`` counts per block; :func:`~marginclust.solvers._lloyd.lloyd_iterations`,
the in-memory loop, reduces them in block order. An emptied cluster is
re-seeded as in memory from the farthest points of each block
(:func:`~marginclust.solvers._lloyd.relocation_candidates`), one extra pass.

Only the default solver from a hard start (``init="k-means++"`` or centres) is
supported; the faithful solvers and the soft starts need all memberships in
memory.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

import dask

from ..estimators._pkm import PKM
from ..solvers import SolverResult
from ..solvers._lloyd import (
    lloyd_block,
    lloyd_iterations,
    lloyd_result,
    plan_relocation,
    relocation_candidates,
)
from ..utils._frame import Frame
from . import _ops
from ._clusterer import check_fit_data, register
from ._frame import dask_frame

__all__ = ["fit_pkm"]


def _pass_block(
    Zb: Any,
    lab: Any,
    lohi: tuple[int, int],
    M: npt.NDArray,
    cc: npt.NDArray,
    first: bool,
    thr: float,
    moves: dict[int, int],
) -> tuple[Any, Any]:
    """A Lloyd pass over one block: pending relocations applied, then ``lloyd_block``."""
    lab_b = np.full(Zb.shape[0], -1, dtype=np.intp) if lab is None else lab.copy()
    _apply(lab_b, moves, lohi)
    return lab_b, lloyd_block(Zb, lab_b, M, cc, first, thr)


def _apply(lab_b: npt.NDArray[np.intp], moves: dict[int, int], lohi: tuple[int, int]) -> None:
    lo, hi = lohi
    for i, j in moves.items():
        if lo <= i < hi:
            lab_b[i - lo] = j


def _candidates_block(
    Zb: Any, lab: Any, C: npt.NDArray, m: npt.NDArray, n_take: int
) -> tuple[Any, Any]:
    return lab, relocation_candidates(Zb, lab, C, m, n_take)


def _moves_block(
    Zb: Any, lab: Any, lohi: tuple[int, int], moves: dict[int, int]
) -> tuple[Any, None]:
    lab_b = lab.copy()
    _apply(lab_b, moves, lohi)
    return lab_b, None


def _one_hot(lab: npt.NDArray[np.intp], k: int, dtype: Any) -> npt.NDArray:
    P = np.zeros((lab.shape[0], k), dtype=dtype)
    P[np.arange(lab.shape[0]), lab] = 1.0
    return P


def _state_array(states: list[Any], chunks: tuple[int, ...]) -> da.Array:
    """The per-block label states (arrays or futures) as one lazy dask array."""
    parts = []
    for s, c in zip(states, chunks):
        if isinstance(s, np.ndarray):
            parts.append(da.from_array(s, chunks=(c,)))
        else:
            parts.append(da.from_delayed(dask.delayed(s), shape=(c,), dtype=np.intp))
    return da.concatenate(parts)


def _fit_one(
    est: PKM, context: dict[str, Any], random_state: np.random.RandomState
) -> SolverResult:
    frame: Frame = context["frame"]
    Z: da.Array = frame.Z  # type: ignore[assignment]
    n, d = Z.shape
    k = est._n_clusters
    init = est._init
    if isinstance(init, str):  # "k-means++" (soft starts were refused)
        rows, _ = _ops.sample_rows(Z, _ops.init_sample_size(k), random_state)
        sample = Frame(Z=rows, mean=frame.mean, scale=frame.scale, sq_total=0.0)
        C0 = est._seeds(sample, random_state)
    else:
        C0 = frame.centers_to_frame(init[1])
    off = _ops.block_offsets(Z)
    state: dict[str, Any] = {"labels": None, "moves": {}}

    def run_pass(M: npt.NDArray, cc: npt.NDArray, first: bool) -> list[Any]:
        moves, state["moves"] = state["moves"], {}
        labels, parts = _ops.block_states(
            Z, _pass_block, state["labels"], M, cc, first, context["thr"], moves,
            with_offsets=True,
        )
        state["labels"] = labels
        return parts

    def relocate(S: npt.NDArray, m: npt.NDArray) -> int:
        n_take = int(np.count_nonzero(m <= 0)) + k
        C = S / np.maximum(m, 1.0)[:, None]
        labels, cands = _ops.block_states(Z, _candidates_block, state["labels"], C, m, n_take)
        state["labels"] = labels
        moves = plan_relocation(cands, off[:-1], S, m)
        state["moves"].update(dict(moves))
        return len(moves)

    run = lloyd_iterations(
        run_pass,
        relocate,
        C=np.asarray(C0, dtype=np.float64),
        S=np.zeros((k, d)),
        m=np.zeros(k),
        first=True,
        dtype=Z.dtype,
        total_sq=frame.sq_total,
        max_iter=est._max_iter,
        callback=est._callback(),
    )
    if state["moves"]:  # relocations no pass has applied yet (a callback stopped)
        labels, _ = _ops.block_states(
            Z, _moves_block, state["labels"], state["moves"], with_offsets=True
        )
        state["labels"] = labels
    sizes = np.asarray(run["m"], dtype=np.intp)
    lab = _state_array(state["labels"], Z.chunks[0])
    P = lab.map_blocks(
        _one_hot,  # type: ignore[arg-type]
        k,
        Z.dtype,
        dtype=Z.dtype,
        new_axis=1,
        chunks=(Z.chunks[0], (k,)),
    )
    res = lloyd_result(run, lab, est._max_iter)
    out = est._lloyd_result(res, frame, P)
    return SolverResult(**{**vars(out), "info": {**out.info, "cluster_sizes": sizes}})


@register(PKM)
def fit_pkm(est: PKM, X: da.Array) -> dict[str, da.Array]:
    """Fit ``est`` (PKM, default solver, hard start) on the dask array X.

    Returns the lazy ``labels_`` and ``memberships_`` (one-hot rows of the labels).
    """
    check_fit_data(est, X)
    what = est.init if isinstance(est.init, str) else "an array of memberships"
    if not est._lloyd_path() or (not isinstance(est._init, str) and est._init[0] != "centres"):
        raise ValueError(
            "On a dask array PKM runs its default solver='block' from a hard start: "
            "init='k-means++' or centres of shape (n_clusters, n_features); got "
            f"solver={est.solver!r}, init={what!r}. The faithful solvers and soft starts "
            "need every membership in memory."
        )
    frame, _ = dask_frame(X)
    context = est._context(frame)
    est._fit_restarts(context, fit_one=lambda ctx, rs: _fit_one(est, ctx, rs))
    return {"labels_": est.labels_, "memberships_": est.memberships_}

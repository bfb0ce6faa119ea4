"""Helpers shared by the model fitters of :mod:`marginclust.dask` (EMMC, SLMC)."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

from ..utils._blocks import BLOCK_ROWS, column_sum_block, row_slices
from ._ops import block_partials

__all__ = ["ShapeProxy", "column_stats", "sub_blocks"]


def sub_blocks(n: int) -> list[slice]:
    """The in-memory passes' row blocks inside one dask chunk of ``n`` rows.

    A chunk is cut into ``BLOCK_ROWS`` (8192) rows, as the in-memory solvers
    cut X; the sub-blocks' partials are summed inside the chunk (from float64
    zeros, in order), so ONE partial per chunk travels (an L x L Gram, not one
    per 8192 rows). With chunks of 8192 rows (the in-memory blocks) each chunk
    partial is its single sub-block's partial exactly, and the in-order sum on
    the client is the in-memory one (bitwise equal under the synchronous
    scheduler); larger or uneven chunks regroup the float sums (tolerance).
    """
    return row_slices(n, BLOCK_ROWS)


def _stats_block(Xb: npt.NDArray[np.floating]) -> tuple[Any, Any, Any]:
    Xb = np.asarray(Xb)
    total = np.zeros(Xb.shape[1], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for sl in sub_blocks(Xb.shape[0]):
            total += column_sum_block(Xb[sl])
    return Xb.max(axis=0), Xb.min(axis=0), total


def column_stats(X: da.Array) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64]]:
    """One pass: column extremes (as a 2 x d array ``[max; min]``) and float64 means.

    The means are the in-order sum of 8192-row block sums divided by n, as
    :func:`marginclust.utils._blocks.column_mean` computes them in memory.
    """
    parts = block_partials(X, _stats_block)
    top = np.max(np.stack([p[0] for p in parts]), axis=0)
    bottom = np.min(np.stack([p[1] for p in parts]), axis=0)
    total = np.zeros(X.shape[1], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for p in parts:
            total += p[2]
        mean = total / X.shape[0]
    return np.vstack([top, bottom]), mean


class ShapeProxy:
    """Stands for X in parameter checks: ``shape``/``dtype`` of X, array = column extremes.

    ``check_finite_scale`` (and any check that only needs column ranges) sees
    the 2 x d array ``[max; min]``, which has the same column ranges as X, so
    the estimator's own ``_check_params`` runs unchanged without computing X.
    """

    def __init__(self, shape: tuple[int, int], dtype: Any, extremes: npt.NDArray[Any]) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self.ndim = 2
        # NaN / inf anywhere in a column shows in its max or min: the message
        # validate_data gives in memory, not a misleading scale complaint
        if not np.all(np.isfinite(extremes)):
            raise ValueError("Input X contains NaN or infinity.")
        self._extremes = extremes

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        return np.asarray(self._extremes, dtype=dtype)

"""Helpers shared by the model fitters of :mod:`marginclust.dask` (EMMC, SLMC)."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

from ..solvers._blocks import BLOCK_ROWS, column_sum_block, row_slices
from ._ops import block_partials

__all__ = ["ShapeProxy", "column_stats", "sub_blocks"]


def sub_blocks(n: int) -> list[slice]:
    """The in-memory passes' row blocks inside one dask chunk of ``n`` rows.

    A chunk is cut into ``BLOCK_ROWS`` (8192) rows, as the in-memory solvers
    cut X, and the partials are reduced in order: when every chunk boundary is a
    multiple of 8192 the grouping of the sums is the in-memory one (bitwise
    equal under the synchronous scheduler); otherwise only the grouping differs.
    """
    return row_slices(n, BLOCK_ROWS)


def _stats_block(Xb: npt.NDArray[np.floating]) -> tuple[Any, Any, list[Any]]:
    Xb = np.asarray(Xb)
    return (
        Xb.max(axis=0),
        Xb.min(axis=0),
        [column_sum_block(Xb[sl]) for sl in sub_blocks(Xb.shape[0])],
    )


def column_stats(X: da.Array) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64]]:
    """One pass: column extremes (as a 2 x d array ``[max; min]``) and float64 means.

    The means are the in-order sum of 8192-row block sums divided by n, as
    :func:`marginclust.solvers._blocks.column_mean` computes them in memory.
    """
    parts = block_partials(X, _stats_block)
    top = np.max(np.stack([p[0] for p in parts]), axis=0)
    bottom = np.min(np.stack([p[1] for p in parts]), axis=0)
    total = np.zeros(X.shape[1], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for p in parts:
            for s in p[2]:
                total += s
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
        self._extremes = extremes

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        return np.asarray(self._extremes, dtype=dtype)

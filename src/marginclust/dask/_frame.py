"""The working frame of translation-invariant methods on a dask array (two passes).

Mirrors :func:`marginclust.utils.centred_frame` with the same block
functions: pass 1 sums the columns (and checks finiteness and constancy),
pass 2 sums the squares of the centred data (a third pass only when a power
of two rescaling is needed). The frame ``Z = (X - mean) * scale`` stays lazy.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

from ..utils import check_not_constant, check_sample_weight_values
from ..utils._frame import (
    Frame,
    check_frame_mean,
    frame_block_squares,
    frame_block_sums,
    frame_needs_rescale,
    frame_scale,
)
from . import _ops

__all__ = ["dask_frame"]


def _first_pass(Xb: npt.NDArray[np.floating], wb: Any = None) -> tuple[Any, ...]:
    """Column sums, column extremes, finiteness (and the weights' checks) of a block."""
    with np.errstate(over="ignore", invalid="ignore"):
        finite = bool(np.isfinite(Xb).all())
        sums = frame_block_sums(Xb)
        hi = Xb.max(axis=0, initial=-np.inf)
        lo = Xb.min(axis=0, initial=np.inf)
    if wb is None:
        return sums, hi, lo, finite, None
    w = np.asarray(wb).ravel()
    wchk = (
        bool(np.isfinite(w).all() and (w >= 0).all()),
        bool((w > 0).any()),
        bool((w == 1).all()),
    )
    return sums, hi, lo, finite, wchk


def _to_frame(Xb: npt.NDArray[np.floating], mean: Any, scale: float) -> Any:
    Z = Xb - mean.astype(Xb.dtype)
    if scale != 1.0:
        Z *= Xb.dtype.type(scale)
    return Z


def dask_frame(
    X: da.Array, sample_weight: da.Array | None = None
) -> tuple[Frame, bool | None]:
    """The lazy working frame of X (same mean, scale and sum of squares as in memory).

    With ``sample_weight`` (a 1-D dask array with X's row chunks) its checks run
    in the first pass: finite, non-negative, not all zero. Returns the frame and
    whether every weight is 1 (None without weights).
    """
    n, d = X.shape
    extra = [] if sample_weight is None else [sample_weight]
    parts = _ops.block_partials(X, _first_pass, extra_blocks=extra)
    total = np.zeros(d)
    with np.errstate(over="ignore", invalid="ignore"):
        for p in parts:
            total += p[0]
        mean = total / n
    if not all(p[3] for p in parts):
        raise ValueError("Input X contains NaN or infinity.")
    hi = np.max([p[1] for p in parts], axis=0)
    lo = np.min([p[2] for p in parts], axis=0)
    check_not_constant(np.vstack([lo, hi]))
    unit = None
    if sample_weight is not None:
        check_sample_weight_values(all(p[4][0] for p in parts), any(p[4][1] for p in parts))
        unit = all(p[4][2] for p in parts)
    check_frame_mean(mean)
    scale = 1.0
    sq_parts = _ops.block_partials(X, frame_block_squares, mean, 1.0)
    sq = 0.0
    for s, _ in sq_parts:
        sq += s
    if frame_needs_rescale(sq, n * d):
        scale = frame_scale(max(p for _, p in sq_parts))
        if scale != 1.0:
            sq = 0.0
            for s, _ in _ops.block_partials(X, frame_block_squares, mean, scale):
                sq += s
    Z = X.map_blocks(_to_frame, mean, scale, dtype=X.dtype)  # type: ignore[arg-type]
    return Frame(Z=Z, mean=mean, scale=scale, sq_total=sq), unit

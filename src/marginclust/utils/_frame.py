"""A centred, power-of-two-rescaled copy of X for translation-invariant squared-distance methods.

Squared distances expanded as ``||x||^2 - 2 x.c + ||c||^2`` lose every digit when
the data carry a large common offset (``X + 1e9``: timestamps), and overflow or
underflow at extreme scales (``X * 1e200``, ``X * 1e-150``). Methods whose result
does not change under translation and (up to a known factor) under uniform
scaling work in the frame ``Z = (X - mean) * s``: centring removes the offset,
and ``s``, a power of two (an exact multiplication), brings the largest centred
entry into [1/2, 1), so squares neither overflow nor underflow. Squared
distances in the data frame are those of Z divided by ``s**2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ._blocks import RowBackend

__all__ = [
    "Frame",
    "centred_frame",
    "check_objective_scale",
    "frame_block_sums",
    "frame_block_squares",
    "frame_needs_rescale",
    "frame_scale",
]


@dataclass(frozen=True)
class Frame:
    """Data in the working frame ``Z = (X - mean) * scale`` and the map back.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The data in the working frame (dtype of X).
    mean : ndarray of shape (n_features,)
        Column means of X (float64).
    scale : float
        The power of two the centred data were multiplied by.
    sq_total : float
        Sum of squares of ``Z`` (float64).
    """

    Z: npt.NDArray[np.floating]
    mean: npt.NDArray[np.floating]
    scale: float
    sq_total: float  # sum of squares of Z (float64)

    def centers_to_frame(self, C: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Centres (data frame) in the working frame, float64.

        Parameters
        ----------
        C : array-like of shape (n_clusters, n_features)
            Centres in the units of X.

        Returns
        -------
        C_frame : ndarray of shape (n_clusters, n_features)
            The centres in the working frame.
        """
        return (np.asarray(C, dtype=np.float64) - self.mean) * self.scale

    def centers_from_frame(self, C: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Centres (working frame) back in the data frame, float64.

        Parameters
        ----------
        C : array-like of shape (n_clusters, n_features)
            Centres in the working frame.

        Returns
        -------
        C_data : ndarray of shape (n_clusters, n_features)
            The centres in the units of X.
        """
        return np.asarray(C, dtype=np.float64) / self.scale + self.mean


def frame_block_sums(Xb: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """Column sums (float64) of a row block: the partial of the mean."""
    with np.errstate(over="ignore", invalid="ignore"):
        return Xb.sum(axis=0, dtype=np.float64)


def frame_block_squares(
    Xb: npt.NDArray[np.floating], mean: npt.NDArray[np.float64], scale: float
) -> tuple[float, float]:
    """``(sum of squares, largest |entry|)`` of a block of the frame ``(X - mean) * scale``."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Z = Xb - mean.astype(Xb.dtype)
        if scale != 1.0:
            Z *= Xb.dtype.type(scale)
        sq = float(np.einsum("ij,ij->", Z, Z, dtype=np.float64))
        peak = float(max(Z.max(initial=0.0), -Z.min(initial=0.0)))
    return sq, peak


def _blocks(n: int, chunk_rows: int | None) -> list[tuple[int, int]]:
    step = n if chunk_rows is None else max(1, int(chunk_rows))
    return [(lo, min(lo + step, n)) for lo in range(0, max(n, 1), step)]


def frame_needs_rescale(sq: float, size: int, dtype: npt.DTypeLike = np.float64) -> bool:
    """Whether squares of the centred data (sum ``sq`` over ``size`` entries) leave the
    comfortable range of ``dtype`` (outside 1e-200..1e200 for float64, 1e-25..1e25 for
    float32, about 0.65 of either exponent range), where distance expansions, kernel
    exponents and powers of distances may overflow or underflow."""
    top, bottom = (1e25, 1e-25) if np.dtype(dtype).itemsize <= 4 else (1e200, 1e-200)
    tiny_ok = sq / max(size, 1) > bottom  # 0 here is underflow (or constant data)
    return not (np.isfinite(sq) and sq < top and tiny_ok)


def frame_scale(peak: float) -> float:
    """The power of two that brings the largest centred entry ``peak`` into [1/2, 1)."""
    if not np.isfinite(peak):
        raise ValueError(
            "X has a feature range that overflows. Rescale your features "
            "(e.g. sklearn.preprocessing.StandardScaler)."
        )
    if peak > 0:
        e = int(np.frexp(peak)[1])  # peak = f * 2**e with f in [0.5, 1)
        return float(np.ldexp(1.0, -e))
    return 1.0


def check_frame_mean(mean: npt.NDArray[np.float64], name: str = "X") -> None:
    """Refuse column means that overflow (entries near the float maximum)."""
    if not np.all(np.isfinite(mean)):
        raise ValueError(
            f"{name} has entries so large that their mean overflows. Rescale your "
            "features (e.g. sklearn.preprocessing.StandardScaler)."
        )


def centred_frame(
    X: npt.NDArray[np.floating], name: str = "X", *, chunk_rows: int | None = None
) -> Frame:
    """Centre ``X`` (a copy, dtype kept) and rescale it by a power of two.

    The column sums and the sum of squares are accumulated over row blocks of
    ``chunk_rows`` rows in order (:func:`frame_block_sums`,
    :func:`frame_block_squares`), so an out-of-core fit with the same blocks
    (:mod:`marginclust.dask`) finds the same frame bit for bit.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or out-of-core row-block backend
        Validated dense data with finite entries. For an out-of-core backend
        (:mod:`marginclust.dask`) the same sums run by its passes and ``Z`` is a
        backend of the centred rows.
    name : str, default="X"
        Name used in messages.
    chunk_rows : int, default=None
        Rows per block (None: one block).

    Returns
    -------
    frame : Frame
        The centred, rescaled data and the map back to the units of X.

    Raises
    ------
    ValueError
        If the column means overflow (entries near the float maximum): rescale
        the features.
    """
    if isinstance(X, RowBackend) and not X.in_memory:
        return _row_backend_frame(X, name)
    n = X.shape[0]
    blocks = _blocks(n, chunk_rows)
    total = np.zeros(X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        for lo, hi in blocks:
            total += frame_block_sums(X[lo:hi])
        mean = total / n
    check_frame_mean(mean, name)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Z = X - mean.astype(X.dtype)
        sq = 0.0
        for lo, hi in blocks:
            Zb = Z[lo:hi]
            sq += float(np.einsum("ij,ij->", Zb, Zb, dtype=np.float64))
    # the common case: squares comfortably inside the float range, no rescaling (and no
    # extra pass); otherwise find the largest entry and rescale by a power of two
    if not frame_needs_rescale(sq, Z.size, X.dtype):
        return Frame(Z=Z, mean=mean, scale=1.0, sq_total=sq)
    with np.errstate(over="ignore", invalid="ignore"):
        peak = float(max(Z.max(initial=0.0), -Z.min(initial=0.0)))
    scale = frame_scale(peak)
    if scale != 1.0:
        Z *= X.dtype.type(scale)
    sq = 0.0
    for lo, hi in blocks:
        Zb = Z[lo:hi]
        sq += float(np.einsum("ij,ij->", Zb, Zb, dtype=np.float64))
    return Frame(Z=Z, mean=mean, scale=scale, sq_total=sq)


def _to_frame(Xb: npt.NDArray[np.floating], mean: npt.NDArray[np.float64], scale: float) -> Any:
    Z = np.asarray(Xb) - mean.astype(Xb.dtype)
    if scale != 1.0:
        Z *= Xb.dtype.type(scale)
    return Z


def _row_backend_frame(rows: Any, name: str) -> Frame:
    """The frame of an out-of-core X: the same block sums in block order, ``Z`` lazy.

    Pass 1 is the backend's column sums, pass 2 the centred sum of squares (a third
    only when a power-of-two rescaling is needed); ``Z = (X - mean) * scale`` is a
    backend deriving each block when a pass reads it.
    """
    n, d = rows.shape
    with np.errstate(over="ignore", invalid="ignore"):
        mean = rows.column_sums() / n
    check_frame_mean(mean, name)
    parts = rows.partials(frame_block_squares, mean, 1.0)
    sq = 0.0
    for part, _ in parts:
        sq += part
    scale = 1.0
    if frame_needs_rescale(sq, n * d, rows.dtype):
        scale = frame_scale(max(p for _, p in parts))
        if scale != 1.0:
            sq = 0.0
            for part, _ in rows.partials(frame_block_squares, mean, scale):
                sq += part
    Z = rows.derive(_to_frame, mean, scale, dtype=rows.dtype)
    return Frame(Z=Z, mean=mean, scale=scale, sq_total=sq)


def check_objective_scale(X: npt.NDArray[np.floating], frame: Frame) -> None:
    """Refuse data whose sum of squared distances overflows in the units of X.

    The working frame keeps every computation finite, but an objective (sum of
    squared distances) beyond the float range cannot be reported; say so.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The validated data (named in nothing but the message).
    frame : Frame
        Its working frame (:func:`centred_frame`).

    Raises
    ------
    ValueError
        If the total sum of squares overflows in the units of X.
    """
    s = frame.scale
    with np.errstate(over="ignore"):
        total = frame.sq_total / s / s
    if not np.isfinite(total):
        size = int(np.prod(frame.Z.shape))
        spread = float(np.sqrt(frame.sq_total / max(size, 1))) / s
        raise ValueError(
            f"X has features of size about {spread:.3g}: the sum of squared distances "
            "overflows. Rescale your features (e.g. sklearn.preprocessing.StandardScaler)."
        )

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

import numpy as np
import numpy.typing as npt

__all__ = ["Frame", "centred_frame", "check_objective_scale"]


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

    def to_frame(self, X: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
        """New data (same dtype) in the working frame.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Data in the units of the fitted X.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features)
            The same data in the working frame, dtype kept.
        """
        Z = X - self.mean.astype(X.dtype, copy=False)
        if self.scale != 1.0:
            Z *= X.dtype.type(self.scale)
        return Z

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


def centred_frame(X: npt.NDArray[np.floating], name: str = "X") -> Frame:
    """Centre ``X`` (a copy, dtype kept) and rescale it by a power of two.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated dense data with finite entries.
    name : str, default="X"
        Name used in messages.

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
    with np.errstate(over="ignore", invalid="ignore"):
        mean = X.mean(axis=0, dtype=np.float64)
    if not np.all(np.isfinite(mean)):
        raise ValueError(
            f"{name} has entries so large that their mean overflows. Rescale your "
            "features (e.g. sklearn.preprocessing.StandardScaler)."
        )
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Z = X - mean.astype(X.dtype)
        sq = float(np.einsum("ij,ij->", Z, Z, dtype=np.float64))
    # the common case: squares comfortably inside the float range, no rescaling (and no
    # extra pass); otherwise find the largest entry and rescale by a power of two
    tiny_ok = sq / max(Z.size, 1) > 1e-200  # 0 here is underflow (or constant data)
    if np.isfinite(sq) and sq < 1e200 and tiny_ok:
        return Frame(Z=Z, mean=mean, scale=1.0, sq_total=sq)
    with np.errstate(over="ignore", invalid="ignore"):
        peak = float(max(Z.max(initial=0.0), -Z.min(initial=0.0)))
    if not np.isfinite(peak):
        raise ValueError(
            f"{name} has a feature range that overflows. Rescale your features "
            "(e.g. sklearn.preprocessing.StandardScaler)."
        )
    scale = 1.0
    if peak > 0:
        e = int(np.frexp(peak)[1])  # peak = f * 2**e with f in [0.5, 1)
        scale = float(np.ldexp(1.0, -e))
        Z *= X.dtype.type(scale)
    sq = float(np.einsum("ij,ij->", Z, Z, dtype=np.float64))
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
        spread = float(np.sqrt(frame.sq_total / max(frame.Z.size, 1))) / s
        raise ValueError(
            f"X has features of size about {spread:.3g}: the sum of squared distances "
            "overflows. Rescale your features (e.g. sklearn.preprocessing.StandardScaler)."
        )

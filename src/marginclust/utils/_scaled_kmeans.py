"""scikit-learn's k-means at a safe scale: data of an extreme scale brought near 1 exactly."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ScaledKMeans",
    "power_of_two_scale",
    "scaled_kmeans",
]


def power_of_two_scale(X: Any) -> float:
    """The power of two that brings data of an extreme scale near 1 (else 1.0).

    k-means labels do not change when the data are multiplied by a constant, and a
    power of two multiplies exactly; float32 data beyond ``2^+-40`` and float64 data
    beyond ``2^+-300`` (about 1e+-90) would overflow or underflow the squares of
    scikit-learn's k-means (its tolerance is the data's variance, its distances
    squared norms). Data within those bounds are left alone.

    Parameters
    ----------
    X : {ndarray, sparse matrix}

    Returns
    -------
    scale : float

    Examples
    --------
    >>> import numpy as np
    >>> power_of_two_scale(np.array([[3e30]], dtype=np.float32))
    1.9721522630525295e-31
    """
    if np.dtype(X.dtype) not in (np.float32, np.float64):
        return 1.0
    bound = 40 if np.dtype(X.dtype) == np.float32 else 300
    data = X.data if sp.issparse(X) else np.asarray(X)
    peak = float(np.max(np.abs(data))) if data.size else 0.0
    if not np.isfinite(peak) or peak == 0.0 or 2.0**-bound < peak < 2.0**bound:
        return 1.0
    # 2**-e, its exponent kept within the dtype's normal range (subnormal data and data
    # near the float maximum: the scale itself must be a finite, normal number)
    info = np.finfo(X.dtype)
    return float(np.ldexp(1.0, min(max(-int(np.frexp(peak)[1]), info.minexp), info.maxexp - 1)))


class ScaledKMeans:
    """A fitted k-means that sees its input multiplied by ``scale`` (:func:`power_of_two_scale`).

    Parameters
    ----------
    km : KMeans
        Fitted on the scaled data.
    scale : float
    """

    def __init__(self, km: Any, scale: float) -> None:
        self.km = km
        self.scale = scale
        self.labels_ = km.labels_

    def predict(self, X: Any) -> Any:
        """Nearest centre of each row of ``X``."""
        return self.km.predict(X * X.dtype.type(self.scale) if self.scale != 1.0 else X)


def scaled_kmeans(X: Any, **params: Any) -> ScaledKMeans:
    """``KMeans(**params)`` fitted on ``X`` at a safe scale (float32 at extreme scales).

    Parameters
    ----------
    X : {ndarray, sparse matrix}
    **params
        Parameters of :class:`sklearn.cluster.KMeans`.

    Returns
    -------
    km : ScaledKMeans
        ``labels_`` and ``predict`` in the units of ``X``.
    """
    from sklearn.cluster import KMeans

    scale = power_of_two_scale(X)
    Xs = X * X.dtype.type(scale) if scale != 1.0 else X
    return ScaledKMeans(KMeans(**params).fit(Xs), scale)



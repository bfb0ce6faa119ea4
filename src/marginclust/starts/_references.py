"""Data without clusters shaped like given points, and two-means' split of such data.

The references against which :mod:`marginclust.starts._separation` judges a
boundary: a Gaussian with the points' (weighted) mean and covariance, or a
uniform box on their principal axes (Tibshirani, Walther & Hastie's reference
for the gap statistic), and the cut two-means ends with on either, across the
longest principal axis at the mean (:func:`principal_split`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["principal_axes", "principal_split", "structureless_reference"]


def structureless_reference(
    Z: npt.NDArray[np.float64], kind: str, rng: np.random.RandomState,
    weights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """Points without clusters shaped like ``Z``: a Gaussian, or a uniform principal-axes box.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The points to imitate (at least two).
    kind : {"gaussian", "box"}
        ``"gaussian"``: the mean and covariance of ``Z`` (through its thin SVD,
        so a rank-deficient covariance is fine). ``"box"``: uniform over the
        range of ``Z`` on each principal axis (Tibshirani, Walther & Hastie's
        reference for the gap statistic).
    rng : numpy.random.RandomState
        The draws.
    weights : ndarray of shape (n_samples,) or None, default=None
        Positive weights of the points: the mean, the covariance and so the
        principal axes are weighted (the covariance as :func:`numpy.cov` with
        ``aweights``); the reference still has one unweighted point per point.

    Returns
    -------
    R : ndarray of shape (n_samples, n_features)
        As many points as ``Z``.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.RandomState(0).randn(200, 2) * [3.0, 1.0]
    >>> R = structureless_reference(Z, "box", np.random.RandomState(1))
    >>> R.shape, bool(np.ptp(R[:, 0]) > 2 * np.ptp(R[:, 1]))
    ((200, 2), True)
    """
    m = Z.shape[0]
    mean, centred, sd, vt = principal_axes(Z, weights)
    if kind == "gaussian":
        scores = rng.standard_normal((m, sd.size)) * sd
    else:
        P = centred @ vt.T
        lo, hi = P.min(axis=0), P.max(axis=0)
        scores = lo + rng.random_sample((m, sd.size)) * (hi - lo)
    return np.asarray(mean + scores @ vt, dtype=np.float64)


def principal_axes(
    Z: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
           npt.NDArray[np.float64]]:
    """The (weighted) mean of ``Z``, ``Z`` centred on it, and its principal axes (module).

    Returns ``(mean, centred, sd, vt)``: the rows of ``vt`` are the axes of the
    covariance (:func:`numpy.cov`'s, with ``aweights=weights``: divided by
    ``V1 - V2 / V1`` for weight sums ``V1`` and squared-weight sums ``V2``, which
    is ``m - 1`` for equal weights) and ``sd`` the standard deviations along them.
    The weighted axes are the right singular vectors of the centred rows scaled
    by the square roots of their weights.
    """
    m = Z.shape[0]
    if weights is None:
        mean = Z.mean(axis=0)
        centred = Z - mean
        _, s, vt = np.linalg.svd(centred, full_matrices=False)
        return mean, centred, s / np.sqrt(max(m - 1, 1)), vt
    w = np.asarray(weights, dtype=np.float64)
    w = w / float(w.max())  # the same mean, axes and spreads; no square can underflow
    mean = np.average(Z, axis=0, weights=w)
    centred = Z - mean
    _, s, vt = np.linalg.svd(centred * np.sqrt(w)[:, None], full_matrices=False)
    v1 = float(w.sum())
    divisor = v1 - float(np.sum(w * w)) / v1
    return mean, centred, s / np.sqrt(divisor) if divisor > 0 else np.zeros_like(s), vt


def principal_split(
    R: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.intp]:
    """Two-means' split of structureless data: across its longest principal axis, at the mean.

    For a Gaussian or a uniform box the two-means optimum is the hyperplane
    through the mean orthogonal to the first principal axis (the split of least
    within-cluster variance), so it is used directly instead of a k-means fit.
    With ``weights`` the mean and the axis are weighted (:func:`principal_axes`):
    a row of integer weight ``r`` is cut as ``r`` copies of it would be.
    """
    _, centred, _, vt = principal_axes(R, weights)
    return (centred @ vt[0] > 0).astype(np.intp)

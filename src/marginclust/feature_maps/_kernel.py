"""RBF kernel helpers shared by the kernel baselines and SLMC.

Convention everywhere in marginclust: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``
(SLMC paper), and the default width ``sigma0`` is the mean pairwise Euclidean
distance of the training data.
"""

from __future__ import annotations

import numbers

import numpy as np
import numpy.typing as npt
from scipy.spatial.distance import pdist
from sklearn.utils import check_random_state

__all__ = ["mean_pairwise_distance", "rbf_kernel_sigma"]


def mean_pairwise_distance(
    X: npt.ArrayLike,
    *,
    max_samples: int = 2000,
    random_state: int | np.random.RandomState | None = None,
) -> float:
    """Mean Euclidean distance over all pairs of distinct samples (the sigma0 heuristic).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (dense).
    max_samples : int, default=2000
        With more samples than this, the mean is estimated on ``max_samples`` rows
        drawn without replacement (``max_samples (max_samples - 1) / 2`` pairs, never
        an n x n matrix). At or below it the mean is exact.
    random_state : int, RandomState instance or None, default=None
        Seed for the subsample (used only when ``n_samples > max_samples``).

    Returns
    -------
    sigma0 : float
        Mean pairwise distance; 0 when all (sampled) rows coincide.

    Raises
    ------
    ValueError
        With fewer than 2 samples, non-finite values or a bad ``max_samples``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if X.shape[0] < 2:
        raise ValueError(
            f"The mean pairwise distance needs at least 2 samples; got {X.shape[0]}."
        )
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf.")
    if (
        isinstance(max_samples, bool)
        or not isinstance(max_samples, numbers.Integral)
        or max_samples < 2
    ):
        raise ValueError(f"max_samples must be an integer >= 2; got {max_samples!r}.")
    if X.shape[0] > max_samples:
        rng = check_random_state(random_state)
        X = X[rng.choice(X.shape[0], size=int(max_samples), replace=False)]
    return float(np.mean(pdist(X)))


def rbf_kernel_sigma(
    X: npt.ArrayLike, Y: npt.ArrayLike | None = None, sigma: float = 1.0
) -> npt.NDArray[np.floating]:
    """RBF kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))`` between rows of X and Y.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
        ``None`` means ``Y = X``.
    sigma : float, default=1.0
        Kernel width (``gamma = 1 / (2 sigma^2)`` in scikit-learn's parametrisation).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        Float32 when both inputs are float32, else float64.
    """
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
        raise ValueError(f"sigma must be a positive real number; got {sigma!r}.")
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be positive and finite; got {sigma!r}.")
    X = np.asarray(X)
    Y = X if Y is None else np.asarray(Y)
    dtype = np.float32 if (X.dtype == np.float32 and Y.dtype == np.float32) else np.float64
    X = X.astype(dtype, copy=False)
    Y = Y.astype(dtype, copy=False)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must be 2-D with the same number of features; got {X.shape} and "
            f"{Y.shape}."
        )
    D2 = (
        np.einsum("ij,ij->i", X, X)[:, None]
        - 2.0 * (X @ Y.T)
        + np.einsum("ij,ij->i", Y, Y)[None, :]
    )
    np.maximum(D2, 0.0, out=D2)
    D2 *= -1.0 / (2.0 * float(sigma) ** 2)
    return np.exp(D2, out=D2)

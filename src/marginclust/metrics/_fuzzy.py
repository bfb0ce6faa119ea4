"""Fuzzy validity indices: partition coefficient / entropy and Xie-Beni (SLMC eq. 17-21).

Memberships ``U`` have samples as rows and clusters as columns (the transpose of
the papers' ``K x n`` layout); each row must sum to one.
"""

from __future__ import annotations

import numbers

import numpy as np
import numpy.typing as npt

from ._validation import check_data_centers, check_memberships_matrix

__all__ = ["kernel_xie_beni", "partition_coefficient", "partition_entropy", "xie_beni"]


def _check_m(m: float) -> float:
    if isinstance(m, bool) or not isinstance(m, numbers.Real) or not np.isfinite(float(m)) or m < 1:
        raise ValueError(f"m (the fuzzifier) must be a finite number >= 1; got {m!r}.")
    return float(m)


def partition_coefficient(U: npt.ArrayLike) -> float:
    """Partition coefficient ``PC = (1/n) sum_ik u_ik^2`` (SLMC eq. 17).

    Parameters
    ----------
    U : array-like of shape (n_samples, n_clusters)
        Memberships, rows on the simplex.

    Returns
    -------
    pc : float
        In ``[1/K, 1]``; 1 for a crisp partition, ``1/K`` for uniform memberships.
    """
    U = check_memberships_matrix(U)
    return float(np.einsum("ij,ij->", U, U) / U.shape[0])


def partition_entropy(U: npt.ArrayLike, base: float = 2) -> float:
    """Partition entropy ``PE = -(1/n) sum_ik u_ik log_base u_ik`` (SLMC eq. 18).

    Parameters
    ----------
    U : array-like of shape (n_samples, n_clusters)
        Memberships, rows on the simplex.
    base : float, default=2
        Logarithm base (the SLMC paper uses 2); ``0 log 0`` is taken as 0.

    Returns
    -------
    pe : float
        In ``[0, log_base K]``; 0 for a crisp partition.
    """
    if not np.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(f"base must be a positive number other than 1; got {base!r}.")
    U = check_memberships_matrix(U)
    pos = U > 0
    ent = -np.sum(U[pos] * np.log(U[pos])) / np.log(base)
    return float(max(ent, 0.0) / U.shape[0])


def xie_beni(
    X: npt.ArrayLike, U: npt.ArrayLike, centers: npt.ArrayLike, m: float = 2
) -> float:
    """Xie-Beni index in data space (SLMC eq. 19; smaller is better).

    ``XB = sum_ik u_ik^m ||x_i - v_k||^2 / (n * min_{k != l} ||v_k - v_l||^2)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    U : array-like of shape (n_samples, n_clusters)
        Memberships, rows on the simplex.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centres ``v_k``.
    m : float, default=2
        Fuzzifier applied to the memberships (Xie & Beni's original index has m=2).

    Returns
    -------
    xb : float
        Non-negative; ``inf`` if two centres coincide (zero separation).
    """
    m = _check_m(m)
    U = check_memberships_matrix(U)
    X, centers = check_data_centers(X, U, centers)
    d2 = _sq_dist(X, centers)
    compact = float(np.sum(U**m * d2))
    c2 = _sq_dist(centers, centers)
    np.fill_diagonal(c2, np.inf)
    sep = float(c2.min())
    if sep == 0.0:
        return float("inf")
    return compact / (X.shape[0] * sep)


def kernel_xie_beni(
    X: npt.ArrayLike, U: npt.ArrayLike, centers: npt.ArrayLike, sigma: float, m: float = 2
) -> float:
    """Xie-Beni index in RBF kernel space with centres in data space (SLMC eq. 20-21).

    With ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``, ``||phi(x) - phi(v)||^2 =
    2 (1 - k(x, v))``, so (the factors 2 cancel)
    ``XB = sum_ik u_ik^m (1 - k(x_i, v_k)) / (n * min_{k != l} (1 - k(v_k, v_l)))``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    U : array-like of shape (n_samples, n_clusters)
        Memberships, rows on the simplex.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centres ``v_k`` (in data space).
    sigma : float
        RBF kernel width.
    m : float, default=2
        Fuzzifier.

    Returns
    -------
    xb : float
        Non-negative; ``inf`` if two centres coincide.
    """
    m = _check_m(m)
    if (
        isinstance(sigma, bool)
        or not isinstance(sigma, numbers.Real)
        or not np.isfinite(float(sigma))
        or sigma <= 0
    ):
        raise ValueError(f"sigma must be a positive finite number; got {sigma!r}.")
    U = check_memberships_matrix(U)
    X, centers = check_data_centers(X, U, centers)
    gamma = 1.0 / (2.0 * float(sigma) ** 2)
    dist = -np.expm1(-gamma * _sq_dist(X, centers))
    compact = float(np.sum(U**m * dist))
    sep_all = -np.expm1(-gamma * _sq_dist(centers, centers))
    np.fill_diagonal(sep_all, np.inf)
    sep = float(sep_all.min())
    if sep == 0.0:
        return float("inf")
    return compact / (X.shape[0] * sep)


def _sq_dist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances (BLAS expansion, clipped at 0)."""
    d2 = np.sum(A**2, axis=1)[:, None] - 2.0 * (A @ B.T) + np.sum(B**2, axis=1)[None, :]
    return np.maximum(d2, 0.0)

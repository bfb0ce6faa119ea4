"""SLMC in its dual and feature-space forms, written out for the tests.

The objective in feature space, the gradient in the dual variable and the
paper's eq. (8) as printed: none is used by the library (its steps are exact
minimisers), the tests check those steps against them.
"""

from __future__ import annotations

import numpy as np

from marginclust.objectives._slmc import code_loss, membership_weights

Array = np.ndarray


def objective_features(W: Array, F: Array, U: Array, lam: float, m: float) -> float:
    """The SLMC objective in feature space, ``||W||_F^2 + lam * loss(F, U)``.

    Parameters
    ----------
    W : ndarray of shape (L, K)
        Primal weights.
    F : ndarray of shape (n, K)
        ``Phi @ W``.
    U : ndarray of shape (n, K)
        Memberships.
    lam : float
        Trade-off parameter.
    m : float
        Fuzzifier.

    Returns
    -------
    J : float
    """
    return float(np.sum(W * W)) + lam * code_loss(F, U, m)


def gradient_alpha(Kmat: Array, A: Array, U: Array, lam: float, m: float) -> Array:
    """Gradient of ``J`` with respect to ``A`` (= alpha^T).

    ``dJ/dA = 2 Kmat A + 2 lam Kmat (D Kmat A - U^m)`` (Kmat symmetric).

    Parameters
    ----------
    Kmat : ndarray of shape (n, n)
    A : ndarray of shape (n, K)
    U : ndarray of shape (n, K)
    lam : float
    m : float

    Returns
    -------
    grad : ndarray of shape (n, K)
    """
    Um, d = membership_weights(U, m)
    F = Kmat @ A
    return 2.0 * (F + lam * (Kmat @ (d[:, None] * F - Um)))


def paper_eq8_alpha(Kmat: Array, U: Array, lam: float, m: float) -> Array:
    """The alpha of the paper's eq. (8) exactly as printed (a test oracle).

    ``alpha = sum_k L_k Uhat_k K^T (sum_k K Uhat_k K^T + lam K)^{-1}`` with
    ``Uhat_k = diag(u_k^m)``; returned transposed (n, K) like ``alpha_step``.
    It does not minimise ``J``; the test shows the gradient
    is not zero there. Uses a least-squares solve because ``Kmat`` may be singular.

    Parameters
    ----------
    Kmat : ndarray of shape (n, n)
    U : ndarray of shape (n, K)
    lam : float
    m : float

    Returns
    -------
    A : ndarray of shape (n, K)
    """
    Um, d = membership_weights(U, m)
    # sum_k L_k Uhat_k K^T: row k is (u_k^m)^T K^T  -> (K x n) = Um^T Kmat^T
    left = Um.T @ Kmat.T
    # sum_k K Uhat_k K^T = K D K^T
    right = Kmat @ (d[:, None] * Kmat.T) + lam * Kmat
    # alpha = left @ right^{-1}  <=>  right^T alpha^T = left^T
    return np.linalg.lstsq(right.T, left.T, rcond=None)[0]

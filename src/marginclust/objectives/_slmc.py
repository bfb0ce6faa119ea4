"""Soft large margin clustering (SLMC, Wang & Chen 2013): objective and closed-form steps.

Layout conventions (samples are rows everywhere):

- ``U`` memberships, shape (n, K), rows on the simplex;
- ``A`` = alpha^T, the dual coefficients, shape (n, K), so that the decision
  values on the training set are ``F = Kmat @ A`` (n, K);
- in low-rank mode the kernel is ``Kmat ~ Phi Phi^T`` with explicit features
  ``Phi`` (n, L) and the primal weights are ``W = Phi^T A`` (L, K), ``F = Phi @ W``.

The objective (SPEC section 1; twice the paper's eq. (4), same minimisers) is::

    J(A, U) = tr(A^T Kmat A) + lam * sum_i sum_k u_ik^m ||f_i - e_k||^2

Alpha-step (U fixed). The gradient is
``dJ/dA = 2 Kmat [A + lam (D Kmat A - U^m)]`` with ``D = diag(d)``,
``d_i = sum_k u_ik^m``. It vanishes at ``(I + lam D Kmat) A = lam U^m``. Writing
``A = S B`` with ``S = D^{1/2}`` gives the symmetric positive definite system
``(I + lam S Kmat S) B = lam S^{-1} U^m`` (eigenvalues >= 1): one Cholesky
factorisation per iteration, no inverse. This is weighted kernel ridge
regression with sample weights ``d_i`` and targets ``u_i^m / d_i``.
In feature space the same step is ``(I_L + lam Phi^T D Phi) W = lam Phi^T U^m``.

U-step (A fixed): ``u_ik ∝ ||f_i - e_k||^{-2/(m-1)}``, computed in log space;
a row with an exact zero distance puts all its mass on the zero-distance
cluster(s).

All functions here assume validated inputs (no checks, no loops over samples).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve
from scipy.special import logsumexp

__all__ = [
    "alpha_step",
    "alpha_step_features",
    "gradient_alpha",
    "membership_weights",
    "objective",
    "objective_features",
    "paper_eq8_alpha",
    "squared_code_distances",
    "u_step",
]

Array = npt.NDArray[np.floating]

_BLOCK_ROWS = 4096  # rows per block when accumulating Phi^T D Phi


def membership_weights(U: Array, m: float) -> tuple[Array, Array]:
    """``U^m`` and the per-sample weights ``d_i = sum_k u_ik^m``.

    Parameters
    ----------
    U : ndarray of shape (n, K)
        Memberships (rows on the simplex).
    m : float
        Fuzzifier (> 1).

    Returns
    -------
    Um : ndarray of shape (n, K)
    d : ndarray of shape (n,)
        Strictly positive: ``d_i >= K^(1-m)`` on the simplex.
    """
    Um = np.power(U, m)
    return Um, Um.sum(axis=1)


def squared_code_distances(F: Array) -> Array:
    """``||f_i - e_k||^2`` for every sample and cluster code (one-hot ``e_k``).

    Parameters
    ----------
    F : ndarray of shape (n, K)
        Decision values.

    Returns
    -------
    dist : ndarray of shape (n, K)
        Non-negative; ``||f_i||^2 - 2 f_ik + 1`` (exact zero when ``f_i = e_k``).
    """
    sq = np.einsum("ij,ij->i", F, F)
    dist = sq[:, None] - 2.0 * F + 1.0
    np.maximum(dist, 0.0, out=dist)
    return dist


def _code_loss(F: Array, U: Array, m: float) -> float:
    """The data term ``sum_ik u_ik^m ||f_i - e_k||^2`` shared by both objectives."""
    Um, _ = membership_weights(U, m)
    return float(np.einsum("ik,ik->", Um, squared_code_distances(F)))


def objective(
    Kmat: Array, A: Array, U: Array, lam: float, m: float, F: Array | None = None
) -> float:
    """The SLMC objective ``J(A, U)`` for an explicit kernel matrix.

    Parameters
    ----------
    Kmat : ndarray of shape (n, n)
        Kernel matrix of the training data.
    A : ndarray of shape (n, K)
        Dual coefficients (alpha transposed).
    U : ndarray of shape (n, K)
        Memberships.
    lam : float
        Trade-off parameter.
    m : float
        Fuzzifier.
    F : ndarray of shape (n, K), optional
        ``Kmat @ A`` if already computed.

    Returns
    -------
    J : float
    """
    if F is None:
        F = Kmat @ A
    reg = float(np.einsum("ik,ik->", A, F))
    return reg + lam * _code_loss(F, U, m)


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
    return float(np.sum(W * W)) + lam * _code_loss(F, U, m)


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


def alpha_step(Kmat: Array, U: Array, lam: float, m: float) -> Array:
    """Exact minimiser of ``J(., U)``: solve ``(I + lam D Kmat) A = lam U^m`` by Cholesky.

    Parameters
    ----------
    Kmat : ndarray of shape (n, n)
        Symmetric positive semi-definite kernel matrix.
    U : ndarray of shape (n, K)
        Memberships.
    lam : float
        Trade-off parameter (> 0).
    m : float
        Fuzzifier.

    Returns
    -------
    A : ndarray of shape (n, K)
        Dual coefficients; ``F = Kmat @ A``.
    """
    Um, d = membership_weights(U, m)
    s = np.sqrt(d)
    M = Kmat * (lam * s)[:, None]  # the only n x n allocation of the step
    M *= s[None, :]
    M[np.diag_indices_from(M)] += 1.0
    c = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
    B = cho_solve(c, lam * Um / s[:, None], overwrite_b=True, check_finite=False)
    return s[:, None] * B


def alpha_step_features(Phi: Array, U: Array, lam: float, m: float) -> Array:
    """Exact minimiser in feature space: ``(I_L + lam Phi^T D Phi) W = lam Phi^T U^m``.

    Cost O(n L^2 + L^3); ``Phi^T D Phi`` is accumulated over row blocks, so the
    extra memory is O(L^2 + block L).

    Parameters
    ----------
    Phi : ndarray of shape (n, L)
        Explicit features (``Kmat ~ Phi Phi^T``).
    U : ndarray of shape (n, K)
        Memberships.
    lam : float
        Trade-off parameter (> 0).
    m : float
        Fuzzifier.

    Returns
    -------
    W : ndarray of shape (L, K)
        Primal weights; ``F = Phi @ W``.
    """
    Um, d = membership_weights(U, m)
    w = np.sqrt(lam * d)
    L = Phi.shape[1]
    G = np.zeros((L, L), dtype=np.float64)
    for start in range(0, Phi.shape[0], _BLOCK_ROWS):
        Pb = Phi[start : start + _BLOCK_ROWS] * w[start : start + _BLOCK_ROWS, None]
        # G += Pb^T Pb (one BLAS product per block; OpenBLAS's gemm beat syrk here)
        G += Pb.T @ Pb
    G[np.diag_indices_from(G)] += 1.0
    c = cho_factor(G, lower=True, overwrite_a=True, check_finite=False)
    return cho_solve(c, lam * (Phi.T @ Um), overwrite_b=True, check_finite=False)


def u_step(F: Array, m: float) -> Array:
    """Exact minimiser of ``J(A, .)`` over the simplex rows (eq. (13)), in log space.

    Parameters
    ----------
    F : ndarray of shape (n, K)
        Decision values.
    m : float
        Fuzzifier (> 1).

    Returns
    -------
    U : ndarray of shape (n, K)
        Rows on the simplex. A row with an exact zero distance to some code puts
        all its mass, split equally, on the zero-distance code(s).
    """
    dist = squared_code_distances(F)
    zero = dist <= 0.0
    with np.errstate(divide="ignore"):
        logd = np.log(dist)
    logu = -logd / (m - 1.0)
    rows_zero = zero.any(axis=1)
    if rows_zero.any():
        logu[rows_zero] = np.where(zero[rows_zero], 0.0, -np.inf)
    logu -= logsumexp(logu, axis=1, keepdims=True)
    return np.exp(logu)


def paper_eq8_alpha(Kmat: Array, U: Array, lam: float, m: float) -> Array:
    """The alpha of the paper's eq. (8) exactly as printed (for tests only).

    ``alpha = sum_k L_k Uhat_k K^T (sum_k K Uhat_k K^T + lam K)^{-1}`` with
    ``Uhat_k = diag(u_k^m)``; returned transposed (n, K) like :func:`alpha_step`.
    It does not minimise ``J`` (SPEC section 1); the test shows the gradient
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

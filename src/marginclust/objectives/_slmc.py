"""Soft large margin clustering (SLMC, Wang & Chen 2013): objective and closed-form steps.

Layout conventions (samples are rows everywhere):

- ``U`` memberships, shape (n, K), rows on the simplex;
- ``A`` = alpha^T, the dual coefficients, shape (n, K), so that the decision
  values on the training set are ``F = Kmat @ A`` (n, K);
- in low-rank mode the kernel is ``Kmat ~ Phi Phi^T`` with explicit features
  ``Phi`` (n, L) and the primal weights are ``W = Phi^T A`` (L, K), ``F = Phi @ W``.

The objective (twice the paper's eq. (4), same minimisers) is::

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

Both linear systems have the form ``(I + P) Z = R`` with ``P`` symmetric positive
semi-definite, so every eigenvalue is at least 1. :func:`spd_solve` tries one
Cholesky factorisation; when rounding makes it fail (features of wildly
different scales, a large common offset, a numerically indefinite user kernel),
it solves with a symmetric eigendecomposition whose eigenvalues are clipped at
the exact lower bound 1 instead of raising ``LinAlgError``.

:class:`SLMCProblem` (exact kernel) and :class:`SLMCRowProblem` (explicit
features, over the row blocks of the data: in memory or out of core) expose one
sweep (alpha-step then U-step) to the generic
:class:`~marginclust.solvers._alternating.AlternatingMinimizer`.

All functions here assume validated inputs (no checks, no loops over samples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import LinAlgError, cho_factor, cho_solve, eigh

from ..utils._blocks import BLOCK_ROWS, row_slices

__all__ = [
    "LSSVMProblem",
    "SLMCProblem",
    "SLMCRowProblem",
    "alpha_step",
    "balanced_sign",
    "alpha_step_features",
    "feature_normal_block",
    "feature_normal_reduce",
    "feature_sweep_block",
    "solve_feature_normal",
    "membership_weights",
    "objective",
    "pcg_w_step",
    "spd_factor",
    "spd_solve",
    "squared_code_distances",
    "u_step",
]

Array = npt.NDArray[np.floating]


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


def code_loss(F: Array, U: Array, m: float) -> float:
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
    return reg + lam * code_loss(F, U, m)


def spd_solve(build: Any, R: Array, *, numpy_lapack: bool = False) -> Array:
    """Solve ``M Z = R`` for ``M = build()``, ``M = I + P`` with ``P`` symmetric PSD.

    One Cholesky factorisation; if rounding makes ``M`` numerically indefinite,
    ``M`` is rebuilt and solved by a symmetric eigendecomposition whose
    eigenvalues are clipped at 1, their exact lower bound (never a
    ``LinAlgError``).

    Parameters
    ----------
    build : callable
        Returns a fresh (p, p) matrix ``M`` (it may be overwritten).
    R : ndarray of shape (p, K)
        Right-hand sides.
    numpy_lapack : bool, default=False
        Solve with NumPy's LAPACK (a Cholesky as the definiteness test, then
        an LU solve: twice the flops of SciPy's ``cho_solve``) instead of
        SciPy's. For the small L x L system of the feature-space step, whose
        other products run in NumPy's BLAS: NumPy and SciPy wheels each bundle
        an OpenBLAS, and with two threads the idle pool's spinning threads
        took the cores from the busy one (measured: a 2-thread low-rank fit
        4.2-4.6 s with NumPy's solve against 5.0-6.1 s with SciPy's).

    Returns
    -------
    Z : ndarray of shape (p, K)

    Raises
    ------
    ValueError
        If ``M`` has non-finite entries (the kernel or the features overflowed).
    """
    M = build()
    if not np.all(np.isfinite(M)):  # the data overflowed the kernel: no parameter to check
        raise ValueError(
            "The SLMC system has non-finite entries (the kernel overflowed). Rescale your "
            "features (e.g. sklearn.preprocessing.StandardScaler)."
        )
    try:
        if numpy_lapack:
            np.linalg.cholesky(M)  # raises when M is numerically indefinite
            Z = np.linalg.solve(M, R)
        else:
            c = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
            Z = cho_solve(c, R, check_finite=False)
        if np.all(np.isfinite(Z)):
            return Z
    except LinAlgError:  # SciPy's is NumPy's class
        pass
    M = build()
    M += M.T
    M *= 0.5
    if numpy_lapack:
        w, V = np.linalg.eigh(M)
    else:
        w, V = eigh(M, overwrite_a=True, check_finite=False)
    np.maximum(w, 1.0, out=w)
    return V @ ((V.T @ R) / w[:, None])


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

    def build() -> Array:
        M = Kmat * (lam * s)[:, None]  # the only n x n allocation of the step
        M *= s[None, :]
        M[np.diag_indices_from(M)] += 1.0
        return M

    B = spd_solve(build, lam * Um / s[:, None])
    return s[:, None] * B


def feature_normal_block(Phi_b: Array, U_b: Array, lam: float, m: float) -> tuple[Array, Array]:
    """One row block's share of the W-step's normal equations.

    ``(Phi_b^T diag(lam d_b) Phi_b, Phi_b^T U_b^m)`` with ``d_i = sum_k u_ik^m``,
    products in ``Phi_b``'s dtype. The W-step's system is ``I + sum_b G_b`` and
    its right-hand side ``lam sum_b R_b``, the sums taken in block order
    (:func:`feature_normal_reduce`); the in-memory path and the Dask path
    (:mod:`marginclust.dask`) both call this function on the same row blocks.

    Parameters
    ----------
    Phi_b : ndarray of shape (b, L)
        Features of the block's rows.
    U_b : ndarray of shape (b, K)
        Memberships of the block's rows.
    lam, m : float
        Trade-off and fuzzifier.

    Returns
    -------
    G_b : ndarray of shape (L, L)
    R_b : ndarray of shape (L, K)
    """
    Um, d = membership_weights(U_b, m)
    w = np.sqrt(lam * d)
    Wb = Phi_b * w[:, None].astype(Phi_b.dtype, copy=False)
    return Wb.T @ Wb, Phi_b.T @ Um.astype(Phi_b.dtype, copy=False)


def feature_normal_reduce(partials: Any, L: int, K: int) -> tuple[Array, Array]:
    """Sum :func:`feature_normal_block` partials in block order, in float64."""
    G = np.zeros((L, L), dtype=np.float64)
    R = np.zeros((L, K), dtype=np.float64)
    for G_b, R_b in partials:
        G += G_b
        R += R_b
    return G, R


def solve_feature_normal(G: Array, R: Array, lam: float) -> Array:
    """The W-step from reduced partials: ``(I + G) W = lam R`` (:func:`spd_solve`)."""

    def build() -> Array:
        M = G.copy()
        M[np.diag_indices_from(M)] += 1.0
        return M

    return spd_solve(build, lam * R, numpy_lapack=True)


def feature_sweep_block(Phi_b: Array, W: Array, m: float) -> tuple[Array, Array, float]:
    """One block's decision values, new memberships and data term for weights ``W``.

    Returns ``(F_b, U_b, loss_b)`` with ``F_b = Phi_b W`` (float64),
    ``U_b = u_step(F_b)`` and ``loss_b = sum_ik u_ik^m ||f_i - e_k||^2`` over the
    block (the objective's data term is the in-order sum of the ``loss_b``).
    """
    F_b = decision_features(Phi_b, W)
    U_b = u_step(F_b, m)
    return F_b, U_b, code_loss(F_b, U_b, m)


def alpha_step_features(Phi: Array, U: Array, lam: float, m: float) -> Array:
    """Exact minimiser in feature space: ``(I_L + lam Phi^T D Phi) W = lam Phi^T U^m``.

    Literal oracle of the W-step of the row-block problem and of
    :func:`pcg_w_step`; used by the tests.

    Cost O(n L^2 + L^3); ``Phi^T D Phi`` and ``Phi^T U^m`` are accumulated over
    row blocks (:func:`feature_normal_block`, summed in block order), so the
    extra memory is O(L^2 + block L). Products run in ``Phi``'s dtype (float32
    features: float32 products, float64 solve).

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
        Primal weights (float64); ``F = Phi @ W``.
    """
    G, R = feature_normal_reduce(
        (feature_normal_block(Phi[sl], U[sl], lam, m)
         for sl in row_slices(Phi.shape[0], BLOCK_ROWS)),
        Phi.shape[1],
        U.shape[1],
    )
    return solve_feature_normal(G, R, lam)


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
        logu = np.log(dist, out=dist)
    logu *= -1.0 / (m - 1.0)
    rows_zero = zero.any(axis=1)
    if rows_zero.any():
        logu[rows_zero] = np.where(zero[rows_zero], 0.0, -np.inf)
    # softmax in place (finite row maxima: a zero-distance row has a 0 entry); the
    # same values (to 1e-15) as subtracting scipy's logsumexp, at half its cost (measured)
    logu -= logu.max(axis=1, keepdims=True)
    np.exp(logu, out=logu)
    logu /= logu.sum(axis=1, keepdims=True)
    return logu


def decision_features(Phi: Array, W: Array) -> Array:
    """``F = Phi @ W`` in float64 (the product runs in ``Phi``'s dtype).

    Parameters
    ----------
    Phi : ndarray of shape (n, L)
    W : ndarray of shape (L, K)

    Returns
    -------
    F : ndarray of shape (n, K), float64
    """
    return np.asarray(Phi @ W.astype(Phi.dtype, copy=False), dtype=np.float64)


@dataclass
class SLMCProblem:
    """One SLMC restart with an explicit kernel matrix, as an alternating problem.

    The state is ``(U, A, F)``; :meth:`step` runs the alpha-step then the
    U-step and returns ``((U_new, A, F), J)`` with ``J = J(A, U_new)``.

    Parameters
    ----------
    Kmat : ndarray of shape (n, n)
        Kernel matrix of the training data.
    lam, m : float
        Trade-off and fuzzifier.
    """

    Kmat: Array
    lam: float
    m: float

    def step(self, state: tuple) -> tuple[tuple, float]:
        """One sweep: exact alpha-step, exact U-step; returns the new state and ``J``."""
        A = alpha_step(self.Kmat, state[0], self.lam, self.m)
        F = self.Kmat @ A
        U_new = u_step(F, self.m)
        return (U_new, A, F), objective(self.Kmat, A, U_new, self.lam, self.m, F=F)

    @staticmethod
    def change(old: tuple, new: tuple) -> float:
        """Largest membership change between two states."""
        return float(np.max(np.abs(new[0] - old[0])))


def _features_of(fmap: Any, Xb: Array) -> Array:
    """The fitted map's features of one block of (centred) rows."""
    return next(fmap.transform_blocks(Xb, block_rows=max(1, Xb.shape[0])))[1]


def pcg_w_step(
    blocks: Any,
    U: Array,
    W0: Array,
    F0: Array,
    lam: float,
    m: float,
    precond: Array,
    *,
    tol: float,
    max_iter: int,
) -> tuple[Array, Array, int, bool]:
    """Preconditioned conjugate gradients on the W-step, warm-started at ``W0``.

    Solves ``(I + lam Phi^T D Phi) W = lam Phi^T U^m`` column by column (one CG
    per cluster, their products batched), from ``W0`` whose decision values
    ``F0 = Phi W0`` are known, with the preconditioner ``precond`` (the inverse
    of the system matrix at an earlier ``D``). Every CG iterate lowers the
    quadratic ``J(., U)`` (CG minimises it over a growing Krylov space), so the
    step never raises ``J`` above ``J(W0, U)``; it stops when each column's
    residual, in the preconditioner's norm, is at most ``tol`` times that of its
    right-hand side.

    One pass over the features for the first residual, one per iteration (the
    products ``Phi p`` and ``Phi^T (d Phi p)`` of a row block taken together);
    ``F = Phi W`` is updated from the ``Phi p`` of each iteration, so the U-step
    needs no further pass.

    Parameters
    ----------
    blocks : block source
        The features (:func:`as_feature_blocks`).
    U : ndarray of shape (n, K)
        Memberships.
    W0 : ndarray of shape (L, K)
        Warm start.
    F0 : ndarray of shape (n, K)
        ``Phi W0``.
    lam, m : float
        Trade-off and fuzzifier.
    precond : ndarray of shape (L, L)
        Symmetric positive definite approximation of the system's inverse.
    tol : float
        Relative residual tolerance (preconditioned norm).
    max_iter : int
        Largest number of CG iterations.

    Returns
    -------
    W : ndarray of shape (L, K)
    F : ndarray of shape (n, K)
        ``Phi W``.
    n_iter : int
        CG iterations run.
    converged : bool
        Whether every column met ``tol``.
    """
    Um, d = membership_weights(U, m)
    B, MW = _pcg_right_side(blocks, Um, d, F0, W0.shape[0])
    B *= lam
    R = B - (W0 + lam * MW)
    W = np.array(W0, dtype=np.float64, copy=True)
    F = np.array(F0, dtype=np.float64, copy=True)
    Z = precond @ R
    rz = np.einsum("lk,lk->k", R, Z)
    bnorm = np.einsum("lk,lk->k", B, precond @ B)
    target = (tol * tol) * np.maximum(bnorm, np.finfo(np.float64).tiny)
    P = Z.copy()
    it = 0
    while it < max_iter and np.any(rz > target):
        it += 1
        Q, MP = _pcg_products(blocks, P, d, lam, F)
        curv = np.einsum("lk,lk->k", P, MP)
        active = rz > target
        alpha = np.where(active & (curv > 0), rz / np.where(curv > 0, curv, 1.0), 0.0)
        W += alpha * P
        F += alpha * Q
        R -= alpha * MP
        Z = precond @ R
        rz_new = np.einsum("lk,lk->k", R, Z)
        beta = np.where(active, rz_new / np.where(rz > 0, rz, 1.0), 0.0)
        P = Z + beta * P
        rz = np.where(active, rz_new, rz)
    return W, F, it, bool(np.all(rz <= target))


def _pcg_right_side(blocks: Any, Um: Array, d: Array, F0: Array, L: int) -> tuple[Array, Array]:
    """``(Phi^T U^m, Phi^T (d F0))``: the right-hand side over ``lam`` and the data
    part of the system matrix at the warm start, in one pass over the features."""
    K = Um.shape[1]
    B = np.zeros((L, K))
    MW = np.zeros((L, K))
    for start, Pb in blocks:
        sl = slice(start, start + Pb.shape[0])
        both = np.hstack([Um[sl], d[sl, None] * F0[sl]]).astype(Pb.dtype, copy=False)
        prod = np.asarray(Pb.T @ both, dtype=np.float64)
        B += prod[:, :K]
        MW += prod[:, K:]
    return B, MW


def _pcg_products(blocks: Any, P: Array, d: Array, lam: float, F: Array) -> tuple[Array, Array]:
    """``(Q, M P)`` for the search directions ``P``: ``Q = Phi P`` (to update ``F``) and
    the system matrix times ``P``, ``P + lam Phi^T (d Q)``, in one pass over the features."""
    Q = np.empty_like(F)
    MP = np.zeros(P.shape)
    for start, Pb in blocks:
        sl = slice(start, start + Pb.shape[0])
        Qb = np.asarray(Pb @ P.astype(Pb.dtype, copy=False), dtype=np.float64)
        Q[sl] = Qb
        MP += np.asarray(Pb.T @ (d[sl, None] * Qb).astype(Pb.dtype, copy=False),
                         dtype=np.float64)
    MP *= lam
    MP += P
    return Q, MP


def _sweep_pass(Xb: Any, state: dict[str, Any] | None, *rest: Any) -> tuple[dict[str, Any], Any]:
    """One low-rank SLMC pass over a block (cut into ``BLOCK_ROWS``-row sub-blocks).

    ``rest`` is ``([U0_b,] fmap, W, lam, m, cache, normal)``. With ``W`` None (the
    first pass) the memberships are the start's ``U0_b``; otherwise ``F = Phi W``
    and ``U = u_step(F)``, with the data term and the largest membership change
    against the block's previous ``U``. The partial is the sub-blocks' shares of
    the next W-step's normal equations (:func:`feature_normal_block`, summed in
    float64 from zero, in order; None unless ``normal``), the data term, the
    change and the sizes of the crisp clusters; the state keeps ``U``, ``F`` and,
    when ``cache``, ``Phi``.
    """
    U0b = None
    if len(rest) == 7:
        U0b, rest = np.asarray(rest[0], dtype=np.float64), rest[1:]
    fmap, W, lam, m, cache, normal = rest
    Xb = np.asarray(Xb)
    subs = row_slices(Xb.shape[0], BLOCK_ROWS)
    cached = state.get("Phi") if state is not None else None
    Phis = cached if cached is not None else [_features_of(fmap, Xb[sl]) for sl in subs]
    L = int(fmap.n_output_features_)
    K = W.shape[1] if W is not None else U0b.shape[1]  # type: ignore[union-attr]
    G = np.zeros((L, L), dtype=np.float64)
    R = np.zeros((L, K), dtype=np.float64)
    loss, move = 0.0, 0.0
    counts = np.zeros(K, dtype=np.intp)
    Us, Fs = [], []
    for sl, Phi in zip(subs, Phis):
        if W is None:
            U, F = U0b[sl], None  # type: ignore[index]
        else:
            F, U, loss_b = feature_sweep_block(Phi, W, m)
            loss += loss_b
            if U.size:
                move = max(move, float(np.max(np.abs(U - state["U"][sl]))))  # type: ignore[index]
            counts += np.bincount(np.argmax(F, axis=1), minlength=K)
        if normal:
            G_b, R_b = feature_normal_block(Phi, U, lam, m)
            G += G_b
            R += R_b
        Us.append(U)
        Fs.append(F)
    new_state = {
        "U": np.concatenate(Us) if Us else np.zeros((0, K)),
        "F": None if W is None else (np.concatenate(Fs) if Fs else np.zeros((0, K))),  # type: ignore[arg-type]
        "Phi": Phis if cache else None,
    }
    return new_state, ((G, R) if normal else None, loss, move, counts)


def _normal_pass(Xb: Any, state: dict[str, Any], lam: float, m: float) -> tuple[Any, Any]:
    """A block's share of the W-step's normal equations at its memberships (cached ``Phi``)."""
    K = state["U"].shape[1]
    L = state["Phi"][0].shape[1] if state["Phi"] else 0
    G = np.zeros((L, L), dtype=np.float64)
    R = np.zeros((L, K), dtype=np.float64)
    for sl, Phi in zip(row_slices(state["U"].shape[0], BLOCK_ROWS), state["Phi"]):
        G_b, R_b = feature_normal_block(Phi, state["U"][sl], lam, m)
        G += G_b
        R += R_b
    return state, (G, R)


def _u_pass(Xb: Any, state: dict[str, Any], F_b: Any, m: float) -> tuple[Any, Any]:
    """A block's U-step from decision values already known (after a CG W-step)."""
    F_b = np.asarray(F_b, dtype=np.float64)
    K = F_b.shape[1]
    loss, move = 0.0, 0.0
    counts = np.zeros(K, dtype=np.intp)
    Us = []
    for sl in row_slices(F_b.shape[0], BLOCK_ROWS):
        U = u_step(F_b[sl], m)
        loss += code_loss(F_b[sl], U, m)
        if U.size:
            move = max(move, float(np.max(np.abs(U - state["U"][sl]))))
        counts += np.bincount(np.argmax(F_b[sl], axis=1), minlength=K)
        Us.append(U)
    new_state = {"U": np.concatenate(Us) if Us else np.zeros((0, K)), "F": F_b,
                 "Phi": state["Phi"]}
    return new_state, (None, loss, move, counts)


def _state_decision_values(state: dict[str, Any]) -> Array:
    return state["F"]


class SLMCRowProblem:
    """Low-rank SLMC over the row blocks of the (centred) data: one pass per sweep.

    A problem of :class:`~marginclust.solvers._alternating.AlternatingMinimizer`.
    Each block keeps its memberships and decision values in its state beside the
    data (in memory: :class:`~marginclust.utils._blocks.RowBlocks`; out of core:
    the dask backend). A pass at the weights ``W_t`` computes the block's
    features ``Phi_b`` (kept in the state when ``cache``), ``F = Phi_b W_t``, the
    U-step ``U_t = u_step(F)``, its data term and largest change, and the
    block's share of the next W-step's normal equations
    ``(I + lam Phi^T D Phi) W = lam Phi^T U^m``: one pass and one L x L solve
    per sweep, the partials summed in block order.

    The solver's state is ``(W, G, R, move, counts)``: the last weights, the
    reduced normal equations of the next W-step, the last change and the
    cluster sizes; the per-row state is :attr:`states`.

    W-step (``w_step``): ``"exact"`` forms ``Phi^T D Phi`` (O(n L^2)) and
    solves; ``"pcg"`` does so on the first sweep only, keeps the inverse of
    that system as a preconditioner and runs :func:`pcg_w_step` from the
    previous ``W`` on the later sweeps (O(n L K) per CG iteration; D changes
    little between sweeps, so a few iterations reach ``cg_tol``). A sweep whose
    CG does not converge in ``max_cg`` iterations is redone exactly, which
    refreshes the preconditioner. A CG step that took more iterations than an
    exact step costs (:meth:`exact_cost`, about ``L / (4 K)`` of them) makes the
    next sweep exact too: the preconditioner has gone stale as ``D`` moved (on
    letter, 20,000 rows and 26 clusters, CG took 13-20 iterations a sweep from
    the one-hot start's preconditioner and 4 after a refresh). Either way ``J``
    never increases. Features
    streamed from the data (not cached) always take the exact step, since every
    pass over them recomputes them.

    Parameters
    ----------
    rows : row-block backend
        The centred data the map was fitted on.
    fmap : object
        The fitted low-rank map (``transform_blocks``, ``n_output_features_``).
    lam, m : float
        Trade-off and fuzzifier.
    U0 : array of shape (n_samples, n_clusters)
        The start's memberships (row-aligned; lazy out of core).
    cache : bool, default=False
        Keep each block's features in its state (else recomputed every pass).
    w_step : {"exact", "pcg"}, default="exact"
        W-step solver (``"pcg"`` needs ``cache``; streamed features take the
        exact step).
    cg_tol : float, default=1e-5
        Relative residual tolerance of the CG W-step; the objective's error is
        of the order of its square.
    max_cg : int, default=20
        CG iterations per sweep before falling back to the exact step.
    """

    def __init__(self, rows: Any, fmap: Any, lam: float, m: float, U0: Any,
                 cache: bool = False, w_step: str = "exact", cg_tol: float = 1e-5,
                 max_cg: int = 20) -> None:
        self.rows, self.fmap, self.U0 = rows, fmap, U0
        self.lam, self.m, self.cache = float(lam), float(m), bool(cache)
        self.L = int(fmap.n_output_features_)
        self.K = int(U0.shape[1])
        self.states: list[Any] | None = None
        self.n_passes = 0
        # CG needs the features at hand for its passes: only cached (in-memory) features
        self.pcg = w_step == "pcg" and self.cache
        self.cg_tol, self.max_cg = float(cg_tol), int(max_cg)
        #: exact W-steps and CG iterations run so far (a record for the caller)
        self.n_exact = 0
        self.n_cg = 0
        self._precond: Any = None
        self._refresh = False  # the last CG step cost more than an exact one

    def exact_cost(self) -> float:
        """An exact W-step's cost in CG iterations: ``n L^2`` flops for ``Phi^T D Phi``
        (its symmetric half, twice) against ``4 n L K`` for a CG iteration's two products."""
        return self.L / (4.0 * self.K)

    def initial_state(self) -> tuple[Any, ...]:
        """The start's normal equations (one pass)."""
        self.states, parts = self.rows.states(
            _sweep_pass, None, self.fmap, None, self.lam, self.m, self.cache, True,
            extra=(self.U0,),
        )
        self.n_passes += 1
        G, R = feature_normal_reduce((p[0] for p in parts), self.L, self.K)
        return (None, G, R, np.inf, None)

    def _exact(self, G: Array, R: Array) -> Array:
        W = solve_feature_normal(G, R, self.lam)
        self.n_exact += 1
        self._refresh = False
        if self.pcg:
            G[np.diag_indices_from(G)] += 1.0
            try:
                self._precond = np.linalg.inv(G)
            except np.linalg.LinAlgError:
                self._precond = None
        return W

    def _normal_equations(self) -> tuple[Array, Array]:
        """The W-step's normal equations at the current memberships (one pass)."""
        self.states, parts = self.rows.states(_normal_pass, self.states, self.lam, self.m)
        self.n_passes += 1
        return feature_normal_reduce(parts, self.L, self.K)

    def _cg(self, W_prev: Array) -> tuple[Array, Array, bool]:
        """:func:`pcg_w_step` over the cached feature blocks (in memory), warm-started."""
        states = self.states or []
        blocks, start = [], 0
        for st in states:
            for Pb in st["Phi"]:
                blocks.append((start, Pb))
                start += Pb.shape[0]
        U = np.concatenate([st["U"] for st in states])
        F_prev = np.concatenate([st["F"] for st in states])
        W, F, n_it, ok = pcg_w_step(blocks, U, W_prev, F_prev, self.lam, self.m,
                                    self._precond, tol=self.cg_tol, max_iter=self.max_cg)
        self._refresh = n_it > self.exact_cost()
        self.n_cg += n_it
        self.n_passes += n_it + 1
        return W, F, ok

    def step(self, state: tuple[Any, ...]) -> tuple[tuple[Any, ...], float]:
        """The W-step (exact, or CG from the last ``W``), then one pass: the U-step,
        ``J`` and, for the exact step, the next normal equations."""
        W_prev, G, R = state[0], state[1], state[2]
        if self.pcg and self._precond is not None and W_prev is not None and not self._refresh:
            W, F, ok = self._cg(W_prev)
            if ok:
                self.states, parts = self.rows.states(_u_pass, self.states, self.m,
                                                      extra=(F,))
                self.n_passes += 1
                return self._reduce(W, parts)
            G, R = self._normal_equations()  # CG stalled: redo the sweep exactly
        elif G is None:
            G, R = self._normal_equations()
        W = self._exact(G, R)
        self.states, parts = self.rows.states(
            _sweep_pass, self.states, self.fmap, W, self.lam, self.m, self.cache, not self.pcg
        )
        self.n_passes += 1
        return self._reduce(W, parts)

    def _reduce(self, W: Array, parts: list[Any]) -> tuple[tuple[Any, ...], float]:
        G = R = None
        if parts and parts[0][0] is not None:
            G, R = feature_normal_reduce((p[0] for p in parts), self.L, self.K)
        loss = 0.0
        for p in parts:
            loss += p[1]
        move = max((p[2] for p in parts), default=0.0)
        counts = np.sum([p[3] for p in parts], axis=0)
        return (W, G, R, move, counts), float(np.sum(W * W)) + self.lam * loss

    @staticmethod
    def change(old: tuple[Any, ...], new: tuple[Any, ...]) -> float:
        """Largest membership change of the last sweep (computed in its pass)."""
        return float(new[3])

    def decision_values(self) -> Any:
        """The training decision values of the last sweep (row-aligned; lazy out of core)."""
        return self.rows.gather_states(
            _state_decision_values, self.states, dtype=np.float64, tail=(self.K,)
        )


def spd_factor(M: Array) -> Any:
    """A solver ``R -> M^{-1} R`` for ``M = I + PSD``, factorised once (``M`` overwritten).

    Cholesky when it succeeds, else a symmetric eigendecomposition with the
    eigenvalues clipped at 1 (see :func:`spd_solve`).

    Parameters
    ----------
    M : ndarray of shape (p, p)

    Returns
    -------
    solve : callable
        ``solve(R)`` for ``R`` of shape (p,) or (p, K).
    """
    if not np.all(np.isfinite(M)):  # the data overflowed the kernel: no parameter to check
        raise ValueError(
            "The LS-SVM system has non-finite entries (the kernel overflowed). Rescale your "
            "features (e.g. sklearn.preprocessing.StandardScaler)."
        )
    backup = M.copy()
    try:
        c = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
        if np.all(np.isfinite(c[0])):
            return lambda R: cho_solve(c, R, check_finite=False)
    except LinAlgError:
        pass
    backup += backup.T
    backup *= 0.5
    w, V = eigh(backup, overwrite_a=True, check_finite=False)
    np.maximum(w, 1.0, out=w)

    def solve(R: Array) -> Array:
        Z = V.T @ R
        Z = Z / (w if Z.ndim == 1 else w[:, None])
        return V @ Z

    return solve


def balanced_sign(f: Array, n_max_imbalance: int) -> Array:
    """Labels in {-1, +1} minimising ``sum_i (f_i - y_i)^2`` s.t. ``|sum_i y_i| <= l``.

    ``sum (f_i - y_i)^2 = const - 2 sum y_i f_i``, so the optimum gives +1 to
    the ``p`` largest ``f_i``; without the constraint ``p`` is the number of
    positive ``f_i``, and the constraint clips ``p`` into
    ``[ceil((n - l) / 2), floor((n + l) / 2)]`` (the objective is concave
    in ``p`` along the sorted order, so clipping is exact). Ties keep the
    lower index first.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Decision values.
    n_max_imbalance : int
        ``l``: the largest allowed ``|#positive - #negative|``.

    Returns
    -------
    y : ndarray of shape (n,)
        Values in {-1.0, +1.0}.
    """
    n = f.shape[0]
    lo = int(np.ceil((n - n_max_imbalance) / 2))
    hi = int(np.floor((n + n_max_imbalance) / 2))
    p = int(np.clip(np.count_nonzero(f > 0), max(lo, 0), min(hi, n)))
    order = np.argsort(-f, kind="stable")
    y = -np.ones(n)
    y[order[:p]] = 1.0
    return y


class LSSVMProblem:
    """Iterative LS-SVM clustering (SLMC paper eq. (14)) as an alternating problem over y.

    ``step`` = LS-SVM fit on the labels (w-step) then exact relabelling under
    the balance constraint (y-step). Objective (twice eq. (14)):
    ``||w||^2 + lam sum_i (f_i - y_i)^2``. Exact mode: ``(I + lam Kmat) a = lam y``;
    low-rank mode: ``(I + lam Phi^T Phi) w = lam Phi^T y``; either system is
    factorised once (at construction) for every sweep and restart.

    Parameters
    ----------
    lam : float
    n_max_imbalance : int
    Kmat : ndarray of shape (n, n), optional
    Phi : ndarray of shape (n, L), optional
    """

    def __init__(self, lam: float, n_max_imbalance: int, Kmat: Array | None = None,
                 Phi: Array | None = None) -> None:
        self.lam = lam
        self.n_max_imbalance = n_max_imbalance
        self.Kmat = Kmat
        self.Phi = Phi
        if Kmat is not None:
            M = lam * Kmat
        else:
            assert Phi is not None
            M = lam * np.asarray(Phi.T @ Phi, dtype=np.float64)
        M[np.diag_indices_from(M)] += 1.0
        self._solve = spd_factor(M)

    def fit_coef(self, y: Array) -> tuple[Array, Array, float]:
        """Coefficients, decision values and regulariser for labels ``y``."""
        if self.Kmat is not None:
            a = self._solve(self.lam * y)
            f = self.Kmat @ a
            reg = float(a @ f)
        else:
            assert self.Phi is not None
            rhs = np.asarray(self.Phi.T @ y.astype(self.Phi.dtype), dtype=np.float64)
            a = self._solve(self.lam * rhs)
            f = np.asarray(self.Phi @ a.astype(self.Phi.dtype), dtype=np.float64)
            reg = float(a @ a)
        return a, f, reg

    def step(self, state: tuple) -> tuple[tuple, float]:
        """One sweep; returns ``((y_new, coef, f), J)``."""
        a, f, reg = self.fit_coef(state[0])
        y_new = balanced_sign(f, self.n_max_imbalance)
        return (y_new, a, f), reg + self.lam * float(np.sum((f - y_new) ** 2))

    @staticmethod
    def change(old: tuple, new: tuple) -> float:
        """Number of labels that changed."""
        return float(np.count_nonzero(old[0] != new[0]))

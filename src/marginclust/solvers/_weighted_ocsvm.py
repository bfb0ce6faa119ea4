"""Solvers of the weighted one-class SVMs (Bicego & Figueiredo 2009, eqs. 10-11).

The problems and the fitted machines are in :mod:`marginclust.objectives._weighted_ocsvm`.
Kernel machines are solved by LIBSVM's one-class SMO through scikit-learn's
:class:`~sklearn.svm.OneClassSVM` with ``sample_weight``; machines on explicit
features by :func:`~marginclust.solvers._box_simplex_newton.solve_box_simplex_newton`
in the primal. The conventions, each checked against a direct QP solve in
``tests/solvers/test_weighted_ocsvm.py``:

* With ``sample_weight=v`` and parameter ``nu'``, LIBSVM solves
  ``min 1/2 b^T K b  s.t. 0 <= b_i <= v_i, sum b = nu' sum v`` and reports
  ``dual_coef_ = b`` and ``offset_ = rho`` on that scale. Dividing both by
  ``nu' sum v`` gives the normalised form (``sum a = 1``) whose upper bound is
  ``v_i / (nu' sum v)``: the bound scales with the weights' *sum*, not with N.
  The paper's eq. (11) with bound ``w_i / (nu N)`` is therefore LIBSVM with
  ``nu' = nu N / sum w``, feasible only when ``sum w >= nu N`` (``bound="n"``);
  ``bound="sum"`` (the default, what a weighted LIBSVM computes when handed the
  memberships) uses ``w_i / (nu sum w)`` and is always feasible.
* LIBSVM's stopping tolerance is absolute, so tiny weights (memberships near
  zero) would stop it at once: weights are rescaled to mean one before the fit
  and the solution mapped back (the normalised solution is scale-free).
* LIBSVM silently drops zero-weight samples, and ``support_`` then indexes the
  *reduced* set. Samples with zero weight (or below ``zero_tol`` times the
  largest weight) are removed here before the call (on a precomputed kernel:
  given weight 0, which LIBSVM removes itself while reading each kept row's
  own kernel column, so the kept block is never copied), and support indices
  are mapped back to the caller's rows.
* Tax & Duin reduces to the same solver: on ``sum a = 1`` the linear term
  ``sum a_i K_ii`` equals ``a^T [(K_ii + K_jj) / 2] a``, so eq. (10) is the
  one-class problem with kernel ``K_ij - (K_ii + K_jj) / 2`` (for the RBF kernel
  a constant shift, i.e. the plain RBF kernel), LIBSVM weights ``C w_i`` and
  ``nu' = 1 / (C sum w)``; the SMO steps only see curvatures
  ``||phi_i - phi_j||^2 >= 0`` so the indefinite precomputed kernel is fine.
  Feasibility needs ``C sum w >= 1``.

The "native" LIBSVM decision value the paper's modified LIBSVM returned for
weights ``w`` is ``nu' sum(w)`` times the normalised ``d(x)``; see
:attr:`~marginclust.objectives._weighted_ocsvm.WeightedOCSVM.native_scale`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn import config_context
from sklearn.svm import OneClassSVM

from ..exceptions import InfeasibleProblemError
from ..objectives._weighted_ocsvm import (
    FORMS,
    KERNELS,
    LinearWeightedOCSVM,
    WeightedOCSVM,
    kernel_matrix,
)
from ._box_simplex_newton import solve_box_simplex_newton

__all__ = ["fit_linear_weighted_ocsvm", "fit_weighted_ocsvm"]


def _check_weights(w: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"weights must have shape (n_samples,) = ({n},); got {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative.")
    if not np.any(w > 0):
        raise InfeasibleProblemError(
            "All weights are zero: a weighted one-class SVM needs at least one sample with "
            "positive weight (the constraint sum(alpha) = 1 cannot be met)."
        )
    return w


def _box_bounds(
    form: str, bound: str, nu: float, C: float | None, n: int, total: float
) -> tuple[float, float | None, float]:
    """``(nu', C', native_scale)`` of eq. (11) (Scholkopf) or eq. (10) (Tax & Duin).

    Scholkopf: the bound on ``alpha_i`` is ``w_i / (nu' sum w)``, with ``nu' = nu``
    (``bound="sum"``, LIBSVM's weighted bound) or ``nu n / sum w`` (``bound="n"``, the
    literal eq. 11, infeasible when it exceeds 1); ``C' = None``. Tax & Duin: the bound is
    ``C' w_i`` with ``C' = C`` (default ``1 / (nu sum w)``), infeasible when
    ``C' sum w < 1``; ``nu' = 1 / (C' sum w)`` capped at 1. ``native_scale`` turns
    LIBSVM's decision values into the form's own units.
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}; got {form!r}.")
    if not 0.0 < nu <= 1.0:
        raise ValueError(f"nu must be in (0, 1]; got {nu!r}.")
    if form == "scholkopf":
        if bound == "sum":
            nu_eff = float(nu)
        elif bound == "n":
            nu_eff = float(nu) * n / total
            if nu_eff > 1.0 + 1e-12:
                raise InfeasibleProblemError(
                    f"Eq. (11) is infeasible: the weights sum to {total:.6g} < nu * n = "
                    f"{nu * n:.6g}, so no alpha with alpha_i <= w_i/(nu n) sums to 1. Use "
                    "bound='sum' (bound w_i/(nu sum w)), a smaller nu, or larger weights."
                )
            nu_eff = min(nu_eff, 1.0)
        else:
            raise ValueError(f"bound must be 'sum' or 'n'; got {bound!r}.")
        return nu_eff, None, nu_eff * total
    C_eff = 1.0 / (nu * total) if C is None else float(C)
    if not np.isfinite(C_eff) or C_eff <= 0:
        raise ValueError(f"C must be a positive finite number; got {C!r}.")
    if C_eff * total < 1.0 - 1e-12:
        raise InfeasibleProblemError(
            f"Eq. (10) is infeasible: C * sum(w) = {C_eff * total:.6g} < 1, so no alpha "
            f"with alpha_i <= C w_i sums to 1. Increase C to at least {1.0 / total:.6g} "
            "or use larger weights."
        )
    return min(1.0, 1.0 / (C_eff * total)), C_eff, 0.5 / C_eff


def fit_weighted_ocsvm(
    X: npt.NDArray[np.floating],
    w: npt.ArrayLike,
    *,
    form: str = "scholkopf",
    nu: float = 0.5,
    C: float | None = None,
    bound: str = "sum",
    kernel: str = "rbf",
    gamma: float = 1.0,
    degree: int = 3,
    coef0: float = 0.0,
    tol: float = 1e-3,
    zero_tol: float = 0.0,
    cache_size: float = 200.0,
    K: npt.NDArray[np.float64] | None = None,
) -> WeightedOCSVM:
    """Train one weighted one-class SVM (eq. 10 or eq. 11 of the paper).

    Prior validation of ``X`` is assumed (finite float array). It stays one
    function: its body is some 45 lines, the rest its fourteen parameters.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training samples.
    w : array-like of shape (n_samples,)
        Non-negative weights (memberships); at least one must be positive.
    form : {"scholkopf", "tax-duin"}, default="scholkopf"
        Which weighted one-class SVM.
    nu : float in (0, 1], default=0.5
        Schölkopf's nu. For Tax & Duin it sets ``C = 1 / (nu sum w)`` when
        ``C`` is None.
    C : float or None, default=None
        Tax & Duin's trade-off (upper bound ``C w_i``); needs ``C sum w >= 1``.
    bound : {"sum", "n"}, default="sum"
        Schölkopf upper bound ``w_i / (nu sum w)`` (LIBSVM's weighted form) or
        the literal eq. (11) ``w_i / (nu N)`` (needs ``sum w >= nu N``).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel, with LIBSVM's parameters ``gamma``, ``degree``, ``coef0``.
    gamma : float, default=1.0
        Kernel coefficient; for the RBF kernel ``exp(-gamma ||x - y||^2)``.
    degree : int, default=3
        Polynomial degree.
    coef0 : float, default=0.0
        Polynomial constant.
    tol : float, default=1e-3
        LIBSVM stopping tolerance (on the rescaled problem).
    zero_tol : float, default=0.0
        Weights ``<= zero_tol * max(w)`` are treated as zero (sample dropped).
    cache_size : float, default=200.0
        LIBSVM kernel cache in MB.
    K : ndarray of shape (n_samples, n_samples) or None, default=None
        The kernel matrix of ``X`` when already computed; LIBSVM then runs on
        the precomputed kernel (about 3x faster on a few hundred samples, since
        with large nu nearly every kernel row is needed anyway).

    Returns
    -------
    model : WeightedOCSVM
        The fitted machine in the normalised form.

    Raises
    ------
    InfeasibleProblemError
        All weights zero, ``sum w < nu N`` with ``bound="n"``, or ``C sum w < 1``.
    ValueError
        Bad weights or parameters.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    w = _check_weights(w, n)
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    keep = np.flatnonzero(w > zero_tol * w.max())
    wk = w[keep]
    total = float(wk.sum())
    kparams: dict[str, Any] = dict(
        kernel=kernel, gamma=float(gamma), degree=int(degree), coef0=float(coef0)
    )

    nu_eff, C_eff, native_scale = _box_bounds(form, bound, nu, C, n, total)
    libsvm_w = wk if C_eff is None else C_eff * wk

    Xk = X[keep]
    if keep.size == 1 or nu_eff >= 1.0 - 1e-12:
        # every multiplier at its upper bound: alpha = w / sum w (LIBSVM fails on nu = 1)
        alpha = libsvm_w / libsvm_w.sum()
        sv_idx = np.arange(keep.size, dtype=np.intp)
        n_iter = 0
        rho_from_libsvm = None
    else:
        alpha, sv_idx, n_iter, rho_from_libsvm = _libsvm_solution(
            Xk, K, keep, n, libsvm_w, nu_eff, form, kparams, tol=tol, cache_size=cache_size
        )
    Xsv = np.asarray(Xk[sv_idx], dtype=np.float64)
    center_sq_norm: float | None = None
    if rho_from_libsvm is not None:
        rho = rho_from_libsvm  # the support-vector kernel matrix is not needed
    else:
        rho, center_sq_norm = _offset_from_kernel(form, Xsv, alpha, libsvm_w[sv_idx], kparams)
    return WeightedOCSVM(
        form=form,
        support_vectors=Xsv,
        support=keep[sv_idx],
        alpha=alpha,
        rho=rho,
        native_scale=float(native_scale),
        n_iter=n_iter,
        known_center_sq_norm=center_sq_norm,
        **kparams,
    )


def _libsvm_solution(
    Xk: npt.NDArray[np.floating],
    K: npt.NDArray[np.float64] | None,
    keep: npt.NDArray[np.intp],
    n: int,
    libsvm_w: npt.NDArray[np.float64],
    nu_eff: float,
    form: str,
    kparams: dict[str, Any],
    *,
    tol: float,
    cache_size: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp], int, float | None]:
    """LIBSVM's weighted one-class SVM on the kept samples ``Xk``.

    Returns the normalised multipliers, the support vectors' positions in
    ``Xk``, LIBSVM's iterations and Schölkopf's ``rho`` in the normalised form
    (None for Tax & Duin).
    """
    kernel = kparams["kernel"]
    scale = libsvm_w.size / libsvm_w.sum()  # rescale to mean one (absolute tolerance)
    sample_weight = libsvm_w * scale
    if K is not None and not (form == "tax-duin" and kernel != "rbf"):
        # the whole kernel with weight 0 on the dropped rows: LIBSVM removes them
        # itself, keeping each kept row's column index into the kernel (its dense
        # precomputed kernel reads K[i, index of j]), so it solves the same problem
        # on the same values, in the same order, without the copy of the kept block
        # (4,000 x 4,000 per fit when a few memberships are below zero_tol); its
        # support indices are then positions among the kept rows, as on the block
        full_weight = np.zeros(n)
        full_weight[keep] = sample_weight
        svm = OneClassSVM(kernel="precomputed", nu=nu_eff, tol=tol, cache_size=cache_size)
        # the kernel is the fit's own, finite: no scan of its n^2 entries per fit
        with config_context(assume_finite=True):
            svm.fit(K, sample_weight=full_weight)
    elif K is not None or (form == "tax-duin" and kernel != "rbf"):
        if K is None:
            Kk = kernel_matrix(Xk, Xk, **kparams)
        else:  # no copy when every sample is kept (soft memberships)
            Kk = K if keep.size == n else K[np.ix_(keep, keep)]
        d = np.diag(Kk).copy()
        Kk = Kk - 0.5 * (d[:, None] + d[None, :])
        svm = OneClassSVM(kernel="precomputed", nu=nu_eff, tol=tol, cache_size=cache_size)
        svm.fit(Kk, sample_weight=sample_weight)
    else:
        svm = OneClassSVM(
            kernel=kernel,
            nu=nu_eff,
            tol=tol,
            cache_size=cache_size,
            gamma=kparams["gamma"],
            degree=kparams["degree"],
            coef0=kparams["coef0"],
        )
        svm.fit(Xk, sample_weight=sample_weight)
    b = np.asarray(svm.dual_coef_, dtype=np.float64).ravel()
    sv_idx = np.asarray(svm.support_, dtype=np.intp)
    norm = b.sum()
    alpha = b / norm
    n_iter = int(np.sum(svm.n_iter_))
    rho = float(np.ravel(svm.offset_)[0]) / norm if form == "scholkopf" else None
    return alpha, sv_idx, n_iter, rho


def _offset_from_kernel(
    form: str,
    Xsv: npt.NDArray[np.float64],
    alpha: npt.NDArray[np.float64],
    ub: npt.NDArray[np.float64],
    kparams: dict[str, Any],
) -> tuple[float, float]:
    """``rho`` and ``||centre||^2`` from the support vectors' kernel matrix (``ub``:
    the multipliers' upper bounds ``C w_i`` of Tax & Duin)."""
    Ksv = kernel_matrix(Xsv, Xsv, **kparams)
    Ka = Ksv @ alpha
    center_sq_norm = float(alpha @ Ka)
    if form == "scholkopf":
        # all at the bound: KKT only gives rho >= max_i (K alpha)_i; take the smallest
        return float(Ka.max()), center_sq_norm
    free = alpha < ub * (1 - 1e-6)
    dist2 = np.diag(Ksv) - 2 * Ka + center_sq_norm
    return (float(dist2[free].mean()) if np.any(free) else float("nan")), center_sq_norm


def fit_linear_weighted_ocsvm(
    F: npt.NDArray[np.floating],
    w: npt.ArrayLike,
    *,
    form: str = "scholkopf",
    nu: float = 0.5,
    C: float | None = None,
    bound: str = "sum",
    tol: float = 1e-8,
    warm_start: LinearWeightedOCSVM | None = None,
) -> LinearWeightedOCSVM:
    """Train a weighted one-class SVM with a linear kernel on explicit features ``F``.

    Same problems and conventions as :func:`fit_weighted_ocsvm` (Schölkopf
    eq. 11 with the bound ``w_i / (nu sum w)`` or ``w_i / (nu N)``; Tax & Duin
    eq. 10 with the bound ``C w_i``), solved in the primal by
    :func:`~marginclust.solvers._box_simplex_newton.solve_box_simplex_newton`:
    cost linear in the number of samples.

    Parameters
    ----------
    F : ndarray of shape (n_samples, n_features_out)
        Features (e.g. a Nystroem map of the data); prior validation assumed.
    w : array-like of shape (n_samples,)
        Non-negative weights; at least one positive.
    form, nu, C, bound
        As in :func:`fit_weighted_ocsvm`.
    tol : float, default=1e-8
        Duality-gap tolerance of the solver.
    warm_start : LinearWeightedOCSVM or None, default=None
        A previous solution to start from (EM iterations move the weights little).

    Returns
    -------
    model : LinearWeightedOCSVM
    """
    n = F.shape[0]
    w = _check_weights(w, n)
    total = float(w.sum())
    b: npt.NDArray[np.float64] | None = None
    nu_eff, C_eff, native_scale = _box_bounds(form, bound, nu, C, n, total)
    if C_eff is None:
        u = w / (nu_eff * total)
    else:
        u = C_eff * w
        b = -0.5 * np.einsum("ij,ij->i", F, F).astype(np.float64)
    if float(u.sum()) <= 1.0 + 1e-12:
        # every multiplier at its upper bound (nu' = 1): alpha = u / sum u
        a = u / u.sum()
        coef = np.asarray(F.T @ a, dtype=np.float64)
        pos = w > 0
        c = np.asarray(F[pos] @ coef, dtype=np.float64)
        if form == "scholkopf":
            rho = float(c.max())  # the smallest offset the KKT conditions allow
        else:
            rho = float("nan")  # no free support vector defines the radius
        return LinearWeightedOCSVM(form, coef, rho, float(native_scale))
    sol = solve_box_simplex_newton(
        F, u, b, w0=None if warm_start is None else warm_start.coef, tol=tol
    )
    rho = sol.rho if form == "scholkopf" else float(sol.w @ sol.w) - 2.0 * sol.rho
    return LinearWeightedOCSVM(
        form, sol.w, float(rho), float(native_scale), n_iter=sol.n_iter, gap=sol.gap
    )

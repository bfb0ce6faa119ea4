"""Weighted one-class SVMs (Bicego & Figueiredo 2009, Sec. 2.3): the problems and machines.

Schölkopf form, eq. (11) of the paper::

    min_a  a^T K a   s.t.  0 <= a_i <= w_i / (nu * N),  sum_i a_i = 1,
    d(x) = sum_i a_i k(x_i, x) - rho.

Tax & Duin form, eq. (10) (the printed "min" is the dual's max; the objective
that is minimised is its negative)::

    min_a  a^T K a - sum_i a_i K_ii   s.t.  0 <= a_i <= C w_i,  sum_i a_i = 1,
    ||phi(x) - a||^2 = k(x, x) - 2 sum_i a_i k(x_i, x) + a^T K a      (eq. 3).

This module holds the kernels and the fitted machines (their decision values);
the solvers that train them, and LIBSVM's conventions, are in
:mod:`marginclust.solvers._weighted_ocsvm`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt
from sklearn.metrics.pairwise import euclidean_distances

__all__ = [
    "FORMS",
    "KERNELS",
    "LinearWeightedOCSVM",
    "WeightedOCSVM",
    "kernel_diag",
    "kernel_matrix",
]

FORMS = ("scholkopf", "tax-duin")
KERNELS = ("rbf", "linear", "poly")

# Number of kernel entries computed at once when evaluating on many samples.
_BLOCK_ENTRIES = 4_000_000


def kernel_matrix(
    X: npt.NDArray[np.floating],
    Y: npt.NDArray[np.floating],
    *,
    kernel: str = "rbf",
    gamma: float = 1.0,
    degree: int = 3,
    coef0: float = 0.0,
) -> npt.NDArray[np.float64]:
    """Kernel matrix between the rows of ``X`` and ``Y`` (LIBSVM's definitions).

    ``rbf``: ``exp(-gamma ||x - y||^2)``; ``linear``: ``<x, y>``;
    ``poly``: ``(gamma <x, y> + coef0)^degree``. The arguments are assumed valid
    (the estimators check ``kernel`` against ``KERNELS``).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Left samples.
    Y : ndarray of shape (m, d)
        Right samples.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel name.
    gamma : float, default=1.0
        Kernel coefficient (the paper's tau for the RBF kernel).
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.

    Returns
    -------
    K : ndarray of shape (n, m)
        The kernel values.
    """
    if kernel == "rbf":
        D = euclidean_distances(X, Y, squared=True)
        np.maximum(D, 0.0, out=D)
        D *= -gamma
        return np.exp(D, out=D)
    G = np.asarray(X @ Y.T, dtype=np.float64)
    if kernel == "linear":
        return G
    return (gamma * G + coef0) ** degree  # "poly"


def kernel_diag(
    X: npt.NDArray[np.floating],
    *,
    kernel: str = "rbf",
    gamma: float = 1.0,
    degree: int = 3,
    coef0: float = 0.0,
) -> npt.NDArray[np.float64]:
    """``k(x_i, x_i)`` for each row of ``X`` without forming the kernel matrix.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Samples.
    kernel, gamma, degree, coef0
        As in :func:`kernel_matrix`.

    Returns
    -------
    diag : ndarray of shape (n,)
        Kernel diagonal.
    """
    if kernel == "rbf":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X).astype(np.float64)
    if kernel == "linear":
        return sq
    return (gamma * sq + coef0) ** degree  # "poly"


@dataclass(frozen=True)
class WeightedOCSVM:
    """A fitted weighted one-class SVM in the normalised form (``sum alpha = 1``).

    Parameters
    ----------
    form : {"scholkopf", "tax-duin"}
        Which problem was solved.
    support_vectors : ndarray of shape (n_sv, n_features)
        Training samples with ``alpha > 0``.
    support : ndarray of shape (n_sv,)
        Their row indices in the training data of the fit.
    alpha : ndarray of shape (n_sv,)
        Normalised dual coefficients (they sum to one).
    rho : float
        Schölkopf: the offset of eq. (7) in the normalised scale. Tax & Duin:
        the squared radius ``R^2`` (mean squared distance of the free support
        vectors; NaN when there is none).
    native_scale : float
        Schölkopf: ``nu' * sum(w)``, the factor between LIBSVM's own decision
        values and the normalised ``d(x)``. Tax & Duin: ``1 / (2 C)``, the same
        factor for the squared distance: with an RBF kernel
        ``-||phi(x) - a||^2 / 2`` is the Schölkopf ``d(x)`` plus a constant, and
        ``1 / C = nu sum(w)`` when ``C`` is derived from ``nu``.
    kernel, gamma, degree, coef0
        Kernel definition.
    n_iter : int
        LIBSVM iterations (``n_iter_``), 0 when no solver call was needed.
    known_center_sq_norm : float or None
        ``alpha^T K alpha`` when the fit already computed it; otherwise the
        property :attr:`center_sq_norm` computes it on first use (the default
        Schölkopf path never needs it, so no kernel matrix is built after a fit).
    """

    form: str
    support_vectors: npt.NDArray[np.float64]
    support: npt.NDArray[np.intp]
    alpha: npt.NDArray[np.float64]
    rho: float
    native_scale: float
    kernel: str
    gamma: float
    degree: int
    coef0: float
    n_iter: int = 0
    known_center_sq_norm: float | None = None

    @cached_property
    def center_sq_norm(self) -> float:
        """``alpha^T K alpha``, the squared norm of the centre (computed on first use)."""
        if self.known_center_sq_norm is not None:
            return self.known_center_sq_norm
        Ksv = kernel_matrix(
            self.support_vectors,
            self.support_vectors,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        )
        return float(self.alpha @ Ksv @ self.alpha)

    def _kernel_dot(self, X: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """``sum_i alpha_i k(x_i, x)`` for every row, in row blocks."""
        n = X.shape[0]
        out = np.empty(n)
        step = max(1, _BLOCK_ENTRIES // max(1, self.alpha.size))
        for start in range(0, n, step):
            Kb = kernel_matrix(
                X[start : start + step],
                self.support_vectors,
                kernel=self.kernel,
                gamma=self.gamma,
                degree=self.degree,
                coef0=self.coef0,
            )
            out[start : start + step] = Kb @ self.alpha
        return out

    def decision_function(self, X: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Schölkopf: the normalised ``d(x)`` of eq. (6); Tax & Duin: ``R^2 - ||phi(x) - a||^2``.

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
            Samples (validated).

        Returns
        -------
        d : ndarray of shape (n,)
            Positive inside the learnt region.
        """
        if self.form == "scholkopf":
            return self._kernel_dot(X) - self.rho
        return self.rho - self.squared_distance(X)

    def squared_distance(self, X: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Squared feature-space distance to the centre ``a = sum alpha_i phi(x_i)`` (eq. 3).

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
            Samples (validated).

        Returns
        -------
        dist2 : ndarray of shape (n,)
            Non-negative squared distances.
        """
        diag = kernel_diag(
            X, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0
        )
        return np.maximum(diag - 2.0 * self._kernel_dot(X) + self.center_sq_norm, 0.0)


@dataclass(frozen=True)
class LinearWeightedOCSVM:
    """A weighted one-class SVM on explicit features ``f(x)``, normalised (``sum alpha = 1``).

    The centre is ``coef = sum_i alpha_i f(x_i)``; with the features of a
    Nystroem map this is the low-rank counterpart of :class:`WeightedOCSVM`.

    Parameters
    ----------
    form : {"scholkopf", "tax-duin"}
        Which problem was solved.
    coef : ndarray of shape (n_features_out,)
        ``sum_i alpha_i f(x_i)``.
    rho : float
        Schölkopf: the offset (``d(x) = f(x).coef - rho``). Tax & Duin: the
        squared radius ``R^2``.
    native_scale : float
        ``nu' * sum(w)`` (Schölkopf), as :attr:`WeightedOCSVM.native_scale`.
    n_iter : int
        Newton steps of the solver.
    gap : float
        Certified duality gap of the solve.
    """

    form: str
    coef: npt.NDArray[np.float64]
    rho: float
    native_scale: float
    n_iter: int = 0
    gap: float = 0.0

    @property
    def center_sq_norm(self) -> float:
        """``||coef||^2``."""
        return float(self.coef @ self.coef)

    def decision_function(self, F: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Schölkopf: ``f(x).coef - rho``; Tax & Duin: ``R^2 - ||f(x) - coef||^2``.

        Parameters
        ----------
        F : ndarray of shape (n, n_features_out)
            Features of the samples.

        Returns
        -------
        d : ndarray of shape (n,)
        """
        if self.form == "scholkopf":
            return np.asarray(F @ self.coef, dtype=np.float64) - self.rho
        return self.rho - self.squared_distance(F)

    def squared_distance(self, F: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """``||f(x) - coef||^2`` for every row of ``F``.

        Parameters
        ----------
        F : ndarray of shape (n, n_features_out)
            Features of the samples.

        Returns
        -------
        dist2 : ndarray of shape (n,)
        """
        q = np.einsum("ij,ij->i", F, F).astype(np.float64)
        return np.maximum(q - 2.0 * np.asarray(F @ self.coef) + self.center_sq_norm, 0.0)

"""Iterative least-squares SVM clustering (Zhang, Tsang & Kwok 2009; SLMC paper eq. (14))."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve
from sklearn.cluster import KMeans

from ..base import BaseClusterer
from ..solvers import SolverResult
from ..solvers._alternating import AlternatingMinimizer
from ..utils import check_positive
from ._slmc import _MODEL_ATTRIBUTES, _KernelModelMixin

__all__ = ["IterativeLSSVM", "balanced_sign"]

_INITS = ("k-means", "random")


def balanced_sign(f: npt.NDArray[np.floating], n_max_imbalance: int) -> npt.NDArray[np.float64]:
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


@dataclass
class _LSSVMProblem:
    """Alternating problem over the labels y; ``step`` = fit (w-step) then relabel (y-step).

    Objective (twice the paper's eq. (14)): ``||w||^2 + lam sum_i (f_i - y_i)^2``.
    Exact mode: ``(I + lam Kmat) a = lam y`` with one Cholesky factor kept for
    all sweeps; low-rank mode: ``(I + lam Phi^T Phi) w = lam Phi^T y``.
    """

    lam: float
    n_max_imbalance: int
    Kmat: npt.NDArray[np.float64] | None = None
    Phi: npt.NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        if self.Kmat is not None:
            M = self.lam * self.Kmat
        else:
            M = self.lam * (self.Phi.T @ self.Phi)
        M[np.diag_indices_from(M)] += 1.0
        self._factor = cho_factor(M, lower=True, overwrite_a=True, check_finite=False)

    def fit_coef(self, y: npt.NDArray[np.float64]) -> tuple[npt.NDArray, npt.NDArray, float]:
        """Coefficients, decision values and regulariser for labels ``y``."""
        if self.Kmat is not None:
            a = cho_solve(self._factor, self.lam * y, check_finite=False)
            f = self.Kmat @ a
            reg = float(a @ f)
        else:
            a = cho_solve(self._factor, self.lam * (self.Phi.T @ y), check_finite=False)
            f = self.Phi @ a
            reg = float(a @ a)
        return a, f, reg

    def step(self, state: tuple) -> tuple[tuple, float]:
        y = state[0]
        a, f, reg = self.fit_coef(y)
        y_new = balanced_sign(f, self.n_max_imbalance)
        J = reg + self.lam * float(np.sum((f - y_new) ** 2))
        return (y_new, a, f), J

    @staticmethod
    def change(old: tuple, new: tuple) -> float:
        return float(np.count_nonzero(old[0] != new[0]))


class IterativeLSSVM(_KernelModelMixin, BaseClusterer):
    """Binary maximum margin clustering by iterative least-squares SVM.

    Alternates an LS-SVM fit on the current labels (kernel ridge regression on
    targets y in {-1, +1}) and an exact relabelling under the class-balance
    constraint ``|sum_i y_i| <= l``, minimising (eq. (14) of Wang & Chen 2013,
    after Zhang, Tsang & Kwok 2009)::

        J(w, y) = ||w||^2 + lam * sum_i (w^T phi(x_i) - y_i)^2

    Both steps are exact, so ``J`` never increases; the loop stops when no
    label changes. Binary only: the references define the two-cluster problem.
    The threshold is implicit (kernel ``"linear"`` is ``x^T y + 1``; the RBF
    kernel needs none).

    Parameters
    ----------
    n_clusters : int, default=2
        Must be 2.
    kernel : {"rbf", "linear", "precomputed"} or callable, default="rbf"
        As in :class:`~marginclust.SLMC`.
    sigma : float or None, default=None
        RBF width; None uses the mean pairwise distance ``sigma0``.
    sigma_scale : float, default=1.0
        Multiplier of the width.
    lam : float, default=0.1
        Weight of the squared loss. The defaults (``lam=0.1``, ``sigma0``,
        ``balance=0.1``, standardised features) had the best mean clustering
        accuracy over eight binary UCI sets in ``benchmarks/slmc_defaults.py --lssvm``.
    balance : float, default=0.1
        Class-balance constraint as a fraction of ``n``: ``l = floor(balance * n)``
        (0 forces equal halves, 1 removes the constraint).
    init : {"k-means", "random"} or array-like, default="k-means"
        Initial labels: 2-means (as the reference), random signs, or an array
        of ``n_samples`` labels in {0, 1}.
    max_iter : int, default=100
        Maximum number of sweeps.
    n_init : int, default=1
        Number of restarts (the smallest final ``J`` is kept).
    n_components : int or None, default=None
        Low-rank mode with an ``L``-dimensional feature map (see SLMC).
    low_rank : {"nystroem", "rff"}, default="nystroem"
        Feature map of the low-rank mode.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the feature map.
    verbose : int, default=0
        Log each sweep.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        1 where ``y_i = +1``, else 0.
    decision_values_ : ndarray of shape (n_samples,)
        ``f(x_i)`` on the training data.
    threshold_ : float
        Midpoint between the decision values of the two clusters; ``predict``
        returns ``f(x) > threshold_`` (it reproduces ``labels_`` on the
        training data).
    dual_coef_, X_fit_, coef_, feature_map_, sigma_
        The fitted decision function (exact or low-rank), as in SLMC.
    objective_, objective_history_, n_iter_, converged_, n_features_in_
        As every marginclust clusterer.

    References
    ----------
    K. Zhang, I. W. Tsang and J. T. Kwok, "Maximum margin clustering made
    practical", IEEE Trans. Neural Networks 20 (2009) 583-596.
    """

    _min_clusters = 1  # n_clusters=1: the trivial one-cluster partition
    _max_clusters = 2

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: Any = "rbf",
        sigma: float | None = None,
        sigma_scale: float = 1.0,
        lam: float = 0.1,
        balance: float = 0.1,
        init: Any = "k-means",
        max_iter: int = 100,
        n_init: int = 1,
        n_components: int | None = None,
        low_rank: str = "nystroem",
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.sigma = sigma
        self.sigma_scale = sigma_scale
        self.lam = lam
        self.balance = balance
        self.init = init
        self.max_iter = max_iter
        self.n_init = n_init
        self.n_components = n_components
        self.low_rank = low_rank
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self, X: Any) -> None:
        self._lam = check_positive(self.lam, "lam")
        bal = check_positive(self.balance, "balance", strict=False)
        if bal > 1:
            raise ValueError(f"balance must be in [0, 1] (a fraction of n); got {self.balance!r}.")
        self._l = int(np.floor(bal * X.shape[0]))
        check_positive(self.max_iter, "max_iter", integer=True)
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(
                    f"init must be one of {_INITS} or an array of n_samples labels in {{0, 1}}; "
                    f"got {self.init!r}."
                )
        else:
            lab = np.asarray(self.init)
            if lab.shape != (X.shape[0],) or not np.all(np.isin(lab, (0, 1))):
                raise ValueError(
                    f"init as an array must hold n_samples={X.shape[0]} labels in {{0, 1}}; "
                    f"got shape {lab.shape}."
                )
            self._init_y = np.where(lab == 1, 1.0, -1.0)
        self._check_kernel_params(X)

    def fit(self, X: Any, y: Any = None) -> IterativeLSSVM:
        """Fit the clustering to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data, or the kernel matrix if ``kernel="precomputed"``.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_clearing(
            X, (*_MODEL_ATTRIBUTES, "threshold_"), ("_cache", "_init_y", "_problem")
        )

    def _initial_labels(self, X: Any, random_state: np.random.RandomState) -> npt.NDArray:
        if not isinstance(self.init, str):
            return self._init_y.copy()
        n = X.shape[0]
        if self.init == "random":
            return np.where(random_state.rand(n) < 0.5, 1.0, -1.0)
        km = KMeans(n_clusters=2, n_init=1, random_state=random_state).fit(X)
        return np.where(km.labels_ == 1, 1.0, -1.0)

    def _fit_one(
        self, X: Any, random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        cache, init_X = self._kernel_cache(X, random_state)
        if "_problem" not in self.__dict__:
            self._problem = _LSSVMProblem(
                self._lam, self._l, Kmat=cache.get("Kmat"), Phi=cache.get("Phi")
            )
        if self._n_clusters == 1:  # trivial: one cluster, f fitted to y = +1
            a, f, reg = self._problem.fit_coef(np.ones(init_X.shape[0]))
            J = reg + self._lam * float(np.sum((f - 1.0) ** 2))
            x = {"labels_": np.zeros(f.shape[0], dtype=np.intp), "decision_values_": f,
                 "threshold_": np.inf}
            x.update(self._fitted_model(cache, a))
            return SolverResult(x=x, objective=J, objective_history=np.array([J]), n_iter=1,
                                converged=True)
        y0 = self._initial_labels(init_X, random_state)
        solver = AlternatingMinimizer(
            tol=0.0, tol_x=0.0, min_iter=1, max_iter=int(self.max_iter), verbose=self.verbose
        )
        res = solver.solve(self._problem, (y0, None, None))
        y, coef, f = res.x
        labels = (y > 0).astype(np.intp)
        pos, neg = f[y > 0], f[y < 0]
        if pos.size and neg.size:
            threshold = 0.5 * (float(pos.min()) + float(neg.max()))
        else:
            threshold = 0.0
        x = {"labels_": labels, "decision_values_": f, "threshold_": threshold}
        x.update(self._fitted_model(cache, coef))
        return replace(res, x=x)

    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values ``f(x)`` of the LS-SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (the cross-kernel if ``kernel="precomputed"``).

        Returns
        -------
        f : ndarray of shape (n_samples,)
        """
        X = self._validate_predict_data(X)
        return self._decision_values(X)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return (self._decision_values(X) > self.threshold_).astype(np.intp)

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

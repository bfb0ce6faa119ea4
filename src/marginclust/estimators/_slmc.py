"""Soft large margin clustering (SLMC, Wang & Chen 2013), exact and low-rank."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.cluster import KMeans

from ..base import BaseClusterer, SoftClusterMixin
from ..feature_maps._low_rank import LowRankKernelMap, linear_kernel_with_bias
from ..objectives._slmc import (
    alpha_step,
    alpha_step_features,
    objective,
    objective_features,
    u_step,
)
from ..solvers import SolverResult
from ..solvers._alternating import AlternatingMinimizer
from ..utils import check_memberships, check_positive

__all__ = ["SLMC"]

_KERNELS = ("rbf", "linear", "precomputed")
_INITS = ("fcm", "fcm-sharp", "k-means", "random")
_SHARP_M = 1.2
# Exact mode holds the kernel matrix and one factorised copy (~2-3 n x n float64).
_EXACT_COPIES = 3
_FALLBACK_MEMORY = 4 * 2**30
_MODEL_ATTRIBUTES = ("dual_coef_", "X_fit_", "coef_", "feature_map_", "sigma_")


def _available_memory() -> int:
    """Bytes of physical memory currently available (a fixed 4 GiB if unknown)."""
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return _FALLBACK_MEMORY


def exact_memory_limit() -> int:
    """Largest number of bytes exact SLMC may use: half the available memory."""
    return _available_memory() // 2


class _KernelModelMixin:
    """Kernel handling shared by SLMC and IterativeLSSVM (exact or low-rank).

    Expects the attributes ``kernel``, ``sigma``, ``sigma_scale``,
    ``n_components`` and ``low_rank``.
    """

    kernel: Any
    sigma: Any
    sigma_scale: Any
    n_components: Any
    low_rank: Any

    def _check_kernel_params(self, X: Any) -> None:
        kernel = self.kernel
        if not (callable(kernel) or (isinstance(kernel, str) and kernel in _KERNELS)):
            raise ValueError(
                f"kernel must be one of {_KERNELS} or a callable kernel(X, Y); got {kernel!r}."
            )
        check_positive(self.sigma_scale, "sigma_scale")
        if self.sigma is not None:
            check_positive(self.sigma, "sigma")
        if self.low_rank not in ("nystroem", "rff"):
            raise ValueError(f"low_rank must be 'nystroem' or 'rff'; got {self.low_rank!r}.")
        n = X.shape[0]
        if kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "With kernel='precomputed', X must be the square (n_samples, n_samples) "
                    f"kernel matrix of the training data; got shape {X.shape}."
                )
            if self.n_components is not None:
                raise ValueError(
                    "n_components (low-rank mode) needs the data, not a precomputed kernel; "
                    "pass kernel='rbf' or a callable, or n_components=None."
                )
        if self.n_components is not None:
            check_positive(self.n_components, "n_components", integer=True)
        else:
            needed = _EXACT_COPIES * 8 * n * n
            limit = exact_memory_limit()
            if needed > limit:
                raise ValueError(
                    f"Exact {type(self).__name__} on n_samples={n} needs about "
                    f"{needed / 2**30:.1f} GiB for the n x n kernel matrix, more than the "
                    f"{limit / 2**30:.1f} GiB allowed (half the available memory). Use the "
                    "low-rank mode, e.g. n_components=500, which needs O(n_samples * "
                    "n_components) memory."
                )

    def _resolve_sigma(self, X: npt.NDArray[np.floating]) -> float | None:
        if self.kernel != "rbf":
            return None
        if self.sigma is not None:
            base = float(self.sigma)
        else:
            from ..feature_maps._kernel import mean_pairwise_distance

            base = float(mean_pairwise_distance(X, max_samples=2000, random_state=0))
            if not np.isfinite(base) or base <= 0:
                raise ValueError(
                    "The mean pairwise distance of X is zero; pass sigma explicitly."
                )
        return base * float(self.sigma_scale)

    def _kernel_matrix(self, X: Any, Y: Any, sigma: float | None) -> npt.NDArray[np.float64]:
        """Kernel between validated ``X`` and the training data ``Y`` (n_x, n_y)."""
        if self.kernel == "precomputed":
            return np.asarray(X, dtype=np.float64)
        if self.kernel == "linear":
            return linear_kernel_with_bias(X, Y)
        if callable(self.kernel):
            K = np.asarray(self.kernel(X, Y), dtype=np.float64)
            if K.shape != (X.shape[0], Y.shape[0]):
                raise ValueError(
                    f"The kernel callable returned shape {K.shape}; expected "
                    f"{(X.shape[0], Y.shape[0])}."
                )
            return K
        from ..feature_maps._kernel import rbf_kernel_sigma

        return np.asarray(rbf_kernel_sigma(X, Y, sigma), dtype=np.float64)

    def _prepare_kernel(self, X: Any, seed: int) -> dict[str, Any]:
        """Kernel matrix (exact) or features (low-rank) of the training data."""
        Xf = np.asarray(X, dtype=np.float64)
        sigma = self._resolve_sigma(Xf)
        if self.n_components is None:
            return {"Kmat": self._kernel_matrix(Xf, Xf, sigma), "Xf": Xf, "sigma": sigma}
        if self.kernel == "linear":
            kind: Any = "linear"
        else:
            kind = self.kernel if callable(self.kernel) else "rbf"
        fmap = LowRankKernelMap(
            kernel=kind,
            sigma=sigma if sigma is not None else 1.0,
            n_components=int(self.n_components),
            method=self.low_rank,
            random_state=seed,
        ).fit(Xf)
        return {"Phi": fmap.transform(Xf), "fmap": fmap, "Xf": Xf, "sigma": sigma}

    def _fit_clearing(
        self, X: Any, fitted: tuple[str, ...], scratch: tuple[str, ...]
    ) -> Any:
        """Run ``self._fit(X)`` without stale ``fitted`` attributes; drop ``scratch`` after."""
        for name in fitted:
            self.__dict__.pop(name, None)
        try:
            return self._fit(X)  # type: ignore[attr-defined]
        finally:
            for name in scratch:
                self.__dict__.pop(name, None)

    def _kernel_cache(
        self, X: Any, random_state: np.random.RandomState
    ) -> tuple[dict[str, Any], Any]:
        """The per-fit kernel cache (built at the first restart) and the data to initialise on."""
        if "_cache" not in self.__dict__:
            # one kernel / feature map per fit; the map's seed comes from the first restart
            self._cache = self._prepare_kernel(X, random_state.randint(np.iinfo(np.int32).max))
        cache = self._cache
        return cache, cache["Xf"] if self.kernel != "precomputed" else cache["Kmat"]

    def _fitted_model(self, cache: dict[str, Any], coef: Any) -> dict[str, Any]:
        """Fitted attributes that :meth:`_decision_values` needs."""
        x: dict[str, Any] = {"sigma_": cache["sigma"]}
        if "Kmat" in cache:
            x["dual_coef_"] = coef
            if self.kernel != "precomputed":
                x["X_fit_"] = cache["Xf"]
        else:
            x["coef_"] = coef
            x["feature_map_"] = cache["fmap"]
        return x

    def _decision_values(self, X: Any) -> npt.NDArray[np.float64]:
        Xf = np.asarray(X, dtype=np.float64)
        if getattr(self, "feature_map_", None) is not None:
            return self.feature_map_.transform(Xf) @ self.coef_
        Y = getattr(self, "X_fit_", None)
        return self._kernel_matrix(Xf, Y, self.sigma_) @ self.dual_coef_


@dataclass
class _SLMCProblem:
    """One SLMC restart as an alternating problem over the memberships U.

    ``step(U)`` runs the alpha-step then the U-step and returns
    ``((U_new, coef, F), J)``; with ``Kmat`` given the coefficients are dual
    (n, K), with ``Phi`` given they are primal weights (L, K).
    """

    lam: float
    m: float
    Kmat: npt.NDArray[np.float64] | None = None
    Phi: npt.NDArray[np.float64] | None = None

    def step(self, state: tuple) -> tuple[tuple, float]:
        U = state[0]
        if self.Kmat is not None:
            coef = alpha_step(self.Kmat, U, self.lam, self.m)
            F = self.Kmat @ coef
            U_new = u_step(F, self.m)
            J = objective(self.Kmat, coef, U_new, self.lam, self.m, F=F)
        else:
            coef = alpha_step_features(self.Phi, U, self.lam, self.m)
            F = self.Phi @ coef
            U_new = u_step(F, self.m)
            J = objective_features(coef, F, U_new, self.lam, self.m)
        return (U_new, coef, F), J

    @staticmethod
    def change(old: tuple, new: tuple) -> float:
        return float(np.max(np.abs(new[0] - old[0])))


class SLMC(_KernelModelMixin, SoftClusterMixin, BaseClusterer):
    """Soft large margin clustering (Wang & Chen, Information Sciences 2013).

    Learns a kernel decision function ``f(x) = sum_i alpha_i k(x_i, x)`` in
    ``R^K`` and soft memberships ``U`` by alternating two exact minimisations of::

        J(alpha, U) = tr(alpha Kmat alpha^T) + lam * sum_ik u_ik^m ||f(x_i) - e_k||^2

    The alpha-step is a weighted kernel ridge regression solved by one Cholesky
    factorisation (SPEC section 1; the paper's printed eq. (8) is not the
    minimiser); the U-step is the closed form (13), computed in log space. ``J``
    never increases. Labels are ``argmax_k f_k(x)`` (= ``argmax_k u_k``,
    Proposition 1).

    Features are used as given; standardising them first (e.g.
    ``make_pipeline(StandardScaler(), SLMC(...))``) was better on average in
    ``benchmarks/slmc_defaults.py``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``K``.
    kernel : {"rbf", "linear", "precomputed"} or callable, default="rbf"
        ``"rbf"``: ``exp(-||x - y||^2 / (2 s^2))``; ``"linear"``: ``x^T y + 1``
        (the paper's implicit threshold); a callable ``kernel(X, Y)`` returning
        the (n_x, n_y) kernel matrix; ``"precomputed"``: ``X`` is the (n, n)
        training kernel matrix in ``fit`` and the (n_new, n) cross-kernel in
        ``predict``.
    sigma : float or None, default=None
        RBF width. None uses ``sigma0``, the mean pairwise distance of the
        training data (estimated on a 2,000-sample subset when n is larger).
    sigma_scale : float, default=0.25
        Multiplier of the width: the kernel uses ``s = sigma_scale * sigma``
        (the paper's grid is ``sigma_scale`` in {0.25, 0.5, 1, 2, 4} with
        ``sigma=None``). The default 0.25 (with ``lam=1``, ``init="fcm-sharp"``
        and standardised features) had the best mean clustering accuracy over
        eight UCI sets in ``benchmarks/slmc_defaults.py``; the paper's
        ``sigma0`` with ``lam=1`` often collapses to fewer clusters.
    lam : float, default=1.0
        Weight of the membership-weighted squared loss.
    m : float, default=2.0
        Fuzzifier (> 1).
    init : {"fcm", "fcm-sharp", "k-means", "random"} or array-like, default="fcm-sharp"
        Initial memberships: fuzzy c-means at the same ``m`` (the paper's
        choice), fuzzy c-means at ``m = 1.2`` (sharper; the default, since in
        high dimension FCM at ``m = 2`` is nearly uniform), one-hot K-means
        labels, random Dirichlet rows, or an (n_samples, n_clusters) membership
        matrix. With ``kernel="precomputed"`` the data-space inits run on the
        rows of the kernel matrix.
    tol : float, default=1e-5
        Relative objective tolerance of the stopping rule.
    tol_memberships : float, default=1e-4
        Largest membership change allowed at convergence (both tolerances
        must hold).
    min_iter : int, default=5
        Minimum number of sweeps before the stopping rule may fire.
    max_iter : int, default=300
        Maximum number of sweeps per restart.
    n_init : int, default=1
        Number of restarts; the one with the smallest final ``J`` is kept.
    n_components : int or None, default=None
        None: exact kernel (O(n^2) memory, O(n^3) per sweep). An integer ``L``:
        low-rank mode with an ``L``-dimensional feature map (O(n L) memory,
        O(n L^2 + L^3) per sweep). Exact mode refuses data whose kernel matrix
        would not fit in memory.
    low_rank : {"nystroem", "rff"}, default="nystroem"
        Feature map of the low-rank mode (Nystroem landmarks or random
        Fourier features, RBF only). Ignored for ``kernel="linear"``, whose
        exact features ``[x, 1]`` are used.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the low-rank feature map. Use an int to
        make the randomness deterministic.
    verbose : int, default=0
        Log each sweep.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        ``argmax_k f_k(x_i)``.
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships ``U`` (rows on the simplex).
    decision_values_ : ndarray of shape (n_samples, n_clusters)
        ``f(x_i)`` on the training data.
    dual_coef_ : ndarray of shape (n_samples, n_clusters)
        alpha^T (exact mode).
    coef_ : ndarray of shape (n_output_features, n_clusters)
        Primal weights (low-rank mode).
    feature_map_ : LowRankKernelMap
        Fitted feature map (low-rank mode).
    sigma_ : float or None
        RBF width actually used.
    objective_ : float
        Final ``J``.
    objective_history_ : ndarray of shape (n_iter_,)
        ``J`` after each sweep (never increases).
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    References
    ----------
    Y. Wang and S. Chen, "Soft large margin clustering", Information Sciences
    229 (2013) 157-168.
    """

    _min_clusters = 1  # n_clusters=1: the trivial one-cluster partition (u = 1)

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        sigma: float | None = None,
        sigma_scale: float = 0.25,
        lam: float = 1.0,
        m: float = 2.0,
        init: str | npt.ArrayLike = "fcm-sharp",
        tol: float = 1e-5,
        tol_memberships: float = 1e-4,
        min_iter: int = 5,
        max_iter: int = 300,
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
        self.m = m
        self.init = init
        self.tol = tol
        self.tol_memberships = tol_memberships
        self.min_iter = min_iter
        self.max_iter = max_iter
        self.n_init = n_init
        self.n_components = n_components
        self.low_rank = low_rank
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _check_params(self, X: Any) -> None:
        self._lam = check_positive(self.lam, "lam")
        self._m = check_positive(self.m, "m")
        if self._m <= 1.0:
            raise ValueError(f"m must be > 1 (fuzzifier); got {self.m!r}.")
        check_positive(self.tol, "tol", strict=False)
        check_positive(self.tol_memberships, "tol_memberships", strict=False)
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.min_iter, "min_iter", integer=True)
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(
                    f"init must be one of {_INITS} or an (n_samples, n_clusters) membership "
                    f"array; got {self.init!r}."
                )
        else:
            self._init_U = check_memberships(self.init, X.shape[0], self._n_clusters, name="init")
        self._check_kernel_params(X)

    # ----------------------------------------------------------------- init
    def _initial_memberships(
        self, X: npt.NDArray[np.floating], random_state: np.random.RandomState
    ) -> npt.NDArray[np.float64]:
        K = self._n_clusters
        n = X.shape[0]
        if not isinstance(self.init, str):
            return self._init_U.copy()
        if K == 1:
            return np.ones((n, 1))
        if self.init == "random":
            return random_state.dirichlet(np.ones(K), size=n)
        if self.init == "k-means":
            km = KMeans(n_clusters=K, n_init=1, random_state=random_state).fit(X)
            return np.eye(K)[km.labels_]
        from .. import FuzzyCMeans

        m = self._m if self.init == "fcm" else _SHARP_M
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fcm = FuzzyCMeans(n_clusters=K, m=m, n_init=1, random_state=random_state).fit(X)
        return np.asarray(fcm.memberships_, dtype=np.float64)

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any = None) -> SLMC:
        """Fit SLMC to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data, or the training kernel matrix if ``kernel="precomputed"``.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_clearing(X, _MODEL_ATTRIBUTES, ("_cache", "_init_U"))

    def _fit_one(
        self, X: Any, random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        cache, init_X = self._kernel_cache(X, random_state)
        U0 = self._initial_memberships(init_X, random_state)
        problem = _SLMCProblem(self._lam, self._m, Kmat=cache.get("Kmat"), Phi=cache.get("Phi"))
        solver = AlternatingMinimizer(
            tol=float(self.tol),
            tol_x=float(self.tol_memberships),
            min_iter=int(self.min_iter),
            max_iter=int(self.max_iter),
            verbose=self.verbose,
        )
        res = solver.solve(problem, (U0, None, None))
        U, coef, F = res.x
        labels = np.argmax(F, axis=1)
        x = {"labels_": labels, "memberships_": U, "decision_values_": F}
        x.update(self._fitted_model(cache, coef))
        return replace(res, x=x, info={"n_nonempty_clusters": int(np.unique(labels).size)})

    # -------------------------------------------------------------- predict
    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values ``f(x)`` (one score per cluster).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (the (n_samples, n_train) cross-kernel if
            ``kernel="precomputed"``).

        Returns
        -------
        F : ndarray of shape (n_samples, n_clusters)
        """
        X = self._validate_predict_data(X)
        return self._decision_values(X)

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.float64]:
        return u_step(self._decision_values(X), self._m)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return np.argmax(self._decision_values(X), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

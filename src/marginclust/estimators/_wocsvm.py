"""WOC-SVM soft clustering (Bicego & Figueiredo, Pattern Recognition 42, 2009)."""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.mixture import GaussianMixture

from ..base import BaseClusterer, SoftClusterMixin
from ..objectives._wocsvm import WOCSVMObjective, e_step, score_models
from ..solvers._em import FixedPointEM, annealing_schedule
from ..solvers._result import SolverResult
from ..objectives._weighted_ocsvm import FORMS, KERNELS
from ..utils import check_memberships, check_positive
from ..utils._reporting import report

__all__ = [
    "WOCSVMClustering",
    "check_decision_scale",
    "check_ocsvm_params",
    "random_partition",
    "resolve_gamma",
]

INITS = ("gmm", "random-weights", "random-points")


def resolve_gamma(gamma: Any, X: npt.NDArray[np.floating]) -> float:
    """Kernel coefficient from ``"scale"`` (``1 / (d Var X)``), ``"auto"`` (``1/d``) or a number.

    Parameters
    ----------
    gamma : {"scale", "auto"} or float
        The parameter.
    X : ndarray of shape (n_samples, n_features)
        Training data.

    Returns
    -------
    gamma : float
        Positive kernel coefficient.
    """
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(X.var())
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number; got {gamma!r}.")
    return check_positive(gamma, "gamma")


def check_ocsvm_params(
    kernel: Any, gamma: Any, nu: Any, X: npt.NDArray[np.floating]
) -> tuple[float, float]:
    """Validate the one-class SVM parameters shared by the WOC-SVM and OC-SVM clusterers.

    Parameters
    ----------
    kernel : str
        Kernel name; one of ``KERNELS``.
    gamma : {"scale", "auto"} or float
        Kernel coefficient (see :func:`resolve_gamma`).
    nu : float
        One-class SVM nu, in (0, 1].
    X : ndarray of shape (n_samples, n_features)
        Training data.

    Returns
    -------
    gamma : float
        Resolved kernel coefficient.
    nu : float
        Validated nu.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    gamma_ = resolve_gamma(gamma, X)
    nu_ = check_positive(nu, "nu")
    if nu_ > 1:
        raise ValueError(f"nu must be in (0, 1]; got {nu!r}.")
    return gamma_, nu_


def check_decision_scale(decision_scale: Any) -> None:
    """Check that ``decision_scale`` is ``"libsvm"`` or ``"normalized"``.

    Parameters
    ----------
    decision_scale : object
        The parameter value.
    """
    if decision_scale not in ("libsvm", "normalized"):
        raise ValueError(
            f"decision_scale must be 'libsvm' or 'normalized'; got {decision_scale!r}."
        )


def random_partition(n: int, n_clusters: int, rng: np.random.RandomState) -> npt.NDArray[np.intp]:
    """Labels of a random partition of ``n`` samples into ``n_clusters`` near-equal parts.

    Parameters
    ----------
    n : int
        Number of samples.
    n_clusters : int
        Number of parts.
    rng : RandomState
        Source of the permutation.

    Returns
    -------
    labels : ndarray of shape (n,)
    """
    lab = np.empty(n, dtype=np.intp)
    for k, part in enumerate(np.array_split(rng.permutation(n), n_clusters)):
        lab[part] = k
    return lab


class WOCSVMClustering(SoftClusterMixin, BaseClusterer):
    """Soft clustering with one weighted one-class SVM per cluster (EM-type, optional annealing).

    Each cluster is a weighted one-class SVM (WOC-SVM) trained on all samples
    with the cluster's memberships as weights. The E-step turns the machines'
    outputs into memberships ``z_ik ∝ gamma_k exp(s_k(x_i) / sigma)``, with
    ``s_k = d_k`` (Schölkopf, eq. 13) or ``-||phi(x) - a_k||^2`` (Tax & Duin, eq. 12);
    the M-step retrains each machine and sets ``gamma_k = mean_i z_ik``. With
    ``annealing=True`` the scale goes from ``sigma_max`` down to ``sigma_min``
    (``sigma <- decay * sigma``), each level run to convergence.

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    form : {"scholkopf", "tax-duin"}, default="scholkopf"
        Weighted one-class SVM: eq. (11) (hyperplane, LIBSVM) or eq. (10) (sphere).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel. The RBF kernel is ``exp(-gamma ||x - y||^2)``; the paper's width
        ``tau`` is this ``gamma``.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient; ``"scale"`` is ``1 / (n_features * X.var())``.
    nu : float in (0, 1], default=0.9
        Schölkopf's nu (the paper uses 0.69-0.99). For Tax & Duin with ``C=None``
        it sets ``C_k = 1 / (nu sum_i z_ik)``.
    C : float or None, default=None
        Tax & Duin trade-off. When ``C * sum_i z_ik < 1`` (infeasible weights) it
        is raised to ``1 / sum_i z_ik`` for that fit and the repair is reported
        by a warning.
    sigma : float, default=1.0
        Similarity scale (the paper's value) when ``annealing=False``.
    annealing : bool, default=False
        Deterministic annealing of ``sigma`` (Sec. 3.3).
    sigma_max : float, default=5.0
        First annealing scale.
    sigma_min : float, default=0.1
        Annealing stops once the scale is no longer above this.
    decay : float, default=0.95
        Annealing factor.
    init : {"gmm", "random-weights", "random-points"} or array-like, default="gmm"
        Initial weights of the machines: responsibilities of a Gaussian mixture,
        independent uniform random weights, random disjoint subsets of points, or
        an (n_samples, n_clusters) membership matrix.
    decision_scale : {"libsvm", "normalized"}, default="libsvm"
        Scale of the Schölkopf decision values in the E-step: LIBSVM's own
        (``nu * sum_i z_ik`` times eq. 6, as the paper's weighted LIBSVM), or
        eq. (6) with ``sum alpha = 1``. With "normalized" at ``sigma=1`` every
        run collapses into one cluster on Iris and Wine.
    bound : {"sum", "n"}, default="sum"
        Upper bound of the Schölkopf multipliers: ``w_i / (nu sum w)`` (what a
        weighted LIBSVM solves) or the literal eq. (11) ``w_i / (nu n)``, which is
        infeasible whenever a cluster's weight ``gamma_k < nu`` (then a
        ValueError is raised).
    tol : float, default=1e-5
        A scale level stops when f_LL changes by at most ``tol * n_samples``.
    max_iter : int, default=100
        Maximum EM iterations (per annealing level).
    svm_tol : float, default=1e-3
        LIBSVM tolerance (weights are rescaled to mean one before each fit).
    n_init : int, default=1
        Restarts; the one with the largest final f_LL is kept.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    verbose : int, default=0
        Verbosity (through :mod:`logging`).

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships (rows on the simplex).
    labels_ : ndarray of shape (n_samples,)
        ``argmax`` of the memberships.
    weights_ : ndarray of shape (n_clusters,)
        Cluster weights ``gamma_k`` used in the last E-step.
    models_ : list of WeightedOCSVM or None
        One fitted machine per cluster (None for a removed cluster).
    sigma_ : float
        Scale of the last E-step (``sigma``, or the last annealing level).
    gamma_ : float
        Resolved kernel coefficient.
    objective_history_ : ndarray
        f_LL (eq. 16) after every E-step, across annealing levels. Not monotone.
    sigma_history_ : ndarray
        The scale of each entry of ``objective_history_``.
    objective_ : float
        ``-f_LL`` at the end (what restarts minimise).
    absorbed_clusters_ : list of int
        Clusters that own no sample at the end (emptied or absorbed).
    n_fits_ : int
        One-class SVM trainings performed.
    n_iter_ : int
        EM iterations (over all levels).
    converged_ : bool
        Whether the last level converged (not oscillating, not at ``max_iter``).

    Notes
    -----
    f_LL is not guaranteed to increase: the M-step trains one-class SVMs rather
    than maximising f_LL. A period-2 oscillation of f_LL (reported by the paper)
    is detected and reported by a ConvergenceWarning naming it.
    """

    _dtypes = (np.float64,)
    _min_clusters = 1  # one cluster is well defined: one machine, all memberships 1

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        form: str = "scholkopf",
        kernel: str = "rbf",
        gamma: Any = "scale",
        nu: float = 0.9,
        C: float | None = None,
        sigma: float = 1.0,
        annealing: bool = False,
        sigma_max: float = 5.0,
        sigma_min: float = 0.1,
        decay: float = 0.95,
        init: Any = "gmm",
        decision_scale: str = "libsvm",
        bound: str = "sum",
        tol: float = 1e-5,
        max_iter: int = 100,
        svm_tol: float = 1e-3,
        n_init: int = 1,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.form = form
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.C = C
        self.sigma = sigma
        self.annealing = annealing
        self.sigma_max = sigma_max
        self.sigma_min = sigma_min
        self.decay = decay
        self.init = init
        self.decision_scale = decision_scale
        self.bound = bound
        self.tol = tol
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.n_init = n_init
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _check_params(self, X: npt.NDArray[np.float64]) -> None:
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}; got {self.form!r}.")
        self._gamma, nu = check_ocsvm_params(self.kernel, self.gamma, self.nu, X)
        if self.C is not None:
            check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_positive(self.svm_tol, "svm_tol")
        check_positive(self.max_iter, "max_iter", integer=True)
        check_decision_scale(self.decision_scale)
        if self.bound not in ("sum", "n"):
            raise ValueError(f"bound must be 'sum' or 'n'; got {self.bound!r}.")
        if self.bound == "n" and self.form == "scholkopf" and nu > 1.0 / self._n_clusters:
            # eq. (11) needs sum_i z_ik >= nu n, i.e. gamma_k >= nu for every cluster
            raise ValueError(
                f"bound='n' (the literal eq. 11, alpha_i <= w_i/(nu n)) needs every cluster "
                f"weight gamma_k >= nu={nu}, impossible for {self._n_clusters} weights summing "
                "to 1. Use bound='sum' (LIBSVM's weighted bound w_i/(nu sum w)) or "
                "nu <= 1/n_clusters."
            )
        if not isinstance(self.annealing, bool | np.bool_):
            raise ValueError(f"annealing must be True or False; got {self.annealing!r}.")
        if self.annealing:
            self._sigmas = annealing_schedule(
                check_positive(self.sigma_max, "sigma_max"),
                check_positive(self.sigma_min, "sigma_min"),
                check_positive(self.decay, "decay"),
            )
        else:
            self._sigmas = np.array([check_positive(self.sigma, "sigma")])
        if isinstance(self.init, str):
            if self.init not in INITS:
                raise ValueError(
                    f"init must be one of {INITS} or an (n_samples, n_clusters) array; "
                    f"got {self.init!r}."
                )
        else:
            check_memberships(self.init, X.shape[0], self._n_clusters)

    # ---------------------------------------------------------------- init
    def _initial_weights(
        self, X: npt.NDArray[np.float64], rng: np.random.RandomState
    ) -> npt.NDArray[np.float64]:
        n, K = X.shape[0], self._n_clusters
        if not isinstance(self.init, str):
            return check_memberships(self.init, n, K)
        if self.init == "gmm":
            gmm = GaussianMixture(
                n_components=K, reg_covar=1e-6 * max(float(X.var()), 1e-12) + 1e-6,
                random_state=rng,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gmm.fit(X)
            return gmm.predict_proba(X)
        if self.init == "random-weights":
            return rng.uniform(size=(n, K))
        # random-points: disjoint random subsets of equal size
        W = np.zeros((n, K))
        W[np.arange(n), random_partition(n, K, rng)] = 1.0
        return W

    # ------------------------------------------------------------------ fit
    def _fit_one(
        self, X: npt.NDArray[np.float64], random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        objective = WOCSVMObjective(
            X,
            self._n_clusters,
            form=self.form,
            nu=float(self.nu),
            C=None if self.C is None else float(self.C),
            bound=self.bound,
            kernel=self.kernel,
            gamma=self._gamma,
            svm_tol=float(self.svm_tol),
            decision_scale=self.decision_scale,
        )
        W0 = self._initial_weights(X, random_state)
        solver = FixedPointEM(
            self._sigmas, tol=float(self.tol), max_iter=int(self.max_iter), n_samples=X.shape[0]
        )
        res = solver.solve(objective, W0)
        params, Z, sigma = res.x
        labels = np.argmax(Z, axis=1)
        absorbed = [k for k in range(self._n_clusters) if not np.any(labels == k)]
        report(
            self.verbose,
            "WOC-SVM: %d iterations, %d SVM fits, final f_LL=%.6g, absorbed=%s",
            res.n_iter,
            res.info["n_fits"],
            -res.objective,
            absorbed,
        )
        if objective.infeasible_repairs:
            warnings.warn(
                f"Tax & Duin weights were infeasible (C * sum_i z_ik < 1) in "
                f"{objective.infeasible_repairs} fits; C was raised to 1 / sum_i z_ik there. "
                "Use a larger C or C=None.",
                UserWarning,
                stacklevel=4,
            )
        x = {
            "labels_": labels,
            "memberships_": Z,
            "weights_": np.exp(params.log_gamma),
            "models_": params.models,
            "sigma_": sigma,
            "gamma_": self._gamma,
            "sigma_history_": res.info["sigma_history"],
            "absorbed_clusters_": absorbed,
            "n_fits_": int(res.info["n_fits"]),
        }
        return replace(res, x=x)

    def fit(self, X: Any, y: Any = None) -> WOCSVMClustering:
        """Fit the WOC-SVM mixture to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._fit(X)
        return self

    # -------------------------------------------------------------- predict
    def _predict_memberships(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        scores = score_models(self.models_, X, self.form, self.decision_scale)
        with np.errstate(divide="ignore"):  # a removed cluster has weight 0
            log_gamma = np.log(self.weights_)
        Z, _ = e_step(scores / self.sigma_, log_gamma)
        return Z

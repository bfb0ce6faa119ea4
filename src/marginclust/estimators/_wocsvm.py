"""WOC-SVM soft clustering (Bicego & Figueiredo, Pattern Recognition 42, 2009)."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast

import numpy as np
import numpy.typing as npt
from sklearn.utils import check_random_state

from ..base import BaseClusterer, ClusterTransformerMixin, SoftClusterMixin
from ..feature_maps._one_class import OneClassData, prepare_one_class_data
from ..objectives._wocsvm import FORMS, WOCSVMObjective, e_step, score_models
from ..solvers._em import FixedPointEM, annealing_schedule
from ..solvers._result import SolverResult
from ..solvers._weighted_ocsvm import fit_linear_weighted_ocsvm, fit_weighted_ocsvm
from ..starts._one_class import initial_weights
from ..utils import (
    Boolean,
    Init,
    MaxIter,
    NClusters,
    OneOf,
    Or,
    Positive,
    Seed,
    Verbose,
    check_memberships,
    check_positive,
    membership_init,
    report,
    resolve_alias,
)
from ..utils._preprocessing import column_spread_ratio, standardise_advice
from ._kernel_model import N_COMPONENTS
from ._one_class import (
    DECISION_SCALE,
    KERNEL_NU,
    one_class_label_free_grid,
    one_class_subset_params,
)

__all__ = ["WOCSVMClustering"]

INITS = ("max-margin", "spectral", "gmm", "k-means", "random-weights", "random-points")


@dataclass
class _Context:
    data: OneClassData
    temperatures: npt.NDArray[np.float64]
    nu: float
    spread: float | None = None  # the columns' spread ratio, for the collapse advice


class WOCSVMClustering(SoftClusterMixin, ClusterTransformerMixin, BaseClusterer):
    """Soft clustering with one weighted one-class SVM per cluster (EM-type, optional annealing).

    Each cluster is a weighted one-class SVM (WOC-SVM) trained on all samples
    with the cluster's memberships as weights. The E-step turns the machines'
    outputs into memberships

    .. math::

        z_{ik} \\propto w_k \\exp\\bigl(s_k(x_i) / T\\bigr)

    at temperature :math:`T`, with :math:`s_k = d_k` (Schölkopf, eq. 13) or
    :math:`s_k(x) = -\\lVert \\phi(x) - a_k \\rVert^2` (Tax & Duin, eq. 12); the
    M-step retrains each machine and sets the cluster weight
    :math:`w_k = \\frac{1}{n} \\sum_i z_{ik}`. With ``annealing=True`` the temperature goes
    from ``temperature_max`` down to ``temperature_min`` (``T <- decay * T``),
    each level run to convergence.

    The data are centred and scaled once per fit (RBF and polynomial kernels;
    the linear kernel is only scaled), so the fit at the default ``gamma`` is
    the same for ``X``, ``c * X`` and ``X + t``. With ``n_components`` the
    kernel is replaced by a Nystroem map and each machine is a weighted
    *linear* one-class SVM in those features: the cost becomes linear in
    ``n_samples``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters.
    form : {"scholkopf", "tax-duin"}, default="scholkopf"
        Weighted one-class SVM: eq. (11) (hyperplane, LIBSVM) or eq. (10) (sphere).
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel. RBF: ``exp(-gamma ||x - y||^2)`` (the paper's width ``tau`` is
        this ``gamma``); linear: ``gamma <x, y>`` (scaled so the default is
        scale-free; always solved in the primal, linear in ``n_samples``);
        poly: ``(gamma <x, y>)^3``.
    gamma : float or {"local", "sigma0", "scale"}, default="local"
        Kernel coefficient in the units of ``X``, or a data-relative rule:
        ``"local"`` is ``1 / s^2`` with ``s`` the median distance of a point to
        its 7th nearest neighbour (:func:`marginclust.feature_maps.neighbor_scale`),
        ``"sigma0"`` is ``1 / (2 sigma0^2)`` with ``sigma0`` the mean pairwise
        distance (the papers' reference width; the default before 0.2),
        ``"scale"`` is ``1 / (n_features * X.var())`` (about twice as narrow);
        see :func:`marginclust.feature_maps.resolve_gamma`. All are invariant to
        a rescaling of ``X``. A machine as wide as the data set covers
        neighbouring arms of a ring or a spiral alike; the neighbour width lets
        each machine follow its own cluster's shape (Notes).
    nu : float in (0, 1], default=0.3
        Schölkopf's nu: at most a fraction ``nu`` of a cluster's weight lies
        outside its machine's support (the paper uses 0.69-0.99, and 0.9 was the
        default before 0.2). With ``nu`` near 1 the support holds only the
        densest tenth of a cluster, and most members are compared through the
        machines' offsets alone (Notes). For Tax & Duin with ``C=None`` it sets
        ``C_k = 1 / (nu sum_i z_ik)``.
    C : float or None, default=None
        Tax & Duin trade-off. When ``C * sum_i z_ik < 1`` (infeasible weights) it
        is raised to ``1 / sum_i z_ik`` for that fit and the repair is reported
        by a warning.
    temperature : float, default=0.05
        Temperature ``T`` of the E-step when ``annealing=False`` (the paper's
        ``sigma``), in the unit of ``decision_scale``: with the default
        ``"relative"`` scale, a fraction of each machine's own offset (0.05: a
        score difference of a twentieth of the offset is one unit of
        log-odds), the same at any ``n``; the default before 0.2 was 1 on the
        LIBSVM scale.
    annealing : bool, default=False
        Deterministic annealing of the temperature (Sec. 3.3). On the relative
        decision scale (the default) it merges clusters: above ``temperature``
        every machine fits most of the data and the clusters do not part again
        (at the other defaults, 36 of 44 fits on 33 benchmark sets collapsed; from
        ``temperature_max=2 * temperature``, 4). It is the paper's protocol with
        ``decision_scale="libsvm"``.
    temperature_max : float or "auto", default="auto"
        First annealing temperature. ``"auto"``: the paper's 5 on the LIBSVM
        scale; four times ``temperature`` on the relative scale. Relative scores
        are about one offset apart, so a temperature of 5 there makes every
        membership uniform, every machine fits all the data, and the clusters
        do not part again as the temperature falls (three blobs of
        scikit-learn's ``check_clustering`` ended in one cluster from any start
        above about 0.5, and in the three blobs from 0.2).
    temperature_min : float or "auto", default="auto"
        Annealing stops once the temperature is no longer above this.
        ``"auto"``: the paper's 0.1 on the LIBSVM scale; ``temperature`` on the
        relative scale.
    decay : float in (0, 1), default=0.95
        Annealing factor; the schedule may have at most 10,000 levels.
    init : {"max-margin", "spectral", "gmm", "k-means", "random-weights", \
            "random-points"} or array-like, default="max-margin"
        Initial weights of the machines: the one-hot labels of the partition
        :class:`~marginclust.MaxMarginClustering` picks (its label-free search
        over Genie, a Gaussian mixture, spectral clustering, k-means and Ward,
        judged by the class-balanced voting margin; on at most 2,000 rows, the
        others labelled by their nearest such row; on one column, where that
        margin cannot tell cuts apart, the spectral start), of self-tuning
        spectral clustering (:func:`marginclust.starts.spectral_labels`;
        on at most 2,000 rows, the others labelled by their nearest such row),
        responsibilities of a Gaussian mixture (fitted on the centred, scaled
        data, so scale-free; full covariances up to 100 features, diagonal ones
        above, so the start costs O(n d) in high dimension; the default before
        0.2), the hard partition of one scikit-learn KMeans run, independent
        uniform random weights, random disjoint subsets of points, or an
        (n_samples, n_clusters) membership matrix.
    n_components : int, "auto" or None, default="auto"
        Low rank: the number of Nystroem components (RBF or poly kernel).
        ``"auto"`` is exact up to 5,000 samples and 300 components above;
        ``None`` is always exact (time and memory grow as ``n_samples^2``).
    decision_scale : {"relative", "libsvm", "normalized"}, default="relative"
        Scale of the machines' scores in the E-step: ``"relative"``: eq. (6)
        divided by the machine's own offset ``rho_k`` (0 on its boundary, -1 far
        from every support vector; Tax & Duin: ``(R_k^2 - d^2) / R_k^2``);
        ``"libsvm"``: LIBSVM's own decision values (``nu * sum_i z_ik`` times eq.
        6, as the paper's weighted LIBSVM; the default before 0.2); or eq. (6)
        with ``sum alpha = 1``. With "normalized" at ``temperature=1`` every run
        collapses into one cluster on Iris and Wine. With "libsvm" and
        "normalized" a point far from two clusters scores higher for the one
        with the smaller offset, so a dense cluster's border drifts to a sparse
        neighbour.
    bound : {"sum", "n"}, default="sum"
        Upper bound of the Schölkopf multipliers: ``w_i / (nu sum w)`` (what a
        weighted LIBSVM solves) or the literal eq. (11) ``w_i / (nu n)``, which is
        infeasible whenever a cluster's weight ``w_k < nu`` (then a
        ValueError is raised).
    tol : float, default=1e-5
        A temperature level stops when f_LL changes by at most ``tol * n_samples``.
    max_iter : int, default=100
        Maximum EM iterations (per annealing level).
    svm_tol : float, default=1e-3
        LIBSVM tolerance (weights are rescaled to mean one before each fit).
    n_init : int, default=1
        Restarts; the non-degenerate one with the largest final f_LL is kept.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the Nystroem landmarks.
    verbose : int, default=0
        ``verbose > 0`` prints the start's seconds and one line per EM
        iteration to stderr.

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships (rows on the simplex); equal to ``predict_proba(X)``
        on the training data up to round-off.
    labels_ : ndarray of shape (n_samples,)
        ``argmax`` of the memberships.
    weights_ : ndarray of shape (n_clusters,)
        Cluster weights ``w_k`` used in the last E-step.
    models_ : list of WeightedOCSVM, LinearWeightedOCSVM or None
        One fitted machine per cluster (None for a removed cluster), in the
        centred, scaled units (or Nystroem features) of the fit.
    temperature_ : float
        Temperature of the last E-step.
    gamma_ : float
        Resolved kernel coefficient, in the units of ``X`` (``inf`` or ``0``, what
        it rounds to, for data near 1e-154 or 1e154 and beyond: the fit works in
        centred units scaled by a power of two, where the width stays of order 1).
    feature_map_ : Nystroem or None
        The low-rank map (in centred, scaled units), None for an exact fit.
    objective_history_ : ndarray
        f_LL (eq. 16) after every E-step, across annealing levels. Not monotone.
    temperature_history_ : ndarray
        The temperature of each entry of ``objective_history_``.
    objective_ : float
        ``-f_LL`` at the end (what restarts minimise).
    absorbed_clusters_ : list of int
        Clusters that own no sample at the end (emptied or absorbed).
    n_clusters_found_ : int
        Non-empty clusters (a ConvergenceWarning is raised when it is below
        ``n_clusters``).
    n_fits_ : int
        One-class SVM trainings performed.
    n_iter_ : int
        EM iterations (over all levels).
    converged_ : bool
        Whether the last level converged (not oscillating, not at ``max_iter``).
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    OCSVMHardClustering : The hard-assignment baseline of the same paper.

    Notes
    -----
    Choosing parameters without labels: the defaults are data-relative (the
    kernel width follows the distances between neighbours) and a uniform
    rescaling or a common offset of ``X`` does not change the fit. With
    LIBSVM's decision scale the E-step's log-odds grow with the cluster sizes
    ``nu sum_i z_ik``, so there ``temperature`` is declared as a parameter that
    scales with ``n_samples``
    (:func:`~marginclust.model_selection.n_scaled_params`): a temperature chosen on m
    rows means ``temperature * n / m`` on n rows; on the relative scale it
    does not (model selection fits a subset of m of the n rows at
    ``temperature * m / n`` on the LIBSVM scale only). Its label-free grid
    (what :class:`~marginclust.model_selection.StabilitySearch` compares when
    given no ``param_grid``) holds widths around the default rule and a few
    ``nu``. Standardise the features first
    (``make_pipeline(StandardScaler(), ...)``).

    Defaults of 0.2 (``init="max-margin"``, ``gamma="local"``,
    ``decision_scale="relative"``, ``nu=0.3``, ``temperature=0.05``) against
    0.1's (``"gmm"``, ``"sigma0"``, ``"libsvm"``, 0.9, 1.0), label-free with
    the true K, mean NCA (results in
    ``benchmarks/results/defaults_battery.md``): on the 33 sets with at most
    3,000 points of Gagolewski's batteries fcps, graves and wut .658 -> .942
    (collapsed fits 3 -> 0 of 44); on 23 shared UCI-like sets (standardised, K
    = the number of classes, larger sets subsampled to 3,000 rows) .494 -> .459
    (a loss: breast-cancer Wisconsin ends in one cluster, .919 -> 0, see below);
    on 20 held-out sets of the same suite .554 -> .746 (their 8 UCI sets .419 ->
    .448). From the spectral start (``init="spectral"``) the three figures are
    .924, .435 and .696: it cuts iris' setosa in two and splits a small group off
    australian, and the margin search, which compares it with Genie's, a mixture's,
    k-means' and Ward's partitions, keeps the better separated one. At these
    defaults a k-means start gives .444 and a GMM start .482 on the UCI-like sets
    (.673 with k-means on the 33 battery sets); keeping, of the spectral and the
    k-means fit, the one of lower ``objective_`` gives .815, .403 and .644 held
    out: the objective prefers k-means' convex cuts on shape data and the spectral
    start's lopsided splits on australian and iris. From a good partition (the true labels of
    two nested rings, of
    atom, lsun, smile) one E-step at 0.1's settings already moved a fifth of a
    dense cluster to its sparse neighbour and the fit ended in one cluster;
    with relative scores and ``nu=0.3`` the partitions stayed. The relative
    scale has its own failure: a very sparse cluster has a small offset, so its
    relative scores near its border are high, and a dense cluster next to it
    (breast-cancer Wisconsin's many repeated benign rows) can lose its border
    points to it: from the margin search's start (NCA .95) the fit ends in one
    cluster there, as from every other start at these defaults.

    f_LL is not guaranteed to increase: the M-step trains one-class SVMs rather
    than maximising f_LL. A period-2 oscillation of f_LL (reported by the paper)
    is detected and reported by a ConvergenceWarning naming it.

    References
    ----------
    .. [1] M. Bicego and M. A. T. Figueiredo, "Soft clustering using weighted
       one-class support vector machines", Pattern Recognition 42(1):27-32, 2009.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from marginclust import WOCSVMClustering
    >>> X, _ = make_blobs(n_samples=60, centers=2, cluster_std=0.6, random_state=0)
    >>> model = WOCSVMClustering(n_clusters=2, random_state=0).fit(X)
    >>> model.memberships_.shape
    (60, 2)
    >>> sorted(map(int, np.bincount(model.labels_)))
    [30, 30]
    """

    _dtypes = (np.float64,)
    _cluster_axes = {"memberships_": 1, "weights_": 0, "models_": 0}
    _cluster_index_attributes = ("absorbed_clusters_",)

    @property
    def _collapse_advice(self) -> str:  # type: ignore[override]
        """What to change after a collapse, by decision scale (measured at the defaults).

        On the relative scale a wider kernel and annealing merge clusters more often
        (33 battery sets, 44 fits: 18 and 36 collapsed against none at the defaults,
        ``benchmarks/results/defaults_battery.md``), so they are not advised there.
        """
        if self.decision_scale == "relative":
            return ("Standardise the features, lower the temperature, or try another init "
                    "(e.g. init='k-means') or more n_init; on the relative decision scale "
                    "annealing=True and a wider kernel (a lower gamma) merge clusters more "
                    "often.")
        return ("Standardise the features, lower the temperature, try a lower gamma (a wider "
                "kernel, e.g. gamma='sigma0'), another init or annealing=True, or more n_init.")

    def _fit_collapse_advice(self) -> str:
        """The advice naming this fit's start and, from the column spreads, whether
        standardising the features could change anything."""
        tried = getattr(self, "_tried", None)
        advice = self._collapse_advice
        if tried is None or not advice.startswith("Standardise the features, "):
            return advice
        rest = advice[len("Standardise the features, "):]
        return (f"Tried: the start init={tried['start']}. {standardise_advice(tried['spread'])}"
                f"{rest[0].upper()}{rest[1:]}")

    # LIBSVM-scale decision values grow with the cluster sizes (nu sum_i z_ik)
    _n_scaled_params: ClassVar[tuple[str, ...]] = (
        "temperature",
        "temperature_max",
        "temperature_min",
    )
    # the schedule's own rules (decay < 1, temperature_max > temperature_min, the
    # number of levels) are checked as it is built, in _temperatures
    _parameter_constraints = {
        "n_clusters": NClusters(1),  # one cluster: one machine, all memberships 1
        "form": OneOf(FORMS),
        **KERNEL_NU,
        "C": Or((None,), Positive(), "{name} must be a real number; got {value!r}."),
        "temperature": Positive(),
        "temperature_max": Or(("auto",), Positive(),
                              "{name} must be 'auto' or a positive float; got {value!r}."),
        "temperature_min": Or(("auto",), Positive(),
                              "{name} must be 'auto' or a positive float; got {value!r}."),
        "decay": Positive(),
        "init": Init(INITS, membership_init, "an array of memberships (n_samples, n_clusters)"),
        "tol": Positive(),
        "svm_tol": Positive(),
        "max_iter": MaxIter(),
        "decision_scale": DECISION_SCALE,
        "bound": OneOf(("sum", "n"), "bound must be 'sum' or 'n'; got {value!r}."),
        "annealing": Boolean(),
        "n_components": N_COMPONENTS,
        "n_init": MaxIter(),
        "random_state": Seed(),
        "verbose": Verbose(),
    }

    def _n_scaled_param_names(self) -> tuple[str, ...]:
        """The temperatures scale with ``n`` on the LIBSVM scale only (relative scores
        are in units of each machine's offset, normalised ones shrink as ``1/n``)."""
        return self._n_scaled_params if self.decision_scale == "libsvm" else ()

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        form: str = "scholkopf",
        kernel: str = "rbf",
        gamma: Any = "local",
        nu: float = 0.3,
        C: float | None = None,
        temperature: float = 0.05,
        annealing: bool = False,
        temperature_max: float | str = "auto",
        temperature_min: float | str = "auto",
        decay: float = 0.95,
        init: Any = "max-margin",
        n_components: Any = "auto",
        decision_scale: str = "relative",
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
        self.temperature = temperature
        self.annealing = annealing
        self.temperature_max = temperature_max
        self.temperature_min = temperature_min
        self.decay = decay
        self.init = init
        self.n_components = n_components
        self.decision_scale = decision_scale
        self.bound = bound
        self.tol = tol
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.n_init = n_init
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _temperatures(self) -> npt.NDArray[np.float64]:
        if self.annealing:
            t_max, t_min = self.temperature_max, self.temperature_min
            relative = self.decision_scale == "relative"
            if isinstance(t_max, str) and t_max == "auto":
                t_max = 4.0 * check_positive(self.temperature, "temperature") if relative else 5.0
            if isinstance(t_min, str) and t_min == "auto":
                t_min = check_positive(self.temperature, "temperature") if relative else 0.1
            return annealing_schedule(
                check_positive(t_max, "temperature_max"),
                check_positive(t_min, "temperature_min"),
                check_positive(self.decay, "decay"),
            )
        return np.array([check_positive(self.temperature, "temperature")])

    def _setup_on_data(self, X: npt.NDArray[np.float64]) -> None:
        nu = float(self.nu)
        if self.bound == "n" and self.form == "scholkopf" and nu > 1.0 / self._n_clusters:
            # eq. (11) needs sum_i z_ik >= nu n, i.e. w_k >= nu for every cluster
            raise ValueError(
                f"bound='n' (the literal eq. 11, alpha_i <= w_i/(nu n)) needs every cluster "
                f"weight w_k >= nu={nu}, impossible for {self._n_clusters} weights summing "
                "to 1. Use bound='sum' (LIBSVM's weighted bound w_i/(nu sum w)) or "
                "nu <= 1/n_clusters."
            )
        self._init = resolve_alias(self.init, "init", INITS)

    def _prepare(self, X: npt.NDArray[np.float64], **fit_params: Any) -> _Context:
        rng = check_random_state(self.random_state)
        data = prepare_one_class_data(
            X,
            kernel=self.kernel,
            gamma=self.gamma,
            n_components=self.n_components,
            name=type(self).__name__,
            random_state=rng,
        )
        if data.feature_map is not None and self.n_components == "auto":
            report(
                self.verbose,
                "WOC-SVM: %d samples > %d, using a Nystroem map with %d components "
                "(n_components=None for the exact kernel)",
                X.shape[0],
                5000,
                data.features.shape[1] if data.features is not None else 0,
            )
        return _Context(data, self._temperatures(), float(self.nu), column_spread_ratio(X))

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Kernel widths around the width rule (x 1/4 .. 2 in gamma) and three ``nu``.

        The rule is ``gamma`` when it is one (``"local"`` by default), widths
        around sigma0 otherwise; ``nu`` in {0.1, 0.3, 0.5} on the relative
        scale, {0.8, 0.9, 0.95} on the others (their defaults' neighbourhoods).
        """
        grid = one_class_label_free_grid(
            self.kernel, X, self.gamma if isinstance(self.gamma, str) else "sigma0"
        )
        if self.decision_scale == "relative":
            grid["nu"] = [0.1, 0.3, 0.5]
        return grid

    def _subset_fit_params(self, n_fit: int, n_total: int) -> dict[str, Any]:
        """Search subsets keep the low-rank mode of the fit on all rows."""
        return one_class_subset_params(self.kernel, self.n_components, n_fit, n_total)

    # ------------------------------------------------------------------ fit
    def _objective(self, data: OneClassData) -> WOCSVMObjective:
        return WOCSVMObjective(
            data.X,
            self._n_clusters,
            fit_machine=fit_weighted_ocsvm,
            fit_linear_machine=fit_linear_weighted_ocsvm,
            form=self.form,
            nu=float(self.nu),
            C=None if self.C is None else float(self.C),
            bound=self.bound,
            kernel=self.kernel,
            gamma=data.gamma,
            svm_tol=float(self.svm_tol),
            decision_scale=self.decision_scale,
            K=data.K,
            features=data.features,
        )

    def _fit_one(
        self, context: _Context, random_state: np.random.RandomState
    ) -> SolverResult:
        data = context.data
        objective = self._objective(data)
        K, init = self._n_clusters, self._init
        if not isinstance(init, str):
            init = check_memberships(init, data.X.shape[0], K)
        start = repr(init) if isinstance(init, str) else "<memberships>"
        t0 = time.perf_counter()
        W0 = initial_weights(init, data.X, K, random_state)
        report(self.verbose, "WOC-SVM start (init=%s): %.2f s", start, time.perf_counter() - t0)

        def callback(it: int, f_ll: float, temperature: float) -> None:
            report(self.verbose, "WOC-SVM iteration %d: f_LL=%.6g at temperature %.4g",
                   it, f_ll, temperature)

        solver = FixedPointEM(
            context.temperatures,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            n_samples=data.X.shape[0],
            callback=callback if self.verbose else None,
        )
        res = solver.solve(objective, W0)
        params, Z, temperature = res.x
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
            "temperature_": temperature,
            "gamma_": data.gamma_user,
            "feature_map_": data.feature_map,
            "_data": data.for_prediction(),
            # the training rows' features, for the final assignment only (then dropped)
            "_train_features": data.features,
            "temperature_history_": res.info["sigma_history"],
            "absorbed_clusters_": absorbed,
            "n_fits_": int(res.info["n_fits"]),
            "_tried": {"start": start, "spread": context.spread},
        }
        return replace(res, x=x)

    # -------------------------------------------------------------- predict
    def _scores(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Log-similarities ``s_k(x) / T`` of validated samples."""
        return self._feature_scores(self._data.transform(X))

    def _feature_scores(self, F: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Log-similarities ``s_k(x) / T`` of samples already mapped to the machines' features."""
        return score_models(self.models_, F, self.form, self.decision_scale) / self.temperature_

    def _e_step(self, X: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], float]:
        return self._e_step_of(self._scores(X))

    def _e_step_of(self, S: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], float]:
        with np.errstate(divide="ignore"):  # a removed cluster has weight 0
            log_w = np.log(self.weights_)
        return e_step(S, log_w)

    def _finish_fit(self, X: Any, predicted: Any = None) -> WOCSVMClustering:
        try:
            return cast(WOCSVMClustering, super()._finish_fit(X, predicted))
        finally:  # a fitted estimator keeps no training rows (it pickles small)
            self.__dict__.pop("_train_features", None)

    def _memberships_and_labels(
        self, X: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
        """``(predict_proba(X), predict(X))`` of the training rows, at the end of ``fit``.

        With explicit features (a Nystroem map, or the linear kernel past the
        cached-kernel size) the fit has mapped these rows already: the same map of
        the same rows, reused instead of computed a second time (at 1e5 rows and
        300 components that is about a tenth of the fit). Otherwise the rows are
        mapped as in :meth:`predict_proba`.
        """
        F = self.__dict__.get("_train_features")
        if F is None or F.shape[0] != X.shape[0]:
            P = self._predict_memberships(X)
        else:
            P = self._e_step_of(self._feature_scores(F))[0]
        return P, np.argmax(P, axis=1)

    def _predict_memberships(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return self._e_step(X)[0]

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Memberships of each sample (the same as :meth:`predict_proba`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        memberships : ndarray of shape (n_samples, n_clusters)
            Non-negative rows that sum to one.
        """
        return np.asarray(self.predict_proba(X), dtype=np.float64)

    def score(self, X: Any, y: Any = None) -> float:
        """Mean log-similarity f_LL (eq. 16) per sample of ``X``; higher is better.

        ``-objective_`` is the same quantity summed over the training data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Mean log-similarity per sample; higher is better.
        """
        X = self._validate_predict_data(X)
        return self._e_step(X)[1] / X.shape[0]

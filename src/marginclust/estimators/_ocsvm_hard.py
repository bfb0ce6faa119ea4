"""OC-SVM hard clustering (Camastra & Verri 2005, as adapted by Bicego & Figueiredo 2009)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from sklearn.utils import check_random_state

from ..base import BaseClusterer, ClusterTransformerMixin
from ..feature_maps._one_class import OneClassData, prepare_one_class_data
from ..objectives._wocsvm import OneClassHardProblem, WOCSVMObjective, score_models
from ..solvers._label_alternation import LabelAlternation
from ..solvers._result import SolverResult
from ..solvers._weighted_ocsvm import fit_linear_weighted_ocsvm, fit_weighted_ocsvm
from ..starts._one_class import kmeans_partition, random_partition
from ..utils import (
    Init,
    MaxIter,
    NClusters,
    Positive,
    Seed,
    Verbose,
    check_label_init,
    label_init,
    report,
    resolve_alias,
)
from ._kernel_model import N_COMPONENTS
from ._one_class import (
    DECISION_SCALE,
    KERNEL_NU,
    one_class_label_free_grid,
    one_class_subset_params,
)

__all__ = ["OCSVMHardClustering"]

INITS = ("k-means", "random")


class OCSVMHardClustering(ClusterTransformerMixin, BaseClusterer):
    """K-means-like clustering with one (Schölkopf) one-class SVM per cluster.

    Each iteration trains a one-class SVM on the samples of every cluster and
    moves each sample to the cluster whose machine gives it the largest
    decision value ("nearest" cluster), until no label changes. This is the
    baseline "OC-SVM HC" of Bicego & Figueiredo (2009): Camastra & Verri's
    method without their outlier threshold, with automatic initialisation.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel; RBF is ``exp(-gamma ||x - y||^2)`` (the paper's tau is gamma);
        linear is ``gamma <x, y>``, solved in the primal (linear in n_samples).
    gamma : float or {"sigma0", "scale"}, default="sigma0"
        Kernel coefficient in the units of ``X`` or a data-relative rule (see
        :func:`marginclust.feature_maps.resolve_gamma`); "sigma0" (the mean
        pairwise distance as width) gave a mean clustering accuracy of 0.757
        against 0.699 for "scale" on eight standardised UCI sets. The data are centred and
        scaled once per fit, so the default is invariant to ``c * X`` and ``X + t``.
    nu : float in (0, 1], default=0.9
        One-class SVM nu.
    init : {"k-means", "random"} or array-like of shape (n_samples,), default="k-means"
        Initial partition: K-means labels (scikit-learn's KMeans, one run), a
        random partition into equal parts, or given labels. ``"kmeans"`` is a
        deprecated spelling of ``"k-means"``.
    n_components : int, "auto" or None, default="auto"
        Low rank: Nystroem components (each machine is then a linear one-class
        SVM in those features, linear in n_samples); "auto" is exact up to 5,000
        samples and 300 components above; None is always exact.
    decision_scale : {"libsvm", "normalized"}, default="libsvm"
        Compare LIBSVM's own decision values (``nu n_k`` times eq. 6, as the
        paper's LIBSVM did) or eq. (6) with ``sum alpha = 1``.
    max_iter : int, default=100
        Maximum reassignment iterations.
    svm_tol : float, default=1e-3
        LIBSVM tolerance.
    n_init : int, default=1
        Restarts; the one with the largest total decision value is kept.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    verbose : int, default=0
        ``verbose > 0`` prints one line per reassignment to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Final partition.
    models_ : list of WeightedOCSVM, LinearWeightedOCSVM or None
        One machine per cluster (None for a cluster that emptied), in the
        centred, scaled units (or Nystroem features) of the fit.
    gamma_ : float
        Resolved kernel coefficient, in the units of ``X`` (``inf`` or ``0``, what
        it rounds to, for data near 1e-154 or 1e154 and beyond: the fit works in
        centred units scaled by a power of two, where the width stays of order 1).
    feature_map_ : Nystroem or None
        The low-rank map, None for an exact fit.
    objective_history_ : ndarray
        ``-sum_i s_{t_i}(x_i)`` (minus each sample's score under its own
        cluster's machine) after each fit (:class:`~marginclust.solvers.LabelAlternation`).
    objective_ : float
        ``-sum_i max_k s_k(x_i)`` for the returned labels.
    absorbed_clusters_ : list of int
        Clusters that lost all their samples.
    n_iter_ : int
        Reassignment iterations.
    converged_ : bool
        Whether the partition stopped changing before ``max_iter`` (a cycle of
        partitions stops the loop unconverged). ``labels_`` always equals
        ``predict(X)``: a final assignment by the last machines.
    n_clusters_found_ : int
        Non-empty clusters.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    WOCSVMClustering : The soft clustering of the same paper.

    References
    ----------
    .. [1] F. Camastra and A. Verri, "A novel kernel method for clustering",
       IEEE Trans. PAMI 27(5):801-805, 2005.
    .. [2] M. Bicego and M. A. T. Figueiredo, "Soft clustering using weighted
       one-class support vector machines", Pattern Recognition 42(1):27-32, 2009.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from marginclust import OCSVMHardClustering
    >>> X, _ = make_blobs(n_samples=60, centers=2, cluster_std=0.6, random_state=0)
    >>> model = OCSVMHardClustering(n_clusters=2, random_state=0).fit(X)
    >>> sorted(map(int, np.bincount(model.labels_)))
    [30, 30]
    >>> bool((model.predict(X) == model.labels_).all())
    True
    """

    _dtypes = (np.float64,)
    _cluster_axes = {"models_": 0}
    _cluster_index_attributes = ("absorbed_clusters_",)
    _collapse_advice: ClassVar[str] = (
        "Standardise the features, keep gamma='sigma0' (or lower gamma), use "
        "init='k-means', or more n_init."
    )
    _parameter_constraints = {
        "n_clusters": NClusters(1),  # one cluster: one machine, all memberships 1
        **KERNEL_NU,
        "init": Init(INITS, label_init, "an array of labels", aliases=("kmeans",)),
        "max_iter": MaxIter(),
        "svm_tol": Positive(),
        "decision_scale": DECISION_SCALE,
        "n_components": N_COMPONENTS,
        "n_init": MaxIter(),
        "random_state": Seed(),
        "verbose": Verbose(),
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str = "rbf",
        gamma: Any = "sigma0",
        nu: float = 0.9,
        init: Any = "k-means",
        n_components: Any = "auto",
        decision_scale: str = "libsvm",
        max_iter: int = 100,
        svm_tol: float = 1e-3,
        n_init: int = 1,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.nu = nu
        self.init = init
        self.n_components = n_components
        self.decision_scale = decision_scale
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.n_init = n_init
        self.random_state = random_state
        self.verbose = verbose

    def _setup_on_data(self, X: npt.NDArray[np.float64]) -> None:
        self._init = resolve_alias(self.init, "init", INITS, {"kmeans": "k-means"})
        self._init_labels = check_label_init(self._init, X.shape[0], self._n_clusters, INITS)

    def _prepare(self, X: npt.NDArray[np.float64], **fit_params: Any) -> OneClassData:
        return prepare_one_class_data(
            X,
            kernel=self.kernel,
            gamma=self.gamma,
            n_components=self.n_components,
            name=type(self).__name__,
            random_state=check_random_state(self.random_state),
        )

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Kernel widths around sigma0 (x 1/4 .. 2 in gamma) and nu in {0.8, 0.9, 0.95}."""
        return one_class_label_free_grid(self.kernel, X)

    def _subset_fit_params(self, n_fit: int, n_total: int) -> dict[str, Any]:
        """Search subsets keep the low-rank mode of the fit on all rows."""
        return one_class_subset_params(self.kernel, self.n_components, n_fit, n_total)

    def _initial_labels(
        self, Z: npt.NDArray[np.float64], rng: np.random.RandomState
    ) -> npt.NDArray[np.intp]:
        n, K = Z.shape[0], self._n_clusters
        init = self._init
        if self._init_labels is not None:
            return self._init_labels.copy()
        if init == "k-means":
            return kmeans_partition(Z, K, rng)
        return random_partition(n, K, rng)

    def _fit_one(
        self, data: OneClassData, random_state: np.random.RandomState
    ) -> SolverResult:
        K = self._n_clusters
        n = data.X.shape[0]
        objective = WOCSVMObjective(
            data.X,
            K,
            fit_machine=fit_weighted_ocsvm,
            fit_linear_machine=fit_linear_weighted_ocsvm,
            form="scholkopf",
            nu=float(self.nu),
            kernel=self.kernel,
            gamma=data.gamma,
            svm_tol=float(self.svm_tol),
            decision_scale=self.decision_scale,
            refit_tol=0.0,
            min_mass=0.5 / n,
            K=data.K,
            features=data.features,
        )
        problem = OneClassHardProblem(objective)
        solver = LabelAlternation(
            max_iter=int(self.max_iter), verbose=self.verbose, name="OC-SVM hard clustering"
        )
        res = solver.solve(problem, self._initial_labels(data.X, random_state))
        params = res.info["model"]
        # final assignment step (as scikit-learn's KMeans): labels_ == predict(X_train)
        labels = problem.assign(params)
        absorbed = list(params.removed) + [
            k for k in range(K) if k not in params.removed and not np.any(labels == k)
        ]
        report(self.verbose, "OC-SVM HC: %d iterations, absorbed=%s", res.n_iter, absorbed)
        return replace(
            res,
            x={
                "labels_": labels,
                "models_": params.models,
                "gamma_": data.gamma_user,
                "feature_map_": data.feature_map,
                "_data": data.for_prediction(),
                "absorbed_clusters_": sorted(set(absorbed)),
            },
            objective=problem.objective_value(params, labels),
        )

    def _scores(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        F = self._data.transform(X)
        return score_models(self.models_, F, "scholkopf", self.decision_scale)

    def _predict(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
        return np.argmax(self._scores(X), axis=1)

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Minus each machine's decision value (smaller is nearer; argmin is the label).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        dissimilarity : ndarray of shape (n_samples, n_clusters)
            ``-s_k(x)`` (``inf`` for an emptied cluster).
        """
        X = self._validate_predict_data(X)
        return -self._scores(X)

    def score(self, X: Any, y: Any = None) -> float:
        """Mean of ``max_k s_k(x)`` over ``X``: minus the objective per sample (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Minus the mean objective per sample; higher is better.
        """
        X = self._validate_predict_data(X)
        return float(np.max(self._scores(X), axis=1).mean())

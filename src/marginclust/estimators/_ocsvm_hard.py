"""OC-SVM hard clustering (Camastra & Verri 2005, as adapted by Bicego & Figueiredo 2009)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.cluster import KMeans

from ..base import BaseClusterer
from ..objectives._wocsvm import WOCSVMObjective, score_models
from ..solvers._result import SolverResult
from ..utils import check_positive
from ..utils._reporting import report
from ._wocsvm import check_decision_scale, check_ocsvm_params, random_partition

__all__ = ["OCSVMHardClustering"]


class OCSVMHardClustering(BaseClusterer):
    """K-means-like clustering with one (Schölkopf) one-class SVM per cluster.

    Each iteration trains a one-class SVM on the samples of every cluster and
    moves each sample to the cluster whose machine gives it the largest
    decision value ("nearest" cluster), until no label changes. This is the
    baseline "OC-SVM HC" of Bicego & Figueiredo (2009): Camastra & Verri's
    method without their outlier threshold, with automatic initialisation.

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
        Kernel; RBF is ``exp(-gamma ||x - y||^2)`` (the paper's tau is gamma).
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient.
    nu : float in (0, 1], default=0.9
        One-class SVM nu.
    init : {"k-means", "random"} or array-like of shape (n_samples,), default="k-means"
        Initial partition: K-means labels, a random partition into equal parts,
        or given labels.
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
        Verbosity (through :mod:`logging`).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Final partition.
    models_ : list of WeightedOCSVM or None
        One machine per cluster (None for a cluster that emptied).
    gamma_ : float
        Resolved kernel coefficient.
    objective_history_ : ndarray
        ``-sum_i max_k s_k(x_i)`` after each reassignment.
    objective_ : float
        Its final value.
    absorbed_clusters_ : list of int
        Clusters that lost all their samples.
    n_iter_ : int
        Reassignment iterations.
    converged_ : bool
        Whether the partition stopped changing before ``max_iter``.
    """

    _dtypes = (np.float64,)
    _min_clusters = 1  # one cluster is well defined: one machine, all memberships 1

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        kernel: str = "rbf",
        gamma: Any = "scale",
        nu: float = 0.9,
        init: Any = "k-means",
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
        self.decision_scale = decision_scale
        self.max_iter = max_iter
        self.svm_tol = svm_tol
        self.n_init = n_init
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self, X: npt.NDArray[np.float64]) -> None:
        self._gamma, _ = check_ocsvm_params(self.kernel, self.gamma, self.nu, X)
        check_positive(self.max_iter, "max_iter", integer=True)
        check_positive(self.svm_tol, "svm_tol")
        check_decision_scale(self.decision_scale)
        if isinstance(self.init, str):
            if self.init not in ("k-means", "random"):
                raise ValueError(
                    f"init must be 'k-means', 'random' or an array of labels; got {self.init!r}."
                )
        else:
            self._check_init_labels(X.shape[0])

    def _check_init_labels(self, n: int) -> npt.NDArray[np.intp]:
        lab = np.asarray(self.init)
        if lab.shape != (n,) or not np.issubdtype(lab.dtype, np.integer):
            raise ValueError(f"init labels must be an integer array of shape ({n},).")
        if lab.min() < 0 or lab.max() >= self._n_clusters:
            raise ValueError(f"init labels must lie in 0 .. {self._n_clusters - 1}.")
        return lab.astype(np.intp)

    def _initial_labels(
        self, X: npt.NDArray[np.float64], rng: np.random.RandomState
    ) -> npt.NDArray[np.intp]:
        n, K = X.shape[0], self._n_clusters
        if not isinstance(self.init, str):
            return self._check_init_labels(n)
        if self.init == "k-means":
            km = KMeans(n_clusters=K, n_init=1, random_state=rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return km.fit(X).labels_.astype(np.intp)
        return random_partition(n, K, rng)

    def _fit_one(
        self, X: npt.NDArray[np.float64], random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        K = self._n_clusters
        objective = WOCSVMObjective(
            X,
            K,
            form="scholkopf",
            nu=float(self.nu),
            kernel=self.kernel,
            gamma=self._gamma,
            svm_tol=float(self.svm_tol),
            decision_scale=self.decision_scale,
            refit_tol=0.0,
            min_mass=0.5 / X.shape[0],
        )
        labels = self._initial_labels(X, random_state)
        params = None
        history: list[float] = []
        converged = False
        n_iter = 0
        for n_iter in range(1, int(self.max_iter) + 1):  # noqa: B007
            Z = np.zeros((X.shape[0], K))
            Z[np.arange(X.shape[0]), labels] = 1.0
            params = objective.m_step(Z, params)
            scores = objective.score(params)
            new = np.argmax(scores, axis=1)
            history.append(-float(scores[np.arange(X.shape[0]), new].sum()))
            if np.array_equal(new, labels):
                converged = True
                break
            labels = new
        absorbed = list(params.removed) + [
            k for k in range(K) if k not in params.removed and not np.any(labels == k)
        ]
        report(self.verbose, "OC-SVM HC: %d iterations, absorbed=%s", n_iter, absorbed)
        return SolverResult(
            x={
                "labels_": labels,
                "models_": params.models,
                "gamma_": self._gamma,
                "absorbed_clusters_": sorted(set(absorbed)),
            },
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=n_iter,
            converged=converged,
            message=(
                ""
                if converged
                else f"OC-SVM hard clustering still reassigned samples after max_iter="
                f"{self.max_iter} iterations (it may cycle); increase max_iter."
            ),
        )

    def _predict(self, X: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
        return np.argmax(score_models(self.models_, X, "scholkopf", self.decision_scale), axis=1)

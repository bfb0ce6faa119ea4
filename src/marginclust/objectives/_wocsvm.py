"""WOC-SVM soft clustering (Bicego & Figueiredo 2009): similarities, E-step, f_LL, M-step.

Each cluster k is a weighted one-class SVM trained with the memberships
``z_.k`` as weights (M-step, Sec. 3.2) and cluster weights
``gamma_k = mean_i z_ik`` (eq. 15). The log-similarities are

* Schölkopf (eq. 13): ``log S(x, k) = d_k(x) / sigma``;
* Tax & Duin (eq. 12): ``log S(x, k) = -||phi(x) - a_k||^2 / sigma``,

the E-step (eq. 14) is ``z_ik = softmax_k(log gamma_k + log S(x_i, k))`` and
``f_LL = sum_i logsumexp_k(log gamma_k + log S(x_i, k))`` (eq. 16), all
computed in log space so that extreme distances stay finite.

The scale of ``d_k`` decides how soft the E-step is. ``decision_scale="libsvm"``
(default) uses the decision value LIBSVM returns for weights ``z_.k``, which is
``nu * sum_i z_ik`` times the normalised ``d_k`` of eq. (6) (``sum alpha = 1``);
this is what the paper's weighted LIBSVM produced and it reproduces the
published Iris and Wine accuracies. ``decision_scale="normalized"`` uses eq. (6)
literally; at the paper's sigma = 1 the E-step is then nearly uniform (the
values are O(1/n) apart) and the clustering collapses into one cluster.
``decision_scale="relative"`` divides the decision value by the machine's own
offset: ``d_k(x) / rho_k`` (Schölkopf; 0 on the machine's boundary, -1 far
from every support vector) or ``(R_k^2 - ||phi(x) - a_k||^2) / R_k^2`` (Tax &
Duin), the same in either scale. With the other two scales a point far from
two clusters is nearer, in score, to the cluster with the smaller offset, i.e.
the sparser or (LIBSVM scale) the smaller one, so a dense cluster's border
points drift to a sparse neighbour (measured: the inner ring of two
concentric rings lost a fifth of its points in one E-step); relative values
make every cluster's "far away" the same -1, whatever its density and size,
and the temperature a fraction of a machine's own offset at any n.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ._weighted_ocsvm import (
    _BLOCK_ENTRIES,
    FORMS,
    KERNELS,
    LinearWeightedOCSVM,
    WeightedOCSVM,
    kernel_diag,
    kernel_matrix,
)

Machine = WeightedOCSVM | LinearWeightedOCSVM

__all__ = [
    "FORMS",
    "KERNELS",
    "OneClassHardProblem",
    "WOCSVMObjective",
    "WOCSVMParams",
    "e_step",
    "kernel_dots",
    "score_models",
]

# Kernel matrices up to this many samples (200 MB in float64, LIBSVM's default cache
# size) are computed once per fit: the E-step is then one matrix product and LIBSVM
# runs on the precomputed kernel. Above it, n_components="auto" switches to low rank.
_CACHE_MAX_SAMPLES = 5000


def e_step(
    log_S: npt.NDArray[np.float64], log_gamma: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], float]:
    """Memberships (eq. 14) and f_LL (eq. 16) from log-similarities, in log space.

    Parameters
    ----------
    log_S : ndarray of shape (n_samples, n_clusters)
        ``log S(x_i, k)``; ``-inf`` marks a removed cluster.
    log_gamma : ndarray of shape (n_clusters,)
        Log cluster weights (``-inf`` for a removed cluster).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_clusters)
        Memberships; each row is on the simplex.
    f_ll : float
        ``sum_i log sum_k gamma_k S(x_i, k)``.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        L = log_S + log_gamma[None, :]
        L = np.where(np.isnan(L), -np.inf, L)
        top = L.max(axis=1)
        dead = ~np.isfinite(top)  # every cluster removed for this row (cannot normally happen)
        top[dead] = 0.0
        D = L - top[:, None]  # <= 0; may overflow to -inf for extreme scores, exp -> 0
        E = np.exp(D)
        tot = E.sum(axis=1)  # >= 1 on live rows (the maximum contributes exp(0))
    E[dead] = 1.0
    tot[dead] = L.shape[1]
    Z = E / tot[:, None]
    norm = top + np.log(tot)
    return Z, float(norm[~dead].sum())


def kernel_dots(
    models: list[Machine | None],
    X: npt.NDArray[np.floating],
    K: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """``sum_i alpha_ik k(x_i, x)`` for every sample and machine, one kernel pass for all.

    The machines' support vectors are rows of the training data, so the kernel
    between ``X`` and the union of the support vectors is computed once (in
    row blocks) and multiplied by the (n_union, n_clusters) matrix of dual
    coefficients: one kernel evaluation per (sample, support vector) pair
    instead of one per machine. Linear machines (explicit features) need one
    matrix product.

    Parameters
    ----------
    models : list of WeightedOCSVM, LinearWeightedOCSVM or None
        One machine per cluster (None: removed cluster, column of zeros).
    X : ndarray of shape (n, n_features)
        Samples (features of the samples for linear machines).
    K : ndarray of shape (n, n_train) or None, default=None
        Kernel between ``X`` and the training data, when already computed.

    Returns
    -------
    dots : ndarray of shape (n, n_clusters)
    """
    n = X.shape[0]
    out = np.zeros((n, len(models)))
    live = [k for k, m in enumerate(models) if m is not None]
    if not live:
        return out
    first = models[live[0]]
    if isinstance(first, LinearWeightedOCSVM):
        W = np.column_stack([m.coef for m in models if isinstance(m, LinearWeightedOCSVM)])
        out[:, live] = X @ W
        return out
    exact = [m for m in models if isinstance(m, WeightedOCSVM)]
    assert isinstance(first, WeightedOCSVM) and len(exact) == len(live)
    if K is not None:
        A = np.zeros((K.shape[1], len(live)))
        for j, m in enumerate(exact):
            A[m.support, j] = m.alpha
        out[:, live] = K @ A
        return out
    idx = np.unique(np.concatenate([m.support for m in exact]))
    Xu = np.empty((idx.size, X.shape[1]))
    A = np.zeros((idx.size, len(live)))
    for j, m in enumerate(exact):
        pos = np.searchsorted(idx, m.support)
        Xu[pos] = m.support_vectors
        A[pos, j] = m.alpha
    kp: dict[str, Any] = dict(
        kernel=first.kernel, gamma=first.gamma, degree=first.degree, coef0=first.coef0
    )
    step = max(1, _BLOCK_ENTRIES // max(1, idx.size))
    cols = np.asarray(live)
    for start in range(0, n, step):
        Kb = kernel_matrix(X[start : start + step], Xu, **kp)
        out[start : start + step, cols] = Kb @ A
    return out


def score_models(
    models: list[Machine | None],
    X: npt.NDArray[np.floating],
    form: str,
    decision_scale: str = "libsvm",
    K: npt.NDArray[np.float64] | None = None,
    diag: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """``sigma * log S(x, k)`` for samples: scaled ``d_k(x)`` or ``-||phi(x) - a_k||^2``.

    Parameters
    ----------
    models : list of WeightedOCSVM, LinearWeightedOCSVM or None
        One machine per cluster (None: removed cluster, score ``-inf``).
    X : ndarray of shape (n, n_features)
        Samples (validated; their features for linear machines).
    form : {"scholkopf", "tax-duin"}
        Which similarity (eq. 13 or eq. 12).
    decision_scale : {"libsvm", "normalized", "relative"}, default="libsvm"
        Scale of the scores (see the module docstring).
    K : ndarray of shape (n, n_train) or None, default=None
        Kernel between ``X`` and the training data, when already computed.
    diag : ndarray of shape (n,) or None, default=None
        ``k(x, x)`` when already computed (Tax & Duin).

    Returns
    -------
    scores : ndarray of shape (n, n_clusters)
        Scores; divide by sigma for the log-similarities.
    """
    out = np.full((X.shape[0], len(models)), -np.inf)
    dots = kernel_dots(models, X, K)
    for k, m in enumerate(models):
        if m is None:
            continue
        if form == "scholkopf":
            s = dots[:, k] - m.rho
            if decision_scale == "libsvm":
                s = s * m.native_scale
            elif decision_scale == "relative":
                s = s / _offset(m.rho)
        else:
            if diag is None:
                if isinstance(m, LinearWeightedOCSVM):
                    diag = np.einsum("ij,ij->i", X, X).astype(np.float64)
                else:
                    diag = kernel_diag(
                        X, kernel=m.kernel, gamma=m.gamma, degree=m.degree, coef0=m.coef0
                    )
            s = -np.maximum(diag - 2.0 * dots[:, k] + m.center_sq_norm, 0.0)
            if decision_scale == "libsvm":
                s = s * m.native_scale
            elif decision_scale == "relative":
                r2 = _offset(m.rho)
                s = (s + r2) / r2
        out[:, k] = s
    return out


def _offset(rho: float) -> float:
    """A machine's offset as the unit of its relative scores (1 when it is not positive)."""
    return float(rho) if np.isfinite(rho) and rho > 0 else 1.0


@dataclass
class WOCSVMParams:
    """The M-step's output: one machine per cluster and the cluster weights.

    Parameters
    ----------
    models : list of WeightedOCSVM or None
        None for a cluster whose total membership vanished (removed).
    log_gamma : ndarray of shape (n_clusters,)
        Log cluster weights.
    weights_used : list of ndarray or None
        The membership column each machine was trained on (to skip refits).
    n_fits : int
        Number of one-class SVM fits so far.
    removed : list of int
        Clusters removed because their total membership vanished.
    """

    models: list[Machine | None]
    log_gamma: npt.NDArray[np.float64]
    weights_used: list[npt.NDArray[np.float64] | None] = field(default_factory=list)
    n_fits: int = 0
    removed: list[int] = field(default_factory=list)


class WOCSVMObjective:
    """The WOC-SVM mixture on fixed training data: M-step, log-similarities, E-step.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data (validated, float64).
    n_clusters : int
        Number of clusters.
    fit_machine : callable
        The M-step's solver of one machine, ``fit_machine(X, w, K=..., **svm_kwargs)``
        (:func:`~marginclust.solvers._weighted_ocsvm.fit_weighted_ocsvm`): handed
        in by the estimator, so that the model imports no solver.
    fit_linear_machine : callable
        The same on explicit features, ``fit_linear_machine(F, w, form=..., nu=...,
        C=..., bound=..., warm_start=...)``
        (:func:`~marginclust.solvers._weighted_ocsvm.fit_linear_weighted_ocsvm`).
    form : {"scholkopf", "tax-duin"}
        Which weighted one-class SVM.
    nu, C, bound, kernel, gamma, degree, coef0, svm_tol
        Passed to ``fit_machine``.
    decision_scale : {"libsvm", "normalized", "relative"}
        Scale of the scores (see the module docstring).
    refit_tol : float, default=1e-7
        A machine is not retrained when no membership of its cluster moved by
        more than this since its last fit (early exit; the fit would be identical
        up to the SVM tolerance).
    min_mass : float, default=1e-8
        A cluster whose total membership ``sum_i z_ik`` falls below
        ``min_mass * n_samples`` is removed (absorbed by the others).
    K : ndarray of shape (n_samples, n_samples) or None, default=None
        The training kernel matrix when the caller computed it once per fit;
        when None it is computed here for up to 5,000 samples.
    features : ndarray of shape (n_samples, n_features_out) or None, default=None
        Explicit features (e.g. a Nystroem map): the machines are then linear in
        these features (``fit_linear_machine``), at a cost linear in
        ``n_samples``; ``kernel`` and ``gamma`` are then already in the features.
    """

    def __init__(
        self,
        X: npt.NDArray[np.float64],
        n_clusters: int,
        *,
        fit_machine: Callable[..., WeightedOCSVM],
        fit_linear_machine: Callable[..., LinearWeightedOCSVM],
        form: str = "scholkopf",
        nu: float = 0.5,
        C: float | None = None,
        bound: str = "sum",
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 0.0,
        svm_tol: float = 1e-3,
        decision_scale: str = "libsvm",
        refit_tol: float = 1e-7,
        min_mass: float = 1e-8,
        K: npt.NDArray[np.float64] | None = None,
        features: npt.NDArray[np.floating] | None = None,
    ) -> None:
        self.X = X
        self.fit_machine = fit_machine
        self.fit_linear_machine = fit_linear_machine
        self.n_samples = X.shape[0]
        self.n_clusters = n_clusters
        self.form = form
        self.svm_kwargs: dict[str, Any] = dict(
            form=form,
            nu=nu,
            C=C,
            bound=bound,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            tol=svm_tol,
            zero_tol=1e-12,
        )
        self.kparams = dict(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
        self.decision_scale = decision_scale
        self.refit_tol = refit_tol
        self.min_mass = min_mass
        self.features = features
        self._K: npt.NDArray[np.float64] | None = None
        self._diag: npt.NDArray[np.float64] | None = None
        if features is not None:
            self._diag = np.einsum("ij,ij->i", features, features).astype(np.float64)
        else:
            if K is None and self.n_samples <= _CACHE_MAX_SAMPLES:
                K = kernel_matrix(X, X, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0)
            self._K = K
            if K is not None:
                self._diag = np.diag(K).copy()
        self.infeasible_repairs = 0

    # ----------------------------------------------------------------- M-step
    def m_step(self, Z: npt.NDArray[np.float64], previous: WOCSVMParams | None) -> WOCSVMParams:
        """Retrain each machine with its membership column; ``gamma_k = mean_i z_ik``.

        On the first call (``previous=None``, the initial weights) the cluster
        weights are set to ``1/K`` as in the paper, since initial weights (e.g.
        random ones) need not sum to one over the clusters.

        Parameters
        ----------
        Z : ndarray of shape (n_samples, n_clusters)
            Memberships (or initial weights).
        previous : WOCSVMParams or None
            The previous parameters (machines reused when their weights did not move).

        Returns
        -------
        params : WOCSVMParams
            The new parameters.
        """
        K = self.n_clusters
        mass = Z.sum(axis=0)
        models: list[Machine | None] = []
        used: list[npt.NDArray[np.float64] | None] = []
        n_fits = 0 if previous is None else previous.n_fits
        removed = [] if previous is None else list(previous.removed)
        for k in range(K):
            w = Z[:, k]
            if mass[k] < self.min_mass * self.n_samples or k in removed:
                models.append(None)
                used.append(None)
                if k not in removed:
                    removed.append(k)
                continue
            prev_w = None if previous is None else previous.weights_used[k]
            if (
                previous is not None
                and previous.models[k] is not None
                and prev_w is not None
                and np.max(np.abs(prev_w - w)) <= self.refit_tol
            ):
                models.append(previous.models[k])
                used.append(prev_w)
                continue
            kwargs = dict(self.svm_kwargs)
            if self.form == "tax-duin" and kwargs["C"] is not None:
                if kwargs["C"] * mass[k] < 1.0:
                    # repair: the smallest feasible C (every alpha at its bound)
                    kwargs["C"] = 1.0 / mass[k]
                    self.infeasible_repairs += 1
            if self.features is not None:
                prev = None if previous is None else previous.models[k]
                models.append(
                    self.fit_linear_machine(
                        self.features,
                        w,
                        form=kwargs["form"],
                        nu=kwargs["nu"],
                        C=kwargs["C"],
                        bound=kwargs["bound"],
                        warm_start=prev if isinstance(prev, LinearWeightedOCSVM) else None,
                    )
                )
            else:
                models.append(self.fit_machine(self.X, w, K=self._K, **kwargs))
            used.append(w.copy())
            n_fits += 1
        if previous is None:
            # initialisation (Sec. 3.2): gamma_k = 1/K over the clusters that have a machine
            log_gamma = np.full(K, -np.log(K - len(removed)))
        else:
            with np.errstate(divide="ignore"):
                log_gamma = np.log(mass / self.n_samples)
        for k in removed:
            log_gamma[k] = -np.inf
        return WOCSVMParams(models, log_gamma, used, n_fits, removed)

    # --------------------------------------------------------------- E-step
    def score(
        self, params: WOCSVMParams, X: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.float64]:
        """``sigma * log S(x, k)``: the scaled decision value or minus the squared distance.

        Parameters
        ----------
        params : WOCSVMParams
            Fitted machines.
        X : ndarray of shape (n, n_features) or None
            Samples; None means the training data (uses the cached kernel).

        Returns
        -------
        scores : ndarray of shape (n, n_clusters)
            ``-inf`` in the columns of removed clusters.
        """
        if X is not None:
            return score_models(params.models, X, self.form, self.decision_scale)
        data = self.X if self.features is None else self.features
        return score_models(
            params.models, data, self.form, self.decision_scale, K=self._K, diag=self._diag
        )

    def e_step(
        self,
        params: WOCSVMParams,
        sigma: float,
        X: npt.NDArray[np.float64] | None = None,
    ) -> tuple[npt.NDArray[np.float64], float]:
        """Memberships and f_LL at scale ``sigma`` (eqs. 12-16).

        Parameters
        ----------
        params : WOCSVMParams
            Fitted machines and cluster weights.
        sigma : float
            Scale of the similarities.
        X : ndarray or None
            Samples (None: the training data).

        Returns
        -------
        Z : ndarray of shape (n, n_clusters)
            Memberships.
        f_ll : float
            f_LL of eq. (16) on these samples.
        """
        return e_step(self.score(params, X) / sigma, params.log_gamma)


class OneClassHardProblem:
    """OC-SVM hard clustering as a label-alternation problem (for ``LabelAlternation``).

    ``fit_labels`` trains one Schölkopf one-class SVM per cluster on its members
    (the M-step of :class:`WOCSVMObjective` with 0/1 weights), ``assign`` moves
    every sample to the machine that scores it highest, and the objective is
    ``J(t, machines) = -sum_i s_{t_i}(x_i)``. There is no constraint (``repair``
    is the identity). The M-step does not minimise ``J`` exactly (a one-class
    SVM is not fitted to maximise its members' scores), so ``J`` need not
    decrease; cycles are detected by the solver.

    Parameters
    ----------
    objective : WOCSVMObjective
        The machines' model (Schölkopf form, ``refit_tol=0``).
    """

    def __init__(self, objective: WOCSVMObjective) -> None:
        self.model = objective
        self.n_samples = objective.n_samples
        self.rows = np.arange(self.n_samples)
        self._params: WOCSVMParams | None = None
        self._scores: tuple[int, npt.NDArray[np.float64]] | None = None

    def fit_labels(self, labels: npt.NDArray[np.intp]) -> WOCSVMParams:
        """Train one machine per cluster on its members; emptied clusters are removed."""
        Z = np.zeros((self.n_samples, self.model.n_clusters))
        Z[self.rows, labels] = 1.0
        self._params = self.model.m_step(Z, self._params)
        return self._params

    def scores(self, params: WOCSVMParams) -> npt.NDArray[np.float64]:
        """Decision values of every sample for every machine (cached per model)."""
        if self._scores is None or self._scores[0] != id(params):
            self._scores = (id(params), self.model.score(params))
        return self._scores[1]

    def objective_value(self, params: WOCSVMParams, labels: npt.NDArray[np.intp]) -> float:
        """``-sum_i s_{t_i}(x_i)``."""
        return -float(self.scores(params)[self.rows, labels].sum())

    def objective(self, params: WOCSVMParams, labels: npt.NDArray[np.intp]) -> float:
        """``J(labels, params)`` (the solver's name for :meth:`objective_value`)."""
        return self.objective_value(params, labels)

    def assign(self, params: WOCSVMParams) -> npt.NDArray[np.intp]:
        """The machine that scores each sample highest."""
        return np.asarray(np.argmax(self.scores(params), axis=1), dtype=np.intp)

    def repair(
        self, labels: npt.NDArray[np.intp], params: WOCSVMParams
    ) -> npt.NDArray[np.intp]:
        """No constraint: the labels unchanged."""
        return labels

    def is_feasible(self, labels: npt.NDArray[np.intp]) -> bool:
        """Every labelling is feasible."""
        return True

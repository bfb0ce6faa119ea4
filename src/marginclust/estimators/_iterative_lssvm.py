"""Iterative least-squares SVM clustering (Zhang, Tsang & Kwok 2009; SLMC paper eq. (14))."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.utils import Tags

from ..base import BaseClusterer, one_cluster_result
from ..feature_maps import resolve_gamma
from ..objectives._slmc import LSSVMProblem, balanced_sign
from ..solvers import SolverResult
from ..solvers._alternating import AlternatingMinimizer
from ..starts._kmeans import kmeans_plusplus_centres, kmeans_start
from ..utils import Check, Init, MaxIter, NClusters, Positive, resolve_alias
from ._kernel_model import (
    KERNEL_CONSTRAINTS,
    KernelContext,
    KernelModelMixin,
)

__all__ = ["IterativeLSSVM", "balanced_sign"]

_INITS = ("k-means", "k-means++", "random")
_INIT_ALIASES = {"kmeans": "k-means", "kmeans++": "k-means++"}


def _binary_labels(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """An array ``init``: one label in {0, 1} per sample."""
    lab = np.asarray(value)
    if lab.shape != (X.shape[0],) or not np.all(np.isin(lab, (0, 1))):
        raise ValueError(
            f"{name} as an array must hold n_samples={X.shape[0]} labels in {{0, 1}}; "
            f"got shape {lab.shape}."
        )


def _fraction(value: Any, name: str) -> float:
    """A fraction of ``n`` in ``[0, 1]``."""
    fraction = Positive(strict=False)(value, name)
    if fraction > 1:
        raise ValueError(f"{name} must be in [0, 1] (a fraction of n); got {value!r}.")
    return fraction


class IterativeLSSVM(KernelModelMixin, BaseClusterer):
    """Binary maximum margin clustering by iterative least-squares SVM.

    Alternates an LS-SVM fit on the current labels (kernel ridge regression on
    targets y in {-1, +1}) and an exact relabelling under the class-balance
    constraint ``|sum_i y_i| <= l``, minimising (eq. (14) of Wang & Chen 2013,
    after Zhang, Tsang & Kwok 2009)

    .. math::

        J(w, y) = \\lVert w \\rVert^2 + \\lambda \\sum_i \\bigl(w^\\top \\phi(x_i) - y_i\\bigr)^2

    Both steps are exact, so ``J`` never increases; the loop stops when no
    label changes. Binary only: the references define the two-cluster problem.
    The threshold is implicit (kernel ``"linear"`` is ``x^T y + 1`` on centred
    data; the RBF kernel needs none). The data are centred internally, so a
    large common offset (timestamps) does not change the result.

    ``labels_`` is ``decision_values_ > threshold_``, the rule ``predict``
    applies to new data, so ``predict(X_train)`` equals ``labels_``. The
    relabelling of the last sweep gives the same labels except when decision
    values tie across the threshold; ``n_threshold_changes_`` counts such rows (then
    the balance constraint may be exceeded by those rows).

    Parameters
    ----------
    n_clusters : int, default=2
        Must be 2.
    kernel : {"rbf", "linear", "precomputed"} or callable, default="rbf"
        As in :class:`~marginclust.SLMC`.
    gamma : float or {"scale", "sigma0"}, default="sigma0"
        RBF width parameter, ``exp(-gamma ||x - y||^2)``; ``"sigma0"`` is
        ``1 / (2 sigma0^2)`` with ``sigma0`` the mean pairwise distance (the
        measured default), ``"scale"`` is ``1 / (n_features X.var())``.
    lam : float, default=0.1
        Weight of the squared loss (a sum over samples, as in the paper). The
        defaults (``lam=0.1``, ``sigma0``, ``balance=0.1``, standardised
        features) had the best mean clustering accuracy over eight binary UCI
        sets.
    balance : float, default=0.1
        Class-balance constraint as a fraction of ``n``: ``l = floor(balance * n)``
        (0 forces equal halves, 1 removes the constraint).
    init : {"k-means", "k-means++", "random"} or array-like, default="k-means"
        Initial labels: 2-means (as the reference), the nearer of two
        k-means++ seeds, random signs, or an array of ``n_samples`` labels in
        {0, 1}.
    max_iter : int, default=100
        Maximum number of sweeps.
    n_init : int, default=1
        Number of restarts (the smallest final ``J`` is kept).
    n_components : "auto", int or None, default="auto"
        Exact kernel (None), low-rank mode with an ``L``-dimensional feature
        map (int), or exact up to 2,000 samples and rank 500 above ("auto");
        see :class:`~marginclust.SLMC`.
    low_rank : {"nystroem", "rff"}, default="nystroem"
        Feature map of the low-rank mode.
    dtype : {None, "float32", "float64"}, default=None
        dtype of the low-rank features (None follows ``X``).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the feature map.
    verbose : int, default=0
        ``verbose > 0`` prints one line per sweep to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        1 where ``y_i = +1``, else 0.
    decision_values_ : ndarray of shape (n_samples,)
        ``f(x_i)`` on the training data.
    threshold_ : float
        Midpoint between the decision values of the two clusters; ``predict``
        returns ``f(x) > threshold_``.
    n_threshold_changes_ : int
        Rows whose label the final thresholding changed from the last
        relabelling (decision values tied across the threshold; usually 0).
    dual_coef_, X_fit_, coef_, feature_map_, gamma_, mean_, n_components_
        The fitted decision function (exact or low-rank), as in SLMC.
    objective_, objective_history_, n_iter_, converged_, n_clusters_found_, \
n_features_in_
        As every marginclust clusterer.

    References
    ----------
    K. Zhang, I. W. Tsang and J. T. Kwok, "Maximum margin clustering made
    practical", IEEE Trans. Neural Networks 20 (2009) 583-596.

    Y. Wang and S. Chen, "Soft large margin clustering", Information Sciences
    229 (2013) 157-168 (eq. (14), the baseline's objective).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import IterativeLSSVM
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> est = IterativeLSSVM(random_state=0).fit(X)
    >>> np.bincount(est.labels_).tolist()
    [20, 20]
    >>> bool((est.predict(X) == est.labels_).all())
    True
    """

    _exact_copies = 4  # the kernel, the LS-SVM system, its factor's backup and a solve
    _n_scaled_params = ("lam",)
    _collapse_advice = (
        "Standardise the features, lower balance (a tighter class-balance constraint) or "
        "use a narrower kernel (a larger gamma)."
    )

    _parameter_constraints = {
        # binary; n_clusters=1: the trivial one-cluster partition
        "n_clusters": NClusters(1, 2),
        "lam": Positive(),
        "balance": Check(_fraction, invalid=(-0.1, 1.5, "0.1")),
        "init": Init(_INITS, _binary_labels, "an array of n_samples labels in {0, 1}",
                     aliases=tuple(_INIT_ALIASES)),
        "max_iter": MaxIter(),
        "n_init": MaxIter(),
        **KERNEL_CONSTRAINTS,
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: Any = "rbf",
        gamma: float | str = "sigma0",
        lam: float = 0.1,
        balance: float = 0.1,
        init: Any = "k-means",
        max_iter: int = 100,
        n_init: int = 1,
        n_components: int | str | None = "auto",
        low_rank: str = "nystroem",
        dtype: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.lam = lam
        self.balance = balance
        self.init = init
        self.max_iter = max_iter
        self.n_init = n_init
        self.n_components = n_components
        self.low_rank = low_rank
        self.dtype = dtype
        self.random_state = random_state
        self.verbose = verbose

    def _setup_on_data(self, X: Any) -> None:
        self._check_kernel_params(X)

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)
        init_y = None
        if not isinstance(init, str):
            init_y = np.where(np.asarray(init) == 1, 1.0, -1.0)
        kctx = self._prepare_kernel(X)
        l_max = int(np.floor(float(self.balance) * X.shape[0]))
        problem = LSSVMProblem(float(self.lam), l_max, Kmat=kctx.Kmat, Phi=kctx.Phi)
        return {"kernel": kctx, "init": init, "init_y": init_y, "problem": problem}

    def fit(self, X: Any, y: Any = None) -> IterativeLSSVM:
        """Fit the clustering to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data (dense), or the kernel matrix if ``kernel="precomputed"``.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X)

    def _initial_labels(self, ctx: dict[str, Any], random_state: np.random.RandomState) -> Any:
        if ctx["init_y"] is not None:
            return ctx["init_y"].copy()
        X = ctx["kernel"].X
        n = X.shape[0]
        if ctx["init"] == "random":
            return np.where(random_state.rand(n) < 0.5, 1.0, -1.0)
        if ctx["init"] == "k-means++":
            c = kmeans_plusplus_centres(X, 2, random_state)
            d = ((X[:, None, :] - c[None, :, :]) ** 2).sum(-1)
            return np.where(np.argmin(d, axis=1) == 1, 1.0, -1.0)
        return np.where(kmeans_start(X, 2, random_state) == 1, 1.0, -1.0)

    def _fit_one(
        self, ctx: dict[str, Any], random_state: np.random.RandomState
    ) -> SolverResult:
        kctx: KernelContext = ctx["kernel"]
        problem: LSSVMProblem = ctx["problem"]
        lam = float(self.lam)
        if self._n_clusters == 1:  # trivial: one cluster, f fitted to y = +1
            a, f, reg = problem.fit_coef(np.ones(kctx.X.shape[0]))
            J = reg + lam * float(np.sum((f - 1.0) ** 2))
            model = {"decision_values_": f, "threshold_": np.inf, "n_threshold_changes_": 0,
                     **self._fitted_model(kctx, a)}
            return one_cluster_result(f.shape[0], model, objective=J)
        y0 = self._initial_labels(ctx, random_state)
        solver = AlternatingMinimizer(
            tol=0.0, tol_x=0.0, min_iter=1, max_iter=int(self.max_iter), verbose=self.verbose,
            name="IterativeLSSVM",
        )
        res = solver.solve(problem, (y0, None, None))
        y, coef, f = res.x
        pos, neg = f[y > 0], f[y < 0]
        if pos.size and neg.size:
            threshold = 0.5 * (float(pos.min()) + float(neg.max()))
        else:
            threshold = float(f.min()) - 1.0 if pos.size else float(f.max()) + 1.0
        labels = (f > threshold).astype(np.intp)
        moved = int(np.count_nonzero(labels != (y > 0)))
        x = {"labels_": labels, "decision_values_": f, "threshold_": threshold,
             "n_threshold_changes_": moved}
        x.update(self._fitted_model(kctx, coef))
        return replace(res, x=x)

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """``lam`` in {0.1, 1} x ``gamma`` in {1/4, 1, 4} x the ``"sigma0"`` rule."""
        Xa = np.asarray(X, dtype=np.float64)
        base = resolve_gamma("sigma0", Xa - Xa.mean(axis=0), random_state=0)
        return {"lam": [0.1, 1.0], "gamma": [base * f for f in (0.25, 1.0, 4.0)]}

    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values ``f(x)`` of the LS-SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (the cross-kernel if ``kernel="precomputed"``).

        Returns
        -------
        f : ndarray of shape (n_samples,)
            Decision values; the sign gives the cluster.
        """
        X = self._validate_predict_data(X)
        return self._decision_values(X)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return (self._decision_values(X) > self.threshold_).astype(np.intp)

    def score(self, X: Any, y: Any = None) -> float:
        """Return minus the LS-SVM objective on ``X`` with the predicted labels (higher is better).

        ``-(||w||^2 + lam * sum_i (f(x_i) - y_i)^2)`` with ``y_i = +1`` where
        ``predict`` gives 1, else -1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            ``-J`` on ``X``.
        """
        X = self._validate_predict_data(X)
        f = self._decision_values(X)
        yy = np.where(f > self.threshold_, 1.0, -1.0)
        if self.coef_ is not None:
            reg = float(np.sum(np.asarray(self.coef_, dtype=np.float64) ** 2))
        else:
            reg = float(self.dual_coef_ @ self.decision_values_)
        return -(reg + float(self.lam) * float(np.sum((f - yy) ** 2)))

    def __sklearn_tags__(self) -> Tags:  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

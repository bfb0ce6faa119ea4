"""BMMC: maximum margin clustering by CCCP + the bundle method (Li et al., IEEE Access 2019)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..solvers._base import check_capabilities
from ..solvers._bundle import BundleMethod
from ..solvers._cccp import CCCP
from ..solvers._result import SolverResult
from ..utils import MaxIter, Positive
from ..utils._reporting import report
from ._linear_mmc import (
    MMC_CONSTRAINTS,
    LinearMMCBase,
    MMCContext,
    linear_result,
    one_cluster_model,
)

__all__ = ["BMMC"]


class BMMC(LinearMMCBase):
    """Maximum margin clustering by CCCP and the bundle method (BMMC).

    Linear maximum margin clustering: binary (``n_clusters=2``, Li et al. 2019
    eqs. 3-18) or multiclass (eqs. 19-34, one weight vector per cluster, label
    = argmax of the scores), with the class balance constraint and, optionally,
    must-link / cannot-link pairs (Sec. IV). The non-convex problem is solved by
    CCCP (the signs / argmax are fixed at the current iterate), each convex
    subproblem by a bundle method for regularised risk minimisation whose small
    QP is solved exactly. Dense and sparse (CSR) input; the cost per bundle step
    is ``O(n_clusters * nnz(X))``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters (2: binary model; more: multiclass model; 1: the
        trivial one-cluster partition).
    C : float, default=1.0
        Weight of the mean hinge loss (the loss is divided by ``n``, by ``nk`` for
        multiclass). Scale free: the centred data are divided by their root mean
        feature variance ``data_scale_`` before the fit, so one ``C`` means the
        same thing for any ``n`` and any uniform rescaling of ``X`` (the paper's
        ``C`` on raw data is ``C / data_scale_**2``).
    balance : int or float, default=0.1
        The ``l`` of eq. (3)/(21): an int is the absolute bound on
        ``|sum_i f(x_i)|`` (resp. on ``|sum_i f_p(x_i) - sum_i f_q(x_i)|``); a
        float in ``(0, 1]`` is a fraction of ``n_samples``.
    C_pairs : float, default=1.0
        Weight ``C'`` of the pairwise loss (used only with ``must_link`` /
        ``cannot_link``).
    tol : float, default=0.01
        CCCP stops when the true objective decreases by at most ``tol`` times its
        value (the paper's epsilon), or when the signs / argmax repeat.
    max_iter : int, default=50
        Maximum CCCP iterations.
    inner_tol : float, default=1e-3
        Bundle method stops when (best value - model minimum) <= inner_tol * best value.
    inner_max_iter : int, default=200
        Maximum bundle steps per CCCP iteration.
    init : {"auto", "k-means", "pca"} or array-like of shape (n_samples,), default="auto"
        Initial labels (they define the first convex subproblem, so the trivial
        solution ``w = 0`` is never the starting point): ``"k-means"``: one
        scikit-learn K-means run; ``"pca"``: K-means on a few principal
        directions (constraint-aware with pairs; cheap on large sparse data);
        ``"auto"``: ``"pca"`` with pairs, else ``"k-means"`` (sparse and dense
        copies of the same data start alike); or given labels. ``"kmeans"`` is a
        deprecated alias of ``"k-means"``.
    n_init : int, default=1
        Restarts (different K-means seeds); the lowest objective is kept.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        Solver of the bundle QP: ``"auto"`` = the built-in active-set method
        warm-started from the previous bundle step (interior point fallback);
        ``"ipm"``: the built-in interior point method; ``"clarabel"``: the
        optional clarabel package.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    verbose : int, default=0
        ``verbose > 0`` prints one line per CCCP iteration to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels.
    coef_ : ndarray of shape (1, n_features) or (n_clusters, n_features)
        Weights ``w`` (binary) or ``w_r`` (multiclass).
    intercept_ : ndarray of shape (1,) or (n_clusters,)
        Offsets ``b``.
    objective_ : float
        True (non-convex) objective at the solution.
    objective_history_ : ndarray
        True objective after each CCCP iteration (non-increasing).
    n_iter_ : int
        CCCP iterations.
    n_inner_iter_ : ndarray of int
        Bundle steps of each CCCP iteration.
    converged_ : bool
        Whether CCCP met its stopping rule.
    data_scale_ : float
        Root mean feature variance of the training data (the unit of ``C``).
    n_clusters_found_ : int
        Non-empty clusters in ``labels_``.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    CPMMC : The cutting-plane solver of the same problems.

    Notes
    -----
    Written around the data mean: ``f(x) = w.(x - xbar) / s + t`` (``s =
    data_scale_``) with ``t`` the mean
    score, so the balance constraint is the box ``|t| <= l/n`` (binary) or
    ``|t_p - t_q| <= l/n`` (multiclass, with ``sum_r t_r = 0`` since a common shift
    does not change the labels), and the bundle QP only involves ``t``. The
    multiclass model has offsets (the paper's eq. 19 has none); with them the
    ``n_clusters=2`` multiclass problem is exactly the binary one for
    ``f = f_1 - f_2`` at half the objective. The semi-supervised variant keeps the
    balance constraint (the paper drops it); a loose bound such as
    ``balance=1.0`` effectively removes it.

    References
    ----------
    J. Li, J. Sun, L. Liu, B. Liu, C. Xiao, F. Wang. Improved maximum margin
    clustering via the bundle method. IEEE Access 7, 2019.
    C. H. Teo, S. V. N. Vishwanathan, A. J. Smola, Q. V. Le. Bundle methods for
    regularized risk minimization. JMLR 11, 2010.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from marginclust import BMMC
    >>> X, y = make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0)
    >>> est = BMMC(n_clusters=2, random_state=0).fit(X)
    >>> est.n_clusters_found_
    2
    >>> bool((est.predict(X) == est.labels_).all())
    True

    The default ``C`` is scale free: rescaling ``X`` leaves the labels unchanged.

    >>> bool((BMMC(random_state=0).fit(X * 1e3).labels_ == est.labels_).all())
    True

    Must-link / cannot-link pairs (indices into the rows of ``X``):

    >>> semi = BMMC(random_state=0).fit(X, must_link=[[0, 1]], cannot_link=[[0, 2]])
    >>> semi.transform(X).shape
    (40, 2)
    """

    _parameter_constraints = {
        "C": Positive(),
        "C_pairs": Positive(strict=False),
        "tol": Positive(),
        "inner_tol": Positive(),
        "max_iter": MaxIter(),
        "inner_max_iter": MaxIter(),
        **MMC_CONSTRAINTS,
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        C: float = 1.0,
        balance: int | float = 0.1,
        C_pairs: float = 1.0,
        tol: float = 0.01,
        max_iter: int = 50,
        inner_tol: float = 1e-3,
        inner_max_iter: int = 200,
        init: Any = "auto",
        n_init: int = 1,
        qp: str = "auto",
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.balance = balance
        self.C_pairs = C_pairs
        self.tol = tol
        self.max_iter = max_iter
        self.inner_tol = inner_tol
        self.inner_max_iter = inner_max_iter
        self.init = init
        self.n_init = n_init
        self.qp = qp
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- fitting
    def fit(self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None) -> BMMC:
        """Fit the clustering to ``X``, optionally with pairwise constraints.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.
        must_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should share a cluster.
        cannot_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should be in different clusters.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, must_link=must_link, cannot_link=cannot_link)

    def _prepare(self, X: Any, **fit_params: Any) -> MMCContext:
        return self._make_context(
            X,
            fit_params.get("must_link"),
            fit_params.get("cannot_link"),
            C_pairs=float(self.C_pairs),
        )

    def _solver(self) -> CCCP:
        inner = BundleMethod(tol=self.inner_tol, max_iter=self.inner_max_iter, qp=self.qp)
        return CCCP(inner, tol=self.tol, max_iter=self.max_iter)

    def _fit_one(
        self, context: Any, random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        X, obj = context.X, context.objective
        if obj is None:  # n_clusters=1
            return one_cluster_model(X, {"n_inner_iter_": np.zeros(0, dtype=np.intp)})
        obj = obj.fresh()  # this restart's own caches
        start = self._start(context, obj, random_state, obj.pairs)
        if isinstance(start, list):  # per-block labels (out of core)
            return self._solve(obj, obj.surrogate_from_states(start, None))
        return self._solve(obj, obj.surrogate(start))

    def _solve(self, obj: Any, first: Any) -> SolverResult:
        """CCCP + bundle from the first convex subproblem ``first`` (initial labels)."""
        solver = self._solver()
        check_capabilities(obj, solver)
        check_capabilities(first, solver.inner)

        def callback(it: int, value: float) -> None:
            report(self.verbose, "BMMC CCCP iteration %d: objective %.6g", it, value)

        res = solver.solve(obj, obj.zero(), first=first, callback=callback)
        report(
            self.verbose,
            "BMMC: %d CCCP iterations, bundle steps %s, objective %.6g",
            res.n_iter,
            res.info["n_inner_iter"],
            res.objective,
        )
        return linear_result(
            obj,
            res,
            {"n_inner_iter_": np.asarray(res.info["n_inner_iter"], dtype=np.intp)},
            f"BMMC: CCCP stopped at max_iter={self.max_iter} before the objective "
            f"changed by less than tol={self.tol}; increase max_iter or tol.",
        )

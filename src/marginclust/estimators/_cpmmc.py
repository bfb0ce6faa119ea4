"""CPMMC: cutting-plane maximum margin clustering (Zhao, Wang & Zhang, SDM 2008; ICML 2008)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..objectives._mmc import MMCObjective
from ..solvers._base import check_capabilities
from ..solvers._cccp import CCCP
from ..solvers._cutting_plane import CuttingPlaneMMC, CuttingPlaneSVM
from ..solvers._result import SolverResult
from ..utils import MaxIter, NClusters, Positive
from ..utils._reporting import report
from ._linear_mmc import (
    MMC_CONSTRAINTS,
    LinearMMCBase,
    linear_result,
    one_cluster_model,
)

__all__ = ["CPMMC"]


class CPMMC(LinearMMCBase):
    """Cutting-plane maximum margin clustering (binary and multiclass), the baseline of BMMC.

    Solves the same MMC problems as :class:`~marginclust.BMMC`.

    Binary (``n_clusters=2``; Zhao, Wang & Zhang, SDM 2008): BMMC eq. 3 in its
    1-slack form (eq. 7) by a cutting-plane outer loop: the working set of
    constraints ``c in {0,1}^n`` grows by the most violated one; each restricted
    problem is solved by CCCP with an exact QP per CCCP step. Stopping rule:
    the outer loop stops when the most violated constraint is violated by at most
    ``tol`` (or after ``max_iter`` constraints); each CCCP stops when the
    restricted objective decreases by at most ``cccp_tol`` times its value (or
    after ``cccp_max_iter`` steps). The true objective need not be monotone (each
    restricted problem is non-convex), so the fit keeps the iterate with the lowest
    true objective (at C=10 on 3,000 ringnorm rows the loop reached ``max_iter``
    with its last iterate 0.12 above its best).

    Multiclass (``n_clusters > 2``; Zhao, Wang & Zhang, ICML 2008): the
    multiclass objective of BMMC (eqs. 20-22) by CCCP (argmax fixed at the
    current iterate, the same linearisation as BMMC); each convex subproblem is
    solved in its 1-slack form by constraint generation: the most violated
    constraint ``c in {0,1}^{n x k}`` is added to the working set and the small
    QP over the working set (one slack, with the balance constraints) is solved
    exactly.
    Stopping rule: a subproblem stops when its most violated constraint is
    violated by at most ``tol`` (its value is then within ``C * tol`` of its
    minimum) or after ``max_iter`` constraints; CCCP stops when the true
    objective decreases by at most ``cccp_tol`` times its value, when the argmax
    repeats, or after ``cccp_max_iter`` steps. The true objective never
    increases (the inner solver returns its best iterate, never worse than the
    warm start).

    Must-link / cannot-link pairs (``fit(X, must_link=..., cannot_link=...)``)
    add the pair loss of :class:`~marginclust.BMMC` to every subproblem, with
    its closure, start, balance bound and labels of the pairs' rows; the fit
    then runs the multiclass structure for any ``n_clusters`` (CCCP outside,
    with each row's label and each pair's allowed joint label fixed, and the
    1-slack cutting plane on each convex subproblem, with a slack and a
    working set for the pairs' term apart from the margin's, whose
    constraints are added without a pass over ``X``).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters (2: binary model; more: multiclass model; 1: the
        trivial one-cluster partition).
    C : float or "auto", default="auto"
        Weight of the mean hinge loss; scale free as in :class:`~marginclust.BMMC`
        (the centred data are divided by their root mean feature variance
        ``data_scale_``; the paper's ``C`` on raw data is ``C / data_scale_**2``).
        ``"auto"``: fits at ``C=10`` and ``C=1``, the better separated partition
        kept, as :class:`~marginclust.BMMC`'s (see there). 1 before 0.2, then 10.
    balance : int or float, default=0.1
        Balance bound ``l`` (int: absolute; float in (0, 1]: fraction of n);
        with pairs it grows by the number of rows in pairs (as
        :class:`~marginclust.BMMC`).
    C_pairs : float, default=1.0
        Weight ``C'`` of the pair loss, as in :class:`~marginclust.BMMC` (each
        pair weighs ``C'`` with the pair margin).
    pair_loss : {"margin", "paper"}, default="margin"
        The loss of a pair, as in :class:`~marginclust.BMMC`.
    min_cluster_size : "auto", float or int, default="auto"
        Multiclass without pairs: the floor on the cluster sizes of
        :class:`~marginclust.BMMC` (0: the paper's model).
    tol : float, default=0.01
        Constraint violation tolerance of the cutting-plane loop (absolute).
    max_iter : int, default=100
        Maximum cutting-plane iterations (binary: outer loop; multiclass: per
        CCCP subproblem).
    cccp_tol : float, default=0.01
        Relative-decrease tolerance of CCCP.
    cccp_max_iter : int, default=30
        Maximum CCCP iterations (binary: per restricted problem; multiclass: in all).
    init : {"k-means", "pca", "auto", "max-margin"} or array-like of shape (n_samples,), \
            default="k-means"
        Initial labels (signs / argmax of the first linearisation), as in
        :class:`~marginclust.BMMC`; ``"kmeans"`` is a deprecated alias of
        ``"k-means"``.
    n_init : int, default=1
        Restarts.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        QP solver (``"auto"``: the built-in active-set method, interior point fallback).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    verbose : int, default=0
        ``verbose > 0`` prints one line per cutting-plane (binary) or CCCP
        (multiclass) iteration to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels (on the rows of pairs, labels that keep every must-link,
        as in :class:`~marginclust.BMMC`).
    coef_ : ndarray of shape (1, n_features) or (n_clusters, n_features)
        Weights in the data's units.
    intercept_ : ndarray of shape (1,) or (n_clusters,)
        Offsets.
    C_ : float
        The ``C`` of the kept fit, as in :class:`~marginclust.BMMC`.
    C_scores_ : dict of float to float
        Each tried ``C`` and its partition's voting margin, as in
        :class:`~marginclust.BMMC`.
    objective_ : float
        True MMC objective (eq. 3 / eq. 22) at the solution (binary: the lowest
        entry of ``objective_history_``, whose iterate is the model).
    objective_history_ : ndarray
        Binary: true objective after each cutting-plane iteration (not
        necessarily monotone). Multiclass: after each CCCP iteration
        (non-increasing).
    n_iter_ : int
        Binary: cutting-plane iterations. Multiclass: CCCP iterations.
    n_cccp_iter_ : ndarray of int
        Binary: CCCP iterations of each cutting-plane iteration. Multiclass (or
        with pairs): ``[n_iter_]`` (one CCCP run).
    n_inner_iter_ : ndarray of int
        Multiclass only: constraints generated in each CCCP iteration.
    n_constraints_ : int
        Size of the final working set (multiclass: the largest one).
    converged_ : bool
        Whether the stopping rule was met.
    data_scale_ : float
        Root mean feature variance of the training data (the unit of ``C``).
    size_moved_ : ndarray of int
        Rows whose ``labels_`` differ from ``predict(X_train)``: moved by the
        cluster-size floor (empty when it did not bind).
    pairs_moved_ : ndarray of int
        Rows of must-link / cannot-link pairs whose ``labels_`` (which keep the
        pairs) differ from ``predict(X_train)``; empty without pairs. Together
        with ``size_moved_``: every row where the two differ.
    n_clusters_found_ : int
        Non-empty clusters in ``labels_``.
    n_features_in_ : int
        Number of features seen during fit.

    References
    ----------
    B. Zhao, F. Wang, C. Zhang. Efficient maximum margin clustering via cutting
    plane algorithm. SIAM SDM 2008.
    B. Zhao, F. Wang, C. Zhang. Efficient multiclass maximum margin clustering.
    ICML 2008.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from marginclust import CPMMC
    >>> X, y = make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0)
    >>> est = CPMMC(n_clusters=2, random_state=0).fit(X)
    >>> est.n_clusters_found_, est.transform(X).shape
    (2, (40, 2))
    >>> bool((CPMMC(random_state=0).fit(X * 1e-3).labels_ == est.labels_).all())
    True
    >>> semi = CPMMC(random_state=0).fit(X, must_link=[[0, 1]], cannot_link=[[0, 2]])
    >>> bool(semi.labels_[0] == semi.labels_[1] != semi.labels_[2])
    True
    """

    _parameter_constraints = {
        "n_clusters": NClusters(1),  # n_clusters=1: the one-cluster partition (f = -1)
        "C_pairs": Positive(strict=False),
        "tol": Positive(),
        "cccp_tol": Positive(),
        "max_iter": MaxIter(),
        "cccp_max_iter": MaxIter(),
        **MMC_CONSTRAINTS,
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        C: float | str = "auto",
        balance: int | float = 0.1,
        C_pairs: float = 1.0,
        pair_loss: str = "margin",
        min_cluster_size: Any = "auto",
        tol: float = 0.01,
        max_iter: int = 100,
        cccp_tol: float = 0.01,
        cccp_max_iter: int = 30,
        init: Any = "k-means",
        n_init: int = 1,
        qp: str = "auto",
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.balance = balance
        self.C_pairs = C_pairs
        self.pair_loss = pair_loss
        self.min_cluster_size = min_cluster_size
        self.tol = tol
        self.max_iter = max_iter
        self.cccp_tol = cccp_tol
        self.cccp_max_iter = cccp_max_iter
        self.init = init
        self.n_init = n_init
        self.qp = qp
        self.random_state = random_state
        self.verbose = verbose

    def _callback(self, what: str) -> Any:
        def callback(it: int, value: float) -> None:
            report(self.verbose, "CPMMC %s %d: objective %.6g", what, it, value)

        return callback

    def _fit_one(
        self, context: Any, random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        X, obj = context.X, context.objective
        if obj is None:  # n_clusters=1
            return one_cluster_model(
                X, {"n_cccp_iter_": np.zeros(0, dtype=np.intp), "n_constraints_": 0}
            )
        k = self._n_clusters
        obj = obj.fresh()  # this restart's own caches
        start = self._start(context, obj, random_state, obj.pairs)
        if isinstance(start, list):  # per-block labels (out of core: no floor, no pairs)
            if k > 2:
                return self._fit_multiclass(obj, obj.surrogate_from_states(start, None))
            return self._fit_binary(obj, start)
        obj.min_size = self._min_size(obj, start, X.shape[0])
        return self._solve(obj, start)

    def _solve(self, obj: MMCObjective, labels0: Any) -> SolverResult:
        """Cutting plane (binary) or CCCP + cutting plane (multiclass, pairs) from ``labels0``."""
        if self._n_clusters > 2 or obj.pair_term is not None:
            return self._fit_multiclass(obj, obj.surrogate(labels0))
        return self._fit_binary(obj, obj.data.blocks.split(np.asarray(labels0, dtype=np.intp)))

    def _fit_binary(self, obj: MMCObjective, states0: list[Any]) -> SolverResult:
        """Binary CPMMC from the initial labels per row block of ``obj.data.blocks``."""
        solver = CuttingPlaneMMC(
            tol=self.tol,
            max_iter=self.max_iter,
            cccp_tol=self.cccp_tol,
            cccp_max_iter=self.cccp_max_iter,
            qp="active-set" if self.qp == "auto" else self.qp,
        )
        check_capabilities(obj, solver)
        res = solver.solve(
            obj,
            obj.zero(),
            states0=states0,
            callback=self._callback("cutting plane"),
        )
        return linear_result(
            obj,
            res,
            {
                "n_cccp_iter_": np.asarray(res.info["n_cccp_iter"], dtype=np.intp),
                "n_constraints_": res.info["n_constraints"],
            },
            f"CPMMC stopped at max_iter={self.max_iter} with a constraint still violated "
            f"by more than tol={self.tol}; increase max_iter or tol.",
        )

    def _fit_multiclass(self, obj: MMCObjective, first: Any) -> SolverResult:
        """CCCP outside, the 1-slack cutting plane on each subproblem (multiclass, or pairs).

        ``first``: the first convex subproblem (the initial labels).
        """
        inner = CuttingPlaneSVM(
            tol=self.tol,
            max_iter=self.max_iter,
            qp="active-set" if self.qp == "auto" else self.qp,
        )
        solver = CCCP(inner, tol=self.cccp_tol, max_iter=self.cccp_max_iter)
        check_capabilities(obj, solver)
        check_capabilities(first, inner)
        res = solver.solve(obj, obj.zero(), first=first, callback=self._callback("CCCP iteration"))
        n_inner = np.asarray(res.info["n_inner_iter"], dtype=np.intp)
        return linear_result(
            obj,
            res,
            {
                "n_cccp_iter_": np.array([res.n_iter], dtype=np.intp),
                "n_inner_iter_": n_inner,
                "n_constraints_": int(n_inner.max(initial=0)),
            },
            f"CPMMC: CCCP stopped at cccp_max_iter={self.cccp_max_iter} before the objective "
            f"changed by less than cccp_tol={self.cccp_tol}; increase cccp_max_iter.",
        )

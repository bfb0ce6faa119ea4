"""CPMMC: cutting-plane maximum margin clustering (Zhao, Wang & Zhang, SDM 2008; ICML 2008)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer
from ..objectives._constraints import resolve_balance
from ..objectives._mmc import MMCObjective
from ..solvers._cccp import CCCP
from ..solvers._cutting_plane import CuttingPlaneMMC, CuttingPlaneSVM
from ..solvers._result import SolverResult
from ..utils import check_max_iter, check_positive
from ._bmmc import (
    _check_init_qp,
    _labels,
    _linear_result,
    _linear_scores,
    _one_cluster,
    initial_labels,
)

__all__ = ["CPMMC"]


class CPMMC(BaseClusterer):
    """Cutting-plane maximum margin clustering (binary and multiclass), the baseline of BMMC.

    Solves the same MMC problems as :class:`~marginclust.BMMC`.

    Binary (``n_clusters=2``; Zhao, Wang & Zhang, SDM 2008): BMMC eq. 3 in its
    1-slack form (eq. 7) by a cutting-plane outer loop: the working set of
    constraints ``c in {0,1}^n`` grows by the most violated one; each restricted
    problem is solved by CCCP with an exact QP per CCCP step (see
    :class:`~marginclust.solvers._cutting_plane.CuttingPlaneMMC`). Stopping rule:
    the outer loop stops when the most violated constraint is violated by at most
    ``tol`` (or after ``max_iter`` constraints); each CCCP stops when the
    restricted objective decreases by at most ``cccp_tol`` times its value (or
    after ``cccp_max_iter`` steps). The true objective need not be monotone.

    Multiclass (``n_clusters > 2``; Zhao, Wang & Zhang, ICML 2008): the
    multiclass objective of BMMC (eqs. 20-22) by CCCP (argmax fixed at the
    current iterate, the same linearisation as BMMC); each convex subproblem is
    solved in its 1-slack form by constraint generation: the most violated
    constraint ``c in {0,1}^{n x k}`` is added to the working set and the small
    QP over the working set (one slack, with the balance constraints) is solved
    exactly (see :class:`~marginclust.solvers._cutting_plane.CuttingPlaneSVM`).
    Stopping rule: a subproblem stops when its most violated constraint is
    violated by at most ``tol`` (its value is then within ``C * tol`` of its
    minimum) or after ``max_iter`` constraints; CCCP stops when the true
    objective decreases by at most ``cccp_tol`` times its value, when the argmax
    repeats, or after ``cccp_max_iter`` steps. The true objective never
    increases (the inner solver returns its best iterate, never worse than the
    warm start).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters (2: binary model; more: multiclass model; 1: the
        trivial one-cluster partition).
    C : float, default=1.0
        Weight of the mean hinge loss.
    balance : int or float, default=0.1
        Balance bound ``l`` (int: absolute; float in (0, 1]: fraction of n).
    tol : float, default=0.01
        Constraint violation tolerance of the cutting-plane loop (absolute).
    max_iter : int, default=100
        Maximum cutting-plane iterations (binary: outer loop; multiclass: per
        CCCP subproblem).
    cccp_tol : float, default=0.01
        Relative-decrease tolerance of CCCP.
    cccp_max_iter : int, default=30
        Maximum CCCP iterations (binary: per restricted problem; multiclass: in all).
    init : {"auto", "kmeans", "pca"} or array-like of shape (n_samples,), default="kmeans"
        Initial labels (signs / argmax of the first linearisation).
    n_init : int, default=1
        Restarts.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        QP solver (``"auto"``: the built-in active-set method, interior point fallback).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    coef_ : ndarray of shape (1, n_features) or (n_clusters, n_features)
    intercept_ : ndarray of shape (1,) or (n_clusters,)
    objective_ : float
        True MMC objective (eq. 3 / eq. 22) at the solution.
    objective_history_ : ndarray
        Binary: true objective after each cutting-plane iteration (not
        necessarily monotone). Multiclass: after each CCCP iteration
        (non-increasing).
    n_iter_ : int
        Binary: cutting-plane iterations. Multiclass: CCCP iterations.
    n_cccp_iter_ : ndarray of int
        Binary: CCCP iterations of each cutting-plane iteration. Multiclass:
        ``[n_iter_]`` (one CCCP run).
    n_inner_iter_ : ndarray of int
        Multiclass only: constraints generated in each CCCP iteration.
    n_constraints_ : int
        Size of the final working set (multiclass: the largest one).
    converged_ : bool
    n_features_in_ : int

    References
    ----------
    B. Zhao, F. Wang, C. Zhang. Efficient maximum margin clustering via cutting
    plane algorithm. SIAM SDM 2008.
    B. Zhao, F. Wang, C. Zhang. Efficient multiclass maximum margin clustering.
    ICML 2008.
    """

    _accept_sparse = ("csr", "csc", "coo")
    _min_clusters = 1  # n_clusters=1: the trivial one-cluster partition (f = -1 everywhere)

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        C: float = 1.0,
        balance: int | float = 0.1,
        tol: float = 0.01,
        max_iter: int = 100,
        cccp_tol: float = 0.01,
        cccp_max_iter: int = 30,
        init: Any = "kmeans",
        n_init: int = 1,
        qp: str = "auto",
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.balance = balance
        self.tol = tol
        self.max_iter = max_iter
        self.cccp_tol = cccp_tol
        self.cccp_max_iter = cccp_max_iter
        self.init = init
        self.n_init = n_init
        self.qp = qp
        self.random_state = random_state

    def _check_params(self, X: Any) -> None:
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_positive(self.cccp_tol, "cccp_tol")
        for name in ("max_iter", "cccp_max_iter"):
            check_max_iter(getattr(self, name), name)
        resolve_balance(self.balance, X.shape[0])
        _check_init_qp(self.init, self.qp)

    def _fit_one(self, X: Any, random_state: np.random.RandomState) -> SolverResult:
        if self._n_clusters == 1:
            res = _one_cluster(X)
            x = {k: v for k, v in res.x.items() if k != "n_inner_iter_"}
            x.update(n_cccp_iter_=np.zeros(0, dtype=np.intp), n_constraints_=0)
            return SolverResult(
                x=x, objective=0.0, objective_history=np.zeros(1), n_iter=0, converged=True
            )
        n, k = X.shape[0], self._n_clusters
        obj = MMCObjective(X, k, float(self.C), resolve_balance(self.balance, n) / n)
        labels0 = initial_labels(X, k, self.init, random_state, obj.data)
        solver = CuttingPlaneMMC(
            tol=self.tol,
            max_iter=self.max_iter,
            cccp_tol=self.cccp_tol,
            cccp_max_iter=self.cccp_max_iter,
            qp="active-set" if self.qp == "auto" else self.qp,
        )
        if k > 2:
            return self._fit_multiclass(X, obj, labels0)
        res = solver.solve(obj, obj.zero(), signs0=2.0 * labels0 - 1.0)
        return _linear_result(
            X,
            obj,
            res,
            {
                "n_cccp_iter_": np.asarray(res.info["n_cccp_iter"], dtype=np.intp),
                "n_constraints_": res.info["n_constraints"],
            },
            f"CPMMC stopped at max_iter={self.max_iter} with a constraint still violated "
            f"by more than tol={self.tol}; increase max_iter or tol.",
        )

    def _fit_multiclass(
        self, X: Any, obj: MMCObjective, labels0: npt.NDArray[np.intp]
    ) -> SolverResult:
        """Multiclass CPMMC: CCCP outside, the 1-slack cutting plane on each subproblem."""
        inner = CuttingPlaneSVM(
            tol=self.tol,
            max_iter=self.max_iter,
            qp="active-set" if self.qp == "auto" else self.qp,
        )
        res = CCCP(inner, tol=self.cccp_tol, max_iter=self.cccp_max_iter).solve(
            obj, obj.zero(), first=obj.surrogate(labels0)
        )
        n_inner = np.asarray(res.info["n_inner_iter"], dtype=np.intp)
        return _linear_result(
            X,
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

    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Scores ``f(x) = w.x + b``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        X = self._validate_predict_data(X)
        return _linear_scores(X, self.coef_, self.intercept_)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return _labels(_linear_scores(X, self.coef_, self.intercept_))

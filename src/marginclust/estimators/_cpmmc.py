"""CPMMC: cutting-plane maximum margin clustering (Zhao, Wang & Zhang, SDM 2008), binary."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer
from ..objectives._constraints import resolve_balance
from ..objectives._mmc import MMCObjective
from ..solvers._cutting_plane import CuttingPlaneMMC
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
    """Cutting-plane maximum margin clustering (binary), the baseline of BMMC.

    Solves the same binary MMC problem as :class:`~marginclust.BMMC` (BMMC eq. 3
    in its 1-slack form, eq. 7) by a cutting-plane outer loop: the working set
    of constraints ``c in {0,1}^n`` grows by the most violated one; each
    restricted problem is solved by CCCP with an exact QP per CCCP step (see
    :class:`~marginclust.solvers._cutting_plane.CuttingPlaneMMC`).

    Stopping rule: the outer loop stops when the most violated constraint is
    violated by at most ``tol`` (or after ``max_iter`` constraints); each CCCP
    stops when the restricted objective decreases by at most ``cccp_tol`` times
    its value (or after ``cccp_max_iter`` steps).

    Parameters
    ----------
    n_clusters : int, default=2
        Must be 2 (binary method); 1 gives the trivial one-cluster partition.
    C : float, default=1.0
        Weight of the mean hinge loss.
    balance : int or float, default=0.1
        Balance bound ``l`` (int: absolute; float in (0, 1]: fraction of n).
    tol : float, default=0.01
        Constraint violation tolerance of the cutting-plane loop.
    max_iter : int, default=100
        Maximum cutting-plane iterations.
    cccp_tol : float, default=0.01
        Relative-decrease tolerance of the inner CCCP.
    cccp_max_iter : int, default=30
        Maximum CCCP iterations per restricted problem.
    init : {"auto", "kmeans", "pca"} or array-like of shape (n_samples,), default="kmeans"
        Initial labels (signs of the first linearisation).
    n_init : int, default=1
        Restarts.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        QP solver (``"auto"``: the built-in active-set method, interior point fallback).
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    objective_ : float
        True MMC objective (eq. 3) at the solution.
    objective_history_ : ndarray
        True objective after each cutting-plane iteration (not necessarily monotone).
    n_iter_ : int
        Cutting-plane iterations.
    n_cccp_iter_ : ndarray of int
        CCCP iterations of each cutting-plane iteration.
    n_constraints_ : int
        Size of the final working set.
    converged_ : bool
    n_features_in_ : int

    References
    ----------
    B. Zhao, F. Wang, C. Zhang. Efficient maximum margin clustering via cutting
    plane algorithm. SIAM SDM 2008.
    """

    _accept_sparse = ("csr", "csc", "coo")
    _min_clusters = 1  # n_clusters=1: the trivial one-cluster partition (f = -1 everywhere)
    _max_clusters = 2

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
        n = X.shape[0]
        obj = MMCObjective(X, 2, float(self.C), resolve_balance(self.balance, n) / n)
        labels0 = initial_labels(X, 2, self.init, random_state, obj.data)
        solver = CuttingPlaneMMC(
            tol=self.tol,
            max_iter=self.max_iter,
            cccp_tol=self.cccp_tol,
            cccp_max_iter=self.cccp_max_iter,
            qp="active-set" if self.qp == "auto" else self.qp,
        )
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

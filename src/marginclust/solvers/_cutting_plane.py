"""Cutting-plane maximum margin clustering (CPMMC; Zhao, Wang & Zhang, SDM 2008), binary.

The 1-slack problem (BMMC eq. 7)

    min 1/2 ||w||^2 + C xi   s.t.  for all c in {0,1}^n:
        (1/n) sum_i c_i |f(x_i)| >= (1/n) sum_i c_i - xi,   balance on t

is solved by a cutting-plane outer loop over a working set ``Omega`` of
constraint vectors ``c``. For the current ``Omega`` the (non-convex) restricted
problem is solved by CCCP: ``|f(x_i)|`` is replaced by ``s_i f(x_i)`` with the
signs of the current iterate, and the convex restricted problem is a QP with one
plane per ``c`` in ``Omega`` (solved exactly in its dual,
:func:`._qp.solve_bundle_dual`); CCCP stops when the restricted objective
decreases by at most ``cccp_tol`` times its value. Then the most violated
constraint ``c_i = 1[|f(x_i)| < 1]`` is added when its violation
``(1/n) sum_i c_i (1 - |f_i|) - xi`` exceeds ``tol``; otherwise the loop stops
(the stopping rule of Zhao et al.; ``max_iter`` caps the outer loop).

Unlike BMMC, the restricted problems change from one outer step to the next,
so the true objective need not decrease monotonically (BMMC Sec. II).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ._base import Callback
from ._qp import solve_bundle_dual
from ._result import SolverResult

__all__ = ["CuttingPlaneMMC"]

Array = npt.NDArray[np.float64]


class CuttingPlaneMMC:
    """Cutting-plane outer loop with CCCP and an exact QP inside (binary MMC).

    Parameters
    ----------
    tol : float, default=0.01
        Add a constraint only if it is violated by more than ``tol``; stop otherwise.
    max_iter : int, default=100
        Maximum cutting-plane iterations (constraints added).
    cccp_tol : float, default=0.01
        Relative decrease that stops CCCP on the restricted problem.
    cccp_max_iter : int, default=30
        Maximum CCCP iterations per restricted problem.
    qp : {"active-set", "ipm", "clarabel"}, default="active-set"
        QP solver.
    """

    required: ClassVar[tuple[str, ...]] = ("value", "scores")

    def __init__(
        self,
        *,
        tol: float = 0.01,
        max_iter: int = 100,
        cccp_tol: float = 0.01,
        cccp_max_iter: int = 30,
        qp: str = "active-set",
    ) -> None:
        self.tol = tol
        self.max_iter = max_iter
        self.cccp_tol = cccp_tol
        self.cccp_max_iter = cccp_max_iter
        self.qp = qp

    def _restricted_value(self, W: Array, F: Array, Cset: Array, C: float) -> float:
        absf = np.abs(F[:, 0])
        xi = max(0.0, float(np.max(Cset @ (1.0 - absf))) / F.shape[0]) if Cset.size else 0.0
        return float(0.5 * np.vdot(W, W) + C * xi)

    def solve(
        self,
        objective: Any,
        x0: tuple[Array, Array],
        *,
        signs0: npt.ArrayLike | None = None,
        callback: Callback | None = None,
    ) -> SolverResult:
        """Run CPMMC on a binary :class:`~marginclust.objectives._mmc.MMCObjective`.

        Parameters
        ----------
        objective : MMCObjective
            Binary MMC objective (its pairs, if any, are ignored).
        x0 : tuple (W, t)
            Starting point.
        signs0 : array-like of shape (n_samples,) or None
            Signs for the first linearisation (e.g. from K-means labels); None:
            the signs of ``f`` at ``x0``.
        callback : callable or None
            ``callback(iteration, objective)``; returning True stops.

        Returns
        -------
        result : SolverResult
            ``objective_history``: the true objective after each outer iteration;
            ``info``: ``n_constraints``, ``n_cccp_iter`` (per outer iteration).
        """
        data = objective.data
        n = data.n
        C = objective.C
        bal = objective.balance
        W, t = (np.array(x0[0], dtype=np.float64), np.array(x0[1], dtype=np.float64))
        F = data.scores(W, t)
        s = np.where(F[:, 0] >= 0, 1.0, -1.0) if signs0 is None else np.asarray(signs0, float)
        # initial working set: the constraint most violated at the start (all margins < 1)
        Cset = (np.abs(F[:, 0]) < 1).astype(np.float64)[None, :]
        history: list[float] = []
        cccp_iters: list[int] = []
        converged = False
        it = 0
        first = True
        for it in range(1, self.max_iter + 1):  # noqa: B007
            # ---- CCCP on the restricted problem
            J_prev = np.inf
            n_cccp = 0
            for _ in range(self.cccp_max_iter):
                n_cccp += 1
                if not first:
                    s = np.where(F[:, 0] >= 0, 1.0, -1.0)
                first = False
                coef = -(Cset * s[None, :]).T / n  # (n, m): dR_c/df_i
                A = data.back(coef)  # (m, d)
                ct = coef.sum(axis=0)
                off = Cset.sum(axis=1) / n
                Aall = np.vstack([np.zeros((1, A.shape[1])), A])
                res = solve_bundle_dual(
                    Aall @ Aall.T,
                    np.concatenate([[0.0], off]),
                    np.concatenate([np.zeros((1, 1)), ct[:, None]]),
                    C,
                    bal.G,
                    bal.h,
                    bal.E,
                    bal.e,
                    method=self.qp,
                )
                W = -(res.beta @ Aall)[None, :]
                t = res.t
                F = data.scores(W, t)
                J = self._restricted_value(W, F, Cset, C)
                if np.isfinite(J_prev) and J_prev - J <= self.cccp_tol * abs(J_prev):
                    break
                J_prev = J
            cccp_iters.append(n_cccp)
            history.append(objective.value_from_scores((W, t), F))
            if callback is not None and callback(it, history[-1]):
                break
            # ---- most violated constraint
            absf = np.abs(F[:, 0])
            xi = max(0.0, float(np.max(Cset @ (1.0 - absf))) / n)
            c_new = (absf < 1).astype(np.float64)
            violation = float(c_new @ (1.0 - absf)) / n - xi
            if violation <= self.tol:
                converged = True
                break
            Cset = np.vstack([Cset, c_new])
        return SolverResult(
            x=(W, t),
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            message="" if converged else f"CPMMC stopped at max_iter={self.max_iter}",
            info={"n_constraints": int(Cset.shape[0]), "n_cccp_iter": cccp_iters},
        )

"""Cutting-plane maximum margin clustering (CPMMC; Zhao, Wang & Zhang, SDM 2008 / ICML 2008).

Binary (:class:`CuttingPlaneMMC`, SDM 2008):

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

Multiclass (:class:`CuttingPlaneSVM`, ICML 2008): CCCP outside
(:class:`._cccp.CCCP`, the argmax ``p_i`` fixed at the current iterate, as in
BMMC), and each convex subproblem (:class:`~marginclust.objectives._mmc.MMCSurrogate`)
solved in its 1-slack form

    min 1/2 ||W||^2 + C xi   s.t.  for all c in {0,1}^{n x k}:
        1/(nk) sum_{i, r != p_i} c_ir (1 - f_{p_i}(x_i) + f_r(x_i)) <= xi,   balance on t

by constraint generation: the most violated constraint at the current solution
(``c_ir = 1`` where the hinge is active) is added to the working set and the
small QP over the working set is solved exactly. Its plane is the surrogate's
risk plane (:meth:`MMCSurrogate.plane`): the same linearisation as BMMC's; the
difference from the bundle method is the working set (every constraint kept, no
aggregation) and the stopping rule; both keep their planes in a
:class:`~._planes.PlaneBundle`.

Stopping rule (inner): stop when the most violated constraint is violated by at
most ``tol``, ``R(x) - xi <= tol`` (absolute, as Zhao et al.; then the
subproblem value is within ``C tol`` of its minimum, since ``1/2||W||^2 + C xi``
is a lower bound), or after ``max_iter`` constraints. The best iterate
(including the warm start) is returned, so the true objective never increases
across CCCP iterations.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ._base import Callback, IterativeSolver
from ._planes import PlaneBundle
from ._qp import solve_bundle_dual
from ._result import SolverResult

__all__ = ["CuttingPlaneMMC", "CuttingPlaneSVM"]

Array = npt.NDArray[np.float64]


class CuttingPlaneMMC(IterativeSolver):
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

    required: ClassVar[tuple[str, ...]] = ("cutting_plane_pass",)

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

    def _solve(
        self,
        objective: Any,
        x0: tuple[Array, Array],
        *,
        signs0: npt.ArrayLike | None = None,
        states0: list[Any] | None = None,
        callback: Callback | None = None,
    ) -> SolverResult:
        """Run CPMMC on a binary :class:`~marginclust.objectives._mmc.MMCObjective`.

        Every pass over the data is one
        :meth:`~marginclust.objectives._mmc.MMCObjective.cutting_plane_pass`:
        the working set of constraint indicators stays beside the row blocks
        (their states), and each pass at a new iterate gives the restricted
        value, the true loss, the new candidate constraint and the planes of the
        next QP at once, so a fit makes ``1 + sum(n_cccp_iter)`` passes.

        Parameters
        ----------
        objective : MMCObjective
            Binary MMC objective without pairs.
        x0 : tuple (W, t)
            Starting point.
        signs0 : array-like of shape (n_samples,) or None
            Signs for the first linearisation (e.g. from K-means labels); None:
            the signs of ``f`` at ``x0`` (or ``states0``).
        states0 : list or None
            The initial labels per row block of ``objective.data.blocks``
            (instead of ``signs0``; e.g. on a Dask backend).
        callback : callable or None
            ``callback(iteration, objective)``; returning True stops.

        Returns
        -------
        result : SolverResult
            ``x`` and ``objective``: the outer iterate with the lowest true objective
            (the true objective is not monotone: each restricted problem is
            non-convex); ``objective_history``: the true objective after each outer
            iteration;
            ``info``: ``n_constraints``, ``n_cccp_iter`` (per outer iteration),
            ``n_passes`` (passes over the data).
        """
        C = objective.C
        W, t = (np.array(x0[0], dtype=np.float64), np.array(x0[1], dtype=np.float64))
        states = states0
        if states is None and signs0 is not None:
            lab = (np.asarray(signs0, dtype=np.float64) >= 0).astype(np.intp)
            states = objective.data.blocks.split(lab)
        # the first pass: the initial working set is the constraint most violated at x0
        states, p = objective.cutting_plane_pass(states, (W, t), False, False)
        n_passes = 1
        m = 0  # constraints in the working set
        use = 1  # planes of the next QP: the working set (m) or with the candidate (m + 1)
        history: list[float] = []
        cccp_iters: list[int] = []
        converged = False
        best: tuple[float, Array, Array] = (np.inf, W, t)
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007
            states, p, m, W, t, xi, n_cccp = self._cccp(objective, states, p, m, use)
            use = m
            n_passes += n_cccp
            cccp_iters.append(n_cccp)
            history.append(float(0.5 * np.vdot(W, W) + C * p["loss"]))
            if history[-1] < best[0]:  # the true objective is not monotone: keep the best
                best = (history[-1], W, t)
            if callback is not None and callback(it, history[-1]):
                break
            # ---- most violated constraint (the candidate of the last pass)
            violation = p["loss"] - xi
            if violation <= self.tol:
                converged = True
                break
            use = m + 1
        return SolverResult(
            x=(best[1], best[2]),
            objective=best[0],
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            message="" if converged else f"CPMMC stopped at max_iter={self.max_iter}",
            info={
                "n_constraints": int(use),
                "n_cccp_iter": cccp_iters,
                "n_passes": n_passes,
            },
        )

    def _cccp(
        self, objective: Any, states: Any, p: dict[str, Any], m: int, use: int
    ) -> tuple[Any, dict[str, Any], int, Array, Array, float, int]:
        """CCCP on the restricted problem of the working set (``use`` constraints; one
        more than ``m`` adds the candidate of the last pass).

        Returns the block states and the last pass's output, the working set's
        size, the iterate, its slack ``xi`` and the CCCP iterations (one pass each).
        """
        C = objective.C
        J_prev = np.inf
        n_cccp = 0
        for _ in range(self.cccp_max_iter):
            n_cccp += 1
            append = use > m
            m = use
            W, t = self._restricted_minimiser(p, m, C, objective.balance)
            states, p = objective.cutting_plane_pass(states, (W, t), append, True)
            use = m
            xi = max(0.0, float(np.max(p["restricted"])))
            J = float(0.5 * np.vdot(W, W) + C * xi)
            if np.isfinite(J_prev) and J_prev - J <= self.cccp_tol * abs(J_prev):
                break
            J_prev = J
        return states, p, m, W, t, xi, n_cccp

    def _restricted_minimiser(
        self, p: dict[str, Any], m: int, C: float, bal: Any
    ) -> tuple[Array, Array]:
        """The exact QP over the first ``m`` planes of the pass output ``p`` and ``xi >= 0``."""
        A = p["A"][:m]
        Aall = np.vstack([np.zeros((1, A.shape[1])), A])
        res = solve_bundle_dual(
            Aall @ Aall.T,
            np.concatenate([[0.0], p["off"][:m]]),
            np.concatenate([np.zeros((1, 1)), p["ct"][:m, None]]),
            C,
            bal.G,
            bal.h,
            bal.E,
            bal.e,
            method=self.qp,
        )
        return -(res.beta @ Aall)[None, :], res.t


class CuttingPlaneSVM(IterativeSolver):
    """1-slack cutting-plane solver of a convex MMC subproblem (the multiclass CPMMC inner loop).

    The subproblem must provide ``plane(x) -> (R(x), dR/dW, dR/dt)`` (the risk of
    the most violated constraint and its slopes), ``C``, ``shape`` (of ``W``)
    and ``balance`` (as :class:`~marginclust.objectives._mmc.MMCSurrogate`).
    Used inside :class:`._cccp.CCCP` as its ``inner`` solver.

    A subproblem whose ``split`` is true (with must-link / cannot-link pairs)
    has a cheap part, the pair term, which reads only the pairs' rows: as in
    :class:`~._bundle.BundleMethod`, the two parts get a slack each (one
    working set per part, ``R_0 <= xi_0``, ``R_1 <= xi_1``), and before each
    pass over the data the pair part's constraints are added at the candidate
    until its violation there is at most ``cheap_tol * max(tol, s * v)``, with
    ``v`` the last pass's violation and ``s`` the subproblem's ``cheap_share``
    (as in :class:`~._bundle.BundleMethod`: refine to the final precision only
    where a pass reads far more rows than the pairs). The stopping rule
    is unchanged: ``R(x) - (xi_0 + xi_1) <= tol``. A subproblem with
    ``cheap_cuts`` (constraints of the same pair part from the previous
    subproblem, see :class:`~._bundle.BundleMethod`) starts that working set from
    them and leaves there the ones with weight in its last QP.

    Parameters
    ----------
    tol : float, default=0.01
        Stop when the most violated constraint is violated by at most ``tol``
        (``R(x) - xi <= tol``).
    max_iter : int, default=100
        Maximum constraints added (QPs solved).
    qp : {"active-set", "ipm", "clarabel"}, default="active-set"
        QP solver.
    max_cheap : int, default=100
        Split risk: most constraints of the cheap part added before one pass.
    cheap_tol : float, default=0.5
        Split risk: add the cheap part's constraints until its violation at the
        candidate is at most ``cheap_tol * max(tol, s * v)`` (see above).
    """

    required: ClassVar[tuple[str, ...]] = ("plane",)

    def __init__(
        self,
        *,
        tol: float = 0.01,
        max_iter: int = 100,
        qp: str = "active-set",
        max_cheap: int = 100,
        cheap_tol: float = 0.5,
    ) -> None:
        self.tol = tol
        self.max_iter = max_iter
        self.qp = qp
        self.max_cheap = max_cheap
        self.cheap_tol = cheap_tol

    def _solve(
        self, objective: Any, x0: tuple[Array, Array], *, callback: Callback | None = None
    ) -> SolverResult:
        """Minimise the subproblem by constraint generation, from the warm start ``x0``.

        Parameters
        ----------
        objective : MMCSurrogate
            The convex subproblem.
        x0 : tuple (W, t)
            Warm start; its most violated constraint is the first of the working set.
        callback : callable or None
            ``callback(iteration, best_value)`` after each QP; returning True stops.

        Returns
        -------
        result : SolverResult
            ``x``: the best iterate (never worse than ``x0``); ``n_iter``: QPs
            solved; ``info``: ``n_constraints``, ``violation`` (of the last iterate).
        """
        C = float(objective.C)
        shape = tuple(objective.shape)
        W = np.asarray(x0[0], dtype=np.float64).reshape(shape)
        t = np.asarray(x0[1], dtype=np.float64).ravel()
        split = bool(getattr(objective, "split", False))
        share = float(getattr(objective, "cheap_share", 0.0)) if split else 0.0
        n_zero = 2 if split else 1
        # constraints of the cheap part left by the previous subproblem with the same
        # part (valid for the same convex function): its working set starts built
        cuts = getattr(objective, "cheap_cuts", None) if split else None
        planes = self._working_set(W.size, t.size, n_zero, cuts)
        risk = self._add(objective, planes, W, t, split)
        best, J_best = (W, t), float(0.5 * np.vdot(W, W) + C * risk)
        converged = False
        violation = np.inf
        n_cheap = 0
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007
            W, t = self._minimiser(objective, planes, shape, split)
            if split:
                # the pair part's constraints at the candidate first: they need no pass
                # the precision worth its cost: the last pass's violation, scaled by
                # the rows a pair constraint reads against a pass's (as in the bundle)
                target = max(self.tol, share * violation) if np.isfinite(violation) else self.tol
                for _ in range(self.max_cheap):
                    r1, g1, c1 = objective.cheap_plane((W, t))
                    if r1 - self._slack(planes, W, t, 1) <= self.cheap_tol * target:
                        break
                    planes.add_linearisation(W, t, r1, g1, c1, 1)
                    n_cheap += 1
                    W, t = self._minimiser(objective, planes, shape, split)
            xi = self._slack(planes, W, t)
            risk = self._add(objective, planes, W, t, split)
            J = float(0.5 * np.vdot(W, W) + C * risk)
            if J < J_best:
                best, J_best = (W, t), J
            violation = risk - xi
            if violation <= self.tol:
                converged = True
                break
            if callback is not None and callback(it, J_best):
                break
        if cuts is not None and planes.n_qp:
            # the cheap part's constraints with weight in the last QP: they hold its
            # model at the solution, and the working set handed on stays small
            cuts[:] = [planes.plane(int(j)) for j in planes.weighted(1) if j >= n_zero]
        return SolverResult(
            x=best,
            objective=J_best,
            objective_history=np.asarray([J_best]),
            n_iter=it,
            converged=converged,
            message="" if converged else f"cutting plane stopped at max_iter={self.max_iter}",
            info={
                "n_constraints": len(planes) - n_zero,
                "violation": float(violation),
                "n_cheap_constraints": n_cheap,
            },
        )

    @staticmethod
    def _working_set(p: int, q: int, n_zero: int, cuts: list[Any] | None) -> PlaneBundle:
        """The planes ``xi_g >= 0`` of each part, then the cheap part's ``cuts``.

        Constraints are never dropped, so the planes fill the slots in order and the
        Gram matrix grows, before each QP, by the columns of the constraints added
        since the last (a full product per QP cost O(m^2 p): thousands of pair
        constraints at k = 13, d = 279 made it most of a fit).
        """
        planes = PlaneBundle(p, q, 8)
        for part in range(n_zero):
            planes.add(np.zeros(p), np.zeros(q), 0.0, part)
        for a_c, c_c, o_c in cuts or ():
            planes.add(a_c, c_c, o_c, 1)
        return planes

    @staticmethod
    def _add(objective: Any, planes: PlaneBundle, W: Array, t: Array, split: bool) -> float:
        """The risk at ``(W, t)``; its most violated constraint(s) join the working set."""
        if split:
            parts = objective.plane_parts((W, t))
            for g, (r, gW, gt) in enumerate(parts):
                planes.add_linearisation(W, t, r, gW, gt, g)
            return float(sum(r for r, _, _ in parts))
        risk, gW, gt = objective.plane((W, t))
        planes.add_linearisation(W, t, risk, gW, gt, 0)
        return float(risk)

    def _minimiser(
        self, objective: Any, planes: PlaneBundle, shape: tuple[int, ...], split: bool
    ) -> tuple[Array, Array]:
        """The QP over the working set; with a split risk warm-started from the last
        QP's solution, new constraints at weight 0 (a feasible start)."""
        start = None
        if split and planes.n_qp and self.qp == "active-set":
            start = (planes.weights[planes.order], planes.rest)
        res = planes.solve_dual(
            float(objective.C), objective.balance, method=self.qp, warm_start=start,
            grouped=split,
        )
        W = planes.minimiser(res.beta, shape)
        return W, np.asarray(res.t, dtype=np.float64).ravel()

    @staticmethod
    def _slack(planes: PlaneBundle, W: Array, t: Array, g: int | None = None) -> float:
        """The slack of part ``g`` at ``(W, t)`` (None: the slacks' sum, each at least 0)."""
        vals = planes.values(W, t)
        grp = planes.group[planes.order]
        if g is not None:
            return float(np.max(vals[grp == g]))
        return float(sum(max(0.0, float(np.max(vals[grp == h]))) for h in np.unique(grp)))

"""Bundle method for regularised risk minimisation (BMRM; Teo, Vishwanathan, Smola & Le, 2010).

Minimises ``J(W, t) = 1/2 ||W||^2 + C R(W, t)`` over a polyhedral set of the
small variable ``t`` (the balance constraint), for a convex, non-smooth risk
``R`` known only through ``plane(x) -> (R(x), dR/dW, dR/dt)``. Each step
minimises the cutting-plane model ``1/2||W||^2 + C max_j (a_j.x + o_j)`` (a
small QP over the planes, solved in its dual by :func:`._qp.solve_bundle_dual`),
adds the plane at the minimiser, keeps the best iterate seen, and stops when the
gap between the best true value and the model minimum (a lower bound on the
optimum) is at most ``tol`` times the best value (BMMC Table 2).

Planes whose weight stayed zero for ``max_idle`` consecutive steps are dropped;
if more than ``max_planes`` remain, the idle part is aggregated into its
weighted average plane (Teo et al., Sec. 4.3), so the QP stays small. The
planes, their Gram matrix, their aging and aggregation and the dual QP are a
:class:`~._planes.PlaneBundle`, shared with :class:`~._cutting_plane.CuttingPlaneSVM`.

A risk with a cheap part. When the objective says ``split`` (the pair term of
MMC with must-link / cannot-link pairs, which reads only the pairs' rows),
``R = R_0 + R_1`` is modelled by two cutting-plane models, ``max_j`` over the
planes of each part (a disaggregated bundle: the sum of the two maxima is a
tighter lower model than one maximum of summed planes), and before each pass
over the data the model of the cheap part ``R_1`` is refined at the candidate
(planes from ``cheap_plane``, no pass) until its error there is at most
``cheap_tol * max(tol * J_best, s * gap)``, with ``gap`` the current gap and
``s`` the objective's ``cheap_share`` (rows a cheap plane reads over rows a pass
reads, at most 1): where a pass reads far more rows than the pairs (1e5 rows,
500 pairs: ``s = 0.01``) the cheap model is refined to the final precision and
the passes stay as few as without pairs; where the pairs' rows are a good part
of the data (arrhythmia, 452 rows, 100 pairs: ``s`` about 0.36) the passes cost
about what a refinement does, and refining far below the current gap would
spend hundreds of QPs to save one pass. The pair term is a sum of hinges with weights far
above one row's (each pair weighs ``C'``, each row ``C / n``): modelled with
the margin in one maximum, its kinks forced many short steps, each a pass
over the data (measured with 500 pairs on 1e5 blobs: 80 and 112 steps for
K = 2 and 3 against 14 and 19 without pairs); modelled apart, the passes are
about those of the margin alone (3 for both).
The lower bound and the stopping rule are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ._base import Callback, IterativeSolver
from ._planes import PlaneBundle
from ._result import SolverResult

__all__ = ["BundleMethod"]

Array = npt.NDArray[np.float64]


class BundleMethod(IterativeSolver):
    """BMRM with an exact dual QP per step, best iterate kept, gap stopping rule.

    The objective must provide ``plane(x)`` returning ``(risk, dR/dW, dR/dt)``,
    attributes ``C`` (risk weight), ``shape`` (shape of ``W``) and ``balance``
    (a :class:`~marginclust.objectives._constraints.BalanceSet` for ``t``).
    ``x = (W, t)``. An objective whose ``split`` is true also provides
    ``plane_parts(x)`` (the planes of the two parts) and ``cheap_plane(x)`` (the
    second part's, without a pass over the data), and may provide ``cheap_cuts``:
    a list of planes ``(dR/dW, dR/dt, offset)`` of the second part, valid for this
    objective, from which its model starts; the solver leaves its planes of that
    part there (so a sequence of subproblems sharing that part builds it once).

    Parameters
    ----------
    tol : float, default=1e-3
        Stop when ``J_best - lower_bound <= tol * J_best``.
    max_iter : int, default=200
        Maximum bundle steps.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        Dual QP solver: ``"auto"``/``"active-set"``: the built-in active-set
        method warm-started from the previous step's plane weights (the new plane
        at weight 0), with the interior point method as fallback; ``"ipm"``: the
        built-in interior point method every step; ``"clarabel"``: the optional
        clarabel package.
    max_planes : int, default=60
        Aggregate the planes of a part beyond this number (the cheap part's,
        beyond ``max_planes + max_cheap``: one refinement may add ``max_cheap``).
    max_idle : int, default=10
        Drop a plane whose weight was zero for this many consecutive steps.
    nonnegative_risk : bool, default=True
        Add the plane ``R >= 0`` (``a_0 = 0, o_0 = 0``, Table 2) to the model
        (one per part with a split risk).
    max_cheap : int, default=100
        Split risk: most planes of the cheap part added before one pass.
    cheap_tol : float, default=0.5
        Split risk: refine the cheap part's model until its error at the
        candidate is at most ``cheap_tol * max(tol * J_best, s * gap)`` (see above).
    """

    required: ClassVar[tuple[str, ...]] = ("plane",)

    def __init__(
        self,
        *,
        tol: float = 1e-3,
        max_iter: int = 200,
        qp: str = "auto",
        max_planes: int = 60,
        max_idle: int = 10,
        nonnegative_risk: bool = True,
        max_cheap: int = 100,
        cheap_tol: float = 0.5,
    ) -> None:
        self.tol = tol
        self.max_iter = max_iter
        self.qp = qp
        self.max_planes = max_planes
        self.max_idle = max_idle
        self.nonnegative_risk = nonnegative_risk
        self.max_cheap = max_cheap
        self.cheap_tol = cheap_tol

    def _solve(
        self,
        objective: Any,
        x0: tuple[Array, Array] | None = None,
        *,
        callback: Callback | None = None,
    ) -> SolverResult:
        """Minimise ``objective`` starting from ``x0`` (a plane is taken there).

        Parameters
        ----------
        objective : object
            See the class docstring.
        x0 : tuple (W, t) or None
            Warm start; None is zero. The best iterate is never worse than ``x0``.
        callback : callable or None
            ``callback(iteration, best_value)``; returning True stops.

        Returns
        -------
        result : SolverResult
            ``x = (W, t)`` the best iterate; ``info`` has ``n_planes``,
            ``lower_bound``, ``qp_iter`` and ``qp_time``.
        """
        run, W0, t0 = self._start(objective, x0)
        best_W, best_t = W0.copy(), t0.copy()
        J_best = self._evaluate(run, W0, t0)
        lower = -np.inf
        history = [J_best]
        converged = False
        gap = np.inf
        n_cheap = 0
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007
            res = self._solve_model(run)
            lower = max(lower, res.lower_bound)
            gap = J_best - lower
            if self._small(gap, J_best):
                converged = True
                break
            W, t = run.planes.minimiser(res.beta, run.shape), res.t
            if run.split:
                W, t, res, lower, added = self._refine_cheap(run, W, t, res, J_best, lower)
                n_cheap += added
                gap = J_best - lower
                if self._small(gap, J_best):
                    converged = True
                    break
            n_old = len(run.planes)
            run.planes.age(res.beta > 1e-10 * run.C)
            J = self._evaluate(run, W, t)
            if J < J_best:
                J_best, best_W, best_t = J, W, t.copy()
            history.append(J_best)
            gap = J_best - lower
            if callback is not None and callback(it, J_best):
                break
            if self._small(gap, J_best):
                converged = True
                break
            self._shrink(run, res.beta, n_old)
        self._hand_on_cuts(run)
        polish = getattr(objective, "polish", None)
        if callable(polish):  # exact re-optimisation of the offsets; never increases J
            best_W, best_t = polish((best_W, best_t))
            J_best = min(J_best, float(objective.value((best_W, best_t))))
        return SolverResult(
            x=(best_W, best_t),
            objective=J_best,
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            stop_crit=float(gap),
            message="" if converged else f"bundle method stopped at max_iter={self.max_iter}",
            info={
                "n_planes": len(run.planes),
                "lower_bound": float(lower),
                "qp_iter": run.planes.qp_iter,
                "qp_time": run.planes.qp_time,
                "n_cheap_planes": n_cheap,
            },
        )

    def _small(self, gap: float, J_best: float) -> bool:
        """The stopping rule: ``gap <= tol * |J_best|``."""
        return bool(gap <= self.tol * max(abs(J_best), 1e-12))

    def _start(self, objective: Any, x0: tuple[Array, Array] | None) -> tuple[_Run, Array, Array]:
        """The run's constants, its planes (the ``R >= 0`` planes and the cheap part's
        cuts handed on) and the starting point."""
        bal = objective.balance
        shape = tuple(objective.shape)
        # a risk with a cheap part (no pass over the data): one model per part
        split = bool(getattr(objective, "split", False))
        n_groups = 2 if split else 1
        if x0 is None:
            x0 = (np.zeros(shape), np.zeros(bal.G.shape[1]))
        W0 = np.asarray(x0[0], dtype=np.float64).reshape(shape)
        t0 = np.asarray(x0[1], dtype=np.float64).ravel()
        run = _Run(
            objective=objective,
            C=float(objective.C),
            balance=bal,
            shape=shape,
            split=split,
            n_groups=n_groups,
            share=float(getattr(objective, "cheap_share", 0.0)) if split else 0.0,
            qp="active-set" if self.qp == "auto" else self.qp,
            planes=PlaneBundle(int(np.prod(shape)), t0.size, self.max_planes + 2 * n_groups),
            # planes of the cheap part left by the previous subproblem with the same
            # part (valid lower bounds of the same convex function): its model starts built
            cuts=getattr(objective, "cheap_cuts", None) if split else None,
        )
        p, q = run.planes.A.shape[1], t0.size
        if self.nonnegative_risk:
            for part in range(n_groups):
                self._add(run, np.zeros(p), np.zeros(q), 0.0, part)
        for a_c, c_c, o_c in run.cuts or ():
            self._add(run, a_c, c_c, o_c, 1)
        return run, W0, t0

    @staticmethod
    def _add(run: _Run, a: Array, c: Array, off: float, part: int) -> None:
        # Q grows by one column per plane, as each plane is added
        run.planes.add(a, c, off, part)
        run.planes.extend_gram()

    @staticmethod
    def _linearise(run: _Run, W: Array, t: Array, risk: float, aW: Any, at: Any, part: int) -> None:
        run.planes.add_linearisation(W, t, risk, aW, at, part)
        run.planes.extend_gram()

    def _evaluate(self, run: _Run, W: Array, t: Array) -> float:
        """``J(W, t)``; the risk's planes there join the model."""
        if run.split:
            parts = run.objective.plane_parts((W, t))
            for part, (r, aW, at) in enumerate(parts):
                self._linearise(run, W, t, r, aW, at, part)
            risk = float(sum(r for r, _, _ in parts))
        else:
            risk, aW, at = run.objective.plane((W, t))
            self._linearise(run, W, t, risk, aW, at, 0)
        return float(0.5 * np.vdot(W, W) + run.C * risk)

    def _solve_model(self, run: _Run) -> Any:
        """The model's minimiser (dual QP), warm-started from the last plane weights."""
        planes = run.planes
        warm = None
        w_ord = planes.weights[planes.order]
        g_ord = planes.group[planes.order]
        if run.split:  # each part's weights on its simplex
            sums = np.bincount(g_ord, weights=w_ord, minlength=run.n_groups)[g_ord]
        else:
            sums = np.full(w_ord.size, w_ord.sum())
        if run.qp == "active-set" and planes.rest is not None and np.all(sums > 0):
            warm = (w_ord / sums, planes.rest)
        return planes.solve_dual(
            run.C,
            run.balance,
            method=run.qp if warm is not None or self.nonnegative_risk else "ipm",
            warm_start=warm,
            grouped=run.split,
        )

    def _refine_cheap(
        self, run: _Run, W: Array, t: Array, res: Any, J_best: float, lower: float
    ) -> tuple[Array, Array, Any, float, int]:
        """Refine the cheap part's model at the candidate before paying for a pass over
        the data: its planes cost no pass, so the expensive steps are left to the part
        that needs the data. Returns the new candidate, its QP, the lower bound and
        the planes added."""
        added = 0
        for _ in range(self.max_cheap):
            r1, a1, c1 = run.objective.cheap_plane((W, t))
            error = run.C * (r1 - run.planes.model_value(W, t, 1))
            target = max(self.tol * max(abs(J_best), 1e-12), run.share * (J_best - lower))
            if error <= self.cheap_tol * target:
                break
            self._linearise(run, W, t, r1, a1, c1, 1)
            added += 1
            res = self._solve_model(run)
            lower = max(lower, res.lower_bound)
            W, t = run.planes.minimiser(res.beta, run.shape), res.t
        return W, t, res, lower, added

    def _shrink(self, run: _Run, beta: Array, n_old: int) -> None:
        """Keep the QP small: aggregate a part over its budget, else drop idle planes."""
        planes, n_groups = run.planes, run.n_groups
        # Each part has its own budget, the cheap part's larger by the planes one
        # refinement may add: aggregating every part once the planes of both
        # exceeded max_planes collapsed the pair model each step, and the next
        # step rebuilt it with up to max_cheap QPs (arrhythmia, k = 13, 50 pairs:
        # stopped after 300 s, against 26 s with one budget per part).
        counts = np.bincount(planes.group[planes.order], minlength=n_groups)
        budget = self.max_planes + np.where(np.arange(n_groups) == 1, self.max_cheap, 0)
        over = np.flatnonzero(counts > budget)
        n_fixed = n_groups if self.nonnegative_risk else 0
        if over.size:
            planes.aggregate(beta, n_old, over, n_fixed)
            return
        # drop long-idle planes (never a zero plane nor the newest)
        planes.drop_idle(self.max_idle, n_fixed, n_groups)

    @staticmethod
    def _hand_on_cuts(run: _Run) -> None:
        """Leave the cheap part's planes with weight in the last QP in ``cheap_cuts``:
        they hold its model at the solution, and the next model starts small (a
        cold QP start is cheap)."""
        if run.cuts is None:
            return
        planes = run.planes
        used = planes.weighted(1)
        nonzero = planes.A[used].any(axis=1) | planes.Ct[used].any(axis=1) | (planes.o[used] != 0)
        used = used[nonzero]
        run.cuts[:] = [planes.plane(j) for j in used]


@dataclass
class _Run:
    """What one bundle run works on: the objective's constants, the planes, the cuts."""

    objective: Any
    C: float
    balance: Any
    shape: tuple[int, ...]
    split: bool
    n_groups: int
    share: float
    qp: str
    planes: PlaneBundle
    cuts: list[Any] | None

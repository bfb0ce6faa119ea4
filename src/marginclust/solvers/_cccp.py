"""Constrained concave-convex procedure (CCCP) with a pluggable inner convex solver.

The objective must provide ``value(x)`` (the true, non-convex objective),
``linearize(x)`` (a convex majoriser that touches the objective at ``x``; the
constraints are handled by the inner solver) and optionally ``labels(x)`` (a
fingerprint of the linearisation, e.g. the fixed signs: when it repeats the
next subproblem is the same one and the procedure has converged); a
linearisation may instead carry ``n_changed``, the number of labels that
changed since the previous one, counted blockwise beside the data (0 means
the same subproblem). Each step
solves the convex subproblem with ``inner.solve(sub, x)`` warm-started at the
current iterate. If the inner solver keeps its best iterate (never worse than
the warm start, as :class:`~._bundle.BundleMethod` does), the true objective
never increases: ``J(x+) <= S(x+) <= S(x) = J(x)``. Stop when the relative
decrease is at most ``tol`` or the linearisation repeats (BMMC Table 1).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ._base import Callback, IterativeSolver
from ._result import SolverResult

__all__ = ["CCCP"]


class CCCP(IterativeSolver):
    """CCCP outer loop: ``x+ = argmin linearize(x)``, with any inner convex solver.

    Parameters
    ----------
    inner : object
        Solver with ``solve(subproblem, x0) -> SolverResult`` (e.g.
        :class:`~marginclust.solvers._bundle.BundleMethod`).
    tol : float, default=0.01
        Stop when ``J_{t-1} - J_t <= tol * |J_{t-1}|`` (the paper's epsilon).
    max_iter : int, default=50
        Maximum CCCP iterations.
    """

    required: ClassVar[tuple[str, ...]] = ("value", "linearize")

    def __init__(self, inner: Any, *, tol: float = 0.01, max_iter: int = 50) -> None:
        self.inner = inner
        self.tol = tol
        self.max_iter = max_iter

    def _solve(
        self,
        objective: Any,
        x0: Any,
        *,
        first: Any = None,
        callback: Callback | None = None,
    ) -> SolverResult:
        """Run CCCP from ``x0``.

        Parameters
        ----------
        objective : object
            Provides ``value``, ``linearize`` and optionally ``labels``.
        x0 : object
            Starting point (warm start of the first inner solve).
        first : object or None, default=None
            The first convex subproblem, when it is not ``linearize(x0)`` (e.g.
            built from initial labels). Its solution is iterate 1.
        callback : callable or None
            ``callback(iteration, objective)``; returning True stops.

        Returns
        -------
        result : SolverResult
            ``objective_history`` holds the true objective after each CCCP
            iteration; ``info`` has ``n_inner_iter`` (list), ``inner_converged``.
        """
        x = x0
        sub = first if first is not None else objective.linearize(x)
        key = getattr(sub, "labels", None)
        history: list[float] = []
        inner_iters: list[int] = []
        inner_ok = True
        converged = False
        J_prev = objective.value(x) if first is None else np.inf
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007
            res = self.inner.solve(sub, x)
            inner_iters.append(int(res.n_iter))
            inner_ok = inner_ok and bool(res.converged)
            x_new = res.x
            J = float(objective.value(x_new))
            if J > J_prev:  # cannot happen with a best-iterate inner solver; guard anyway
                J = J_prev
                converged = True
                history.append(J)
                break
            x = x_new
            history.append(J)
            if callback is not None and callback(it, J):
                break
            if np.isfinite(J_prev) and J_prev - J <= self.tol * abs(J_prev):
                converged = True
                break
            sub = objective.linearize(x)
            changed = getattr(sub, "n_changed", None)
            if changed is not None:  # counted blockwise by the objective's pass
                if changed == 0:
                    converged = True
                    break
                continue_key = None
            else:
                continue_key = getattr(sub, "labels", None)
                if (
                    key is not None
                    and continue_key is not None
                    and np.array_equal(key, continue_key)
                ):
                    converged = True
                    break
            key = continue_key
            J_prev = J
        return SolverResult(
            x=x,
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            stop_crit=float(abs(J_prev - history[-1]) / max(abs(J_prev), 1e-300))
            if np.isfinite(J_prev)
            else float("nan"),
            message="" if converged else f"CCCP stopped at max_iter={self.max_iter}",
            info={"n_inner_iter": inner_iters, "inner_converged": inner_ok},
        )

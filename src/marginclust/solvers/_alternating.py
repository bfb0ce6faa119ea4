"""A small generic driver for alternating (block-coordinate) exact minimisation.

The problem object exposes ``step(state) -> (state, value)`` (one full sweep of
exact block minimisations, so ``value`` cannot increase when the blocks are
solved exactly) and ``change(old, new) -> float`` (how much the iterate moved,
e.g. the largest membership change). The driver stops when, after at least
``min_iter`` sweeps, both the relative decrease of the objective is at most
``tol`` and the change of the iterate is at most ``tol_x``. Requiring both
avoids the measured SLMC pitfall of a near-uniform initialisation whose first
sweeps barely change ``J`` while the memberships are still moving. With
``require_shrinking_move`` the iterate's change must also not have grown since
the previous sweep: leaving an unstable fixed point (a near-uniform start) the
moves grow geometrically while both tolerances may already hold; at
convergence they shrink.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..utils._reporting import report
from ._base import Callback, IterativeSolver
from ._result import SolverResult

__all__ = ["AlternatingMinimizer"]


@dataclass
class AlternatingMinimizer(IterativeSolver):
    """Run ``problem.step`` until the objective and the iterate both settle.

    Parameters
    ----------
    tol : float, default=1e-5
        Relative objective tolerance: ``|J_t - J_{t-1}| <= tol * |J_{t-1}|``.
    tol_x : float, default=1e-4
        Iterate tolerance: ``problem.change(x_{t-1}, x_t) <= tol_x``.
    min_iter : int, default=1
        Never stop before this many sweeps.
    max_iter : int, default=100
        Stop (not converged) after this many sweeps.
    verbose : int, default=0
        ``verbose > 0`` prints one line per sweep to stderr (objective, relative
        change, move, elapsed seconds).
    tol_x_name : str, default="tol_x"
        The caller's name for ``tol_x`` (the estimator parameter a user can
        change), used in the non-convergence message.
    name : str, default=""
        Prefix of the verbose lines (e.g. the estimator's name).
    require_shrinking_move : bool, default=False
        Also require ``change(x_{t-1}, x_t) <= change(x_{t-2}, x_{t-1})``.
    """

    tol: float = 1e-5
    tol_x: float = 1e-4
    min_iter: int = 1
    max_iter: int = 100
    verbose: int = 0
    tol_x_name: str = "tol_x"
    name: str = ""
    require_shrinking_move: bool = False

    required: ClassVar[tuple[str | tuple[str, ...], ...]] = ("step", "change")

    def _solve(self, problem: Any, x0: Any, *, callback: Callback | None = None) -> SolverResult:
        """Alternate from ``x0``.

        Parameters
        ----------
        problem : object
            Provides ``step`` and ``change`` (see the module docstring).
        x0 : object
            Initial state.
        callback : callable, optional
            ``callback(iteration, value)``; returning True stops the run.

        Returns
        -------
        result : SolverResult
            ``x`` is the final state; ``stop_crit`` the last relative decrease.
        """
        history: list[float] = []
        x = x0
        converged = False
        stopped = False
        rel = float("nan")
        prev_move = float("inf")
        start = time.perf_counter()
        prefix = f"{self.name} " if self.name else ""
        for it in range(1, self.max_iter + 1):
            x_new, value = problem.step(x)
            move = float(problem.change(x, x_new))
            value = float(value)
            if history:
                prev = history[-1]
                rel = abs(prev - value) / max(abs(prev), np.finfo(np.float64).tiny)
            history.append(value)
            x = x_new
            report(self.verbose, "%ssweep %d: objective %.10g, rel. change %.3g, move %.3g "
                   "(%.1f s)", prefix, it, value, rel, move, time.perf_counter() - start,
                   iteration=True)
            if callback is not None and callback(it, value):
                stopped = True
                break
            shrinking = not self.require_shrinking_move or move <= prev_move
            prev_move = move
            if (it >= self.min_iter and len(history) > 1 and rel <= self.tol
                    and move <= self.tol_x and shrinking):
                converged = True
                break
        n_iter = len(history)
        if converged:
            message = ""
        elif stopped:
            message = f"Alternating minimisation stopped by the callback after {n_iter} sweeps."
        else:
            message = (
                f"Alternating minimisation stopped after max_iter={self.max_iter} sweeps before "
                f"meeting tol={self.tol:g} and {self.tol_x_name}={self.tol_x:g}; increase "
                f"max_iter or the tolerances."
            )
        return SolverResult(
            x=x,
            objective=history[-1],
            objective_history=np.asarray(history, dtype=np.float64),
            n_iter=n_iter,
            converged=converged,
            stop_crit=rel,
            message=message,
        )

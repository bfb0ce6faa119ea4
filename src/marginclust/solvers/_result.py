"""The result object every solver returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class SolverResult:
    """What a solver (or one restart of an estimator) produced.

    Parameters
    ----------
    x : object
        The solution. Solvers put their variable here (weights, memberships,
        ...). An estimator's single-restart fit puts a ``dict`` mapping fitted
        attribute names (``"labels_"``, ``"memberships_"``, ...) to values.
    objective : float
        Objective value at ``x``; restarts keep the smallest.
    objective_history : ndarray of shape (n_iter,)
        Objective after each iteration (what ``objective_history_`` records).
    n_iter : int
        Number of iterations run.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    stop_crit : float, default=nan
        Value of the stopping criterion at exit (gap, KKT residual, relative
        decrease, ...).
    message : str, default=""
        Human-readable note; an estimator uses it as the text of the
        ``ConvergenceWarning`` when ``converged`` is False.
    info : mapping, default={}
        Solver-specific extras (inner iteration counts, number of planes, ...).
    """

    x: Any
    objective: float
    objective_history: npt.NDArray[np.float64]
    n_iter: int
    converged: bool
    stop_crit: float = float("nan")
    message: str = ""
    info: Mapping[str, Any] = field(default_factory=dict)

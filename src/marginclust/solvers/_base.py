"""Solver protocol and the capability check between solvers and objectives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol, runtime_checkable

from ._result import SolverResult

Callback = Callable[[int, float], bool | None]


@runtime_checkable
class Solver(Protocol):
    """A generic algorithm that knows an objective only through named methods.

    ``required`` lists the method names the objective must expose; an entry
    that is a tuple means "any one of these".
    """

    required: ClassVar[tuple[str | tuple[str, ...], ...]]

    def solve(self, objective: Any, x0: Any, *, callback: Callback | None = None) -> SolverResult:
        """Minimise ``objective`` from ``x0``.

        Parameters
        ----------
        objective : object
            The model, exposing the methods named in ``required``.
        x0 : object
            The starting point.
        callback : callable, default=None
            Called as ``callback(iteration, objective_value)``; a true return stops.

        Returns
        -------
        result : SolverResult
            The solution, its objective, history and convergence flag.
        """
        ...


def check_capabilities(objective: Any, solver: Any) -> None:
    """Fail early, with a readable message, when ``objective`` lacks what ``solver`` needs.

    Parameters
    ----------
    objective : object
        The objective instance.
    solver : object
        A solver with a ``required`` class attribute.

    Raises
    ------
    TypeError
        If a required method is missing.
    """
    missing = []
    for req in getattr(solver, "required", ()):
        names = req if isinstance(req, tuple) else (req,)
        if not any(callable(getattr(objective, name, None)) for name in names):
            missing.append(" or ".join(names))
    if missing:
        raise TypeError(
            f"{type(solver).__name__} needs the objective to provide {', '.join(missing)}; "
            f"{type(objective).__name__} does not."
        )

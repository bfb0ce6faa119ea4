"""The base of every solver: the problem object is checked before the loop runs.

A solver knows its problem only through named methods. A solver class derives
from :class:`IterativeSolver` and lists those names in ``required``; its public
``solve`` checks them, then runs the subclass's ``_solve`` (the loop). A solver
written as a function is decorated with :func:`requires`, which does the same
check on its problem argument.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ClassVar, ParamSpec, TypeVar

from ._result import SolverResult

Callback = Callable[[int, float], bool | None]
Required = tuple[str | tuple[str, ...], ...]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _missing(problem: Any, required: Required) -> list[str]:
    """The entries of ``required`` that ``problem`` does not provide as methods."""
    missing = []
    for req in required:
        names = req if isinstance(req, tuple) else (req,)
        if not any(callable(getattr(problem, name, None)) for name in names):
            missing.append(" or ".join(names))
    return missing


def _raise_missing(problem: Any, required: Required, solver_name: str) -> None:
    missing = _missing(problem, required)
    if missing:
        raise TypeError(
            f"{solver_name} needs the objective to provide {', '.join(missing)}; "
            f"{type(problem).__name__} does not."
        )


def check_capabilities(objective: Any, solver: Any) -> None:
    """Fail early, with a readable message, when ``objective`` lacks what ``solver`` needs.

    Parameters
    ----------
    objective : object
        The objective instance.
    solver : object
        A solver (an instance or a function) with a ``required`` attribute:
        method names, an entry that is a tuple meaning "any one of these".

    Raises
    ------
    TypeError
        If a required method is missing.
    """
    name = solver.__name__ if inspect.isfunction(solver) else type(solver).__name__
    _raise_missing(objective, getattr(solver, "required", ()), name)


class IterativeSolver:
    """Base of the solver classes: ``solve`` checks the problem, then runs the loop.

    ``required`` lists the method names the problem object must expose; an
    entry that is a tuple means "any one of these". A subclass sets it and
    implements its loop in a private method that ``solve`` calls with the same
    arguments once the check has passed.
    """

    required: ClassVar[Required] = ()

    def solve(self, problem: Any, x0: Any = None, **options: Any) -> SolverResult:
        """Check that ``problem`` provides ``required``, then minimise it from ``x0``.

        Parameters
        ----------
        problem : object
            The model, exposing the methods named in ``required``.
        x0 : object, default=None
            The starting point (what it is, and whether None is allowed,
            depends on the solver).
        **options
            The solver's further keyword arguments (e.g. ``callback``,
            ``callback(iteration, objective_value)``, a true return stops).

        Returns
        -------
        result : SolverResult
            The solution, its objective, history and convergence flag.

        Raises
        ------
        TypeError
            If ``problem`` lacks a method named in ``required``.
        """
        check_capabilities(problem, self)
        return self._solve(problem, x0, **options)

    def _solve(self, *args: Any, **kwargs: Any) -> SolverResult:
        raise NotImplementedError


def requires(*required: str | tuple[str, ...], arg: str = "problem") -> Callable[
    [Callable[_P, _R]], Callable[_P, _R]
]:
    """Decorate a function solver: check its problem argument against ``required`` first.

    Parameters
    ----------
    *required : str or tuple of str
        Method names the problem must expose (a tuple: any one of them).
    arg : str, default="problem"
        Name of the function's parameter that holds the problem object.

    Returns
    -------
    decorator : callable
        Wraps the function; the wrapper has the attribute ``required``.
    """

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        position = list(inspect.signature(fn).parameters).index(arg)

        @functools.wraps(fn)
        def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            problem = args[position] if len(args) > position else kwargs[arg]
            _raise_missing(problem, required, fn.__name__)
            return fn(*args, **kwargs)

        checked.required = required  # type: ignore[attr-defined]
        return checked

    return decorate

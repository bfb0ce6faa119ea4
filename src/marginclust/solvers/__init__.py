"""Generic algorithms: they know objectives only through declared capabilities."""

from ._base import Solver, check_capabilities
from ._result import SolverResult

__all__ = ["Solver", "SolverResult", "check_capabilities"]

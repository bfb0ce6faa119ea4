"""Generic algorithms: they know objectives only through declared capabilities."""

from ._base import Solver, check_capabilities
from ._label_alternation import LabelAlternation, kmeans_labels
from ._result import SolverResult

__all__ = [
    "LabelAlternation",
    "Solver",
    "SolverResult",
    "check_capabilities",
    "kmeans_labels",
]

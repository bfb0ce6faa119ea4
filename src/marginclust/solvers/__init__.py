"""Generic algorithms: they know objectives only through declared capabilities."""

from ._base import IterativeSolver, check_capabilities
from ._label_alternation import LabelAlternation, kmeans_labels
from ._result import SolverResult

__all__ = [
    "IterativeSolver",
    "LabelAlternation",
    "SolverResult",
    "check_capabilities",
    "kmeans_labels",
]

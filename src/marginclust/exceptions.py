"""Exceptions and warnings raised by marginclust."""

from sklearn.exceptions import ConvergenceWarning, NotFittedError

__all__ = [
    "ConvergenceWarning",
    "EmptyClusterError",
    "InfeasibleProblemError",
    "NotFittedError",
]


class EmptyClusterError(RuntimeError):
    """A run ended with an empty cluster or with every point in one cluster.

    Raised inside a single restart; the restart loop of
    :class:`~marginclust.base.BaseClusterer` catches it and tries another seed.
    """


class InfeasibleProblemError(ValueError):
    """The optimisation problem has no feasible point for the given parameters.

    For instance one-class SVM weights whose sum is below ``nu * n_samples``,
    or a class-balance bound that no labelling can meet.
    """

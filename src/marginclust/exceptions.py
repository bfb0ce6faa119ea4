"""Exceptions and warnings raised by marginclust."""

from sklearn.exceptions import ConvergenceWarning, NotFittedError

__all__ = [
    "ConvergenceWarning",
    "EmptyClusterError",
    "InfeasibleProblemError",
    "MemoryLimitError",
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


class MemoryLimitError(MemoryError, ValueError):
    """A step's estimated memory exceeds the budget: refused before it is spent.

    The budget is the memory available to the process, or the ``max_memory`` set
    with :func:`marginclust.set_config` / :func:`marginclust.config_context`; the
    message names the estimate and what to do instead (low rank, a diagonal
    start, a subsample). A ``MemoryError`` (and, as a refused parameter setting,
    a ``ValueError``).
    """

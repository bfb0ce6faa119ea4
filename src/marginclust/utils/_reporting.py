"""Verbosity routed to :mod:`logging`; library code never prints."""

from __future__ import annotations

import logging

logger = logging.getLogger("marginclust")


def report(verbose: int | bool, msg: str, *args: object) -> None:
    """Log ``msg`` at INFO level when ``verbose`` is truthy, else at DEBUG.

    Parameters
    ----------
    verbose : int or bool
        The estimator's verbosity.
    msg : str
        A %-style format string.
    *args : object
        Arguments for ``msg``.
    """
    logger.log(logging.INFO if verbose else logging.DEBUG, msg, *args)

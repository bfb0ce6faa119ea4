"""The ``balance`` parameters of the margin clusterers: their constraints.

Two meanings, as the papers define them: BMMC and CPMMC bound the mean output
(``|sum_i f(x_i)| <= l``, an int ``l >= 0`` or a float fraction of ``n`` in
``(0, 1]``); EMMC and IterSVR / IterSVM bound the spread of the class sizes (an
int count or a float fraction of ``n``, which ``n`` samples must be able to
meet). The objectives turn a valid value into the bound
(:func:`~marginclust.objectives._constraints.resolve_balance`,
:func:`~marginclust.objectives._elm_ridge.resolve_balance_count`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..objectives._elm_ridge import balance_feasible, resolve_balance_count
from ..utils import Check, Rule

__all__ = [
    "MEAN_OUTPUT_BALANCE",
    "SIZE_SPREAD_BALANCE",
    "check_count_balance",
    "mean_output_balance",
    "size_spread_balance",
]


def _int_or_fraction(value: Any, name: str, must: str, as_int: str, as_float: str,
                     unit: str) -> None:
    """Check an int ``>= 0`` or a float in ``(0, 1]``; the messages name the meaning."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {must}; got {value!r}.")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} as {as_int}; got {value}.")
        return
    frac = float(value)
    if not np.isfinite(frac) or not 0.0 < frac <= 1.0:
        raise ValueError(
            f"{name} as {as_float} must lie in (0, 1]; got {value!r}. "
            f"Pass an int for an absolute {unit}."
        )


def mean_output_balance(value: Any, name: str) -> None:
    """BMMC's bound: an int ``l >= 0`` or a float fraction of ``n_samples`` in ``(0, 1]``."""
    _int_or_fraction(
        value, name,
        "an int >= 0 (absolute bound l on |sum_i f(x_i)|) or a float in (0, 1] (a fraction "
        "of n_samples)",
        "an int is the bound l >= 0", "a float is a fraction of n_samples and", "bound",
    )


def size_spread_balance(value: Any, name: str) -> None:
    """EMMC's spread of class sizes: an int count ``>= 0`` or a float fraction in ``(0, 1]``."""
    _int_or_fraction(
        value, name,
        "a float in (0, 1] (a fraction of n_samples) or a non-negative int (an absolute count)",
        "an absolute count must be >= 0", "a fraction of n_samples", "count",
    )


@dataclass(frozen=True)
class _SizeSpreadBalance(Rule):
    """A size-spread ``balance`` (:func:`size_spread_balance`) that the data's
    ``n_samples`` can meet (:func:`check_count_balance`)."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        size_spread_balance(value, name)
        return value

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        check_count_balance(value, X.shape[0], int(n_clusters or 0))

    def _invalid(self) -> tuple[Any, ...]:
        return (-1, 0.0, 1.5, "0.1")


# The two meanings as entries of the parameter tables.
MEAN_OUTPUT_BALANCE = Check(mean_output_balance, invalid=(-1, 0.0, 1.5, "0.1"))
SIZE_SPREAD_BALANCE = _SizeSpreadBalance()


def check_count_balance(balance: Any, n: int, n_clusters: int) -> int:
    """The spread ``l`` of a valid size-spread ``balance`` on ``n`` samples, checked feasible.

    Parameters
    ----------
    balance : float or int
        A value :func:`size_spread_balance` accepts.
    n : int
        Number of samples.
    n_clusters : int
        Number of clusters.

    Returns
    -------
    l_max : int
        The allowed spread of the class sizes.

    Raises
    ------
    ValueError
        If ``balance`` is an absolute count that no partition of ``n`` samples into
        ``n_clusters`` clusters can meet.
    """
    l_max = resolve_balance_count(balance, n, n_clusters)
    if isinstance(balance, numbers.Integral) and not balance_feasible(n, n_clusters, l_max):
        raise ValueError(
            f"balance={balance} cannot be met: {n} samples cannot be split into "
            f"{n_clusters} clusters whose sizes differ by at most {l_max}. Use "
            f"balance >= 1 (or a fraction such as 0.03)."
        )
    return l_max

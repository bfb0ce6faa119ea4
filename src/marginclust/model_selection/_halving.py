"""Successive-halving schedules over rows under a cost budget.

The cost of a fit is counted in rows: a fit on ``r`` of the ``m`` search rows
costs ``r / m`` ("one fit on the search rows" is the unit). A schedule with
``L + 1`` rungs evaluates all candidates on ``m / factor**L`` rows, keeps the
best ``1 / factor`` of them, multiplies the rows by ``factor``, and so on up to
``m`` rows (Karnin, Koren & Somekh 2013; scikit-learn's HalvingGridSearchCV
uses the same rule with the resource ``n_samples``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

__all__ = ["Rung", "halving_schedule", "schedule_cost"]


class Rung(NamedTuple):
    """One rung of a schedule: how many candidates are evaluated on how many rows.

    Parameters
    ----------
    n_candidates : int
        Number of settings evaluated at this rung.
    n_rows : int
        Number of rows each is fitted on.
    """

    n_candidates: int
    n_rows: int


def schedule_cost(schedule: list[Rung], n_rows: int, fits_per_setting: float) -> float:
    """Cost of ``schedule`` in fits on the ``n_rows`` search rows."""
    return sum(r.n_candidates * fits_per_setting * r.n_rows / n_rows for r in schedule)


def _schedule(n_candidates: int, n_rows: int, n_levels: int, factor: int) -> list[Rung]:
    rungs = []
    for i in range(n_levels + 1):
        rows = n_rows if i == n_levels else math.ceil(n_rows / factor ** (n_levels - i))
        rungs.append(Rung(max(1, math.ceil(n_candidates / factor**i)), rows))
    return rungs


def halving_schedule(
    n_candidates: int,
    n_rows: int,
    *,
    fits_per_setting: float,
    budget: float | None,
    factor: int = 3,
    min_rows: int = 60,
) -> tuple[list[Rung], bool]:
    """The cheapest-first schedule whose cost fits ``budget``.

    Parameters
    ----------
    n_candidates : int
        Settings to compare.
    n_rows : int
        Rows of the search sample (the last rung uses all of them).
    fits_per_setting : float
        Cost of evaluating one setting on all search rows, in fits on those rows.
    budget : float or None
        Largest cost allowed; None evaluates every candidate on every row.
    factor : int, default=3
        Rows grow and candidates shrink by this factor per rung.
    min_rows : int, default=60
        No rung uses fewer rows.

    Returns
    -------
    schedule : list of Rung
        The rungs, cheapest first.
    within_budget : bool
        False when even the most aggressive schedule allowed by ``min_rows``
        costs more than ``budget`` (that schedule is returned).

    Examples
    --------
    >>> halving_schedule(9, 900, fits_per_setting=1.0, budget=None)
    ([Rung(n_candidates=9, n_rows=900)], True)
    >>> halving_schedule(9, 900, fits_per_setting=1.0, budget=5)
    ([Rung(n_candidates=9, n_rows=100), Rung(n_candidates=3, n_rows=300), \
Rung(n_candidates=1, n_rows=900)], True)
    """
    if factor < 2:
        raise ValueError(f"factor must be an integer >= 2; got {factor!r}.")
    full = [Rung(n_candidates, n_rows)]
    if budget is None:
        return full, True
    if not budget > 0:
        raise ValueError(f"budget must be a positive number of fits or None; got {budget!r}.")
    cheapest, cheapest_cost = full, schedule_cost(full, n_rows, fits_per_setting)
    level = 0
    while True:
        schedule = _schedule(n_candidates, n_rows, level, factor)
        if level > 0 and schedule[0].n_rows < min_rows:
            return cheapest, False
        cost = schedule_cost(schedule, n_rows, fits_per_setting)
        if cost <= budget:
            return schedule, True
        if cost < cheapest_cost:
            cheapest, cheapest_cost = schedule, cost
        level += 1

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

#: ``budget="auto"``: the whole search (refit on all rows included) costs about this
#: many fits on all rows ...
AUTO_BUDGET = 10.0
#: ... or, on small data, this many rows fitted in all (a fit on a few hundred rows
#: takes well under a second for every method here, so small data are searched on
#: every row).
AUTO_MIN_ROW_FITS = 20_000

__all__ = ["AUTO_BUDGET", "AUTO_MIN_ROW_FITS", "Rung", "SearchPlan", "halving_schedule",
           "plan_search", "schedule_cost"]


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


class SearchPlan(NamedTuple):
    """Rows and schedule chosen for a search (see :func:`plan_search`).

    Parameters
    ----------
    n_rows : int
        Search rows (the last rung uses all of them).
    schedule : list of Rung
        The rungs, cheapest first.
    cost : float
        Cost of the schedule in fits on all ``n_total`` rows.
    within_budget : bool
        False when no plan allowed by ``min_rows`` fits the budget (the cheapest
        is returned).
    """

    n_rows: int
    schedule: list[Rung]
    cost: float
    within_budget: bool


def plan_search(
    n_candidates: int,
    n_total: int,
    *,
    fits_per_setting: float,
    budget: float,
    factor: int = 3,
    min_rows: int = 60,
    n_rows: int | None = None,
) -> SearchPlan:
    """The search rows and halving schedule that use the most rows within ``budget``.

    The cost of a fit is taken as proportional to its rows (a search on ``m`` of
    ``n_total`` rows costs ``m / n_total`` of the same search on all rows), so
    for methods whose cost grows faster than the rows the plan errs on the cheap
    side. Among schedules of 0, 1, 2, ... halvings, the one whose last rung can
    use the most rows within ``budget`` is chosen; no rung has fewer than
    ``min_rows`` rows (unless the data have fewer).

    Parameters
    ----------
    n_candidates : int
        Settings to compare.
    n_total : int
        Rows of the data.
    fits_per_setting : float
        Cost of evaluating one setting on the search rows, in fits on those rows.
    budget : float
        Largest cost, in fits on all ``n_total`` rows.
    factor : int, default=3
        Rows grow and candidates shrink by this factor per rung.
    min_rows : int, default=60
        Fewest rows of any rung.
    n_rows : int, optional
        Search rows fixed by the caller (only the schedule is chosen).

    Returns
    -------
    plan : SearchPlan
        Rows, schedule, cost in fits on all rows, and whether it fits the budget.

    Examples
    --------
    >>> plan = plan_search(10, 3498, fits_per_setting=6.0, budget=9.0, min_rows=400)
    >>> plan.n_rows, plan.schedule, round(plan.cost, 2)
    (524, [Rung(n_candidates=10, n_rows=524)], 8.99)
    """
    if not budget > 0:
        raise ValueError(f"budget must be a positive number of fits; got {budget!r}.")
    floor = min(n_total, min_rows)
    best: SearchPlan | None = None
    cheapest: SearchPlan | None = None
    level = 0
    while True:
        unit = schedule_cost(_schedule(n_candidates, n_total, level, factor), n_total,
                             fits_per_setting)  # cost on all rows; scales with the rows used
        smallest = floor * factor**level  # rows for which the first rung has ``floor``
        if smallest > n_total and level > 0:
            break
        if n_rows is not None:
            rows = n_rows
        else:
            rows = min(n_total, int(budget * n_total / unit))
        # a budget too small for even one row leaves no plan at this level (only the
        # cheapest plan below)
        schedule = _schedule(n_candidates, max(rows, 1), level, factor)
        ok_rows = level == 0 or schedule[0].n_rows >= floor
        cost = schedule_cost(schedule, max(rows, 1), fits_per_setting) * rows / n_total
        if ok_rows and rows >= max(floor, 1) and cost <= budget * (1 + 1e-9):
            plan = SearchPlan(rows, schedule, cost, True)
            if best is None or rows > best.n_rows:
                best = plan
        # the cheapest plan allowed by the floor, should none fit the budget
        low = n_rows if n_rows is not None else min(n_total, smallest)
        low_schedule = _schedule(n_candidates, low, level, factor)
        if level == 0 or low_schedule[0].n_rows >= floor:
            low_cost = schedule_cost(low_schedule, low, fits_per_setting) * low / n_total
            if cheapest is None or low_cost < cheapest.cost:
                cheapest = SearchPlan(low, low_schedule, low_cost, False)
        level += 1
        if level > 12 or (n_rows is not None and math.ceil(n_rows / factor**level) < floor):
            break
    if best is not None:
        return best
    assert cheapest is not None
    return cheapest

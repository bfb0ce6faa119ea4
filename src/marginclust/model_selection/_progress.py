"""What a search says while it runs: its plan, a first-fit estimate, "setting i/N, fit j/M, ETA"."""

from __future__ import annotations

import time

from ..utils import StatusLine, format_seconds

__all__ = ["SearchProgress"]


class SearchProgress:
    """Counts a search's settings, fits and cost, and shows them on a :class:`StatusLine`.

    Cost is in fits on the search rows (a fit on ``r`` of ``m`` rows costs
    ``r / m``); the ETA is the elapsed time scaled by the cost still planned.
    The plan shrinks as it goes: a setting dropped after its first fit does not
    spend its half splits.

    Parameters
    ----------
    line : StatusLine
        Where the counters are shown (disabled: silent).
    n_rows : int
        Search rows ``m``.
    """

    def __init__(self, line: StatusLine, n_rows: int) -> None:
        self.line = line
        self.n_rows = n_rows
        self.start = time.perf_counter()
        self.settings_done = self.settings_planned = 0
        self.fits_done = self.fits_planned = 0
        self.cost_done = self.cost_planned = 0.0
        self.estimated: float | None = None

    def plan(self, settings: int, fits: int, cost: float) -> None:
        """Add a rung's settings, fits and cost to the plan."""
        self.settings_planned += settings
        self.fits_planned += fits
        self.cost_planned += cost

    def tick(self, rows: int, seconds: float) -> None:
        """One fit on ``rows`` rows took ``seconds``; the first one gives the estimate."""
        self.fits_done += 1
        self.cost_done += rows / self.n_rows
        self._ticked_fits += 1
        self._ticked_cost += rows / self.n_rows
        if self.estimated is None and seconds > 0:
            self.estimated = seconds * self.n_rows / rows * self.cost_planned
            self.line.note(
                f"StabilitySearch: first fit {seconds:.2f} s on {rows:,} rows; the search "
                f"should take about {format_seconds(self.estimated)} (the ETA below follows "
                "the fits as they finish)"
            )
        self.show()

    _ticked_fits = 0
    _ticked_cost = 0.0

    def setting_done(self, fits: int, cost: float, fits_spent: int, cost_spent: float) -> None:
        """A setting planned for ``fits`` fits (``cost``) finished after ``fits_spent``.

        Fits already counted by :meth:`tick` are not counted again; a setting read
        from the cache or run on a worker counts here; a setting dropped after its
        first fit takes its unspent fits out of the plan.
        """
        self.settings_done += 1
        self.fits_done += max(0, fits_spent - self._ticked_fits)
        self.cost_done += max(0.0, cost_spent - self._ticked_cost)
        self.fits_planned -= fits - fits_spent
        self.cost_planned -= cost - cost_spent
        self._ticked_fits, self._ticked_cost = 0, 0.0
        self.show(force=True)

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return time.perf_counter() - self.start

    def eta(self) -> float | None:
        """Seconds still expected, from the elapsed time per unit of cost done."""
        if self.cost_done <= 0:
            return None
        elapsed = time.perf_counter() - self.start
        return elapsed / self.cost_done * max(0.0, self.cost_planned - self.cost_done)

    def text(self) -> str:
        """``StabilitySearch: setting i/N, fit j/M, T elapsed, ETA E``."""
        elapsed = time.perf_counter() - self.start
        eta = self.eta()
        tail = "" if eta is None else f", ETA {format_seconds(eta)}"
        return (f"StabilitySearch: setting {min(self.settings_done + 1, self.settings_planned)}"
                f"/{self.settings_planned}, fit {self.fits_done}/{max(self.fits_planned, 1)}, "
                f"{format_seconds(elapsed)} elapsed{tail}")

    def show(self, force: bool = False) -> None:
        """Rewrite the status line."""
        self.line.update(self.text(), force=force)

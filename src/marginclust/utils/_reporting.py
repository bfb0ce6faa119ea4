"""Verbosity with scikit-learn's semantics: ``verbose > 0`` prints to stderr.

Every line also goes to the ``marginclust`` logger at DEBUG level, so a user who
configured logging can capture it without ``verbose``.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

import numpy as np

logger = logging.getLogger("marginclust")
# per-iteration lines (a sweep's objective) log here, so a progress display can keep
# the latest phase (a start, a re-seed) apart from them
iteration_logger = logging.getLogger("marginclust.iterations")

T = TypeVar("T")

__all__ = ["StatusLine", "format_seconds", "progress", "report", "shorten"]


def report(verbose: int | bool, msg: str, *args: object, iteration: bool = False) -> None:
    """Print ``msg % args`` to stderr when ``verbose > 0``; always log it at DEBUG.

    Parameters
    ----------
    verbose : int or bool
        The estimator's verbosity (scikit-learn semantics: 0 is silent).
    msg : str
        A %-style format string.
    *args : object
        Arguments for ``msg``.
    iteration : bool, default=False
        A line of every iteration (logger ``marginclust.iterations``), not of a
        phase of the fit (logger ``marginclust``).

    Examples
    --------
    >>> from marginclust.utils import report
    >>> report(0, "iteration %d", 3)  # silent
    """
    text = msg % args if args else msg
    (iteration_logger if iteration else logger).debug(text)
    if verbose and int(verbose) > 0:
        print(text, file=sys.stderr, flush=True)


def progress(
    iterable: Iterable[T], *, total: int | None = None, desc: str = "", enabled: bool = True
) -> Iterator[T]:
    """Yield from ``iterable`` with a progress line on stderr.

    Uses tqdm when it is installed, else a plain line rewritten at most twice a
    second, so long work is never silent even without the ``progress`` extra.

    Parameters
    ----------
    iterable : iterable
        The work items.
    total : int, optional
        Number of items, when ``iterable`` has no ``len``.
    desc : str, default=""
        Label printed before the counter.
    enabled : bool, default=True
        ``False`` yields the items silently.

    Yields
    ------
    item : object
        The items of ``iterable``, in order.

    Examples
    --------
    >>> from marginclust.utils import progress
    >>> list(progress(range(3), enabled=False))
    [0, 1, 2]
    """
    if not enabled:
        yield from iterable
        return
    if total is None and isinstance(iterable, Sized):
        try:
            total = len(iterable)
        except TypeError:  # e.g. a sparse matrix: iterable by rows, ambiguous length
            total = None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    if tqdm is not None:
        yield from tqdm(iterable, total=total, desc=desc, file=sys.stderr)
        return
    start = last = time.perf_counter()
    done = 0
    for item in iterable:
        yield item
        done += 1
        now = time.perf_counter()
        if now - last >= 0.5 or done == total:
            last = now
            of = f"/{total}" if total is not None else ""
            print(f"\r{desc} {done}{of} ({now - start:.1f} s)", end="", file=sys.stderr)
    if done:
        print(file=sys.stderr, flush=True)


def shorten(text: str, width: int) -> str:
    """Cut ``text`` at a word boundary to at most ``width`` characters.

    Parameters
    ----------
    text : str
        A message (e.g. an error's first line) to show in a report or a table cell.
    width : int
        The most characters kept, "..." included.

    Returns
    -------
    text : str
        ``text`` itself when it fits, else its words up to the last that fits and "...".

    Examples
    --------
    >>> from marginclust.utils import shorten
    >>> shorten("the fit did not converge in time", 20)
    'the fit did not...'
    """
    if len(text) <= width:
        return text
    cut = text[: width - 3].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "..."


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def format_seconds(seconds: float) -> str:
    """``42 s``, ``3 min 20 s`` or ``1 h 05 min``: a duration for a progress line.

    Parameters
    ----------
    seconds : float
        The duration (negative counts as 0).

    Returns
    -------
    text : str
        Rounded to the second.

    Examples
    --------
    >>> from marginclust.utils import format_seconds
    >>> format_seconds(4.2), format_seconds(200), format_seconds(3900)
    ('4 s', '3 min 20 s', '1 h 05 min')
    """
    s = int(round(max(seconds, 0.0)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class StatusLine:
    """One line of progress on stderr, rewritten in place; :meth:`close` ends it.

    Messages that must stay (a plan, an estimate) go through :meth:`note`,
    which ends the status line first, so the two never run together on a
    terminal. Every note is also logged at DEBUG level (logger
    ``marginclust``). Disabled, it prints nothing.

    Parameters
    ----------
    enabled : bool, default=True
        Print anything at all.
    interval : float, default=0.5
        Fewest seconds between two rewrites of the line (``update(force=True)``
        rewrites it at once).

    Examples
    --------
    >>> from marginclust.utils import StatusLine
    >>> line = StatusLine(enabled=False)
    >>> line.update("setting 1/4")
    >>> line.close()
    """

    NON_TTY_INTERVAL = 10.0

    def __init__(self, enabled: bool = True, *, interval: float = 0.5) -> None:
        self.enabled = enabled
        self.interval = interval
        self._last = -np.inf
        self._width = 0
        self._open = False

    def update(self, text: str, *, force: bool = False) -> None:
        """Rewrite the line with ``text`` (at most every ``interval`` seconds).

        When stderr is not a terminal (a log file, a pipe), lines are not
        rewritten in place: one full line is written at most every
        ``NON_TTY_INTERVAL`` seconds instead.

        Parameters
        ----------
        text : str
            The new content of the line.
        force : bool, default=False
            On a terminal, rewrite now even within ``interval``.
        """
        if not self.enabled:
            return
        now = time.perf_counter()
        tty = _isatty(sys.stderr)
        interval = self.interval if tty else max(self.interval, self.NON_TTY_INTERVAL)
        if (not force or not tty) and now - self._last < interval:
            return
        self._last = now
        if not tty:
            print(text, file=sys.stderr, flush=True)
            return
        pad = " " * max(0, self._width - len(text))
        print(f"\r{text}{pad}", end="", file=sys.stderr, flush=True)
        self._width = len(text)
        self._open = True

    def note(self, text: str) -> None:
        """Print ``text`` on a line of its own (ending the status line first).

        Parameters
        ----------
        text : str
            The message; also logged at DEBUG level.
        """
        logger.debug(text)
        if not self.enabled:
            return
        self.close()
        print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        """End the status line (a newline) if one is shown."""
        if self._open:
            print(file=sys.stderr, flush=True)
            self._open = False
            self._width = 0

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

logger = logging.getLogger("marginclust")

T = TypeVar("T")

__all__ = ["progress", "report", "shorten"]


def report(verbose: int | bool, msg: str, *args: object) -> None:
    """Print ``msg % args`` to stderr when ``verbose > 0``; always log it at DEBUG.

    Parameters
    ----------
    verbose : int or bool
        The estimator's verbosity (scikit-learn semantics: 0 is silent).
    msg : str
        A %-style format string.
    *args : object
        Arguments for ``msg``.

    Examples
    --------
    >>> from marginclust.utils import report
    >>> report(0, "iteration %d", 3)  # silent
    """
    text = msg % args if args else msg
    logger.debug(text)
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

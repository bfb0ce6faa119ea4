"""Memory checked before it is spent: a library-wide budget and the guard of large steps.

Every step of a fit that allocates O(n^2), O(d^2) or O(n x L) memory (an exact
kernel matrix, a dual system, full covariance matrices, features or memberships
of every sample) first estimates its peak and calls :func:`check_memory`, which
refuses with a one-line :class:`~marginclust.exceptions.MemoryLimitError` naming
the estimate, the budget and the alternative (low rank, a diagonal start, a
subsample), instead of letting the operating system kill the process.

The budget is the memory available to this process, the smallest of: the
system's available memory (``MemAvailable``), what the address-space limit
(``RLIMIT_AS``) leaves, and what the cgroup's memory limit leaves. A user sets
another budget library-wide, as scikit-learn's ``working_memory``:

>>> import marginclust
>>> with marginclust.config_context(max_memory="2GiB"):
...     marginclust.get_config()["max_memory"]
2147483648
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..exceptions import MemoryLimitError

__all__ = [
    "available_memory",
    "check_memory",
    "check_rows_memory",
    "config_context",
    "format_bytes",
    "get_config",
    "memory_budget",
    "set_config",
]

_CONFIG: dict[str, Any] = {"max_memory": None}
_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 2**10, "m": 1e6, "mb": 1e6,
          "mib": 2**20, "g": 1e9, "gb": 1e9, "gib": 2**30, "t": 1e12, "tb": 1e12, "tib": 2**40}
_FALLBACK = 4 * 2**30  # a budget when the platform says nothing


def _parse_bytes(value: Any) -> int | None:
    """``max_memory`` as bytes: None, a number of bytes or a string such as ``"4GiB"``."""
    if value is None:
        return None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        if m is None or m.group(2).lower() not in _UNITS:
            raise ValueError(
                f"max_memory must be None, a number of bytes or a size such as '4GiB' or "
                f"'512MB'; got {value!r}."
            )
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"max_memory must be a positive number of bytes; got {value!r}.")
    return int(value)


def get_config() -> dict[str, Any]:
    """The library-wide settings: ``max_memory`` (bytes, or None: the memory available).

    Returns
    -------
    config : dict
        A copy of the settings.

    Examples
    --------
    >>> from marginclust import get_config
    >>> get_config()["max_memory"] is None
    True
    """
    return dict(_CONFIG)


def set_config(max_memory: Any = "unchanged") -> None:
    """Set library-wide settings (see :func:`config_context` for a scoped change).

    Parameters
    ----------
    max_memory : None, int, float or str, optional
        The memory a fit may use, in bytes or as a size (``"4GiB"``, ``"512MB"``);
        None: the memory available to the process. A step whose estimated peak
        exceeds it is refused with :class:`~marginclust.exceptions.MemoryLimitError`.

    Examples
    --------
    >>> from marginclust import get_config, set_config
    >>> set_config(max_memory=2**30)
    >>> get_config()["max_memory"]
    1073741824
    >>> set_config(max_memory=None)
    """
    if not (isinstance(max_memory, str) and max_memory == "unchanged"):
        _CONFIG["max_memory"] = _parse_bytes(max_memory)


@contextmanager
def config_context(*, max_memory: Any = "unchanged") -> Iterator[None]:
    """Change library-wide settings inside a ``with`` block (restored on exit).

    Parameters
    ----------
    max_memory : None, int, float or str, optional
        As in :func:`set_config`.

    Yields
    ------
    None
        The settings hold inside the block.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import SLMC, config_context
    >>> X = np.random.RandomState(0).randn(3000, 2)
    >>> with config_context(max_memory="100MB"):
    ...     try:
    ...         SLMC(n_components=None).fit(X)
    ...     except MemoryError as exc:
    ...         print(str(exc)[:40])
    Exact SLMC on n_samples=3000 needs about
    """
    old = dict(_CONFIG)
    set_config(max_memory=max_memory)
    try:
        yield
    finally:
        _CONFIG.clear()
        _CONFIG.update(old)


def _read(path: str) -> str | None:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return None


def _meminfo_available() -> int | None:
    text = _read("/proc/meminfo")
    if text:
        m = re.search(r"^MemAvailable:\s+(\d+)\s*kB", text, re.M)
        if m:
            return int(m.group(1)) * 1024
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _address_space_left() -> int | None:
    """What ``RLIMIT_AS`` leaves: the limit minus the address space already mapped."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    text = _read("/proc/self/statm")
    used = int(text.split()[0]) * os.sysconf("SC_PAGE_SIZE") if text else 0
    return max(int(soft) - used, 0)


def _cgroup_left() -> int | None:
    """What the cgroup's memory limit (v2, else v1) leaves."""
    for limit_path, usage_path in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
         "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        limit, usage = _read(limit_path), _read(usage_path)
        if limit is None or usage is None:
            continue
        limit = limit.strip()
        if limit == "max" or not limit.isdigit() or int(limit) >= 2**60:
            return None
        return max(int(limit) - int(usage.strip() or 0), 0)
    return None


def available_memory() -> int:
    """Bytes this process can still allocate: the least of what the system, the
    address-space limit and the cgroup leave (4 GiB if none is known).

    Returns
    -------
    nbytes : int

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    found = [v for v in (_meminfo_available(), _address_space_left(), _cgroup_left())
             if v is not None]
    return min(found) if found else _FALLBACK


def memory_budget() -> tuple[int, str]:
    """``(bytes, what they are)``: the ``max_memory`` set, else the memory available.

    Returns
    -------
    nbytes : int
    source : str
        How the message names the budget.
    """
    limit = _CONFIG["max_memory"]
    if limit is not None:
        return int(limit), "allowed by max_memory"
    return available_memory(), "available"


def format_bytes(nbytes: float) -> str:
    """A size for messages: ``1.5 GiB``, ``312 MiB``, ``80 KiB``.

    Parameters
    ----------
    nbytes : float

    Returns
    -------
    str

    Examples
    --------
    >>> format_bytes(3 * 2**30 // 2)
    '1.5 GiB'
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            value = nbytes / size
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(nbytes)} B"


def check_rows_memory(name: str, shape: tuple[int, int], n_clusters: int, itemsize: int,
                      per_cluster: float) -> None:
    """The guard of a centroid fit: a copy of X and ``per_cluster`` n x K arrays.

    Parameters
    ----------
    name : str
        The estimator's name.
    shape : tuple of int
        ``(n_samples, n_features)``.
    n_clusters : int
    itemsize : int
        Bytes per entry (the dtype of X).
    per_cluster : float
        n x K arrays at the peak (memberships, distances, weights, predictions).
    """
    n, d = shape
    check_memory(itemsize * (n * d + per_cluster * n * n_clusters),
                 f"{name} on n_samples={n} with n_clusters={n_clusters}",
                 "use a subsample, or marginclust.dask.DaskClusterer for data past memory")


def check_memory(nbytes: float, what: str, alternative: str) -> None:
    """Refuse a step whose estimated peak ``nbytes`` exceeds the budget.

    Parameters
    ----------
    nbytes : float
        The step's estimated peak (bytes).
    what : str
        The step and its size, e.g. ``"Exact SLMC on n_samples=40000"``.
    alternative : str
        What to do instead, e.g. ``"use the low-rank mode: n_components=500"``.

    Raises
    ------
    MemoryLimitError
        One line: the estimate, the budget and the alternative.

    Examples
    --------
    >>> from marginclust import config_context
    >>> with config_context(max_memory="1MB"):
    ...     check_memory(2e6, "A test step", "make it smaller")
    Traceback (most recent call last):
    ...
    marginclust.exceptions.MemoryLimitError: A test step needs about 1.9 MiB, more than the \
977 KiB allowed by max_memory (marginclust.set_config(max_memory=...)); make it smaller.
    """
    budget, source = memory_budget()
    if nbytes > budget:
        raise MemoryLimitError(
            f"{what} needs about {format_bytes(nbytes)}, more than the "
            f"{format_bytes(budget)} {source} (marginclust.set_config(max_memory=...)); "
            f"{alternative}."
        )

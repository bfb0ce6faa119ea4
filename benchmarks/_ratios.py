"""Machine-readable record of the speed ratios a benchmark script measures.

Each ``bench_*.py`` prints its own tables; where it measures a ratio with a target
it also calls :func:`record`. The call does nothing unless the
environment variable ``MARGINCLUST_BENCH_RATIOS`` names a file, in which case it
appends one JSON line. ``benchmarks/bench_speed.py`` (``make bench-speed``) runs
every script with that variable set and prints one table of all the lines.
"""

from __future__ import annotations

import json
import os

ENV = "MARGINCLUST_BENCH_RATIOS"


def record(
    method: str,
    peer: str,
    size: str,
    threads: int,
    value: float,
    target: float | None,
    *,
    better: str = "lower",
    unit: str = "x",
) -> None:
    """Append one measured ratio (``value``) and its target to the run's record file.

    Parameters
    ----------
    method, peer, size : str
        What was timed, against what, on which data.
    threads : int
        BLAS threads (threadpoolctl limit) of the measurement.
    value : float
        The measured ratio (``unit="x"``), share (``unit="%"``, a fraction) or
        seconds (``unit="s"``).
    target : float or None
        The issue's target for ``value`` (None: informative row).
    better : {"lower", "higher"}
        Whether the target is an upper (``value <= target``) or lower bound.
    unit : {"x", "%", "s", "exact"}
        How ``value`` and ``target`` are printed (``"exact"``: nine decimals, for
        ratios that must stay at 1, e.g. of objectives).
    """
    path = os.environ.get(ENV)
    if not path:
        return
    row = {
        "method": method,
        "peer": peer,
        "size": size,
        "threads": int(threads),
        "value": float(value),
        "target": None if target is None else float(target),
        "better": better,
        "unit": unit,
        "load": os.getloadavg()[0],
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")

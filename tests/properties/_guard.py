"""A watchdog for calls that may hang inside compiled code.

``run_guarded(fn, timeout)`` runs ``fn()`` in a forked child process and
returns its outcome to the parent. A Python-level timeout (``signal.alarm``,
pytest-timeout's signal method) cannot stop a loop that holds the GIL inside C
(libsvm, a QP, ``any(itertools.repeat(False))``), and pytest-timeout's thread
method stops it by ending the whole pytest process. A forked child is killed
(SIGKILL) when it overruns, so a hang fails one check and the run continues.

The child also records every warning (``simplefilter("always")``) so the
parent can tell a stray ``RuntimeWarning`` from a documented
``ConvergenceWarning``, and it returns exceptions by type name, message and
traceback text rather than raising them.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from threadpoolctl import threadpool_limits

__all__ = ["Outcome", "run_guarded", "default_timeout"]


def default_timeout() -> float:
    """Seconds a guarded call may take (``MARGINCLUST_PROPS_TIMEOUT``, default 20)."""
    return float(os.environ.get("MARGINCLUST_PROPS_TIMEOUT", "20"))


@dataclass
class Outcome:
    """What happened to a guarded call."""

    value: Any = None
    error_type: str | None = None  # qualified class name, e.g. "numpy.linalg.LinAlgError"
    error_mro: tuple[str, ...] = ()  # qualified names of the exception's classes
    error_message: str = ""
    error_traceback: str = ""
    warnings: list[tuple[str, tuple[str, ...], str, str]] = field(default_factory=list)
    timed_out: bool = False
    crashed: bool = False  # the child died without answering (segfault, MemoryError kill)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.timed_out or self.crashed or self.error_type)

    def raised(self, name: str) -> bool:
        """Whether the call raised an exception of (a subclass of) class ``name``."""
        return any(c == name or c.endswith("." + name) for c in self.error_mro)

    def describe(self) -> str:
        if self.timed_out:
            return f"hang: no answer within {self.seconds:.1f} s (child killed)"
        if self.crashed:
            return f"the child process died ({self.error_message})"
        if self.error_type:
            return f"{self.error_type}: {self.error_message}\n{self.error_traceback}"
        return "ok"


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _child(fn: Callable[[], Any], conn: Any) -> None:
    out = Outcome()
    # A forked child inherits no worker threads: once the parent has run an OpenMP
    # region (scikit-learn's KMeans) with more than one thread, a child that enters one
    # waits for the parent's team forever. One thread per child keeps every thread count
    # safe (OMP_NUM_THREADS=2 in the parent, as in the 2-thread runs).
    threadpool_limits(limits=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out.value = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            out.error_type = _qualname(type(exc))
            out.error_mro = tuple(_qualname(c) for c in type(exc).__mro__)
            out.error_message = str(exc)
            out.error_traceback = traceback.format_exc(limit=8)
    out.warnings = [
        (
            _qualname(w.category),
            tuple(_qualname(c) for c in w.category.__mro__),
            str(w.message),
            f"{w.filename}:{w.lineno}",
        )
        for w in caught
    ]
    try:
        payload = pickle.dumps(out)
    except Exception as exc:  # noqa: BLE001 - an unpicklable value is reported, not lost
        out.value = None
        out.error_type = "pickle.PicklingError"
        out.error_mro = ("pickle.PicklingError",)
        out.error_message = f"the guarded call's result could not be pickled: {exc}"
        payload = pickle.dumps(out)
    conn.send_bytes(payload)
    conn.close()


_CTX = mp.get_context("fork")


def run_guarded(fn: Callable[[], Any], timeout: float | None = None) -> Outcome:
    """Run ``fn()`` in a forked child; kill it after ``timeout`` seconds.

    Returns an :class:`Outcome`; never raises for what happens inside ``fn``.
    """
    timeout = default_timeout() if timeout is None else timeout
    recv, send = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(fn, send), daemon=True)
    start = time.perf_counter()
    proc.start()
    send.close()
    try:
        if recv.poll(timeout):
            try:
                out: Outcome = pickle.loads(recv.recv_bytes())
            except EOFError:
                proc.join(5)
                out = Outcome(crashed=True, error_message=f"exit code {proc.exitcode}")
        else:
            out = Outcome(timed_out=True)
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
    out.seconds = time.perf_counter() - start
    return out

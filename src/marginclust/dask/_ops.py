"""Helpers of :mod:`marginclust.dask`: input checks, the client, the graph counter.

- :func:`check_dask_array`: a 2-D float dask array chunked by rows only;
- :class:`GraphCounter`: counts graph executions (a dask callback; local
  schedulers), used by the round-trip tests;
- :func:`block_offsets`, :func:`_shared`, :func:`_active_client`: what the
  backend's passes (:class:`~marginclust.dask.DaskRows`) build their graphs from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask.array as da
import numpy as np
from dask.callbacks import Callback

import dask

__all__ = ["GraphCounter", "block_offsets", "check_dask_array"]


class GraphCounter(Callback):
    """Count graph executions of dask's local schedulers (synchronous, threads, processes).

    Use as a context manager; ``count`` is the number of graphs executed inside
    it (``dask.compute`` and ``persist`` each count one). A ``distributed``
    client does not run these callbacks.

    Examples
    --------
    >>> import dask, dask.array as da
    >>> x = da.ones((10, 2), chunks=(5, 2))
    >>> with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
    ...     _ = x.sum().compute(), x.mean().compute()
    >>> c.count
    2
    """

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _start(self, dsk: Any) -> None:
        self.count += 1


def _active_client() -> Any:
    """The ``distributed`` client dask would use now, or None (local scheduler)."""
    try:
        from distributed import get_client
    except ImportError:  # pragma: no cover - distributed is part of the extra
        return None
    sched = dask.config.get("scheduler", None)
    if sched is not None and sched not in ("dask.distributed", "distributed"):
        return None
    try:
        return get_client()
    except ValueError:
        return None


def check_dask_array(X: Any, name: str = "X", *, estimator: str = "DaskClusterer") -> da.Array:
    """Validate a 2-D float dask array chunked by rows only (columns: one chunk).

    Integer data become float64 (lazily); a column-chunked array is rechunked to
    one column chunk (a cheap, blockwise regrouping). Rows with unknown chunk
    sizes are refused.
    """
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{estimator} fits dask arrays; got {type(X).__name__}. A dask DataFrame: "
            "X.to_dask_array(lengths=True); in-memory data: dask.array.from_array(X, "
            "chunks=(rows, -1)), or the estimator itself (DaskClusterer fits in-memory "
            "data so)."
        )
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{name} has unknown row-chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    if X.dtype.kind in "iub":
        X = X.astype(np.float64)
    elif X.dtype.kind != "f" or X.dtype not in (np.float32, np.float64):
        raise ValueError(f"{name} must have a float32 or float64 dtype; got {X.dtype}.")
    if len(X.chunks[1]) != 1:
        X = X.rechunk({1: -1})
    return X


def block_offsets(X: da.Array) -> list[int]:
    """First row of each row block (length = number of blocks + 1, last = n)."""
    return [0, *np.cumsum(X.chunks[0]).astype(int).tolist()]


def _shared(args: Sequence[Any]) -> list[Any]:
    """Wrap array arguments once so every block task refers to one copy in the graph."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.size > 16:
            out.append(dask.delayed(a, pure=False))
        else:
            out.append(a)
    return out

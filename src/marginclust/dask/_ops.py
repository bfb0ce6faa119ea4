"""Shared helpers of :mod:`marginclust.dask`: one graph execution per pass over X.

- :func:`block_partials`: ONE ``dask.compute`` over the row blocks of X, returning
  the per-block partial results in block order. The caller reduces them in that
  order, exactly as the in-memory solver's block loop does, so under the
  synchronous scheduler with chunks equal to the in-memory blocks the fit is
  bitwise equal to the in-memory fit.
- :func:`block_states`: the same for solvers that keep per-row state between
  passes (PKM's labels): each block task returns ``(new_state, partial)``; the
  states stay where they were computed (on the workers under
  ``distributed``; in this process under a local scheduler) and only the
  partials travel.
- :class:`GraphCounter`: counts graph executions (a dask callback; local schedulers),
  used by the round-trip tests.
- :func:`sample_rows`: a uniform sample of rows drawn blockwise (one graph
  execution, O(sample) memory on the client), the start of the sample-based
  k-means++ initialisation (as dask-ml documents for its ``init="k-means++"``)
  and of Nystroem landmark drawing (:func:`draw_landmarks`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt
from dask.callbacks import Callback

import dask

__all__ = [
    "GraphCounter",
    "block_offsets",
    "block_partials",
    "block_states",
    "check_dask_array",
    "draw_landmarks",
    "init_sample_size",
    "sample_rows",
]


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
            f"{estimator} fits dask arrays; got {type(X).__name__}. Wrap in-memory data "
            "with dask.array.from_array(X, chunks=(rows, -1)), or fit the estimator "
            "itself on a NumPy array."
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


def _blocks(X: da.Array) -> list[Any]:
    if len(X.chunks[1]) != 1:
        raise ValueError("X must have one chunk along the columns (see check_dask_array).")
    return list(X.to_delayed().ravel())


def _shared(args: Sequence[Any]) -> list[Any]:
    """Wrap array arguments once so every block task refers to one copy in the graph."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.size > 16:
            out.append(dask.delayed(a, pure=False))
        else:
            out.append(a)
    return out


def block_partials(
    X: da.Array,
    fn: Callable[..., Any],
    *args: Any,
    extra_blocks: Sequence[da.Array] = (),
    with_offsets: bool = False,
) -> list[Any]:
    """``[fn(X_b, *extra_b, *args) for each row block b]`` in ONE graph execution, in order.

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Row-chunked data (one chunk along the columns).
    fn : callable
        The block function, the same one the in-memory solver calls on its blocks.
    *args
        Arguments shared by every block (centres, ...); arrays are put in the graph once.
    extra_blocks : sequence of dask arrays, default=()
        Row-aligned arrays (e.g. sample weights, same row chunks as X) whose
        blocks are passed after ``X_b``.
    with_offsets : bool, default=False
        Pass ``(lo, hi)``, the block's row range, after the extra blocks.

    Returns
    -------
    partials : list
        One result per block, in block order (reduce them in that order).
    """
    xb = _blocks(X)
    extras = [_blocks(e[:, None] if e.ndim == 1 else e) for e in extra_blocks]
    shared = _shared(args)
    off = block_offsets(X)
    f = dask.delayed(fn, pure=False)
    tasks = []
    for b, blk in enumerate(xb):
        more = [e[b] for e in extras]
        if with_offsets:
            more.append((off[b], off[b + 1]))
        tasks.append(f(blk, *more, *shared))
    return list(dask.compute(*tasks))


def block_states(
    X: da.Array,
    fn: Callable[..., tuple[Any, Any]],
    states: Sequence[Any] | None,
    *args: Any,
    with_offsets: bool = False,
) -> tuple[list[Any], list[Any]]:
    """One pass of a solver with per-row state kept beside the data.

    ``fn(X_b, state_b, *args) -> (new_state_b, partial_b)``; ``state_b`` is None in
    the first pass; with ``with_offsets``, ``fn(X_b, state_b, (lo, hi), *args)``.
    Returns ``(new_states, partials)``. Under a ``distributed``
    client the new states are futures held by the workers (only the partials
    are gathered: one blocking round trip); under a local scheduler they are
    arrays in this process. Either can be passed back as ``states``.
    """
    xb = _blocks(X)
    shared = _shared(args)
    f = dask.delayed(fn, pure=False, nout=2)
    if states is None:
        states = [None] * len(xb)
    off = block_offsets(X)
    tasks = [
        f(blk, s, *([(off[b], off[b + 1])] if with_offsets else []), *shared)
        for b, (blk, s) in enumerate(zip(xb, states))
    ]
    client = _active_client()
    if client is None:
        out = dask.compute(*tasks)
        return [o[0] for o in out], [o[1] for o in out]
    futs = client.compute(tasks)
    parts = client.gather(client.map(operator.itemgetter(1), futs, pure=False))
    new_states = client.map(operator.itemgetter(0), futs, pure=False)
    return list(new_states), list(parts)


def init_sample_size(n_clusters: int) -> int:
    """Rows drawn for a sample-based initialisation (k-means++ or random seeds).

    ``max(10000, 100 n_clusters)``: k-means++ on the sample costs
    O(sample x n_clusters x n_features) on the client, and the seeds are
    spread over the sample as they would be over X.
    """
    return max(10_000, 100 * n_clusters)


def sample_rows(
    X: da.Array,
    size: int,
    random_state: np.random.RandomState,
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.intp]]:
    """A uniform sample of ``min(size, n)`` distinct rows of X, in row order.

    When ``size >= n`` every row is returned and ``random_state`` is not used
    (so a sample-based initialisation on small data is the in-memory one).
    Otherwise the row indices are drawn on the client with O(size) memory
    (Floyd-style sampling of ``numpy.random.Generator.choice``) and the rows are
    gathered blockwise: one graph execution.

    Returns
    -------
    rows : ndarray of shape (m, n_features)
    index : ndarray of shape (m,)
        Their (sorted) row numbers in X.
    """
    n = X.shape[0]
    if size >= n:
        idx = np.arange(n)
        return np.asarray(X.compute()), idx
    gen = np.random.default_rng(int(random_state.randint(np.iinfo(np.int32).max)))
    idx = np.sort(gen.choice(n, size=size, replace=False, shuffle=False)).astype(np.intp)
    def take(Xb: npt.NDArray, lohi: tuple[int, int], idx: npt.NDArray) -> npt.NDArray:
        lo, hi = lohi
        a, b = np.searchsorted(idx, [lo, hi])
        return np.asarray(Xb)[idx[a:b] - lo]

    parts = block_partials(X, take, idx, with_offsets=True)
    return np.concatenate(parts, axis=0), idx


def draw_landmarks(
    X: da.Array, n_landmarks: int, random_state: np.random.RandomState
) -> npt.NDArray[np.floating]:
    """``n_landmarks`` distinct rows of X drawn uniformly (Nystroem landmarks), one pass."""
    rows, _ = sample_rows(X, n_landmarks, random_state)
    return rows

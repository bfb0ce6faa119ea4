"""The row-block backend over the chunks of a dask array (:class:`DaskRows`).

It implements the methods of :class:`marginclust.utils._blocks.RowBlocks`, the
in-memory backend, over the row chunks of a dask array: every pass maps the
block function the in-memory fit runs on its blocks over the chunks, in ONE
graph execution, and brings back only the per-chunk partials (reduced in chunk
order by the caller, as in memory). Per-row state (labels, memberships) stays
beside its chunk: arrays in this process under a local scheduler, futures on
the workers under ``distributed``. Per-row outputs (``labels_``, memberships)
are lazy dask arrays with the row chunks of X.

With chunks equal to the in-memory blocks and the synchronous scheduler, a fit
is bitwise the in-memory one (the same operations in the same order); other
chunks regroup the sums (equal to rounding).
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

import dask.array as da
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

import dask

from ..utils import check_not_constant, check_sample_weight_form, check_sample_weight_values
from ..utils._blocks import (
    RowBlockBackend,
    RowIndexer,
    column_sum_block,
    register_backend,
    sample_row_indices,
)
from ._ops import _active_client, _shared, block_offsets, check_dask_array

__all__ = ["DaskRows"]


def _first_pass(Xb: Any) -> tuple[Any, Any, Any, bool]:
    """Column extremes, column sums and finiteness of a chunk (dense or sparse)."""
    if sp.issparse(Xb):
        Xb = sp.csr_matrix(Xb)
        finite = bool(np.isfinite(Xb.data).all())
        if Xb.shape[0] == 0:
            d = Xb.shape[1]
            return np.full(d, -np.inf), np.full(d, np.inf), np.zeros(d), finite
        hi = Xb.max(axis=0).toarray().ravel()
        lo = Xb.min(axis=0).toarray().ravel()
        return hi, lo, column_sum_block(Xb), finite
    Xb = np.asarray(Xb)
    with np.errstate(over="ignore", invalid="ignore"):
        finite = bool(np.isfinite(Xb).all())
        hi = Xb.max(axis=0, initial=-np.inf)
        lo = Xb.min(axis=0, initial=np.inf)
        sums = column_sum_block(Xb)
    return hi, lo, sums, finite


def _weight_facts(wb: Any) -> tuple[bool, bool, bool, Any]:
    w = np.asarray(wb).ravel()
    good = bool(np.isfinite(w).all() and (w >= 0).all())
    with np.errstate(over="ignore"):
        total = w.sum() if good else w.dtype.type(0)  # in the weights' dtype, as the fits sum
    return good, bool((w > 0).any()), bool((w == 1).all()), total


def _take(Xb: Any, lohi: tuple[int, int], idx: npt.NDArray[np.intp]) -> Any:
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    if sp.issparse(Xb):
        return sp.csr_matrix(Xb)[idx[a:b] - lo]
    return np.asarray(Xb)[idx[a:b] - lo]


def _take_weighted(
    Xb: Any, lohi: tuple[int, int], wb: Any, idx: npt.NDArray[np.intp]
) -> tuple[Any, Any]:
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    return _take(Xb, lohi, idx), np.asarray(wb).ravel()[idx[a:b] - lo]


def _flatnonzero(mb: Any, lohi: tuple[int, int]) -> npt.NDArray[np.intp]:
    return np.flatnonzero(np.asarray(mb).ravel()) + lohi[0]


def _draw(seed: int, c: int, fn: Callable[..., Any]) -> Any:
    return fn(np.random.RandomState(int(seed)), c)


class DaskRows(RowBlockBackend):
    """The row chunks of a dask array as a row-block backend (one graph per pass).

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features)
        Chunked by rows (a column-chunked array is rechunked to one column
        chunk; integer data become float64). Chunks may be dense or
        ``scipy.sparse`` CSR matrices.

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> import numpy as np
    >>> rows = DaskRows(da.from_array(np.arange(10.0).reshape(5, 2), chunks=(2, 2)))
    >>> with dask.config.set(scheduler="synchronous"):
    ...     parts = rows.partials(lambda Xb: float(Xb.sum()))
    >>> parts
    [6.0, 22.0, 17.0]
    """

    in_memory: ClassVar[bool] = False

    def __init__(self, X: Any) -> None:
        X = check_dask_array(X, estimator="DaskRows")
        self.X = X
        self.sparse = bool(sp.issparse(getattr(X, "_meta", None)))
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        self.dtype = X.dtype
        self.chunks = tuple(int(c) for c in X.chunks[0])
        self.offsets = block_offsets(X)
        self._sums: npt.NDArray[np.float64] | None = None
        self._extremes: npt.NDArray[Any] | None = None

    @property
    def n_blocks(self) -> int:
        """Number of row chunks."""
        return len(self.chunks)

    def reblock(self, block_rows: int) -> DaskRows:
        """The chunks are the blocks (chosen by whoever chunked X)."""
        return self

    @contextlib.contextmanager
    def threaded(self) -> Iterator[DaskRows]:
        """Nothing to hold: the scheduler shares the chunks among its workers."""
        yield self

    # ---------------------------------------------------------------- checks
    def validate(self, *, name: str, dtypes: Sequence[Any], accept_sparse: Any,
                 require_non_constant: bool) -> DaskRows:
        """What ``validate_data`` checks in memory, in one pass (column sums kept for the mean).

        Parameters
        ----------
        name : str
            The estimator's name, for messages.
        dtypes : sequence of dtypes
            Accepted float dtypes.
        accept_sparse : bool or tuple of str
            Whether sparse chunks are accepted.
        require_non_constant : bool
            Refuse data whose every feature is constant.

        Returns
        -------
        self : DaskRows
        """
        n, d = self.shape
        if n < 2:
            raise ValueError(
                f"Found array with {n} sample(s) (shape={self.shape}) while a minimum of 2 is "
                f"required by {name}."
            )
        if d < 1:
            raise ValueError(f"Found array with 0 feature(s) (shape={self.shape}).")
        if self.sparse and not accept_sparse:
            raise TypeError(f"{name} does not accept sparse chunks; pass dense chunks.")
        if np.dtype(self.dtype).type not in tuple(dtypes):
            self.X = self.X.astype(dtypes[0])
            self.dtype = self.X.dtype
        parts = self.partials(_first_pass)
        if not all(p[3] for p in parts):
            raise ValueError("Input X contains NaN or infinity.")
        hi = np.max([p[0] for p in parts], axis=0)
        lo = np.min([p[1] for p in parts], axis=0)
        total = np.zeros(d)
        with np.errstate(over="ignore", invalid="ignore"):
            for p in parts:
                total += p[2]
        self._sums = total
        self._extremes = np.vstack([hi, lo])
        if require_non_constant:
            check_not_constant(self._extremes)
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        """The column extremes ``[max; min]`` (2 x d), X's view for checks of column ranges.

        Checks that read only the columns' ranges (the finite-scale check) see
        the ranges of X without computing it.
        """
        if self._extremes is None:
            raise TypeError("DaskRows has no array view before validate().")
        return np.asarray(self._extremes, dtype=dtype)

    def column_sums(self) -> npt.NDArray[np.float64]:
        """Float64 column sums (chunk sums added in chunk order; kept from the first pass)."""
        if self._sums is None:
            total = np.zeros(self.shape[1])
            with np.errstate(over="ignore", invalid="ignore"):
                for part in self.partials(column_sum_block):
                    total += part
            self._sums = total
        return self._sums

    def weights(self, sample_weight: Any) -> tuple[Any, bool]:
        """Checked row weights (a dask array with the row chunks of X), and whether all are 1.

        A number or None gives constant weights; the checks of an array run in one pass.
        """
        n = self.shape[0]
        if sample_weight is None or np.isscalar(sample_weight):
            value = 1.0 if sample_weight is None else float(sample_weight)  # type: ignore[arg-type]
            good = bool(np.isfinite(value) and value >= 0)
            with np.errstate(over="ignore"):
                total = np.asarray(value, dtype=self.dtype) * n if good else 0.0
            check_sample_weight_values(good, value > 0, bool(np.isfinite(total)))
            w = da.full(n, value, dtype=self.dtype, chunks=(self.chunks,))
            return w, value == 1.0
        w = sample_weight if isinstance(sample_weight, da.Array) else da.asarray(sample_weight)
        check_sample_weight_form(w, n)
        w = w.astype(self.dtype).rechunk((self.chunks,))
        facts = self._map_delayed(_weight_facts, [w])
        good = all(f[0] for f in facts)
        with np.errstate(over="ignore"):
            total = np.sum([f[3] for f in facts], dtype=self.dtype) if good else 0.0
        check_sample_weight_values(good, any(f[1] for f in facts), bool(np.isfinite(total)))
        return w, all(f[2] for f in facts)

    # ---------------------------------------------------------------- passes
    def _aligned(self, a: Any) -> list[Any]:
        """Per-chunk pieces (delayed) of a row-aligned NumPy or dask array."""
        if isinstance(a, da.Array):
            a = a.rechunk((self.chunks,) + tuple((s,) for s in a.shape[1:]))
            return list(a.to_delayed().ravel())
        a = np.asarray(a)
        return [a[lo:hi] for lo, hi in zip(self.offsets[:-1], self.offsets[1:])]

    def _blocks(self) -> list[Any]:
        return list(self.X.to_delayed().ravel())

    def _compute(self, tasks: list[Any]) -> list[Any]:
        client = _active_client()
        if client is None:
            return list(dask.compute(*tasks))
        return list(client.gather(client.compute(tasks)))

    def _map_delayed(self, fn: Callable[..., Any], arrays: Sequence[Any]) -> list[Any]:
        pieces = [self._aligned(a) for a in arrays]
        f = dask.delayed(fn, pure=False)
        return self._compute([f(*(p[b] for p in pieces)) for b in range(self.n_blocks)])

    def partials(
        self, fn: Callable[..., Any], *args: Any, extra: Any = (), with_offsets: bool = False
    ) -> list[Any]:
        """``[fn(X_b, [(lo, hi)], *extra_b, *args)]`` over the chunks, one graph, in order."""
        xb = self._blocks()
        extras = [self._aligned(e) for e in extra]
        shared = _shared(args)
        f = dask.delayed(fn, pure=False)
        tasks = []
        for b, blk in enumerate(xb):
            head = [(self.offsets[b], self.offsets[b + 1])] if with_offsets else []
            tasks.append(f(blk, *head, *(e[b] for e in extras), *shared))
        return self._compute(tasks)

    def states(
        self,
        fn: Callable[..., tuple[Any, Any]],
        states: Sequence[Any] | None,
        *args: Any,
        extra: Any = (),
        with_offsets: bool = False,
    ) -> tuple[list[Any], list[Any]]:
        """One pass with per-chunk state kept beside the chunk (futures under ``distributed``).

        ``fn(X_b, state_b, [(lo, hi)], *extra_b, *args) -> (new_state_b, partial_b)``;
        only the partials are gathered (one blocking round trip).
        """
        xb = self._blocks()
        extras = [self._aligned(e) for e in extra]
        shared = _shared(args)
        f = dask.delayed(fn, pure=False, nout=2)
        st = [None] * len(xb) if states is None else list(states)
        tasks = []
        for b, (blk, s) in enumerate(zip(xb, st)):
            head = [(self.offsets[b], self.offsets[b + 1])] if with_offsets else []
            tasks.append(f(blk, s, *head, *(e[b] for e in extras), *shared))
        client = _active_client()
        if client is None:
            out = dask.compute(*tasks)
            return [o[0] for o in out], [o[1] for o in out]
        futs = client.compute(tasks)
        parts = client.gather(client.map(operator.itemgetter(1), futs, pure=False))
        new_states = client.map(operator.itemgetter(0), futs, pure=False)
        return list(new_states), list(parts)

    def from_states(
        self, fn: Callable[..., Any], states: Sequence[Any], *args: Any,
        with_offsets: bool = False,
    ) -> list[Any]:
        """``[fn(state_b, [(lo, hi)], *args)]`` from the kept states (one graph, no X)."""
        f = dask.delayed(fn, pure=False)
        shared = _shared(args)
        tasks = []
        for b, s in enumerate(states):
            head = [(self.offsets[b], self.offsets[b + 1])] if with_offsets else []
            tasks.append(f(s, *head, *shared))
        return self._compute(tasks)

    # ----------------------------------------------------------- row outputs
    def split(self, a: Any) -> list[Any]:
        """Per-chunk pieces of a row-aligned array (delayed for a dask array)."""
        return self._aligned(a)

    def gather(self, parts: Sequence[Any], dtype: Any = None, tail: tuple[int, ...] = ()) -> Any:
        """A lazy dask array (X's row chunks) from per-chunk pieces (arrays, delayed or futures)."""
        out = []
        for p, c in zip(parts, self.chunks):
            if isinstance(p, np.ndarray):
                out.append(da.from_array(p, chunks=p.shape))
            else:
                out.append(da.from_delayed(dask.delayed(p), shape=(c, *tail), dtype=dtype))
        if not out:
            return da.zeros((0, *tail), dtype=dtype)
        return da.concatenate(out, axis=0)

    def gather_states(
        self, fn: Callable[..., Any], states: Sequence[Any], *args: Any, dtype: Any = None,
        tail: tuple[int, ...] = (),
    ) -> Any:
        """The lazy row-aligned array of ``fn(state_b, *args)``."""
        f = dask.delayed(fn, pure=False)
        return self.gather([f(s, *args) for s in states], dtype, tail)

    def map_rows(self, fn: Callable[..., Any], *args: Any, dtype: Any = None,
                 tail: tuple[int, ...] = (), extra: Any = (), with_offsets: bool = False) -> Any:
        """The lazy ``fn(X_b, [(lo, hi)], *extra_b, *args)`` of every chunk (a row-wise
        function of X; with ``with_offsets`` the chunk's row range comes first).

        Without ``dtype`` the output's dtype and trailing shape are read from
        ``fn`` of zero rows (no pass), or of the first row when ``fn`` refuses
        empty input (one small pass).
        """
        if dtype is None:
            dtype, tail = self._probe(fn, args, extra, with_offsets)
        xb = self._blocks()
        extras = [self._aligned(e) for e in extra]
        f = dask.delayed(fn, pure=False)
        shared = _shared(args)
        tasks = []
        for b, blk in enumerate(xb):
            head = [(self.offsets[b], self.offsets[b + 1])] if with_offsets else []
            tasks.append(f(blk, *head, *(e[b] for e in extras), *shared))
        return self.gather(tasks, dtype, tail)

    def _probe(self, fn: Callable[..., Any], args: Any, extra: Any,
               with_offsets: bool = False) -> tuple[Any, tuple[int, ...]]:
        d = self.shape[1]
        empty = sp.csr_matrix((0, d), dtype=self.dtype) if self.sparse else np.empty(
            (0, d), dtype=self.dtype
        )
        try:
            heads = [np.asarray(e)[:0] if not isinstance(e, da.Array) else
                     np.empty((0, *e.shape[1:]), dtype=e.dtype) for e in extra]
            lohi = [(0, 0)] if with_offsets else []
            probe = np.asarray(fn(empty, *lohi, *heads, *args))
        except Exception:  # noqa: BLE001 - a function that needs a row: one small pass
            heads = [np.asarray(e[:1]) for e in extra]
            lohi = [(0, 1)] if with_offsets else []
            probe = np.asarray(fn(self.take(np.zeros(1, dtype=np.intp)), *lohi, *heads, *args))
        return probe.dtype, tuple(probe.shape[1:])

    def derive(self, fn: Callable[..., Any], *args: Any, dtype: Any = None) -> DaskRows:
        """The rows of ``fn(X_b, *args)`` chunk by chunk (lazy)."""
        new = DaskRows.__new__(DaskRows)
        new.__dict__.update(self.__dict__)
        new.X = self.X.map_blocks(fn, *args, dtype=dtype or self.dtype)
        new.dtype = new.X.dtype
        new._sums = None
        new._extremes = None
        return new

    def bincount(self, labels: Any, minlength: int) -> npt.NDArray[np.intp]:
        """Cluster sizes of lazy row-aligned labels (one graph)."""
        parts = self._map_delayed(lambda lb: np.bincount(np.asarray(lb), minlength=minlength),
                                  [labels])
        return np.sum(parts, axis=0).astype(np.intp) if parts else np.zeros(minlength, np.intp)

    def flatnonzero(self, mask: Any) -> npt.NDArray[np.intp]:
        """Row numbers where a lazy row-aligned mask is true (one graph; only those travel)."""
        pieces = self._aligned(mask)
        f = dask.delayed(_flatnonzero, pure=False)
        parts = self._compute([
            f(p, (self.offsets[b], self.offsets[b + 1])) for b, p in enumerate(pieces)
        ])
        return np.concatenate(parts).astype(np.intp) if parts else np.zeros(0, np.intp)

    # ---------------------------------------------------------------- rows
    def take(self, idx: Any) -> Any:
        """Rows ``idx`` (sorted, distinct) of X, one pass (CSR for sparse chunks)."""
        idx = np.asarray(idx, dtype=np.intp)
        parts = self.partials(_take, idx, with_offsets=True)
        if self.sparse:
            return sp.vstack(parts, format="csr")
        return np.concatenate(parts, axis=0)

    def indexable(self) -> RowIndexer:
        """``rows[idx]`` for any row numbers, one gather per indexing."""
        return RowIndexer(self)

    def estimator_input(self) -> DaskRows:
        """The backend itself: an estimator's fit runs on it pass by pass."""
        return self

    def start_rows(self, size: int, random_state: Any, weights: Any = None) -> tuple[Any, Any]:
        """A uniform sample of ``min(size, n)`` rows and their weights, one pass.

        All rows, with no draw, when n <= size (the in-memory start then).
        """
        idx = sample_row_indices(self.shape[0], int(size), random_state)
        if weights is None:
            return self.take(idx), None
        parts = self.partials(_take_weighted, idx, extra=(weights,), with_offsets=True)
        rows = (sp.vstack([p[0] for p in parts], format="csr") if self.sparse
                else np.concatenate([p[0] for p in parts], axis=0))
        return rows, np.concatenate([p[1] for p in parts])

    def sample(self, size: int, random_state: Any) -> tuple[Any, npt.NDArray[np.intp]]:
        """``min(size, n)`` rows drawn as in memory (:func:`sample_row_indices`), one pass."""
        idx = sample_row_indices(self.shape[0], int(size), random_state)
        return self.take(idx), idx

    def draw(self, fn: Callable[..., Any], random_state: Any) -> Any:
        """Lazy ``fn(RandomState(seed_b), n_b)`` per chunk, seeds spawned from ``random_state``."""
        seeds = random_state.randint(np.iinfo(np.int32).max, size=self.n_blocks)
        f = dask.delayed(_draw, pure=False)
        probe = fn(np.random.RandomState(0), 1)
        return self.gather(
            [f(int(s), c, fn) for s, c in zip(seeds, self.chunks)],
            probe.dtype, tuple(probe.shape[1:]),
        )


# backend_for(dask array) finds this backend once marginclust.dask is imported
register_backend("dask", DaskRows)

"""Row-block passes over X, split across threads the way scikit-learn's KMeans does.

A pass over X by row blocks makes many small BLAS calls; letting BLAS thread each of
them costs more in synchronisation than it gains (measured: a 2-thread BLAS made a
chunked Lloyd pass 40x slower on a loaded machine). As scikit-learn's KMeans does,
BLAS is held to one thread during the pass and the blocks are shared among
``n_threads`` Python threads instead (NumPy releases the GIL inside its loops and
BLAS calls). Each thread takes a contiguous range of rows and returns its partial
result; partials are combined in a fixed order, so the result is deterministic
for a given thread count.

The passes an estimator may make are declared once, by :class:`RowBlockBackend`:
:class:`RowBlocks` implements them over an in-memory X, :mod:`marginclust.dask`
over the chunks of a dask array (it registers itself with :func:`register_backend`,
so this module never imports it). :func:`backend_for` gives the backend over some
data, :func:`out_of_core` says which side of the two a branch is on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar, TypeVar

from threadpoolctl import threadpool_info, threadpool_limits

__all__ = [
    "BLOCK_ROWS",
    "BlockRunner",
    "RowBlockBackend",
    "RowBlocks",
    "RowIndexer",
    "backend_for",
    "init_sample_size",
    "blas_threads",
    "column_mean",
    "column_sum_block",
    "out_of_core",
    "register_backend",
    "row_slices",
    "sample_row_indices",
]

T = TypeVar("T")

# Below this many rows a pass is one or two blocks: no threads, no BLAS limits.
_MIN_ROWS_FOR_THREADS = 32768


def blas_threads() -> int:
    """Number of threads the loaded BLAS would use now (1 if unknown)."""
    info = threadpool_info()
    counts = [int(i.get("num_threads", 1)) for i in info if i.get("user_api") == "blas"]
    return max(counts) if counts else 1


class BlockRunner:
    """Run ``fn(lo, hi)`` over ``[0, n)`` split into ``n_threads`` contiguous ranges.

    Use as a context manager around the iterations (it holds BLAS to one thread
    and keeps the thread pool alive for the whole solve).

    Parameters
    ----------
    n : int
        Number of rows.
    n_threads : int or None, default=None
        None: as many as the BLAS currently allows (so ``threadpoolctl`` limits
        set by the caller are obeyed); 1 on small data.
    """

    def __init__(self, n: int, n_threads: int | None = None) -> None:
        self.n = n
        if n < _MIN_ROWS_FOR_THREADS:
            self.n_threads = 1
            self._limit = False
        else:
            self.n_threads = max(1, int(n_threads if n_threads is not None else blas_threads()))
            self._limit = True
        bounds = [round(i * n / self.n_threads) for i in range(self.n_threads + 1)]
        self.ranges = [(bounds[i], bounds[i + 1]) for i in range(self.n_threads)]
        self._pool: ThreadPoolExecutor | None = None

    @contextmanager
    def _session(self) -> Iterator[BlockRunner]:
        if not self._limit:
            yield self
            return
        with threadpool_limits(limits=1, user_api="blas"):
            if self.n_threads > 1:
                with ThreadPoolExecutor(max_workers=self.n_threads) as pool:
                    self._pool = pool
                    try:
                        yield self
                    finally:
                        self._pool = None
            else:
                yield self

    def __enter__(self) -> BlockRunner:
        self._cm = self._session()
        return self._cm.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)

    def map(self, fn: Callable[[int, int], T]) -> list[T]:
        """``[fn(lo, hi) for each thread's range]``, in range order."""
        if self._pool is None:
            return [fn(lo, hi) for lo, hi in self.ranges]
        return list(self._pool.map(lambda r: fn(*r), self.ranges))

    def map_indices(self, count: int, fn: Callable[[int], T]) -> list[T]:
        """``[fn(i) for i in range(count)]``, a contiguous range of ``i`` per thread, in order."""
        if self._pool is None or count < 2:
            return [fn(i) for i in range(count)]
        bounds = [round(t * count / self.n_threads) for t in range(self.n_threads + 1)]
        ranges = [(bounds[t], bounds[t + 1]) for t in range(self.n_threads)]
        parts = self._pool.map(lambda r: [fn(i) for i in range(*r)], ranges)
        return [p for part in parts for p in part]


BLOCK_ROWS = 8192  # the row block of the in-memory passes (and of a matching dask chunking)
# Rows from which a labelling or a neighbour query is split among the workers of
# joblib.parallel_config(n_jobs=...): below, dispatching the parts costs more than the
# work (a fit's many small neighbour queries on two workers: 1.6x slower measured)
PARALLEL_ROWS = 2 * BLOCK_ROWS


def query_jobs(n_rows: int) -> int | None:
    """``n_jobs`` of a query of ``n_rows`` rows: joblib's context's (None) from
    :data:`PARALLEL_ROWS` rows, else 1 (this process, whatever the context).

    Examples
    --------
    >>> query_jobs(100), query_jobs(20_000)
    (1, None)
    """
    return None if n_rows >= PARALLEL_ROWS else 1


def row_slices(n: int, block_rows: int = BLOCK_ROWS) -> list[slice]:
    """``[slice(0, b), slice(b, 2b), ...]`` covering ``range(n)``."""
    b = int(block_rows)
    return [slice(s, min(s + b, n)) for s in range(0, n, b)]


def column_sum_block(X_b: Any) -> Any:
    """Float64 column sums of one row block, dense or sparse (the partial of a mean)."""
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(X_b):
        return np.asarray(X_b.sum(axis=0, dtype=np.float64)).ravel()
    return np.sum(X_b, axis=0, dtype=np.float64)


def column_mean(X: Any, block_rows: int = BLOCK_ROWS) -> Any:
    """Float64 column means of dense ``X`` as block sums added in block order.

    The same regrouping as a Dask pass over row chunks of ``block_rows`` rows
    (:func:`column_sum_block` per chunk, added in chunk order), so both give
    the same bits. Returns inf/nan columns where the sums overflow (the
    caller decides).
    """
    import numpy as np

    n = X.shape[0]
    total = np.zeros(X.shape[1], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for sl in row_slices(n, block_rows):
            total += column_sum_block(X[sl])
        return total / n


def sample_row_indices(n: int, size: int, random_state: Any) -> Any:
    """Sorted indices of ``min(size, n)`` distinct rows of ``range(n)``, in O(size) memory.

    One integer is drawn from ``random_state`` to seed a ``numpy.random.Generator``
    whose ``choice(n, size, replace=False, shuffle=False)`` samples without
    building a permutation of ``n`` (the legacy ``RandomState.choice`` does).
    :func:`marginclust.dask._ops.sample_rows` draws the same rows, so a
    sample-based initialisation is shared by the in-memory and the Dask paths.
    """
    import numpy as np

    if size >= n:
        return np.arange(n)
    gen = np.random.default_rng(int(random_state.randint(np.iinfo(np.int32).max)))
    return np.sort(gen.choice(n, size=size, replace=False, shuffle=False)).astype(np.intp)


class RowBlockBackend(ABC):
    """The rows of X seen one block at a time: what an estimator's passes may call.

    The solvers of the methods that can run out of core (fuzzy c-means, kernel
    fuzzy c-means, PKM's Lloyd path, BMMC/CPMMC, EMMC's primal, low-rank SLMC)
    make every pass over X through these methods. :class:`RowBlocks` implements
    them over an in-memory X; :mod:`marginclust.dask` over the chunks of a dask
    array (the same block functions, one graph execution per pass). An
    estimator's restart is written once, against this interface; where the two
    paths differ in their algorithm (all rows in memory, a sample out of core),
    the code asks :func:`out_of_core`.

    Every pass runs in block order and returns its partials in that order, so
    a caller's reduction of them is the same sum on any backend; blocks equal
    to the chunks give the same bits.
    """

    #: Whether every row is in this process (read through :func:`out_of_core`).
    in_memory: ClassVar[bool]
    shape: tuple[int, int]
    dtype: Any
    sparse: bool
    #: Row number where each block starts, then ``n_samples``.
    offsets: Sequence[int]

    @property
    @abstractmethod
    def n_blocks(self) -> int:
        """Number of row blocks."""

    @abstractmethod
    def reblock(self, block_rows: int) -> RowBlockBackend:
        """The same rows in blocks of ``block_rows`` (where the backend chooses its blocks)."""

    @abstractmethod
    def threaded(self) -> AbstractContextManager[Any]:
        """A context inside which the blocks of every pass may be shared among workers."""

    # ------------------------------------------------------------------ passes
    @abstractmethod
    def partials(
        self, fn: Callable[..., Any], *args: Any, extra: Any = (), with_offsets: bool = False
    ) -> list[Any]:
        """``[fn(X_b, [(lo, hi)], *extra_b, *args)]`` over the blocks, in order."""

    @abstractmethod
    def states(
        self,
        fn: Callable[..., tuple[Any, Any]],
        states: Sequence[Any] | None,
        *args: Any,
        extra: Any = (),
        with_offsets: bool = False,
    ) -> tuple[list[Any], list[Any]]:
        """One pass with per-block state: ``fn(X_b, state_b, [(lo, hi)], *extra_b, *args)``
        returns ``(new_state_b, partial_b)``; the new states and the partials, in order."""

    @abstractmethod
    def from_states(
        self, fn: Callable[..., Any], states: Sequence[Any], *args: Any,
        with_offsets: bool = False,
    ) -> list[Any]:
        """``[fn(state_b, [(lo, hi)], *args)]``: partials of the kept states, without X."""

    @abstractmethod
    def column_sums(self) -> Any:
        """Float64 column sums, block sums added in block order (the mean's pass)."""

    # ----------------------------------------------------------- row outputs
    @abstractmethod
    def split(self, a: Any) -> list[Any]:
        """Per-block pieces of a row-aligned array."""

    @abstractmethod
    def gather(self, parts: Sequence[Any], dtype: Any = None, tail: tuple[int, ...] = ()) -> Any:
        """One row-aligned array from per-block pieces (``dtype``/``tail`` describe a piece)."""

    @abstractmethod
    def gather_states(
        self, fn: Callable[..., Any], states: Sequence[Any], *args: Any, dtype: Any = None,
        tail: tuple[int, ...] = (),
    ) -> Any:
        """The row-aligned array of ``fn(state_b, *args)``."""

    @abstractmethod
    def map_rows(self, fn: Callable[..., Any], *args: Any, dtype: Any = None,
                 tail: tuple[int, ...] = (), extra: Any = (), with_offsets: bool = False) -> Any:
        """``fn(X_b, [(lo, hi)], *extra_b, *args)`` of every block, as one row-aligned array."""

    @abstractmethod
    def derive(self, fn: Callable[..., Any], *args: Any, dtype: Any = None) -> RowBlockBackend:
        """The rows of ``fn(X_b, *args)`` (a row-wise map), in the same blocks."""

    @abstractmethod
    def bincount(self, labels: Any, minlength: int) -> Any:
        """Sizes of the clusters of row-aligned ``labels``."""

    @abstractmethod
    def flatnonzero(self, mask: Any) -> Any:
        """Row numbers where a row-aligned boolean array is true."""

    # ---------------------------------------------------------------- rows
    @abstractmethod
    def take(self, idx: Any) -> Any:
        """Rows ``idx`` (sorted, distinct) of X."""

    @abstractmethod
    def indexable(self) -> Any:
        """The rows as ``rows[idx]`` takes them for any row numbers (``shape``, ``dtype``)."""

    @abstractmethod
    def estimator_input(self) -> Any:
        """These rows as an estimator's ``fit`` takes them."""

    @abstractmethod
    def start_rows(self, size: int, random_state: Any, weights: Any = None) -> tuple[Any, Any]:
        """``(rows, their weights)`` a start is drawn from."""

    @abstractmethod
    def sample(self, size: int, random_state: Any) -> tuple[Any, Any]:
        """``(rows, index)``: ``min(size, n)`` distinct rows by :func:`sample_row_indices`."""

    @abstractmethod
    def draw(self, fn: Callable[..., Any], random_state: Any) -> Any:
        """``fn(random_state, n_rows)``: a row-aligned random draw."""

    @abstractmethod
    def weights(self, sample_weight: Any) -> tuple[Any, bool]:
        """Checked row weights in the dtype of X, and whether every weight is 1."""


def _is_lazy_collection(X: Any) -> bool:
    """A dask collection, tested as ``dask.is_dask_collection`` does, without importing dask."""
    if isinstance(X, type) or not hasattr(X, "__dask_graph__"):
        return False
    if type(X).__module__.split(".")[0] == "dask":
        return True
    try:  # other holders of a graph (e.g. an xarray of NumPy data) return None
        return X.__dask_graph__() is not None
    except (AttributeError, TypeError):
        return False


def out_of_core(X: Any) -> bool:
    """Whether the rows of ``X`` are not all in this process.

    True for an out-of-core row-block backend and for a dask collection; False
    for a NumPy array, a sparse matrix, a list, and :class:`RowBlocks`. Dask is
    never imported here.

    Parameters
    ----------
    X : object
        Data or a row-block backend.

    Returns
    -------
    answer : bool

    Examples
    --------
    >>> import numpy as np
    >>> out_of_core(np.zeros((3, 2))), out_of_core(RowBlocks(np.zeros((3, 2))))
    (False, False)
    """
    if isinstance(X, RowBlockBackend):
        return not X.in_memory
    return _is_lazy_collection(X)


# Out-of-core backends by the top-level package of the arrays they take (filled by the
# layers that implement them: utils never imports them).
_LAZY_BACKENDS: dict[str, Callable[[Any], RowBlockBackend]] = {}


def register_backend(package: str, factory: Callable[[Any], RowBlockBackend]) -> None:
    """Make :func:`backend_for` give ``factory(X)`` for the lazy arrays of ``package``.

    Parameters
    ----------
    package : str
        Top-level package of the array type (``"dask"``).
    factory : callable
        ``factory(X)``: the out-of-core backend over ``X``.
    """
    _LAZY_BACKENDS[package] = factory


def backend_for(
    X: Any, block_rows: int | None = None, n_threads: int | None = None
) -> RowBlockBackend:
    """The row-block backend over ``X``.

    A backend is returned as it is (reblocked when ``block_rows`` is given; an
    out-of-core backend keeps its chunks); a lazy array gets the backend its
    package registered (:func:`register_backend`); in-memory data get
    :class:`RowBlocks`.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array, row-block backend}
        Validated data.
    block_rows : int or None, default=None
        Rows per block in memory (None: ``BLOCK_ROWS`` for new blocks, the
        blocks of a given backend).
    n_threads : int or None, default=None
        Threads sharing the blocks of an in-memory pass (see :class:`RowBlocks`).

    Returns
    -------
    rows : RowBlockBackend

    Examples
    --------
    >>> import numpy as np
    >>> backend_for(np.zeros((3, 2))).n_blocks
    1
    """
    if isinstance(X, RowBlockBackend):
        return X if block_rows is None else X.reblock(block_rows)
    if _is_lazy_collection(X):
        factory = _LAZY_BACKENDS.get(type(X).__module__.split(".")[0])
        if factory is None:
            raise TypeError(
                f"No row-block backend is loaded for {type(X).__module__}.{type(X).__name__}; "
                "fit it through marginclust.dask.DaskClusterer."
            )
        return factory(X)
    return RowBlocks(X, BLOCK_ROWS if block_rows is None else block_rows, n_threads)


def _shared_memory_pass(
    runner: BlockRunner | None, n_blocks: int, fn: Callable[[int], T]
) -> list[T]:
    """``[fn(b) for b in range(n_blocks)]``, shared among the runner's threads, in order."""
    if runner is None:
        return [fn(b) for b in range(n_blocks)]
    return runner.map_indices(n_blocks, fn)


class RowBlocks(RowBlockBackend):
    """The rows of an in-memory X cut into blocks of ``block_rows`` rows.

    Every method is one pass over the blocks, in block order; the out-of-core
    backend of :mod:`marginclust.dask` runs the same block functions over the
    chunks of a dask array (bitwise the same numbers when the chunks are these
    blocks and the scheduler is synchronous).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data.
    block_rows : int, default=BLOCK_ROWS
        Rows per block.
    n_threads : int or None, default=None
        Threads sharing the blocks of a pass inside :meth:`threaded` (see
        :class:`BlockRunner`; one thread below 32,768 rows).

    Examples
    --------
    >>> import numpy as np
    >>> rows = RowBlocks(np.arange(10.0).reshape(5, 2), block_rows=2)
    >>> rows.partials(lambda Xb: float(Xb.sum()))
    [6.0, 22.0, 17.0]
    """

    in_memory: ClassVar[bool] = True

    def __init__(self, X: Any, block_rows: int = BLOCK_ROWS, n_threads: int | None = None) -> None:
        import scipy.sparse as sp

        self.X = X
        self.sparse = bool(sp.issparse(X))
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        self.dtype = X.dtype
        self.block_rows = max(1, int(block_rows))
        self.n_threads = n_threads
        self.slices = row_slices(self.shape[0], self.block_rows)
        self.offsets = [0, *(sl.stop for sl in self.slices)]
        self._runner: BlockRunner | None = None

    @property
    def n_blocks(self) -> int:
        """Number of row blocks."""
        return len(self.slices)

    def reblock(self, block_rows: int) -> RowBlocks:
        """The same rows in blocks of ``block_rows`` (an out-of-core backend keeps its chunks)."""
        if int(block_rows) == self.block_rows:
            return self
        return RowBlocks(self.X, block_rows, self.n_threads)

    @contextmanager
    def threaded(self) -> Iterator[RowBlocks]:
        """Share the blocks of every pass made inside among threads (BLAS held to one)."""
        runner = BlockRunner(self.shape[0], self.n_threads)
        with runner:
            self._runner = runner
            try:
                yield self
            finally:
                self._runner = None

    # ------------------------------------------------------------------ passes
    def _extras(self, extra: Any, b: int) -> list[Any]:
        sl = self.slices[b]
        return [e[sl] for e in extra]

    def partials(
        self, fn: Callable[..., T], *args: Any, extra: Any = (), with_offsets: bool = False
    ) -> list[T]:
        """``[fn(X_b, [(lo, hi)], *extra_b, *args)]`` over the blocks, in order.

        ``extra`` are row-aligned arrays whose blocks follow ``X_b``; with
        ``with_offsets`` the block's row range comes first.
        """

        def one(b: int) -> T:
            sl = self.slices[b]
            head = [(sl.start, sl.stop)] if with_offsets else []
            return fn(self.X[sl], *head, *self._extras(extra, b), *args)

        return _shared_memory_pass(self._runner, self.n_blocks, one)

    def states(
        self,
        fn: Callable[..., tuple[Any, Any]],
        states: Sequence[Any] | None,
        *args: Any,
        extra: Any = (),
        with_offsets: bool = False,
    ) -> tuple[list[Any], list[Any]]:
        """One pass with per-block state: ``fn(X_b, state_b, [(lo, hi)], *extra_b, *args)``.

        ``fn`` returns ``(new_state_b, partial_b)``; ``states`` None in the first
        pass. Returns the new states and the partials, in block order.
        """
        st = [None] * self.n_blocks if states is None else list(states)

        def one(b: int) -> tuple[Any, Any]:
            sl = self.slices[b]
            head = [(sl.start, sl.stop)] if with_offsets else []
            return fn(self.X[sl], st[b], *head, *self._extras(extra, b), *args)

        out = _shared_memory_pass(self._runner, self.n_blocks, one)
        return [o[0] for o in out], [o[1] for o in out]

    def from_states(
        self, fn: Callable[..., T], states: Sequence[Any], *args: Any, with_offsets: bool = False
    ) -> list[T]:
        """``[fn(state_b, [(lo, hi)], *args)]``: partials of the kept states, without X."""
        out = []
        for sl, s in zip(self.slices, states):
            head = [(sl.start, sl.stop)] if with_offsets else []
            out.append(fn(s, *head, *args))
        return out

    # ----------------------------------------------------------- row outputs
    def split(self, a: Any) -> list[Any]:
        """Per-block pieces of a row-aligned array."""
        return [a[sl] for sl in self.slices]

    def gather(self, parts: Sequence[Any], dtype: Any = None, tail: tuple[int, ...] = ()) -> Any:
        """One row-aligned array from per-block pieces (``dtype``/``tail`` describe a piece)."""
        import numpy as np

        if not parts:
            return np.zeros((0, *tail), dtype=dtype)
        return np.concatenate([np.asarray(p) for p in parts], axis=0)

    def gather_states(
        self, fn: Callable[..., Any], states: Sequence[Any], *args: Any, dtype: Any = None,
        tail: tuple[int, ...] = (),
    ) -> Any:
        """The row-aligned array of ``fn(state_b, *args)`` (lazy out of core)."""
        return self.gather([fn(s, *args) for s in states], dtype, tail)

    def map_rows(self, fn: Callable[..., Any], *args: Any, dtype: Any = None,
                 tail: tuple[int, ...] = (), extra: Any = (), with_offsets: bool = False) -> Any:
        """``fn(X, [(0, n)], *extra, *args)``: a row-wise function of X (lazy, blockwise,
        out of core; with ``with_offsets`` the rows' range comes first)."""
        head = [(0, self.shape[0])] if with_offsets else []
        return fn(self.X, *head, *extra, *args)

    def derive(self, fn: Callable[..., Any], *args: Any, dtype: Any = None) -> RowBlocks:
        """The rows of ``fn(X, *args)`` (a row-wise map), in the same blocks."""
        return RowBlocks(fn(self.X, *args), self.block_rows, self.n_threads)

    def bincount(self, labels: Any, minlength: int) -> Any:
        """Sizes of the clusters of row-aligned ``labels``."""
        import numpy as np

        return np.bincount(labels, minlength=minlength)

    def flatnonzero(self, mask: Any) -> Any:
        """Row numbers where a row-aligned boolean array is true."""
        import numpy as np

        return np.flatnonzero(mask)

    # ---------------------------------------------------------------- rows
    def take(self, idx: Any) -> Any:
        """Rows ``idx`` (sorted) of X."""
        return self.X[idx]

    def indexable(self) -> Any:
        """X itself (out of core: a :class:`RowIndexer`, one gather per indexing)."""
        return self.X

    def estimator_input(self) -> Any:
        """X itself (out of core: the backend, which a fit runs on pass by pass)."""
        return self.X

    def start_rows(self, size: int, random_state: Any, weights: Any = None) -> tuple[Any, Any]:
        """``(rows, their weights)`` a start is drawn from: all rows in memory.

        (``size`` and the seed are unused.) An out-of-core backend draws a
        uniform sample of ``min(size, n)`` rows instead
        (:func:`sample_row_indices`), so on data of at most ``size`` rows both
        starts are the same.
        """
        return self.X, weights

    def sample(self, size: int, random_state: Any) -> tuple[Any, Any]:
        """``(rows, index)``: ``min(size, n)`` distinct rows by :func:`sample_row_indices`.

        All rows, with no draw, when ``n <= size``; the out-of-core backend draws
        the same rows.
        """
        idx = sample_row_indices(self.shape[0], int(size), random_state)
        return self.X[idx], idx

    def draw(self, fn: Callable[..., Any], random_state: Any) -> Any:
        """``fn(random_state, n_samples)``: a row-aligned random draw (one stream in memory).

        Out of core each block draws ``fn(RandomState(seed_b), n_b)`` from its own
        spawned seed (a stream over all rows cannot be split across blocks).
        """
        return fn(random_state, self.shape[0])

    def weights(self, sample_weight: Any) -> tuple[Any, bool]:
        """Checked row weights in the dtype of X, and whether every weight is 1.

        ``sample_weight`` None or a number gives constant weights.
        """
        import numpy as np

        from ._validation import check_sample_weight

        w = check_sample_weight(sample_weight, self.X)
        return w, bool(np.all(w == 1))

    def column_sums(self) -> Any:
        """Float64 column sums, block sums added in block order (the mean's pass)."""
        import numpy as np

        total = np.zeros(self.shape[1], dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            for part in self.partials(column_sum_block):
                total += part
        return total


class RowIndexer:
    """``rows[idx]`` for any row numbers of a row-block backend (a pass per indexing).

    For code that draws rows by index (the Gaussian ELM nodes): ``shape`` and
    ``__getitem__`` like an array's, each indexing one gather of the distinct
    rows.

    Parameters
    ----------
    rows : row-block backend
    """

    def __init__(self, rows: Any) -> None:
        self.rows = rows
        self.shape = rows.shape
        self.dtype = rows.dtype

    def __getitem__(self, idx: Any) -> Any:
        import numpy as np

        idx = np.asarray(idx, dtype=np.intp)
        uniq = np.unique(idx)
        return self.rows.take(uniq)[np.searchsorted(uniq, idx)]


def init_sample_size(n_clusters: int) -> int:
    """Rows an out-of-core start is drawn from (k-means++ or random seeds).

    ``max(10000, 100 n_clusters)``: k-means++ on the sample costs
    O(sample x n_clusters x n_features) on the client, and the seeds are spread
    over the sample as they would be over X.

    Examples
    --------
    >>> init_sample_size(3)
    10000
    """
    return max(10_000, 100 * n_clusters)

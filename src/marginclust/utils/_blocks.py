"""Row-block passes over X, split across threads the way scikit-learn's KMeans does.

A pass over X by row blocks makes many small BLAS calls; letting BLAS thread each of
them costs more in synchronisation than it gains (measured: a 2-thread BLAS made a
chunked Lloyd pass 40x slower on a loaded machine). As scikit-learn's KMeans does,
BLAS is held to one thread during the pass and the blocks are shared among
``n_threads`` Python threads instead (NumPy releases the GIL inside its loops and
BLAS calls). Each thread takes a contiguous range of rows and returns its partial
result; partials are combined in a fixed order, so the result is deterministic
for a given thread count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from threadpoolctl import threadpool_info, threadpool_limits

__all__ = [
    "BLOCK_ROWS",
    "BlockRunner",
    "blas_threads",
    "column_mean",
    "column_sum_block",
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


BLOCK_ROWS = 8192  # the row block of the in-memory passes (and of a matching dask chunking)


def row_slices(n: int, block_rows: int = BLOCK_ROWS) -> list[slice]:
    """``[slice(0, b), slice(b, 2b), ...]`` covering ``range(n)``."""
    b = int(block_rows)
    return [slice(s, min(s + b, n)) for s in range(0, n, b)]


def column_sum_block(X_b: Any) -> Any:
    """Float64 column sums of one dense row block (the partial of :func:`column_mean`)."""
    import numpy as np

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

"""The dask backend against the in-memory one: every declared operation, the same data.

With chunks equal to the in-memory blocks (synchronous scheduler) every result is
bitwise the in-memory one; with other chunks only the grouping of the float sums
changes, so sums agree within the rounding bound of two groupings of n terms.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp

import dask
from marginclust.dask import DaskRows
from marginclust.utils._blocks import (
    RowBlockBackend,
    RowBlocks,
    backend_for,
    column_sum_block,
    out_of_core,
)

N, D, B = 37, 3, 10  # 4 blocks, the last one short


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture
def X() -> np.ndarray:
    return np.random.RandomState(0).randn(N, D) * 10.0 ** np.arange(D)


def _pair(X, chunks=B):
    return RowBlocks(X, B), DaskRows(da.from_array(X, chunks=(chunks, D)))


def _compute(a):
    return a.compute() if hasattr(a, "compute") else np.asarray(a)


def _sq_and_count(Xb, state):
    """State: (passes seen, rows); partial: the block's sum of squares, its rows, passes."""
    seen = 0 if state is None else state[0]
    return (seen + 1, Xb.shape[0]), (float(np.einsum("ij,ij->", Xb, Xb)), Xb.shape[0], seen)


def _state_rows(state):
    return np.full(state[1], state[0])


def test_the_dask_backend_implements_every_declared_operation(X):
    rows = DaskRows(da.from_array(X, chunks=(B, D)))  # instantiable: nothing is missing
    assert isinstance(rows, RowBlockBackend)
    for name in sorted(RowBlockBackend.__abstractmethods__):
        assert getattr(DaskRows, name) is not getattr(RowBlockBackend, name), name


def test_out_of_core_and_backend_for_on_dask_arrays(X):
    Xd = da.from_array(X, chunks=(B, D))
    assert out_of_core(Xd) and out_of_core(DaskRows(Xd))
    rows = backend_for(Xd)  # the backend marginclust.dask registered
    assert isinstance(rows, DaskRows) and rows.chunks == (10, 10, 10, 7)
    assert backend_for(rows, 4) is rows  # out of core the chunks are the blocks


def test_shape_blocks_and_passes_equal_in_memory(X):
    mem, lazy = _pair(X)
    assert (mem.shape, mem.dtype, mem.sparse, list(mem.offsets), mem.n_blocks) == (
        lazy.shape, lazy.dtype, lazy.sparse, list(lazy.offsets), lazy.n_blocks)
    with mem.threaded(), lazy.threaded():
        sums = [r.partials(column_sum_block) for r in (mem, lazy)]
        assert all(np.array_equal(a, b) for a, b in zip(*sums, strict=True))
        w = np.arange(N, dtype=np.float64)
        both = [r.partials(lambda Xb, lohi, wb, c: (lohi, float(wb @ Xb[:, 0]) * c),
                           2.0, extra=(w,), with_offsets=True) for r in (mem, lazy)]
        assert both[0] == both[1]
        s_mem, p_mem = mem.states(_sq_and_count, None)
        s_lazy, p_lazy = lazy.states(_sq_and_count, None)
        s_mem, p_mem = mem.states(_sq_and_count, s_mem)
        s_lazy, p_lazy = lazy.states(_sq_and_count, s_lazy)
    assert p_mem == p_lazy and [p[2] for p in p_mem] == [1] * mem.n_blocks
    assert mem.from_states(lambda s, c: s[0] * c, s_mem, 3) == lazy.from_states(
        lambda s, c: s[0] * c, s_lazy, 3)
    np.testing.assert_array_equal(
        mem.gather_states(_state_rows, s_mem, dtype=np.int64),
        _compute(lazy.gather_states(_state_rows, s_lazy, dtype=np.int64)))
    assert np.array_equal(mem.column_sums(), lazy.column_sums())


def test_row_outputs_equal_in_memory(X):
    mem, lazy = _pair(X)
    labels = (np.arange(N) * 7) % 3
    pieces = [mem.split(labels), [_compute(p) for p in lazy.split(labels)]]
    assert all(np.array_equal(a, b) for a, b in zip(*pieces))
    np.testing.assert_array_equal(mem.gather(pieces[0]),
                                  _compute(lazy.gather(pieces[0], np.int64)))
    mapped = [_compute(r.map_rows(lambda Xb, c: Xb[:, :2] * c, 2.0)) for r in (mem, lazy)]
    np.testing.assert_array_equal(mapped[0], mapped[1])
    # with its row range, a block's function knows the row numbers of its rows
    numbered = [_compute(r.map_rows(lambda Xb, lohi: np.arange(*lohi), dtype=np.intp,
                                    with_offsets=True)) for r in (mem, lazy)]
    np.testing.assert_array_equal(numbered[0], np.arange(N))
    np.testing.assert_array_equal(numbered[1], np.arange(N))
    probed = lazy.map_rows(lambda Xb, lohi: np.arange(*lohi), with_offsets=True)
    np.testing.assert_array_equal(_compute(probed), np.arange(N))
    derived = [r.derive(np.negative) for r in (mem, lazy)]
    np.testing.assert_array_equal(derived[0].column_sums(), derived[1].column_sums())
    np.testing.assert_array_equal(mem.bincount(labels, 4),
                                  lazy.bincount(da.from_array(labels, chunks=B), 4))
    mask = labels == 1
    np.testing.assert_array_equal(mem.flatnonzero(mask), lazy.flatnonzero(mask))


def test_rows_equal_in_memory(X):
    mem, lazy = _pair(X, chunks=13)  # rows do not depend on the blocks
    idx = np.array([0, 5, 12, 13, 36])
    np.testing.assert_array_equal(mem.take(idx), lazy.take(idx))
    np.testing.assert_array_equal(mem.indexable()[[36, 0, 5, 5]],
                                  lazy.indexable()[[36, 0, 5, 5]])
    assert mem.estimator_input() is X and lazy.estimator_input() is lazy
    a, ia = mem.sample(8, np.random.RandomState(3))
    b, ib = lazy.sample(8, np.random.RandomState(3))
    np.testing.assert_array_equal(ia, ib)
    np.testing.assert_array_equal(a, b)
    w = np.linspace(0.5, 2.0, N)
    # a start: every row in memory, a sample out of core (the same rows when n <= size)
    (ra, wa), (rb, wb) = (r.start_rows(N, np.random.RandomState(0), w) for r in (mem, lazy))
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(wa, wb)
    (wm, unit_m), (wl, unit_l) = mem.weights(w), lazy.weights(w)
    np.testing.assert_array_equal(wm, _compute(wl))
    assert unit_m is unit_l is False
    assert mem.weights(None)[1] and lazy.weights(None)[1]


def test_a_draw_is_row_aligned_on_both(X):
    # one stream in memory, one per chunk out of core: the same shape and dtype, not
    # the same numbers (a stream over all rows cannot be split across chunks)
    mem, lazy = _pair(X)
    a = mem.draw(lambda rs, n: rs.randint(3, size=n), np.random.RandomState(0))
    b = _compute(lazy.draw(lambda rs, n: rs.randint(3, size=n), np.random.RandomState(0)))
    assert a.shape == b.shape == (N,) and a.dtype == b.dtype


def test_sparse_chunks_give_the_in_memory_sums():
    A = sp.random(N, D, density=0.4, format="csr", random_state=0)
    mem = RowBlocks(A, B)
    lazy = DaskRows(da.from_array(A.toarray(), chunks=(B, D)).map_blocks(sp.csr_matrix))
    assert mem.sparse and lazy.sparse
    np.testing.assert_array_equal(mem.column_sums(), lazy.column_sums())
    idx = np.array([1, 20, 30])
    np.testing.assert_array_equal(mem.take(idx).toarray(), lazy.take(idx).toarray())


def test_other_chunks_regroup_the_sums_within_their_rounding(X):
    mem, lazy = _pair(X, chunks=(5, 11, 9, 12))
    got, ref = lazy.column_sums(), mem.column_sums()
    # two groupings of N terms differ by at most 2 (N - 1) u sum|x| (recursive summation)
    bound = 2 * (N - 1) * np.finfo(np.float64).eps / 2 * np.abs(X).sum(axis=0)
    assert np.all(np.abs(got - ref) <= bound)

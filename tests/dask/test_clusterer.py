"""DaskClusterer: validation, refusals, the graph-execution counter, prediction, pickling."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import dask
from marginclust import FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans
from marginclust.dask import DaskClusterer, GraphCounter, supported_estimators
from marginclust.dask._ops import block_partials, sample_rows


def test_refuses_unsupported_estimators_naming_the_supported():
    X = da.ones((20, 2), chunks=(10, 2))
    for est in (KernelFuzzyCMeans(), KernelKMeans()):
        with pytest.raises(TypeError, match="joblib") as info:
            DaskClusterer(est).fit(X)
        assert "FuzzyCMeans" in str(info.value)
        assert type(est).__name__ in str(info.value)


def test_refuses_non_dask_input():
    with pytest.raises(TypeError, match="dask.array.from_array"):
        DaskClusterer(FuzzyCMeans()).fit(np.ones((10, 2)))


def test_in_memory_estimators_say_to_wrap_a_dask_array():
    X = da.ones((20, 2), chunks=(10, 2))
    with pytest.raises(TypeError, match="DaskClusterer"):
        FuzzyCMeans().fit(X)


def test_supported_lists_fcm_and_pkm():
    names = supported_estimators()
    assert "FuzzyCMeans" in names and "PKM" in names


def test_block_partials_one_execution_in_block_order():
    X = da.arange(30.0, chunks=7).reshape(-1, 1).rechunk((7, 1))
    with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
        parts = block_partials(X, lambda b: float(b[0, 0]))
    assert c.count == 1
    assert parts == [0.0, 7.0, 14.0, 21.0, 28.0]


def test_sample_rows_distinct_sorted_and_seeded():
    X = da.from_array(np.arange(200.0).reshape(100, 2), chunks=(13, 2))
    rows, idx = sample_rows(X, 10, np.random.RandomState(0))
    rows2, idx2 = sample_rows(X, 10, np.random.RandomState(0))
    assert np.array_equal(idx, idx2) and len(set(idx.tolist())) == 10
    assert np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(rows, np.arange(200.0).reshape(100, 2)[idx])

"""DaskClusterer: validation, refusals, the graph-execution counter, prediction, pickling."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import dask
from marginclust import BMMC, CPMMC, EMMC, PKM, SLMC, FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans
from marginclust.dask import DaskClusterer, DaskRows, GraphCounter, supported_estimators


def test_refuses_unsupported_estimators_naming_the_supported():
    X = da.ones((20, 2), chunks=(10, 2))
    for est in (KernelFuzzyCMeans(), KernelKMeans()):
        with pytest.raises(TypeError, match="joblib") as info:
            DaskClusterer(est).fit(X)
        assert "FuzzyCMeans" in str(info.value)
        assert type(est).__name__ in str(info.value)


def test_in_memory_data_are_fitted_by_the_estimator_itself():
    X = np.random.RandomState(0).randn(40, 3)
    wrapped = DaskClusterer(FuzzyCMeans(random_state=0)).fit(X)
    own = FuzzyCMeans(random_state=0).fit(X)
    # the same fit in memory: the same operations in the same order
    np.testing.assert_array_equal(wrapped.cluster_centers_, own.cluster_centers_)
    assert isinstance(wrapped.labels_, np.ndarray)
    np.testing.assert_array_equal(wrapped.labels_, own.labels_)
    labels = wrapped.predict(X)
    assert isinstance(labels, np.ndarray) and labels.dtype == np.intp
    np.testing.assert_array_equal(labels, own.predict(X))
    np.testing.assert_array_equal(wrapped.transform(X), own.transform(X))
    # a model fitted in memory still predicts a dask array lazily
    with dask.config.set(scheduler="synchronous"):
        lazy = wrapped.predict(da.from_array(X, chunks=(20, 3)))
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), labels)


def test_transform_and_predict_proba_exist_only_when_the_estimator_has_them():
    assert not hasattr(DaskClusterer(EMMC()), "transform")
    assert not hasattr(DaskClusterer(EMMC()), "predict_proba")
    assert not hasattr(DaskClusterer(EMMC()), "set_output")
    assert DaskClusterer(EMMC()).__sklearn_tags__().transformer_tags is None
    assert hasattr(DaskClusterer(FuzzyCMeans()), "set_output")
    tags = DaskClusterer(FuzzyCMeans()).__sklearn_tags__()
    assert tags.transformer_tags.preserves_dtype == ["float64", "float32"]
    # no random_state of its own: a fit repeats when the estimator's seed is fixed
    assert tags.non_deterministic
    assert not DaskClusterer(FuzzyCMeans(random_state=0)).__sklearn_tags__().non_deterministic


def test_dataframe_columns_are_checked_at_predict():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.random.RandomState(0).randn(40, 3), columns=["a", "b", "c"])
    model = DaskClusterer(FuzzyCMeans(random_state=0)).fit(X)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    with pytest.raises(ValueError, match="same order"):
        model.predict(X[["c", "a", "b"]])
    with pytest.raises(ValueError, match="unseen at fit time"):
        model.predict_proba(X.rename(columns={"a": "z"}))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        with dask.config.set(scheduler="synchronous"):
            model.predict(da.from_array(X.to_numpy(), chunks=(20, 3))).compute()


def test_set_output_pandas_is_refused_on_a_dask_array():
    X = np.random.RandomState(0).randn(40, 3)
    model = DaskClusterer(FuzzyCMeans(random_state=0)).fit(X).set_output(transform="pandas")
    with pytest.raises(ValueError, match="in-memory data"):
        model.transform(da.from_array(X, chunks=(20, 3)))
    assert list(model.transform(X).columns) == ["fuzzycmeans0", "fuzzycmeans1"]


def test_refuses_a_dask_dataframe_or_other_collections():
    with pytest.raises(TypeError, match="dask.array.from_array"):
        DaskClusterer(FuzzyCMeans()).fit(dask.delayed(np.ones)((10, 2)))


def test_in_memory_estimators_say_to_wrap_a_dask_array():
    X = da.ones((20, 2), chunks=(10, 2))
    with pytest.raises(TypeError, match="DaskClusterer"):
        FuzzyCMeans().fit(X)


def test_supported_lists_every_fitter():
    names = supported_estimators()
    for name in ("FuzzyCMeans", "PKM", "EMMC", "SLMC", "BMMC", "CPMMC"):
        assert name in names


_EVERY_FITTER = [
    FuzzyCMeans(n_clusters=2),
    PKM(n_clusters=2),
    EMMC(n_clusters=2, n_hidden=10),
    SLMC(n_clusters=2, n_components=10),
    BMMC(),
    CPMMC(),
]


@pytest.mark.parametrize("est", _EVERY_FITTER, ids=lambda e: type(e).__name__)
def test_every_fitter_says_what_is_wrong_with_empty_or_nan_data(est):
    # the same messages as the in-memory fit, before any pass that would fail inside NumPy
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="0 sample"):
            DaskClusterer(est).fit(da.zeros((0, 3), chunks=(10, 3)))
        X = np.random.RandomState(0).randn(40, 3)
        X[5, 1] = np.nan
        with pytest.raises(ValueError, match="NaN or infinity"):
            DaskClusterer(est).fit(da.from_array(X, chunks=(20, 3)))
        X[5, 1] = np.inf
        with pytest.raises(ValueError, match="NaN or infinity"):
            DaskClusterer(est).fit(da.from_array(X, chunks=(20, 3)))


def test_partials_one_execution_in_block_order():
    X = da.arange(30.0, chunks=7).reshape(-1, 1).rechunk((7, 1))
    with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
        parts = DaskRows(X).partials(lambda b: float(b[0, 0]))
    assert c.count == 1
    assert parts == [0.0, 7.0, 14.0, 21.0, 28.0]


def test_states_stay_beside_their_chunks_and_partials_come_back_in_order():
    X = da.arange(30.0, chunks=7).reshape(-1, 1).rechunk((7, 1))
    rows = DaskRows(X)

    def count(Xb, state):
        seen = 0 if state is None else state
        return seen + 1, (seen, Xb.shape[0])

    with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
        states, parts = rows.states(count, None)
        states, parts = rows.states(count, states)
    assert c.count == 2
    assert parts == [(1, 7), (1, 7), (1, 7), (1, 7), (1, 2)]


def test_sample_rows_distinct_sorted_seeded_and_the_in_memory_draw():
    from marginclust.utils._blocks import RowBlocks

    A = np.arange(200.0).reshape(100, 2)
    rows = DaskRows(da.from_array(A, chunks=(13, 2)))
    sample, idx = rows.sample(10, np.random.RandomState(0))
    sample2, idx2 = rows.sample(10, np.random.RandomState(0))
    assert np.array_equal(idx, idx2) and len(set(idx.tolist())) == 10
    assert np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(sample, A[idx])
    mem, idx_mem = RowBlocks(A).sample(10, np.random.RandomState(0))
    np.testing.assert_array_equal(idx_mem, idx)
    # a start: a sample out of core, every row in memory (the same rows when n <= size)
    np.testing.assert_array_equal(rows.start_rows(1000, np.random.RandomState(0))[0], A)

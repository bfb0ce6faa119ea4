"""FCM and PKM on dask arrays: equal to the in-memory fit, X never gathered, bounded trips.

Tolerances (documented): under the synchronous scheduler with row chunks equal
to the in-memory solver's blocks the fit is bitwise equal; on a LocalCluster
with other (uneven) chunks only the grouping of the per-block sums differs, so
float64 centres and objectives agree to rtol 1e-10 and labels and iteration
counts are equal.
"""

from __future__ import annotations

import pickle

import dask.array as da
import numpy as np
import pytest
from sklearn.base import clone

import dask
from marginclust import PKM, FuzzyCMeans
from marginclust.dask import DaskClusterer, GraphCounter
from marginclust.estimators import _fcm, _pkm
from tests._crosspath import fcm_memberships_rtol

BLOCK = 700  # rows per block of the in-memory solvers in the bitwise tests


def _blobs(n=3000, d=4, dtype=np.float64, seed=0, spread=4.0):
    rng = np.random.RandomState(seed)
    centres = rng.randn(3, d) * spread
    X = centres[rng.randint(3, size=n)] + rng.randn(n, d)
    return (X + 10.0).astype(dtype)


@pytest.fixture
def small_blocks(monkeypatch):
    """In-memory FCM and PKM passes (and frame sums) over blocks of BLOCK rows."""
    monkeypatch.setattr(FuzzyCMeans, "_chunk_rows", lambda self, X: BLOCK)
    monkeypatch.setattr(PKM, "_chunk_rows", lambda self, X: BLOCK)


def _assert_same_fit(ref, model, *, exact=True, rtol=0.0, X=None):
    """The same fit; ``exact``: bitwise, except FCM's memberships_ when ``X`` is given.

    FCM's ``memberships_`` are the final assignment step's ``predict_proba(X_train)``,
    a fresh pass whose temporaries (the centred rows, the distances) the two paths
    allocate apart: a BLAS kernel whose order depends on alignment (measured:
    OPENBLAS_CORETYPE=Prescott, 17 of 60,000 entries 1 ulp of 1 apart) may round
    them differently, so they are compared within the bound of
    :func:`tests._crosspath.fcm_memberships_rtol` (the same centres, each distance
    within its expansion's rounding).
    """
    for name in ("cluster_centers_", "objective_history_"):
        a, b = getattr(ref, name), getattr(model, name)
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=name)
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, err_msg=name)
    assert ref.n_iter_ == model.n_iter_ and ref.converged_ == model.converged_
    assert ref.n_clusters_found_ == model.n_clusters_found_
    labels = model.labels_.compute()
    np.testing.assert_array_equal(ref.labels_, labels)
    U = model.memberships_.compute()
    if exact and X is not None and isinstance(ref, FuzzyCMeans):
        bound = fcm_memberships_rtol(X, ref.cluster_centers_, ref.m_)
        np.testing.assert_allclose(U, ref.memberships_, rtol=bound, atol=0)
    elif exact:
        np.testing.assert_array_equal(ref.memberships_, U)
    else:
        np.testing.assert_allclose(ref.memberships_, U, rtol=1e-7, atol=1e-12)


CASES = [
    pytest.param(lambda: FuzzyCMeans(n_clusters=3, random_state=0), id="fcm"),
    pytest.param(lambda: FuzzyCMeans(n_clusters=3, m=1.7, init="random", n_init=2,
                                     random_state=1), id="fcm-random-2inits"),
    pytest.param(lambda: PKM(n_clusters=3, random_state=0), id="pkm"),
    pytest.param(lambda: PKM(n_clusters=4, n_init=2, random_state=2), id="pkm-2inits"),
]


@pytest.mark.parametrize("make", CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bitwise_equal_to_in_memory_fit_synchronous(make, dtype, small_blocks):
    X = _blobs(dtype=dtype)
    ref = make().fit(X)
    with dask.config.set(scheduler="synchronous"):
        model = DaskClusterer(make()).fit(da.from_array(X, chunks=(BLOCK, -1)))
        _assert_same_fit(ref, model, X=X)
    assert model.cluster_centers_.dtype == ref.cluster_centers_.dtype == dtype


def test_fcm_sample_weight_bitwise(small_blocks):
    X = _blobs()
    w = np.random.RandomState(0).uniform(0.5, 2.0, size=X.shape[0])
    ref = FuzzyCMeans(n_clusters=3, random_state=0).fit(X, sample_weight=w)
    with dask.config.set(scheduler="synchronous"):
        model = DaskClusterer(FuzzyCMeans(n_clusters=3, random_state=0)).fit(
            da.from_array(X, chunks=(BLOCK, -1)), sample_weight=da.from_array(w, chunks=999)
        )
        _assert_same_fit(ref, model, X=X)


def test_default_blocks_bitwise_without_patching():
    # the in-memory FCM default: blocks of about 3 MiB of working set (rows of X and
    # four K x c arrays), equal in size; 3 blocks of 6667 rows for 30 float64 features here
    # (more rows than the init sample: the start is given, as the sample would differ)
    X = _blobs(n=20000, d=30)
    C0 = X[[0, 1, 2]]
    ref = FuzzyCMeans(n_clusters=3, init=C0, tol=1e-3).fit(X)
    rows = FuzzyCMeans(n_clusters=3)._chunk_rows(X)
    assert rows < X.shape[0]
    with dask.config.set(scheduler="synchronous"):
        model = DaskClusterer(FuzzyCMeans(n_clusters=3, init=C0, tol=1e-3)).fit(
            da.from_array(X, chunks=(rows, -1))
        )
        _assert_same_fit(ref, model, X=X)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: FuzzyCMeans(n_clusters=3, tol=1e-3, random_state=0), id="fcm"),
        CASES[2],
    ],
)
def test_local_cluster_uneven_chunks_within_tolerance(make, local_cluster_client):
    # each iteration is a round trip to two worker processes: few iterations keep it quick
    X = _blobs(n=4000)
    ref = make().fit(X)
    Xd = da.from_array(X, chunks=((1111, 389, 2000, 500), (4,)))
    model = DaskClusterer(make()).fit(Xd)
    _assert_same_fit(ref, model, exact=False, rtol=1e-10)
    np.testing.assert_array_equal(model.predict(Xd).compute(), ref.predict(X))


class _NoGather(np.ndarray):
    """A block of X: it and every array computed from it refuse to exceed LIMIT entries.

    LIMIT is the size of one block of X. Operators (ufuncs) and NumPy functions
    on a block return this type again, so anything derived from X (the centred
    frame, distances, products, concatenations of blocks as in ``X.compute()``)
    is checked; only an explicit ``np.asarray`` leaves it (the init sample does,
    on at most its sample rows).
    """

    LIMIT = 0

    def __array_finalize__(self, obj):
        if self.size > _NoGather.LIMIT:
            raise AssertionError(f"X materialised: an array of shape {self.shape}")

    def __array_function__(self, func, types, args, kwargs):
        out = super().__array_function__(func, types, args, kwargs)
        if type(out) is np.ndarray:
            out = out.view(_NoGather)  # checks the size
        return out


def _guarded(X, chunk):
    _NoGather.LIMIT = chunk * X.shape[1]
    return da.from_array(X, chunks=(chunk, -1)).map_blocks(lambda b: b.view(_NoGather))


@pytest.mark.parametrize("make", [CASES[0], CASES[2]])
def test_x_is_never_materialised(make, monkeypatch):
    X = _blobs(n=6000)
    Xg = _guarded(X, 500)
    for module in (_fcm, _pkm):  # a start sample of 300 rows (of 6000)
        monkeypatch.setattr(module, "init_sample_size", lambda k: 300)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(AssertionError, match="materialised"):
            Xg.compute()  # the guard works: gathering X raises
        with pytest.raises(AssertionError, match="materialised"):
            np.asarray(Xg[:1000].compute())
        model = DaskClusterer(make()).fit(Xg)  # the fit never gathers X
        assert model.converged_
        labels = model.labels_.compute()  # small per-row outputs may be gathered
    assert labels.shape == (6000,)


@pytest.mark.parametrize("make", [CASES[0], CASES[2]])
def test_round_trips_n_iter_plus_a_constant(make):
    X = _blobs(n=12000, spread=1.5)  # more rows than the init sample: one trip for it
    with dask.config.set(scheduler="synchronous"), GraphCounter() as counter:
        model = DaskClusterer(make()).fit(da.from_array(X, chunks=(1500, -1)))
    # 1 check of X (finiteness, extremes, column sums), 1 sum of squares of the frame,
    # 1 init sample, n_iter_ + 1 solver passes (the first assigns), FCM: 1 for the
    # restart's cluster sizes; the final assignment's cluster sizes: 1
    c = 6 if isinstance(model.estimator_, FuzzyCMeans) else 5
    assert model.n_iter_ >= 3
    assert counter.count == model.n_iter_ + c


def test_predict_proba_transform_equal_numpy_and_pickle(small_blocks):
    X = _blobs()
    Xn = _blobs(n=500, seed=3)
    with dask.config.set(scheduler="synchronous"):
        for est in (FuzzyCMeans(n_clusters=3, random_state=0), PKM(n_clusters=3, random_state=0)):
            model = DaskClusterer(est).fit(da.from_array(X, chunks=(BLOCK, -1)))
            ref = clone(est).fit(X)
            Xd = da.from_array(Xn, chunks=(123, -1))
            np.testing.assert_array_equal(model.predict(Xd).compute(), ref.predict(Xn))
            np.testing.assert_array_equal(
                model.predict_proba(Xd).compute(), ref.predict_proba(Xn)
            )
            np.testing.assert_array_equal(model.transform(Xd).compute(), ref.transform(Xn))
            again = pickle.loads(pickle.dumps(model))
            np.testing.assert_array_equal(again.cluster_centers_, model.cluster_centers_)
            np.testing.assert_array_equal(again.predict(Xd).compute(), ref.predict(Xn))
            np.testing.assert_array_equal(again.labels_.compute(), ref.labels_)
            np.testing.assert_array_equal(model.estimator_.predict(Xn), ref.predict(Xn))


def test_sklearn_conventions_params_seed_determinism():
    X = da.from_array(_blobs(n=2000), chunks=(500, -1))
    est = FuzzyCMeans(n_clusters=3, random_state=5)
    wrapper = DaskClusterer(est)
    assert wrapper.get_params()["estimator"] is est
    assert clone(wrapper).get_params()["estimator"].get_params() == est.get_params()
    with dask.config.set(scheduler="synchronous"):
        a = DaskClusterer(est).fit(X)
        b = DaskClusterer(est).fit(X)
        c = DaskClusterer(FuzzyCMeans(n_clusters=3, random_state=5)).fit(X)
    assert not hasattr(est, "cluster_centers_")  # the wrapped estimator is cloned
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.cluster_centers_, c.cluster_centers_)
    # random_state reaches the initialisation: the in-memory start of that seed
    ref = FuzzyCMeans(n_clusters=3, random_state=5).fit(X.compute())
    np.testing.assert_allclose(a.cluster_centers_, ref.cluster_centers_, rtol=1e-10)


def test_column_chunks_are_regrouped_and_ints_accepted():
    X = _blobs(n=1000)
    with dask.config.set(scheduler="synchronous"):
        a = DaskClusterer(PKM(n_clusters=3, random_state=0)).fit(
            da.from_array(X, chunks=(250, -1))
        )
        b = DaskClusterer(PKM(n_clusters=3, random_state=0)).fit(
            da.from_array(X, chunks=(250, 2))
        )
        np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
        Xi = da.from_array(np.round(X * 10).astype(np.int64), chunks=(250, -1))
        c = DaskClusterer(PKM(n_clusters=3, random_state=0)).fit(Xi)
    assert c.cluster_centers_.dtype == np.float64


@pytest.mark.parametrize(
    "est, match",
    [
        (FuzzyCMeans(n_clusters=2, init=np.full((40, 2), 0.5)), "memberships"),
        (PKM(n_clusters=2, solver="msagp"), "solver='block'"),
        (PKM(n_clusters=2, init="dirichlet"), "hard start"),
    ],
)
def test_refuses_what_needs_memberships_in_memory(est, match):
    X = da.from_array(_blobs(n=40, d=2), chunks=(20, -1))
    with pytest.raises(ValueError, match=match):
        DaskClusterer(est).fit(X)


def test_bad_data_messages():
    X = _blobs(n=40, d=2)
    X[3, 1] = np.nan
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="NaN"):
            DaskClusterer(FuzzyCMeans()).fit(da.from_array(X, chunks=20))
        with pytest.raises(ValueError, match="identical"):
            DaskClusterer(PKM()).fit(da.ones((40, 2), chunks=(20, 2)))
        with pytest.raises(ValueError, match="2-D"):
            DaskClusterer(PKM()).fit(da.ones(40, chunks=20))


@pytest.mark.parametrize("make", [CASES[0], CASES[2]])
def test_threaded_scheduler_same_fit(make, small_blocks):
    # the partials are reduced in block order whatever runs the blocks: still bitwise
    X = _blobs()
    ref = make().fit(X)
    with dask.config.set(scheduler="threads", num_workers=2):
        model = DaskClusterer(make()).fit(da.from_array(X, chunks=(BLOCK, -1)))
        _assert_same_fit(ref, model, X=X)

"""EMMC and low-rank SLMC on dask arrays: equal to the in-memory fit, bounded round trips.

Bitwise tests: synchronous scheduler, chunks of 8192 rows (the in-memory solvers'
row block), so every partial sum is grouped as in memory. Tolerance tests: the
module's LocalCluster (2 processes) with uneven chunks (only the grouping of
the float sums changes: objectives agree to 1e-9 relative, labels exactly on
these well-separated data).
"""

from __future__ import annotations

import pickle
import warnings

import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from sklearn.base import clone

import dask
from marginclust import EMMC, SLMC
from marginclust.dask import DaskClusterer, GraphCounter
from marginclust.exceptions import ConvergenceWarning
from marginclust.metrics import clustering_accuracy

N = 24576  # 3 blocks of 8192 rows; above the 20,000-row k-means sample
N_SMALL = 6000  # the LocalCluster tests (each pass is a round trip between processes)
UNEVEN = (1000, 2500, 1700, 800)  # sums to N_SMALL


def _blobs(n: int = N, k: int = 2, seed: int = 0) -> np.ndarray:
    rng = np.random.RandomState(seed)
    centres = 4.0 * rng.randn(k, 3)
    X = centres[np.arange(n) % k] + rng.randn(n, 3)
    return X[rng.permutation(n)]


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    return _blobs()


class _NoWholeX(Callback):  # type: ignore[misc]
    """Raise if any task returns an array with X's full shape (X materialised)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        super().__init__()
        self.shape = shape

    def _posttask(self, key, result, dsk, state, worker_id):  # noqa: ANN001, D102
        if isinstance(result, np.ndarray) and result.shape == self.shape:
            raise AssertionError(f"X was materialised by task {key!r}")


def _dask_fit(est, Xd, **ctx):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with dask.config.set(scheduler="synchronous"), GraphCounter() as c, _NoWholeX(Xd.shape):
            dc = DaskClusterer(est).fit(Xd)
    return dc, c.count


def _np_fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)


# ----------------------------------------------------------------------- EMMC
EMMC_CASES = {
    # two clusters, k-means start in the ELM layer on the 20,000-row sample
    "binary": dict(n_hidden=30, random_state=0),
    # three clusters, hard balance: repairs every iteration (selection passes), cycles
    "repair": dict(n_clusters=3, n_hidden=30, balance=0.03, random_state=1, max_iter=8),
    # Gaussian nodes: centres and widths drawn from gathered rows
    "gaussian": dict(n_hidden=20, activation="gaussian", balance=0.01, random_state=0),
}


@pytest.mark.parametrize("case", sorted(EMMC_CASES))
def test_emmc_bitwise_equal_to_in_memory(case):
    kw = EMMC_CASES[case]
    X = _blobs(k=kw.get("n_clusters", 2))
    ref = _np_fit(EMMC(**kw), X)
    dc, count = _dask_fit(EMMC(**kw), da.from_array(X, chunks=(8192, -1)))
    assert dc.n_iter_ == ref.n_iter_ and dc.stop_reason_ == ref.stop_reason_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)
    np.testing.assert_array_equal(dc.init_labels_.compute(), ref.init_labels_)
    np.testing.assert_array_equal(dc.balance_moved_, ref.balance_moved_)
    assert dc.balance_ == ref.balance_ and dc.effective_dof_ == ref.effective_dof_
    # round trips: 3 (the check of X with the column sums; the location's peak, the
    # scale) + 1 (k-means sample) + 1 (Gram) + 1 per iteration + 2 (the final
    # assignment's cluster sizes, balance_moved_) = n_iter_ + 7; +2 gathers for Gaussian
    # nodes; every balance-repair move adds a selection pass and each repair a commit
    # pass (at most 3 per iteration for 3 clusters here)
    c = 7 + (2 if kw.get("activation") == "gaussian" else 0)
    if case == "repair":
        assert count <= dc.n_iter_ * 4 + c + 2
    else:
        assert count <= dc.n_iter_ + c + 2  # + at most 2 repairs (2 clusters: 1 move each)


def test_emmc_binary_round_trips_no_repair(X):
    kw = dict(n_hidden=30, random_state=0, balance=0.5)  # loose balance: never repairs
    dc, count = _dask_fit(EMMC(**kw), da.from_array(X, chunks=(8192, -1)))
    assert count == dc.n_iter_ + 7


def test_emmc_tolerance_on_local_cluster_uneven_chunks(local_cluster_client):
    X = _blobs(N_SMALL)
    kw = EMMC_CASES["binary"]
    ref = _np_fit(EMMC(**kw), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dc = DaskClusterer(EMMC(**kw)).fit(da.from_array(X, chunks=(UNEVEN, -1)))
    assert dc.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(dc.objective_history_, ref.objective_history_, rtol=1e-9)
    np.testing.assert_allclose(dc.coef_, ref.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)


def test_emmc_predict_and_pickle(X):
    kw = EMMC_CASES["binary"]
    ref = _np_fit(EMMC(**kw), X)
    Xd = da.from_array(X, chunks=(8192, -1))
    dc, _ = _dask_fit(EMMC(**kw), Xd)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(dc.predict(Xd).compute(), ref.predict(X))
        back = pickle.loads(pickle.dumps(dc))
        np.testing.assert_array_equal(back.predict(Xd).compute(), ref.predict(X))
        np.testing.assert_array_equal(back.labels_.compute(), ref.labels_)


def test_emmc_refuses_the_dual():
    Xd = da.from_array(_blobs(200), chunks=(100, -1))
    with pytest.raises(ValueError, match="dual"):
        DaskClusterer(EMMC(n_hidden=300)).fit(Xd)


# ----------------------------------------------------------------------- SLMC
def _slmc(**kw):
    # the Dask fitter always takes the exact W-step (one round trip per sweep, where
    # conjugate gradients would need one per iteration): the in-memory reference too
    base = dict(n_components=30, gamma=0.2, random_state=0, max_iter=10, w_step="exact")
    base.update(kw)
    return SLMC(**base)


@pytest.mark.parametrize("init", ["k-means++", "k-means", "array"])
def test_slmc_bitwise_equal_to_in_memory(init):
    X = _blobs(20000)  # <= 20,000 rows: the k-means++ seeding sees every row, as in memory
    U0 = np.random.RandomState(3).dirichlet(np.ones(2), size=X.shape[0])
    kw = dict(init=U0 if init == "array" else init)
    ref = _np_fit(_slmc(**kw), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
            dc = DaskClusterer(_slmc(**kw)).fit(da.from_array(X, chunks=(8192, -1)))
    assert dc.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.feature_map_.components_, ref.feature_map_.components_)
    np.testing.assert_array_equal(dc.mean_, ref.mean_)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)
    np.testing.assert_array_equal(dc.memberships_.compute(), ref.memberships_)
    # round trips: the check of X (with the column sums) + landmarks + first W-step +
    # one per sweep + the final assignment's cluster sizes (+1 start sample, which is
    # every row here)
    assert c.count == dc.n_iter_ + 4 + (0 if init == "array" else 1)


def test_slmc_reseeds_out_of_core_as_in_memory():
    # a kernel too wide for three clusters: the alternation empties clusters and the
    # split re-seed (row-block passes) refills them, on dask as in memory
    X = _blobs(20000, k=3)
    U0 = np.random.RandomState(3).dirichlet(np.ones(3), size=X.shape[0])
    kw = dict(n_clusters=3, init=U0, lam=0.01, gamma=1e-4, max_iter=30)
    ref = _np_fit(_slmc(**kw), X)
    assert ref.n_reseeds_ >= 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with dask.config.set(scheduler="synchronous"):
            dc = DaskClusterer(_slmc(**kw)).fit(da.from_array(X, chunks=(8192, -1)))
    assert dc.n_reseeds_ == ref.n_reseeds_ and dc.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)


def test_slmc_no_materialisation_and_round_trips(X):
    dc, count = _dask_fit(_slmc(init="k-means++"), da.from_array(X, chunks=(8192, -1)))
    assert count == dc.n_iter_ + 5
    assert dc.labels_.shape == (X.shape[0],)


def test_slmc_tolerance_on_local_cluster_uneven_chunks(local_cluster_client):
    X = _blobs(N_SMALL)
    U0 = np.random.RandomState(3).dirichlet(np.ones(2), size=X.shape[0])
    ref = _np_fit(_slmc(init=U0, max_iter=10), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dc = DaskClusterer(_slmc(init=U0, max_iter=10)).fit(da.from_array(X, chunks=(UNEVEN, -1)))
    assert dc.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(dc.objective_history_, ref.objective_history_, rtol=1e-9)
    # coef_ itself is defined up to the signs of the Nystroem eigenvectors (the
    # centring mean differs in the last bit, eigh may flip a column): compare outputs
    np.testing.assert_allclose(
        dc.decision_values_.compute(), ref.decision_values_, rtol=1e-7, atol=1e-9
    )
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)
    np.testing.assert_allclose(dc.memberships_.compute(), ref.memberships_, atol=1e-8)


def test_slmc_predict_pickle_and_default_init(X):
    Xd = da.from_array(X, chunks=(8192, -1))
    ref = _np_fit(_slmc(gamma="scale", init="fcm-sharp"), X)
    dc, _ = _dask_fit(_slmc(gamma="scale", init="fcm-sharp"), Xd)
    # gamma="scale" is a variance by block sums: equal to rounding
    assert dc.gamma_ == pytest.approx(ref.gamma_, rel=1e-12)
    truth = np.asarray(ref.labels_)
    with dask.config.set(scheduler="synchronous"):
        labels = dc.labels_.compute()
        assert clustering_accuracy(truth, labels) > 0.99
        np.testing.assert_array_equal(dc.predict(Xd).compute(), dc.estimator_.predict(X))
        np.testing.assert_allclose(
            dc.memberships_.compute(), dc.estimator_.predict_proba(X), rtol=1e-12
        )
        # SLMC has no centres: the blockwise map takes its width from the cluster count
        np.testing.assert_array_equal(
            dc.predict_proba(Xd).compute(), dc.estimator_.predict_proba(X)
        )
        back = pickle.loads(pickle.dumps(dc))
        np.testing.assert_array_equal(back.predict(Xd).compute(), labels)


def test_slmc_refuses_the_exact_kernel():
    Xd = da.from_array(_blobs(200), chunks=(100, -1))
    with pytest.raises(ValueError, match="n_components"):
        DaskClusterer(SLMC(n_components=None)).fit(Xd)


def test_emmc_streamed_float32_layer_bitwise(monkeypatch):
    # n * L * 8 above the cache limit: the in-memory fit streams H in float32 block
    # by block and updates H^T T from the changed rows; the dask fitter follows it
    monkeypatch.setattr(EMMC, "_max_cache_bytes", 0)
    X = _blobs(N).astype(np.float32)
    kw = dict(n_hidden=30, random_state=0, balance=0.01)
    ref = _np_fit(EMMC(**kw), X)
    dc, _ = _dask_fit(EMMC(**kw), da.from_array(X, chunks=(8192, -1)))
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)


def test_slmc_float32_input_bitwise():
    X = _blobs(N).astype(np.float32)
    kw = dict(init=np.random.RandomState(3).dirichlet(np.ones(2), size=N), max_iter=5)
    ref = _np_fit(_slmc(**kw), X)
    dc, _ = _dask_fit(_slmc(**kw), da.from_array(X, chunks=(8192, -1)))
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    mem = dc.memberships_.compute()
    assert mem.dtype == ref.memberships_.dtype == np.float32
    np.testing.assert_array_equal(mem, ref.memberships_)


@pytest.mark.parametrize(
    "est",
    [
        EMMC(n_hidden=20, init="random", random_state=0),
        SLMC(n_components=20, gamma=0.2, init="random", random_state=0),
    ],
)
def test_random_init_is_drawn_per_block(est):
    # "random" draws per row block from spawned seeds (not the in-memory stream of n
    # draws): a different start, the same clustering of well-separated blobs
    X = _blobs(3000)
    ref = _np_fit(clone(est), X)
    dc, _ = _dask_fit(clone(est), da.from_array(X, chunks=(1000, -1)))
    with dask.config.set(scheduler="synchronous"):
        assert clustering_accuracy(np.asarray(ref.labels_), dc.labels_.compute()) > 0.99


def test_defaults_of_slmc_and_emmc_out_of_core():
    """SLMC's and EMMC's defaults (spectral start, SLMC's gamma="local") out of core: the
    width from the rows the in-memory rule draws (equal to a sum's rounding), the start
    from the same sample with every other row labelled by its nearest sample row; on
    separated blobs (no bifurcation) the in-memory labels."""
    import warnings

    import dask.array as da
    from sklearn.datasets import make_blobs
    from sklearn.metrics import adjusted_rand_score

    import dask
    from marginclust import EMMC, SLMC
    from marginclust.dask import DaskClusterer

    X, y = make_blobs(5000, 4, centers=3, random_state=0)
    Xd = da.from_array(X, chunks=(1024, 4))
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in (SLMC(3, n_components=100, random_state=0),
                    EMMC(3, n_hidden=100, random_state=0)):
            lazy = DaskClusterer(est).fit(Xd)
            mem = type(est)(**est.get_params()).fit(X)
            labels = np.asarray(lazy.labels_.compute() if hasattr(lazy.labels_, "compute")
                                else lazy.labels_)
            assert adjusted_rand_score(labels, mem.labels_) == 1.0
            assert adjusted_rand_score(labels, y) == 1.0
            if hasattr(mem, "gamma_"):
                assert lazy.gamma_ == pytest.approx(mem.gamma_, rel=1e-12)

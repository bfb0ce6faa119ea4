"""BMMC on dask arrays: equal to the in-memory fit, X never gathered, bounded round trips.

Bitwise tests: synchronous scheduler, chunks of 8192 rows (the in-memory row
blocks of :mod:`marginclust.objectives._mmc_blocks`), so every partial is the
same number added in the same order. Tolerance test: the module's LocalCluster
(2 processes) with uneven chunks (only the grouping of the float sums changes).
"""

from __future__ import annotations

import contextlib
import pickle
import warnings
from collections.abc import Iterator

import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp
from dask.callbacks import Callback

import dask
from marginclust import BMMC, CPMMC
from marginclust.dask import DaskClusterer, GraphCounter
from marginclust.exceptions import ConvergenceWarning

from .test_models import N_SMALL, UNEVEN, N, _blobs, _dask_fit, _np_fit


def _init(X: np.ndarray, k: int) -> np.ndarray:
    """Deliberately rough starting labels (so CCCP moves): thresholds on two features."""
    lab = (X[:, 0] > np.median(X[:, 0])).astype(int)
    return lab if k == 2 else lab + (X[:, 1] > np.percentile(X[:, 1], 70))


def _bound(est) -> int:
    """Round trips: 3 per fit (the check of X, mean, scale); per CCCP iteration one plane
    at the warm start and at most one per bundle step, 2 for the binary offset polish,
    1 for the true objective + new labels; 2 per fit for the cluster sizes (the kept
    restart's, the final assignment's)."""
    per_iter = 4 if est.coef_.shape[0] == 1 else 3
    return 5 + int(est.n_inner_iter_.sum()) + per_iter * est.n_iter_


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    return _blobs(N, k=3)


@pytest.mark.parametrize("k", [2, 3])
def test_bmmc_bitwise_equal_to_in_memory(X, k):
    est = BMMC(n_clusters=k, C=10.0, init=_init(X, k), random_state=0)
    ref = _np_fit(est, X)
    dc, count = _dask_fit(est, da.from_array(X, chunks=(8192, -1)))
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.intercept_, ref.intercept_)
    np.testing.assert_array_equal(dc.n_inner_iter_, ref.n_inner_iter_)
    assert dc.n_iter_ == ref.n_iter_ and dc.converged_ == ref.converged_
    assert dc.data_scale_ == ref.data_scale_
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)
    # one pass per bundle plane: many small round trips (the bound is reached when
    # no bundle step stops on the gap before taking its plane)
    assert dc.n_iter_ + 3 < count <= _bound(dc)
    assert count >= 3 + (4 if k == 2 else 3) * dc.n_iter_


@pytest.mark.parametrize("cls", [BMMC, CPMMC])
def test_auto_C_out_of_core_is_the_in_memory_choice(X, cls):
    """C="auto" out of core: one fit per tried C (each bitwise the in-memory one), the
    same 2,000 rows judged (one pass fetches them, one computes their lazy labels), so
    the same scores and the same kept fit; X is never gathered."""
    est = cls(n_clusters=3, init=_init(X, 3), random_state=0)
    ref = _np_fit(est, X)
    dc, _ = _dask_fit(est, da.from_array(X, chunks=(8192, -1)))
    assert dc.C_scores_ == ref.C_scores_ and dc.C_ == ref.C_
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)


def test_bmmc_kmeans_init_on_all_rows_is_the_in_memory_fit():
    """n <= the k-means sample (10,000 rows): the sample is all of X (gathered by
    design of ``sample_rows``, so no materialisation guard here), the start is the
    in-memory one; 2 more round trips (the sample, the labelling pass)."""
    X = _blobs(9000)
    # C=1 (the default of 0.1): the round-trip bound below was written for its bundle steps
    ref = _np_fit(BMMC(C=1.0, random_state=0), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with dask.config.set(scheduler="synchronous"), GraphCounter() as c:
            dc = DaskClusterer(BMMC(C=1.0, random_state=0)).fit(
                da.from_array(X, chunks=(8192, -1)))
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    assert c.count <= _bound(dc) + 2


def test_bmmc_kmeans_init_on_a_sample(X):
    """n > the sample: k-means on 10,000 sampled rows, X never gathered, 2 more round trips."""
    dc, count = _dask_fit(
        BMMC(n_clusters=3, C=10.0, random_state=0), da.from_array(X, chunks=(8192, -1))
    )
    assert count <= _bound(dc) + 2
    assert dc.n_clusters_found_ == 3


def test_bmmc_tolerance_on_local_cluster_uneven_chunks(local_cluster_client):
    X = _blobs(N_SMALL)
    # The bundle method stops at a relative gap inner_tol; regrouped float sums give
    # a different bundle path (its QP picks among nearly degenerate vertices) which
    # may stop anywhere within that gap (measured at the default inner_tol=1e-3:
    # objectives 8e-5 apart). With the same labels, both fits are within
    # inner_tol * J of the same subproblem's optimum, so the objectives agree to
    # 2 inner_tol (relative), and by the strong convexity of ||W||^2 / 2 each W is
    # within sqrt(2 inner_tol J) of the optimal W (standardised units).
    tol = 1e-7
    est = BMMC(init=_init(X, 2), inner_tol=tol, random_state=0)
    ref = _np_fit(est, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dc = DaskClusterer(est).fit(da.from_array(X, chunks=(UNEVEN, -1)))
    assert dc.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(dc.objective_, ref.objective_, rtol=2 * tol)
    w_tol = 2 * np.sqrt(2 * tol * ref.objective_) / ref.data_scale_
    np.testing.assert_allclose(dc.coef_, ref.coef_, rtol=0, atol=w_tol)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)


def test_bmmc_predict_and_pickle():
    X = _blobs(10000)
    est = BMMC(init=_init(X, 2), random_state=0)
    ref = _np_fit(est, X)
    Xd = da.from_array(X, chunks=(4000, -1))
    dc, _ = _dask_fit(est, Xd)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(dc.predict(Xd).compute(), ref.predict(X))
        back = pickle.loads(pickle.dumps(dc))
        np.testing.assert_array_equal(back.predict(Xd).compute(), ref.predict(X))
        np.testing.assert_array_equal(back.labels_.compute(), back.predict(Xd).compute())


def test_bmmc_refusals():
    Xd = da.from_array(_blobs(200), chunks=(100, -1))
    with pytest.raises(ValueError, match="must_link"):
        DaskClusterer(BMMC()).fit(Xd, must_link=[[0, 1]])
    with pytest.raises(ValueError, match="pca"):
        DaskClusterer(BMMC(init="pca")).fit(Xd)
    with pytest.raises(ValueError, match="max-margin"):
        DaskClusterer(BMMC(init="max-margin")).fit(Xd)


def test_cpmmc_multiclass_bitwise_equal_and_round_trips(X):
    """CCCP + 1-slack cutting plane: one plane pass per generated constraint, one
    pass per CCCP iteration for the objective and the new labels."""
    est = CPMMC(n_clusters=3, C=10.0, init=_init(X, 3), random_state=0)
    ref = _np_fit(est, X)
    dc, count = _dask_fit(est, da.from_array(X, chunks=(8192, -1)))
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.n_inner_iter_, ref.n_inner_iter_)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)
    assert count <= 5 + int(dc.n_inner_iter_.sum()) + 2 * dc.n_iter_


class _NoWholeMatrix(Callback):  # type: ignore[misc]
    """Raise if any task returns a dense or sparse matrix with X's full shape."""

    def __init__(self, shape: tuple[int, int]) -> None:
        super().__init__()
        self.shape = shape

    def _posttask(self, key, result, dsk, state, worker_id):  # noqa: ANN001, D102
        if (isinstance(result, np.ndarray) or sp.issparse(result)) and result.shape == self.shape:
            raise AssertionError(f"X was materialised by task {key!r}")


@contextlib.contextmanager
def _watched(shape: tuple[int, int]) -> Iterator[GraphCounter]:
    """Synchronous scheduler, round trips counted, no task returning X whole."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with dask.config.set(scheduler="synchronous"), GraphCounter() as c, _NoWholeMatrix(shape):
            yield c


@pytest.mark.parametrize("k", [2, 3])
def test_bmmc_csr_chunks_bitwise_equal_to_in_memory_sparse_fit(X, k):
    """CSR row chunks: the same block functions (sparse products), bitwise equal to
    BMMC.fit on the CSR matrix; X never gathered."""
    Xz = np.where(np.abs(X) < 1.0, 0.0, X)
    est = BMMC(n_clusters=k, C=10.0, init=_init(Xz, k), random_state=0)
    ref = _np_fit(est, sp.csr_matrix(Xz))
    Xd = da.from_array(Xz, chunks=(8192, -1)).map_blocks(sp.csr_matrix)
    with _watched(Xd.shape) as c:
        dc = DaskClusterer(est).fit(Xd)
        labels = dc.labels_.compute()
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(labels, ref.labels_)
    assert c.count <= _bound(dc) + 1  # + the lazy labels' graph


def test_cpmmc_binary_bitwise_equal_and_round_trips(X):
    """Binary CPMMC: the working set of constraint indicators stays beside the chunks
    (block states); one pass per QP plus the first, bitwise equal to CPMMC.fit, X never
    gathered. Round trips: 3 (extremes, mean, scale) + 1 (first pass) + one per QP
    (sum(n_cccp_iter_)) + 1 (cluster sizes of the fitted labels)."""
    est = CPMMC(n_clusters=2, C=10.0, init=_init(X, 2), random_state=0)
    ref = _np_fit(est, X)
    Xd = da.from_array(X, chunks=(8192, -1))
    with _watched(Xd.shape) as c:
        dc = DaskClusterer(est).fit(Xd)
        count = c.count
        labels = dc.labels_.compute()
        pred = dc.predict(Xd).compute()
    assert dc.objective_ == ref.objective_
    np.testing.assert_array_equal(dc.objective_history_, ref.objective_history_)
    np.testing.assert_array_equal(dc.coef_, ref.coef_)
    np.testing.assert_array_equal(dc.intercept_, ref.intercept_)
    np.testing.assert_array_equal(dc.n_cccp_iter_, ref.n_cccp_iter_)
    assert dc.n_iter_ == ref.n_iter_ and dc.converged_ == ref.converged_
    assert dc.n_constraints_ == ref.n_constraints_
    np.testing.assert_array_equal(labels, ref.labels_)
    np.testing.assert_array_equal(pred, ref.predict(X))
    # the check of X, mean, scale; 1 + one per QP; the kept restart's sizes; the final
    # assignment's sizes
    assert count == 3 + 1 + int(dc.n_cccp_iter_.sum()) + 1 + 1


def test_cpmmc_binary_tolerance_on_local_cluster_uneven_chunks(local_cluster_client):
    """Binary CPMMC on 2 worker processes, uneven chunks: the working sets stay on the
    workers (futures). Only the grouping of the float sums changes, so as long as the
    discrete path (signs, working sets, CCCP stops) is the same, every QP is the same
    strictly convex problem (1/2 ||w||^2) with data perturbed by rounding: the iterates
    agree to rounding amplified by the QP's conditioning. The planes' slopes in t are
    exact integer sums (so exactly balanced signs give slope 0 on every grouping, not a
    rounding error whose sign would pick an end of the balance box); the start is the
    exactly balanced median split to exercise that. Measured: objectives and W agree
    to ~1e-15; asserted at 1e-8 (relative; W in standardised units)."""
    X = _blobs(N_SMALL)
    init = _init(X, 2)
    est = CPMMC(n_clusters=2, C=10.0, init=init, random_state=0)
    ref = _np_fit(est, X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dc = DaskClusterer(est).fit(da.from_array(X, chunks=(UNEVEN, -1)))
    np.testing.assert_array_equal(dc.n_cccp_iter_, ref.n_cccp_iter_)
    assert dc.n_constraints_ == ref.n_constraints_
    np.testing.assert_allclose(dc.objective_history_, ref.objective_history_, rtol=1e-8)
    np.testing.assert_allclose(dc.coef_, ref.coef_, rtol=0, atol=1e-8 / ref.data_scale_)
    np.testing.assert_array_equal(dc.labels_.compute(), ref.labels_)

"""MaxMarginClustering on dask arrays: the in-memory fit of a sample drawn across chunks.

Out of core the search runs on ``max(max_samples, max_vote_samples)`` rows drawn by
``sample_row_indices`` (the draw does not depend on the chunks) and fetched in
one pass, through the estimator's own in-memory ``fit``. So the comparisons
below are bitwise: the reference is that in-memory fit on exactly those rows
(copied, not computed), and every other row's label is the margin classifier's
``predict``, which labels each row on its own whatever the block it comes in.
"""

from __future__ import annotations

import dataclasses
import warnings

import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons

import dask
from marginclust import MaxMarginClustering
from marginclust.dask import DaskClusterer, GraphCounter, supported_estimators
from marginclust.exceptions import ConvergenceWarning
from marginclust.utils._blocks import sample_row_indices

from .test_fcm_pkm import _guarded

UNEVEN = (700, 1300, 450, 550)  # sums to 3000


@pytest.fixture(scope="module")
def blobs() -> np.ndarray:
    # overlapping blobs: on the 300-row sample below the classifier moves some rows
    return make_blobs(3000, centers=3, cluster_std=2.0, random_state=0)[0]


@pytest.fixture(scope="module")
def moons() -> np.ndarray:
    return make_moons(3000, noise=0.08, random_state=0)[0]


def _sample(n: int, est: MaxMarginClustering) -> np.ndarray:
    """The rows the out-of-core fit draws (the estimator's int seed, its sample sizes)."""
    size = max(est.max_samples, est.max_vote_samples)
    return sample_row_indices(n, size, np.random.RandomState(est.random_state))


def _quiet(fit, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit(*args, **kwargs)


def _dask_fit(est, Xd, **fit_params):
    with dask.config.set(scheduler="synchronous"):
        return _quiet(DaskClusterer(est).fit, Xd, **fit_params)


def _compute(a):
    with dask.config.set(scheduler="synchronous"):
        return a.compute()


def _assert_is_the_sample_fit(model, ref, X, idx):
    """``model`` (out of core) is ``ref`` (in memory on ``X[idx]``), mapped back to X."""
    np.testing.assert_array_equal(model.sample_indices_, idx[ref.sample_indices_])
    np.testing.assert_array_equal(model.classifier_moved_, idx[ref.classifier_moved_])
    for name in ("best_candidate_", "n_clusters_", "n_clusters_found_", "gamma_"):
        assert getattr(model, name) == getattr(ref, name)
    for name in ("score_", "separation_", "null_score_"):
        np.testing.assert_array_equal(getattr(model, name), getattr(ref, name))
    # every number of the judged candidates and of the K table (NaN where undefined)
    untimed = [[dataclasses.astuple(dataclasses.replace(c, seconds=0.0)) for c in m.candidates_]
               for m in (model, ref)]
    np.testing.assert_equal(untimed[0], untimed[1])
    np.testing.assert_equal([tuple(r) for r in model.k_scores_], [tuple(r) for r in ref.k_scores_])
    labels = _compute(model.labels_)
    assert isinstance(model.labels_, da.Array) and labels.dtype == np.intp
    np.testing.assert_array_equal(labels[idx], ref.labels_)
    predicted = ref.predict(X)
    others = np.setdiff1d(np.arange(X.shape[0]), idx)
    np.testing.assert_array_equal(labels[others], predicted[others])
    return labels, predicted


def test_the_fit_is_the_in_memory_fit_of_the_sample(blobs):
    est = MaxMarginClustering(n_clusters=3, max_samples=300, max_vote_samples=600,
                              C=1.0, random_state=0)
    idx = _sample(blobs.shape[0], est)
    ref = _quiet(est.fit, blobs[idx])
    assert ref.classifier_moved_.size > 0  # sampled rows the classifier labels otherwise
    Xd = da.from_array(blobs, chunks=(UNEVEN, -1))
    model = _dask_fit(est, Xd)
    assert model.sample_indices_.size == 300
    labels, predicted = _assert_is_the_sample_fit(model, ref, blobs, idx)
    # the candidate's labels are kept on the sampled rows, where predict may differ
    moved = model.classifier_moved_
    np.testing.assert_array_equal(np.flatnonzero(labels != predicted), moved)
    np.testing.assert_array_equal(_compute(model.predict(Xd)), predicted)


def test_auto_k_and_predict_proba_on_dask_arrays(moons):
    est = MaxMarginClustering(n_clusters="auto", max_clusters=4, max_samples=400,
                              max_vote_samples=800, probability=True, random_state=1)
    idx = _sample(moons.shape[0], est)
    ref = _quiet(est.fit, moons[idx])
    Xd = da.from_array(moons, chunks=(UNEVEN, -1))
    model = _dask_fit(est, Xd)
    _assert_is_the_sample_fit(model, ref, moons, idx)
    assert model.n_clusters_ == 2
    P = model.predict_proba(Xd)
    assert isinstance(P, da.Array) and P.shape == (moons.shape[0], 2)
    np.testing.assert_array_equal(_compute(P), ref.predict_proba(moons))


def test_no_more_rows_than_max_samples_is_the_in_memory_fit_of_x(moons):
    X = moons[:900]
    est = MaxMarginClustering(max_samples=1000, random_state=0)
    ref = _quiet(est.fit, X)
    model = _dask_fit(est, da.from_array(X, chunks=(250, -1)))
    _assert_is_the_sample_fit(model, ref, X, np.arange(X.shape[0]))
    np.testing.assert_array_equal(_compute(model.labels_), ref.labels_)


def test_weights_and_pairs_are_carried_to_the_sample(blobs):
    est = MaxMarginClustering(n_clusters=3, max_samples=300, max_vote_samples=600,
                              random_state=0)
    n = blobs.shape[0]
    w = np.random.RandomState(0).uniform(0.5, 2.0, n)
    must, cannot = np.array([[1, 2], [2, 5]]), np.array([[1, 2999]])
    idx = np.union1d(_sample(n, est), [1, 2, 5, 2999])
    ref = _quiet(est.fit, blobs[idx], sample_weight=w[idx],
                 must_link=np.searchsorted(idx, must), cannot_link=np.searchsorted(idx, cannot))
    model = _dask_fit(est, da.from_array(blobs, chunks=(UNEVEN, -1)),
                      sample_weight=da.from_array(w, chunks=1000), must_link=must,
                      cannot_link=cannot)
    labels, _ = _assert_is_the_sample_fit(model, ref, blobs, idx)
    assert labels[1] == labels[2] == labels[5] != labels[2999]


def test_csr_chunks_are_the_dense_fit(moons):
    est = MaxMarginClustering(max_samples=300, max_vote_samples=600,
                              random_state=0)
    dense = _dask_fit(est, da.from_array(moons, chunks=(UNEVEN, -1)))
    Xs = da.from_array(moons, chunks=(UNEVEN, -1)).map_blocks(sp.csr_matrix)
    model = _dask_fit(est, Xs)
    np.testing.assert_array_equal(model.sample_indices_, dense.sample_indices_)
    np.testing.assert_array_equal(_compute(model.labels_), _compute(dense.labels_))
    np.testing.assert_array_equal(_compute(model.predict(Xs)),
                                  _compute(dense.predict(da.from_array(moons, chunks=500))))


def test_the_chunks_do_not_change_the_fit_and_a_seed_repeats_it(blobs):
    est = MaxMarginClustering(n_clusters=3, max_samples=300, max_vote_samples=600,
                              C=1.0, random_state=0)
    fits = [_dask_fit(est, da.from_array(blobs, chunks=(c, -1))) for c in (UNEVEN, 1000, 3000)]
    fits.append(_dask_fit(est, da.from_array(blobs, chunks=(UNEVEN, -1))))
    first = _compute(fits[0].labels_)
    for model in fits[1:]:
        np.testing.assert_array_equal(model.sample_indices_, fits[0].sample_indices_)
        np.testing.assert_array_equal(_compute(model.labels_), first)
    other = _dask_fit(MaxMarginClustering(n_clusters=3, max_samples=300,
                                          max_vote_samples=600, C=1.0, random_state=1),
                      da.from_array(blobs, chunks=1000))
    assert not np.array_equal(other.sample_indices_, fits[0].sample_indices_)


def test_two_passes_over_x_and_x_never_gathered(moons):
    Xg = _guarded(moons, 500)
    est = MaxMarginClustering(max_samples=300, max_vote_samples=600,
                              random_state=0)
    with dask.config.set(scheduler="synchronous"), GraphCounter() as counter:
        model = DaskClusterer(est).fit(Xg)
    assert counter.count == 2  # the check of X, the sample's rows
    with dask.config.set(scheduler="synchronous"), GraphCounter() as counter:
        labels = model.labels_.compute()
    assert counter.count == 1 and labels.shape == (moons.shape[0],)


def test_listed_as_supported():
    assert "MaxMarginClustering" in supported_estimators()


def test_bad_input_is_refused_with_the_in_memory_messages(moons):
    Xd = da.from_array(moons, chunks=(1000, -1))
    with pytest.raises(TypeError, match="DaskClusterer"):
        MaxMarginClustering().fit(Xd)  # a dask array is fitted through the wrapper
    bad = moons.copy()
    bad[2500, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        _dask_fit(MaxMarginClustering(), da.from_array(bad, chunks=(1000, -1)))
    with pytest.raises(ValueError, match="must_link"):  # the row numbers of X, not the sample's
        _dask_fit(MaxMarginClustering(max_samples=100), Xd, must_link=[[0, 3000]])
    with pytest.raises(ValueError, match="sample_weight"):
        _dask_fit(MaxMarginClustering(), Xd, sample_weight=da.ones(10, chunks=5))
    huge = da.full(len(moons), 2.0 ** 1020, chunks=1000)  # each finite, the sum not
    with pytest.raises(ValueError, match="sample_weight sums past"):
        _dask_fit(MaxMarginClustering(), Xd, sample_weight=huge)
    with pytest.raises(ValueError, match="sample_weight sums past"):
        _dask_fit(MaxMarginClustering(), Xd, sample_weight=2.0 ** 1020)
    with pytest.raises(ValueError, match="max_samples"):
        _dask_fit(MaxMarginClustering(max_samples=5), Xd)
    model = _dask_fit(MaxMarginClustering(max_samples=100, random_state=0), Xd)
    with pytest.raises(ValueError, match="3 features"):
        model.predict(da.ones((10, 3), chunks=5))


def test_distributed_workers_label_as_the_sample_fit(blobs, local_cluster_client):
    est = MaxMarginClustering(n_clusters=3, max_samples=300, max_vote_samples=600,
                              C=1.0, random_state=0)
    idx = _sample(blobs.shape[0], est)
    ref = _quiet(est.fit, blobs[idx])
    Xd = da.from_array(blobs, chunks=(UNEVEN, -1))
    model = _quiet(DaskClusterer(est).fit, Xd)
    labels = model.labels_.compute()
    np.testing.assert_array_equal(labels[idx], ref.labels_)
    np.testing.assert_array_equal(model.predict(Xd).compute(), ref.predict(blobs))

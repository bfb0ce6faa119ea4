"""Restarts through joblib: ``with joblib.parallel_config(n_jobs=2): est.fit(X)``.

The seeds are drawn before any restart runs, so a parallel fit is bitwise the
sequential one (same restarts, same best-restart choice), with the threading and
the process (loky) backends; warnings raised in worker processes reach the caller.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import replace

import joblib
import numpy as np
import pytest

from marginclust import BMMC, KernelKMeans
from marginclust.base import BaseClusterer
from marginclust.exceptions import EmptyClusterError
from marginclust.solvers import SolverResult

rng = np.random.RandomState(0)
X = rng.rand(120, 3)  # no cluster structure: restarts end in different local optima


def _fitted(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _assert_same_fit(a, b):
    fa, fb = _fitted(a), _fitted(b)
    assert fa.keys() == fb.keys()
    for k in fa:
        va, vb = fa[k], fb[k]
        if isinstance(va, np.ndarray):
            assert np.array_equal(va, vb), k
        elif isinstance(va, float | int | bool | str | np.number):
            assert va == vb, k


@pytest.mark.parametrize("backend", ["threading", "loky"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelKMeans(n_clusters=3, init="random", n_init=4, random_state=0),
        # BMMC's objective keeps per-restart caches: each restart works on its own copy
        lambda: BMMC(n_init=4, init="k-means", random_state=1),
    ],
    ids=["KernelKMeans", "BMMC"],
)
def test_parallel_restarts_equal_sequential(make, backend):
    seq = make().fit(X)
    with joblib.parallel_config(backend=backend, n_jobs=2):
        par = make().fit(X)
    _assert_same_fit(seq, par)
    # the restarts differ, so the choice among them was exercised
    objs = {make().set_params(n_init=1, random_state=s).fit(X).objective_ for s in range(4)}
    assert len(objs) > 1


class _Warner(BaseClusterer):
    """Restart ``i`` (by its seed's parity) warns, or fails with an empty cluster."""

    def __init__(self, n_clusters=2, *, n_init=4, random_state=0):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.random_state = random_state

    def _fit_one(self, X, random_state):
        u = random_state.rand()
        if u < 0.25:
            raise EmptyClusterError("scripted")
        warnings.warn(f"restart warning {u:.6f}", UserWarning, stacklevel=2)
        labels = np.arange(X.shape[0]) % 2
        return SolverResult(
            x={"labels_": labels}, objective=u, objective_history=[u], n_iter=1, converged=True
        )

    def _predict(self, X):  # the rule of its labels (the base's final assignment step)
        return np.arange(X.shape[0]) % 2


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_worker_warnings_and_failed_restarts_reach_the_caller(backend):
    with pytest.warns(UserWarning, match="restart warning") as seq_rec:
        seq = _Warner(n_init=6).fit(X)
    with joblib.parallel_config(backend=backend, n_jobs=2):
        with pytest.warns(UserWarning, match="restart warning") as par_rec:
            par = _Warner(n_init=6).fit(X)
    assert sorted(str(w.message) for w in seq_rec) == sorted(str(w.message) for w in par_rec)
    assert par.objective_ == seq.objective_


_THREADS: list[int] = []


class _Where(_Warner):
    """Records the thread each restart runs in (a list shared in this process)."""

    def _fit_one(self, X, random_state):
        _THREADS.append(threading.get_ident())
        return SolverResult(
            x={"labels_": np.arange(X.shape[0]) % 2}, objective=random_state.rand(),
            objective_history=[0.0], n_iter=1, converged=True,
        )


def test_without_parallel_config_restarts_run_in_the_calling_thread():
    _THREADS.clear()
    _Where(n_init=3).fit(X)
    assert _THREADS == [threading.get_ident()] * 3
    _THREADS.clear()
    with joblib.parallel_config(backend="threading", n_jobs=1):
        _Where(n_init=3).fit(X)
    assert _THREADS == [threading.get_ident()] * 3


def test_max_margin_fits_its_candidates_on_the_workers():
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs

    from marginclust import MaxMarginClustering

    threads = []

    class WhereFitted(KMeans):
        def fit_predict(self, X, y=None, sample_weight=None):
            threads.append(threading.get_ident())
            return super().fit_predict(X, sample_weight=sample_weight)

    Xb, _ = make_blobs(300, centers=[[0, 0], [10, 0], [0, 10]], random_state=0)
    pool = [WhereFitted(n_init=2), WhereFitted(n_init=3)]
    MaxMarginClustering(3, candidates=pool, random_state=0).fit(Xb)
    assert set(threads) == {threading.get_ident()}  # no parallel_config: this thread
    threads.clear()
    with joblib.parallel_config(backend="threading", n_jobs=2):
        MaxMarginClustering(3, candidates=pool, random_state=0).fit(Xb)
    assert len(threads) == 2 and threading.get_ident() not in threads


def test_the_margin_classifier_labels_contiguous_parts_on_the_workers(monkeypatch):
    from sklearn.svm import SVC

    from marginclust.starts import _vote

    Z = np.random.RandomState(0).randn(3 * 8192, 2)
    clf = SVC(C=10.0, gamma=1.0).fit(Z[:300], (Z[:300, 0] > 0).astype(int))
    calls = []
    serial = _vote._classify

    def spy(classifier, part):
        calls.append((threading.get_ident(), part.shape[0]))
        return serial(classifier, part)

    monkeypatch.setattr(_vote, "_classify", spy)
    alone = _vote.classify(clf, Z)
    with joblib.parallel_config(backend="threading", n_jobs=2):
        np.testing.assert_array_equal(_vote.classify(clf, Z), alone)
    assert calls[0] == (threading.get_ident(), 3 * 8192)
    assert sorted(n for _, n in calls[1:]) == [12288, 12288]
    assert threading.get_ident() not in {t for t, _ in calls[1:]}


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_max_margin_candidates_and_labels_on_workers_equal_sequential(backend):
    """MaxMarginClustering fits its candidates, and labels rows past 2 x 8192, on the
    workers of joblib.parallel_config: each fit has its own seed and each row's label
    is its own, so the fit is the sequential one (a failing candidate included)."""
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_moons

    from marginclust import MaxMarginClustering

    Xm, _ = make_moons(20_000, noise=0.06, random_state=0)

    def make():  # KMeans(n_init=0) fails: its failure is reported in pool order
        return MaxMarginClustering(candidates=["genie", KMeans(n_init=0), "gmm", "k-means"],
                                   random_state=0)

    with pytest.warns(UserWarning, match="Candidate KMeans failed"):
        seq = make().fit(Xm)
    with joblib.parallel_config(backend=backend, n_jobs=2):
        with pytest.warns(UserWarning, match="Candidate KMeans failed"):
            par = make().fit(Xm)
        predicted = par.predict(Xm[::-1])
    np.testing.assert_array_equal(seq.labels_, par.labels_)
    np.testing.assert_array_equal(seq.predict(Xm[::-1]), predicted)
    # repr: the failed candidate's score is NaN
    assert [repr(replace(c, seconds=0.0)) for c in seq.candidates_] == [
        repr(replace(c, seconds=0.0)) for c in par.candidates_]
    assert repr(seq.k_scores_) == repr(par.k_scores_)

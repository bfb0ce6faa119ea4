"""Restarts through joblib: ``with joblib.parallel_config(n_jobs=2): est.fit(X)``.

The seeds are drawn before any restart runs, so a parallel fit is bitwise the
sequential one (same restarts, same best-restart choice), with the threading and
the process (loky) backends; warnings raised in worker processes reach the caller.
"""

from __future__ import annotations

import threading
import warnings

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

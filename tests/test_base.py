"""The BaseClusterer template: restarts, best-of, degenerate handling, warnings."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.base import BaseClusterer, SoftClusterMixin
from marginclust.exceptions import ConvergenceWarning, EmptyClusterError
from marginclust.solvers import SolverResult


class _Toy(SoftClusterMixin, BaseClusterer):
    """Nearest of n_clusters random part means; objective scripted per restart for the tests."""

    def __init__(self, n_clusters=2, *, n_init=1, script=None, random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.script = script
        self.random_state = random_state

    def _fit_one(self, X, random_state, **fit_params):
        k = self._n_clusters
        step = getattr(self, "_calls", 0)
        self._calls = step + 1
        objective, degenerate, converged, fail = (self.script or [(1.0, False, True, False)])[
            step % len(self.script or [0])
        ]
        if fail:
            raise EmptyClusterError("scripted failure")
        # the means of k random interleaved parts: a random cut near the mean, so no
        # cluster is small enough to count as degenerate (random rows as centres gave
        # one-row clusters for 3-7% of seeds); degenerate fits come from the script
        perm = random_state.permutation(X.shape[0])
        centers = np.vstack([X[perm[j::k]].mean(axis=0) for j in range(k)])
        if degenerate:  # every centre but the first far away: one cluster takes all
            centers = np.vstack([X.mean(axis=0), X.mean(axis=0) + 1e3 * np.arange(1, k)[:, None]])
        # the nearest-centre labels: the base's final assignment step keeps them
        labels = np.argmax(self._memberships(X, centers), axis=1)
        return SolverResult(
            x={"labels_": labels, "cluster_centers_": centers, "memberships_": None, "tag_": step},
            objective=objective,
            objective_history=np.array([objective + 1, objective]),
            n_iter=2,
            converged=converged,
        )

    @staticmethod
    def _memberships(X, centers):
        d = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
        e = np.exp(-(d - d.min(axis=1, keepdims=True)))
        return e / e.sum(axis=1, keepdims=True)

    def _predict_memberships(self, X):
        return self._memberships(X, self.cluster_centers_)


X = np.random.RandomState(0).normal(size=(20, 3))


def test_best_objective_kept():
    est = _Toy(
        2,
        n_init=3,
        script=[(3.0, False, True, False), (1.0, False, True, False), (2.0, False, True, False)],
    ).fit(X)
    assert est.tag_ == 1
    assert est.objective_ == 1.0
    assert est.n_iter_ == 2 and est.converged_


def test_non_degenerate_preferred_over_lower_objective():
    script = [(0.5, True, True, False), (2.0, False, True, False)]
    est = _Toy(2, n_init=2, script=script).fit(X)
    assert est.tag_ == 1


def test_all_degenerate_warns():
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        _Toy(2, n_init=2, script=[(0.5, True, True, False)]).fit(X)


def test_failed_restarts_are_skipped_and_all_failed_raises():
    est = _Toy(2, n_init=2, script=[(1.0, False, True, True), (2.0, False, True, False)]).fit(X)
    assert est.tag_ == 1
    with pytest.raises(EmptyClusterError, match="Every restart"):
        _Toy(2, n_init=2, script=[(1.0, False, True, True)]).fit(X)


def test_not_converged_warns():
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        _Toy(2, script=[(1.0, False, False, False)]).fit(X)


@pytest.mark.parametrize("n_init", [0, -1, 1.5, True])
def test_bad_n_init(n_init):
    with pytest.raises(ValueError, match="n_init"):
        _Toy(2, n_init=n_init).fit(X)


def test_restart_seeds_are_deterministic():
    a = _Toy(2, n_init=2, random_state=3).fit(X)
    b = _Toy(2, n_init=2, random_state=3).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_predict_proba_rows_on_simplex():
    est = _Toy(3, random_state=0).fit(X)
    P = est.predict_proba(X[:5])
    assert P.shape == (5, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X[:5]), P.argmax(axis=1))


class _Prepared(_Toy):
    """The once-per-fit contract: _prepare runs once, every restart gets its context."""

    def _prepare(self, X, **fit_params):
        self._prepared = getattr(self, "_prepared", 0) + 1
        return {"X": X}

    def _fit_one(self, context, random_state):
        return super()._fit_one(context["X"], random_state)


def test_prepare_runs_once_and_feeds_every_restart():
    est = _Prepared(2, n_init=4).fit(X)
    assert est._prepared == 1 and est._calls == 4


def test_n_clusters_found_and_one_point_cluster_warning():
    est = _Toy(2).fit(X)
    assert est.n_clusters_found_ == 2

    class _OnePoint(_Toy):
        def _fit_one(self, X, random_state, **fit_params):
            res = super()._fit_one(X, random_state)
            res.x["cluster_centers_"] = np.vstack([X[1:].mean(axis=0), X[0]])
            return res

    X1 = X.copy()
    X1[0] += 100.0  # an outlier, nearest to the second centre alone
    with pytest.warns(ConvergenceWarning, match="cluster of 1 sample"):
        est = _OnePoint(2).fit(X1)
    assert est.n_clusters_found_ == 2
    assert np.bincount(est.labels_).tolist() == [19, 1]


def test_final_assignment_and_empty_clusters_numbered_last():
    """labels_ = predict(X_train), in [0, n_clusters_found_); memberships_ = predict_proba."""

    class _Empty(_Toy):
        _cluster_axes = {"cluster_centers_": 0}

        def _fit_one(self, X, random_state, **fit_params):
            res = super()._fit_one(X, random_state)
            far = X.mean(axis=0) + 1e3  # cluster 0 owns no sample
            res.x["cluster_centers_"] = np.vstack([far, X[:5].mean(axis=0), X[5:].mean(axis=0)])
            res.x["labels_"] = np.full(X.shape[0], 2)  # not the model's rule: reassigned
            return res

    with pytest.warns(ConvergenceWarning, match="only 2 non-empty"):
        est = _Empty(3).fit(X)
    assert est.n_clusters_found_ == 2
    assert set(est.labels_.tolist()) == {0, 1}
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    np.testing.assert_array_equal(est.predict_proba(X), est.memberships_)
    np.testing.assert_allclose(est.cluster_centers_[2], X.mean(axis=0) + 1e3)


def test_verbose_prints_restart_lines(capsys):
    est = _Toy(2, n_init=2)
    est.verbose = 1
    est.fit(X)
    assert capsys.readouterr().err.count("_Toy restart") == 2


def test_dask_input_is_refused_not_computed():
    da = pytest.importorskip("dask.array")

    Xd = da.from_array(X, chunks=5)
    with pytest.raises(TypeError, match="got a dask Array.*compute"):
        _Toy(2).fit(Xd)
    est = _Toy(2).fit(X)
    with pytest.raises(TypeError, match="got a dask Array"):
        est.predict(Xd)

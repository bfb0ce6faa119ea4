"""CPMMC baseline: binary and multiclass clustering, constraint loops, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from marginclust.estimators._bmmc import BMMC
from marginclust.estimators._cpmmc import CPMMC
from marginclust.metrics import adjusted_rand_index
from marginclust.objectives._mmc import MMCObjective
from marginclust.solvers._bundle import BundleMethod
from marginclust.solvers._cutting_plane import CuttingPlaneSVM
from tests._crosspath import OneModel, assert_same_minimiser, bundle_gap
from tests._pair_data import pair_objective


def test_binary_blobs(global_random_seed):
    X, y = make_blobs(
        150, centers=2, n_features=3, cluster_std=0.7, random_state=global_random_seed
    )
    est = CPMMC(C=10.0, random_state=global_random_seed).fit(X)
    assert adjusted_rand_index(y, est.labels_) > 0.95
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.converged_ and est.n_constraints_ >= 1
    assert est.objective_ == pytest.approx(est.objective_history_.min())
    assert abs(est.decision_function(X).sum()) <= 0.1 * len(X) + 1e-6


@pytest.mark.parametrize("seed", [0, 3, 12])
def test_binary_returns_best_iterate(seed):
    """The binary loop's true objective is not monotone (each restricted problem is
    non-convex): stopped at max_iter on structureless data, it returns the iterate of
    the lowest true objective it met, and that objective is the model's."""
    from marginclust.solvers._cutting_plane import CuttingPlaneMMC

    X = np.random.RandomState(seed).randn(200, 5)
    obj = MMCObjective(X, 2, 10.0, 0.1)
    res = CuttingPlaneMMC(max_iter=15).solve(obj, obj.zero(), signs0=np.sign(X[:, 0]))
    assert not res.converged
    assert res.objective == res.objective_history.min()
    assert res.objective < res.objective_history[-1]  # the case this guards: a later rise
    assert obj.value(res.x) == pytest.approx(res.objective, rel=1e-9)


def test_same_problem_as_bmmc():
    """CPMMC and BMMC minimise the same objective; on easy data they find the same split."""
    X, _ = make_blobs(120, centers=2, n_features=4, random_state=3)
    a = CPMMC(C=5.0, tol=1e-4, cccp_tol=1e-6, random_state=0).fit(X)
    b = BMMC(C=5.0, random_state=0, tol=1e-6, inner_tol=1e-6).fit(X)
    assert adjusted_rand_index(a.labels_, b.labels_) == pytest.approx(1.0)
    # Same labels, so the same convex subproblem: CPMMC ends within C * tol of its
    # minimum (absolute violation tol), BMMC within its bundle gap; both bound the
    # objectives and the standardised weights (tests/_crosspath.py).
    assert_same_minimiser(
        a.objective_, a.coef_ * a.data_scale_, a.C_ * a.tol,
        b.objective_, b.coef_ * b.data_scale_, bundle_gap(b.objective_, b.inner_tol),
    )  # fmt: skip
    # the default (absolute) violation tolerance 0.01 stops earlier, at a worse objective
    c = CPMMC(C=5.0, random_state=0).fit(X)
    assert c.objective_ >= a.objective_ - 1e-9


def _sparse_blobs(k, seed):
    """Well-separated blobs (centres 12 standard deviations apart) made sparse by
    zeroing small entries: no point lies near a margin, so the discrete path (signs,
    argmax, working sets) cannot part between two summation orders."""
    rng = np.random.RandomState(seed)
    centers = 12.0 * np.eye(k, 5)
    y = np.arange(90) % k
    X = centers[y] + rng.randn(90, 5)
    X[np.abs(X) < 1.5] = 0.0
    return X, y


def _assert_same_model(a, b):
    """Both fits end on the same convex subproblem (same labels), each within C * tol
    of its minimum (constraint generation stops at an absolute violation tol); it is
    1-strongly convex in the standardised weights W = coef_ * data_scale_, so
    ||W_a - W_b|| <= 2 sqrt(2 C tol)."""
    np.testing.assert_array_equal(a.labels_, b.labels_)
    gap = a.C_ * a.tol
    assert abs(a.objective_ - b.objective_) <= 2 * gap
    dW = a.coef_ * a.data_scale_ - b.coef_ * b.data_scale_
    assert np.linalg.norm(dW) <= 2 * np.sqrt(2 * gap)


@pytest.mark.parametrize("k", [2, 3])
def test_sparse_equals_dense(k, global_random_seed):
    X, y = _sparse_blobs(k, global_random_seed)
    kw = dict(tol=1e-6, cccp_tol=1e-6, init="pca", random_state=0)
    a = CPMMC(k, **kw).fit(X)
    b = CPMMC(k, **kw).fit(sp.csr_matrix(X))
    assert adjusted_rand_index(y, a.labels_) == 1.0
    _assert_same_model(a, b)


@pytest.mark.parametrize("k", [3, 4])
def test_multiclass_blobs(k, global_random_seed):
    # fixed, well-separated centres (random centres can overlap); random samples
    centers = 6.0 * np.vstack([np.eye(3), -np.ones((1, 3)) / np.sqrt(3)])[:k]
    X, y = make_blobs(40 * k, centers=centers, cluster_std=0.7, random_state=global_random_seed)
    est = CPMMC(k, C=10.0, random_state=global_random_seed).fit(X)
    assert adjusted_rand_index(y, est.labels_) > 0.95
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.coef_.shape == (k, 3) and est.intercept_.shape == (k,)
    assert est.converged_ and est.n_constraints_ >= 1
    assert est.objective_ == pytest.approx(est.objective_history_[-1])


def _check_balance(F, bound):
    """Multiclass balance set: |t_p - t_q| <= l/n and sum_r t_r = 0, t = mean scores."""
    t = F.mean(axis=0)
    assert np.ptp(t) <= bound + 1e-7
    assert abs(t.sum()) <= 1e-7


@pytest.mark.parametrize("balance", [0.1, 0.02])
def test_multiclass_balance_constraints_hold(balance):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((90, 4))
    est = CPMMC(3, C=10.0, balance=balance, random_state=0).fit(X)
    _check_balance(est.decision_function(X), balance)


def test_multiclass_same_objective_as_bmmc():
    """Same multiclass problem and init: CPMMC and BMMC reach the same objective."""
    for seed, k in [(3, 3), (5, 4)]:
        X, _ = make_blobs(120, centers=k, n_features=4, random_state=seed)
        init = CPMMC(k, random_state=0).fit(X).labels_  # any fixed labels
        a = CPMMC(k, C=5.0, tol=1e-6, cccp_tol=1e-6, max_iter=1000, init=init).fit(X)
        b = BMMC(k, C=5.0, tol=1e-6, inner_tol=1e-7, inner_max_iter=500, init=init).fit(X)
        assert adjusted_rand_index(a.labels_, b.labels_) == pytest.approx(1.0)
        # the same last subproblem (the start is a fixed point here, every top-two score
        # gap above 0.28): the violation tol bounds CPMMC's gap by C * tol = 5e-6, the
        # bundle's by its relative inner_tol (tests/_crosspath.py)
        assert_same_minimiser(
            a.objective_, a.coef_ * a.data_scale_, a.C_ * a.tol,
            b.objective_, b.coef_ * b.data_scale_, bundle_gap(b.objective_, b.inner_tol),
        )  # fmt: skip


def test_cutting_plane_subproblem_matches_bundle():
    """Oracle for the inner solver: the convex subproblem's minimum agrees with BMRM's."""
    rng = np.random.RandomState(1)
    X = rng.standard_normal((70, 5))
    obj = MMCObjective(X, 3, 2.0, 0.1)
    sub = obj.surrogate(rng.randint(0, 3, 70))
    x0 = obj.zero()
    cp = CuttingPlaneSVM(tol=1e-7, max_iter=500).solve(sub, x0)
    bm = BundleMethod(tol=1e-9, max_iter=500).solve(sub, x0)
    assert cp.converged
    assert sub.value(cp.x) == pytest.approx(sub.value(bm.x), rel=1e-5)
    assert sub.value(cp.x) <= sub.value(x0)
    # the stopping rule bounds the gap: value <= model minimum + C tol <= optimum + C tol
    loose = CuttingPlaneSVM(tol=0.05).solve(sub, x0)
    assert sub.value(loose.x) <= sub.value(bm.x) + 2.0 * 0.05 + 1e-9


@pytest.mark.parametrize("k", [2, 3])
def test_cutting_plane_with_the_pair_part_apart_matches_bundle(k, global_random_seed):
    """With pairs the pair part gets its own slack and working set, refined without a
    pass over the data; the stopping rule bounds the gap by C tol either way."""
    obj, labels, rng = pair_objective(k, global_random_seed, n=200, n_draws=60)
    sub = obj.surrogate(labels)
    x0 = obj.zero()
    tol = 1e-4
    apart = CuttingPlaneSVM(tol=tol, max_iter=2000).solve(sub, x0)
    whole = CuttingPlaneSVM(tol=tol, max_iter=2000).solve(OneModel(obj.surrogate(labels)), x0)
    best = BundleMethod(tol=1e-9, max_iter=2000).solve(obj.surrogate(labels), x0)
    assert apart.converged and whole.converged and apart.info["n_cheap_constraints"] > 0
    for res in (apart, whole):
        assert best.objective - 1e-9 * abs(best.objective) <= sub.value(res.x)
        assert sub.value(res.x) <= best.objective / (1 - 1e-9) + obj.C * tol
    assert apart.n_iter < whole.n_iter  # passes over the data


@pytest.mark.parametrize("k", [2, 3])
def test_cutting_plane_starts_from_the_pair_constraints_handed_on(k, global_random_seed):
    """A subproblem with the pairs' joint labels of the last one has its pair part: the
    constraints of that part with weight in the last QP are handed on, and the next
    solve, which starts its working set from them, ends within C tol of the minimum."""
    obj, labels, rng = pair_objective(k, global_random_seed, n=200, n_draws=60)
    x0, tol = obj.zero(), 1e-4
    first = obj.surrogate(labels)
    CuttingPlaneSVM(tol=tol, max_iter=2000).solve(first, x0)
    assert first.cheap_cuts
    for _ in range(20):  # every constraint handed on bounds the pair part from below
        W, t = rng.standard_normal(first.shape), rng.standard_normal(first.shape[0])
        risk = first.cheap_plane((W, t))[0]
        for a, c, o in first.cheap_cuts:
            assert a @ W.ravel() + c @ t + o <= risk + 1e-10 * (1.0 + abs(risk))
    warm = CuttingPlaneSVM(tol=tol, max_iter=2000).solve(obj.surrogate(labels), x0)
    cold = CuttingPlaneSVM(tol=tol, max_iter=2000).solve(obj.fresh().surrogate(labels), x0)
    best = BundleMethod(tol=1e-9, max_iter=2000).solve(obj.fresh().surrogate(labels), x0)
    assert warm.converged and cold.converged
    for res in (warm, cold):
        assert best.objective - 1e-9 * abs(best.objective) <= first.value(res.x)
        assert first.value(res.x) <= best.objective / (1 - 1e-9) + obj.C * tol


@pytest.mark.parametrize("seed", range(4))
def test_multiclass_objective_never_increases(seed):
    """CCCP with a best-iterate inner solver: J(x+) <= S(x+) <= S(x) = J(x) (random data)."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((80, 3))
    init = rng.randint(0, 3, 80)
    est = CPMMC(3, C=3.0, cccp_tol=1e-8, init=init).fit(X)
    h = est.objective_history_
    assert h.size >= 2  # random init labels: the argmax changes at least once
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]))


def test_bad_params():
    X, _ = make_blobs(30, centers=3, random_state=0)
    for params, match in [
        ({"C": 0}, "C must"),
        ({"tol": -1}, "tol"),
        ({"balance": 2.0}, "balance"),
        ({"cccp_max_iter": 0}, "cccp_max_iter"),
    ]:
        with pytest.raises(ValueError, match=match):
            CPMMC(**params).fit(X)

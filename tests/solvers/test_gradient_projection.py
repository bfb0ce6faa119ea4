"""Gradient projection for PKM: agreement with the dense Rosen oracle, descent, KKT at the end."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.objectives._pkm import PKMObjective, kkt_violation
from marginclust.solvers._gradient_projection import active_gradient_projection
from tests._oracles.pkm_dense import dense_gradient_projection


def _problem(seed, n=15, K=3, hard=False):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 2)
    if hard:
        P0 = np.eye(K)[np.arange(n) % K]  # hard, mostly wrong: many releases
    else:
        P0 = rng.dirichlet(np.ones(K), size=n)
    return X, P0


def _run(X, P0, **kw):
    return active_gradient_projection(PKMObjective(X), P0, **kw)


@pytest.mark.parametrize(
    "method, step, seed, hard",
    [
        ("msagp", 0.01, 1, False),
        ("fmsagp", 0.01, 1, False),
        ("msagp", 0.01, 0, True),
        ("fmsagp", 0.01, 0, True),
        ("agp", 0.1, 1, False),
        ("agp", 0.5, 0, True),
    ],
)
def test_same_iterates_as_dense_oracle(method, step, seed, hard):
    # Same iterates up to rounding: on these problems every discrete choice of the
    # oracle's path clears its tie by far more than rounding (measured: the two smallest
    # step ratios and the two most negative multipliers differ by over 5% relative, the
    # largest projected gradient entry is at least 1e-9 of the scale away from the
    # threshold 1e-9 of the scale), so the row-block solver makes the same choices and the iterates
    # differ by the rounding of O((nK)^3) dense algebra, far below 1e-10.
    X, P0 = _problem(seed, hard=hard)
    ref = dense_gradient_projection(X, P0, method=method, step=step, max_iter=5000)
    res = _run(X, P0, method=method, step=step, max_iter=5000)
    assert ref["converged"] and res.converged
    assert res.info["n_released"] >= (1 if (hard or seed == 1) else 0)
    assert res.n_iter == ref["n_iter"]
    assert res.info["n_released"] == ref["n_released"]
    np.testing.assert_allclose(res.x, ref["P"], atol=1e-10, rtol=0)
    np.testing.assert_allclose(res.objective_history, ref["objective_history"], rtol=1e-10)
    # Intermediate iterates too: stop the production solver after k steps.
    for k in sorted({1, ref["n_iter"] // 3, ref["n_iter"] // 2, ref["n_iter"] - 1}):
        if k < 1:
            continue
        part = _run(X, P0, method=method, step=step, max_iter=k)
        assert part.n_iter == k
        np.testing.assert_allclose(part.x, ref["iterates"][k - 1], atol=1e-10, rtol=0)


def test_hard_start_releases_are_needed():
    # Guard that the oracle comparison above exercises the release branch.
    X, P0 = _problem(0, hard=True)
    res = _run(X, P0, method="msagp", max_iter=5000)
    assert res.info["n_released"] >= 3
    assert res.n_iter == res.info["n_released"]  # from a hard start every step is a release


@pytest.mark.parametrize("K", [2, 3, 4])
def test_msagp_from_soft_start_one_hit_per_step(K, global_random_seed):
    # Distinct points and a strictly positive start: each maximal step zeroes exactly one
    # p_ij, so the count is n (K - 1) plus one step per released constraint.
    rng = np.random.RandomState(global_random_seed)
    n = 25
    X = rng.randn(n, 3)
    P0 = rng.dirichlet(np.ones(K), size=n)
    res = _run(X, P0, method="msagp", max_iter=10 * n * K)
    assert res.converged
    assert res.n_iter == n * (K - 1) + res.info["n_released"]


@pytest.mark.parametrize("method", ["block", "msagp", "fmsagp", "agp"])
def test_objective_never_increases(method, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(40, 2)
    P0 = rng.dirichlet(np.ones(3), size=40)
    obj = PKMObjective(X)
    res = active_gradient_projection(obj, P0, method=method, step=0.1, max_iter=20000)
    J = np.concatenate([[res.info["objective_initial"]], res.objective_history])
    assert np.all(np.diff(J) <= 1e-12 * J[0])
    assert J[-1] < J[0]


@pytest.mark.parametrize("method", ["block", "msagp", "fmsagp", "agp"])
def test_result_is_a_kkt_point_and_a_kmeans_fixed_point(method, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = np.vstack([rng.randn(20, 2), rng.randn(20, 2) + [2.5, 0], rng.randn(20, 2) + [0, 2.5]])
    P0 = rng.dirichlet(np.ones(3), size=X.shape[0])
    obj = PKMObjective(X)
    res = active_gradient_projection(obj, P0, method=method, step=0.1, max_iter=50000)
    assert res.converged
    P = res.x
    G = obj.grad(P)
    assert kkt_violation(P, G) <= 1e-9 * obj.scale
    # Feasible, hard (no ties on random data), each point in its nearest centre.
    assert P.min() >= 0
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert set(np.unique(P)) <= {0.0, 1.0}
    np.testing.assert_array_equal(np.argmax(P, axis=1), np.argmin(G, axis=1))


def test_block_variant_much_fewer_steps_than_msagp(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(200, 4)
    P0 = rng.dirichlet(np.ones(4), size=200)
    block = _run(X, P0, method="block", max_iter=1000)
    msagp = _run(X, P0, method="msagp", max_iter=100000)
    assert block.converged and msagp.converged
    assert block.n_iter < msagp.n_iter / 10
    # Both local minima of the same objective; neither is guaranteed lower. Record the gap
    # loosely: same order of magnitude.
    assert 0.8 < block.objective / msagp.objective < 1.25


def test_callback_can_stop_and_sees_objective():
    X, P0 = _problem(3)
    seen = []

    def cb(it, J):
        seen.append((it, J))
        return it == 4

    res = _run(X, P0, method="msagp", callback=cb)
    assert res.n_iter == 4 and [s[0] for s in seen] == [1, 2, 3, 4]
    np.testing.assert_allclose([s[1] for s in seen], res.objective_history)


def test_capabilities_and_method_checked():
    X, P0 = _problem(2)
    assert _run(X, P0, method="fmsagp", max_iter=1000).converged
    with pytest.raises(TypeError, match="active_gradient_projection needs .*value_and_grad"):
        active_gradient_projection(object(), P0)
    with pytest.raises(ValueError, match="method must be one of"):
        _run(X, P0, method="newton")


def test_max_iter_not_converged_message():
    X, P0 = _problem(4)
    res = _run(X, P0, method="msagp", max_iter=3)
    assert not res.converged and res.n_iter == 3
    # the solver names no estimator parameter; PKM words the advice (tests/estimators)
    assert "max_iter=3" in res.message and "msagp" in res.message


def test_block_lloyd_fast_path_gives_the_same_iterates(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(150, 3)
    P0 = rng.dirichlet(np.ones(5), size=150)
    fast = _run(X, P0, method="block", max_iter=1000)
    slow = _run(X, P0, method="block", max_iter=1000, lloyd_fast_path=False)
    # Hard rows hold 0 and 1 exactly, so both paths sum the same points; their sums of
    # squares and centres round differently (n eps). A move needs a distance gap beyond
    # thr; on continuous random data a gap within rounding of thr has probability ~1e-13
    # per decision, so the paths are the same and J agrees to n eps x ||X||^2 / J.
    assert fast.converged and slow.converged
    assert fast.n_iter == slow.n_iter and fast.info["n_released"] == slow.info["n_released"]
    np.testing.assert_array_equal(fast.x, slow.x)
    np.testing.assert_allclose(fast.objective_history, slow.objective_history, rtol=1e-12)
    # Truncated runs agree too (max_iter inside the hard phase).
    k = max(1, fast.n_iter - 2)
    a = _run(X, P0, method="block", max_iter=k)
    b = _run(X, P0, method="block", max_iter=k, lloyd_fast_path=False)
    np.testing.assert_array_equal(a.x, b.x)


def test_block_chunking_does_not_change_the_result(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(100, 3)
    P0 = rng.dirichlet(np.ones(4), size=100)
    one = _run(X, P0, method="block", max_iter=1000)
    many = _run(X, P0, method="block", max_iter=1000, chunk_rows=7)
    # chunks only regroup the sums P'X, P'1 (n eps); every discrete step (snap at 1e-13,
    # release and move thresholds) compares continuous random quantities, within rounding
    # of their threshold with probability ~1e-13 each: the same path
    assert one.n_iter == many.n_iter
    np.testing.assert_allclose(one.x, many.x, atol=1e-12)
    np.testing.assert_allclose(one.objective_history, many.objective_history, rtol=1e-10)
    J = _run(X, P0, method="msagp", max_iter=1).info["objective_initial"]
    assert one.info["objective_initial"] == pytest.approx(J, rel=1e-10)

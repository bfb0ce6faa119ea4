"""CCCP: never increases the true objective; the inner solver is a component."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from marginclust.objectives._constraints import make_pairs
from marginclust.objectives._mmc import MMCObjective
from marginclust.solvers._bundle import BundleMethod
from marginclust.solvers._cccp import CCCP
from marginclust.solvers._result import SolverResult
from tests._crosspath import assert_same_minimiser, bundle_gap, separated_sparse_blobs


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("with_pairs", [False, True])
def test_cccp_never_increases_objective(k, with_pairs, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    n = 80
    X = rng.randn(n, 5)
    X[: n // 3, 0] += 3
    pairs = make_pairs([[0, 1], [2, 3]], [[0, n - 1]], n) if with_pairs else None
    obj = MMCObjective(X, k, 5.0, 0.2, C_pairs=1.0, pairs=pairs)
    res = CCCP(BundleMethod(tol=1e-2), tol=1e-6, max_iter=30).solve(
        obj, obj.zero(), first=obj.surrogate(rng.randint(k, size=n))
    )
    h = res.objective_history
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]))
    assert res.objective == pytest.approx(obj.value(res.x))
    # starting from a random point (no initial labels) too
    x0 = (rng.randn(obj.q, 5), np.zeros(obj.q))
    res = CCCP(BundleMethod(tol=1e-2), tol=1e-6).solve(obj, x0)
    h = np.concatenate([[obj.value(x0)], res.objective_history])
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]))


class _Quadratic:
    """f(x) = (x-3)^2 - 2|x|: convex minus convex, minimisers x = 4 and x = 2 (from x<0: -1)."""

    def value(self, x):
        return float((x - 3) ** 2 - 2 * abs(x))

    def linearize(self, x):
        s = 1.0 if x >= 0 else -1.0
        return _Sub(s)


class _Sub:
    def __init__(self, s):
        self.labels = np.array([s])
        self.s = s


class _ExactInner:
    """argmin (x-3)^2 - 2 s x = 3 + s, in closed form."""

    def solve(self, sub, x0):
        return SolverResult(3.0 + sub.s, 0.0, np.zeros(1), 1, True)


def test_cccp_with_a_custom_inner_solver():
    res = CCCP(_ExactInner(), tol=1e-9).solve(_Quadratic(), 0.5)
    assert res.x == pytest.approx(4.0)
    assert res.converged
    assert res.objective == pytest.approx(-7.0)


@pytest.mark.parametrize("k", [2, 3])
def test_cccp_dense_and_sparse_reach_the_same_end_point(k, global_random_seed):
    # The bundle paths of sparse and dense products may part (rounding picks among
    # degenerate QP vertices), so the end points are compared: on separated blobs every
    # iterate after the first labels the blobs, both runs end on the same convex
    # subproblem, each within its bundle gap of its minimum (tests/_crosspath.py); the
    # true objective equals that subproblem's value where the labels are the
    # subproblem's own.
    X, y = separated_sparse_blobs(k, global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    start = np.where(rng.rand(y.size) < 0.8, y, rng.randint(k, size=y.size))  # CCCP moves
    tol = 1e-9
    out = []
    for M in (X, sp.csr_matrix(X)):
        obj = MMCObjective(M, k, 2.0, 0.1)
        res = CCCP(BundleMethod(tol=tol, max_iter=1000)).solve(
            obj, obj.zero(), first=obj.surrogate(start)
        )
        assert res.converged and res.n_iter >= 2
        np.testing.assert_array_equal(obj.labels(res.x), y)
        out.append((res.objective, res.x[0], bundle_gap(res.objective, tol)))
    assert_same_minimiser(*out[0], *out[1])


def test_mmc_solvers_check_the_objective_they_are_used_on():
    """Every MMC solver derives from IterativeSolver (solve(objective, x0, ...) checks
    ``required``), accepts the objective it is used on and refuses one without it."""
    import inspect

    from marginclust.objectives._mmc import MMCObjective
    from marginclust.solvers._base import IterativeSolver, check_capabilities
    from marginclust.solvers._bundle import BundleMethod
    from marginclust.solvers._cutting_plane import CuttingPlaneMMC, CuttingPlaneSVM

    X = np.random.RandomState(0).randn(20, 3)
    binary, multi = MMCObjective(X, 2, 1.0, 0.1), MMCObjective(X, 3, 1.0, 0.1)
    sub = multi.surrogate(np.arange(20) % 3)
    cases = [
        (BundleMethod(), sub),
        (CCCP(BundleMethod()), multi),
        (CuttingPlaneMMC(), binary),
        (CuttingPlaneSVM(), sub),
    ]
    for solver, objective in cases:
        assert isinstance(solver, IterativeSolver)
        params = inspect.signature(solver._solve).parameters
        assert list(params)[:2] == ["objective", "x0"]
        assert params["callback"].kind is inspect.Parameter.KEYWORD_ONLY
        check_capabilities(objective, solver)
        with pytest.raises(TypeError, match="needs the objective to provide"):
            solver.solve(object(), objective.zero() if hasattr(objective, "zero") else None)

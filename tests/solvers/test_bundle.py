"""Bundle method against a direct QP of the full convex subproblem."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from marginclust.objectives._constraints import make_pairs
from marginclust.objectives._mmc import MMCObjective
from marginclust.solvers._bundle import BundleMethod
from tests._crosspath import OneModel, assert_same_minimiser, bundle_gap
from tests._pair_data import pair_objective


def _direct_qp(sub):
    """SLSQP on the n-slack QP of the convex subproblem (hinge slacks, pair slacks, balance)."""
    obj = sub.obj
    Xc = np.asarray(obj.data.X) - obj.data.xbar
    n, d = Xc.shape
    q = obj.q
    nw = q * d

    def scores(z):
        return Xc @ z[:nw].reshape(q, d).T + z[nw : nw + q]

    if obj.multiclass:
        rows = [(i, r) for i in range(n) for r in range(q) if r != sub.labels[i]]

        def margins(z):
            F = scores(z)
            return np.array([1 - F[i, sub.labels[i]] + F[i, r] for i, r in rows])

        n_h, scale = len(rows), 1.0 / (n * q)
    else:
        s = 2.0 * sub.labels - 1.0

        def margins(z):
            return 1 - s * scores(z)[:, 0]

        n_h, scale = n, 1.0 / n
    pairs = obj.pairs
    kind = None if pairs is None else obj.pair_term.kind
    if kind == "margin":
        # one slack per pair above 1 + S(B) - S(A*) for every forbidden joint label B
        # (binary: the two outputs (-f/2, f/2)); weight C' / 2 per pair when multiclass
        forb = [
            [(r, r) for r in range(k2)]
            if z < 0
            else [(a, b) for a in range(k2) for b in range(k2) if a != b]
            for z, k2 in zip(pairs.z, [max(q, 2)] * pairs.size)
        ]
        pu, pv = sub.assign
        n_p = pairs.size
        pw = obj.C_pairs * (1.0 if q == 1 else 0.5)
    else:
        n_p = 0 if pairs is None else pairs.size * q
        pw = 0.0 if pairs is None else obj.C_pairs / (pairs.size * q)
    off = nw + q

    def two(F):
        return np.column_stack([-0.5 * F[:, 0], 0.5 * F[:, 0]]) if q == 1 else F

    def pair_margins(z):
        F = two(scores(z))
        out = []
        for j in range(pairs.size):
            u, v = pairs.u[j], pairs.v[j]
            sa = F[u, pu[j]] + F[v, pv[j]]
            out += [z[off + n_h + j] - (1 + F[u, a] + F[v, b] - sa) for a, b in forb[j]]
        return np.array(out)

    def fun(z):
        W = z[:nw]
        return 0.5 * W @ W + obj.C * scale * z[off : off + n_h].sum() + pw * z[off + n_h :].sum()

    def diffs(z):
        F = scores(z)
        return (F[pairs.u] - pairs.z[:, None] * F[pairs.v]).ravel()

    cons = [
        {"type": "ineq", "fun": lambda z: z[off : off + n_h] - margins(z)},
        {"type": "ineq", "fun": lambda z: z[off : off + n_h]},
        {"type": "ineq", "fun": lambda z: sub.balance.h - sub.balance.G @ z[nw : nw + q]},
    ]
    if sub.balance.E.shape[0]:
        cons.append({"type": "eq", "fun": lambda z: sub.balance.E @ z[nw : nw + q]})
    if n_p and kind == "margin":
        cons.append({"type": "ineq", "fun": pair_margins})
        cons.append({"type": "ineq", "fun": lambda z: z[off + n_h :]})
    elif n_p:
        cons.append({"type": "ineq", "fun": lambda z: z[off + n_h :] - diffs(z)})
        cons.append({"type": "ineq", "fun": lambda z: z[off + n_h :] + diffs(z)})
    z0 = np.zeros(off + n_h + n_p)
    z0[off:] = 2.0
    res = minimize(
        fun, z0, constraints=cons, method="SLSQP", options={"ftol": 1e-12, "maxiter": 500}
    )
    return res.fun, res.x[:nw].reshape(q, d)


@pytest.mark.parametrize(
    "k, with_pairs",
    [(2, False), (3, False), (2, "margin"), (3, "margin"), (2, "paper"), (3, "paper")],
    ids=["bin", "multi", "bin-pairs", "multi-pairs", "bin-paper-pairs", "multi-paper-pairs"],
)
def test_bundle_matches_direct_qp(k, with_pairs, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    n, d = (24, 3) if k == 2 else (14, 3)  # SLSQP on the n-slack QP is the slow part
    X = rng.randn(n, d)
    X[: n // 2, 0] += 2.5
    pairs = make_pairs([[0, 1], [5, n - 3]], [[0, n - 1]], n) if with_pairs else None
    obj = MMCObjective(
        X, k, 2.0, 0.05, C_pairs=0.5, pairs=pairs, pair_loss=with_pairs or "margin"
    )
    sub = obj.surrogate(rng.randint(k, size=n))
    res = BundleMethod(tol=1e-7, max_iter=500).solve(sub)
    assert res.converged
    f_qp, W_qp = _direct_qp(sub)
    assert res.objective == pytest.approx(f_qp, rel=1e-5)
    assert res.objective == pytest.approx(sub.value(res.x))
    assert sub.balance.violation(res.x[1]) <= 1e-8
    np.testing.assert_allclose(res.x[0], W_qp, atol=2e-2)
    # the gap certificate is a true lower bound
    assert res.info["lower_bound"] <= f_qp + 1e-7


@pytest.mark.parametrize("k", [2, 3])
def test_pair_part_modelled_apart_reaches_the_same_minimum(k, global_random_seed):
    """With pairs the bundle method keeps one cutting-plane model for the margin and one
    for the pairs (refined between passes over the data); both minimise the same convex
    subproblem, so each ends within its stopping gap of the one minimum, with fewer
    passes over the data."""
    obj, labels, _ = pair_objective(k, global_random_seed)
    sub = obj.surrogate(labels)
    assert sub.split
    tol = 1e-6
    apart = BundleMethod(tol=tol, max_iter=2000).solve(sub)
    whole = BundleMethod(tol=tol, max_iter=2000).solve(OneModel(obj.surrogate(labels)))
    assert apart.converged and whole.converged
    assert apart.info["n_cheap_planes"] > 0 and "n_cheap_planes" in whole.info
    assert apart.objective == pytest.approx(sub.value(apart.x))
    ga, gb = bundle_gap(apart.objective, tol), bundle_gap(whole.objective, tol)
    assert_same_minimiser(apart.objective, apart.x[0], ga, whole.objective, whole.x[0], gb)
    assert apart.n_iter < whole.n_iter  # passes over the data


def test_bundle_keeps_best_and_never_worse_than_warm_start(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(50, 4)
    obj = MMCObjective(X, 2, 1.0, 0.1)
    sub = obj.surrogate(rng.randint(2, size=50))
    x0 = (rng.randn(1, 4), np.zeros(1))
    res = BundleMethod(tol=1e-3, max_iter=3).solve(sub, x0)
    assert res.objective <= sub.value(x0) + 1e-12
    assert np.all(np.diff(res.objective_history) <= 0)


def test_plane_aggregation_still_converges():
    rng = np.random.RandomState(0)
    X = rng.randn(200, 10)
    obj = MMCObjective(X, 3, 10.0, 0.1)
    sub = obj.surrogate(rng.randint(3, size=200))
    full = BundleMethod(tol=1e-4, max_iter=500, max_planes=1000).solve(sub)
    small = BundleMethod(tol=1e-4, max_iter=500, max_planes=5, max_idle=2).solve(sub)
    assert small.converged and small.info["n_planes"] <= 7
    assert small.objective == pytest.approx(full.objective, rel=2e-4)


def test_sparse_input_same_solution(global_random_seed):
    # Sparse and dense products round differently, so the bundle paths may part (even
    # in their step counts); one convex subproblem (labels fixed) has one minimiser W*,
    # and each end point is within the stopping gap of it (tests/_crosspath.py).
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(60, 5)
    X[:30, 0] += 3.0
    X[X < 0.3] = 0.0
    y = (np.arange(60) < 30).astype(int)
    labels = np.where(rng.rand(60) < 0.85, y, 1 - y)  # mostly right: W* is far from 0
    tol = 1e-9
    a = BundleMethod(tol=tol, max_iter=1000).solve(MMCObjective(X, 2, 1.0, 0.1).surrogate(labels))
    b = BundleMethod(tol=tol, max_iter=1000).solve(
        MMCObjective(sp.csr_matrix(X), 2, 1.0, 0.1).surrogate(labels)
    )
    assert a.converged and b.converged
    ga, gb = bundle_gap(a.objective, tol), bundle_gap(b.objective, tol)
    assert_same_minimiser(a.objective, a.x[0], ga, b.objective, b.x[0], gb)
    assert np.linalg.norm(a.x[0]) > 100 * np.sqrt(2 * ga)  # the bound is not vacuous


def _literal_bundle(sub, x0, *, tol, max_iter, max_planes, max_idle, qp):
    """A literal BMRM on Python lists (planes appended, idle ones filtered, aggregated by
    averaging): the oracle of the slot-based :class:`BundleMethod`."""
    from marginclust.solvers._qp import solve_bundle_dual

    C, bal = sub.C, sub.balance
    planes = []  # [a, c, o, idle, weight]

    def evaluate(W, t):
        risk, aW, at = sub.plane((W, t))
        aW, at = aW.ravel(), np.asarray(at).ravel()
        planes.append([aW, at, risk - aW @ W.ravel() - at @ t, 0, 0.0])
        return 0.5 * np.vdot(W, W) + C * risk

    planes.append([np.zeros(np.prod(sub.shape)), np.zeros(x0[1].size), 0.0, 0, 0.0])
    best, J_best = x0, evaluate(*x0)
    lower, history, rest = -np.inf, [J_best], None
    for _ in range(max_iter):
        Amat = np.array([pl[0] for pl in planes])
        w = np.array([pl[4] for pl in planes])
        warm = (w / w.sum(), rest) if rest is not None and w.sum() > 0 else None
        res = solve_bundle_dual(
            Amat @ Amat.T, np.array([pl[2] for pl in planes]), np.array([pl[1] for pl in planes]),
            C, bal.G, bal.h, bal.E, bal.e, method=qp, warm_start=warm,
        )  # fmt: skip
        for pl, b in zip(planes, res.beta, strict=True):
            pl[4] = b / C
        rest = res.rest
        lower = max(lower, res.lower_bound)
        if J_best - lower <= tol * abs(J_best):
            break
        W, t = -(res.beta @ Amat).reshape(sub.shape), res.t
        n_old = len(planes)
        for pl, b in zip(planes, res.beta, strict=True):
            pl[3] = 0 if b > 1e-10 * C else pl[3] + 1
        J = evaluate(W, t)
        if J < J_best:
            J_best, best = J, (W, t.copy())
        history.append(J_best)
        if J_best - lower <= tol * abs(J_best):
            break
        if len(planes) > max_planes:
            wts = res.beta[1:n_old] / res.beta[1:n_old].sum()
            agg = [wts @ np.array([pl[k] for pl in planes[1:n_old]]) for k in (0, 1, 2)] + [
                0,
                float(res.beta[1:n_old].sum() / res.beta.sum()),
            ]
            planes[:] = [planes[0], agg] + planes[n_old:]
            continue
        planes[:] = [planes[0]] + [pl for pl in planes[1:-1] if pl[3] < max_idle] + planes[-1:]
    return best, J_best, np.array(history)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("max_planes, max_idle", [(60, 10), (6, 2), (10**6, 10**6)])
def test_slot_bundle_matches_literal_oracle(k, max_planes, max_idle, global_random_seed):
    """The same optimum as a literal list-based BMRM (plane dropping and aggregation
    included), to the guarantee of the stopping rule.

    The paths are not compared: the offset ``t`` of a bundle QP is not unique when the
    model is flat in ``t``, and which point of that interval the QP returns, like which
    planes count as idle (a threshold on the QP multipliers), changes with rounding in
    another BLAS kernel; the minimiser's ``W`` is unique.
    """
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(60, 5)
    X[:30, :2] += 2.5
    obj = MMCObjective(X, k, 3.0, 0.2)
    sub = obj.surrogate(rng.randint(k, size=60))
    tol = 1e-5
    kw = dict(tol=tol, max_iter=3000, max_planes=max_planes, max_idle=max_idle)
    for qp in ("ipm", "active-set"):
        res = BundleMethod(qp=qp, **kw).solve(sub, obj.zero())
        sub2 = obj.surrogate(sub.labels)
        (W, t), J, hist = _literal_bundle(sub2, obj.zero(), qp=qp, **kw)
        assert res.converged and hist.size <= kw["max_iter"]
        # Both stop when J_best - lower <= tol |J_best|, `lower` a lower bound of the
        # minimum J*: each is within tol |J| of J*. J is 1-strongly convex in W, so
        # ||W - W*||^2 <= 2 (J - J*) <= 2 tol |J|; the triangle inequality bounds the pair.
        assert abs(res.objective - J) <= tol * max(abs(res.objective), abs(J))
        bound = np.sqrt(2 * tol * abs(res.objective)) + np.sqrt(2 * tol * abs(J))
        assert np.linalg.norm(res.x[0] - sub2.polish((W, t))[0]) <= bound


@pytest.mark.parametrize("k", [2, 3])
def test_pair_planes_handed_on_are_lower_bounds_and_leave_the_minimum(k, global_random_seed):
    """A subproblem whose pairs keep their joint labels has the same pair part as the
    last one, so the planes of that part left by the last solve are lower bounds of
    it; the next solve starts its model from them and ends within its gap of the
    minimum a solve without them reaches."""
    obj, labels, rng = pair_objective(k, global_random_seed)
    tol = 1e-6
    first = obj.surrogate(labels)
    BundleMethod(tol=tol, max_iter=2000).solve(first)
    cuts = list(first.cheap_cuts)
    assert cuts
    for _ in range(20):  # each plane bounds the pair part from below, anywhere
        W, t = rng.randn(*first.shape), rng.randn(first.shape[0])
        risk = first.cheap_plane((W, t))[0]
        for a, c, o in cuts:
            assert a @ W.ravel() + c @ t + o <= risk + 1e-10 * (1.0 + abs(risk))
    again = obj.surrogate(labels)  # the same labels: the same joint labels of the pairs
    assert again.cheap_cuts is first.cheap_cuts
    warm = BundleMethod(tol=tol, max_iter=2000).solve(again)
    fresh = obj.fresh().surrogate(labels)  # a restart's copy: no planes handed on
    assert fresh.cheap_cuts == []
    cold = BundleMethod(tol=tol, max_iter=2000).solve(fresh)
    assert warm.converged and cold.converged
    ga, gb = bundle_gap(warm.objective, tol), bundle_gap(cold.objective, tol)
    assert_same_minimiser(warm.objective, warm.x[0], ga, cold.objective, cold.x[0], gb)
    # the first model's minimum is a lower bound; with the planes handed on the model
    # is the maximum of more planes, so its minimum is at least as high
    one = BundleMethod(max_iter=1, max_cheap=0)
    with_cuts = one.solve(obj.surrogate(labels)).info["lower_bound"]
    without = one.solve(obj.fresh().surrogate(labels)).info["lower_bound"]
    assert with_cuts >= without - 1e-9 * abs(without)


def test_pair_planes_are_dropped_when_the_joint_labels_change(global_random_seed):
    obj, labels, _ = pair_objective(3, global_random_seed)
    first = obj.surrogate(labels)
    BundleMethod(tol=1e-4).solve(first)
    assert first.cheap_cuts
    # the clusters renamed r -> r + 1: the centroids, their scores and so every pair's
    # joint label move one cluster on
    other = obj.surrogate((labels + 1) % 3)
    assert np.array_equal(other.assign[0], (first.assign[0] + 1) % 3)
    assert other.cheap_cuts == [] and other.cheap_cuts is not first.cheap_cuts


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_pair_model_with_small_budgets_reaches_the_same_minimum(share, global_random_seed):
    """Each part of a split risk is aggregated on its own budget, and the pair model may
    stop refining at a share of the current gap: neither moves the minimum. A solve with
    small budgets (the pair part aggregated, the margin part too) and either refinement
    target ends within its gap of a solve with budgets that never aggregate."""
    obj, labels, _ = pair_objective(3, global_random_seed)
    tol = 1e-6

    class Shared:  # the same subproblem, with the given share of rows
        def __init__(self, sub):
            self._sub = sub

        def __getattr__(self, name):
            return getattr(self._sub, name)

        cheap_share = share

    sub = obj.surrogate(labels)
    big = BundleMethod(tol=tol, max_iter=3000, max_planes=5000).solve(Shared(sub))
    small = BundleMethod(tol=tol, max_iter=500, max_planes=4, max_cheap=3, max_idle=2).solve(
        Shared(obj.surrogate(labels))
    )
    assert big.converged
    # both budgets held: the two zero planes, the margin part's 4 and the last step's
    # plane, the pair part's 4 + 3 and one refinement (3) and the last step's plane
    assert small.info["n_planes"] <= 2 + (4 + 1) + (4 + 3 + 3 + 1)
    # aggregation slows the descent (for some seeds 500 steps end short of tol): the
    # small solve is judged by the gap it certifies, J_best - lower bound
    ga = bundle_gap(big.objective, tol)
    gb = max(bundle_gap(small.objective, tol), small.stop_crit)
    assert small.stop_crit == pytest.approx(small.objective - small.info["lower_bound"])
    assert_same_minimiser(big.objective, big.x[0], ga, small.objective, small.x[0], gb)

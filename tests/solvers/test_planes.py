"""The plane bundle shared by the bundle method and the cutting-plane solver."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.objectives._constraints import make_balance
from marginclust.solvers._planes import PlaneBundle
from marginclust.solvers._qp import solve_bundle_dual


def _random_planes(rng, group, p=6, q=2, capacity=4):
    planes = PlaneBundle(p, q, capacity)
    for g in group:
        planes.add(rng.randn(p), rng.randn(q), float(rng.randn()), int(g))
    return planes


def test_gram_matrix_grows_with_the_planes_and_follows_the_order():
    rng = np.random.RandomState(0)
    planes = _random_planes(rng, [0, 1, 0], capacity=2)  # grows past its capacity
    np.testing.assert_allclose(planes.extend_gram(), planes.A[:3] @ planes.A[:3].T)
    # drop the middle plane, add two: the new ones take the freed slot, then a new one
    planes.keep(np.array([True, False, True]))
    planes.add(rng.randn(6), rng.randn(2), 0.5, 1)
    planes.add(rng.randn(6), rng.randn(2), -0.5, 0)
    assert planes.order.tolist() == [0, 2, 1, 3]
    rows = planes.A[planes.order]
    np.testing.assert_allclose(planes.extend_gram(), rows @ rows.T, rtol=1e-12, atol=1e-12)
    # brought up to date after every plane or once for all: the same matrix
    one = PlaneBundle(6, 2, 8)
    together = PlaneBundle(6, 2, 8)
    rng = np.random.RandomState(1)
    for g in (0, 0, 1, 1):
        a, c, o = rng.randn(6), rng.randn(2), float(rng.randn())
        one.add(a, c, o, g)
        one.extend_gram()
        together.add(a, c, o, g)
    np.testing.assert_allclose(one.Q, together.extend_gram(), rtol=1e-12, atol=1e-12)


def test_linearisation_is_exact_where_it_was_taken_and_model_values_are_maxima():
    rng = np.random.RandomState(2)
    planes = PlaneBundle(4, 2, 8)
    W, t = rng.randn(2, 2), rng.randn(2)
    planes.add_linearisation(W, t, 3.0, rng.randn(2, 2), rng.randn(2), 0)
    planes.add_linearisation(W, t, 1.0, rng.randn(2, 2), rng.randn(2), 1)
    planes.add(rng.randn(4), rng.randn(2), float(rng.randn()), 1)
    vals = planes.values(W, t)
    np.testing.assert_allclose(vals[:2], [3.0, 1.0], rtol=1e-12, atol=1e-12)
    V, s = rng.randn(2, 2), rng.randn(2)
    vals = planes.values(V, s)
    literal = planes.A[:3] @ V.ravel() + planes.Ct[:3] @ s + planes.o[:3]
    np.testing.assert_allclose(vals, literal, rtol=1e-12, atol=1e-12)
    assert planes.model_value(V, s, 1) == pytest.approx(np.max(literal[1:]), rel=1e-12, abs=1e-12)


def test_dual_records_the_weights_and_the_minimiser_is_minus_the_weighted_slopes():
    rng = np.random.RandomState(3)
    balance = make_balance(1, 0.5)
    planes = PlaneBundle(3, 1, 8)
    planes.add(np.zeros(3), np.zeros(1), 0.0)
    for _ in range(4):
        planes.add(rng.randn(3), rng.randn(1), float(rng.rand()))
    res = planes.solve_dual(2.0, balance, method="ipm")
    ref = solve_bundle_dual(
        planes.A[:5] @ planes.A[:5].T, planes.o[:5], planes.Ct[:5], 2.0,
        balance.G, balance.h, balance.E, balance.e, method="ipm",
    )
    np.testing.assert_array_equal(res.beta, ref.beta)
    np.testing.assert_array_equal(planes.weights[:5], res.beta / 2.0)
    assert planes.n_qp == 1 and planes.qp_iter == res.n_iter
    np.testing.assert_allclose(planes.minimiser(res.beta, (3,)), -(res.beta @ planes.A[:5]))
    assert planes.weighted(0).tolist() == np.flatnonzero(res.beta > 0).tolist()


def test_idle_planes_are_dropped_but_never_the_fixed_nor_the_newest():
    rng = np.random.RandomState(4)
    planes = _random_planes(rng, [0, 0, 0, 0, 0], capacity=8)
    planes.extend_gram()
    for _ in range(3):
        planes.age(np.array([False, False, True, False, False]))
    planes.drop_idle(3, n_fixed=1, n_newest=1)
    assert planes.order.tolist() == [0, 2, 4]
    rows = planes.A[planes.order]
    np.testing.assert_allclose(planes.Q, rows @ rows.T)
    assert {1, 3} <= set(planes.free)


def test_aggregating_one_part_keeps_the_other_parts_planes():
    """Aggregation of the margin part leaves every plane of the pair part as it was."""
    rng = np.random.RandomState(0)
    group = np.array([0, 1, 0, 1, 0, 1, 1, 0, 0])
    m = group.size
    planes = _random_planes(rng, group, capacity=m)
    planes.extend_gram()
    beta = rng.rand(m)
    before = {j: planes.plane(j) for j in np.flatnonzero(group == 1)[1:]}
    old = [j for j in range(2, m) if group[j] == 0]
    w = beta[old] / beta[old].sum()
    average = w @ planes.A[old], w @ planes.Ct[old], float(w @ planes.o[old])
    planes.aggregate(beta, m, [0], n_fixed=2)
    kept = [j for j in planes.order if planes.group[j] == 1 and j >= 2]
    assert sorted(kept) == sorted(before)
    for j in kept:
        np.testing.assert_array_equal(planes.A[j], before[j][0])
        assert planes.o[j] == before[j][2]
    # the margin part's old planes became one, in the first of their slots: their
    # beta-average, with the share of the part's weight they held
    agg = [j for j in planes.order if planes.group[j] == 0 and j >= 2]
    assert agg == [old[0]]
    np.testing.assert_allclose(planes.A[agg[0]], average[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(planes.Ct[agg[0]], average[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(planes.o[agg[0]], average[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(planes.weights[agg[0]], beta[old].sum() / beta[group == 0].sum())
    assert planes.order.tolist() == [0, 1, old[0], *[j for j in range(2, m) if group[j] == 1]]
    rows = planes.A[planes.order]
    np.testing.assert_allclose(planes.Q, rows @ rows.T)

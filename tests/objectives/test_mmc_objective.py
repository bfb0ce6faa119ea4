"""MMC objectives: planes are subgradients, surrogates majorise, binary = multiclass(k=2)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from marginclust import BMMC
from marginclust.objectives._constraints import make_balance, make_pairs, resolve_balance
from marginclust.objectives._mmc import MMCObjective


def _data(rng, n=40, d=4):
    X = rng.randn(n, d)
    X[: n // 2] += 2.0
    return X


def _random_x(obj, rng, scale=1.0):
    return scale * rng.randn(obj.q, obj.data.d), 0.1 * rng.randn(obj.q)


def _objectives(X, rng):
    n = X.shape[0]
    pairs = make_pairs([[0, 1], [2, 3]], [[0, n - 1], [2, n - 2]], n)
    return [
        MMCObjective(X, 2, 1.5, 0.2),
        MMCObjective(X, 3, 2.0, 0.2),
        MMCObjective(X, 2, 1.5, 0.2, C_pairs=0.7, pairs=pairs),
        MMCObjective(X, 3, 2.0, 0.2, C_pairs=0.7, pairs=pairs),
        MMCObjective(X, 2, 1.5, 0.2, C_pairs=0.7, pairs=pairs, pair_loss="paper"),
        MMCObjective(X, 3, 2.0, 0.2, C_pairs=0.7, pairs=pairs, pair_loss="paper"),
    ]


def test_plane_is_a_subgradient(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = _data(rng)
    for obj in _objectives(X, rng):
        sub = obj.linearize(_random_x(obj, rng))
        for _ in range(5):
            x = _random_x(obj, rng)
            risk, aW, at = sub.plane(x)
            assert risk == pytest.approx(sub.risk(x))
            for _ in range(5):
                y = _random_x(obj, rng)
                lin = risk + np.vdot(aW, y[0] - x[0]) + at @ (y[1] - x[1])
                assert sub.risk(y) >= lin - 1e-10
            # where the risk is differentiable the plane is the gradient (finite differences)
            eps = 1e-6
            D = rng.randn(*x[0].shape), rng.randn(*x[1].shape)
            fd = (sub.risk((x[0] + eps * D[0], x[1] + eps * D[1])) - risk) / eps
            assert fd == pytest.approx(np.vdot(aW, D[0]) + at @ D[1], rel=1e-4, abs=1e-6)


def test_surrogate_majorises_and_touches(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = _data(rng)
    for obj in _objectives(X, rng):
        x0 = _random_x(obj, rng)
        sub = obj.linearize(x0)
        assert sub.value(x0) == pytest.approx(obj.value(x0), rel=1e-12)
        for _ in range(20):
            y = _random_x(obj, rng, scale=rng.uniform(0.1, 3))
            assert sub.value(y) >= obj.value(y) - 1e-10


def test_true_loss_by_hand():
    X = np.array([[0.0], [1.0], [3.0]])
    obj = MMCObjective(X, 2, 3.0, 1.0)
    w, t = np.array([[0.5]]), np.array([0.25])
    f = 0.5 * (X[:, 0] - X.mean()) + 0.25
    expected = 0.5 * 0.25 + 3.0 * np.mean(np.maximum(0, 1 - np.abs(f)))
    assert obj.value((w, t)) == pytest.approx(expected)
    objm = MMCObjective(X, 3, 3.0, 1.0)
    W, tm = np.array([[1.0], [0.0], [-1.0]]), np.zeros(3)
    F = (X - X.mean()) @ W.T
    loss = 0.0
    for i in range(3):
        p = np.argmax(F[i])
        loss += sum(max(0, 1 - (F[i, p] - F[i, r])) for r in range(3) if r != p)
    assert objm.value((W, tm)) == pytest.approx(0.5 * 2 + 3.0 * loss / 9)


def test_multiclass_two_clusters_is_half_binary(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = _data(rng)
    b = MMCObjective(X, 2, 1.3, 0.1)
    m = MMCObjective(X, 2, 1.3, 0.1, multiclass=True)
    for _ in range(5):
        w, t = _random_x(b, rng)
        W, tm = np.vstack([w / 2, -w / 2]), np.concatenate([t / 2, -t / 2])
        assert m.value((W, tm)) == pytest.approx(b.value((w, t)) / 2)
        np.testing.assert_array_equal(1 - m.labels((W, tm)), b.labels((w, t)))


def test_sparse_and_dense_planes_agree(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = _data(rng)
    X[X < 0.5] = 0.0
    for k in (2, 3):
        od, os_ = MMCObjective(X, k, 1.0, 0.1), MMCObjective(sp.csr_matrix(X), k, 1.0, 0.1)
        x = _random_x(od, rng)
        sd, ss = od.linearize(x), os_.linearize(x)
        y = _random_x(od, rng)
        for a, b in zip(sd.plane(y), ss.plane(y)):
            np.testing.assert_allclose(a, b, atol=1e-12)


def test_balance_helpers():
    assert resolve_balance(5, 100) == 5.0
    assert resolve_balance(0.1, 100) == pytest.approx(10.0)
    X = np.random.RandomState(0).randn(20, 2)
    for bad in (-1, 0.0, 1.5, "a", np.nan, True):  # the estimators refuse them
        with pytest.raises(ValueError, match="balance"):
            BMMC(balance=bad).fit(X)
    bal = make_balance(3, 0.2)
    assert bal.violation([0.1, -0.1, 0.0]) == 0.0
    assert bal.violation([0.3, -0.1, -0.2]) == pytest.approx(0.3)


def test_pairs_validation():
    with pytest.raises(ValueError, match="contradictory"):
        make_pairs([[0, 1]], [[1, 0]], 5)
    with pytest.raises(ValueError, match="outside"):
        make_pairs([[0, 9]], None, 5)
    p = make_pairs([[0, 1]], [[2, 3]], 5)
    np.testing.assert_array_equal(p.z, [1.0, -1.0])


def _argmin_hinges(a, b, w, lo, hi):
    """``_argmin_in_box`` on ``sum_j w_j max(0, a_j + b_j t)`` (its slope and breakpoints)."""
    from marginclust.objectives._mmc import _argmin_in_box

    nz = b != 0
    a, b, w = a[nz], b[nz], w[nz]
    tau, jump = -a / b, w * np.abs(b)
    slope0 = float(np.sum(w[b < 0] * b[b < 0])) + float(np.sum(jump[tau <= lo]))
    inbox = (tau > lo) & (tau < hi)
    order = np.argsort(tau[inbox])
    return _argmin_in_box(slope0, tau[inbox][order], jump[inbox][order], lo, hi, 1e-12)


def test_offset_polish_is_exact_and_prefers_zero(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    for _ in range(30):
        m = rng.randint(1, 8)
        a, b, w = rng.randn(m), rng.randn(m) * (rng.rand(m) < 0.8), rng.rand(m)
        lo, hi = -abs(rng.randn()), abs(rng.randn())
        t = _argmin_hinges(a, b, w, lo, hi)
        grid = np.linspace(lo, hi, 4001)
        vals = (w * np.maximum(0, a + b * grid[:, None])).sum(axis=1)
        assert lo - 1e-12 <= t <= hi + 1e-12
        assert np.sum(w * np.maximum(0, a + b * t)) <= vals.min() + 1e-9
    # flat in t (every hinge active, balanced signs): the offset closest to 0
    assert _argmin_hinges(np.full(4, 5.0), np.array([1.0, -1, 1, -1]), np.ones(4), -1, 1) == 0
    X = _data(rng)
    n = X.shape[0]
    cases = [(None, "margin")] + [
        (make_pairs([[0, 1], [3, n - 2]], [[2, n - 1], [1, n - 3]], n), kind)
        for kind in ("margin", "paper")
    ]
    for pairs, kind in cases:
        obj = MMCObjective(X, 2, 1.0, 0.3, C_pairs=0.5, pairs=pairs, pair_loss=kind)
        sub = obj.surrogate(rng.randint(2, size=n))
        x = (0.1 * rng.randn(1, 4), 0.2 * rng.randn(1))
        xp = sub.polish(x)
        best = min(sub.risk((x[0], np.array([t]))) for t in np.linspace(-0.3, 0.3, 3001))
        assert sub.risk(xp) <= best + 1e-9 and abs(xp[1][0]) <= 0.3 + 1e-12


def _floor_labels_literal(F, min_size):
    """The greedy of floor_labels one row at a time (its oracle)."""
    n, k = F.shape
    labels = np.argmax(F, axis=1)
    floor = min(min_size, n // k)
    loss = np.maximum(0.0, 1.0 - F[:, :, None] + F[:, None, :]).sum(axis=2) - 1.0
    sizes = np.bincount(labels, minlength=k)
    fixed = np.zeros(n, dtype=bool)
    for r in np.argsort(sizes, kind="stable"):
        if floor - sizes[r] <= 0:
            continue
        cand = [i for i in range(n) if sizes[labels[i]] > floor and not fixed[i]
                and labels[i] != r]
        cand.sort(key=lambda i: (loss[i, r] - loss[i, labels[i]], i))
        for i in cand:
            if sizes[r] >= floor:
                break
            if sizes[labels[i]] > floor:
                sizes[labels[i]] -= 1
                labels[i] = r
                sizes[r] += 1
                fixed[i] = True
    return labels


@pytest.mark.parametrize("seed", range(5))
def test_floor_labels_matches_its_literal_greedy(seed):
    from marginclust.objectives._mmc import floor_labels

    rng = np.random.RandomState(seed)
    F = rng.randn(60, 4)
    F[:, 3] -= 3.0  # cluster 3 nearly empty at the argmax
    F[:, 2] -= 1.0
    for floor in (0, 5, 12, 15, 40):
        got = floor_labels(F, floor)
        np.testing.assert_array_equal(got, _floor_labels_literal(F, floor))
        assert np.bincount(got, minlength=4).min() >= min(floor, 15)
    np.testing.assert_array_equal(floor_labels(F, 0), np.argmax(F, axis=1))

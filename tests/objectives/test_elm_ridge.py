"""EMMC math: ridge solves vs a least-squares oracle, optimal relabelling, balance repair."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from marginclust.objectives._elm_ridge import (
    balance_feasible,
    emmc_objective,
    factor_ridge,
    labels_to_targets,
    relabel,
    repair_balance,
    ridge_dof,
    ridge_dual,
    ridge_primal,
)


def _oracle_beta(H, T, C):
    """Literal ridge: least squares on [H; I/sqrt(C)] beta = [T; 0]."""
    L = H.shape[1]
    A = np.vstack([H, np.eye(L) / np.sqrt(C)])
    B = np.concatenate([T, np.zeros((L,) + T.shape[1:])])
    return np.linalg.lstsq(A, B, rcond=None)[0]


@pytest.mark.parametrize("n, L", [(30, 8), (8, 30), (15, 15)])
@pytest.mark.parametrize("n_out", [None, 3])
@pytest.mark.parametrize("C", [1e-3, 1.0, 500.0])
def test_ridge_primal_and_dual_match_lstsq_oracle(rng, n, L, n_out, C):
    H = rng.rand(n, L)
    T = rng.randn(n) if n_out is None else rng.randn(n, n_out)
    beta_p = ridge_primal(factor_ridge(H.T @ H, C), H.T @ T)
    alpha = ridge_dual(factor_ridge(H @ H.T, C), T)
    beta_d = H.T @ alpha
    oracle = _oracle_beta(H, T, C)
    np.testing.assert_allclose(beta_p, oracle, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(beta_d, oracle, rtol=1e-6, atol=1e-8)
    # stationarity of the objective: beta / C + H^T (H beta - T) = 0
    grad = beta_p / C + H.T @ (H @ beta_p - T)
    assert np.max(np.abs(grad)) < 1e-8 * max(1.0, np.max(np.abs(H.T @ T)))


def test_objective_finite_difference_gradient(rng):
    H, T, C = rng.rand(12, 5), rng.randn(12), 3.0
    beta = rng.randn(5)
    grad = beta + C * H.T @ (H @ beta - T)
    eps = 1e-6
    fd = np.array(
        [
            (
                emmc_objective(beta + eps * e, H @ (beta + eps * e), T, C)
                - emmc_objective(beta - eps * e, H @ (beta - eps * e), T, C)
            )
            / (2 * eps)
            for e in np.eye(5)
        ]
    )
    np.testing.assert_allclose(fd, grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("output, m", [("binary", 2), ("single", 3), ("single", 4), ("multi", 3)])
def test_relabel_is_optimal_for_fixed_beta(rng, output, m):
    """Proposition 1 (with the nearest-index correction) vs brute force over all labelings."""
    n = 5
    for _ in range(20):
        F = rng.randn(n, m) if output == "multi" else rng.uniform(-1, m + 1.5, size=n)
        best = min(
            np.sum((F - labels_to_targets(np.array(lab), m, output)) ** 2)
            for lab in itertools.product(range(m), repeat=n)
        )
        got = relabel(F, m, output)
        val = np.sum((F - labels_to_targets(got, m, output)) ** 2)
        assert val == pytest.approx(best, abs=1e-12)


def test_paper_interval_rule_is_not_optimal():
    """The printed rule t = i for i-1 < f <= i sends f = 1.1 to 2; the objective says 1."""
    assert relabel(np.array([1.1, 1.6, 2.4, -3.0, 9.0]), 3, "single").tolist() == [0, 1, 1, 0, 2]


@pytest.mark.parametrize("output", ["binary", "single", "multi"])
def test_balance_holds_after_every_repair(rng, output):
    for _ in range(50):
        m = 2 if output == "binary" else rng.randint(2, 6)
        n = rng.randint(m, 60)
        l_max = rng.randint(0, n // 2 + 1)
        if not balance_feasible(n, m, l_max):
            l_max = 1
        F = rng.randn(n, m) if output == "multi" else rng.randn(n) * m
        lab = np.minimum(rng.geometric(0.5, size=n) - 1, m - 1)  # skewed sizes
        fixed, moved = repair_balance(lab, F, m, l_max, output)
        counts = np.bincount(fixed, minlength=m)
        assert counts.max() - counts.min() <= l_max
        assert moved >= np.count_nonzero(fixed != lab)  # a sample may move twice
        before = np.bincount(lab, minlength=m)
        if np.ptp(before) <= l_max and before.min() > 0:  # an empty cluster is always filled
            assert moved == 0
        assert counts.min() > 0


def test_binary_repair_is_the_constrained_optimum(rng):
    """Flipping the least confident samples minimises eq. 12 under |N+ - N-| <= l."""
    n = 9
    for _ in range(30):
        F = rng.randn(n) + rng.choice([-1.5, 1.5])
        l_max = rng.choice([1, 3])
        lab, _ = repair_balance(relabel(F, 2, "binary"), F, 2, l_max, "binary")
        val = np.sum((F - labels_to_targets(lab, 2, "binary")) ** 2)
        best = min(
            np.sum((F - np.array(t)) ** 2)
            for t in itertools.product([-1.0, 1.0], repeat=n)
            if abs(sum(t)) <= l_max
        )
        assert val == pytest.approx(best, abs=1e-12)


def test_single_output_repair_moves_members_nearest_the_target_class():
    # class 2 (index 1) holds six samples, class 1 (index 0) none, class 3 (index 2) two
    F = np.array([2.4, 2.3, 2.0, 1.9, 1.6, 1.7, 3.0, 3.1])
    lab = np.array([1, 1, 1, 1, 1, 1, 2, 2])
    fixed, moved = repair_balance(lab, F, 3, 1, "single")
    assert np.bincount(fixed, minlength=3).tolist() == [3, 3, 2]
    # the three smallest outputs of class 2 went to class 1
    assert sorted(np.flatnonzero(fixed == 0).tolist()) == [3, 4, 5]


def test_balance_feasible():
    assert balance_feasible(10, 2, 0)
    assert not balance_feasible(11, 2, 0)
    assert balance_feasible(11, 2, 1)
    assert not balance_feasible(10, 3, -1)
    assert not balance_feasible(2, 3, 5)


@pytest.mark.parametrize("n, L", [(30, 8), (8, 30)])
def test_ridge_dof_matches_eigenvalues(rng, n, L):
    H = rng.rand(n, L)
    C = 2.0
    lam = np.linalg.eigvalsh(H.T @ H)
    expected = np.sum(lam / (lam + 1.0 / C))
    assert ridge_dof(factor_ridge(H.T @ H, C), C) == pytest.approx(expected, rel=1e-9)
    assert ridge_dof(factor_ridge(H @ H.T, C), C) == pytest.approx(expected, rel=1e-9)

"""PKM objective math: gradient by finite differences, concavity, the paper's Fig. 1 example."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.exceptions import EmptyClusterError
from marginclust.objectives._pkm import PKMObjective, kkt_violation
from tests._oracles.pkm_dense import dense_gradient, dense_objective


def _data(rng, n=20, d=3):
    return rng.randn(n, d) + 5.0  # off-centre on purpose: the objective centres internally


def test_gradient_matches_finite_differences(rng):
    X = _data(rng)
    K = 4
    P = rng.dirichlet(np.ones(K), size=X.shape[0])
    obj = PKMObjective(X)
    G = obj.grad(P)
    h = 1e-6
    num = np.empty_like(P)
    for i in range(P.shape[0]):
        for j in range(K):
            Pp, Pm = P.copy(), P.copy()
            Pp[i, j] += h
            Pm[i, j] -= h
            num[i, j] = (obj.value(Pp) - obj.value(Pm)) / (2 * h)
    np.testing.assert_allclose(G, num, rtol=1e-6, atol=1e-6)


def test_gradient_and_value_match_literal_formulas(rng):
    X = _data(rng)
    K = 3
    P = rng.dirichlet(np.ones(K), size=X.shape[0])
    obj = PKMObjective(X)
    np.testing.assert_allclose(obj.grad(P).ravel(), dense_gradient(X, P.ravel(), K), rtol=1e-10)
    assert obj.value(P) == pytest.approx(dense_objective(X, P.ravel(), K), rel=1e-12)
    C = (P.T @ X) / P.sum(axis=0)[:, None]
    np.testing.assert_allclose(obj.centers(P), C, rtol=1e-12, atol=1e-12)


def test_objective_is_concave_along_segments(rng):
    X = _data(rng)
    K = 3
    obj = PKMObjective(X)
    for _ in range(20):
        A = rng.dirichlet(np.ones(K), size=X.shape[0])
        B = rng.dirichlet(np.ones(K), size=X.shape[0])
        JA, JB = obj.value(A), obj.value(B)
        for s in (0.1, 0.25, 0.5, 0.75, 0.9):
            Js = obj.value((1 - s) * A + s * B)
            assert Js >= (1 - s) * JA + s * JB - 1e-10 * max(JA, JB)


def test_gradient_is_a_supergradient(rng):
    # Concavity in first-order form: J(B) <= J(A) + <grad J(A), B - A>.
    X = _data(rng)
    K = 3
    obj = PKMObjective(X)
    for _ in range(20):
        A = rng.dirichlet(np.ones(K), size=X.shape[0])
        B = rng.dirichlet(np.ones(K), size=X.shape[0])
        JA, G = obj.value_and_grad(A)
        assert obj.value(B) <= JA + np.sum(G * (B - A)) + 1e-10 * JA


def test_two_point_example_of_fig1():
    # SPEC / paper Fig. 1: two points, K = 2, P = [[p11, 1 - p11], [p21, 1 - p21]].
    x1, x2 = np.array([0.0, 0.0]), np.array([3.0, 4.0])
    X = np.vstack([x1, x2])
    obj = PKMObjective(X)
    half = 0.5 * np.sum((x1 - x2) ** 2)
    for p in (0.1, 0.3, 0.5, 0.8, 0.95):
        P = np.array([[p, 1 - p], [p, 1 - p]])
        assert obj.value(P) == pytest.approx(half, rel=1e-12)
    for p11, p21 in ((0.0, 1.0), (1.0, 0.0)):
        P = np.array([[p11, 1 - p11], [p21, 1 - p21]])
        assert obj.value(P) == pytest.approx(0.0, abs=1e-12)
    # Away from the line p11 = p21 the objective is strictly below 1/2 ||x1 - x2||^2.
    P = np.array([[0.7, 0.3], [0.2, 0.8]])
    assert 0.0 < obj.value(P) < half


def test_kkt_violation_zero_exactly_at_nearest_centre_partitions(rng):
    X = _data(rng, n=30)
    obj = PKMObjective(X)
    C = X[:3] + 0.01
    labels = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(-1), axis=1)
    # One Lloyd step from these centres, then hard memberships of a fixed point of K-means.
    for _ in range(100):
        P = np.eye(3)[labels]
        G = obj.grad(P)
        new = np.argmin(G, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    assert kkt_violation(P, G) == 0.0
    # Moving one point to a farther centre breaks complementary slackness.
    i = 0
    j = int(np.argmax(G[i]))
    P2 = P.copy()
    P2[i] = 0.0
    P2[i, j] = 1.0
    assert kkt_violation(P2, obj.grad(P2)) > 0


def test_empty_cluster_raises(rng):
    X = _data(rng)
    P = np.zeros((X.shape[0], 3))
    P[:, 0] = 1.0
    with pytest.raises(EmptyClusterError, match="lost all membership"):
        PKMObjective(X).grad(P)

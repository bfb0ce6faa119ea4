"""Internal, fuzzy and segmentation measures: hand-worked values and properties."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import davies_bouldin_score

from marginclust.metrics import (
    davies_bouldin,
    dice,
    kernel_xie_beni,
    partition_coefficient,
    partition_entropy,
    sensitivity,
    sse,
    xie_beni,
)


def _random_U(rng, n, k):
    U = rng.rand(n, k) + 1e-3
    return U / U.sum(axis=1, keepdims=True)


# -------------------------------------------------------------------- SSE
def test_sse_hand_worked():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]])
    # cluster means: (1,0) and (10,10): 1 + 1 + 0
    assert sse(X, [0, 0, 1]) == pytest.approx(2.0)
    assert sse(X, [0, 0, 1], centers=[[0.0, 0.0], [10.0, 11.0]]) == pytest.approx(4.0 + 1.0)


def test_sse_means_are_optimal():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3)
    lab = rng.randint(0, 3, size=30)
    base = sse(X, lab)
    centers = np.array([X[lab == k].mean(axis=0) for k in range(3)])
    assert sse(X, lab, centers) == pytest.approx(base)
    assert sse(X, lab, centers + 0.1) > base


def test_sse_bad_input():
    with pytest.raises(ValueError, match="labels"):
        sse(np.zeros((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="index"):
        sse(np.zeros((3, 2)), [0, 1, 2], centers=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        sse(np.array([[np.nan, 0.0], [1.0, 1.0]]), [0, 1])


# ---------------------------------------------------------- Davies-Bouldin
@pytest.mark.parametrize("seed", range(4))
def test_davies_bouldin_against_sklearn(seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(60, 4) + rng.randint(0, 3, size=(60, 1)) * 3
    lab = rng.randint(0, 4, size=60)
    assert davies_bouldin(X, lab) == pytest.approx(davies_bouldin_score(X, lab))


def test_davies_bouldin_hand_worked():
    # two clusters of 2 points: scatters 1 and 1, centroids 10 apart -> DB = 0.2
    X = np.array([[-1.0, 0], [1.0, 0], [9.0, 0], [11.0, 0]])
    assert davies_bouldin(X, [0, 0, 1, 1]) == pytest.approx(0.2)


def test_davies_bouldin_needs_two_clusters():
    with pytest.raises(ValueError, match="n_clusters"):
        davies_bouldin(np.random.RandomState(0).randn(5, 2), [0] * 5)


# ------------------------------------------------------------ PC / PE
def test_pc_pe_crisp_and_uniform():
    crisp = np.eye(3)[[0, 1, 2, 2]]
    assert partition_coefficient(crisp) == pytest.approx(1.0)
    assert partition_entropy(crisp) == pytest.approx(0.0)  # 0 log 0 = 0
    uni = np.full((5, 4), 0.25)
    assert partition_coefficient(uni) == pytest.approx(0.25)
    assert partition_entropy(uni) == pytest.approx(2.0)  # log2(4)
    assert partition_entropy(uni, base=np.e) == pytest.approx(np.log(4))


def test_pc_pe_hand_worked():
    U = np.array([[0.5, 0.5], [1.0, 0.0]])
    assert partition_coefficient(U) == pytest.approx((0.25 + 0.25 + 1.0) / 2)
    assert partition_entropy(U) == pytest.approx(0.5)


def test_pc_pe_bounds_and_permutation():
    rng = np.random.RandomState(0)
    for k in (2, 3, 6):
        U = _random_U(rng, 40, k)
        pc, pe = partition_coefficient(U), partition_entropy(U)
        assert 1 / k <= pc <= 1
        assert 0 <= pe <= np.log2(k)
        perm = rng.permutation(k)
        assert partition_coefficient(U[:, perm]) == pytest.approx(pc)
        assert partition_entropy(U[::-1, perm]) == pytest.approx(pe)


def test_memberships_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        partition_coefficient(np.array([[0.5, 0.4], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="transposed"):
        partition_coefficient(np.array([[0.5, 0.2, 0.2], [0.5, 0.8, 0.8]]))
    with pytest.raises(ValueError, match="negative"):
        partition_entropy(np.array([[1.5, -0.5]]))
    with pytest.raises(ValueError, match="2-D"):
        partition_entropy(np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="NaN"):
        partition_coefficient(np.array([[np.nan, 1.0]]))


# --------------------------------------------------------------- Xie-Beni
def test_xie_beni_hand_worked():
    X = np.array([[0.0], [1.0], [3.0]])
    centers = np.array([[0.0], [3.0]])
    U = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    # sum u^2 d^2: point 1: 0.25*1 + 0.25*4 = 1.25 ; others 0. sep = 9 ; n = 3
    assert xie_beni(X, U, centers) == pytest.approx(1.25 / 27)
    # m = 1: 0.5*1 + 0.5*4 = 2.5
    assert xie_beni(X, U, centers, m=1) == pytest.approx(2.5 / 27)


def test_kernel_xie_beni_hand_worked():
    X = np.array([[0.0], [1.0], [3.0]])
    centers = np.array([[0.0], [3.0]])
    U = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    s = 1.5
    k = lambda d2: np.exp(-d2 / (2 * s * s))  # noqa: E731
    num = 0.25 * (1 - k(1.0)) + 0.25 * (1 - k(4.0))
    den = 3 * (1 - k(9.0))
    assert kernel_xie_beni(X, U, centers, sigma=s) == pytest.approx(num / den)


def test_kernel_xie_beni_tends_to_data_space_for_wide_kernel():
    # 1 - exp(-t/(2 s^2)) ~ t / (2 s^2) as s -> inf; the factors cancel in the ratio.
    rng = np.random.RandomState(0)
    X = rng.randn(20, 2)
    U = _random_U(rng, 20, 3)
    C = rng.randn(3, 2)
    assert kernel_xie_beni(X, U, C, sigma=1e4) == pytest.approx(xie_beni(X, U, C), rel=1e-5)


def test_xie_beni_coinciding_centres_is_inf_and_bad_shapes():
    X = np.zeros((3, 2)) + np.arange(3)[:, None]
    U = np.full((3, 2), 0.5)
    assert xie_beni(X, U, np.zeros((2, 2))) == np.inf
    with pytest.raises(ValueError, match="centers must have shape"):
        xie_beni(X, U, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="rows"):
        xie_beni(X[:2], U, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="sigma"):
        kernel_xie_beni(X, U, np.eye(2), sigma=0)
    with pytest.raises(ValueError, match="fuzzifier"):
        xie_beni(X, U, np.eye(2), m=0.5)


# ---------------------------------------------------------- segmentation
def test_dice_sensitivity_hand_worked():
    t = np.array([[1, 1, 0], [0, 1, 0]])
    p = np.array([[1, 0, 0], [1, 1, 0]])
    # TP = 2, FP = 1, FN = 1
    assert dice(t, p) == pytest.approx(4 / 6)
    assert sensitivity(t, p) == pytest.approx(2 / 3)
    assert dice(t.astype(bool), p.astype(bool), pos_label=True) == pytest.approx(4 / 6)


def test_segmentation_edge_cases():
    z = np.zeros(5)
    assert dice(z, z) == 1.0
    assert np.isnan(sensitivity(z, z))
    assert dice([1, 1], [1, 1]) == 1.0
    assert dice([1, 0], [0, 1]) == 0.0
    with pytest.raises(ValueError, match="same shape"):
        dice([1, 0], [1, 0, 1])

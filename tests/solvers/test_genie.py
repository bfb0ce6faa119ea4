"""Genie on the minimum spanning tree agrees with the paper's literal merge rule."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.cluster.hierarchy import cut_tree, linkage
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import pdist, squareform

from marginclust.solvers._genie import euclidean_mst, genie_labels

from .._oracles.genie_bruteforce import genie_bruteforce


def _canonical(labels):
    """Labels renumbered by first appearance."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse]


@pytest.mark.parametrize("seed", range(4))
def test_prim_tree_is_a_minimum_spanning_tree(seed):
    X = np.random.RandomState(seed).randn(40, 3)
    tree = euclidean_mst(X)
    D = squareform(pdist(X))
    # the same total length as SciPy's tree and every edge of the right length
    assert tree.length.sum() == pytest.approx(minimum_spanning_tree(D).sum(), rel=1e-12)
    assert np.allclose(tree.length, D[tree.u, tree.v], rtol=1e-12)
    assert np.all(np.diff(tree.length) >= 0)
    # a spanning tree: n - 1 edges joining every point
    parent = np.arange(40)

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b in zip(tree.u, tree.v):
        ra, rb = find(a), find(b)
        assert ra != rb
        parent[ra] = rb
    assert len({find(i) for i in range(40)}) == 1


def test_tree_of_duplicate_points_has_zero_length_edges():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
    tree = euclidean_mst(X)
    assert tree.length.tolist() == [0.0, 0.0, 1.0, 4.0]


@pytest.mark.parametrize("gini_threshold", [0.0, 0.1, 0.3, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_genie_matches_the_literal_definition(seed, gini_threshold):
    rng = np.random.RandomState(seed)
    n = rng.randint(6, 14)
    # clumps of different sizes and spreads, so that the Gini rule does fire
    X = np.vstack([rng.randn(n // 2, 2) * 0.3, rng.randn(n - n // 2, 2) * 2.0 + 3.0])
    ks = list(range(1, n + 1))
    fast = genie_labels(euclidean_mst(X), ks, gini_threshold)
    for k in ks:
        expected = genie_bruteforce(X, k, gini_threshold)
        np.testing.assert_array_equal(fast[k], expected, err_msg=f"n={n}, K={k}")


def test_threshold_one_is_single_linkage():
    X = np.random.RandomState(0).randn(60, 2)
    Z = linkage(X, method="single")
    fast = genie_labels(euclidean_mst(X), [2, 3, 5, 8], gini_threshold=1.0)
    for k in (2, 3, 5, 8):
        np.testing.assert_array_equal(fast[k], _canonical(cut_tree(Z, [k])[:, 0]))


def test_outlier_is_not_a_cluster_with_the_gini_rule():
    rng = np.random.RandomState(1)
    X = np.vstack([rng.randn(30, 2) * 0.2, rng.randn(30, 2) * 0.2 + [3, 0], [[0, 20]]])
    single = genie_labels(euclidean_mst(X), 2, gini_threshold=1.0)[2]
    genie = genie_labels(euclidean_mst(X), 2, gini_threshold=0.3)[2]
    assert np.bincount(single).min() == 1  # single linkage isolates the outlier
    assert sorted(np.bincount(genie[:60])) == [30, 30]  # Genie splits the two groups


def test_labels_for_several_k_equal_one_call_each():
    X = np.random.RandomState(3).randn(50, 2)
    tree = euclidean_mst(X)
    together = genie_labels(tree, [2, 4, 7])
    for k in (2, 4, 7):
        np.testing.assert_array_equal(together[k], genie_labels(tree, k)[k])
        assert together[k].max() == k - 1


@pytest.mark.parametrize("method", ["ward", "single", "average"])
def test_linkage_cut_matches_scipys_cut_tree(method):
    from marginclust.solvers._hierarchy import cut_linkage

    X = np.random.RandomState(5).randn(80, 3)
    Z = linkage(X, method=method)
    ks = [1, 2, 3, 7, 80]
    cuts = cut_linkage(Z, ks)
    for k in ks:
        np.testing.assert_array_equal(_canonical(cuts[k]), _canonical(cut_tree(Z, [k])[:, 0]))

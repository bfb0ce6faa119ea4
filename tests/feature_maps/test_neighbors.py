"""The kNN geometry: neighbours without the point itself, local scales, graph, embedding."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import kneighbors_graph

from marginclust.feature_maps._neighbors import NeighborGraph


def test_neighbours_leave_the_point_out_even_with_duplicates():
    X = np.array([[0.0], [0.0], [1.0], [3.0]])
    graph = NeighborGraph.from_data(X, 2)
    assert all(i not in row for i, row in enumerate(graph.indices))
    assert graph.distances[0].tolist() == [0.0, 1.0]
    assert graph.local_scale(2).tolist() == [1.0, 1.0, 1.0, 3.0]


def test_neighbours_are_capped_at_n_minus_one():
    graph = NeighborGraph.from_data(np.arange(4.0).reshape(-1, 1), 10)
    assert graph.n_neighbors == 3


def test_connectivity_is_scikit_learns_symmetrised_graph():
    X = np.random.RandomState(0).randn(50, 3)
    graph = NeighborGraph.from_data(X, 9)
    A = kneighbors_graph(X, n_neighbors=10, include_self=True)
    expected = (0.5 * (A + A.T)).toarray()
    np.testing.assert_array_equal(graph.connectivity(10).toarray(), expected)


def test_spectral_embedding_separates_two_groups():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(40, 2), rng.randn(40, 2) + 20])
    E = NeighborGraph.from_data(X, 9).spectral_embedding(2, random_state=0)
    assert E.shape == (80, 2)
    # on a disconnected graph the leading eigenvectors are constant on each component
    assert np.ptp(E[:40], axis=0).max() < 1e-6 * np.abs(E).max()
    assert np.ptp(E[40:], axis=0).max() < 1e-6 * np.abs(E).max()
    assert not np.allclose(E[0], E[40])


def test_spectral_embedding_of_a_tiny_graph():
    E = NeighborGraph.from_data(np.array([[0.0], [1.0]]), 1).spectral_embedding(2)
    assert E.shape == (2, 2) and np.all(np.isfinite(E))

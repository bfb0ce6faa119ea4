"""The data's local geometry: k-nearest-neighbour graph, local scales, spectral embedding.

One :class:`NeighborGraph` per data set serves three uses: the voting margin
that judges a partition (each point's neighbours), the width of the margin
classifier's kernel (the typical distance to the k-th neighbour, a scale taken
from the data rather than from its overall variance), and the spectral
embedding of the kNN graph (Laplacian eigenmaps: the coordinates in which
rings, spirals and chains become compact groups). Neighbours come from
scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors` (trees in low
dimension, brute force above), so memory stays O(n k): no n x n matrix.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.manifold import spectral_embedding
from sklearn.neighbors import NearestNeighbors

from ..utils._blocks import query_jobs

__all__ = ["NeighborGraph"]


@dataclass(frozen=True)
class NeighborGraph:
    """Each point's nearest neighbours (itself excluded) and their distances.

    Parameters
    ----------
    indices : ndarray of shape (n_samples, n_neighbors)
        Neighbours of each point, nearest first.
    distances : ndarray of shape (n_samples, n_neighbors)
        Their Euclidean distances.

    Examples
    --------
    >>> import numpy as np
    >>> graph = NeighborGraph.from_data(np.array([[0.0], [1.0], [3.0], [7.0]]), 2)
    >>> graph.indices.tolist()
    [[1, 2], [0, 2], [1, 0], [2, 1]]
    >>> graph.local_scale(1).tolist()
    [1.0, 1.0, 2.0, 4.0]
    """

    indices: npt.NDArray[np.intp]
    distances: npt.NDArray[np.float64]

    @classmethod
    def from_data(cls, X: npt.NDArray[np.floating], n_neighbors: int) -> NeighborGraph:
        """The ``n_neighbors`` nearest neighbours of every row of ``X`` (at most ``n - 1``).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Points, at least two.
        n_neighbors : int
            Neighbours per point (capped at ``n_samples - 1``).

        Returns
        -------
        graph : NeighborGraph
            The neighbours; a duplicate point counts as a neighbour at distance 0.
        """
        k = min(int(n_neighbors), X.shape[0] - 1)
        nn = NearestNeighbors(n_neighbors=k, n_jobs=query_jobs(X.shape[0])).fit(X)
        distances, indices = nn.kneighbors()  # the query point itself is left out
        return cls(indices.astype(np.intp), distances.astype(np.float64))

    @property
    def n_neighbors(self) -> int:
        """Neighbours per point."""
        return int(self.indices.shape[1])

    def local_scale(self, k: int) -> npt.NDArray[np.float64]:
        """Distance of each point to its ``k``-th nearest neighbour (Zelnik-Manor & Perona).

        Parameters
        ----------
        k : int
            Which neighbour, ``1 .. n_neighbors`` (capped).

        Returns
        -------
        scale : ndarray of shape (n_samples,)
            The distances.
        """
        return self.distances[:, min(int(k), self.n_neighbors) - 1]

    def connectivity(self, k: int) -> sp.csr_matrix:
        """Symmetric kNN connectivity ``(A + A^T) / 2``, ``A`` each point and its ``k - 1`` nearest.

        The graph of scikit-learn's ``SpectralClustering(affinity="nearest_neighbors",
        n_neighbors=k)`` (each point counted among its own k neighbours).

        Parameters
        ----------
        k : int
            Neighbourhood size, the point itself included (``2 .. n_neighbors + 1``).

        Returns
        -------
        affinity : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
            Entries in {0, 0.5, 1}.
        """
        n = self.indices.shape[0]
        others = self.indices[:, : max(1, min(int(k), self.n_neighbors + 1) - 1)]
        rows = np.repeat(np.arange(n), others.shape[1] + 1)
        cols = np.column_stack([np.arange(n), others]).ravel()
        A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
        A.data[:] = 1.0  # a duplicate neighbour entry counts once
        return sp.csr_matrix(0.5 * (A + A.T))

    def spectral_embedding(
        self, n_components: int, k: int = 10, random_state: Any = None
    ) -> npt.NDArray[np.float64]:
        """Leading eigenvectors of the normalised Laplacian of the kNN connectivity.

        scikit-learn's :func:`~sklearn.manifold.spectral_embedding` (ARPACK,
        first eigenvector kept), as its ``SpectralClustering`` computes it; on
        graphs of fewer than ``5 n_components + 1`` points, where ARPACK cannot
        run, a dense eigendecomposition (scikit-learn's small-graph path). On a
        disconnected graph the embedding is still returned (each component
        separates on its own); scikit-learn's warning about it is silenced.

        Parameters
        ----------
        n_components : int
            Number of eigenvectors.
        k : int, default=10
            Neighbourhood size of the graph (:meth:`connectivity`).
        random_state : int, RandomState instance or None, default=None
            Seeds the eigensolver's start vector.

        Returns
        -------
        embedding : ndarray of shape (n_samples, n_components)
            One row per point.
        """
        n = self.indices.shape[0]
        small = n < 5 * int(n_components) + 1
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Graph is not fully connected")
            return np.asarray(spectral_embedding(
                self.connectivity(k), n_components=int(n_components), drop_first=False,
                eigen_solver="lobpcg" if small else "arpack", random_state=random_state,
            ), dtype=np.float64)

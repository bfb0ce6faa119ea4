"""Discrete labels from a spectral embedding by column-pivoted QR (no k-means, no restarts).

Damle, Minden & Ying (2019): the pivots of a column-pivoted QR factorisation of
the embedding's transpose pick ``k`` rows that are as far from collinear as
possible (one per cluster, ideally); the orthogonal polar factor that maps
those rows onto the coordinate axes rotates every row, and each point goes to
the axis its rotated row is largest along. Deterministic given the embedding,
and invariant to the sign of each embedding column. Written from the paper.
Prior validation of the inputs is assumed.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.linalg import qr, svd

__all__ = ["cluster_qr"]


def cluster_qr(embedding: npt.NDArray[np.floating]) -> npt.NDArray[np.intp]:
    """Cluster the rows of a spectral embedding into as many clusters as it has columns.

    Parameters
    ----------
    embedding : ndarray of shape (n_samples, n_clusters)
        The leading eigenvectors of a graph Laplacian, one column each.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        The column each rotated row is largest along (clusters may be empty).

    References
    ----------
    A. Damle, V. Minden and L. Ying, "Simple, direct and efficient multi-way
    spectral clustering", Information and Inference 8 (2019) 181-203.

    Examples
    --------
    >>> import numpy as np
    >>> V = np.array([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.8]])
    >>> cluster_qr(V).tolist()
    [0, 0, 1, 1]
    """
    Y = np.asarray(embedding, dtype=np.float64)
    k = Y.shape[1]
    _, _, pivots = qr(Y.T, mode="economic", pivoting=True)
    u, _, vt = svd(Y[pivots[:k], :].T)
    return np.argmax(np.abs(Y @ (u @ vt)), axis=1).astype(np.intp)

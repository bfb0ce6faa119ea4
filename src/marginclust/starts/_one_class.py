"""Starts of the one-class clusterers (WOC-SVM, OC-SVM hard clustering): machine weights."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils._memory import check_memory
from ._kmeans import kmeans_start
from ._margin_start import margin_search_start
from ._spectral import spectral_labels

__all__ = [
    "GMM_FULL_MAX_FEATURES",
    "gmm_covariance_type",
    "initial_weights",
    "kmeans_partition",
    "random_partition",
]


#: Most features for which the ``"gmm"`` start fits full covariances; above, diagonal
#: ones. A full covariance costs d^2 memory and d^3 work per cluster and EM step (100
#: rows x 10,000 features: 263 s and 6.5 GB), and past a hundred features its d^2 / 2
#: entries per cluster are rarely estimable from the rows at hand; the diagonal model
#: costs O(n d) per cluster.
GMM_FULL_MAX_FEATURES = 100


def gmm_covariance_type(n_features: int) -> str:
    """``"full"`` up to :data:`GMM_FULL_MAX_FEATURES` features, ``"diag"`` above.

    Parameters
    ----------
    n_features : int
        Columns of the data.

    Returns
    -------
    covariance_type : {"full", "diag"}
        For :class:`sklearn.mixture.GaussianMixture`.
    """
    return "full" if n_features <= GMM_FULL_MAX_FEATURES else "diag"


def random_partition(n: int, n_clusters: int, rng: np.random.RandomState) -> npt.NDArray[np.intp]:
    """Labels of a random partition of ``n`` samples into ``n_clusters`` near-equal parts.

    Parameters
    ----------
    n : int
        Number of samples.
    n_clusters : int
        Number of parts.
    rng : RandomState
        Source of the permutation.

    Returns
    -------
    labels : ndarray of shape (n,)
    """
    lab = np.empty(n, dtype=np.intp)
    for k, part in enumerate(np.array_split(rng.permutation(n), n_clusters)):
        lab[part] = k
    return lab


def kmeans_partition(Z: Any, n_clusters: int, rng: np.random.RandomState) -> npt.NDArray[np.intp]:
    """Labels of one scikit-learn KMeans run (k-means++ seeding) on the scaled data ``Z``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kmeans_start(Z, n_clusters, rng)


def initial_weights(
    init: Any, Z: npt.NDArray[np.float64], n_clusters: int, rng: np.random.RandomState
) -> npt.NDArray[np.float64]:
    """Initial machine weights (n_samples, n_clusters) on the centred, scaled data ``Z``.

    ``"max-margin"``: the one-hot partition of the label-free margin search
    (:func:`~marginclust.starts.margin_search_start`) on at most
    2,000 rows, the others labelled by their nearest such row;
    ``"spectral"``: the one-hot :func:`marginclust.starts.spectral_labels`;
    ``"gmm"``: responsibilities of a Gaussian mixture (``Z`` is centred with unit
    peak, so GaussianMixture's absolute ``reg_covar`` is relative to the data's
    spread: the start is scale-free), with full covariances up to
    :data:`GMM_FULL_MAX_FEATURES` features and diagonal ones above; ``"k-means"``: the one-hot
    :func:`kmeans_partition`; ``"random-weights"``: independent uniform weights;
    ``"random-points"``: the one-hot :func:`random_partition`; an array: given
    (validated) weights.
    """
    n, K = Z.shape[0], n_clusters
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.float64)
    if init == "spectral":
        return np.eye(K)[spectral_labels(Z, K, random_state=rng)]
    if init == "max-margin":
        return np.eye(K)[margin_search_start(Z, K, rng)]
    if init == "gmm":
        from sklearn.mixture import GaussianMixture

        d = Z.shape[1]
        covariance_type = gmm_covariance_type(d)
        if covariance_type == "full":
            # full covariances, their precisions' factors and the M-step's products:
            # measured 9 d^2 float64 for two components (d = 1000, 2000)
            check_memory(8.0 * (5 * K * d * d + 4 * n * d),
                         f"The Gaussian-mixture start (full covariances, n_features={d})",
                         "use init='k-means' (no covariance matrices) or fewer features "
                         "(e.g. sklearn.decomposition.PCA)")
        gmm = GaussianMixture(n_components=K, covariance_type=covariance_type,
                              random_state=rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gmm.fit(Z)
        return gmm.predict_proba(Z)
    if init == "k-means":
        return np.eye(K)[kmeans_partition(Z, K, rng)]
    if init == "random-weights":
        return rng.uniform(size=(n, K))
    W = np.zeros((n, K))
    W[np.arange(n), random_partition(n, K, rng)] = 1.0
    return W


"""Baseline methods every paper compares against: K-means, FCM and their kernel versions.

Kernel widths follow the SLMC paper (Sec. 4.1): ``sigma`` is searched over
``{0.25, 0.5, 1, 2, 4} x sigma0``, where ``sigma0`` is the mean distance between
all pairs of samples. That width depends on the data, so the kernel factories
return a :class:`Sigma0Scaled` wrapper that measures ``sigma0`` inside ``fit``
(part of the timed fit, as it would be for a user) and passes the resulting
width to the kernel estimator.

Estimators are imported inside the factories, so registering the methods never
needs a module that is still being written.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, clone

from .._registry import Method, register_method

__all__ = ["SIGMA_MULTIPLES", "Sigma0Scaled", "mean_pairwise_distance"]

# SLMC Sec. 4.1: kernel widths as multiples of the mean pairwise distance.
SIGMA_MULTIPLES = (0.25, 0.5, 1.0, 2.0, 4.0)


def mean_pairwise_distance(
    X: np.ndarray, *, max_samples: int = 2000, random_state: int | None = 0
) -> float:
    """Mean Euclidean distance over all pairs of distinct samples (``sigma0``).

    Above ``max_samples`` samples the mean is taken over a seeded random subset of
    that size (an unbiased estimate; the full n x n matrix is never formed).
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if n > max_samples:
        idx = np.random.RandomState(random_state).choice(n, max_samples, replace=False)
        X = X[idx]
        n = max_samples
    if n < 2:
        raise ValueError("sigma0 needs at least two samples.")
    sq = np.einsum("ij,ij->i", X, X)
    total = 0.0
    block = 512
    for start in range(0, n, block):
        rows = X[start : start + block]
        d2 = np.maximum(sq[start : start + block, None] - 2.0 * rows @ X.T + sq[None, :], 0.0)
        # The diagonal is exactly zero; round-off there would add sqrt(eps)-sized terms.
        d2[np.arange(rows.shape[0]), np.arange(start, start + rows.shape[0])] = 0.0
        total += float(np.sqrt(d2).sum())
    return total / (n * (n - 1))


class Sigma0Scaled(ClusterMixin, BaseEstimator):
    """Fit a kernel clusterer with RBF width ``sigma_factor * sigma0(X)``.

    Parameters
    ----------
    estimator : estimator
        A kernel clusterer with a ``sigma`` (RBF width) or ``gamma``
        (``exp(-gamma ||x - y||^2)``) parameter.
    sigma_factor : float, default=1.0
        Multiple of the mean pairwise distance ``sigma0``.

    Attributes
    ----------
    estimator_ : estimator
        The fitted copy; its fitted attributes (``labels_``,
        ``memberships_``, ...) are readable on the wrapper.
    sigma_ : float
        The width used.
    """

    def __init__(self, estimator: Any = None, *, sigma_factor: float = 1.0) -> None:
        self.estimator = estimator
        self.sigma_factor = sigma_factor

    def fit(self, X: Any, y: Any = None) -> Sigma0Scaled:
        """Measure ``sigma0`` on ``X``, set the width and fit a copy of the estimator."""
        X = np.asarray(X, dtype=np.float64)
        self.sigma_ = float(self.sigma_factor) * mean_pairwise_distance(X)
        estimator = clone(self.estimator)
        params = estimator.get_params(deep=False)
        if "gamma" in params:
            estimator.set_params(gamma=1.0 / (2.0 * self.sigma_**2))
        elif "sigma" in params:
            estimator.set_params(sigma=self.sigma_)
        else:
            raise ValueError(
                f"{type(estimator).__name__} has neither a 'sigma' nor a 'gamma' parameter."
            )
        self.estimator_ = estimator.fit(X)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Cluster labels from the fitted estimator."""
        return self.estimator_.predict(X)

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_") and not name.startswith("__") and "estimator_" in self.__dict__:
            return getattr(self.__dict__["estimator_"], name)
        raise AttributeError(name)


def make_kmeans(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """scikit-learn :class:`~sklearn.cluster.KMeans` (k-means++ unless ``init`` given)."""
    from sklearn.cluster import KMeans

    params.setdefault("n_init", 10)
    return KMeans(n_clusters=n_clusters, random_state=random_state, **params)


def make_fcm(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """:class:`marginclust.FuzzyCMeans` (m = 2 unless given)."""
    from marginclust import FuzzyCMeans

    params.setdefault("m", 2.0)
    return FuzzyCMeans(n_clusters=n_clusters, random_state=random_state, **params)


def _kernel(cls_name: str, n_clusters: int, random_state: int | None, params: dict) -> Any:
    import marginclust

    factor = params.pop("sigma_factor", 1.0)
    estimator = getattr(marginclust, cls_name)(
        n_clusters=n_clusters, random_state=random_state, **params
    )
    return Sigma0Scaled(estimator, sigma_factor=factor)


def make_kernel_kmeans(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """:class:`marginclust.KernelKMeans` with RBF width ``sigma_factor * sigma0``."""
    return _kernel("KernelKMeans", n_clusters, random_state, dict(params))


def make_kernel_fcm(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """:class:`marginclust.KernelFuzzyCMeans` (m = 2) with width ``sigma_factor * sigma0``."""
    params = dict(params)
    params.setdefault("m", 2.0)
    return _kernel("KernelFuzzyCMeans", n_clusters, random_state, params)


register_method(
    Method(
        "kmeans",
        make_kmeans,
        grid={"n_init": [1]},
        defaults={"n_init": 10},
        notes="scikit-learn KMeans, k-means++; paper protocol: one initialisation per run "
        "(the papers' 20 independent runs); default: best of 10 initialisations",
    )
)
register_method(
    Method(
        "fcm",
        make_fcm,
        grid={"m": [2.0], "n_init": [1]},
        defaults={"m": 2.0},
        notes="marginclust FuzzyCMeans, m = 2 as in SLMC Sec. 4.1; paper protocol: one "
        "initialisation per run",
    )
)
register_method(
    Method(
        "kernel-kmeans",
        make_kernel_kmeans,
        grid={"sigma_factor": list(SIGMA_MULTIPLES)},
        defaults={"sigma_factor": 1.0},
        notes="RBF width sigma = sigma_factor x sigma0 (mean pairwise distance), SLMC Sec. 4.1",
    )
)
register_method(
    Method(
        "kernel-fcm",
        make_kernel_fcm,
        grid={"sigma_factor": list(SIGMA_MULTIPLES)},
        defaults={"sigma_factor": 1.0},
        notes="kernel FCM with data-space centres (SLMC eq. 15), m = 2, RBF width "
        "sigma = sigma_factor x sigma0",
    )
)

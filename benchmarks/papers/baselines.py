"""Baseline methods every paper compares against: K-means, FCM and their kernel versions.

Kernel widths follow the SLMC paper (Sec. 4.1): ``sigma`` in ``{0.25, 0.5, 1, 2, 4} x
sigma0`` (the mean pairwise distance), measured inside the timed ``fit`` by the
:class:`Sigma0Scaled` wrapper the kernel factories return.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, clone

from marginclust.bench import Method, register_method
from marginclust.feature_maps import mean_pairwise_distance

from ._common import Delegating

__all__ = ["SIGMA_MULTIPLES", "Sigma0Scaled", "mean_pairwise_distance"]

# SLMC Sec. 4.1: kernel widths as multiples of the mean pairwise distance.
SIGMA_MULTIPLES = (0.25, 0.5, 1.0, 2.0, 4.0)


class Sigma0Scaled(Delegating, ClusterMixin, BaseEstimator):
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
        The fitted copy (its fitted attributes are readable on the wrapper).
    sigma_ : float
        The width used.
    """

    def __init__(self, estimator: Any = None, *, sigma_factor: float = 1.0) -> None:
        self.estimator = estimator
        self.sigma_factor = sigma_factor

    def fit(self, X: Any, y: Any = None) -> Sigma0Scaled:
        """Measure ``sigma0`` on ``X``, set the width and fit a copy of the estimator."""
        X = np.asarray(X, dtype=np.float64)
        self.sigma_ = float(self.sigma_factor) * mean_pairwise_distance(X, random_state=0)
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


def make_kmeans(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """scikit-learn :class:`~sklearn.cluster.KMeans` (k-means++; ``n_init=10`` unless given)."""
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=n_clusters, random_state=random_state, **{"n_init": 10, **params})


def make_fcm(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
    """:class:`marginclust.FuzzyCMeans` (m = 2 unless given)."""
    from marginclust import FuzzyCMeans

    return FuzzyCMeans(n_clusters=n_clusters, random_state=random_state, **{"m": 2.0, **params})


def _kernel(cls_name: str, defaults: dict[str, Any]) -> Any:
    def make(*, n_clusters: int, random_state: int | None, **params: Any) -> Any:
        import marginclust

        params = {**defaults, **params}
        factor = params.pop("sigma_factor", 1.0)
        est = getattr(marginclust, cls_name)(n_clusters=n_clusters, random_state=random_state,
                                             **params)
        return Sigma0Scaled(est, sigma_factor=factor)

    make.__doc__ = f":class:`marginclust.{cls_name}` with RBF width ``sigma_factor * sigma0``."
    return make


make_kernel_kmeans = _kernel("KernelKMeans", {})
make_kernel_fcm = _kernel("KernelFuzzyCMeans", {"m": 2.0})
_WIDTHS = {"sigma_factor": list(SIGMA_MULTIPLES)}
for _method in (
    Method("kmeans", make_kmeans, grid={"n_init": [1]}, defaults={"n_init": 10},
           notes="scikit-learn KMeans, k-means++; paper protocol: one initialisation per run "
           "(the papers' 20 independent runs); default: best of 10 initialisations"),
    Method("fcm", make_fcm, grid={"m": [2.0], "n_init": [1]}, defaults={"m": 2.0},
           notes="marginclust FuzzyCMeans, m = 2 as in SLMC Sec. 4.1; paper protocol: one "
           "initialisation per run"),
    Method("kernel-kmeans", make_kernel_kmeans, grid=_WIDTHS, defaults={"sigma_factor": 1.0},
           notes="RBF width sigma = sigma_factor x sigma0 (mean pairwise distance), SLMC Sec. "
           "4.1"),
    Method("kernel-fcm", make_kernel_fcm, grid=_WIDTHS, defaults={"sigma_factor": 1.0},
           notes="kernel FCM with data-space centres (SLMC eq. 15), m = 2, RBF width "
           "sigma = sigma_factor x sigma0"),
):
    register_method(_method)

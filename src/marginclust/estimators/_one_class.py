"""What WOC-SVM and OC-SVM hard clustering share: parameter constraints, starts, the grid."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from ..feature_maps._one_class import prepare_one_class_data
from ..objectives._weighted_ocsvm import KERNELS
from ..utils import Constraint, OneOf, kmeans_start
from ..utils._memory import check_memory

__all__ = [
    "DECISION_SCALE",
    "KERNEL_NU",
    "N_COMPONENTS",
    "initial_weights",
    "kmeans_partition",
    "one_class_label_free_grid",
    "random_partition",
]


def _nu(value: Any, name: str) -> float:
    """The one-class SVM's ``nu``: a number in ``(0, 1]``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number in (0, 1]; got {value!r}.")
    if not (np.isfinite(value) and 0 < value <= 1):
        raise ValueError(f"{name} must be in (0, 1]; got {value!r}.")
    return float(value)


def _n_components(value: Any, name: str) -> None:
    """``None`` (exact kernel), ``"auto"`` or a positive int (Nystroem components)."""
    if value is None or (isinstance(value, str) and value == "auto"):
        return
    if isinstance(value, str):
        raise ValueError(f"{name} must be an int, 'auto' or None; got {value!r}.")
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive int, 'auto' or None; got {value!r}.")


# The parameters both estimators have, in the order of their tables.
KERNEL_NU: dict[str, Constraint] = {"kernel": OneOf(KERNELS), "nu": _nu}
DECISION_SCALE = OneOf(
    ("libsvm", "normalized"), "decision_scale must be 'libsvm' or 'normalized'; got {value!r}."
)
N_COMPONENTS: Constraint = _n_components


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

    ``"gmm"``: responsibilities of a Gaussian mixture (``Z`` is centred with unit
    peak, so GaussianMixture's absolute ``reg_covar`` is relative to the data's
    spread: the start is scale-free); ``"k-means"``: the one-hot
    :func:`kmeans_partition`; ``"random-weights"``: independent uniform weights;
    ``"random-points"``: the one-hot :func:`random_partition`; an array: given
    (validated) weights.
    """
    n, K = Z.shape[0], n_clusters
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.float64)
    if init == "gmm":
        from sklearn.mixture import GaussianMixture

        d = Z.shape[1]
        # full covariances, their precisions' factors and the M-step's products:
        # measured 9 d^2 float64 for two components (d = 1000, 2000)
        check_memory(8.0 * (5 * K * d * d + 4 * n * d),
                     f"The Gaussian-mixture start (full covariances, n_features={d})",
                     "use init='k-means' (no covariance matrices) or fewer features "
                     "(e.g. sklearn.decomposition.PCA)")

        gmm = GaussianMixture(n_components=K, random_state=rng)
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


def one_class_label_free_grid(kernel: str, X: Any) -> dict[str, list[Any]]:
    """Kernel widths around sigma0 (x 1/4 .. 2 in gamma) and nu in {0.8, 0.9, 0.95}."""
    if kernel == "linear":
        return {"nu": [0.8, 0.9, 0.95]}
    g = prepare_one_class_data(
        np.asarray(X, dtype=np.float64), kernel="rbf", gamma="sigma0", n_components=None,
        random_state=0, cache_kernel=False,
    ).gamma_user
    return {"gamma": [g / 4, g / 2, g, 2 * g], "nu": [0.8, 0.9, 0.95]}

"""What WOC-SVM and OC-SVM hard clustering share: parameter constraints, starts, the grid."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from ..feature_maps._one_class import AUTO_COMPONENTS, EXACT_MAX_SAMPLES, prepare_one_class_data
from ..objectives._weighted_ocsvm import KERNELS
from ..starts._kmeans import kmeans_start
from ..starts._margin_start import margin_search_start
from ..starts._spectral import spectral_labels
from ..utils import Constraint, OneOf
from ..utils._memory import check_memory

__all__ = [
    "DECISION_SCALE",
    "GMM_FULL_MAX_FEATURES",
    "KERNEL_NU",
    "N_COMPONENTS",
    "gmm_covariance_type",
    "initial_weights",
    "kmeans_partition",
    "one_class_label_free_grid",
    "one_class_subset_params",
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
    ("libsvm", "normalized", "relative"),
    "decision_scale must be 'libsvm', 'normalized' or 'relative'; got {value!r}.",
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


def one_class_subset_params(kernel: str, n_components: Any, n_fit: int,
                            n_total: int) -> dict[str, Any]:
    """Keep the low-rank mode of a fit on ``n_total`` rows on a subset of ``n_fit`` rows.

    With ``n_components="auto"`` a model-selection subset at or below
    ``EXACT_MAX_SAMPLES`` rows would switch to the exact kernel (an n x n matrix
    and a different model) while the refit on all rows uses the rank-300 map;
    subsets up to twice ``AUTO_COMPONENTS`` rows keep the exact kernel, no dearer.
    """
    if kernel == "linear" or not (isinstance(n_components, str) and n_components == "auto"):
        return {}
    if n_total <= EXACT_MAX_SAMPLES or n_fit <= 2 * AUTO_COMPONENTS:
        return {}
    return {"n_components": AUTO_COMPONENTS}


def one_class_label_free_grid(kernel: str, X: Any, rule: str = "sigma0") -> dict[str, list[Any]]:
    """Kernel widths around the rule's (x 1/4 .. 2 in gamma) and nu in {0.8, 0.9, 0.95}."""
    if kernel == "linear":
        return {"nu": [0.8, 0.9, 0.95]}
    data = prepare_one_class_data(
        np.asarray(X, dtype=np.float64), kernel="rbf", gamma=rule, n_components=None,
        random_state=0, cache_kernel=False,
    )
    g = data.gamma_user
    if not (np.finfo(np.float64).tiny * 4 <= g <= np.finfo(np.float64).max / 4):
        # the fit itself works in rescaled units; a grid is in the user's units
        raise ValueError(
            f"The kernel widths around gamma={rule!r} on these data are about "
            f"2**{-2 * data.exponent} (their spread is about 2**{data.exponent}): beyond "
            "the float range. Rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    return {"gamma": [g / 4, g / 2, g, 2 * g], "nu": [0.8, 0.9, 0.95]}

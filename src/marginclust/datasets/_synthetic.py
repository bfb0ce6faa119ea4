"""Seeded synthetic data sets from the papers (for tests, examples and tables)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_four_gaussians", "make_pkm_310"]

# SLMC (Wang & Chen 2013) Table 2: means and (isotropic) covariances.
_FOUR_MEANS = np.array([[0.0, 0.0], [0.0, 1.5], [1.6, 0.0], [1.0, 1.5]])
_FOUR_VARS = np.array([0.2, 0.1, 0.2, 0.1])

# PKM artificial set: sizes from the paper; means/covariances are our choice (not stated).
_PKM_SIZES = (150, 150, 5, 5)
_PKM_MEANS = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 6.0], [3.0, -6.0]])
_PKM_VARS = np.array([0.5, 0.5, 0.1, 0.1])


def _gaussians(
    sizes: tuple[int, ...] | list[int],
    means: np.ndarray,
    variances: np.ndarray,
    random_state: int | np.random.RandomState | None,
) -> tuple[np.ndarray, np.ndarray]:
    rng = check_random_state(random_state)
    parts = [
        means[k] + np.sqrt(variances[k]) * rng.standard_normal((n, means.shape[1]))
        for k, n in enumerate(sizes)
    ]
    X = np.vstack(parts).astype(np.float64)
    y = np.repeat(np.arange(len(sizes), dtype=np.intp), sizes)
    return X, y


def make_four_gaussians(
    n_per_cluster: int = 100, *, random_state: int | np.random.RandomState | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Four 2-D Gaussian clusters of the SLMC paper (Wang & Chen 2013, Table 2).

    Means (0, 0), (0, 1.5), (1.6, 0), (1, 1.5); covariances 0.2 I, 0.1 I, 0.2 I,
    0.1 I (the table gives covariance matrices, so the standard deviations are
    their square roots); 100 points per class in the paper.

    Parameters
    ----------
    n_per_cluster : int, default=100
        Points drawn from each Gaussian.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible draws.

    Returns
    -------
    X : ndarray of shape (4 * n_per_cluster, 2)
        Points, ordered by class.
    y : ndarray of shape (4 * n_per_cluster,)
        Class 0..3 in the order of the table's columns.
    """
    if (
        isinstance(n_per_cluster, bool)
        or not isinstance(n_per_cluster, numbers.Integral)
        or n_per_cluster < 1
    ):
        raise ValueError(f"n_per_cluster must be a positive integer; got {n_per_cluster!r}.")
    sizes = (int(n_per_cluster),) * 4
    return _gaussians(sizes, _FOUR_MEANS, _FOUR_VARS, random_state)


def make_pkm_310(
    *, random_state: int | np.random.RandomState | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The 310-point, 4-class 2-D artificial set of the PKM paper (Sec. IV-A, Table II).

    The paper gives only the sizes (150, 150, 5, 5 points) and a figure; the means
    and covariances are our choice: two large isotropic Gaussians at (0, 0) and
    (6, 0) with covariance 0.5 I, and two tight 5-point groups at (3, 6) and
    (3, -6) with covariance 0.1 I, above and below the gap between them. With these
    values the true partition is the K-means optimum, but a random or k-means++
    start can split a large class and merge the small ones, which is what the
    paper's initialisation-robustness count (Table II) measures. In our trials
    K-means++ with one start recovered the partition in about 95% of runs (the
    paper reports 645 of 1000 on its own set), so absolute counts are not
    comparable with the paper's.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible draws.

    Returns
    -------
    X : ndarray of shape (310, 2)
        Points, ordered by class.
    y : ndarray of shape (310,)
        Class 0, 1 (150 points each), 2, 3 (5 points each).
    """
    return _gaussians(_PKM_SIZES, _PKM_MEANS, _PKM_VARS, random_state)

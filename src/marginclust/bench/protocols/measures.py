"""Measures the papers report, registered for the benchmark harness.

Every measure is called as ``func(y_true, labels, memberships, X)`` and returns a
float. ``memberships`` (samples as rows) is None for hard methods; the fuzzy
indices (PC, PE, XB) are then undefined and return NaN rather than the trivial
values of a one-hot partition. Cluster centres for the Xie-Beni indices are the
membership-weighted means ``v_k = sum_i u_ki^m x_i / sum_i u_ki^m`` with ``m = 2``
(the FCM centre update, so FCM's own centres at convergence), which is how the
SLMC paper evaluates methods that have no data-space centres of their own.

:mod:`marginclust.metrics` is imported inside each function, so importing this
module never fails even while the metrics are being built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._registry import Measure, register_measure

__all__: list[str] = []


def _metrics() -> Any:
    import marginclust.metrics as metrics

    return metrics


def _soft(memberships: Any) -> np.ndarray | None:
    if memberships is None:
        return None
    U = np.asarray(memberships, dtype=np.float64)
    if U.ndim != 2:
        return None
    return U


def _weighted_centers(X: np.ndarray, U: np.ndarray, m: float = 2.0) -> np.ndarray:
    W = U**m
    totals = W.sum(axis=0)
    totals = np.where(totals > 0, totals, 1.0)
    return (W.T @ np.asarray(X, dtype=np.float64)) / totals[:, None]


def ca_majority(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Clustering accuracy, each cluster mapped to its majority class (SLMC eq. 16)."""
    return float(_metrics().clustering_accuracy(y_true, labels, mapping="majority"))


def ca_hungarian(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Clustering accuracy under the best one-to-one cluster/class mapping (EMMC eq. 15)."""
    return float(_metrics().clustering_accuracy(y_true, labels, mapping="hungarian"))


def nmi(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Normalised mutual information (arithmetic averaging, scikit-learn's default)."""
    return float(_metrics().normalized_mutual_info(y_true, labels))


def ari(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Adjusted Rand index."""
    return float(_metrics().adjusted_rand_index(y_true, labels))


def rand(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Rand index (EMMC eq. 16)."""
    return float(_metrics().rand_index(y_true, labels))


def v_measure(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """V-measure."""
    return float(_metrics().v_measure(y_true, labels))


def sse(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Sum of squared distances to the cluster means of the hard partition (PKM eq. 40)."""
    return float(_metrics().sse(X, labels))


def dbi(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Davies-Bouldin index of the hard partition (NaN with fewer than two clusters)."""
    if np.unique(np.asarray(labels)).size < 2:
        return float("nan")
    return float(_metrics().davies_bouldin(X, labels))


def pc(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Partition coefficient (SLMC eq. 17); NaN for hard methods."""
    U = _soft(memberships)
    return float("nan") if U is None else float(_metrics().partition_coefficient(U))


def pe(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Partition entropy with log base 2 (SLMC eq. 18); NaN for hard methods."""
    U = _soft(memberships)
    return float("nan") if U is None else float(_metrics().partition_entropy(U))


def xb(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Xie-Beni index in data space (SLMC eq. 19) with m = 2; NaN for hard methods."""
    U = _soft(memberships)
    if U is None:
        return float("nan")
    X = np.asarray(X, dtype=np.float64)
    return float(_metrics().xie_beni(X, U, _weighted_centers(X, U), m=2))


def xb_kernel(
    y_true: Any, labels: Any, memberships: Any, X: Any, *, estimator: Any = None
) -> float:
    """Xie-Beni index in RBF kernel space (SLMC eq. 21) with the fitted width ``sigma_``.

    Centres are the u^2-weighted means in data space (SLMC eq. 15). An estimator
    without a fitted RBF width (``sigma_`` missing or None, e.g. a linear kernel)
    gets the data-space index (eq. 19). NaN for hard methods.
    """
    U = _soft(memberships)
    if U is None:
        return float("nan")
    X = np.asarray(X, dtype=np.float64)
    sigma = getattr(estimator, "sigma_", None) if estimator is not None else None
    centers = _weighted_centers(X, U)
    if sigma is None or getattr(estimator, "kernel", "rbf") != "rbf":
        return float(_metrics().xie_beni(X, U, centers, m=2))
    return float(_metrics().kernel_xie_beni(X, U, centers, float(sigma), m=2))


def n_clusters_found(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Number of non-empty clusters (detects collapsed solutions)."""
    return float(np.unique(np.asarray(labels)).size)


def correct(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """1.0 if the partition is the true one up to relabelling (ARI = 1), else 0.0.

    Summed over runs it counts the starts that found the true partition.
    """
    return float(_metrics().adjusted_rand_index(y_true, labels) == 1.0)


def xb_own_m(
    y_true: Any, labels: Any, memberships: Any, X: Any, *, estimator: Any = None
) -> float:
    """Xie-Beni (eq. 19) with the estimator's own data-space centres and fuzzifier ``m``.

    For FCM at any ``m`` (its centres are the u^m-weighted means); an estimator
    without data-space centres (SLMC) gets :func:`xb` (u^2-weighted centres).
    """
    U = _soft(memberships)
    centers = getattr(estimator, "cluster_centers_", None)
    m = getattr(estimator, "m", None)
    if U is None or centers is None or m is None:
        return xb(y_true, labels, memberships, X)
    return float(_metrics().xie_beni(X, U, np.asarray(centers), m=float(m)))


def error(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Clustering error, ``1 - ca_hungarian`` (EMMC's Tables 3-4, printed in %)."""
    return 1.0 - ca_hungarian(y_true, labels, memberships, X)


def objective(
    y_true: Any, labels: Any, memberships: Any, X: Any, *, estimator: Any = None
) -> float:
    """The fitted estimator's final objective (``objective_``), NaN without one."""
    value = getattr(estimator, "objective_", None)
    return float("nan") if value is None else float(value)


for _name, _func, _greater in [
    ("ca_majority", ca_majority, True),
    ("ca_hungarian", ca_hungarian, True),
    ("nmi", nmi, True),
    ("ari", ari, True),
    ("rand", rand, True),
    ("v_measure", v_measure, True),
    ("sse", sse, False),
    ("dbi", dbi, False),
    ("pc", pc, True),
    ("pe", pe, False),
    ("xb", xb, False),
    ("n_clusters_found", n_clusters_found, True),
    ("correct", correct, True),
    ("error", error, False),
]:
    register_measure(Measure(_name, _func, greater_is_better=_greater))
register_measure(Measure("xb_kernel", xb_kernel, greater_is_better=False, needs_estimator=True))
register_measure(Measure("objective", objective, greater_is_better=False, needs_estimator=True))
register_measure(Measure("xb_own_m", xb_own_m, greater_is_better=False, needs_estimator=True))

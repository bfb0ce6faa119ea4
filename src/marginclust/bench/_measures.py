"""The measures of :mod:`marginclust.metrics`, registered by name for the harness.

These are the measures the papers report (clustering accuracy under either
mapping, NMI, ARI, Rand, V-measure, SSE, DBI, PC, PE, Xie-Beni) plus counts a
table may need (non-empty clusters, exact partitions, the fitted objective); a
benchmark registers any other with :func:`~marginclust.bench.register_measure`.
Every measure is called as ``func(y_true, labels, memberships, X)`` and returns a
float. ``memberships`` (samples as rows) is None for hard methods; the fuzzy
indices (PC, PE, XB) are then NaN rather than the trivial values of a one-hot
partition. Xie-Beni centres are the membership-weighted means with ``m = 2`` (the
FCM centre update), as the SLMC paper evaluates methods without data-space centres.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ._registry import Measure, register_measure

__all__: list[str] = []
NAN = float("nan")


def _metrics() -> Any:
    import marginclust.metrics as metrics

    return metrics


def _soft(memberships: Any) -> np.ndarray | None:
    U = None if memberships is None else np.asarray(memberships, dtype=np.float64)
    return U if U is not None and U.ndim == 2 else None


def _weighted_centers(X: np.ndarray, U: np.ndarray, m: float = 2.0) -> np.ndarray:
    W = U**m
    totals = W.sum(axis=0)
    return (W.T @ np.asarray(X, dtype=np.float64)) / np.where(totals > 0, totals, 1.0)[:, None]


# Measures are module-level functions or partials of them (picklable for joblib workers).
def _labels(name: str, kw: dict[str, Any], y_true: Any, labels: Any, U: Any, X: Any) -> float:
    """A measure of the partition alone: ``marginclust.metrics.<name>(y_true, labels)``."""
    return float(getattr(_metrics(), name)(y_true, labels, **kw))


def _fuzzy(name: str, y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """A fuzzy index ``marginclust.metrics.<name>(U)`` (SLMC eqs. 17-18); NaN for hard methods."""
    U = _soft(memberships)
    return NAN if U is None else float(getattr(_metrics(), name)(U))


def _attribute(name: str, y_true: Any, labels: Any, U: Any, X: Any, *, estimator: Any) -> float:
    """The fitted estimator's ``name`` (e.g. ``objective_``), NaN without one."""
    value = getattr(estimator, name, None)
    return NAN if value is None else float(value)


def n_clusters_found(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Number of non-empty clusters (detects collapsed solutions)."""
    return float(np.unique(np.asarray(labels)).size)


def correct(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """1 if the partition is the true one up to relabelling (ARI = 1): summed, a count."""
    return float(_metrics().adjusted_rand_index(y_true, labels) == 1.0)


def error(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Clustering error, ``1 - ca_hungarian`` (EMMC's Tables 3-4, printed in %)."""
    return 1.0 - _labels("clustering_accuracy", {"mapping": "hungarian"}, y_true, labels, None, X)


def sse(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Sum of squared distances to the cluster means of the hard partition (PKM eq. 40)."""
    return float(_metrics().sse(X, labels))


def dbi(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Davies-Bouldin index of the hard partition (NaN with fewer than two clusters)."""
    if np.unique(np.asarray(labels)).size < 2:
        return NAN
    return float(_metrics().davies_bouldin(X, labels))


def xb(y_true: Any, labels: Any, memberships: Any, X: Any) -> float:
    """Xie-Beni index in data space (SLMC eq. 19) with m = 2; NaN for hard methods."""
    U = _soft(memberships)
    if U is None:
        return NAN
    X = np.asarray(X, dtype=np.float64)
    return float(_metrics().xie_beni(X, U, _weighted_centers(X, U), m=2))


def xb_kernel(
    y_true: Any, labels: Any, memberships: Any, X: Any, *, estimator: Any = None
) -> float:
    """Xie-Beni index in RBF kernel space (SLMC eq. 21) with the fitted width ``sigma_``.

    Centres are the u^2-weighted means in data space (SLMC eq. 15); without a
    fitted RBF width (a linear kernel) the data-space index (eq. 19).
    """
    U = _soft(memberships)
    if U is None:
        return NAN
    X = np.asarray(X, dtype=np.float64)
    sigma = getattr(estimator, "sigma_", None) if estimator is not None else None
    centers = _weighted_centers(X, U)
    if sigma is None or getattr(estimator, "kernel", "rbf") != "rbf":
        return float(_metrics().xie_beni(X, U, centers, m=2))
    return float(_metrics().kernel_xie_beni(X, U, centers, float(sigma), m=2))


def xb_own_m(
    y_true: Any, labels: Any, memberships: Any, X: Any, *, estimator: Any = None
) -> float:
    """Xie-Beni (eq. 19) with the estimator's own centres and ``m`` (FCM's u^m-weighted
    means); an estimator without data-space centres (SLMC) gets :func:`xb`."""
    U = _soft(memberships)
    centers = getattr(estimator, "cluster_centers_", None)
    m = getattr(estimator, "m", None)
    if U is None or centers is None or m is None:
        return xb(y_true, labels, memberships, X)
    return float(_metrics().xie_beni(X, U, np.asarray(centers), m=float(m)))


_MEASURES: list[tuple[str, Callable[..., float], bool]] = [
    # SLMC eq. 16: each cluster mapped to its majority class
    ("ca_majority", partial(_labels, "clustering_accuracy", {"mapping": "majority"}), True),
    # the best one-to-one cluster/class mapping (EMMC eq. 15)
    ("ca_hungarian", partial(_labels, "clustering_accuracy", {"mapping": "hungarian"}), True),
    ("nmi", partial(_labels, "normalized_mutual_info", {}), True),
    ("ari", partial(_labels, "adjusted_rand_index", {}), True),
    ("rand", partial(_labels, "rand_index", {}), True),  # EMMC eq. 16
    ("v_measure", partial(_labels, "v_measure", {}), True),
    ("sse", sse, False),
    ("dbi", dbi, False),
    ("pc", partial(_fuzzy, "partition_coefficient"), True),
    ("pe", partial(_fuzzy, "partition_entropy"), False),  # log base 2
    ("xb", xb, False),
    ("n_clusters_found", n_clusters_found, True),
    ("correct", correct, True),
    ("error", error, False),
]
for _name, _func, _greater in _MEASURES:
    register_measure(Measure(_name, _func, greater_is_better=_greater))
_WITH_ESTIMATOR: list[tuple[str, Callable[..., float]]] = [
    ("xb_kernel", xb_kernel), ("objective", partial(_attribute, "objective_")),
    ("xb_own_m", xb_own_m), ("n_released", partial(_attribute, "n_released_")),
]
for _name, _func in _WITH_ESTIMATOR:
    register_measure(Measure(_name, _func, greater_is_better=_name == "n_released",
                             needs_estimator=True))

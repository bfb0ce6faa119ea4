"""External (label-based) agreement indices computed from the contingency table.

These are our own implementations (checked against scikit-learn in the tests):
Rand index (EMMC eq. 16), adjusted Rand index (Hubert & Arabie), normalised mutual
information and the V-measure (Rosenberg & Hirschberg).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validation import check_label_pair, contingency

__all__ = ["adjusted_rand_index", "normalized_mutual_info", "rand_index", "v_measure"]


def _pairs(counts: np.ndarray) -> float:
    counts = counts.astype(np.float64)
    return float(np.sum(counts * (counts - 1.0)) / 2.0)


def rand_index(y_true: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Rand index: fraction of sample pairs on which the two partitions agree.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference partition.
    labels : array-like of shape (n_samples,)
        Partition to evaluate.

    Returns
    -------
    ri : float
        In ``[0, 1]``; 1 when the partitions coincide up to relabelling (and for a
        single sample, where there are no pairs).
    """
    yt, lb = check_label_pair(y_true, labels)
    n = yt.shape[0]
    total = n * (n - 1) / 2.0
    if total == 0:
        return 1.0
    table = contingency(yt, lb)
    same_both = _pairs(table)
    same_true = _pairs(table.sum(axis=1))
    same_pred = _pairs(table.sum(axis=0))
    disagree = same_true + same_pred - 2.0 * same_both
    return float((total - disagree) / total)


def adjusted_rand_index(y_true: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985): Rand index corrected for chance.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference partition.
    labels : array-like of shape (n_samples,)
        Partition to evaluate.

    Returns
    -------
    ari : float
        1 for identical partitions, about 0 for independent ones, may be negative.
        When both partitions are trivial (one cluster each, or every sample alone)
        the index is 1 by convention.
    """
    yt, lb = check_label_pair(y_true, labels)
    n = yt.shape[0]
    table = contingency(yt, lb)
    index = _pairs(table)
    a = _pairs(table.sum(axis=1))
    b = _pairs(table.sum(axis=0))
    total = n * (n - 1) / 2.0
    if total == 0:
        return 1.0
    expected = a * b / total
    max_index = (a + b) / 2.0
    if max_index == expected:
        return 1.0
    return float((index - expected) / (max_index - expected))


def _entropy(counts: np.ndarray) -> float:
    counts = counts[counts > 0].astype(np.float64)
    p = counts / counts.sum()
    return float(-np.sum(p * np.log(p)))


def _mutual_info(table: np.ndarray) -> float:
    n = table.sum()
    rows, cols = np.nonzero(table)
    nij = table[rows, cols].astype(np.float64)
    a = table.sum(axis=1).astype(np.float64)[rows]
    b = table.sum(axis=0).astype(np.float64)[cols]
    mi = np.sum(nij / n * (np.log(nij) + np.log(n) - np.log(a) - np.log(b)))
    return float(max(mi, 0.0))


def normalized_mutual_info(
    y_true: npt.ArrayLike, labels: npt.ArrayLike, *, average_method: str = "arithmetic"
) -> float:
    """Normalised mutual information ``MI / mean(H(y_true), H(labels))``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference partition.
    labels : array-like of shape (n_samples,)
        Partition to evaluate.
    average_method : {"arithmetic", "geometric", "min", "max"}, default="arithmetic"
        How the two entropies are averaged in the denominator. The default,
        the arithmetic mean, is scikit-learn's default and makes NMI equal to the
        V-measure with ``beta=1``; ``"geometric"`` is Strehl & Ghosh's original NMI.

    Returns
    -------
    nmi : float
        In ``[0, 1]``; 1 when both partitions are identical (including the case
        where both put every sample in one cluster).
    """
    means = {
        "arithmetic": lambda h1, h2: (h1 + h2) / 2.0,
        "geometric": lambda h1, h2: np.sqrt(h1 * h2),
        "min": min,
        "max": max,
    }
    if average_method not in means:
        raise ValueError(
            f"average_method must be one of {sorted(means)}; got {average_method!r}."
        )
    yt, lb = check_label_pair(y_true, labels)
    table = contingency(yt, lb)
    if table.shape[0] == table.shape[1] == 1:
        return 1.0
    h_true = _entropy(table.sum(axis=1))
    h_pred = _entropy(table.sum(axis=0))
    if h_true == 0.0 or h_pred == 0.0:
        return 0.0
    mi = _mutual_info(table)
    denom = float(means[average_method](h_true, h_pred))
    return float(min(mi / denom, 1.0))


def v_measure(y_true: npt.ArrayLike, labels: npt.ArrayLike, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference classes.
    labels : array-like of shape (n_samples,)
        Cluster labels.
    beta : float, default=1.0
        Weight of completeness relative to homogeneity (``beta > 1`` favours
        completeness).

    Returns
    -------
    v : float
        In ``[0, 1]``; 1 for a perfect match. Homogeneity (completeness) is 1 by
        convention when the classes (clusters) have zero entropy.
    """
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive finite number; got {beta!r}.")
    yt, lb = check_label_pair(y_true, labels)
    table = contingency(yt, lb)
    h_true = _entropy(table.sum(axis=1))
    h_pred = _entropy(table.sum(axis=0))
    mi = _mutual_info(table)
    homogeneity = 1.0 if h_true == 0.0 else mi / h_true
    completeness = 1.0 if h_pred == 0.0 else mi / h_pred
    if homogeneity + completeness == 0.0:
        return 0.0
    return float(
        (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    )

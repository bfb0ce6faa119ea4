"""External (label-based) agreement indices: thin validated wrappers of scikit-learn.

Rand index (EMMC eq. 16), adjusted Rand index (Hubert & Arabie), normalised mutual
information and the V-measure (Rosenberg & Hirschberg). scikit-learn computes them;
this module only validates the label pair with our messages and names the conventions.
"""

from __future__ import annotations

import numpy.typing as npt
from sklearn import metrics as skm

from ._validation import check_label_pair

__all__ = ["adjusted_rand_index", "normalized_mutual_info", "rand_index", "v_measure"]

_AVERAGE_METHODS = ("arithmetic", "geometric", "max", "min")


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
    return float(skm.rand_score(yt, lb))


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
    return float(skm.adjusted_rand_score(yt, lb))


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
    if average_method not in _AVERAGE_METHODS:
        raise ValueError(
            f"average_method must be one of {list(_AVERAGE_METHODS)}; got {average_method!r}."
        )
    yt, lb = check_label_pair(y_true, labels)
    return float(skm.normalized_mutual_info_score(yt, lb, average_method=average_method))


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
    if not isinstance(beta, int | float) or not beta > 0 or beta == float("inf"):
        raise ValueError(f"beta must be a positive finite number; got {beta!r}.")
    yt, lb = check_label_pair(y_true, labels)
    return float(skm.v_measure_score(yt, lb, beta=beta))

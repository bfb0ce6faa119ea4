"""Clustering accuracy (CA) under the majority or the one-to-one (Hungarian) mapping, and
the normalised clustering accuracy (NCA) of Gagolewski (2024)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.optimize import linear_sum_assignment

from ._validation import check_label_pair, contingency

__all__ = ["clustering_accuracy", "normalized_clustering_accuracy"]


def clustering_accuracy(
    y_true: npt.ArrayLike, labels: npt.ArrayLike, *, mapping: str = "hungarian"
) -> float:
    """Fraction of samples whose cluster maps to their class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth classes (any hashable, sortable values).
    labels : array-like of shape (n_samples,)
        Cluster labels (any values; only the partition matters).
    mapping : {"hungarian", "majority"}, default="hungarian"
        ``"hungarian"``: the best one-to-one assignment of clusters to classes
        (EMMC eq. 15), found with :func:`scipy.optimize.linear_sum_assignment` on
        the contingency table. When the numbers of clusters and classes differ,
        only ``min(n_clusters, n_classes)`` pairs are matched and the samples of
        unmatched clusters count as errors. ``"majority"``: each cluster takes its
        majority class (SLMC eq. 16, BMMC, WOC-SVM); several clusters may map to
        the same class, so this is never below the Hungarian value and reaches 1
        when every sample has its own cluster.

    Returns
    -------
    accuracy : float
        In ``[0, 1]``; 1 for a perfect match (up to relabelling).

    Raises
    ------
    ValueError
        On mismatched lengths, empty input, non-1-D labels or an unknown mapping.

    Examples
    --------
    >>> clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> clustering_accuracy([0, 0, 0, 1], [0, 1, 2, 2], mapping="majority")
    0.75
    """
    if mapping not in ("hungarian", "majority"):
        raise ValueError(f"mapping must be 'hungarian' or 'majority'; got {mapping!r}.")
    yt, lb = check_label_pair(y_true, labels)
    table = contingency(yt, lb)
    n = yt.shape[0]
    if mapping == "majority":
        return float(table.max(axis=0).sum() / n)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / n)


def normalized_clustering_accuracy(y_true: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Normalised clustering accuracy (NCA): mean class recall, 0 at random, 1 at best.

    The mean per-class recall under the best one-to-one matching of classes to
    clusters, rescaled so that 0 is a random partition and 1 a perfect one.
    With ``C`` the contingency table (rows: the ``K`` reference classes of sizes
    ``n_i``; columns: the clusters, padded with empty columns to at least ``K``),

    ``NCA = (max_sigma sum_i C[i, sigma(i)] / n_i - 1) / (K - 1)``

    over injections ``sigma`` of classes into clusters (Gagolewski, "Normalised
    clustering accuracy: an asymmetric external cluster validity measure", Journal
    of Classification, 2024). Each class weighs the same whatever its size, so a
    partition that merges a small class into a large one is penalised: this is the
    measure of Gagolewski's clustering benchmark framework. It is asymmetric: the
    reference comes first.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Reference partition (at least two classes).
    labels : array-like of shape (n_samples,)
        Partition to evaluate (any number of clusters).

    Returns
    -------
    nca : float
        At most 1 (a perfect match up to relabelling); 0 when every class spreads
        over the clusters as a uniformly random partition would; negative values
        are possible for worse-than-random matchings.

    Raises
    ------
    ValueError
        On mismatched lengths, empty input, non-1-D labels, or a reference with a
        single class (the measure is undefined there).

    Examples
    --------
    >>> normalized_clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> normalized_clustering_accuracy([0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0])
    0.0
    """
    yt, lb = check_label_pair(y_true, labels)
    table = contingency(yt, lb).astype(np.float64)
    n_classes = table.shape[0]
    if n_classes < 2:
        raise ValueError(
            "normalized_clustering_accuracy needs a reference with at least two classes; "
            "y_true has one."
        )
    if table.shape[1] < n_classes:  # fewer clusters than classes: empty columns
        table = np.hstack([table, np.zeros((n_classes, n_classes - table.shape[1]))])
    recall = table / table.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(recall, maximize=True)
    return float((recall[rows, cols].sum() - 1.0) / (n_classes - 1))

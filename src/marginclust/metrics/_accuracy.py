"""Clustering accuracy (CA) under the majority or the one-to-one (Hungarian) mapping."""

from __future__ import annotations

import numpy.typing as npt
from scipy.optimize import linear_sum_assignment

from ._validation import check_label_pair, contingency

__all__ = ["clustering_accuracy"]


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

"""Starts: the partitions and centres an iterative clusterer begins from.

Each start is written once here and used by every estimator that offers it:
the k-means start (:func:`kmeans_start`) and k-means++ centres, the centres or
memberships of the centroid methods (:func:`initial_point`), the spectral
start (:func:`spectral_labels`), the PCA and pair starts of the linear
maximum-margin clusterers, the one-class machines' weights, and the search of
:class:`~marginclust.MaxMarginClustering` over a pool of candidate partitions
judged by the voting margin (:func:`partition_margin`), which is also the
kernel methods' ``init="max-margin"`` (:func:`margin_search_labels`,
:func:`margin_search_start`).
"""

from ._centres import check_center_init, initial_point
from ._kmeans import kmeans_start
from ._margin_search import partition_margin
from ._margin_start import margin_search_labels, margin_search_start
from ._spectral import spectral_labels

__all__ = [
    "check_center_init",
    "initial_point",
    "kmeans_start",
    "margin_search_labels",
    "margin_search_start",
    "partition_margin",
    "spectral_labels",
]

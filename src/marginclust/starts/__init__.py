"""Starts: the partitions and centres an iterative clusterer begins from."""

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

"""Clustering measures used by the papers.

- Accuracy: :func:`clustering_accuracy` (majority or one-to-one mapping),
  :func:`normalized_clustering_accuracy` (mean class recall, 0 at random).
- External: :func:`rand_index`, :func:`adjusted_rand_index`,
  :func:`normalized_mutual_info` (arithmetic-mean normalisation by default),
  :func:`v_measure`.
- Internal: :func:`sse`, :func:`davies_bouldin`.
- Fuzzy (memberships with samples as rows): :func:`partition_coefficient`,
  :func:`partition_entropy` (log base 2 by default), :func:`xie_beni`,
  :func:`kernel_xie_beni`.
- Segmentation: :func:`dice`, :func:`sensitivity`.
"""

from ._accuracy import clustering_accuracy, normalized_clustering_accuracy
from ._external import adjusted_rand_index, normalized_mutual_info, rand_index, v_measure
from ._fuzzy import kernel_xie_beni, partition_coefficient, partition_entropy, xie_beni
from ._internal import davies_bouldin, sse
from ._segmentation import dice, sensitivity

__all__ = [
    "adjusted_rand_index",
    "clustering_accuracy",
    "davies_bouldin",
    "dice",
    "kernel_xie_beni",
    "normalized_clustering_accuracy",
    "normalized_mutual_info",
    "partition_coefficient",
    "partition_entropy",
    "rand_index",
    "sensitivity",
    "sse",
    "v_measure",
    "xie_beni",
]

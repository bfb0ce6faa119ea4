"""Public estimators, one module per method family (import them from ``marginclust``).

Importing this package registers the estimators that a start or a candidate of
the starts layer fits by name (:mod:`marginclust.starts`, which imports no
estimator): FuzzyCMeans for SLMC's FCM starts; SLMC, KernelKMeans and EMMC for
MaxMarginClustering's candidates ``"slmc"``, ``"kernel-k-means"`` and ``"emmc"``.
"""

from ..starts._library import register_clusterers
from ._emmc import EMMC
from ._fcm import FuzzyCMeans
from ._kernel_kmeans import KernelKMeans
from ._slmc import SLMC

register_clusterers(EMMC, FuzzyCMeans, KernelKMeans, SLMC)

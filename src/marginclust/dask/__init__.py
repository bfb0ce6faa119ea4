"""Fit marginclust estimators on dask arrays (optional extra ``marginclust[dask]``).

A row-block backend over the chunks of a dask array (``DaskRows``, internal) lets
the estimators whose restarts are written against the row-block interface
(:func:`supported_estimators`) fit it with their own ``fit``, every pass over X
one graph execution that brings back only per-chunk sums (MaxMarginClustering:
its search on a sample of rows drawn across the chunks, then every row labelled
chunk by chunk). :class:`DaskClusterer`
wraps such an estimator for a dask array (lazy ``labels_``, blockwise
``predict``). Methods whose solver needs all of X at once (exact kernels, QPs,
libsvm) raise a ``TypeError``; their restarts and searches can run in parallel
through joblib's dask backend.
"""

from ._backend import DaskRows as DaskRows
from ._clusterer import DaskClusterer, supported_estimators
from ._ops import GraphCounter

# DaskRows stays importable (the backend the estimators fit) but is not public API
__all__ = ["DaskClusterer", "GraphCounter", "supported_estimators"]

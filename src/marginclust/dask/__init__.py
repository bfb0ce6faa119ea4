"""Fit marginclust estimators on dask arrays (optional extra ``marginclust[dask]``).

:class:`DaskClusterer` wraps an estimator; its ``fit`` takes a row-chunked dask
array and runs the estimator's own solver loop with the per-block sums of each
iteration computed by dask: one graph execution per iteration, only
O(n_clusters x n_features) numbers per block travel, X is never gathered.
Supported: see :func:`supported_estimators`. Methods whose solver needs all of X
at once (exact kernels, QPs, libsvm) raise a ``TypeError``; their restarts and
searches can run in parallel through joblib's dask backend.
"""

from ._clusterer import DaskClusterer, register, supported_estimators
from ._ops import GraphCounter

__all__ = ["DaskClusterer", "GraphCounter", "register", "supported_estimators"]

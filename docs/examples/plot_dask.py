"""
Fitting a dask array: data past memory
======================================

:class:`~marginclust.dask.DaskClusterer` wraps an estimator and fits it on a
row-chunked dask array: each iteration runs the estimator's own block function on
every chunk and gathers only per-chunk sums (K x d numbers for fuzzy c-means), so X
is never collected in one place and may be larger than any machine's memory. The
fitted centres, ``objective_history_`` and ``n_iter_`` are NumPy; ``labels_`` and
``memberships_`` stay lazy until computed.

The array here is small (20,000 rows, generated chunk by chunk, never held whole)
so that the page builds in seconds; the same code fits arrays of 1e8 rows
(``benchmarks/results/dask.md`` in the repository measures one of 7.45 GiB on two
workers of 3 GiB each). The start is drawn from a sample of 10,000 rows gathered
chunk by chunk, not from all rows as in memory, and both fits reach the same centres
up to the stopping tolerance (the difference is printed below). The left panel
compares the two objective curves, the right one shows the lazy labels of a sample
of rows.
"""

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from marginclust import FuzzyCMeans
from marginclust.dask import DaskClusterer, supported_estimators

centres = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.0]])


def chunk(block_id, rows=5000):
    """One chunk of the data, generated from its own seed (never the whole array)."""
    rng = np.random.RandomState(block_id)
    return centres[rng.randint(3, size=rows)] + rng.randn(rows, 2)


chunks = [da.from_delayed(dask.delayed(chunk)(b), shape=(5000, 2), dtype=float)
          for b in range(4)]
X = da.concatenate(chunks)
print(X)
print("estimators a DaskClusterer fits:", supported_estimators())

with dask.config.set(scheduler="synchronous"):
    model = DaskClusterer(FuzzyCMeans(n_clusters=3, m=2.0, random_state=0)).fit(X)
    labels = model.labels_[::40].compute()
    sample = X[::40].compute()
X_memory = np.vstack([chunk(b) for b in range(4)])  # for the comparison only
in_memory = FuzzyCMeans(n_clusters=3, m=2.0, random_state=0).fit(X_memory)
print("centres (dask):\n", np.round(model.cluster_centers_, 3))
print("largest centre difference to the in-memory fit:",
      float(np.abs(np.sort(model.cluster_centers_, axis=0)
                   - np.sort(in_memory.cluster_centers_, axis=0)).max()))

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
left.plot(model.objective_history_, "o-", label="dask array")
left.plot(in_memory.objective_history_, "x--", label="in memory")
left.set_xlabel("iteration")
left.set_ylabel("objective $J_m$")
left.legend()
right.scatter(sample[:, 0], sample[:, 1], c=labels, s=6, cmap="tab10", vmax=9)
right.scatter(*model.cluster_centers_.T, marker="x", s=80, c="k")
right.set_title("labels_ of every 40th row (computed lazily)", fontsize=9)
fig.tight_layout()
plt.show()

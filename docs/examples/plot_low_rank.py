"""
Exact or low-rank kernel: SLMC as the data grow
===============================================

:class:`~marginclust.SLMC` with the exact kernel holds the n x n kernel matrix and
factorises it once per fit, which is right for a few thousand rows. With
``n_components=L`` it works with an L-dimensional Nystroem feature map instead:
memory O(n L) and cost per sweep O(n L^2), so it scales to millions of rows (and to
dask arrays, see the dask example). ``n_components="auto"``, the default, keeps the
exact kernel up to 2,000 rows and switches to rank 500 above (``verbose=1`` says
so).

This example fits both modes on growing samples of the same ten-blob data and
plots the fit time and the agreement of the two partitions (adjusted Rand index,
ARI). Times are of this build's machine with one BLAS thread; the sizes are kept
small so that the page builds in seconds.
"""

import time

import matplotlib.pyplot as plt
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from marginclust import SLMC

sizes = [250, 500, 1000, 2000]
seconds = {"exact": [], "low rank (L = 100)": []}
agreement = []
for n in sizes:
    X, _ = make_blobs(n, centers=10, n_features=5, cluster_std=1.5, random_state=0)
    X = StandardScaler().fit_transform(X)
    fits = {}
    for mode, components in (("exact", None), ("low rank (L = 100)", 100)):
        start = time.perf_counter()
        fits[mode] = SLMC(n_clusters=10, n_components=components, random_state=0).fit(X)
        seconds[mode].append(time.perf_counter() - start)
    agreement.append(adjusted_rand_score(fits["exact"].labels_,
                                         fits["low rank (L = 100)"].labels_))
    print(f"n = {n:5d}: exact {seconds['exact'][-1]:.2f} s, "
          f"low rank {seconds['low rank (L = 100)'][-1]:.2f} s, ARI between them "
          f"{agreement[-1]:.3f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
for mode, values in seconds.items():
    left.plot(sizes, values, "o-", label=mode)
left.set_xlabel("n_samples")
left.set_ylabel("fit seconds")
left.legend()
right.plot(sizes, agreement, "o-", color="C2")
right.set_ylim(0, 1.05)
right.set_xlabel("n_samples")
right.set_ylabel("ARI(exact, low rank)")
fig.tight_layout()
plt.show()

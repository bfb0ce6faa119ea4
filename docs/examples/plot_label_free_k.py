"""
Choosing the number of clusters without labels
===============================================

Two label-free ways to choose K, neither of which reads a label:

* :class:`~marginclust.model_selection.StabilitySearch` fits each setting on halves
  of the data and scores how well the estimator's ``predict`` transfers between the
  halves (Lange et al. 2004); here it chooses ``n_clusters`` of
  :class:`~marginclust.FuzzyCMeans` from 2 to 6 within a budget of about ten plain
  fits (``budget="auto"``; ``plan_`` says what it spent).
* :class:`~marginclust.MaxMarginClustering` with ``n_clusters="auto"`` keeps the K
  whose best candidate partition has the largest class-balanced voting margin;
  ``candidates_`` lists every candidate it judged, for every K.

The data: four Gaussian blobs, and two nested rings (where a centroid method cannot
follow the shape, so its most stable K says little about the rings). The left
column plots the stability of each K, the middle column the best margin per K, the
right column MaxMarginClustering's partition at the K it chose.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs, make_circles
from sklearn.preprocessing import StandardScaler

from marginclust import FuzzyCMeans, MaxMarginClustering
from marginclust.model_selection import StabilitySearch

datasets = {
    "four blobs (K = 4)": make_blobs(400, centers=4, cluster_std=0.8, random_state=3)[0],
    "two rings (K = 2)": make_circles(400, factor=0.45, noise=0.05, random_state=0)[0],
}
ks = [2, 3, 4, 5, 6]
fig, axes = plt.subplots(2, 3, figsize=(10, 6.2))
for row, (name, X) in enumerate(datasets.items()):
    X = StandardScaler().fit_transform(X)

    search = StabilitySearch(FuzzyCMeans(random_state=0), {"n_clusters": ks},
                             budget="auto", random_state=0).fit(X)
    scores = {p["n_clusters"]: s for p, s in zip(search.results_["params"],
                                                 search.results_["score"])
              if "n_clusters" in p}
    axes[row, 0].plot(list(scores), list(scores.values()), "o-")
    axes[row, 0].axvline(search.n_clusters_, color="grey", ls=":")
    axes[row, 0].set_title(f"{name}\nFCM stability: K = {search.n_clusters_}", fontsize=9)
    axes[row, 0].set_xlabel("n_clusters")
    print(f"{name}: StabilitySearch picked K = {search.n_clusters_} ({search.plan_})")

    mmc = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    best = {}
    for c in mmc.candidates_:
        best[c.n_clusters] = max(best.get(c.n_clusters, -np.inf), c.score)
    kk = sorted(best)
    axes[row, 1].plot(kk, [best[k] for k in kk], "o-", color="C1")
    axes[row, 1].axvline(mmc.n_clusters_, color="grey", ls=":")
    axes[row, 1].set_title(f"best voting margin per K: K = {mmc.n_clusters_}", fontsize=9)
    axes[row, 1].set_xlabel("n_clusters")
    print(f"{name}: MaxMarginClustering chose K = {mmc.n_clusters_} "
          f"({mmc.best_candidate_}, margin {mmc.score_:.3f})")

    axes[row, 2].scatter(X[:, 0], X[:, 1], c=mmc.labels_, s=5, cmap="tab10", vmax=9)
    axes[row, 2].set_title(f"MaxMarginClustering, {mmc.best_candidate_}", fontsize=9)
    axes[row, 2].set_xticks([])
    axes[row, 2].set_yticks([])
fig.tight_layout()
plt.show()

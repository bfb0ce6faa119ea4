"""
Clusters of any shape, and labels for new points
================================================

:class:`~marginclust.MaxMarginClustering` fits cheap, diverse candidate partitions
(Genie, a Gaussian mixture, spectral clustering of the kNN graph, k-means, Ward),
keeps the one whose clusters are best separated by the class-balanced voting margin
of the k-nearest-neighbour rule, and trains an SVM on it. The top row shows
k-means, the bottom row the chosen partition; the shaded regions are the SVM's
``predict`` on a grid: new points get the label of the cluster on their side of
the margin, which Genie or spectral clustering alone cannot give.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_circles, make_moons

from marginclust import MaxMarginClustering

rng = np.random.RandomState(0)
blobs, _ = make_blobs(300, centers=[[0, 0], [3, 0], [1.5, 4]], cluster_std=[0.3, 0.9, 0.5],
                      random_state=0)
data = {
    "rings": (make_circles(300, factor=0.45, noise=0.05, random_state=0)[0], 2),
    "moons": (make_moons(300, noise=0.07, random_state=0)[0], 2),
    "uneven blobs": (blobs, 3),
}
fig, axes = plt.subplots(2, 3, figsize=(10, 6.4))
for col, (name, (X, k)) in enumerate(data.items()):
    km = KMeans(k, n_init=10, random_state=0).fit(X)
    mmc = MaxMarginClustering(n_clusters=k, random_state=0).fit(X)
    lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 150), np.linspace(lo[1], hi[1], 150))
    regions = mmc.predict(np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)
    axes[0, col].scatter(X[:, 0], X[:, 1], c=km.labels_, s=6, cmap="tab10", vmax=9)
    axes[0, col].set_title(f"k-means: {name}", fontsize=9)
    axes[1, col].contourf(gx, gy, regions, levels=np.arange(k + 1) - 0.5, cmap="tab10",
                          vmax=9, alpha=0.25)
    axes[1, col].scatter(X[:, 0], X[:, 1], c=mmc.labels_, s=6, cmap="tab10", vmax=9)
    axes[1, col].set_title(f"MaxMarginClustering ({mmc.best_candidate_}, "
                           f"margin {mmc.score_:.2f})", fontsize=9)
    print(f"{name}: chose {mmc.best_candidate_}; " + ", ".join(
        f"{c.name} {c.score:.3f}" for c in mmc.candidates_))
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()

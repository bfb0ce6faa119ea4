"""
Every method beside scikit-learn's on shape data
================================================

Every marginclust clusterer at its defaults, and five scikit-learn clusterers at
theirs, on five small 2-D data sets (as scikit-learn's "comparing different
clustering algorithms on toy datasets" page does): two moons, two nested rings,
blobs of different spreads, stretched (anisotropic) blobs, and uniform noise with
no cluster structure at all. Each is standardised first and every method is told
the number of clusters it should find (2, 2, 3, 3 and 3; HDBSCAN chooses its own
and marks noise in grey). The number under a panel is the wall time of
``fit`` on this machine, one BLAS thread.

What to read from it, and what not: these are 400 points per set and one seed, a
picture of each method's bias, not a benchmark. The measured comparisons on 33 shape
sets and on held-out batteries are in ``benchmarks/results/defaults_battery.md`` and
``benchmarks/results/max-margin.md`` of the repository. The binary methods
(:class:`~marginclust.IterativeLSSVM`, :class:`~marginclust.IterSVR`,
:class:`~marginclust.IterSVM`) define two clusters only and are left blank on the
three-cluster sets. On uniform noise every method returns a partition when asked
for three clusters: none of them is "right".
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import HDBSCAN, AgglomerativeClustering, KMeans, SpectralClustering
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.mixture import GaussianMixture
from sklearn.preprocessing import StandardScaler

import marginclust as mc

n = 400
rng = np.random.RandomState(170)
aniso, _ = make_blobs(n, centers=3, random_state=170)
aniso = aniso @ np.array([[0.6, -0.64], [-0.41, 0.85]])
datasets = {
    "moons": (make_moons(n, noise=0.05, random_state=0)[0], 2),
    "rings": (make_circles(n, factor=0.5, noise=0.05, random_state=0)[0], 2),
    "varied blobs": (make_blobs(n, cluster_std=[1.0, 2.5, 0.5], random_state=170)[0], 3),
    "anisotropic": (aniso, 3),
    "no structure": (rng.rand(n, 2), 3),
}
datasets = {name: (StandardScaler().fit_transform(X), k) for name, (X, k) in datasets.items()}

BINARY = {"IterativeLSSVM", "IterSVR", "IterSVM"}
methods = {
    "MaxMarginClustering": lambda k: mc.MaxMarginClustering(k, random_state=0),
    "SLMC": lambda k: mc.SLMC(k, random_state=0),
    "WOCSVMClustering": lambda k: mc.WOCSVMClustering(k, random_state=0),
    "EMMC": lambda k: mc.EMMC(k, random_state=0),
    "BMMC": lambda k: mc.BMMC(k, random_state=0),
    "CPMMC": lambda k: mc.CPMMC(k, random_state=0),
    "FuzzyCMeans": lambda k: mc.FuzzyCMeans(k, random_state=0),
    "KernelFuzzyCMeans": lambda k: mc.KernelFuzzyCMeans(k, random_state=0),
    "KernelKMeans": lambda k: mc.KernelKMeans(k, random_state=0),
    "PKM": lambda k: mc.PKM(k, random_state=0),
    "OCSVMHardClustering": lambda k: mc.OCSVMHardClustering(k, random_state=0),
    "IterativeLSSVM": lambda k: mc.IterativeLSSVM(k, random_state=0),
    "IterSVR": lambda k: mc.IterSVR(k, random_state=0),
    "IterSVM": lambda k: mc.IterSVM(k, random_state=0),
    "sklearn KMeans": lambda k: KMeans(k, n_init="auto", random_state=0),
    "sklearn GaussianMixture": lambda k: GaussianMixture(k, random_state=0),
    "sklearn SpectralClustering": lambda k: SpectralClustering(
        k, affinity="nearest_neighbors", random_state=0),
    "sklearn Agglomerative (Ward)": lambda k: AgglomerativeClustering(k),
    "sklearn HDBSCAN": lambda k: HDBSCAN(),
}

colors = np.array(["#377eb8", "#ff7f00", "#4daf4a", "#f781bf", "#a65628", "#984ea3",
                   "#999999", "#e41a1c", "#dede00"])


def draw(ax, X, labels):
    ax.scatter(X[:, 0], X[:, 1], s=2, c=np.where(labels < 0, "#cccccc",
                                                   colors[labels % len(colors)]))


found = {}  # (data set, method) -> labels, for the summary figure below
fig, axes = plt.subplots(len(methods), len(datasets),
                         figsize=(1.9 * len(datasets) + 1.6, 1.95 * len(methods)))
for col, (set_name, (X, k)) in enumerate(datasets.items()):
    axes[0, col].set_title(set_name, fontsize=12)
    for row, (name, make) in enumerate(methods.items()):
        ax = axes[row, col]
        ax.set_xticks([])
        ax.set_yticks([])
        if col == 0:
            ax.set_ylabel(name.replace(" ", "\n", 1), rotation=0, ha="right", va="center",
                          fontsize=11)
        if name in BINARY and k != 2:
            ax.text(0.5, 0.5, "two clusters only", ha="center", va="center", fontsize=9,
                    color="grey", transform=ax.transAxes)
            continue
        estimator = make(k)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence notes; the picture shows the result
            labels = estimator.fit_predict(X)
        seconds = time.perf_counter() - start
        found[set_name, name] = labels
        draw(ax, X, labels)
        # under the panel, not over its points
        ax.set_xlabel(f"{seconds:.2f} s", fontsize=9, labelpad=2, loc="right")
        print(f"{set_name:13s} {name:28s} {seconds:6.2f} s")
fig.subplots_adjust(left=0.2, right=0.98, top=0.985, bottom=0.01, wspace=0.05,
                    hspace=0.25)
plt.show()

# %%
# Three of the rows side by side: the maximum-margin methods follow the moons and
# rings that k-means cuts straight through, and all three split the noise.

# sphinx_gallery_thumbnail_number = 2
summary = ["MaxMarginClustering", "SLMC", "sklearn KMeans"]
fig, axes = plt.subplots(len(summary), len(datasets), figsize=(10, 6.2))
for col, (set_name, (X, _)) in enumerate(datasets.items()):
    axes[0, col].set_title(set_name, fontsize=12)
    for row, name in enumerate(summary):
        ax = axes[row, col]
        ax.set_xticks([])
        ax.set_yticks([])
        if col == 0:
            ax.set_ylabel(name.replace(" ", "\n", 1), fontsize=11)
        draw(ax, X, found[set_name, name])
fig.subplots_adjust(left=0.07, right=0.99, top=0.94, bottom=0.01, wspace=0.05,
                    hspace=0.05)
plt.show()

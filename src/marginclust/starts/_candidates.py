"""Candidate partitions for :class:`~marginclust.MaxMarginClustering`, one generator per family.

Each generator maps ``(Z, ks, seed, width)`` to one labelling of the rows of
``Z`` per number of clusters in ``ks`` (a family that yields a hierarchy, or an
embedding, computes it once for every ``k``). ``Z`` is the working copy of the
data (centred, unit overall standard deviation); ``width`` is the data's local
length scale (the median distance to the k-th neighbour), which the kernel
methods of the library use as their RBF width.

The default pool is one canonical member of each family, at its own authors'
default: Genie (gini 0.3; minimum spanning tree), a Gaussian mixture (full
covariances where the data afford them), spectral clustering of the 10-NN
graph (scikit-learn's default graph; discrete labels by column-pivoted QR),
k-means (10 starts) and Ward's agglomerative clustering. Each family solves the
problems the others miss: chains and rings (Genie, spectral), elongated or
touching ellipsoids (mixture), convex groups (k-means, Ward).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.cluster.hierarchy import linkage
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture
from sklearn.utils.validation import has_fit_parameter

from ..exceptions import ConvergenceWarning
from ..feature_maps._neighbors import NeighborGraph
from ..solvers._genie import euclidean_mst, genie_labels
from ..solvers._hierarchy import cut_linkage
from ..solvers._spectral import cluster_qr
from ._library import library_clusterer
from ._spectral import first_appearance_order

__all__ = ["DEFAULT_POOL", "GENERATORS", "WEIGHTED", "fit_candidate"]

Labels = npt.NDArray[np.intp]
Generator = Callable[..., dict[int, Labels]]

DEFAULT_POOL: tuple[str, ...] = ("genie", "gmm", "spectral", "k-means", "ward")


def _genie(Z: Any, ks: tuple[int, ...], seed: int, width: float,
           gini_threshold: float = 0.3) -> dict[int, Labels]:
    return genie_labels(euclidean_mst(Z), ks, gini_threshold)


def _gmm(Z: Any, ks: tuple[int, ...], seed: int, width: float,
         n_init: int = 3) -> dict[int, Labels]:
    n, d = Z.shape
    out = {}
    for k in ks:
        # a full covariance has d (d + 3) / 2 free parameters with its mean: fit them
        # only where the clusters hold that many points on average, else diagonal ones
        full = n / k >= d * (d + 3) / 2
        gm = GaussianMixture(k, covariance_type="full" if full else "diag", n_init=n_init,
                             random_state=seed)
        out[k] = gm.fit(Z).predict(Z)
    return out


def _spectral(Z: Any, ks: tuple[int, ...], seed: int, width: float,
              n_neighbors: int = 10) -> dict[int, Labels]:
    graph = NeighborGraph.from_data(Z, n_neighbors - 1)
    embedding = graph.spectral_embedding(max(ks), n_neighbors, random_state=seed)
    return {k: cluster_qr(embedding[:, :k]) for k in ks}


def _kmeans(Z: Any, ks: tuple[int, ...], seed: int, width: float,
            n_init: int = 10, sample_weight: Any = None) -> dict[int, Labels]:
    return {k: KMeans(k, n_init=n_init, random_state=seed).fit(
        Z, sample_weight=sample_weight).labels_ for k in ks}


def _ward(Z: Any, ks: tuple[int, ...], seed: int, width: float) -> dict[int, Labels]:
    return cut_linkage(linkage(Z, method="ward"), ks)


def _library(name: str) -> Generator:
    """A library estimator as a generator, with its parameters stated (not its defaults).

    The class is the one the estimators' layer registered (:mod:`._library`).
    """

    def gen(Z: Any, ks: tuple[int, ...], seed: int, width: float,
            **params: Any) -> dict[int, Labels]:
        gamma = 1.0 / (2.0 * width * width)
        make = {
            "slmc": lambda k: library_clusterer("SLMC")(
                n_clusters=k, kernel="rbf", gamma=gamma, lam=10.0, m=2.0, init="k-means",
                random_state=seed),
            "kernel-k-means": lambda k: library_clusterer("KernelKMeans")(
                n_clusters=k, gamma=gamma, init="k-means++", n_init=10, random_state=seed),
            "emmc": lambda k: library_clusterer("EMMC")(
                n_clusters=k, n_hidden=300, activation="sigmoid", init="k-means-elm",
                random_state=seed),
        }[name]
        return {k: make(k).set_params(**params).fit(Z).labels_ for k in ks}

    return gen


GENERATORS: dict[str, Generator] = {
    "genie": _genie,
    "gmm": _gmm,
    "spectral": _spectral,
    "k-means": _kmeans,
    "ward": _ward,
    "slmc": _library("slmc"),
    "kernel-k-means": _library("kernel-k-means"),
    "emmc": _library("emmc"),
}


# The generators whose fit takes ``sample_weight`` (a point of weight r counts as r rows);
# the others see each distinct row once.
WEIGHTED: frozenset[str] = frozenset({"k-means"})


def _estimator_generator(estimator: Any) -> Generator:
    """A scikit-learn clusterer as a generator (``n_clusters`` or ``n_components`` set)."""

    def gen(Z: Any, ks: tuple[int, ...], seed: int, width: float,
            sample_weight: Any = None) -> dict[int, Labels]:
        params = estimator.get_params()
        key = "n_clusters" if "n_clusters" in params else "n_components"
        weighted = sample_weight is not None and has_fit_parameter(estimator, "sample_weight")
        out = {}
        for k in ks:
            est = clone(estimator).set_params(**{key: k})
            if "random_state" in params and params["random_state"] is None:
                est.set_params(random_state=seed)
            out[k] = (est.fit_predict(Z, sample_weight=sample_weight) if weighted
                      else est.fit_predict(Z))
        return out

    return gen


def fit_candidate(
    spec: str | tuple[str, Mapping[str, Any]] | Any, Z: npt.NDArray[np.float64],
    ks: tuple[int, ...], seed: int, width: float,
    sample_weight: npt.NDArray[np.float64] | None = None,
) -> tuple[dict[int, Labels], float]:
    """One candidate's labels for every ``k`` in ``ks`` and the seconds it took.

    The candidate's own convergence warnings (a mixture that did not converge,
    k-means finding fewer clusters, a disconnected graph) are silenced: the margin
    judges its result.

    Parameters
    ----------
    spec : str, (str, dict) or estimator
        A name of :data:`GENERATORS`, a name with parameters, or a scikit-learn
        clusterer with an ``n_clusters`` or ``n_components`` parameter.
    Z : ndarray of shape (n_samples, n_features)
        The working data.
    ks : tuple of int
        Numbers of clusters.
    seed : int
        Seed of the candidate's randomness.
    width : float
        The data's local length scale.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Weight of each row, passed to the generators that take weights
        (:data:`WEIGHTED`, and scikit-learn clusterers whose ``fit`` has
        ``sample_weight``); the others see each row once.

    Returns
    -------
    labels : dict of int to ndarray of shape (n_samples,)
        Labels per number of clusters, numbered by first appearance.
    seconds : float
        Wall time of the fit.
    """
    if isinstance(spec, str):
        gen, params = GENERATORS[spec], {}
    elif isinstance(spec, tuple):
        gen, params = GENERATORS[spec[0]], dict(spec[1])
    else:
        gen, params = _estimator_generator(spec), {}
    if sample_weight is not None and (not isinstance(spec, str | tuple)
                                      or (spec if isinstance(spec, str) else spec[0]) in WEIGHTED):
        params["sample_weight"] = sample_weight
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        raw = gen(Z, ks, seed, width, **params)
    seconds = time.perf_counter() - start
    return {k: first_appearance_order(raw[k]) for k in ks}, seconds

"""Small clusterers and inputs shared by the model-selection tests."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs


def blobs(k: int = 3, n_per: int = 50, seed: int = 0, std: float = 0.7,
          return_y: bool = False) -> Any:
    """``k`` well-separated Gaussian blobs centred on a regular polygon of radius 5."""
    angles = 2 * np.pi * np.arange(k) / k
    centers = 5.0 * np.c_[np.cos(angles), np.sin(angles)]
    X, y = make_blobs(n_per * k, centers=centers, cluster_std=std, random_state=seed)
    return (X, y) if return_y else X


class ExplodingLabels:
    """A stand-in for y that fails on any use: proves the search never reads y."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"y was read (attribute {name!r})")

    def __len__(self) -> int:
        raise AssertionError("y was read (len)")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("y was read (converted to an array)")

    def __getitem__(self, key: Any) -> Any:
        raise AssertionError("y was read (indexed)")

    def __iter__(self) -> Any:
        raise AssertionError("y was read (iterated)")


class CollapsibleKMeans(ClusterMixin, BaseEstimator):
    """KMeans that puts every sample in cluster 0 when ``collapse`` is True."""

    def __init__(self, n_clusters: int = 2, *, collapse: bool = False, random_state: Any = None):
        self.n_clusters = n_clusters
        self.collapse = collapse
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None) -> CollapsibleKMeans:
        self.km_ = KMeans(self.n_clusters, n_init=2, random_state=self.random_state).fit(X)
        self.labels_ = self.predict(X)
        return self

    def predict(self, X: Any) -> np.ndarray:
        if self.collapse:
            return np.zeros(np.asarray(X).shape[0], dtype=np.intp)
        return self.km_.predict(X)


class SumLossKMeans(CollapsibleKMeans):
    """Records the C and the rows of each fit; C is declared a sum over samples."""

    _n_scaled_params: ClassVar[tuple[str, ...]] = ("C",)
    fits: ClassVar[list[tuple[float, int]]] = []

    def __init__(self, n_clusters: int = 2, *, C: float = 1.0, random_state: Any = None):
        super().__init__(n_clusters, random_state=random_state)
        self.C = C

    def fit(self, X: Any, y: Any = None) -> SumLossKMeans:
        SumLossKMeans.fits.append((float(self.C), int(np.asarray(X).shape[0])))
        return super().fit(X)


class GridKMeans(CollapsibleKMeans):
    """Declares a label-free grid computed from X (its number of features)."""

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        return {"n_clusters": [2, 3, 4, 5][: 1 + np.asarray(X).shape[1]]}


class CountingKMeans(CollapsibleKMeans):
    """Counts its fits; with ``stop_after`` set, the fit after that many raises
    KeyboardInterrupt (a user's Ctrl-C in the middle of a search)."""

    fits: ClassVar[int] = 0
    stop_after: ClassVar[int | None] = None

    def fit(self, X: Any, y: Any = None) -> CountingKMeans:
        CountingKMeans.fits += 1
        stop = CountingKMeans.stop_after
        if stop is not None and CountingKMeans.fits > stop:
            raise KeyboardInterrupt
        return super().fit(X)


class RandomLabels(ClusterMixin, BaseEstimator):
    """Labels drawn at random, seeded by the data: no partition it finds is reproducible."""

    def __init__(self, n_clusters: int = 2, random_state: Any = None):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def _draw(self, X: Any) -> np.ndarray:
        seed = int(abs(float(np.asarray(X).sum())) * 1e6) % (2**31)
        return np.random.RandomState(seed).randint(self.n_clusters, size=np.asarray(X).shape[0])

    def fit(self, X: Any, y: Any = None) -> RandomLabels:
        self.labels_ = self._draw(X)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self._draw(np.asarray(X) + 1.0)

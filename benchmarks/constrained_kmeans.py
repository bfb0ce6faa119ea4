"""The peers of pairwise-constrained clustering: COP-KMeans and PCKMeans, from their papers.

- :class:`COPKMeans`: K. Wagstaff, C. Cardie, S. Rogers, S. Schroedl. Constrained
  K-means clustering with background knowledge. ICML 2001, Table 1. Hard
  constraints: each point, in turn, goes to the nearest centre whose cluster
  breaks none of its constraints with the points already assigned in this pass;
  when no cluster is admissible the run fails.
- :class:`PCKMeans`: S. Basu, A. Banerjee, R. J. Mooney. Active semi-supervision
  for pairwise constrained clustering. SDM 2004, Sec. 3 (Fig. 1). Soft constraints:
  minimises ``sum_i 1/2 ||x_i - mu_{l_i}||^2 + sum_M w 1[l_i != l_j] + sum_C w 1[l_i
  = l_j]`` by assigning points one at a time (in random order) given the others,
  then updating the means; initialised from the must-link neighbourhoods.

Choices the papers leave open, made the same way for both and stated here:

- Centres not given by the constraints are seeded by k-means++ (scikit-learn's),
  not uniformly at random (a stronger start than the papers').
- COP-KMeans visits the points in a random order each pass (the paper: data order)
  and, when a pass fails, restarts from a new seed, up to ``max_restarts`` times;
  if every restart fails, it returns the plain k-means labels of its last
  seeding (``failed_`` is then True): a user gets a partition either way.
- PCKMeans weighs every constraint ``w = 1`` (the paper's uniform weights) on the
  same standardised data as every other method.
- Both stop when no label changes or after ``max_iter`` passes; an emptied
  cluster is re-seeded with the point farthest from its centre.

Must-link neighbourhoods are the connected components of the must-link graph
(the transitive closure, as both papers take it);
:func:`marginclust.objectives._constraints.make_pairs` computes them (and
rejects contradictory sets).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import kmeans_plusplus

from marginclust.objectives._constraints import make_pairs

__all__ = ["COPKMeans", "PCKMeans"]


def _sq_dist(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    d = (X**2).sum(axis=1)[:, None] - 2.0 * X @ centres.T + (centres**2).sum(axis=1)
    return np.maximum(d, 0.0)


def _neighbours(u: np.ndarray, v: np.ndarray, n: int) -> list[list[int]]:
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(u.tolist(), v.tolist()):
        adj[a].append(b)
        adj[b].append(a)
    return adj


def _means(X: np.ndarray, labels: np.ndarray, k: int, old: np.ndarray) -> np.ndarray:
    """Cluster means; an empty cluster takes the point farthest from its own centre."""
    centres = np.zeros((k, X.shape[1]))
    np.add.at(centres, labels, X)
    counts = np.bincount(labels, minlength=k)
    for j in np.flatnonzero(counts == 0):
        far = np.argmax(((X - old[labels]) ** 2).sum(axis=1))
        centres[j] = X[far]
        counts[j] = 1
        centres[labels[far]] -= X[far]
        counts[labels[far]] -= 1
    return centres / np.maximum(counts, 1)[:, None]


class _PairwiseKMeans:
    """Shared set-up: validated, closed pairs and their adjacency lists."""

    def __init__(
        self, n_clusters: int, *, max_iter: int = 100, random_state: Any = None
    ) -> None:
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.random_state = random_state

    def _setup(self, X: Any, must_link: Any, cannot_link: Any) -> tuple[np.ndarray, Any]:
        X = np.asarray(X, dtype=np.float64)
        pairs = make_pairs(must_link, cannot_link, X.shape[0])
        return X, pairs

    def fit_predict(self, X: Any, must_link: Any = None, cannot_link: Any = None) -> np.ndarray:
        """Fit and return the labels."""
        return self.fit(X, must_link=must_link, cannot_link=cannot_link).labels_

    def fit(self, X: Any, must_link: Any = None, cannot_link: Any = None) -> Any:
        raise NotImplementedError


class COPKMeans(_PairwiseKMeans):
    """COP-KMeans (Wagstaff et al. 2001): k-means with hard must-link / cannot-link constraints.

    Parameters
    ----------
    n_clusters : int
        Number of clusters.
    max_iter : int, default=100
        Maximum assignment passes per run.
    max_restarts : int, default=10
        New seedings tried after a failed pass.
    random_state : int or None, default=None
        Seeds the k-means++ seeding and the visiting order.
    """

    def __init__(
        self,
        n_clusters: int,
        *,
        max_iter: int = 100,
        max_restarts: int = 10,
        random_state: Any = None,
    ) -> None:
        super().__init__(n_clusters, max_iter=max_iter, random_state=random_state)
        self.max_restarts = max_restarts

    def fit(self, X: Any, must_link: Any = None, cannot_link: Any = None) -> COPKMeans:
        """Cluster ``X`` under the pairs (index arrays of shape (m, 2))."""
        X, pairs = self._setup(X, must_link, cannot_link)
        n, k = X.shape[0], self.n_clusters
        rng = np.random.RandomState(self.random_state)
        closure = pairs.closure
        comp = np.full(n, -1, dtype=np.intp)
        apart: list[list[int]] = []
        if closure is not None:
            comp = closure.labels_of(n)
            apart = _neighbours(closure.cannot[:, 0], closure.cannot[:, 1], closure.n_components)
        constrained = np.flatnonzero(comp >= 0)
        self.failed_ = True
        self.n_restarts_ = 0
        centres = np.zeros((k, X.shape[1]))
        for restart in range(self.max_restarts + 1):
            self.n_restarts_ = restart
            centres, _ = kmeans_plusplus(X, k, random_state=rng)
            labels = self._run(X, centres, comp, apart, constrained, rng)
            if labels is not None:
                self.labels_ = labels
                self.failed_ = False
                return self
        self.labels_ = np.argmin(_sq_dist(X, centres), axis=1).astype(np.intp)
        return self

    def _run(
        self,
        X: np.ndarray,
        centres: np.ndarray,
        comp: np.ndarray,
        apart: list[list[int]],
        constrained: np.ndarray,
        rng: np.random.RandomState,
    ) -> np.ndarray | None:
        n, k = X.shape[0], self.n_clusters
        labels = np.full(n, -1, dtype=np.intp)
        for _ in range(self.max_iter):
            D = _sq_dist(X, centres)
            new = np.argmin(D, axis=1).astype(np.intp)  # unconstrained points: nearest centre
            # constrained points in random order; a must-link component is decided by the
            # first member visited (its partners must then join it), a cannot-link forbids
            # the clusters of the other components already placed in this pass
            placed: dict[int, int] = {}
            for i in rng.permutation(constrained):
                c = int(comp[i])
                if c in placed:
                    new[i] = placed[c]
                    continue
                banned = {placed[o] for o in apart[c] if o in placed} if apart else set()
                choice = -1
                for j in np.argsort(D[i], kind="stable"):
                    if int(j) not in banned:
                        choice = int(j)
                        break
                if choice < 0:
                    return None
                placed[c] = choice
                new[i] = choice
            if np.array_equal(new, labels):
                break
            labels = new
            centres = _means(X, labels, k, centres)
        return labels


class PCKMeans(_PairwiseKMeans):
    """PCKMeans (Basu, Banerjee & Mooney 2004): k-means with penalised pair violations.

    Parameters
    ----------
    n_clusters : int
        Number of clusters.
    w : float, default=1.0
        Penalty of one violated must-link or cannot-link.
    max_iter : int, default=100
        Maximum passes.
    random_state : int or None, default=None
        Seeds the visiting order and the centres not given by neighbourhoods.
    """

    def __init__(
        self, n_clusters: int, *, w: float = 1.0, max_iter: int = 100, random_state: Any = None
    ) -> None:
        super().__init__(n_clusters, max_iter=max_iter, random_state=random_state)
        self.w = w

    def _initial_centres(
        self, X: np.ndarray, pairs: Any, rng: np.random.RandomState
    ) -> np.ndarray:
        """Neighbourhood centroids (the largest first), then k-means++ for the rest (Fig. 1)."""
        k = self.n_clusters
        closure = pairs.closure
        if closure is None:
            return kmeans_plusplus(X, k, random_state=rng)[0]
        members = closure.members()
        # the largest neighbourhoods first, ties in random order
        shuffled = rng.permutation(len(members))
        order = sorted(shuffled.tolist(), key=lambda c: -members[c].size)
        chosen = [X[members[c]].mean(axis=0) for c in order[:k]]
        if len(chosen) < k:
            # a singleton cannot-linked to every other neighbourhood starts a cluster
            # (Fig. 1); every neighbourhood is already a centre here, so the rest are seeded
            # by k-means++ from the points farthest from the chosen centres
            while len(chosen) < k:
                far = _sq_dist(X, np.asarray(chosen)).min(axis=1)
                p = far / far.sum() if far.sum() > 0 else None
                chosen.append(X[rng.choice(X.shape[0], p=p)])
        return np.asarray(chosen, dtype=np.float64)

    def fit(self, X: Any, must_link: Any = None, cannot_link: Any = None) -> PCKMeans:
        """Cluster ``X`` under the pairs (index arrays of shape (m, 2))."""
        X, pairs = self._setup(X, must_link, cannot_link)
        n, k = X.shape[0], self.n_clusters
        rng = np.random.RandomState(self.random_state)
        centres = self._initial_centres(X, pairs, rng)
        ml = _neighbours(pairs.u[pairs.z > 0], pairs.v[pairs.z > 0], n)
        cl = _neighbours(pairs.u[pairs.z < 0], pairs.v[pairs.z < 0], n)
        constrained = np.unique(np.concatenate([pairs.u, pairs.v])) if pairs.size else []
        labels = np.full(n, -1, dtype=np.intp)
        self.n_iter_ = 0
        for it in range(1, self.max_iter + 1):
            self.n_iter_ = it
            cost = 0.5 * _sq_dist(X, centres)
            new = np.argmin(cost, axis=1).astype(np.intp)
            for i in rng.permutation(constrained):
                c = cost[i].copy()
                for j in ml[i]:
                    c += self.w  # every cluster but j's breaks the must-link
                    c[new[j]] -= self.w
                for j in cl[i]:
                    c[new[j]] += self.w
                new[i] = int(np.argmin(c))
            if np.array_equal(new, labels):
                break
            labels = new
            centres = _means(X, labels, k, centres)
        self.labels_ = labels
        return self

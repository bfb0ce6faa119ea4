"""Kernel K-means with an RBF kernel and centres in data space (SLMC eq. 15, crisp u)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer
from ..objectives._fcm import kernel_distances, squared_distances
from ..solvers import SolverResult
from ._fcm import (
    _check_common_params,
    _check_sigma,
    _resolve_sigma,
    check_init,
    check_sample_weight,
    initial_point,
)

__all__ = ["KernelKMeans"]


def member_kernel_means(
    X: np.ndarray,
    labels: np.ndarray,
    own_d2: np.ndarray,
    sample_weight: np.ndarray,
    gamma: float,
    previous: np.ndarray,
) -> np.ndarray:
    """Centre step of kernel K-means: ``v_k = sum_{i in C_k} a_i x_i / sum a_i``.

    ``a_i = w_i exp(-gamma ||x_i - v_k||^2)``. Within each cluster the exponent is
    shifted by its smallest distance (the scale cancels), so the closest member has
    kernel factor 1 and the weights never all underflow. An empty cluster keeps its
    ``previous`` centre.
    """
    k = previous.shape[0]
    mins = np.full(k, np.inf)
    np.minimum.at(mins, labels, own_d2)
    a = np.exp(-gamma * (own_d2 - mins[labels])) * sample_weight
    W = np.zeros((k, X.shape[0]), dtype=X.dtype)
    W[labels, np.arange(X.shape[0])] = a
    totals = W.sum(axis=1)
    alive = totals > 0
    V = (W @ X) / np.where(alive, totals, 1.0)[:, None]
    V = V.astype(X.dtype, copy=False)
    if not alive.all():
        V[~alive] = previous[~alive]
    return V


def kernel_kmeans_loop(
    X: np.ndarray,
    *,
    n_clusters: int,
    sigma: float,
    sample_weight: np.ndarray,
    centres: np.ndarray,
    max_iter: int,
    tol: float,
) -> SolverResult:
    """Alternate the centre (majorise-minimise) and assignment steps.

    Objective: ``J = sum_i w_i 2 (1 - k(x_i, v_{l_i}))``. Each iteration moves every
    centre to ``sum_{i in C_k} a_i x_i / sum a_i`` with ``a_i = w_i k(x_i, v_k)`` (cannot
    increase J), reassigns every sample to its nearest centre (cannot increase J),
    and moves the centre of an empty cluster onto the sample with the largest cost
    (decreases J). Stops when no label changes and the relative decrease of J is at
    most ``tol``.
    """
    gamma = 1.0 / (2.0 * sigma * sigma)
    X_sq = np.einsum("ij,ij->i", X, X)
    n = X.shape[0]
    cols = np.arange(n)
    V = centres
    D2 = squared_distances(X, V, X_sq, transposed=True)  # K x n
    labels = np.argmin(D2, axis=0)
    history: list[float] = []
    converged = False
    n_iter = 0
    J_prev = np.inf
    rel = np.inf
    for it in range(1, max_iter + 1):
        n_iter = it
        V = member_kernel_means(X, labels, D2[labels, cols], sample_weight, gamma, V)
        D2 = squared_distances(X, V, X_sq, transposed=True)
        new_labels = np.argmin(D2, axis=0)
        for _ in range(n_clusters):
            counts = np.bincount(new_labels, minlength=n_clusters)
            empty = np.flatnonzero(counts == 0)
            if empty.size == 0:
                break
            cost = sample_weight * D2[new_labels, cols]
            cost[counts[new_labels] <= 1] = -1.0  # never empty another cluster
            far = int(np.argmax(cost))
            if cost[far] <= 0:
                break
            V[empty[0]] = X[far]
            D2[empty[0]] = squared_distances(X, X[far : far + 1], X_sq, transposed=True)[0]
            new_labels = np.argmin(D2, axis=0)
        D = kernel_distances(D2[new_labels, cols], sigma)
        J = float(np.dot(sample_weight.astype(np.float64), D.astype(np.float64)))
        history.append(J)
        changed = bool(np.any(new_labels != labels))
        labels = new_labels
        rel = (J_prev - J) / J_prev if np.isfinite(J_prev) and J_prev > 0 else np.inf
        J_prev = J
        if not changed and (rel <= tol or J == 0.0):
            converged = True
            break
    return SolverResult(
        x={"labels_": labels, "cluster_centers_": V, "sigma_": sigma},
        objective=history[-1],
        objective_history=np.asarray(history),
        n_iter=n_iter,
        converged=converged,
        stop_crit=float(rel),
        message=(
            ""
            if converged
            else f"KernelKMeans stopped at max_iter={max_iter} before its stopping rule "
            f"(no label change and relative objective decrease <= tol={tol}) held; the last "
            f"relative decrease was {rel:.3g}. Increase max_iter or tol."
        ),
    )


class KernelKMeans(BaseClusterer):
    """Kernel K-means with an RBF kernel and centres in data space (SLMC eq. 15).

    Minimises ``J = sum_i w_i ||phi(x_i) - phi(v_{l_i})||^2 = sum_i w_i 2 (1 -
    k(x_i, v_{l_i}))`` over crisp labels ``l`` and centres ``v_k`` in data space, with
    ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``. The assignment step is exact
    (nearest centre: the kernel distance grows with the Euclidean one); the centre
    step is the kernel-weighted mean of the members, ``v_k = sum_{i in C_k} a_i x_i /
    sum a_i``, ``a_i = w_i k(x_i, v_k)``, a majorise-minimise step. Hence
    ``objective_history_`` is non-increasing. Far members get little weight, which
    makes the centres robust to outliers (a mode-seeking K-means).

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    sigma : float or None, default=None
        RBF width; ``None`` uses the mean pairwise distance of the training data
        (unweighted; estimated on 2000 rows drawn with ``random_state`` if it is an
        int, else with seed 0, when there are more).
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), \
default="k-means++"
        Initial centres: scikit-learn's k-means++, random samples, or given.
    max_iter : int, default=300
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when no label changed and the objective decreased by at most
        ``tol`` relative to its previous value.
    n_init : int, default=1
        Number of restarts; the lowest objective with no empty cluster is kept.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation (and the sigma0 subsample).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres in data space.
    sigma_ : float
        The kernel width used.
    objective_ : float
        Final objective.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective after each iteration (non-increasing).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the stopping rule was met before ``max_iter``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import KernelKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> km = KernelKMeans(n_clusters=2, random_state=0).fit(X)
    >>> km.labels_[0] == km.labels_[1] != km.labels_[2]
    np.True_
    """

    _min_clusters = 1  # one cluster is well defined, as in KMeans

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        sigma: float | None = None,
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.sigma = sigma
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None, *, sample_weight: Any = None) -> KernelKMeans:
        """Fit the clustering to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (float64 or float32; float32 is kept).
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : KernelKMeans
            The fitted estimator.
        """
        return self._fit(X, sample_weight=sample_weight)

    def _check_params(self, X: Any) -> None:
        _check_common_params(self)
        _check_sigma(self.sigma)
        if not isinstance(self.init, str) and np.asarray(self.init).shape != (
            self._n_clusters,
            X.shape[1],
        ):
            raise ValueError(
                f"init must be 'k-means++', 'random' or centres of shape (n_clusters, "
                f"n_features) = ({self._n_clusters}, {X.shape[1]}); got shape "
                f"{np.asarray(self.init).shape}."
            )
        check_init(self.init, self._n_clusters, X)
        self._sigma_fit = _resolve_sigma(self, X)

    def _fit_one(
        self, X: Any, random_state: np.random.RandomState, sample_weight: Any = None
    ) -> SolverResult:
        sw = check_sample_weight(sample_weight, X)
        centres, _ = initial_point(
            self.init, X, self._n_clusters, sw, random_state, allow_memberships=False
        )
        return kernel_kmeans_loop(
            X,
            n_clusters=self._n_clusters,
            sigma=self._sigma_fit,
            sample_weight=sw,
            centres=centres,
            max_iter=int(self.max_iter),
            tol=float(self.tol),
        )

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        V = self.cluster_centers_.astype(X.dtype, copy=False)
        return np.argmin(squared_distances(X, V, transposed=True), axis=0)

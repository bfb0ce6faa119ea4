"""Probabilistic K-means (PKM): objective, gradient, centres and optimality conditions.

The model (FCM at m = 1, "soft K-means")::

    J(P) = sum_j sum_i p_ij ||x_i - c_j(P)||^2,   c_j(P) = sum_i p_ij x_i / sum_i p_ij
    s.t.  sum_j p_ij = 1,  p_ij >= 0.

Because ``c_j(P)`` minimises ``sum_i p_ij ||x_i - c||^2`` over ``c``, the envelope
theorem gives ``dJ/dp_ij = ||x_i - c_j(P)||^2``, and J is concave in P (a
minimum of functions linear in P). Prior validation of the data is assumed
throughout this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..exceptions import EmptyClusterError

__all__ = ["PKMObjective", "frame_sq_distances", "initial_memberships"]

Array = npt.NDArray[np.float64]


class PKMObjective:
    """The PKM objective on fixed data, with the quantities the solvers need.

    The data are centred once (distances do not change), and squared norms are
    cached, so that a gradient costs two matrix products, O(n K d).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated, dense data.
    """

    def __init__(self, X: npt.ArrayLike) -> None:
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        self.Xc = np.ascontiguousarray(X - self.mean_)
        self.sq_norms = np.einsum("ij,ij->i", self.Xc, self.Xc)
        # Mean squared deviation from the data mean: the unit in which tolerances are stated.
        self.scale = float(self.sq_norms.mean())
        if not self.scale > 0:
            self.scale = 1.0

    @property
    def n_samples(self) -> int:
        """Number of samples."""
        return self.Xc.shape[0]

    def centers(self, P: Array) -> Array:
        """Centres ``c_j(P)`` in the original coordinates.

        Parameters
        ----------
        P : ndarray of shape (n_samples, n_clusters)
            Feasible memberships.

        Returns
        -------
        centers : ndarray of shape (n_clusters, n_features)

        Raises
        ------
        EmptyClusterError
            If a cluster has zero total membership (its centre is undefined).
        """
        return self._centered_centers(P) + self.mean_

    def _centered_centers(self, P: Array) -> Array:
        mass = P.sum(axis=0)
        if np.any(mass <= 1e-300):  # the maths has no answer here, the solvers react to it
            empty = np.flatnonzero(mass <= 1e-300).tolist()
            raise EmptyClusterError(
                f"Cluster(s) {empty} lost all membership; their centres are undefined."
            )
        return (P.T @ self.Xc) / mass[:, None]

    def sq_distances(self, C_centered: Array) -> Array:
        """Squared distances ``||x_i - c_j||^2`` to centres given in centred coordinates."""
        D = self.Xc @ C_centered.T
        D *= -2.0
        D += self.sq_norms[:, None]
        D += np.einsum("ij,ij->i", C_centered, C_centered)[None, :]
        np.maximum(D, 0.0, out=D)
        return D

    def grad(self, P: Array) -> Array:
        """Gradient ``G_ij = ||x_i - c_j(P)||^2`` (n_samples x n_clusters)."""
        return self.sq_distances(self._centered_centers(P))

    def value(self, P: Array) -> float:
        """Objective ``J(P)``."""
        return float(np.sum(P * self.grad(P)))

    def value_and_grad(self, P: Array) -> tuple[float, Array]:
        """``J(P)`` and its gradient from one pass (``J = sum(P * G)``)."""
        G = self.grad(P)
        return float(np.sum(P * G)), G


def kkt_violation(P: Array, G: Array) -> float:
    """Largest violation of the KKT conditions of PKM at ``P`` with gradient ``G``.

    Literal oracle of the stopping rule of the PKM gradient projection solvers
    (which test the KKT conditions through their multipliers); used by the tests.

    At a KKT point every row has ``lambda_i = min_j G_ij``, ``G_ij = lambda_i``
    wherever ``p_ij > 0`` (complementary slackness) and ``G_ij >= lambda_i``
    elsewhere (non-negative multipliers, true by the choice of ``lambda_i``).
    The returned value is ``max_ij p_ij > 0 of (G_ij - lambda_i)`` (0 at a KKT point).

    Parameters
    ----------
    P : ndarray of shape (n_samples, n_clusters)
        Feasible memberships.
    G : ndarray of shape (n_samples, n_clusters)
        Gradient at ``P``.

    Returns
    -------
    violation : float
    """
    lam = G.min(axis=1, keepdims=True)
    slack = np.where(P > 0, G - lam, 0.0)
    return float(slack.max(initial=0.0))


def frame_sq_distances(Z: npt.NDArray[np.floating], C: Array) -> Array:
    """Squared distances (n x K, float64) of rows of the working frame to centres in it.

    The product runs in the dtype of ``Z`` (float32 stays float32), the sums in float64.
    """
    D: Array = (Z @ (-2.0 * C.T).astype(Z.dtype)).astype(np.float64, copy=False)
    D += np.einsum("ij,ij->i", Z, Z, dtype=np.float64)[:, None]
    D += np.einsum("kd,kd->k", C, C)[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def initial_memberships(
    init: Any,
    obj: PKMObjective,
    n_clusters: int,
    random_state: np.random.RandomState,
    seeds: Callable[[], Array],
) -> Array:
    """Start of the gradient projection solvers.

    ``init``: ``"dirichlet"`` (flat Dirichlet rows), ``"uniform-perturbed"``
    (``1/K`` plus 10 % noise), ``"k-means++-soft"`` (``p_ij`` proportional to
    ``1 / ||x_i - c_j||^2`` for the centres ``seeds()``), ``("memberships", P)``
    (``P`` itself); otherwise (``"k-means++"``, ``("centres", C)``) the hard
    partition by the nearest of the centres ``seeds()`` (given in the working frame).
    """
    n, k = obj.n_samples, n_clusters
    if not isinstance(init, str) and init[0] == "memberships":
        return np.array(init[1], dtype=np.float64)
    if isinstance(init, str) and init == "dirichlet":
        return random_state.dirichlet(np.ones(k), size=n)
    if isinstance(init, str) and init == "uniform-perturbed":
        P = 1.0 + 0.1 * random_state.uniform(-1.0, 1.0, size=(n, k))
        return P / P.sum(axis=1, keepdims=True)
    D = obj.sq_distances(seeds() - obj.mean_)
    if isinstance(init, str) and init == "k-means++-soft":
        P = 1.0 / (D + 1e-12 * obj.scale)
        return P / P.sum(axis=1, keepdims=True)
    P = np.zeros((n, k))
    P[np.arange(n), np.argmin(D, axis=1)] = 1.0
    return P

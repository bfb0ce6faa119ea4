"""Kernel K-means with centres in data space: alternating assignment and kernel-weighted means.

Objective ``J = sum_i w_i 2 (1 - k(x_i, v_{l_i}))`` with ``k(x, v) = exp(-gamma ||x - v||^2)``
(SLMC eq. 15 with crisp memberships). The squared and kernel distances come from the
problem object the caller hands in (:class:`marginclust.objectives._fcm.KernelKMeansProblem`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import requires
from ._result import SolverResult

__all__ = ["kernel_kmeans_alternation", "member_kernel_means"]


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


@requires("sq_distances", "costs")
def kernel_kmeans_alternation(
    problem: Any,
    X: np.ndarray,
    *,
    n_clusters: int,
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
    most ``tol``. Only rows of positive weight count (label changes, cluster
    sizes): a row of weight 0 is absent from the objective, so the run is that on
    the data with each row repeated ``w_i`` times. ``problem`` gives ``gamma``,
    ``sq_distances(X, V, X_sq)`` (K x n) and ``costs(D2)`` (the kernel distances).
    """
    gamma = problem.gamma
    X_sq = np.einsum("ij,ij->i", X, X)
    n = X.shape[0]
    cols = np.arange(n)
    present = sample_weight > 0  # rows of the objective (weight 0: as if removed)
    V = centres
    D2 = problem.sq_distances(X, V, X_sq)  # K x n
    labels = np.argmin(D2, axis=0)
    history: list[float] = []
    converged = False
    n_iter = 0
    J_prev = np.inf
    rel = np.inf
    for it in range(1, max_iter + 1):
        n_iter = it
        V = member_kernel_means(X, labels, D2[labels, cols], sample_weight, gamma, V)
        D2 = problem.sq_distances(X, V, X_sq)
        new_labels = np.argmin(D2, axis=0)
        for _ in range(n_clusters):
            counts = np.bincount(new_labels[present], minlength=n_clusters)
            empty = np.flatnonzero(counts == 0)
            if empty.size == 0:
                break
            cost = sample_weight * D2[new_labels, cols]
            cost[counts[new_labels] <= 1] = -1.0  # never empty another cluster
            far = int(np.argmax(cost))
            if cost[far] <= 0:
                break
            V[empty[0]] = X[far]
            D2[empty[0]] = problem.sq_distances(X, X[far : far + 1], X_sq)[0]
            new_labels = np.argmin(D2, axis=0)
        D = problem.costs(D2[new_labels, cols])
        J = float(np.dot(sample_weight.astype(np.float64), D.astype(np.float64)))
        history.append(J)
        changed = bool(np.any((new_labels != labels) & present))
        labels = new_labels
        rel = (J_prev - J) / J_prev if np.isfinite(J_prev) and J_prev > 0 else np.inf
        J_prev = J
        if not changed and (rel <= tol or J == 0.0):
            converged = True
            break
    return SolverResult(
        x=(labels, V),
        objective=history[-1],
        objective_history=np.asarray(history),
        n_iter=n_iter,
        converged=converged,
        stop_crit=float(rel),
        message=(
            ""
            if converged
            else f"Kernel K-means stopped at max_iter={max_iter} before its stopping rule "
            f"(no label change and relative objective decrease <= tol={tol}) held; the last "
            f"relative decrease was {rel:.3g}. Increase max_iter or tol."
        ),
    )

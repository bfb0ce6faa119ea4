"""Dense, literal reference implementation of the PKM paper's AGP / MSAGP / FMSAGP (test oracle).

Everything is written as in Section 3 of the paper, with no use of the row-block
structure: the memberships are the vector ``p`` of length ``n K`` (``p[i*K + j] =
p_ij``), the equality matrix is ``E = I_n kron 1_K^T``, the active matrix ``N``
stacks ``E`` and the unit rows ``e_a`` of the active inequalities ``p_a >= 0``,
the projection is ``Pr = I - N^T (N N^T)^-1 N`` and the multipliers are
``q = (N N^T)^-1 N g``. When the projected gradient vanishes the single most
negative inequality multiplier is released (ties: lowest index) and ``Pr`` is
rebuilt from ``N``. FMSAGP updates ``Pr`` with the rank-one formula of the
paper's Lemma when a constraint becomes active,
``Pr_new = Pr - (Pr n^T)(n Pr) / (n Pr n^T)``, instead of rebuilding it.

The numerical conventions shared with the production solver are stated here
explicitly: a projected gradient or multiplier counts as zero when its size is at
most ``tol * scale`` (``scale`` = mean squared distance to the data mean), and
after a step entries ``<= 1e-13`` are set to zero and every row is renormalised.
O((nK)^3) per iteration: small problems only.
"""

from __future__ import annotations

import numpy as np

SNAP = 1e-13


def dense_gradient(X: np.ndarray, p: np.ndarray, K: int) -> np.ndarray:
    """``g_ij = ||x_i - c_j||^2`` with ``c_j = sum_i p_ij x_i / sum_i p_ij``, literally."""
    n = X.shape[0]
    P = p.reshape(n, K)
    C = (P.T @ X) / P.sum(axis=0)[:, None]
    return (((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)).ravel()


def dense_objective(X: np.ndarray, p: np.ndarray, K: int) -> float:
    """``J(p) = sum_ij p_ij ||x_i - c_j||^2``."""
    return float(p @ dense_gradient(X, p, K))


def _active_matrix(n: int, K: int, active: list[int]) -> np.ndarray:
    E = np.kron(np.eye(n), np.ones((1, K)))
    A = np.eye(n * K)[active]
    return np.vstack([E, A])


def _projection(N: np.ndarray) -> np.ndarray:
    return np.eye(N.shape[1]) - N.T @ np.linalg.solve(N @ N.T, N)


def dense_gradient_projection(
    X: np.ndarray,
    P0: np.ndarray,
    *,
    method: str = "msagp",
    step: float = 0.01,
    tol: float = 1e-9,
    max_iter: int = 100000,
) -> dict:
    """Run AGP, MSAGP or FMSAGP literally; return the iterates and counts.

    Returns
    -------
    out : dict
        ``P`` (final, n x K), ``iterates`` (P after each step), ``objective_history``,
        ``n_iter``, ``n_released``, ``converged``.
    """
    X = np.asarray(X, dtype=np.float64)
    n, K = P0.shape
    p = np.array(P0, dtype=np.float64).ravel()
    scale = float(((X - X.mean(axis=0)) ** 2).sum(axis=1).mean())
    thr = tol * scale
    active = [a for a in range(n * K) if p[a] == 0]
    N = _active_matrix(n, K, active)
    Pr = _projection(N)
    iterates, history = [], []
    n_iter = n_released = 0
    converged = False
    while True:
        g = dense_gradient(X, p, K)
        d = -Pr @ g
        if np.abs(d).max() <= thr:
            q = np.linalg.solve(N @ N.T, N @ g)
            mu = q[n:]  # multipliers of the active inequalities, in the order of `active`
            if mu.size == 0 or mu.min() >= -thr:
                converged = True
                break
            if n_iter >= max_iter:
                break
            del active[int(np.argmin(mu))]  # release one constraint
            n_released += 1
            N = _active_matrix(n, K, active)
            Pr = _projection(N)  # "reconstruct by (27)"
            d = -Pr @ g
        elif n_iter >= max_iter:
            break
        # Maximum step (34): ratio test over the inactive inequalities only (on the
        # active ones d is zero up to rounding).
        inactive = np.ones(n * K, dtype=bool)
        inactive[active] = False
        neg = inactive & (d < 0)
        t_max = float(np.min(p[neg] / -d[neg]))
        t = min(step, t_max) if method == "agp" else t_max
        p = p + t * d
        P = p.reshape(n, K)
        P[P <= SNAP] = 0.0
        P /= P.sum(axis=1, keepdims=True)
        p = P.ravel()
        new_active = [a for a in range(n * K) if p[a] == 0]
        assert set(active) <= set(new_active), "an active constraint left without release"
        if method == "fmsagp":
            for a in new_active:
                if a not in active:
                    # Lemma: adding row n = e_a to N updates Pr by a rank-one term.
                    Pr = Pr - np.outer(Pr[:, a], Pr[a, :]) / Pr[a, a]
            N = _active_matrix(n, K, new_active)
        else:
            N = _active_matrix(n, K, new_active)
            Pr = _projection(N)
        active = new_active
        n_iter += 1
        iterates.append(p.reshape(n, K).copy())
        history.append(dense_objective(X, p, K))
    return {
        "P": p.reshape(n, K).copy(),
        "iterates": iterates,
        "objective_history": np.asarray(history),
        "n_iter": n_iter,
        "n_released": n_released,
        "converged": converged,
    }


def literal_lloyd(
    X: np.ndarray, centers: np.ndarray, thr: float, max_iter: int = 300
) -> tuple[np.ndarray, np.ndarray, list[float], int]:
    """Lloyd's K-means written literally (test oracle for ``solvers._lloyd.lloyd``).

    Distances by broadcasting, centres recomputed from scratch as cluster means.
    The first pass puts every point in its nearest centre (ties: lowest index);
    afterwards a point moves to its nearest centre only when that is closer than
    its own by more than ``thr``. Stops when no point moves. No cluster may empty.
    Returns ``(labels, centres, history of J after each pass that moved, n_iter)``.
    """
    C = np.array(centers, dtype=np.float64)
    labels = np.full(X.shape[0], -1)
    history: list[float] = []
    n_iter = 0
    while n_iter < max_iter:
        D = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        moved = False
        for i in range(X.shape[0]):
            j = int(np.argmin(D[i]))
            if labels[i] < 0 or D[i, labels[i]] - D[i, j] > thr:
                moved = moved or labels[i] != j
                labels[i] = j
        if not moved:
            break
        n_iter += 1
        C = np.array([X[labels == j].mean(axis=0) for j in range(C.shape[0])])
        history.append(float(sum(((X[labels == j] - C[j]) ** 2).sum() for j in range(len(C)))))
    return labels, C, history, n_iter

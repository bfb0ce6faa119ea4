"""Math of EMMC (Zhang et al. 2013): ELM ridge fits, relabelling rules, class-balance repair.

EMMC minimises, over labels ``t`` (under the class balance constraint) and
output weights ``beta``,

    J(t, beta) = 1/2 ||beta||^2 + C/2 ||H beta - T(t)||^2,                (eqs. 11, 14)

with ``H`` the n x L hidden-layer matrix and ``T(t)`` the targets: ``+-1`` (two
classes), the class index ``1..m`` (single output, m classes) or a one-hot row
(multi-output). For fixed ``t`` the minimiser is the ridge solution

    beta = (I/C + H^T H)^{-1} H^T T           (primal, eq. 9; L x L system)
         = H^T (I/C + H H^T)^{-1} T           (dual, eq. 8; n x n system)

(both follow from the normal equations ``beta/C + H^T (H beta - T) = 0``; the
identity ``(I/C + H^T H)^{-1} H^T = H^T (I/C + H H^T)^{-1}`` links them). For fixed
``beta`` the minimiser over ``t`` minimises ``sum_i (f_i - t_i)^2`` with
``f = H beta`` (eq. 12):

- two classes: ``t_i = sign(f_i)`` (``-1`` when ``f_i <= 0``; Proposition 1);
- single output, m classes: the nearest class index, ``t_i = i`` for
  ``i - 1/2 < f_i <= i + 1/2`` (clipped to ``1..m``). **Correction:** the paper's
  Proposition 1 prints ``i - 1 < f_i <= i`` (rounding up), which does not
  minimise eq. 12 (``f = 1.1`` is closer to 1 than to 2); the objective rules;
- multi-output: ``argmax_k F_ik`` (``||F_i - e_k||^2 = ||F_i||^2 - 2 F_ik + 1``).

The balance repair of Sec. 4.2 moves the least confident members of the
largest class to the smallest one until ``max_p N_p - min_q N_q <= l``. For two
classes this is the exact minimiser of eq. 12 under the constraint (flipping
``i`` from +1 to -1 costs ``4 f_i``, so the cheapest flips are the smallest
``f_i``), hence the alternation decreases J monotonically. For m > 2 it is the
paper's greedy rule (no such guarantee).

Prior validation of the inputs is assumed everywhere in this module.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve, solve_triangular

__all__ = [
    "balance_feasible",
    "emmc_objective",
    "factor_ridge",
    "labels_to_targets",
    "relabel",
    "repair_balance",
    "ridge_dof",
    "ridge_dual",
    "ridge_primal",
    "targets_to_labels",
]

Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


# ----------------------------------------------------------------- ridge fits
def factor_ridge(G: Array, C: float) -> tuple[Array, bool]:
    """Cholesky factor of ``I/C + G`` for a symmetric PSD ``G`` (H^T H or H H^T).

    Parameters
    ----------
    G : ndarray of shape (p, p)
        Gram matrix.
    C : float
        Ridge trade-off (``1/C`` is added to the diagonal).

    Returns
    -------
    factor : tuple
        ``scipy.linalg.cho_factor`` output, reusable across right-hand sides.
    """
    A = G.copy()
    A.flat[:: A.shape[0] + 1] += 1.0 / C
    return cho_factor(A, lower=True, check_finite=False)


def ridge_primal(factor: tuple[Array, bool], HtT: Array) -> Array:
    """Output weights ``beta = (I/C + H^T H)^{-1} H^T T`` from the factor of the primal system.

    Parameters
    ----------
    factor : tuple
        :func:`factor_ridge` of ``H^T H``.
    HtT : ndarray of shape (L,) or (L, n_outputs)
        ``H^T T``.

    Returns
    -------
    beta : ndarray of the shape of ``HtT``
    """
    return cho_solve(factor, HtT, check_finite=False)


def ridge_dual(factor: tuple[Array, bool], T: Array) -> Array:
    """Dual coefficients ``alpha = (I/C + H H^T)^{-1} T``; then ``beta = H^T alpha``.

    Parameters
    ----------
    factor : tuple
        :func:`factor_ridge` of ``H H^T``.
    T : ndarray of shape (n,) or (n, n_outputs)
        Targets.

    Returns
    -------
    alpha : ndarray of the shape of ``T``
    """
    return cho_solve(factor, T, check_finite=False)


def ridge_dof(factor: tuple[Array, bool], C: float) -> float:
    """Effective degrees of freedom ``trace(H (I/C + H^T H)^{-1} H^T)`` of the ridge smoother.

    Equals ``sum_i lambda_i / (lambda_i + 1/C)`` over the eigenvalues of ``H^T H``
    and ``p - trace((I/C + G)^{-1}) / C`` for either Gram matrix ``G`` (p x p), which
    is what is computed from the Cholesky factor (``trace(A^{-1}) = ||L^{-1}||_F^2``).
    Divided by n it is the mean leverage: close to 1, the fit reproduces any targets.

    Parameters
    ----------
    factor : tuple
        :func:`factor_ridge` output (of ``H^T H`` or ``H H^T``).
    C : float
        The trade-off used in the factor.

    Returns
    -------
    dof : float
    """
    Lc = np.tril(factor[0])
    p = Lc.shape[0]
    Linv = solve_triangular(Lc, np.eye(p), lower=True, check_finite=False)
    return float(p - np.sum(Linv * Linv) / C)


def emmc_objective(beta: Array, F: Array, T: Array, C: float) -> float:
    """``1/2 ||beta||^2 + C/2 ||F - T||^2`` with ``F = H beta`` (eqs. 11 and 14).

    Parameters
    ----------
    beta : ndarray of shape (L,) or (L, n_outputs)
        Output weights.
    F : ndarray of shape (n,) or (n, n_outputs)
        Outputs ``H beta``.
    T : ndarray of the shape of ``F``
        Targets.
    C : float
        Trade-off.

    Returns
    -------
    value : float
    """
    r = F - T
    return 0.5 * float(np.sum(beta * beta)) + 0.5 * C * float(np.sum(r * r))


# ------------------------------------------------------------ label encodings
def labels_to_targets(labels: IntArray, n_clusters: int, output: str) -> Array:
    """Targets ``T`` of cluster labels ``0..m-1``.

    Parameters
    ----------
    labels : ndarray of shape (n,)
        Cluster indices.
    n_clusters : int
        m.
    output : {"binary", "single", "multi"}
        ``"binary"``: ``-1`` for cluster 0, ``+1`` for cluster 1; ``"single"``:
        the class index ``1..m``; ``"multi"``: one-hot rows.

    Returns
    -------
    T : ndarray of shape (n,) or (n, m)
    """
    if output == "binary":
        return np.where(labels == 1, 1.0, -1.0)
    if output == "single":
        return labels.astype(np.float64) + 1.0
    T = np.zeros((labels.size, n_clusters))
    T[np.arange(labels.size), labels] = 1.0
    return T


def targets_to_labels(T: Array, output: str) -> IntArray:
    """Inverse of :func:`labels_to_targets` (for well-formed targets)."""
    if output == "binary":
        return (T > 0).astype(np.intp)
    if output == "single":
        return np.rint(T).astype(np.intp) - 1
    return np.argmax(T, axis=1).astype(np.intp)


# ---------------------------------------------------------------- relabelling
def relabel(F: Array, n_clusters: int, output: str) -> IntArray:
    """Minimiser of ``sum_i ||F_i - T_i||^2`` over labels, without balance (eq. 12).

    Parameters
    ----------
    F : ndarray of shape (n,) or (n, m)
        Outputs ``H beta``.
    n_clusters : int
        m.
    output : {"binary", "single", "multi"}
        Encoding (see :func:`labels_to_targets`).

    Returns
    -------
    labels : ndarray of shape (n,)
        Cluster indices ``0..m-1``. Ties go to the lower cluster.
    """
    if output == "binary":
        return (F > 0).astype(np.intp)
    if output == "single":
        # nearest of 1..m; t = i for i - 1/2 < f <= i + 1/2
        t = np.ceil(F - 0.5)
        return (np.clip(t, 1, n_clusters) - 1).astype(np.intp)
    return np.argmax(F, axis=1).astype(np.intp)


def balance_feasible(n: int, n_clusters: int, l_max: int) -> bool:
    """Whether cluster sizes can satisfy ``max N - min N <= l_max`` (and none is empty)."""
    if l_max < 0:
        return False
    spread = 0 if n % n_clusters == 0 else 1
    return l_max >= spread and n >= n_clusters


def _switch_cost(F: Array, members: IntArray, p: int, q: int, output: str) -> Array:
    """Increase of the relabelling loss when moving ``members`` from cluster p to q."""
    if output == "multi":
        # ||F_i - e_q||^2 - ||F_i - e_p||^2 = 2 (F_ip - F_iq)
        return 2.0 * (F[members, p] - F[members, q])
    f = F[members]
    if output == "binary":
        tp, tq = (1.0 if p == 1 else -1.0), (1.0 if q == 1 else -1.0)
    else:
        tp, tq = p + 1.0, q + 1.0
    return (f - tq) ** 2 - (f - tp) ** 2


def repair_balance(
    labels: IntArray, F: Array, n_clusters: int, l_max: int, output: str
) -> tuple[IntArray, int]:
    """Enforce ``max_p N_p - min_q N_q <= l_max`` by the paper's repair (Sec. 4.2).

    While the constraint is violated, take the largest class p and the smallest
    class q and move the ``ceil((N_p - N_q - l_max) / 2)`` members of p that are
    cheapest to move to q (two classes: the positives with the smallest output,
    or the negatives with the largest; single output: the members of p whose
    output is closest to q's index, i.e. the smallest if ``p > q`` and the largest
    if ``p < q``; multi-output: the smallest ``F_ip - F_iq``). Every move lowers
    ``sum_p N_p^2``, so the loop ends.

    Parameters
    ----------
    labels : ndarray of shape (n,)
        Labels ``0..m-1`` (not modified).
    F : ndarray of shape (n,) or (n, m)
        Outputs used to rank the members.
    n_clusters : int
        m.
    l_max : int
        Allowed spread of the class sizes; must be feasible
        (:func:`balance_feasible`).
    output : {"binary", "single", "multi"}
        Encoding.

    Returns
    -------
    labels : ndarray of shape (n,)
        Repaired labels.
    n_moved : int
        Number of moves made (a sample moved twice counts twice).
    """
    labels = labels.copy()
    counts = np.bincount(labels, minlength=n_clusters)
    n_moved = 0
    while True:
        p = int(np.argmax(counts))
        q = int(np.argmin(counts))
        gap = int(counts[p] - counts[q])
        if gap <= l_max:
            return labels, n_moved
        k = (gap - l_max + 1) // 2
        members = np.flatnonzero(labels == p)
        cost = _switch_cost(F, members, p, q, output)
        # stable order so ties are resolved by sample index (deterministic)
        chosen = members[np.argsort(cost, kind="stable")[:k]]
        labels[chosen] = q
        counts[p] -= k
        counts[q] += k
        n_moved += k

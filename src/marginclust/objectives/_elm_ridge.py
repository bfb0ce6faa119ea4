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

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.linalg.blas import dsyrk, ssyrk

from ..utils._blocks import BLOCK_ROWS

__all__ = [
    "ELMRidgeProblem",
    "elm_outputs",
    "gram_block",
    "hidden_by_blocks",
    "hidden_layer",
    "output_block",
    "target_update_block",
    "balance_feasible",
    "is_balanced",
    "resolve_balance_count",
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


def is_balanced(labels: IntArray, n_clusters: int, l_max: int) -> bool:
    """Whether ``labels`` meet ``max_p N_p - min_q N_q <= l_max`` with no empty cluster."""
    counts = np.bincount(labels, minlength=n_clusters)
    return bool(counts.min() > 0 and counts.max() - counts.min() <= l_max)


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
    cheapest to move to q (at least one when q is empty, so no cluster stays
    empty whatever ``l_max``; two classes: the positives with the smallest output,
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
        if gap <= l_max and counts[q] > 0:
            return labels, n_moved
        k = max((gap - l_max + 1) // 2, 1)
        members = np.flatnonzero(labels == p)
        cost = _switch_cost(F, members, p, q, output)
        # stable order so ties are resolved by sample index (deterministic)
        chosen = members[np.argsort(cost, kind="stable")[:k]]
        labels[chosen] = q
        counts[p] -= k
        counts[q] += k
        n_moved += k


def resolve_balance_count(balance: Any, n: int, n_clusters: int) -> int:
    """The allowed class-size spread ``l`` (an int) of a ``balance`` parameter.

    A float in (0, 1] is a fraction of ``n``: ``l = floor(balance * n)``, raised to
    the smallest feasible spread (1 when ``n_clusters`` does not divide ``n``).
    An int is an absolute count. (The MMC objectives' ``resolve_balance`` bounds a
    mean output instead; this one counts samples.) The estimators check the value
    (:mod:`marginclust.estimators._balance`), including that a count is feasible.

    Parameters
    ----------
    balance : float or int
        The ``balance`` parameter.
    n : int
        Number of samples.
    n_clusters : int
        Number of clusters.

    Returns
    -------
    l_max : int
    """
    if isinstance(balance, numbers.Integral):
        return int(balance)
    return max(int(np.floor(float(balance) * n)), 0 if n % n_clusters == 0 else 1)


class ELMRidgeProblem:
    """EMMC's alternation problem for :class:`marginclust.solvers.LabelAlternation`.

    ``fit_labels`` is the ridge fit of ``beta`` to the targets of the labels
    (one Cholesky factor of ``I/C + H^T H``, or of ``I/C + H H^T`` in the dual
    when ``L > n``, computed once since only the targets change); ``objective`` is
    :func:`emmc_objective`; ``assign`` is :func:`relabel`; ``repair`` is
    :func:`repair_balance`; ``is_feasible`` is :func:`is_balanced`.

    ``H`` is either given (cached) or recomputed block by block by ``hidden`` in
    every pass (memory O(L^2 + block x L)); then ``H^T T`` is updated from the
    rows whose label changed only.

    Parameters
    ----------
    hidden : callable
        ``hidden(rows)`` returns the hidden-layer rows (``rows`` a slice or an
        index array).
    n_samples, n_hidden : int
        n and L.
    C : float
        Trade-off of the squared loss.
    n_clusters : int
        m.
    output : {"binary", "single", "multi"}
        Target encoding (:func:`labels_to_targets`).
    l_max : int
        Allowed class-size spread.
    H : ndarray of shape (n_samples, n_hidden), optional
        The cached hidden layer (required when ``n_hidden > n_samples``).
    block_rows : int, default=8192
        Row-block size of the passes over ``H``.
    labels0 : ndarray of shape (n_samples,), optional
        The first labels ``fit_labels`` will see: when ``H`` is streamed, their
        ``H^T T`` is accumulated in the same pass as the Gram matrix.
    """

    def __init__(
        self,
        hidden: Any,
        n_samples: int,
        n_hidden: int,
        C: float,
        n_clusters: int,
        output: str,
        l_max: int,
        *,
        H: Array | None = None,
        block_rows: int = BLOCK_ROWS,
        labels0: IntArray | None = None,
    ) -> None:
        self.hidden = hidden
        self.n, self.L, self.C = int(n_samples), int(n_hidden), float(C)
        self.m, self.output, self.l_max = int(n_clusters), output, int(l_max)
        self.H = H
        self.block_rows = int(block_rows)
        self.dual = self.L > self.n
        self._labels: IntArray | None = None
        self._T: Array | None = None
        self._HtT: Array | None = None
        self._loss: tuple[Array, float] | None = None  # (beta, sum of block losses)
        if self.dual:
            assert H is not None, "the dual path needs the cached hidden layer"
            K = _syrk_add(np.zeros((self.n, self.n), order="F"), H)
            _symmetrize(K)
            self.K = K
            self.factor = factor_ridge(K, self.C)
        else:
            G = np.zeros((self.L, self.L), order="F")
            T0 = None
            if labels0 is not None:
                T0 = labels_to_targets(labels0, self.m, self.output)
                HtT0 = np.zeros((self.L,) + T0.shape[1:])
            for sl in self._blocks():
                G_b, HtT_b = gram_block(self._hblock(sl), None if T0 is None else T0[sl])
                G += G_b
                if HtT_b is not None:
                    HtT0 += HtT_b
            if T0 is not None and labels0 is not None:
                self._labels, self._T, self._HtT = labels0.copy(), T0, HtT0
            _symmetrize(G)
            self.factor = factor_ridge(G, self.C)
        self.dof = ridge_dof(self.factor, self.C)

    def _blocks(self) -> Any:
        for start in range(0, self.n, self.block_rows):
            yield slice(start, min(start + self.block_rows, self.n))

    def _hblock(self, rows: Any) -> Any:
        return self.H[rows] if self.H is not None else self.hidden(rows)

    def fit_labels(self, labels: IntArray) -> tuple[Array, Array, Array]:
        """Ridge fit to the targets of ``labels``; returns ``(beta, F = H beta, T)``."""
        T = labels_to_targets(labels, self.m, self.output)
        if self.dual:
            alpha = ridge_dual(self.factor, T)
            F = self.K @ alpha
            beta = self.H.T @ alpha  # type: ignore[union-attr]
        else:
            if self._labels is None or self._HtT is None or self._T is None:
                HtT = np.zeros((self.L,) + T.shape[1:])
                for sl in self._blocks():
                    HtT += self._hblock(sl).T @ T[sl]
            else:
                # only the changed rows move H^T T: their rows of H, grouped by row block
                HtT = self._HtT.copy()
                for sl in self._blocks():
                    rows = sl.start + np.flatnonzero(labels[sl] != self._labels[sl])
                    if rows.size:
                        HtT += target_update_block(self._hblock(rows), T[rows], self._T[rows])
            self._labels, self._T, self._HtT = labels.copy(), T, HtT
            beta = ridge_primal(self.factor, HtT)
            F = np.empty_like(T)
            loss = 0.0
            for sl in self._blocks():
                F[sl], loss_b = output_block(self._hblock(sl), beta, T[sl])
                loss += loss_b
            self._loss = (beta, loss)
        return beta, F, T

    def objective(self, model: tuple[Array, Array, Array], labels: IntArray) -> float:
        """:func:`emmc_objective` of the fitted model at ``labels``."""
        beta, F, T = model
        cached = self._loss
        if cached is not None and cached[0] is beta:  # the primal pass summed it by block
            return 0.5 * float(np.sum(beta * beta)) + 0.5 * self.C * cached[1]
        return emmc_objective(beta, F, T, self.C)

    def assign(self, model: tuple[Array, Array, Array]) -> IntArray:
        """:func:`relabel` of the outputs."""
        return relabel(model[1], self.m, self.output)

    def repair(self, labels: IntArray, model: tuple[Array, Array, Array]) -> IntArray:
        """:func:`repair_balance` ranked by the outputs."""
        return repair_balance(labels, model[1], self.m, self.l_max, self.output)[0]

    def is_feasible(self, labels: IntArray) -> bool:
        """:func:`is_balanced`."""
        return is_balanced(labels, self.m, self.l_max)


def hidden_layer(
    transform: Any, X: Any, n_hidden: int, block_rows: int, max_bytes: int, stream_dtype: Any
) -> tuple[Array | None, Any]:
    """The hidden layer of the rows of ``X``: ``H`` in memory, or None, and ``hidden(rows)``.

    ``H`` (float64) is kept when the dual is used (``n_hidden > n``) or it takes at
    most ``max_bytes``; otherwise every pass recomputes its rows with
    ``hidden(rows)`` in ``stream_dtype`` (float32: half the time of the exp and the
    products; the Gram matrix is still accumulated in float64).
    """
    n = X.shape[0]
    cache = n_hidden > n or n * n_hidden * 8 <= max_bytes
    H = hidden_by_blocks(transform, X, block_rows) if cache else None

    def hidden(rows: Any) -> Any:
        return transform(X[rows], dtype=stream_dtype)

    return H, hidden


def elm_outputs(transform: Any, X: Any, beta: Array, block_rows: int) -> Array:
    """Outputs ``h(x) beta`` of the rows of ``X``, ``block_rows`` rows of ``h`` at a time."""
    n = X.shape[0]
    F = np.empty((n,) + beta.shape[1:])
    for start in range(0, n, block_rows):
        sl = slice(start, min(start + block_rows, n))
        F[sl] = transform(X[sl]) @ beta
    return F


def hidden_by_blocks(transform: Any, X: Any, block_rows: int) -> Array:
    """The hidden layer ``H`` of all rows, computed row block by row block.

    Each block is ``transform(X[block])``, exactly what a Dask pass over chunks of
    ``block_rows`` rows computes, so a cached ``H`` and a streamed one agree bitwise.
    """
    n = X.shape[0]
    first = transform(X[: min(block_rows, n)])
    H = np.empty((n, first.shape[1]), dtype=first.dtype)
    H[: first.shape[0]] = first
    for start in range(block_rows, n, block_rows):
        H[start : start + block_rows] = transform(X[start : start + block_rows])
    return H


def gram_block(H_b: Any, T_b: Array | None) -> tuple[Array, Array | None]:
    """One row block's ``(H_b^T H_b, H_b^T T_b)`` (the Gram's upper triangle, via syrk).

    EMMC's primal system ``I/C + H^T H`` and its first right-hand side are the
    in-order sums of these partials, in the in-memory path and the Dask path
    (:mod:`marginclust.dask`) alike. A float32 block is multiplied in float32.
    """
    G_b = _syrk_add(np.zeros((H_b.shape[1], H_b.shape[1]), order="F"), H_b.T)
    return G_b, (None if T_b is None else H_b.T @ T_b)


def output_block(H_b: Any, beta: Array, T_b: Array) -> tuple[Array, float]:
    """One row block's outputs ``F_b = H_b beta`` (float64) and ``||F_b - T_b||^2``."""
    F_b = np.asarray(H_b @ beta.astype(H_b.dtype, copy=False), dtype=np.float64)
    r = F_b - T_b
    return F_b, float(np.sum(r * r))


def target_update_block(H_rows: Any, T_new: Array, T_old: Array) -> Array:
    """``H_rows^T (T_new - T_old)``: the change of ``H^T T`` from the relabelled rows."""
    return H_rows.T @ (T_new - T_old)


def _syrk_add(G: Array, B: Any) -> Array:
    """``G + B B^T`` (upper triangle) via BLAS syrk; ``G`` F-ordered, ``B`` ideally F-contiguous.

    A C-contiguous row block ``H_b`` passed as ``H_b.T`` is F-contiguous, so
    ``_syrk_add(G, H_b.T)`` adds ``H_b^T H_b`` without a copy. A float32 block is
    multiplied in float32 and accumulated into the float64 ``G``.
    """
    if B.dtype == np.float32:
        if not B.flags.f_contiguous:
            B = np.asfortranarray(B)
        G += ssyrk(1.0, B, trans=0, lower=0)
        return G
    B = np.asarray(B, dtype=np.float64)
    if not B.flags.f_contiguous:
        B = np.asfortranarray(B)
    return dsyrk(1.0, B, beta=1.0, c=G, trans=0, lower=0, overwrite_c=1)


def _symmetrize(G: Array) -> None:
    """Copy the upper triangle of ``G`` to the lower one, in place."""
    iu = np.triu_indices(G.shape[0], 1)
    G[(iu[1], iu[0])] = G[iu]

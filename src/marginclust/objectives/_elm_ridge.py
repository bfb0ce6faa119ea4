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

import hashlib
import numbers
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.linalg.blas import dsyrk, ssyrk

from ..utils._blocks import BLOCK_ROWS, row_slices

__all__ = [
    "ELMRidgeProblem",
    "ELMRowProblem",
    "elm_outputs",
    "gram_block",
    "hidden_by_blocks",
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
    """EMMC's alternation in the dual (``n_hidden > n_samples``), for
    :class:`marginclust.solvers.LabelAlternation`.

    ``fit_labels`` is the ridge fit of ``beta = H^T alpha`` to the targets of the
    labels through one Cholesky factor of the n x n system ``I/C + H H^T``
    (computed once, since only the targets change); ``objective`` is
    :func:`emmc_objective`; ``assign`` is :func:`relabel`; ``repair`` is
    :func:`repair_balance`; ``is_feasible`` is :func:`is_balanced`. The primal
    (an L x L system) runs over row blocks: :class:`ELMRowProblem`.

    Parameters
    ----------
    H : ndarray of shape (n_samples, n_hidden)
        The hidden layer.
    C : float
        Trade-off of the squared loss.
    n_clusters : int
        m.
    output : {"binary", "single", "multi"}
        Target encoding (:func:`labels_to_targets`).
    l_max : int
        Allowed class-size spread.
    """

    def __init__(
        self, H: Array, C: float, n_clusters: int, output: str, l_max: int
    ) -> None:
        self.H = H
        self.n, self.L = (int(v) for v in H.shape)
        self.C = float(C)
        self.m, self.output, self.l_max = int(n_clusters), output, int(l_max)
        K = _syrk_add(np.zeros((self.n, self.n), order="F"), H)
        _symmetrize(K)
        self.K = K
        self.factor = factor_ridge(K, self.C)
        self.dof = ridge_dof(self.factor, self.C)

    def fit_labels(self, labels: IntArray) -> tuple[Array, Array, Array]:
        """Ridge fit to the targets of ``labels``; returns ``(beta, F = H beta, T)``."""
        T = labels_to_targets(labels, self.m, self.output)
        alpha = ridge_dual(self.factor, T)
        return self.H.T @ alpha, self.K @ alpha, T

    def objective(self, model: tuple[Array, Array, Array], labels: IntArray) -> float:
        """:func:`emmc_objective` of the fitted model at ``labels``."""
        beta, F, T = model
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


# --------------------------------------------------- the primal over row blocks
def _sub_blocks(n: int) -> list[slice]:
    """A block's ``BLOCK_ROWS``-row sub-blocks: the in-memory blocks inside a larger one."""
    return row_slices(n, BLOCK_ROWS)


def _hidden_rows(cfg: dict[str, Any], rows: Any) -> Any:
    return cfg["hidden"](rows, dtype=cfg["hdtype"])


def _block_hidden(Xb: Any, state: Any, cfg: dict[str, Any]) -> list[Any]:
    """The hidden layer of a block's sub-blocks (kept in the state when cached)."""
    if state is not None and state.get("H") is not None:
        return state["H"]
    return [_hidden_rows(cfg, Xb[sl]) for sl in _sub_blocks(Xb.shape[0])]


def _gram_pass(Xb: Any, state: Any, lohi: Any, *rest: Any) -> Any:
    """Initial labels (version 0), ``H_b^T H_b``, ``H_b^T T0_b`` and the sizes per block.

    ``rest`` is ``([t0_b,] cfg)``: the start's labels come as an extra block, or
    the block predicts them with the start's k-means (``cfg["km"]``).
    """
    extra, cfg = rest if len(rest) == 2 else (None, rest[0])
    if extra is not None:
        t0 = np.asarray(extra, dtype=np.intp).ravel()
    else:
        km, feats = cfg["km"], cfg["feats"]
        t0 = np.concatenate(
            [np.asarray(km.predict(feats(Xb[sl])), dtype=np.intp)
             for sl in _sub_blocks(Xb.shape[0])]
        ) if Xb.shape[0] else np.zeros(0, dtype=np.intp)
    L = int(cfg["L"])
    G = np.zeros((L, L), order="F")
    HtT: Any = None
    Hs = _block_hidden(Xb, None, cfg)
    for sl, Hb in zip(_sub_blocks(Xb.shape[0]), Hs):
        G_b, HtT_b = gram_block(Hb, labels_to_targets(t0[sl], cfg["m"], cfg["out"]))
        G += G_b
        HtT = np.zeros(HtT_b.shape) + HtT_b if HtT is None else HtT + HtT_b  # type: ignore[union-attr]
    counts = np.bincount(t0, minlength=cfg["m"])
    state = {"v": {0: t0}, "F": None, "w": None, "H": Hs if cfg["cache"] else None}
    return state, ((G, HtT), counts)


def _delta_and_digest(
    Xb: Any, state: Any, new: Any, old: Any, cfg: dict[str, Any], Hs: list[Any] | None
) -> tuple[Any, int, bytes]:
    """Per sub-block change of ``H^T T`` from the rows whose label changed."""
    delta: Any = None
    n_changed = 0
    m, out = cfg["m"], cfg["out"]
    for i, sl in enumerate(_sub_blocks(Xb.shape[0])):
        idx = np.flatnonzero(new[sl] != old[sl])
        n_changed += idx.size
        if not idx.size:
            continue
        if cfg["f64"]:  # rows of the block's float64 layer (the in-memory cached H)
            Hrows = (Hs[i] if Hs is not None else _hidden_rows(cfg, Xb[sl]))[idx]
        else:  # the streamed float32 layer of the changed rows only, as in memory
            Hrows = _hidden_rows(cfg, Xb[sl][idx])
        d = target_update_block(
            Hrows, labels_to_targets(new[sl][idx], m, out), labels_to_targets(old[sl][idx], m, out)
        )
        delta = np.zeros(d.shape) + d if delta is None else delta + d  # from float64 zeros
    return delta, n_changed, hashlib.blake2b(np.ascontiguousarray(new).tobytes()).digest()


def _output_pass(
    Xb: Any, state: Any, lohi: Any, beta: Any, ver: int, new_ver: int, keep: Any,
    cfg: dict[str, Any],
) -> Any:
    """Outputs of ``beta``, the loss at labels ``ver``, the relabelling ``new_ver`` and,
    speculatively (no repair), its change of ``H^T T`` against ``ver``."""
    t = state["v"][ver]
    m, out = cfg["m"], cfg["out"]
    Fs = []
    loss = 0.0
    Hs = _block_hidden(Xb, state, cfg)
    for sl, Hb in zip(_sub_blocks(Xb.shape[0]), Hs):
        F_b, loss_b = output_block(Hb, beta, labels_to_targets(t[sl], m, out))
        Fs.append(F_b)
        loss += loss_b
    F = np.concatenate(Fs) if Fs else np.zeros((0,) + beta.shape[1:], dtype=np.float64)
    a = relabel(F, m, out)
    # the rows of H the change needs: cached, or just computed (the whole block: cheaper
    # than recomputing the changed rows when many change; exactly the in-memory rows)
    delta, n_changed, digest = _delta_and_digest(Xb, state, a, t, cfg, Hs)
    versions = {k: v for k, v in state["v"].items() if k in keep}
    versions[new_ver] = a
    new_state = {"v": versions, "F": F, "w": None, "H": state.get("H")}
    return new_state, (loss, np.bincount(a, minlength=m), delta, n_changed, digest)


def _apply_move(w: Any, lo: int, pq: int, chosen: Any) -> None:
    if chosen is not None:
        a, b = np.searchsorted(chosen, [lo, lo + w.size])
        w[chosen[a:b] - lo] = pq


def _select_pass(
    Xb: Any, state: Any, lohi: Any, src: int, pq: int, chosen: Any, p: int, q: int, k: int,
    cfg: dict[str, Any],
) -> Any:
    """Apply the pending move to the working labels, return the ``k`` cheapest members of p."""
    lo, _ = lohi
    w = state["w"] if state["w"] is not None else state["v"][src].copy()
    _apply_move(w, lo, pq, chosen)
    members = np.flatnonzero(w == p)
    cost = _switch_cost(state["F"], members, p, q, cfg["out"])
    order = np.argsort(cost, kind="stable")[:k]
    new_state = dict(state)
    new_state["w"] = w
    return new_state, (cost[order], members[order] + lo)


def _commit_pass(
    Xb: Any, state: Any, lohi: Any, src: int, pq: int, chosen: Any, old: int, new_ver: int,
    keep: Any, cfg: dict[str, Any],
) -> Any:
    lo, _ = lohi
    w = state["w"] if state["w"] is not None else state["v"][src].copy()
    _apply_move(w, lo, pq, chosen)
    delta, n_changed, digest = _delta_and_digest(Xb, state, w, state["v"][old], cfg, state["H"])
    versions = {k: v for k, v in state["v"].items() if k in keep}
    versions[new_ver] = w
    new_state = {"v": versions, "F": state["F"], "w": None, "H": state.get("H")}
    return new_state, (np.bincount(w, minlength=cfg["m"]), delta, n_changed, digest)


def _labels_of(state: Any, ver: int) -> Any:
    return state["v"][ver]


class ELMRowProblem:
    """EMMC's primal alternation over the row blocks of X, with label handles.

    A problem of :class:`marginclust.solvers.LabelAlternation` that never holds an
    n-vector: each row block keeps its labels (and the outputs ``F_b = H_b beta``
    of the last fit, and its hidden layer when cached) in its state beside the
    data (in memory: :class:`~marginclust.utils._blocks.RowBlocks`; out of core:
    the dask backend), and the solver sees label *handles*: ints naming a
    labelling kept block by block. ``fit_labels(h)`` solves the ridge system
    (one Cholesky factor of ``I/C + H^T H`` for the fit) with ``H^T T(h)``
    updated from the change reported by the pass that created ``h``;
    ``objective`` runs the output pass (once per model); ``assign`` names the
    relabelling that pass computed; ``repair`` runs the selection passes of the
    paper's repair (:func:`repair_balance`: same ranking, ties by row) and one
    commit pass.

    Parameters
    ----------
    rows : row-block backend
        The data (dense).
    cfg : dict
        ``hidden`` (rows, dtype -> hidden layer), ``hdtype`` (its dtype),
        ``f64`` (the float64 layer, whose changed rows come from the block's layer;
        else a float32 layer streamed row by row), ``cache`` (keep each block's
        layer in its state), ``m``, ``out``, ``L``,
        and the start: ``km`` and ``feats`` when each block predicts its first
        labels with the start's k-means.
    C : float
        Trade-off of the squared loss.
    l_max : int
        Allowed class-size spread (may be raised by the caller after the start).
    init_labels : array or None
        The start's labels (row-aligned; lazy out of core), unless ``cfg["km"]``.
    """

    def __init__(
        self, rows: Any, cfg: dict[str, Any], C: float, l_max: int, init_labels: Any
    ) -> None:
        self.rows, self.cfg, self.C, self.l_max = rows, cfg, float(C), int(l_max)
        self.m, self.out = int(cfg["m"]), cfg["out"]
        self.n_samples = int(rows.shape[0])
        self.n_passes = 0
        extra = () if init_labels is None else (init_labels,)
        self.states, parts = rows.states(_gram_pass, None, cfg, extra=extra, with_offsets=True)
        self.n_passes += 1
        L = int(cfg["L"])
        G = np.zeros((L, L), order="F")
        T_shape = (L,) if self.out in ("binary", "single") else (L, self.m)
        HtT0 = np.zeros(T_shape)
        counts = np.zeros(self.m, dtype=np.intp)
        for (G_b, HtT_b), c in parts:
            G += G_b
            if HtT_b is not None:
                HtT0 += HtT_b
            counts += c
        _symmetrize(G)
        self.factor = factor_ridge(G, self.C)
        self.dof = ridge_dof(self.factor, self.C)
        self.init_counts = counts
        # per version: cluster sizes, H^T T (once fitted), change vs its parent, digest
        self.counts: dict[int, Any] = {0: counts}
        self.HtT: dict[int, Any] = {0: HtT0}
        self.pending: dict[int, tuple[int, list[Any], int, bytes]] = {}
        self.fitted: int | None = None
        self._next = 1
        self._outputs: dict[int, tuple[Any, float, int]] = {}  # id(beta) -> (beta, loss, ver)
        self._keep: set[int] = {0}

    def _pass(self, fn: Any, *args: Any) -> list[Any]:
        self.states, parts = self.rows.states(fn, self.states, *args, with_offsets=True)
        self.n_passes += 1
        return parts

    def _new_version(self) -> int:
        v = self._next
        self._next += 1
        return v

    def _record(self, new_ver: int, parent: int, counts: Any, parts: list[Any]) -> None:
        """Keep labels ``new_ver`` as ``parent`` plus the blocks' ``(delta, changed, digest)``."""
        deltas: list[Any] = []
        n_changed = 0
        digests = []
        for d, nc, dg in parts:
            deltas.append(d)
            n_changed += nc
            digests.append(dg)
        self.counts[new_ver] = counts
        self.pending[new_ver] = (parent, deltas, n_changed, b"".join(digests))
        self._keep.add(new_ver)

    def fit_labels(self, h: int) -> tuple[Any, int]:
        """The ridge fit to the targets of labels ``h``: ``(beta, h)``."""
        if h not in self.HtT:
            parent, deltas, _, _ = self.pending[h]
            HtT = self.HtT[parent].copy()
            for d in deltas:
                if d is not None:
                    HtT += d
            self.HtT[h] = HtT
        for v in list(self.HtT):
            if v not in (h, 0):
                del self.HtT[v]
        self.fitted = h
        self._keep = {0, h}
        return ridge_primal(self.factor, self.HtT[h]), h

    def _run_outputs(self, model: tuple[Any, int]) -> tuple[float, int]:
        beta, ver = model
        key = id(beta)
        if key in self._outputs and self._outputs[key][0] is beta:
            return self._outputs[key][1], self._outputs[key][2]
        new_ver = self._new_version()
        parts = self._pass(_output_pass, beta, ver, new_ver, frozenset(self._keep), self.cfg)
        loss = 0.0
        counts = np.zeros(self.m, dtype=np.intp)
        for loss_b, c, *_ in parts:
            loss += loss_b
            counts += c
        self._record(new_ver, ver, counts, [part[2:] for part in parts])
        self._outputs = {key: (beta, loss, new_ver)}
        return loss, new_ver

    def objective(self, model: tuple[Any, int], labels: int) -> float:
        """:func:`emmc_objective` of the fitted model (its output pass sums the loss)."""
        beta = model[0]
        loss, _ = self._run_outputs(model)
        return 0.5 * float(np.sum(beta * beta)) + 0.5 * self.C * loss

    def assign(self, model: tuple[Any, int]) -> int:
        """The handle of the relabelling of the model's outputs."""
        return self._run_outputs(model)[1]

    def repair(self, h: int, model: tuple[Any, int]) -> int:
        """The paper's balance repair of labels ``h``, ranked by the model's outputs."""
        self._run_outputs(model)  # the outputs F rank the members
        counts = self.counts[h].copy()
        pending = None
        moved = False
        while True:
            p, q = int(np.argmax(counts)), int(np.argmin(counts))
            gap = int(counts[p] - counts[q])
            if gap <= self.l_max and counts[q] > 0:
                break
            k = max((gap - self.l_max + 1) // 2, 1)
            pq, ch = pending if pending is not None else (-1, None)
            parts = self._pass(_select_pass, h, pq, ch, p, q, k, self.cfg)
            costs = np.concatenate([c for c, _ in parts])
            idx = np.concatenate([i for _, i in parts])
            chosen = np.sort(idx[np.argsort(costs, kind="stable")[:k]])
            pending = (q, chosen)
            counts[p] -= k
            counts[q] += k
            moved = True
        if not moved:
            return h
        new_ver = self._new_version()
        old = self.fitted if self.fitted is not None else 0
        pq, ch = pending if pending is not None else (-1, None)
        parts = self._pass(
            _commit_pass, h, pq, ch, old, new_ver, frozenset(self._keep | {new_ver}), self.cfg
        )
        self._record(new_ver, old, counts, [part[1:] for part in parts])
        return new_ver

    def is_feasible(self, h: int) -> bool:
        """Whether labels ``h`` meet the balance with no empty cluster."""
        c = self.counts[h]
        return bool(c.min() > 0 and c.max() - c.min() <= self.l_max)

    def count_changed(self, new: int, old: int) -> int:
        """Labels that changed from ``old`` to ``new`` (counted by the pass that made ``new``)."""
        if new == old:
            return 0
        parent, _, n_changed, _ = self.pending[new]
        assert parent == old, "a change is known against the labels it was computed from"
        return n_changed

    def label_key(self, h: int) -> Any:
        """A hashable digest of labels ``h`` (cycle detection)."""
        if h == 0:
            return ("init",)
        return self.pending[h][3]

    def labels(self, h: int) -> Any:
        """Labels ``h`` (row-aligned; lazy out of core)."""
        return self.rows.gather_states(_labels_of, self.states, h, dtype=np.intp)

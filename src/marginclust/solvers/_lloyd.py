"""Chunked Lloyd iterations for hard centre-based partitions (sum of squared distances).

Minimises ``J(labels) = sum_i ||x_i - c_{label_i}||^2`` with ``c_j`` the mean of
cluster j, by alternating the assignment step (each point to its nearest centre,
if that is better than its own by more than ``thr``) and the centre step.

One pass over X per iteration, by row blocks: a block's distances to the centres
come from one BLAS product in the dtype of X (``-2 X_b C^T + ||c||^2``; the
``||x||^2`` term does not change an argmin), then its argmin. The centre sums
``S_j = sum_{i in j} x_i`` and counts are updated *incrementally* with the points
that moved (a signed indicator product over the moved rows only), so once few
points move an iteration costs little more than the distance product; the
objective follows without another pass from
``J = sum_i ||x_i||^2 - sum_j ||S_j||^2 / m_j`` (X centred beforehand keeps this
well conditioned). Sums are kept in float64 whatever the dtype of X.

An emptied cluster is re-seeded, as scikit-learn's KMeans does, with the point
farthest from its own centre (taken from a cluster of two or more points); the
move lowers J, so the objective history stays non-increasing.

The iterates are those of the literal algorithm (distances by broadcasting,
centres recomputed from scratch) up to rounding; ``tests/_oracles/pkm_dense.py``
has that literal version and the tests compare both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils._blocks import BLOCK_ROWS, RowBlockBackend, RowBlocks
from ._result import SolverResult

__all__ = [
    "chunk_rows_for",
    "lloyd",
    "lloyd_block",
    "lloyd_iterations",
    "lloyd_result",
    "plan_relocation",
    "reduce_lloyd_partials",
    "relocation_candidates",
    "nearest_one_hot",
    "split_reseeded_start",
]

Array = npt.NDArray[np.float64]


def chunk_rows_for(n_features: int, itemsize: int, target_bytes: int = 1 << 19) -> int:
    """Rows per block so that one block of X takes about ``target_bytes`` (cache-sized)."""
    return int(max(256, min(16384, target_bytes // max(1, n_features * itemsize))))


def _signed_sums(
    Xm: npt.NDArray[np.floating],
    new: npt.NDArray[np.intp],
    old: npt.NDArray[np.intp],
    k: int,
) -> tuple[Array, Array]:
    """Change of the centre sums and counts when rows ``Xm`` move from ``old`` to ``new``.

    ``old == -1`` marks a row that had no cluster yet (the first pass).
    """
    r = np.arange(new.shape[0])
    O = np.zeros((k, new.shape[0]), dtype=Xm.dtype)
    O[new, r] = 1.0
    had = old >= 0
    O[old[had], r[had]] = -1.0
    dS = (O @ Xm).astype(np.float64, copy=False)
    dm = np.bincount(new, minlength=k).astype(np.float64)
    if had.any():
        dm -= np.bincount(old[had], minlength=k)
    return dS, dm


def _objective(S: Array, m: Array, total_sq: float) -> float:
    alive = m > 0
    return max(float(total_sq - np.sum(np.einsum("kd,kd->k", S[alive], S[alive]) / m[alive])), 0.0)


def lloyd_block(
    Xb: npt.NDArray[np.floating],
    lab_b: npt.NDArray[np.intp],
    M: npt.NDArray[np.floating],
    cc: npt.NDArray[np.floating],
    first: bool,
    thr: float,
) -> tuple[Array, Array, int] | None:
    """One Lloyd pass over a block: the block function shared by every execution path.

    Moves the block's points (labels ``lab_b`` updated in place; -1 = no cluster
    yet) given ``M = -2 C`` and ``cc = ||c||^2`` (K x 1), both in the dtype of X,
    and returns the change of the centre sums and counts and the number of moves
    (None when no point moved).
    """
    k = M.shape[0]
    c = Xb.shape[0]
    # K x c: distances (minus ||x||^2) of the block, clusters along the short axis
    G = M @ Xb.T
    G += cc
    if first:
        cand = np.arange(c)
        new_c = G.argmin(axis=0)
    else:
        best = G.min(axis=0)
        own_idx = lab_b * c
        own_idx += np.arange(c)
        own = np.take(G, own_idx)
        own -= best
        cand = np.flatnonzero(own > thr)
        if cand.size == 0:
            return None
        new_c = G[:, cand].argmin(axis=0)
    old_c = lab_b[cand]
    dS, dm = _signed_sums(Xb[cand], new_c, old_c, k)
    lab_b[cand] = new_c
    return dS, dm, int(cand.size)


def reduce_lloyd_partials(
    parts: Iterable[tuple[Array, Array, int] | None], k: int, d: int
) -> tuple[Array, Array, int]:
    """Sum the block partials of a pass in block order (the one reduction of every path)."""
    dS = np.zeros((k, d))
    dm = np.zeros(k)
    n_moved = 0
    for p in parts:
        if p is not None:
            dS += p[0]
            dm += p[1]
            n_moved += p[2]
    return dS, dm, n_moved


def relocation_candidates(
    Xb: npt.NDArray[np.floating],
    lab_b: npt.NDArray[np.intp],
    C: Array,
    m: Array,
    n_take: int,
) -> tuple[Array, npt.NDArray[np.intp], npt.NDArray[np.floating], npt.NDArray[np.intp]]:
    """The block's ``n_take`` points farthest from their centre (donor candidates).

    Returns ``(dist, index in the block, rows, labels)`` in the block's row order;
    points of singleton clusters get distance -1 (they cannot donate).
    """
    diff = Xb - C[lab_b]
    dist = np.einsum("ij,ij->i", diff, diff)
    dist[m[lab_b] < 2] = -1.0
    if n_take < dist.shape[0]:
        idx = np.sort(np.argpartition(dist, dist.shape[0] - n_take)[-n_take:])
    else:
        idx = np.arange(dist.shape[0])
    return dist[idx], idx, Xb[idx], lab_b[idx]


def plan_relocation(
    candidates: list[tuple[Array, npt.NDArray[np.intp], npt.NDArray, npt.NDArray[np.intp]]],
    offsets: list[int],
    S: Array,
    m: Array,
) -> list[tuple[int, int]]:
    """Moves ``(row, cluster)`` that re-seed the empty clusters; updates S and m in place.

    Each empty cluster takes the farthest remaining point (of a cluster of two
    or more, at a positive distance), as scikit-learn's KMeans relocates empty
    clusters; the candidates of each block (:func:`relocation_candidates` with
    ``n_take >= n_empty + K``) hold every point this can reach: each cluster
    is skipped at most once, when it is down to one member.
    """
    empty = np.flatnonzero(m <= 0)
    dist = np.concatenate([c[0] for c in candidates])
    rows = np.concatenate([c[1] + off for c, off in zip(candidates, offsets)])
    X = np.concatenate([c[2] for c in candidates])
    lab = np.concatenate([c[3] for c in candidates]).copy()
    order = np.argsort(dist)[::-1]
    moves: list[tuple[int, int]] = []
    ptr = 0
    for j in empty:
        while ptr < order.shape[0]:
            i = order[ptr]
            ptr += 1
            if dist[i] <= 0:
                return moves
            a = lab[i]
            if m[a] < 2:
                continue
            S[a] -= X[i]
            m[a] -= 1
            S[j] += X[i]
            m[j] += 1
            lab[i] = j
            moves.append((int(rows[i]), int(j)))
            break
    return moves


def lloyd_iterations(
    run_pass: Callable[[npt.NDArray, npt.NDArray, bool], list[tuple[Array, Array, int] | None]],
    relocate: Callable[[Array, Array], int],
    *,
    C: Array,
    S: Array,
    m: Array,
    first: bool,
    dtype: npt.DTypeLike,
    total_sq: float,
    max_iter: int,
    callback: Callable[[int, float], bool | None] | None = None,
) -> dict[str, Any]:
    """The Lloyd loop given a pass function (in-memory or dask) and a relocation function.

    ``run_pass(M, cc, first)`` runs :func:`lloyd_block` over every block and
    returns the partials in block order; ``relocate(S, m)`` re-seeds the empty
    clusters (S and m updated in place) and returns how many it re-seeded.
    """
    k, d = S.shape
    dt = np.dtype(dtype)
    history: list[float] = []
    n_iter = n_moved_total = n_relocated = 0
    converged = False
    J = float("nan")
    while True:
        M = (-2.0 * C).astype(dt)
        cc = np.einsum("kd,kd->k", C, C).astype(dt)[:, None]
        dS, dm, n_moved = reduce_lloyd_partials(run_pass(M, cc, first), k, d)
        if n_moved == 0:
            converged = True
            break
        if n_iter >= max_iter:
            break
        S += dS
        m += dm
        if not first:
            n_moved_total += n_moved
        first = False
        n_iter += 1
        if np.any(m <= 0):
            n_relocated += relocate(S, m)
        # counts are integers held exactly in float64
        C = S / np.maximum(m, 1.0)[:, None]
        J = _objective(S, m, total_sq)
        history.append(J)
        if callback is not None and callback(n_iter, J):
            break
    if not history:
        J = _objective(S, m, total_sq)
    return {
        "C": C,
        "S": S,
        "m": m,
        "J": J,
        "history": history,
        "n_iter": n_iter,
        "converged": converged,
        "n_moved": n_moved_total,
        "n_relocated": n_relocated,
    }


def lloyd_result(run: dict[str, Any], labels: Any, max_iter: int) -> SolverResult:
    """The :class:`SolverResult` of a Lloyd run (``labels`` in memory or lazy)."""
    converged = run["converged"]
    return SolverResult(
        x=(labels, run["C"]),
        objective=run["J"],
        objective_history=np.asarray(run["history"], dtype=np.float64),
        n_iter=run["n_iter"],
        converged=converged,
        stop_crit=0.0 if converged else float("nan"),
        message=""
        if converged
        else f"Lloyd iterations stopped at max_iter={max_iter} with points still moving.",
        info={"n_moved": run["n_moved"], "n_relocated": run["n_relocated"]},
    )


def _apply_moves(
    lab_b: npt.NDArray[np.intp], lohi: tuple[int, int], moves: dict[int, int]
) -> None:
    lo, hi = lohi
    for i, j in moves.items():
        if lo <= i < hi:
            lab_b[i - lo] = j


def _lloyd_pass(
    Xb: Any, lab: Any, lohi: tuple[int, int], *rest: Any
) -> tuple[npt.NDArray[np.intp], Any]:
    """A Lloyd pass over one block: pending relocations applied, then :func:`lloyd_block`.

    The block's labels are its state (``-1`` before the first pass).
    """
    M, cc, first, thr, moves = rest
    Xb = np.asarray(Xb)
    lab_b = np.full(Xb.shape[0], -1, dtype=np.intp) if lab is None else lab.copy()
    _apply_moves(lab_b, lohi, moves)
    return lab_b, lloyd_block(Xb, lab_b, M, cc, first, thr)


def _start_sums(
    Xb: Any, lab: Any, lohi: tuple[int, int], given: Any, k: int
) -> tuple[npt.NDArray[np.intp], tuple[Array, Array]]:
    """The block's share of the centre sums and counts of given labels (its new state)."""
    lab_b = np.asarray(given, dtype=np.intp).ravel().copy()
    return lab_b, _signed_sums(np.asarray(Xb), lab_b, np.full_like(lab_b, -1), k)


def _candidates_pass(
    Xb: Any, lab: Any, lohi: tuple[int, int], moves: dict[int, int], C: Array, m: Array,
    n_take: int,
) -> tuple[npt.NDArray[np.intp], Any]:
    lab_b = lab.copy()
    _apply_moves(lab_b, lohi, moves)
    return lab_b, relocation_candidates(np.asarray(Xb), lab_b, C, m, n_take)


def _moves_only(
    lab: Any, lohi: tuple[int, int], moves: dict[int, int]
) -> npt.NDArray[np.intp]:
    lab_b = lab.copy()
    _apply_moves(lab_b, lohi, moves)
    return lab_b


def _sum_of_squares(Xb: Any) -> float:
    Xb = np.asarray(Xb)
    return float(np.einsum("ij,ij->", Xb, Xb, dtype=np.float64))


def _blocks_and_total(
    X: Any, chunk_rows: int | None, n_threads: int | None, total_sq: float | None
) -> tuple[Any, float]:
    """The row blocks of ``X`` (a backend keeps its own) and ``sum_ij X_ij^2``."""
    if isinstance(X, RowBlockBackend):
        rows: Any = X
    else:
        X = np.asarray(X)
        if chunk_rows is None:
            chunk_rows = chunk_rows_for(X.shape[1], X.dtype.itemsize)
        rows = RowBlocks(X, chunk_rows, n_threads)
    if total_sq is None:
        total_sq = 0.0
        for part in rows.partials(_sum_of_squares):
            total_sq += part
    return rows, total_sq


def _start_from_labels(
    rows: Any, labels: npt.ArrayLike, centers: npt.ArrayLike | None
) -> tuple[Any, Array, Array]:
    """The block states holding a starting partition, its centre sums and counts."""
    d = rows.shape[1]
    given = np.asarray(labels, dtype=np.intp)
    k = int(given.max()) + 1 if centers is None else int(np.shape(centers)[0])
    states, parts = rows.states(_start_sums, None, k, extra=(given,), with_offsets=True)
    S, m = np.zeros((k, d)), np.zeros(k)
    for dS, dm in parts:
        S += dS
        m += dm
    return states, S, m


def lloyd(
    X: Any,
    centers: npt.ArrayLike | None = None,
    *,
    labels: npt.ArrayLike | None = None,
    thr: float = 0.0,
    max_iter: int = 300,
    chunk_rows: int | None = None,
    callback: Callable[[int, float], bool | None] | None = None,
    n_threads: int | None = None,
    total_sq: float | None = None,
) -> SolverResult:
    """Lloyd's algorithm with a move threshold, one chunked pass over X per iteration.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or row-block backend
        Dense data, float64 or float32 (kept; products run in this dtype). Centre
        the data first (subtract the mean) for accuracy. A row-block backend
        (:class:`~marginclust.utils._blocks.RowBlocks`, or the dask one) runs every
        pass through its block methods, each block's labels kept in its state.
    centers : array-like of shape (n_clusters, n_features), default=None
        Starting centres (in the frame of ``X``); the first pass assigns every
        point to its nearest one. Give exactly one of ``centers`` and ``labels``.
    labels : array-like of shape (n_samples,), default=None
        Starting partition (integers in ``0 .. n_clusters - 1``; empty clusters
        are re-seeded first); with it, pass ``centers`` only to fix ``n_clusters``.
    thr : float, default=0.0
        A point moves only if its nearest centre is closer than its own by more
        than ``thr`` (squared distance); 0 is Lloyd's rule with ties kept.
    max_iter : int, default=300
        Maximum number of assignment passes that move a point.
    chunk_rows : int, default=None
        Rows per block of an in-memory X (None: about 512 KiB of X per block).
    callback : callable, default=None
        ``callback(iteration, objective)`` after each iteration; True stops.
    n_threads : int, default=None
        Threads sharing the row blocks (BLAS held to one thread meanwhile); None:
        the current BLAS thread limit (see :class:`~marginclust.utils._blocks.BlockRunner`).
        The block partials are reduced in block order whatever the thread count.
    total_sq : float, default=None
        ``sum_ij X_ij^2`` if already known (saves a pass).

    Returns
    -------
    result : SolverResult
        ``x`` is ``(labels, centers)`` (centers float64, in the frame of X;
        labels lazy for an out-of-core X); ``objective`` is J; ``info`` has
        ``n_moved`` (total moves after the first assignment), ``n_relocated``
        (empty clusters re-seeded) and ``cluster_sizes``.
    """
    n, d = X.shape
    if centers is None and labels is None:
        raise ValueError("Give centers or labels.")
    rows, total_sq = _blocks_and_total(X, chunk_rows, n_threads, total_sq)
    if labels is not None:
        states, S, m = _start_from_labels(rows, labels, centers)
        k = S.shape[0]
        first = False
    else:
        states = None
        C = np.array(centers, dtype=np.float64, copy=True)
        k = C.shape[0]
        S = np.zeros((k, d))
        m = np.zeros(k)
        first = True
    blocks = _LabelBlocks(rows, states, k, thr)
    n_relocated = 0
    if not first:
        if np.any(m <= 0):  # a starting partition with empty clusters: re-seed them
            n_relocated += blocks.relocate(S, m)
        C = S / np.maximum(m, 1.0)[:, None]
    with rows.threaded():
        run = lloyd_iterations(
            blocks.run_pass,
            blocks.relocate,
            C=C,
            S=S,
            m=m,
            first=first,
            dtype=rows.dtype,
            total_sq=total_sq,
            max_iter=max_iter,
            callback=callback,
        )
    run["n_relocated"] += n_relocated
    res = lloyd_result(run, blocks.final_labels(), max_iter)
    return replace(res, info={**res.info, "cluster_sizes": np.asarray(run["m"], dtype=np.intp)})


class _LabelBlocks:
    """The labels of the row blocks (their states) and the relocations planned for them.

    A relocation is applied by the next pass over the blocks (no pass of its own).
    """

    def __init__(self, rows: Any, states: Any, k: int, thr: float) -> None:
        self.rows = rows
        self.labels = states
        self.moves: dict[int, int] = {}
        self.k = k
        self.thr = thr

    def run_pass(self, M: npt.NDArray, cc: npt.NDArray, first: bool) -> list[Any]:
        """A Lloyd pass (:func:`lloyd_block` of every block) at the centres ``M``."""
        moves, self.moves = self.moves, {}
        self.labels, parts = self.rows.states(
            _lloyd_pass, self.labels, M, cc, first, self.thr, moves, with_offsets=True
        )
        return parts

    def relocate(self, S: Array, m: Array) -> int:
        """Plan the re-seeding of the empty clusters; the number of moves planned."""
        n_take = int(np.count_nonzero(m <= 0)) + self.k
        C = S / np.maximum(m, 1.0)[:, None]
        moves, self.moves = self.moves, {}
        self.labels, cands = self.rows.states(
            _candidates_pass, self.labels, moves, C, m, n_take, with_offsets=True
        )
        planned = plan_relocation(cands, self.rows.offsets[:-1], S, m)
        self.moves.update(dict(planned))
        return len(planned)

    def final_labels(self) -> Any:
        """The labels, with relocations no pass has applied yet (a callback stopped)."""
        if self.moves:
            self.labels = self.rows.from_states(
                _moves_only, self.labels, self.moves, with_offsets=True
            )
        return self.rows.gather(self.labels, np.intp)


def lloyd_from_memberships(
    Z: npt.NDArray[np.floating],
    P: Array,
    *,
    sq_distances: Callable[[npt.NDArray[np.floating], Array], Array],
    thr: float,
    max_iter: int,
    callback: Callable[[int, float], bool | None] | None = None,
    total_sq: float | None = None,
) -> SolverResult:
    """Lloyd from soft memberships ``P`` in which a cluster may have emptied.

    Every point goes to the nearest centre of a cluster that kept some membership
    (for a concave objective such as PKM's this does not increase it), then
    :func:`lloyd` runs, which first re-seeds an empty cluster with the point
    farthest from its centre. ``sq_distances(Z, C)`` (n x K) is the model's
    squared distance (PKM's :func:`~marginclust.objectives._pkm.frame_sq_distances`).
    """
    mass = P.sum(axis=0)
    alive = np.flatnonzero(mass > 1e-300)
    C_alive = (P[:, alive].T @ Z) / mass[alive][:, None]
    labels0 = alive[np.argmin(sq_distances(Z, C_alive), axis=1)]
    return lloyd(
        Z,
        np.zeros((P.shape[1], Z.shape[1])),
        labels=labels0,
        thr=thr,
        max_iter=max_iter,
        callback=callback,
        total_sq=total_sq,
    )


def _labels_in(state: Any) -> npt.NDArray[np.intp]:
    """A block's labels: its state itself, or the argmax of the decision values it keeps."""
    if isinstance(state, dict):
        return np.argmax(state["F"], axis=1)
    return np.asarray(state, dtype=np.intp)


def _cluster_moments(Xb: Any, state: Any, k: int) -> tuple[Any, tuple[Any, Any, Any]]:
    """A block's labels (its new state) and its clusters' sums, sizes and sums of squares."""
    Xd = np.asarray(Xb, dtype=np.float64)
    lab = _labels_in(state)
    sums = np.zeros((k, Xd.shape[1]))
    np.add.at(sums, lab, Xd)
    sq = np.bincount(lab, weights=np.einsum("ij,ij->i", Xd, Xd), minlength=k)
    return lab, (sums, np.bincount(lab, minlength=k), sq)


def _farthest_in(
    Xb: Any, lab: Any, lohi: tuple[int, int], c: int, centre: Array
) -> tuple[Any, tuple[float, int, Array | None]]:
    """The row of cluster ``c`` farthest from ``centre`` in a block (ties: the lower row)."""
    Xd = np.asarray(Xb, dtype=np.float64)
    idx = np.flatnonzero(lab == c)
    if idx.size == 0:
        return lab, (-1.0, -1, None)
    diff = Xd[idx] - centre
    dist = np.einsum("ij,ij->i", diff, diff)
    i = int(np.argmax(dist))
    return lab, (float(dist[i]), int(idx[i]) + lohi[0], Xd[idx[i]])


def _two_means_step(
    Xb: Any, lab: Any, pair: tuple[int, int], centres: Array
) -> tuple[Any, tuple[Array, Any, int]]:
    """The rows of the two clusters ``pair`` to the nearer of their two ``centres``."""
    Xd = np.asarray(Xb, dtype=np.float64)
    idx = np.flatnonzero((lab == pair[0]) | (lab == pair[1]))
    new = lab.copy()
    sums, sizes, moved = np.zeros((2, Xd.shape[1])), np.zeros(2, dtype=np.intp), 0
    if idx.size:
        d2 = ((Xd[idx, None, :] - centres[None, :, :]) ** 2).sum(-1)
        side = (d2[:, 1] < d2[:, 0]).astype(np.intp)  # ties stay with the split cluster
        new[idx] = np.asarray(pair)[side]
        moved = int(np.count_nonzero(new[idx] != lab[idx]))
        np.add.at(sums, side, Xd[idx])
        sizes = np.bincount(side, minlength=2)
    return new, (sums, sizes, moved)


def _one_hot_labels(lab: Any, k: int) -> Array:
    return np.eye(k)[np.asarray(lab, dtype=np.intp)]


def nearest_one_hot(Xb: Any, centers: Array) -> Array:
    """One-hot rows of the nearest centre (squared distances by broadcasting, per row)."""
    Xd = np.asarray(Xb, dtype=np.float64)
    k = centers.shape[0]
    out = np.zeros((Xd.shape[0], k))
    for lo in range(0, Xd.shape[0], BLOCK_ROWS):  # bounded memory: BLOCK_ROWS x k x d at a time
        blk = Xd[lo : lo + BLOCK_ROWS]
        d2 = ((blk[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
        out[lo + np.arange(blk.shape[0]), np.argmin(d2, axis=1)] = 1.0
    return out


def split_reseeded_start(
    rows: Any, states: list[Any], n_clusters: int, max_steps: int = 20
) -> tuple[Any, list[tuple[int, int, int]]]:
    """One-hot memberships of the current labels, each empty cluster filled by a split.

    scikit-learn's KMeans relocates an empty cluster's centre to the point
    farthest from its own centre and lets the next assignment fill it; a kernel
    clusterer's cluster holding one point would empty again, so here an empty
    cluster takes half of the cluster of the largest sum of squared distances to
    its mean (data space): two-means on that cluster's rows, seeded at its mean
    and at its row farthest from it (ties to the lower row), run until no row
    moves (at most ``max_steps`` passes); the half around the far row becomes the
    empty cluster. Every other row keeps its label, so the alternation resumes
    from the partition it had reached. Empty clusters are filled in turn, each
    split judged on the sums of squares after the previous one. A cluster of
    identical rows is never split (its sum of squares is 0).

    Parameters
    ----------
    rows : row-block backend
        The data the starts use (centred).
    states : list
        Each block's labels, or a state dict holding its decision values ``"F"``
        (labels: their argmax).
    n_clusters : int
    max_steps : int, default=20
        Two-means passes per split, at most.

    Returns
    -------
    U : array of shape (n_samples, n_clusters)
        One-hot rows (row-aligned; lazy out of core).
    splits : list of (int, int, int)
        ``(empty cluster, split cluster, rows moved to it)`` for each split made.
    """
    k = n_clusters
    states, parts = rows.states(_cluster_moments, states, k)
    splits: list[tuple[int, int, int]] = []
    for _ in range(k):  # each split fills one empty cluster
        sums = np.sum([p[0] for p in parts], axis=0)
        sizes = np.sum([p[1] for p in parts], axis=0)
        sq = np.sum([p[2] for p in parts], axis=0)
        empty = np.flatnonzero(sizes == 0)
        sse = np.where(sizes > 1, sq - np.einsum("ij,ij->i", sums, sums) /
                       np.maximum(sizes, 1), 0.0)
        if empty.size == 0 or not np.max(sse) > 0:
            break
        j, c = int(empty[0]), int(np.argmax(sse))
        mean = sums[c] / sizes[c]
        _, far = rows.states(_farthest_in, states, c, mean, with_offsets=True)
        best = max(far, key=lambda f: (f[0], -f[1]))
        centres = np.vstack([mean, best[2]])
        for _ in range(int(max_steps)):
            states, two = rows.states(_two_means_step, states, (c, j), centres)
            part_sums = np.sum([t[0] for t in two], axis=0)
            part_sizes = np.sum([t[1] for t in two], axis=0)
            centres = part_sums / np.maximum(part_sizes, 1)[:, None]
            if sum(t[2] for t in two) == 0 or np.min(part_sizes) == 0:
                break
        states, parts = rows.states(_cluster_moments, states, k)
        new_sizes = np.sum([p[1] for p in parts], axis=0)
        splits.append((j, c, int(new_sizes[j])))
        if new_sizes[j] == 0:  # the two seeds could not part the rows: stop
            break
    return rows.gather_states(_one_hot_labels, states, k, dtype=np.float64, tail=(k,)), splits

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

import functools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils._blocks import BlockRunner
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
    "reseed_memberships",
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


def lloyd(
    X: npt.NDArray[np.floating],
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
    X : ndarray of shape (n_samples, n_features)
        Dense data, float64 or float32 (kept; products run in this dtype). Centre
        the data first (subtract the mean) for accuracy.
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
        Rows per block (None: about 512 KiB of X per block).
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
        ``x`` is ``(labels, centers)`` (centers float64, in the frame of X);
        ``objective`` is J; ``info`` has ``n_moved`` (total moves after the
        first assignment) and ``n_relocated`` (empty clusters re-seeded).
    """
    n, d = X.shape
    if centers is None and labels is None:
        raise ValueError("Give centers or labels.")
    if total_sq is None:
        total_sq = float(np.einsum("ij,ij->", X, X, dtype=np.float64))
    if chunk_rows is None:
        chunk_rows = chunk_rows_for(d, X.dtype.itemsize)
    step = chunk_rows
    if labels is not None:
        lab = np.array(labels, dtype=np.intp, copy=True)
        k = int(lab.max()) + 1 if centers is None else int(np.shape(centers)[0])
        S, m = _signed_sums(X, lab, np.full(n, -1, dtype=np.intp), k)
        first = False
    else:
        C = np.array(centers, dtype=np.float64, copy=True)
        k = C.shape[0]
        lab = np.full(n, -1, dtype=np.intp)
        S = np.zeros((k, d))
        m = np.zeros(k)
        first = True

    def relocate(S: Array, m: Array) -> int:
        return _relocate_empty(X, lab, S, m, step)

    n_relocated = 0
    if not first:
        if np.any(m <= 0):  # a starting partition with empty clusters: re-seed them
            n_relocated += relocate(S, m)
        C = S / np.maximum(m, 1.0)[:, None]

    def work(
        M: npt.NDArray, cc: npt.NDArray, first: bool, lo0: int, hi0: int
    ) -> list[tuple[Array, Array, int] | None]:
        """Block partials of rows [lo0, hi0), in order (labels moved in place)."""
        return [
            lloyd_block(X[lo:hi], lab[lo:hi], M, cc, first, thr)
            for lo in range(lo0, hi0, step)
            for hi in (min(lo + step, hi0),)
        ]

    runner = BlockRunner(n, n_threads)
    with runner:

        def run_pass(
            M: npt.NDArray, cc: npt.NDArray, first: bool
        ) -> list[tuple[Array, Array, int] | None]:
            ranges = runner.map(functools.partial(work, M, cc, first))
            return [p for r in ranges for p in r]

        run = lloyd_iterations(
            run_pass,
            relocate,
            C=C,
            S=S,
            m=m,
            first=first,
            dtype=X.dtype,
            total_sq=total_sq,
            max_iter=max_iter,
            callback=callback,
        )
    run["n_relocated"] += n_relocated
    return lloyd_result(run, lab, max_iter)


def _relocate_empty(
    X: npt.NDArray[np.floating],
    lab: npt.NDArray[np.intp],
    S: Array,
    m: Array,
    chunk_rows: int,
) -> int:
    """Move the points farthest from their centre into the empty clusters (in place).

    Only points of clusters with at least two members, at a positive distance,
    are taken, so no other cluster empties. Returns the number of clusters re-seeded.
    """
    n, k = X.shape[0], S.shape[0]
    n_take = int(np.count_nonzero(m <= 0)) + k
    C = S / np.maximum(m, 1.0)[:, None]
    offsets = list(range(0, n, chunk_rows))
    cands = [
        relocation_candidates(X[lo : lo + chunk_rows], lab[lo : lo + chunk_rows], C, m, n_take)
        for lo in offsets
    ]
    moves = plan_relocation(cands, offsets, S, m)
    for i, j in moves:
        lab[i] = j
    return len(moves)


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


def reseed_memberships(
    X: npt.NDArray[np.floating], labels: npt.NDArray[np.intp], n_clusters: int
) -> npt.NDArray[np.float64]:
    """One-hot memberships with every empty cluster re-seeded at the worst-fitted point.

    The centres of the non-empty clusters are their means in (centred) data
    space; each empty cluster takes, in turn, the point farthest from its
    centre as its new centre (that point's distance is then set to zero), and
    every point goes to its nearest centre.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data the initialisations use (the kernel rows if precomputed).
    labels : ndarray of shape (n_samples,)
        Current (collapsed) labels.
    n_clusters : int

    Returns
    -------
    U : ndarray of shape (n_samples, n_clusters)
        One-hot rows.
    """
    Xd = np.asarray(X, dtype=np.float64)
    centers = np.zeros((n_clusters, Xd.shape[1]))
    sizes = np.bincount(labels, minlength=n_clusters)
    for k in np.flatnonzero(sizes):
        centers[k] = Xd[labels == k].mean(axis=0)
    dist = np.einsum("ij,ij->i", Xd - centers[labels], Xd - centers[labels])
    for k in np.flatnonzero(sizes == 0):
        i = int(np.argmax(dist))
        centers[k] = Xd[i]
        dist[i] = 0.0
    sq = (np.einsum("ij,ij->i", Xd, Xd)[:, None] - 2.0 * Xd @ centers.T
          + np.einsum("ij,ij->i", centers, centers)[None, :])
    new = np.argmin(sq, axis=1)
    return np.eye(n_clusters)[new]

"""The cutting planes of a convex risk, shared by the bundle and the cutting-plane solvers.

A plane of the risk ``R(W, t)`` is ``a . W + c . t + o`` (a lower bound of
``R`` everywhere, exact where it was taken). A risk that is a sum of parts (the
margin and the pair term of MMC with pairs) has planes per part, and its model
is ``sum_g max_{j in g}`` of the planes of part ``g``. The model's minimiser
``1/2 ||W||^2 + C model(W, t)`` over the balance set is found in the dual, a
small QP over the plane weights (:func:`._qp.solve_bundle_dual`), from the
Gram matrix ``Q = A A'`` of the slopes in ``W``.

Planes live in fixed slots of ``A`` (``capacity x p``, the only large array):
dropping a plane frees its slot and adding one fills the lowest free slot, so
no row of ``A`` is ever moved. ``order`` lists the slots of the planes of the
model (the QP's order) and ``Q`` is kept in that order, grown by the columns of
the planes added since it was last brought up to date (one product each time).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from ._qp import BundleQPResult, solve_bundle_dual

__all__ = ["PlaneBundle"]

Array = npt.NDArray[np.float64]


class PlaneBundle:
    """Planes ``a . W + c . t + o`` of a (split) risk, their Gram matrix and the dual QP.

    Parameters
    ----------
    p : int
        Size of ``W`` (flattened).
    q : int
        Size of ``t``.
    capacity : int
        Slots allocated at first (doubled whenever all are taken).

    Attributes
    ----------
    A, Ct, o : ndarray
        Slopes in ``W`` and ``t`` and offsets, one row (entry) per slot.
    group : ndarray of int
        The part each slot's plane models.
    weights : ndarray
        Each slot's weight ``beta / C`` in the last QP (0 for a plane added since).
    idle : ndarray of int
        Consecutive steps each plane had no weight (see :meth:`age`).
    order : ndarray of int
        The slots of the model's planes, in the QP's order.
    Q : ndarray
        Gram matrix of ``A[order]`` (up to date after :meth:`extend_gram`).
    rest : ndarray or None
        Scaled balance multipliers of the last QP (its warm start).
    n_qp, qp_iter, qp_time : int, int, float
        QPs solved, their iterations and seconds.
    """

    def __init__(self, p: int, q: int, capacity: int) -> None:
        self.A = np.zeros((capacity, p))
        self.Ct = np.zeros((capacity, q))
        self.o = np.zeros(capacity)
        self.idle = np.zeros(capacity, dtype=np.int64)
        self.weights = np.zeros(capacity)
        self.group = np.zeros(capacity, dtype=np.intp)
        self.order = np.zeros(0, dtype=np.intp)
        self.Q = np.zeros((0, 0))
        self.free = list(range(capacity - 1, -1, -1))
        self.rest: Array | None = None
        self.n_qp = 0
        self.qp_iter = 0
        self.qp_time = 0.0

    def __len__(self) -> int:
        return int(self.order.size)

    # ------------------------------------------------------------------ planes
    def _grow(self) -> None:
        old = self.A.shape[0]
        self.A = np.vstack([self.A, np.zeros_like(self.A)])
        self.Ct = np.vstack([self.Ct, np.zeros_like(self.Ct)])
        self.o = np.concatenate([self.o, np.zeros_like(self.o)])
        self.idle = np.concatenate([self.idle, np.zeros_like(self.idle)])
        self.weights = np.concatenate([self.weights, np.zeros_like(self.weights)])
        self.group = np.concatenate([self.group, np.zeros_like(self.group)])
        self.free.extend(range(2 * old - 1, old - 1, -1))

    def add(self, a: Array, c: Array, off: float, part: int = 0) -> None:
        """Append the plane ``(a, c, off)`` of ``part`` to the model (weight 0)."""
        if not self.free:
            self._grow()
        slot = self.free.pop()
        self.A[slot] = a
        self.Ct[slot] = c
        self.o[slot] = off
        self.idle[slot] = 0
        self.weights[slot] = 0.0
        self.group[slot] = part
        self.order = np.append(self.order, slot)

    def add_linearisation(
        self, W: Array, t: Array, risk: float, aW: Any, at: Any, part: int = 0
    ) -> None:
        """Append the plane of slopes ``(aW, at)`` through ``risk`` at ``(W, t)``."""
        aW = np.asarray(aW, dtype=np.float64).ravel()
        at = np.asarray(at, dtype=np.float64).ravel()
        self.add(aW, at, risk - float(aW @ W.ravel()) - float(at @ t), part)

    def extend_gram(self) -> Array:
        """Bring ``Q`` up to date: the columns of the planes added since, in one product."""
        m_old, m = self.Q.shape[0], self.order.size
        if m > m_old:
            new = self.order[m_old:]
            lo = int(new[0])
            # a contiguous run of slots is read as a view: with the first plane, the
            # whole Gram matrix is then one symmetric product
            contiguous = bool(np.all(new == np.arange(lo, lo + new.size)))
            rows = self.A[lo : lo + new.size] if contiguous else self.A[new]
            hi = int(self.order.max()) + 1  # slots fill lowest first: a view of the used ones
            Qn = np.empty((m, m))
            Qn[:m_old, :m_old] = self.Q
            Qn[:, m_old:] = (self.A[:hi] @ rows.T)[self.order]
            Qn[m_old:, :m_old] = Qn[:m_old, m_old:].T
            self.Q = Qn
        return self.Q

    def keep(self, mask: npt.NDArray[np.bool_]) -> None:
        """Keep the planes of ``order`` where ``mask`` is true; free the others' slots."""
        self.free.extend(int(j) for j in self.order[~mask])
        self.order = self.order[mask]
        self.Q = self.Q[np.ix_(mask, mask)]

    def plane(self, slot: int) -> tuple[Array, Array, float]:
        """A copy of the plane in ``slot``: ``(a, c, offset)``."""
        return self.A[slot].copy(), self.Ct[slot].copy(), float(self.o[slot])

    def weighted(self, part: int) -> npt.NDArray[np.intp]:
        """Slots of ``part`` with weight in the last QP, in model order."""
        order = self.order
        return order[(self.group[order] == part) & (self.weights[order] > 0)]

    # ------------------------------------------------------------ the model
    def values(self, W: Array, t: Array) -> Array:
        """Every plane's value at ``(W, t)``, in model order."""
        order = self.order
        hi = int(order.max()) + 1
        return (self.A[:hi] @ W.ravel())[order] + self.Ct[order] @ t + self.o[order]

    def model_value(self, W: Array, t: Array, part: int) -> float:
        """The model of ``part`` at ``(W, t)``: the largest of its planes (read alone)."""
        sel = self.order[self.group[self.order] == part]
        return float(np.max(self.A[sel] @ W.ravel() + self.Ct[sel] @ t + self.o[sel]))

    def solve_dual(
        self,
        C: float,
        balance: Any,
        *,
        method: str,
        warm_start: tuple[Array, Any] | None = None,
        grouped: bool = False,
    ) -> BundleQPResult:
        """Minimise ``1/2||W||^2 + C model`` on ``balance`` (dual QP); record the weights.

        Parameters
        ----------
        C : float
            Weight of the risk.
        balance : BalanceSet
            ``G t <= h``, ``E t = e``.
        method : str
            QP solver (see :func:`._qp.solve_bundle_dual`).
        warm_start : tuple or None, default=None
            ``(weights in model order, rest)`` for the active-set method.
        grouped : bool, default=False
            One simplex per part (a split risk).

        Returns
        -------
        result : BundleQPResult
            ``beta`` in model order; ``weights`` and ``rest`` are updated.
        """
        tic = time.perf_counter()
        order = self.order
        res = solve_bundle_dual(
            self.extend_gram(),
            self.o[order],
            self.Ct[order],
            C,
            balance.G,
            balance.h,
            balance.E,
            balance.e,
            method=method,
            warm_start=warm_start,
            groups=self.group[order] if grouped else None,
        )
        self.weights[order] = res.beta / C
        self.rest = res.rest
        self.n_qp += 1
        self.qp_time += time.perf_counter() - tic
        self.qp_iter += res.n_iter
        return res

    def minimiser(self, beta: Array, shape: tuple[int, ...]) -> Array:
        """``W = -A' beta`` for plane weights ``beta`` in model order."""
        hi = int(self.order.max()) + 1
        beta_slots = np.zeros(hi)
        beta_slots[self.order] = beta
        return -(beta_slots @ self.A[:hi]).reshape(shape)

    # ------------------------------------------------ aging and aggregation
    def age(self, active: npt.NDArray[np.bool_]) -> None:
        """One step: the idle count of each plane of ``order`` without weight grows."""
        order = self.order
        self.idle[order] = np.where(active, 0, self.idle[order] + 1)

    def drop_idle(self, max_idle: int, n_fixed: int, n_newest: int) -> None:
        """Drop planes idle for ``max_idle`` steps, never the first ``n_fixed`` nor the
        ``n_newest`` last of ``order``."""
        m = self.order.size
        mask = np.ones(m, dtype=bool)
        mask[: m - n_newest] = self.idle[self.order[: m - n_newest]] < max_idle
        mask[:n_fixed] = True
        if not mask.all():
            self.keep(mask)

    def aggregate(self, beta: Array, n_old: int, parts: Any, n_fixed: int) -> None:
        """Replace the planes of the last QP by their beta-average, per part of ``parts``.

        ``beta`` holds the weights of the first ``n_old`` planes of ``order`` (the
        last QP's); the first ``n_fixed`` are kept as they are. Layout after:
        the fixed planes, the aggregated planes, the other parts' planes, the
        newer planes; ``Q`` is recomputed.
        """
        A, order, group = self.A, self.order, self.group
        parts = [int(g) for g in parts]
        kept = [order[:n_fixed]]
        others = order[n_fixed:n_old][~np.isin(group[order[n_fixed:n_old]], parts)]
        for part in parts:
            pos = n_fixed + np.flatnonzero(group[order[n_fixed:n_old]] == part)
            if pos.size == 0:
                continue
            wts = beta[pos].copy()
            in_part = group[order[:n_old]] == part
            part_total = float(beta[:n_old][in_part].sum())
            agg_weight = float(wts.sum() / part_total) if part_total > 0 else 0.0
            total = wts.sum()
            if total <= 0:
                wts = np.full(pos.size, 1.0)
                total = wts.sum()
            wts /= total
            old = order[pos]
            w_slots = np.zeros(A.shape[0])
            w_slots[old] = wts
            agg_a = w_slots @ A
            agg_c = wts @ self.Ct[old]
            agg_o = float(wts @ self.o[old])
            # the aggregated plane takes the first old slot of its part
            slot = int(old[0])
            self.free.extend(int(j) for j in old[1:])
            A[slot] = agg_a
            self.Ct[slot] = agg_c
            self.o[slot] = agg_o
            self.idle[slot] = 0
            self.weights[slot] = agg_weight
            kept.append(np.array([slot]))
        self.order = np.concatenate([*kept, others, order[n_old:]]).astype(np.intp)
        rows = A[self.order]
        self.Q = rows @ rows.T

"""Maximum margin clustering objectives (BMMC, Li et al. 2019).

Linear scores, one per output (``q = 1`` binary, ``q = k`` multiclass), written
around the data mean so that the balance constraint only involves ``t``:

    f_r(x) = w_r . (x - xbar) / scale + t_r,     t_r = (1/n) sum_i f_r(x_i)

with ``scale`` a fixed positive number (1, or the data's root mean feature
variance so that ``C`` means the same thing at any uniform rescaling of ``X``;
see :class:`LinearData`).
(the usual offset is ``b_r = t_r - w_r . xbar``; see :mod:`._constraints`).
A parameter is the pair ``x = (W, t)`` with ``W`` of shape ``(q, d)`` and ``t``
of shape ``(q,)``.

True (non-convex) objectives, what ``objective_history_`` records:

- binary (eq. 3):  ``J = 1/2 ||w||^2 + C/n sum_i max(0, 1 - |f(x_i)|)``
- multiclass (eqs. 20-22): ``J = 1/2 ||W||_F^2 + C/(nk) sum_i sum_{r != y_i}
  max(0, 1 - (f_{y_i}(x_i) - f_r(x_i)))`` with ``y_i = argmax_p f_p(x_i)``,
- plus, with must-link / cannot-link pairs, ``C'`` times the mean pair loss
  (:mod:`._pairs`): the pair margin (a multiclass margin on each pair's joint
  label; the default) or the paper's ``|f(x_u) - z f(x_v)|`` (Sec. IV, eqs. 35,
  46: ``C'/m sum`` binary, ``C'/(mk) sum_{(u,v), r}`` multiclass),

all subject to the balance constraint on ``t``.

CCCP (eqs. 10-11, 29-30) fixes the signs ``s_i = sgn f(x_i)`` (binary) or the
argmax ``p_i`` (multiclass) at the current iterate; the resulting convex loss
``max(0, 1 - s_i f(x_i))`` (resp. ``sum_{r != p_i} max(0, 1 - f_{p_i} + f_r)``)
is an upper bound of the true loss that touches it at the current iterate
(``|f| >= s f`` and ``max_p f_p >= f_{p_i}``), so every CCCP step that does not
increase the surrogate does not increase the true objective. The pair margin
is linearised the same way (each pair's best allowed joint label fixed at the
current iterate), so the guarantee holds with pairs.

Every risk below is piecewise linear in the scores, so a subgradient is a
coefficient matrix ``Gc`` of shape ``(n, q)``: ``dR/dW = Gc' (X - xbar)``
(computed as ``X' Gc - xbar (1' Gc)`` without centring ``X``, so sparse input
stays sparse) and ``dR/dt = 1' Gc``. One pass over ``X`` for the scores and one
for the subgradient: ``O(q nnz(X))`` per plane (eqs. 14-18 and 31-34).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..utils._blocks import RowBlocks, out_of_core
from ._constraints import BalanceSet, PairSet, make_balance
from ._mmc_blocks import (
    breakpoints_block,
    colsum_block,
    css_block,
    cutting_plane_block,
    plane_block,
    risk_block,
    true_block,
)
from ._pairs import PairTerm

__all__ = [
    "LinearData",
    "floor_labels",
    "MMCObjective",
    "MMCSurrogate",
    "data_scale",
    "true_margin_loss",
]

Array = npt.NDArray[np.float64]
Params = tuple[Array, Array]


class LinearData:
    """The data matrix with its mean and scale, for centred products without centring ``X``.

    Scores are ``f_r(x) = W[r] . (x - xbar) / scale + t[r]``: with ``scale`` the
    root mean feature variance of ``X`` (:func:`data_scale`), ``W`` lives in
    units of standardised data, so one ``C`` means the same thing at any uniform
    rescaling of ``X`` (``scale=1.0`` gives the plain model). The weights in the
    data's own units are ``W / scale``.

    The scores ``X W'`` of the last few ``W`` are kept (a pass over ``X`` is the
    expensive step, and CCCP, the bundle method and the offset polish ask for the
    scores of the same ``W`` several times; only ``t`` changes between them).

    The mean and the centred sum of squares are in-order sums of row-block
    partials (:mod:`._mmc_blocks`), so a Dask backend gives the same numbers.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated data (prior validation is assumed).
    scale : float or "auto", default=1.0
        Divides the centred data; ``"auto"``: :func:`data_scale`.
    blocks : object or None, default=None
        The row-block backend (``partials``, ``states``, ``split``, ``gather``);
        None: :class:`~marginclust.utils._blocks.RowBlocks` over ``X`` in memory.
    """

    _cache_size = 4

    def __init__(self, X: Any, scale: float | str = 1.0, blocks: Any = None) -> None:
        if blocks is None:
            X = X.tocsr() if sp.issparse(X) else np.asarray(X)
            blocks = RowBlocks(X)
        self.X = X
        self.blocks = blocks
        self.n, self.d = X.shape
        # in-order sums of row-block partials: the same numbers on any backend
        total = np.zeros(self.d, dtype=np.float64)
        for part in blocks.partials(colsum_block):
            total += part
        self.xbar = total / self.n
        self.sparse = sp.issparse(X) or bool(getattr(blocks, "sparse", False))
        ss = 0.0
        for part in blocks.partials(css_block, self.xbar):
            ss += part
        if self.sparse:  # sparse data have no large offset; clipped at 0 against rounding
            ss = max(ss - self.n * float(self.xbar @ self.xbar), 0.0)
        self.sum_sq = ss
        if isinstance(scale, str):  # "auto"
            scale = data_scale(self.sum_sq, self.n, self.d)
        self.scale = float(scale)
        self._cache: list[tuple[Array, Array]] = []

    def raw_scores(self, W: Array) -> Array:
        """``G[i, r] = W[r] . (x_i - xbar) / scale``, shape (n, q) (cached by ``W``)."""
        for Wc, G in self._cache:
            if Wc.shape == W.shape and np.array_equal(Wc, W):
                return G
        G = np.asarray(self.X @ W.T, dtype=np.float64)
        G -= self.xbar @ W.T
        if self.scale != 1.0:
            G *= 1.0 / self.scale
        G.setflags(write=False)
        self._cache.insert(0, (np.array(W, dtype=np.float64), G))
        del self._cache[self._cache_size :]
        return G

    def subset(self, rows: npt.NDArray[np.intp]) -> LinearData:
        """The rows ``rows`` of ``X`` (a copy) with this data's mean and scale.

        For a term that reads a few rows only (the pairs'): its scores and
        subgradients are in the same centred, scaled units as the full data's.
        """
        new = copy.copy(self)
        new.X = self.X[rows]
        new.n = int(np.asarray(rows).size)
        new.blocks = None
        new._cache = []
        return new

    def scores(self, W: Array, t: Array) -> Array:
        """``F[i, r] = W[r] . (x_i - xbar) / scale + t[r]``, shape (n, q) (a new array)."""
        return self.raw_scores(W) + t

    def back(self, Gc: Array) -> Array:
        """``Gc' (X - xbar) / scale``, shape (q, d)."""
        M = np.asarray(self.X.T @ Gc, dtype=np.float64)
        M -= np.outer(self.xbar, Gc.sum(axis=0))
        if self.scale != 1.0:
            M *= 1.0 / self.scale
        return M.T


def data_scale(sum_sq: float, n: int, d: int) -> float:
    """Root mean feature variance ``sqrt(sum_ij (x_ij - xbar_j)^2 / (n d))`` (1 if zero).

    1 for standardised data; multiplying ``X`` by ``s`` multiplies it by ``s``.
    """
    s = float(np.sqrt(sum_sq / (n * d))) if n * d else 0.0
    return s if np.isfinite(s) and s > 0 else 1.0


def _binary_true_loss(F: Array) -> float:
    return float(np.maximum(0.0, 1.0 - np.abs(F[:, 0])).mean())


def _multi_true_loss(F: Array) -> float:
    n, k = F.shape
    M = F.max(axis=1, keepdims=True)
    # sum over r of max(0, 1 - M + f_r) counts the argmax term (= 1) once; remove it.
    return float((np.maximum(0.0, 1.0 - M + F).sum() - n) / (n * k))


def floor_labels(F: Array, min_size: int) -> npt.NDArray[np.intp]:
    """The argmax labels of ``F``, repaired so every cluster has ``min_size`` members.

    Greedy: while a cluster ``r`` is below the floor, the row of a cluster with
    members to spare whose multiclass loss rises least when relabelled ``r``
    moves to ``r`` (the loss of row ``i`` under label ``p`` is
    ``sum_{q != p} max(0, 1 - f_p + f_q)``). Rows already moved are not moved
    again; ties go to the lower row. With ``n >= k min_size`` every cluster
    ends at or above the floor.

    Parameters
    ----------
    F : ndarray of shape (n, k)
        Scores.
    min_size : int
        Floor on the cluster sizes.

    Returns
    -------
    labels : ndarray of shape (n,)
    """
    n, k = F.shape
    labels = np.argmax(F, axis=1).astype(np.intp)
    floor = min(int(min_size), n // k)
    if floor <= 0:
        return labels
    def cost(rows: npt.NDArray[np.intp], lab: npt.NDArray[np.intp]) -> Array:
        # the row's loss under label lab (its own term, 1, dropped): O(k) per row
        Fr = F[rows]
        return np.maximum(0.0, 1.0 - Fr[np.arange(rows.size), lab][:, None] + Fr).sum(axis=1) - 1.0

    sizes = np.bincount(labels, minlength=k)
    fixed = np.zeros(n, dtype=bool)
    for r in np.argsort(sizes, kind="stable"):
        need = floor - int(sizes[r])
        if need <= 0:
            continue
        spare = sizes[labels] > floor
        cand = np.flatnonzero(spare & ~fixed & (labels != r))
        extra = cost(cand, np.full(cand.size, r, dtype=np.intp)) - cost(cand, labels[cand])
        order = cand[np.lexsort((cand, extra))]
        src = labels[order]
        # a candidate is eligible while its cluster still has members to spare: its rank
        # among the candidates of its cluster (in cost order) is below the spare count
        by_src = np.argsort(src, kind="stable")
        sorted_src = src[by_src]
        starts = np.flatnonzero(np.r_[True, sorted_src[1:] != sorted_src[:-1]])
        rank = np.empty(order.size, dtype=np.intp)
        rank[by_src] = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        moved = order[rank < sizes[src] - floor][:need]
        np.subtract.at(sizes, labels[moved], 1)
        labels[moved] = r
        sizes[r] += moved.size
        fixed[moved] = True
    return labels


def true_margin_loss(F: Array) -> float:
    """The true (non-convex) mean margin loss of scores ``F`` of shape (n, q).

    One column: the binary ``mean max(0, 1 - |f|)``; ``k`` columns: the
    multiclass loss of eqs. 20-22.
    """
    return _binary_true_loss(F) if F.shape[1] == 1 else _multi_true_loss(F)


def _argmin_in_box(
    slope0: float, tau: Array, jump: Array, lo: float, hi: float, tol: float
) -> float:
    """Minimiser closest to 0 over ``[lo, hi]`` of a convex piecewise-linear function.

    ``slope0`` is its slope just right of ``lo``; ``tau`` (sorted, inside ``(lo,
    hi)``) are its breakpoints in the box and ``jump >= 0`` the slope increase at
    each. Slopes within ``tol`` of 0 count as flat.
    """
    slopes = slope0 + np.cumsum(jump)
    if slope0 >= -tol:
        t_lo = lo
    else:
        i = int(np.searchsorted(slopes, -tol, side="left"))  # first slope >= -tol
        t_lo = float(tau[i]) if i < tau.size else hi
    if slope0 > tol:
        t_hi = lo
    else:
        j = int(np.searchsorted(slopes, tol, side="right"))  # first slope > tol
        t_hi = float(tau[j]) if j < tau.size else hi
    return float(np.clip(0.0, t_lo, t_hi))


class MMCObjective:
    """The true (non-convex) MMC objective and its CCCP linearisations.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated data.
    n_clusters : int
        Number of clusters ``k``.
    C : float
        Weight of the margin loss (> 0).
    bound : float
        Balance bound ``l / n`` on the mean score (binary) or on the
        differences of mean scores (multiclass).
    C_pairs : float, default=0.0
        Weight ``C'`` of the pairwise loss.
    pairs : PairSet or None, default=None
        Must-link / cannot-link pairs (the objective uses them as given; the
        estimators pass :func:`~._constraints.closed_pairs`).
    multiclass : bool or None, default=None
        Use the multiclass formulation (eqs. 19-34). None: only when
        ``n_clusters > 2``. With ``n_clusters=2`` it solves the same problem as the
        binary formulation for ``f = f_1 - f_2`` with half the objective.
    data : LinearData or None, default=None
        Precomputed data wrapper (to share it between objectives).
    pair_loss : {"margin", "paper"}, default="margin"
        The pair margin of :mod:`._pairs` or the paper's ``|f_u - z f_v|``.
    min_size : int, default=0
        Multiclass, in memory: the labelling of the loss (and of every CCCP
        linearisation) is the cheapest one in which every cluster has at least
        ``min_size`` members (:func:`floor_labels`) instead of the argmax, i.e.
        the objective is minimised over labellings with that floor on the
        cluster sizes, as in the class balance on labels of Xu et al. (2004).
        0: the paper's model (the argmax).
    """

    def __init__(
        self,
        X: Any,
        n_clusters: int,
        C: float,
        bound: float,
        *,
        C_pairs: float = 0.0,
        pairs: PairSet | None = None,
        multiclass: bool | None = None,
        data: LinearData | None = None,
        pair_loss: str = "margin",
        min_size: int = 0,
    ) -> None:
        self.data = data if data is not None else LinearData(X)
        self.min_size = int(min_size)
        self.k = int(n_clusters)
        self.multiclass = self.k > 2 if multiclass is None else bool(multiclass)
        if not self.multiclass and self.k != 2:
            # not a parameter check: the two arguments of this class contradict each other
            # (the estimators choose the formulation from n_clusters)
            raise ValueError("The binary formulation needs n_clusters=2.")
        self.q = self.k if self.multiclass else 1
        self.C = float(C)
        self.C_pairs = float(C_pairs)
        self.pairs = pairs if pairs is not None and pairs.size else None
        self.balance: BalanceSet = make_balance(self.q, float(bound))
        self.pair_term: PairTerm | None = None
        if self.pairs is not None and self.C_pairs > 0:
            rows, inv = np.unique(
                np.concatenate([self.pairs.u, self.pairs.v]), return_inverse=True
            )
            m = self.pairs.size
            self.pair_term = PairTerm(
                self.data.subset(rows), inv[:m], inv[m:], self.pairs.z, self.q, pair_loss
            )
        # Every pass over X is a row-block pass (:mod:`._mmc_blocks`): the labels of
        # the current linearisation stay beside their blocks; the pair term reads
        # only the pairs' rows, gathered once.
        self._states: list[Any] | None = None  # labels of the last surrogate, per block
        self._assign: Any = None  # the pairs' allowed joint labels of the last surrogate
        # Cutting planes of the pair part, kept while its joint labels stay fixed: the
        # pair part of consecutive subproblems is then the same convex function, so
        # its planes stay valid lower bounds and the next solve need not rebuild them.
        self._pair_cuts: list[tuple[Array, Array, float]] = []
        self._last: tuple[Array, Array, list[Any], int, Any] | None = None

    # ------------------------------------------------------------ helpers
    def fresh(self) -> MMCObjective:
        """A copy for one restart: shares the data, owns its caches (thread-safe restarts)."""
        new = copy.copy(self)
        new.data = copy.copy(self.data)
        new.data._cache = []
        if self.pair_term is not None:
            new.pair_term = copy.copy(self.pair_term)
            new.pair_term.rows = copy.copy(self.pair_term.rows)
            new.pair_term.rows._cache = []
        new._states, new._last, new._assign = None, None, None
        new._pair_cuts = []
        return new

    def zero(self) -> Params:
        """The all-zero parameter."""
        return np.zeros((self.q, self.data.d)), np.zeros(self.q)

    def scores(self, x: Params) -> Array:
        """Scores ``F`` of shape (n, q) on the training data."""
        return self.data.scores(x[0], x[1])

    def pair_value(self, x: Params) -> float:
        """``C'`` times the true mean pair loss at ``x`` (0 without pairs)."""
        if self.pair_term is None:
            return 0.0
        return self.C_pairs * self.pair_term.value(x[0], x[1])

    # ----------------------------------------------------------- protocol
    def value(self, x: Params) -> float:
        """True objective at ``x``."""
        return self._true_pass(x)[0] + self.pair_value(x)

    def _block_args(self) -> tuple[Array, float, bool]:
        return self.data.xbar, self.data.scale, self.multiclass

    def _true_pass(self, x: Params) -> tuple[float, list[Any], int, Any]:
        """One pass at ``x``: objective without pairs, labels per block, changed labels, sizes.

        Cached for the last ``x`` (CCCP asks for the value and then the
        linearisation at the same iterate: one pass for both).
        """
        W, t = x
        last = self._last
        if last is not None and np.array_equal(last[0], W) and np.array_equal(last[1], t):
            return self._loss_value(W, last[4][0]), last[2], last[3], last[4][1]
        xbar, scale, multi = self._block_args()
        states, parts = self.data.blocks.states(
            true_block, self._states, W, t, xbar, scale, multi, self.k
        )
        loss = 0.0
        changed = 0
        sizes = np.zeros(self.k, dtype=np.intp)
        for lb, ch, sz in parts:
            loss += lb
            changed += ch
            sizes += sz
        if self._states is None:
            changed = -1
        if (self.multiclass and self.min_size > 0 and np.any(sizes < self.min_size)
                and not out_of_core(self.data.blocks)):  # the floor reads every row's scores
            states, loss, changed, sizes = self._floored_pass(x)
        self._last = (
            np.array(W, copy=True),
            np.array(t, copy=True),
            states,
            changed,
            (loss, sizes),
        )
        return self._loss_value(W, loss), states, changed, sizes

    def _floored_pass(self, x: Params) -> tuple[list[Any], float, int, npt.NDArray[np.intp]]:
        """States, loss sum, changed labels and sizes of the floored labelling at ``x``.

        Needs every row's scores at once (one more pass over X, in memory only; the
        out-of-core backends keep the argmax), and only when the argmax leaves a
        cluster below the floor.
        """
        blocks = self.data.blocks
        F = self.scores(x)
        labels = floor_labels(F, self.min_size)
        loss = float(np.maximum(0.0, 1.0 - F[np.arange(F.shape[0]), labels][:, None] + F).sum())
        prev = None if self._states is None else blocks.gather(self._states)
        changed = -1 if prev is None else int(np.count_nonzero(prev != labels))
        return blocks.split(labels), loss, changed, np.bincount(labels, minlength=self.k)

    def cutting_plane_pass(
        self, states: list[Any] | None, x: Params, append: bool, resign: bool
    ) -> tuple[list[Any], dict[str, Any]]:
        """Binary CPMMC's pass at ``x`` (:func:`~._mmc_blocks.cutting_plane_block`), reduced.

        Returns the new per-block states and ``restricted`` (``Cset (1 - |f|) / n``,
        shape (m,)), ``loss`` (the true mean margin loss), ``A`` (m+1, d), ``ct``
        (m+1,), ``off`` (m+1,): the planes of the working set plus the new
        candidate constraint (``A`` = the slopes in ``W``, ``ct`` in ``t``, ``off``
        = the constant ``|c| / n``).
        """
        W, t = x
        data = self.data
        n = data.n
        states, parts = data.blocks.states(
            cutting_plane_block, states, W, t, data.xbar, data.scale, n, append, resign
        )
        m1 = parts[0][2].shape[1]
        rvals = np.zeros(m1 - 1)
        loss = 0.0
        XtG = np.zeros((data.d, m1))
        ct = np.zeros(m1)
        cnt = np.zeros(m1)
        for rv, lb, xg, cs, cm in parts:
            rvals += rv
            loss += lb
            XtG += xg
            ct += cs
            cnt += cm
        ct = -ct / n  # exact integer sums, then one division
        XtG -= np.outer(data.xbar, ct)
        if data.scale != 1.0:
            XtG *= 1.0 / data.scale
        return states, {
            "restricted": rvals / n,
            "loss": loss / n,
            "A": XtG.T,
            "ct": ct,
            "off": cnt / n,
        }

    def _loss_value(self, W: Array, loss_sum: float) -> float:
        n = self.data.n
        loss = (loss_sum - n) / (n * self.k) if self.multiclass else loss_sum / n
        return float(0.5 * np.vdot(W, W) + self.C * loss)

    def cluster_sizes(self, x: Params) -> npt.NDArray[np.intp]:
        """Cluster sizes of the labels at ``x`` (blockwise; no n-vector)."""
        return np.asarray(self._true_pass(x)[3], dtype=np.intp)

    def labels(self, x: Params) -> npt.NDArray[np.intp]:
        """Labels of the training data at ``x``."""
        return np.asarray(self.data.blocks.gather(self._true_pass(x)[1]), dtype=np.intp)

    def linearize(self, x: Params) -> MMCSurrogate:
        """The CCCP convex majoriser at ``x`` (signs / argmax fixed at ``x``).

        With the pair margin, each pair's best allowed joint label is fixed at
        ``x`` as well; a change of one counts as a changed label.
        """
        _, states, changed, _ = self._true_pass(x)
        assign = None
        if self.pair_term is not None:
            assign = self.pair_term.assignment(self.pair_term.scores(x[0], x[1]))
            if assign is not None and changed >= 0 and self._assign is not None:
                changed += int(
                    np.count_nonzero(
                        (assign[0] != self._assign[0]) | (assign[1] != self._assign[1])
                    )
                )
        return self.surrogate_from_states(states, None if changed < 0 else changed, assign=assign)

    def surrogate(self, labels: npt.ArrayLike) -> MMCSurrogate:
        """The convex subproblem (eq. 11 / 30, with pairs eq. 39 / 47) for fixed labels.

        With the pair margin, the pairs' joint labels are fixed at the
        nearest-centroid scores of ``labels`` (``f_r(x) = c_r . x - |c_r|^2 / 2``
        for the centroids ``c_r`` of the labels: linear scores whose argmax is the
        label of the nearest centroid).
        """
        labels = np.asarray(labels, dtype=np.intp)
        assign = None
        if self.pair_term is not None and self.pair_term.kind != "paper":
            assign = self.pair_term.assignment(self._centroid_scores(labels))
        return self.surrogate_from_states(self.data.blocks.split(labels), None, labels, assign)

    def _centroid_scores(self, labels: npt.NDArray[np.intp]) -> Array:
        """Nearest-centroid linear scores of the pairs' rows (binary: ``f_1 - f_0``)."""
        assert self.pair_term is not None
        k, data = self.k, self.data
        onehot = np.zeros((labels.size, k))
        onehot[np.arange(labels.size), labels] = 1.0
        # the clusters' sums by one product with X, their sizes by a count (a column
        # sum of the n x k indicator is several times slower than the product)
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        sums = np.asarray(data.X.T @ onehot, dtype=np.float64).T
        sums -= np.outer(counts, data.xbar)
        if data.scale != 1.0:
            sums *= 1.0 / data.scale
        centres = sums / np.maximum(counts, 1.0)[:, None]  # centred, scaled units
        F = self.pair_term.rows.raw_scores(centres) - 0.5 * np.einsum("ij,ij->i", centres, centres)
        return F[:, 1:] - F[:, :1] if self.q == 1 else F

    def surrogate_from_states(
        self, states: list[Any], n_changed: int | None, labels: Any = None, assign: Any = None
    ) -> MMCSurrogate:
        """The subproblem for labels kept per row block (``n_changed``: vs the last one)."""
        self._states = list(states)
        if not _same_assignment(assign, self._assign, self.pair_term):
            self._pair_cuts = []  # a new pair part: the old planes do not bound it
        self._assign = assign
        self._last = None
        if labels is None and not out_of_core(self.data.blocks):
            # in memory the subproblem holds the labels; out of core they stay in the blocks
            labels = self.data.blocks.gather(states)
        return MMCSurrogate(
            self,
            labels,
            states=self._states,
            n_changed=n_changed,
            assign=assign,
            cheap_cuts=self._pair_cuts,
        )


def _same_assignment(new: Any, old: Any, pair_term: Any) -> bool:
    """Whether two subproblems share their pair part (same fixed joint labels).

    The paper's loss is convex and never linearised (``assign`` None): its part
    is the same in every subproblem of a fit.
    """
    if pair_term is None:
        return False
    if pair_term.kind == "paper":
        return True
    if new is None or old is None:
        return False
    return bool(np.array_equal(new[0], old[0]) and np.array_equal(new[1], old[1]))


class MMCSurrogate:
    """Convex CCCP subproblem: an SVM with fixed labels, balance set and pairwise loss.

    ``J(x) = 1/2 ||W||^2 + C R(x)`` with ``R`` = hinge loss with the fixed labels
    plus ``(C'/C)`` times the pairwise loss (with its joint labels fixed).
    Provides ``plane(x)`` for the bundle method. Built by
    :meth:`MMCObjective.surrogate` or :meth:`MMCObjective.linearize`.

    Parameters
    ----------
    objective : MMCObjective
        The parent objective.
    labels : ndarray of shape (n_samples,) or None
        Fixed labels (binary: 0/1, sign ``2 y - 1``; multiclass: ``p_i``), when
        the data are in memory.
    states : list
        The same labels per row block.
    n_changed : int or None, default=None
        Labels changed since the previous linearisation (None: unknown).
    assign : tuple of ndarray or None, default=None
        The pairs' fixed allowed joint labels ``(p, q)`` (pair margin only).
    cheap_cuts : list or None, default=None
        Cutting planes ``(dR/dW, dR/dt, offset)`` of the pair part (:meth:`cheap_plane`)
        shared with the previous subproblem when its pair part is the same: the
        solver starts its model of that part from them and leaves its planes there.
    """

    def __init__(
        self,
        objective: MMCObjective,
        labels: npt.NDArray[np.intp] | None,
        *,
        states: list[Any],
        n_changed: int | None = None,
        assign: Any = None,
        cheap_cuts: list[tuple[Array, Array, float]] | None = None,
    ) -> None:
        self.obj = objective
        self.labels = labels
        self.states = states
        self.n_changed = n_changed
        self.assign = assign
        self.cheap_cuts = cheap_cuts if cheap_cuts is not None else []
        self.C = objective.C
        self.balance = objective.balance
        self.shape = (objective.q, objective.data.d)
        self._risks: list[tuple[Array, Array, float]] = []
        pt = objective.pair_term
        self._pair_weight = 0.0 if pt is None else objective.C_pairs / objective.C

    # ------------------------------------------------ row-block passes
    def _norm(self) -> float:
        obj = self.obj
        return float(obj.data.n * obj.k) if obj.multiclass else float(obj.data.n)

    def _cached_risk(self, W: Array, t: Array) -> float | None:
        for Wc, tc, r in self._risks:
            if np.array_equal(Wc, W) and np.array_equal(tc, t):
                return r
        return None

    def _remember(self, W: Array, t: Array, risk: float) -> None:
        self._risks.insert(0, (np.array(W, copy=True), np.array(t, copy=True), risk))
        del self._risks[2:]

    def _pair_risk(self, W: Array, t: Array) -> float:
        pt = self.obj.pair_term
        if pt is None:
            return 0.0
        return self._pair_weight * pt.risk(W, t, self.assign)

    def _margin_plane(self, x: Params) -> tuple[float, Array, Array]:
        """The margin part of the risk and its subgradient: one pass over the row blocks."""
        obj = self.obj
        W, t = x
        xbar, scale, multi = obj._block_args()
        norm = self._norm()
        self.states, parts = obj.data.blocks.states(
            plane_block, self.states, W, t, xbar, scale, multi, norm
        )
        risk = 0.0
        XtG = np.zeros((obj.data.d, obj.q))
        gsum = np.zeros(obj.q)
        for r, m, g in parts:
            risk += r
            XtG += m
            gsum += g
        risk /= norm
        XtG -= np.outer(xbar, gsum)
        if scale != 1.0:
            XtG *= 1.0 / scale
        return risk, XtG.T, gsum

    def cheap_plane(self, x: Params) -> tuple[float, Array, Array]:
        """The pair part of the risk (``C'/C`` times the pair loss) and its subgradient.

        Reads the pairs' rows only (no pass over the data): the bundle method
        models it apart (:attr:`split`) and refines its model between passes.
        """
        pt = self.obj.pair_term
        assert pt is not None
        pr, pW, p_t = pt.plane(x[0], x[1], self.assign)
        w = self._pair_weight
        return w * pr, w * pW, w * p_t

    @property
    def cheap_share(self) -> float:
        """Rows read by a plane of the pair part over rows read by a pass (at most 1).

        A pass over the data reads ``n`` rows, a plane of the pair part only the
        pairs' rows: the solvers refine the pair part's model between passes to
        the precision that this ratio makes worth its cost.
        """
        pt = self.obj.pair_term
        if pt is None:
            return 0.0
        return min(1.0, pt.rows.n / self.obj.data.n)

    @property
    def split(self) -> bool:
        """Whether the risk has a cheap part (the pairs'), modelled apart by the bundle method."""
        return self.obj.pair_term is not None

    def plane_parts(self, x: Params) -> list[tuple[float, Array, Array]]:
        """The margin part and the pair part of the risk, each with its subgradient."""
        parts = [self._margin_plane(x)]
        if self.obj.pair_term is not None:
            parts.append(self.cheap_plane(x))
        self._remember(x[0], x[1], float(sum(r for r, _, _ in parts)))
        return parts

    def _block_plane(self, x: Params) -> tuple[float, Array, Array]:
        parts = self.plane_parts(x)
        risk, aW, at = parts[0]
        for r, pW, p_t in parts[1:]:
            risk, aW, at = risk + r, aW + pW, at + p_t
        return risk, aW, at

    def _block_risks(self, W: Array, ts: list[Array]) -> list[float]:
        obj = self.obj
        xbar, scale, multi = obj._block_args()
        self.states, parts = obj.data.blocks.states(
            risk_block, self.states, W, ts, xbar, scale, multi
        )
        totals = [0.0] * len(ts)
        for p in parts:
            for j, r in enumerate(p):
                totals[j] += r
        norm = self._norm()
        return [tot / norm + self._pair_risk(W, t) for tot, t in zip(totals, ts)]

    def _block_polish(self, x: Params) -> Params:
        obj = self.obj
        W, t = x
        xbar, scale, _ = obj._block_args()
        lo, hi = -self.balance.bound, self.balance.bound
        self.states, parts = obj.data.blocks.states(
            breakpoints_block, self.states, W, xbar, scale, lo, hi
        )
        slope = 0.0
        for sb, _ in parts:
            slope += sb
        n = obj.data.n
        tau = np.concatenate([p[1] for p in parts])
        slope /= n
        jump = np.full(tau.size, 1.0 / n)
        pt = obj.pair_term
        if pt is not None:
            # the pairs' hinges in t, added to the margin's breakpoints
            a, b, w = pt.offset_hinges(W, self.assign)
            nz = b != 0
            a, b, w = a[nz], b[nz], w[nz] * self._pair_weight
            tp = -a / b
            jp = w * np.abs(b)
            slope += float(np.sum(w[b < 0] * b[b < 0])) + float(np.sum(jp[tp <= lo]))
            inbox = (tp > lo) & (tp < hi)
            tau = np.concatenate([tau, tp[inbox]])
            jump = np.concatenate([jump, jp[inbox]])
        order = np.argsort(tau, kind="stable")
        t_new = _argmin_in_box(slope, tau[order], jump[order], lo, hi, 1e-12)
        x_new = (W, np.array([t_new]))
        r_old, r_new = self._block_risks(W, [t, x_new[1]])
        if r_new <= r_old:
            self._remember(W, x_new[1], r_new)
            return x_new
        self._remember(W, t, r_old)
        return x

    def risk(self, x: Params) -> float:
        """Risk ``R(x)``."""
        r = self._cached_risk(x[0], x[1])
        return r if r is not None else self._block_risks(x[0], [x[1]])[0]

    def value(self, x: Params) -> float:
        """Surrogate objective ``1/2 ||W||^2 + C R(x)``."""
        W = x[0]
        return float(0.5 * np.vdot(W, W) + self.C * self.risk(x))

    def polish(self, x: Params) -> Params:
        """Re-optimise the offset ``t`` exactly for fixed ``W`` (binary model).

        ``R(W, t)`` is convex piecewise linear in the scalar ``t`` (the margin's
        hinges and the pairs', :meth:`~._pairs.PairTerm.offset_hinges`); its
        minimisers over the balance box form an interval, and the one closest to
        0 is taken. The bundle QP leaves ``t`` arbitrary in that interval when the
        model is flat in ``t`` (e.g. every sample inside the margin with balanced
        labels), and an arbitrary offset can put every sample on one side. Never
        increases ``R``. The multiclass ``t`` is returned unchanged.
        """
        if self.obj.multiclass:
            return x
        return self._block_polish(x)

    def plane(self, x: Params) -> tuple[float, Array, Array]:
        """Risk and a subgradient at ``x``: ``(R(x), dR/dW (q, d), dR/dt (q,))``."""
        return self._block_plane(x)

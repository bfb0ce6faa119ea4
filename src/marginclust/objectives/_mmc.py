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
- plus, with pairs (Sec. IV): ``C'/m sum |f(x_u) - z f(x_v)|`` (binary) or
  ``C'/(mk) sum_{(u,v), r} |f_r(x_u) - z f_r(x_v)|`` (multiclass),

all subject to the balance constraint on ``t``.

CCCP (eqs. 10-11, 29-30) fixes the signs ``s_i = sgn f(x_i)`` (binary) or the
argmax ``p_i`` (multiclass) at the current iterate; the resulting convex loss
``max(0, 1 - s_i f(x_i))`` (resp. ``sum_{r != p_i} max(0, 1 - f_{p_i} + f_r)``)
is an upper bound of the true loss that touches it at the current iterate
(``|f| >= s f`` and ``max_p f_p >= f_{p_i}``), so every CCCP step that does not
increase the surrogate does not increase the true objective.

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

from ..utils._blocks import RowBlocks
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

__all__ = [
    "LinearData",
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


def _argmin_sum_of_hinges(a: Array, b: Array, w: Array, lo: float, hi: float) -> float:
    """Minimiser closest to 0 of ``sum_j w_j max(0, a_j + b_j t)`` over ``[lo, hi]`` (exact).

    The slope at ``-inf`` is ``sum_{b_j < 0} w_j b_j`` and grows by ``w_j |b_j|`` at each
    breakpoint ``-a_j / b_j``; only the slope at ``lo`` and the breakpoints inside
    the box matter (:func:`_argmin_in_box`).
    """
    nz = b != 0
    a, b, w = a[nz], b[nz], w[nz]
    if a.size == 0:
        return float(np.clip(0.0, lo, hi))
    tau = -a / b
    jump = w * np.abs(b)
    tol = 1e-12 * max(1.0, float(np.sum(jump)))
    slope0 = float(np.sum(w[b < 0] * b[b < 0])) + float(np.sum(jump[tau <= lo]))
    inbox = (tau > lo) & (tau < hi)
    order = np.argsort(tau[inbox])
    return _argmin_in_box(slope0, tau[inbox][order], jump[inbox][order], lo, hi, tol)


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
        Must-link / cannot-link pairs.
    multiclass : bool or None, default=None
        Use the multiclass formulation (eqs. 19-34). None: only when
        ``n_clusters > 2``. With ``n_clusters=2`` it solves the same problem as the
        binary formulation for ``f = f_1 - f_2`` with half the objective.
    data : LinearData or None, default=None
        Precomputed data wrapper (to share it between objectives).
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
    ) -> None:
        self.data = data if data is not None else LinearData(X)
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
        # Without pairs every pass over X is a row-block pass (:mod:`._mmc_blocks`):
        # the labels of the current linearisation stay beside their blocks.
        self.blockwise = self.pairs is None
        self._states: list[Any] | None = None  # labels of the last surrogate, per block
        self._last: tuple[Array, Array, list[Any], int, Any] | None = None

    # ------------------------------------------------------------ helpers
    def fresh(self) -> MMCObjective:
        """A copy for one restart: shares the data, owns its caches (thread-safe restarts)."""
        new = copy.copy(self)
        new.data = copy.copy(self.data)
        new.data._cache = []
        new._states, new._last = None, None
        return new

    def zero(self) -> Params:
        """The all-zero parameter."""
        return np.zeros((self.q, self.data.d)), np.zeros(self.q)

    def scores(self, x: Params) -> Array:
        """Scores ``F`` of shape (n, q) on the training data."""
        return self.data.scores(x[0], x[1])

    def _pair_diff(self, F: Array) -> Array:
        p = self.pairs
        assert p is not None
        return F[p.u] - p.z[:, None] * F[p.v]

    def pair_loss(self, F: Array) -> float:
        """Mean absolute pair residual ``1/(mq) sum |f(x_u) - z f(x_v)|`` (0 without pairs)."""
        if self.pairs is None:
            return 0.0
        return float(np.abs(self._pair_diff(F)).mean())

    def margin_loss(self, F: Array) -> float:
        """The true (non-convex) margin loss of scores ``F``."""
        return _multi_true_loss(F) if self.multiclass else _binary_true_loss(F)

    def labels_from_scores(self, F: Array) -> npt.NDArray[np.intp]:
        """Cluster labels: ``f >= 0 -> 1`` (binary) or the argmax (ties to the lower index)."""
        if self.multiclass:
            return np.argmax(F, axis=1).astype(np.intp)
        return (F[:, 0] >= 0).astype(np.intp)

    # ----------------------------------------------------------- protocol
    def value(self, x: Params) -> float:
        """True objective at ``x``."""
        if self.blockwise:
            return self._true_pass(x)[0]
        F = self.scores(x)
        return self.value_from_scores(x, F)

    def _block_args(self) -> tuple[Array, float, bool]:
        return self.data.xbar, self.data.scale, self.multiclass

    def _true_pass(self, x: Params) -> tuple[float, list[Any], int, Any]:
        """One pass at ``x``: true objective, new labels per block, changed labels, sizes.

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
        self._last = (
            np.array(W, copy=True),
            np.array(t, copy=True),
            states,
            changed,
            (loss, sizes),
        )
        return self._loss_value(W, loss), states, changed, sizes

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

    def value_from_scores(self, x: Params, F: Array) -> float:
        """True objective at ``x`` given its scores ``F``."""
        W = x[0]
        return float(
            0.5 * np.vdot(W, W) + self.C * self.margin_loss(F) + self.C_pairs * self.pair_loss(F)
        )

    def labels(self, x: Params) -> npt.NDArray[np.intp]:
        """Labels of the training data at ``x``."""
        if self.blockwise:
            return np.asarray(self.data.blocks.gather(self._true_pass(x)[1]), dtype=np.intp)
        return self.labels_from_scores(self.scores(x))

    def linearize(self, x: Params) -> MMCSurrogate:
        """The CCCP convex majoriser at ``x`` (signs / argmax fixed at ``x``)."""
        if self.blockwise:
            _, states, changed, _ = self._true_pass(x)
            return self.surrogate_from_states(states, None if changed < 0 else changed)
        return self.surrogate(self.labels(x))

    def surrogate(self, labels: npt.ArrayLike) -> MMCSurrogate:
        """The convex subproblem (eq. 11 / 30, with pairs eq. 39 / 47) for fixed labels."""
        labels = np.asarray(labels, dtype=np.intp)
        if self.blockwise:
            return self.surrogate_from_states(self.data.blocks.split(labels), None, labels)
        return MMCSurrogate(self, labels)

    def surrogate_from_states(
        self, states: list[Any], n_changed: int | None, labels: Any = None
    ) -> MMCSurrogate:
        """The subproblem for labels kept per row block (``n_changed``: vs the last one)."""
        self._states = list(states)
        self._last = None
        if labels is None and getattr(self.data.blocks, "in_memory", False):
            labels = self.data.blocks.gather(states)
        return MMCSurrogate(self, labels, states=self._states, n_changed=n_changed)


class MMCSurrogate:
    """Convex CCCP subproblem: an SVM with fixed labels, balance set and pairwise loss.

    ``J(x) = 1/2 ||W||^2 + C R(x)`` with ``R`` = hinge loss with the fixed labels
    plus ``(C'/C)`` times the pairwise loss. Provides ``plane(x)`` for the bundle
    method. Built by :meth:`MMCObjective.surrogate`.

    Parameters
    ----------
    objective : MMCObjective
        The parent objective.
    labels : ndarray of shape (n_samples,)
        Fixed labels (binary: 0/1, sign ``2 y - 1``; multiclass: ``p_i``).
    """

    required_by = ("plane", "value")

    def __init__(
        self,
        objective: MMCObjective,
        labels: npt.NDArray[np.intp] | None,
        *,
        states: list[Any] | None = None,
        n_changed: int | None = None,
    ) -> None:
        self.obj = objective
        self.labels = labels
        self.states = states
        self.n_changed = n_changed
        self.C = objective.C
        self.balance = objective.balance
        self.shape = (objective.q, objective.data.d)
        self._risks: list[tuple[Array, Array, float]] = []
        if states is not None:
            return
        assert labels is not None
        n = objective.data.n
        if objective.multiclass:
            self._rows = np.arange(n)
        else:
            self._sign = 2.0 * labels - 1.0

    # ------------------------------------------------ row-block path (no pairs)
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

    def _block_plane(self, x: Params) -> tuple[float, Array, Array]:
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
        self._remember(W, t, risk)
        return risk, XtG.T, gsum

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
        return [tot / norm for tot in totals]

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
        tau = np.sort(np.concatenate([p[1] for p in parts]))
        t_new = _argmin_in_box(slope / n, tau, np.full(tau.size, 1.0 / n), lo, hi, 1e-12)
        x_new = (W, np.array([t_new]))
        r_old, r_new = self._block_risks(W, [t, x_new[1]])
        if r_new <= r_old:
            self._remember(W, x_new[1], r_new)
            return x_new
        self._remember(W, t, r_old)
        return x

    def _risk_coef(self, F: Array) -> tuple[float, Array]:
        """Risk value and its subgradient coefficients ``Gc`` (n, q) w.r.t. the scores."""
        obj = self.obj
        n = F.shape[0]
        if obj.multiclass:
            k = obj.k
            fp = F[self._rows, self.labels]
            marg = 1.0 - fp[:, None] + F
            marg[self._rows, self.labels] = 0.0
            active = marg > 0
            risk = float(np.where(active, marg, 0.0).sum()) / (n * k)
            Gc = active.astype(np.float64)
            Gc[self._rows, self.labels] = -active.sum(axis=1)
            Gc /= n * k
        else:
            s = self._sign
            marg = 1.0 - s * F[:, 0]
            active = marg > 0
            risk = float(marg[active].sum()) / n
            Gc = np.where(active, -s / n, 0.0)[:, None]
        if obj.pairs is not None and obj.C_pairs > 0:
            p = obj.pairs
            D = obj._pair_diff(F)
            weight = obj.C_pairs / obj.C
            risk += weight * float(np.abs(D).mean())
            S = np.sign(D) * (weight / D.size)
            np.add.at(Gc, p.u, S)
            np.add.at(Gc, p.v, -p.z[:, None] * S)
        return risk, Gc

    def risk(self, x: Params) -> float:
        """Risk ``R(x)``."""
        if self.states is not None:
            r = self._cached_risk(x[0], x[1])
            return r if r is not None else self._block_risks(x[0], [x[1]])[0]
        return self._risk_coef(self.obj.scores(x))[0]

    def value(self, x: Params) -> float:
        """Surrogate objective ``1/2 ||W||^2 + C R(x)``."""
        W = x[0]
        return float(0.5 * np.vdot(W, W) + self.C * self.risk(x))

    def polish(self, x: Params) -> Params:
        """Re-optimise the offset ``t`` exactly for fixed ``W`` (binary model).

        ``R(W, t)`` is convex piecewise linear in the scalar ``t``; its minimisers
        over the balance box form an interval, and the one closest to 0 is taken.
        The bundle QP leaves ``t`` arbitrary in that interval when the model is flat
        in ``t`` (e.g. every sample inside the margin with balanced labels), and an
        arbitrary offset can put every sample on one side. Never increases ``R``.
        The multiclass ``t`` is returned unchanged.
        """
        obj = self.obj
        if obj.multiclass:
            return x
        if self.states is not None:
            return self._block_polish(x)
        W, t = x
        g = obj.data.raw_scores(W)[:, 0]
        n = g.size
        s = self._sign
        # terms w_j max(0, a_j + b_j t): hinge 1 - s_i (g_i + t), pairs |d + (1 - z) t|
        a, b, wt = [1.0 - s * g], [-s], [np.full(n, 1.0 / n)]
        if obj.pairs is not None and obj.C_pairs > 0:
            p = obj.pairs
            d = g[p.u] - p.z * g[p.v]
            c = np.full(p.size, obj.C_pairs / (obj.C * p.size))
            a += [d, -d]
            b += [1.0 - p.z, -(1.0 - p.z)]
            wt += [c, c]
        a_all, b_all, w_all = np.concatenate(a), np.concatenate(b), np.concatenate(wt)
        bound = self.balance.bound
        t_new = _argmin_sum_of_hinges(a_all, b_all, w_all, -bound, bound)
        x_new = (W, np.array([t_new]))
        return x_new if self.risk(x_new) <= self.risk(x) else x

    def plane(self, x: Params) -> tuple[float, Array, Array]:
        """Risk and a subgradient at ``x``: ``(R(x), dR/dW (q, d), dR/dt (q,))``."""
        if self.states is not None:
            return self._block_plane(x)
        F = self.obj.scores(x)
        risk, Gc = self._risk_coef(F)
        return risk, self.obj.data.back(Gc), Gc.sum(axis=0)

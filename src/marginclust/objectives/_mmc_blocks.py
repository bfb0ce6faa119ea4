"""Row-block passes of the linear MMC objectives (BMMC), shared by the NumPy and Dask fits.

Every pass over ``X`` that BMMC makes without pairwise constraints is one block
function applied to each row block, returning ``(state_b, partial_b)``, and an
in-order reduction of the partials on the caller's side. The per-row state is
the block's labels (the fixed signs / argmax of the current CCCP
linearisation); it stays beside its block: a list of arrays in memory
(:class:`~marginclust.utils._blocks.RowBlocks`, blocks of ``BLOCK_ROWS``
rows), futures on the workers under ``distributed`` (the dask backend,
:class:`marginclust.dask.DaskRows`).
With dask chunks equal to the in-memory blocks, the partials are the same
numbers, added in the same order, so the two fits are bitwise equal under the
synchronous scheduler.

Passes (each one graph execution on dask):

- :func:`colsum_block`, :func:`css_block`: the data mean and scale (once per fit);
- :func:`plane_block`: risk, ``X_b' Gc_b`` and ``1' Gc_b`` (one bundle step);
- :func:`risk_block`: the risks at several offsets ``t`` for one ``W``;
- :func:`true_block`: the true loss, the new labels (kept as the new state),
  the number of changed labels (CCCP's stopping test) and the cluster sizes;
- :func:`cutting_plane_block`: binary CPMMC's pass (the working set of
  constraint indicators of the block's rows kept in the block's state);
- :func:`breakpoints_block`: the offset polish's candidates: the slope of the
  risk at the lower end of the balance box and the breakpoints inside the box
  (exact selection; see :meth:`~._mmc.MMCSurrogate.polish`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = [
    "CuttingPlaneState",
    "breakpoints_block",
    "colsum_block",
    "cutting_plane_block",
    "css_block",
    "plane_block",
    "risk_block",
    "true_block",
]

Array = npt.NDArray[np.float64]


def colsum_block(Xb: Any) -> Array:
    """Float64 column sums of a row block (dense or CSR)."""
    if sp.issparse(Xb):
        return np.asarray(Xb.sum(axis=0, dtype=np.float64)).ravel()
    return np.sum(Xb, axis=0, dtype=np.float64)


def css_block(Xb: Any, xbar: Array) -> float:
    """Dense: ``sum (x - xbar)^2`` of the block; CSR: ``sum x^2``.

    (For CSR the caller subtracts ``n xbar.xbar``.)
    """
    if sp.issparse(Xb):
        data = np.asarray(Xb.data, dtype=np.float64)
        return float(data @ data)
    B = np.asarray(Xb, dtype=np.float64) - xbar
    return float(np.einsum("ij,ij->", B, B))


def _raw(Xb: Any, W: Array, xbar: Array, scale: float) -> Array:
    """``(X_b - xbar) W' / scale`` without centring ``X_b``."""
    G = np.asarray(Xb @ W.T, dtype=np.float64)
    G -= xbar @ W.T
    if scale != 1.0:
        G *= 1.0 / scale
    return G


def _hinge(
    F: Array, lab: npt.NDArray[np.intp], multiclass: bool, norm: float = 1.0
) -> tuple[float, Array]:
    """Surrogate hinge risk of a block (unnormalised) and its coefficients ``Gc_b / norm``.

    ``norm`` is ``n`` (binary) or ``n k`` (multiclass); the caller divides the
    risk sum by it.
    """
    if multiclass:
        rows = np.arange(F.shape[0])
        fp = F[rows, lab]
        marg = 1.0 - fp[:, None] + F
        marg[rows, lab] = 0.0
        active = marg > 0
        risk = float(np.where(active, marg, 0.0).sum())
        Gc = active.astype(np.float64)
        Gc[rows, lab] = -active.sum(axis=1)
        Gc /= norm
        return risk, Gc
    s = 2.0 * lab - 1.0
    marg = 1.0 - s * F[:, 0]
    active = marg > 0
    return float(marg[active].sum()), np.where(active, -s / norm, 0.0)[:, None]


def plane_block(
    Xb: Any,
    lab: Any,
    W: Array,
    t: Array,
    xbar: Array,
    scale: float,
    multiclass: bool,
    norm: float,
) -> tuple[Any, tuple[float, Array, Array]]:
    """One bundle plane's partials: ``(risk_b, X_b' Gc_b (d, q), 1' Gc_b (q,))``.

    ``Gc_b`` is already divided by ``norm`` (as the in-memory risk always did),
    the risk sum is not.
    """
    F = _raw(Xb, W, xbar, scale) + t
    risk, Gc = _hinge(F, np.asarray(lab), multiclass, norm)
    return lab, (risk, np.asarray(Xb.T @ Gc, dtype=np.float64), Gc.sum(axis=0))


def risk_block(
    Xb: Any, lab: Any, W: Array, ts: Sequence[Array], xbar: Array, scale: float, multiclass: bool
) -> tuple[Any, list[float]]:
    """Unnormalised risks of the block at ``(W, t)`` for each ``t`` in ``ts`` (one product)."""
    G = _raw(Xb, W, xbar, scale)
    lab = np.asarray(lab)
    return lab, [_hinge(G + t, lab, multiclass)[0] for t in ts]


def true_block(
    Xb: Any, lab: Any, W: Array, t: Array, xbar: Array, scale: float, multiclass: bool, k: int
) -> tuple[npt.NDArray[np.intp], tuple[float, int, npt.NDArray[np.intp]]]:
    """New labels (the state) and ``(true loss sum, changed labels, cluster sizes)``.

    The loss sum is ``sum max(0, 1 - |f|)`` (binary) or ``sum_{i, r} max(0, 1 -
    max_p f_p + f_r)`` (multiclass; the caller removes the ``n`` argmax terms).
    ``changed`` is -1 without previous labels.
    """
    F = _raw(Xb, W, xbar, scale) + t
    if multiclass:
        new = np.argmax(F, axis=1).astype(np.intp)
        M = F.max(axis=1, keepdims=True)
        loss = float(np.maximum(0.0, 1.0 - M + F).sum())
    else:
        new = (F[:, 0] >= 0).astype(np.intp)
        loss = float(np.maximum(0.0, 1.0 - np.abs(F[:, 0])).sum())
    changed = -1 if lab is None else int(np.count_nonzero(new != np.asarray(lab)))
    return new, (loss, changed, np.bincount(new, minlength=k))


def breakpoints_block(
    Xb: Any, lab: Any, W: Array, xbar: Array, scale: float, lo: float, hi: float
) -> tuple[Any, tuple[float, Array]]:
    """Binary offset polish candidates of a block: ``(slope_b, breakpoints in (lo, hi))``.

    The risk ``sum_i max(0, a_i + b_i t)`` with ``a = 1 - s g``, ``b = -s``
    (unit weights; the caller divides by ``n``) has slope
    ``sum_{b<0} b + #{tau_i <= lo}`` just right of ``lo`` (``tau = -a / b``), and
    its slope grows by 1 at every breakpoint inside the box.
    """
    lab = np.asarray(lab)
    g = _raw(Xb, W, xbar, scale)[:, 0]
    s = 2.0 * lab - 1.0
    a, b = 1.0 - s * g, -s
    tau = -a / b
    slope = float(np.sum(b[b < 0])) + float(np.count_nonzero(tau <= lo))
    return lab, (slope, tau[(tau > lo) & (tau < hi)])


class CuttingPlaneState:
    """Binary CPMMC's per-block state (an opaque object to the schedulers)."""

    __slots__ = ("Cset", "candidate", "signs")

    def __init__(self, Cset: npt.NDArray[np.bool_], signs: Array, candidate: Any) -> None:
        self.Cset = Cset
        self.signs = signs
        self.candidate = candidate

    def __getstate__(self) -> tuple[Any, Any, Any]:
        return self.Cset, self.signs, self.candidate

    def __setstate__(self, state: tuple[Any, Any, Any]) -> None:
        self.Cset, self.signs, self.candidate = state


def cutting_plane_block(
    Xb: Any,
    state: Any,
    W: Array,
    t: Array,
    xbar: Array,
    scale: float,
    n: int,
    append: bool,
    resign: bool,
) -> tuple[Any, tuple[Array, float, Array, Array, Array]]:
    """Binary CPMMC's one pass at ``(W, t)`` over a block (state: the block's working set).

    The state is a :class:`CuttingPlaneState`: the block's columns of the
    working set of constraint indicators (``m x n_b``, bool), the CCCP signs
    and the candidate constraint ``1[|f| < 1]`` of the previous pass; before
    the first pass, the initial labels (None: the signs of ``f`` at ``(W, t)``).
    First the candidate is appended to the working set if ``append``; then, at
    ``(W, t)``, the signs are reset to ``sign(f)`` if ``resign``, and the block
    returns ``(Cset_b (1 - |f|) (m,), sum max(0, 1 - |f|), X_b' Gc_b (d, m+1),
    Cm_b s_b (m+1,), 1' Cm_b (m+1,))`` for ``Cm_b`` = the working set plus the
    new candidate and ``Gc_b = -(Cm_b * s_b)' / n`` (the slopes of each
    constraint's risk in ``f``; the caller centres and scales ``X_b' Gc_b``).
    The last two are integer-valued, so their sums are exact on any grouping
    of the rows: the slope of each plane in ``t`` (``-Cm s / n``) is exactly 0
    for balanced signs, where the QP's offset would otherwise be decided by the
    sign of a rounding error.
    """
    f = _raw(Xb, W, xbar, scale)[:, 0] + t[0]
    absf = np.abs(f)
    if not isinstance(state, CuttingPlaneState):
        Cset = np.zeros((0, f.size), dtype=bool)
        s = np.where(f >= 0, 1.0, -1.0) if state is None else 2.0 * np.asarray(state) - 1.0
    else:
        Cset, s, c_prev = state.Cset, state.signs, state.candidate
        if append:
            Cset = np.vstack([Cset, c_prev[None, :]])
        if resign:
            s = np.where(f >= 0, 1.0, -1.0)
    slack = 1.0 - absf
    c_new = absf < 1
    rvals = Cset.astype(np.float64) @ slack
    loss = float(np.sum(np.maximum(0.0, slack)))
    Cm = np.vstack([Cset, c_new[None, :]]).astype(np.float64)
    signed = Cm * s[None, :]
    XtG = np.asarray(Xb.T @ (-signed.T / n), dtype=np.float64)
    # integer-valued sums (exact in float64): the same on any grouping of the rows
    return CuttingPlaneState(Cset, s, c_new), (rvals, loss, XtG, signed.sum(axis=1), Cm.sum(axis=1))

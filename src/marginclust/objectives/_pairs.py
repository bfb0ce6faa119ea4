"""The pair term of linear maximum margin clustering: a margin on the pair's joint label.

A must-link (``z = +1``) or cannot-link (``z = -1``) pair ``(u, v)`` constrains the
*joint* label ``(y_u, y_v)`` of two rows: the allowed joint labels are
``{(r, r)}`` for a must-link and ``{(p, q): p != q}`` for a cannot-link. With the
multiclass scores ``f_r(x)`` (label = argmax), the score of a joint label is
``S(p, q) = f_p(x_u) + f_q(x_v)``, and the multiclass margin of MMC (the argmax
label beats every other label by 1) applied to the joint label is the *pair
margin* loss

    l(u, v) = max(0, 1 + max_{B not allowed} S(B) - max_{A allowed} S(A)).

It is zero exactly when the best allowed joint label beats every forbidden one
by at least 1. For a cannot-link both rows in their own clusters ``p != q`` with
``f_p(x_u) - f_q(x_u) >= 1`` and ``f_q(x_v) - f_p(x_v) >= 1`` give zero loss; for
a must-link the pair's best shared cluster must beat its best split by 1. The
loss does not depend on a per-row shift of the scores, and never rewards
``f = 0`` (there it is 1): the paper's ``|f_u - z f_v|`` (BMMC Sec. IV, eqs.
35, 46) is smallest at ``f = 0``, so for ``k >= 3`` its cannot-link version pulls
the scores of both rows toward 0 instead of apart, and does not separate them.

Two clusters. With the binary score ``f = f_1 - f_0`` (one output), the allowed
and forbidden maxima are ``|f_u - z f_v| / 2`` and ``|f_u + z f_v| / 2``, so

    l = max(0, 1 + (|f_u - z f_v| - |f_u + z f_v|) / 2)
      = max(0, 1 + z' min(|f_u|, |f_v|)),   z' = -z sgn(f_u f_v),

a hinge on the weaker row of the pair: the pair is satisfied with margin when
both rows are on the required sides with ``|f| >= 1``, the margin of the
binary MMC loss. The paper's binary term is the forbidden part alone plus a
shrinkage of the pair's scores:

    |f_u - z f_v| = (|f_u - z f_v| - |f_u + z f_v|) / 2 + max(|f_u|, |f_v|),

so the pair margin is the paper's term with the shrinkage ``max(|f_u|, |f_v|)``
removed and a unit margin added (:func:`paper_pair_loss` is kept for the
paper's protocol).

CCCP. ``l`` is a difference of convex functions (``-max_A S(A)`` is concave).
CCCP fixes the best allowed joint label ``A*`` at the current iterate, exactly as
it fixes each row's argmax in the margin loss (BMMC eq. 29): the surrogate
``max(0, 1 + max_B S(B) - S(A*))`` is convex (a maximum of affine functions of
the weights), majorises ``l`` (``S(A*) <= max_A S(A)``) and touches it at the
current iterate, so the CCCP descent guarantee ``J(x+) <= S(x+) <= S(x) = J(x)``
holds with pairs. The surrogate is piecewise linear: its subgradients are the
cutting planes of the bundle and cutting-plane solvers, exactly like the
margin's (the paper's extended 1-slack form, eq. 38, with an offset).

Every function here takes the scores of the pair's two rows, ``Fu`` and ``Fv``
of shape (m, k); the binary model's one score ``f`` enters as the two outputs
``(-f/2, f/2)`` (:func:`two_outputs`), whose difference is ``f``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "PAIR_LOSSES",
    "PairTerm",
    "best_allowed",
    "assign_in_order",
    "best_forbidden",
    "binary_linearised_pair_margin",
    "honour_pairs",
    "linearised_pair_margin",
    "paper_pair_loss",
    "pair_margin_loss",
    "two_outputs",
]

Array = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]

PAIR_LOSSES = ("margin", "paper")


def two_outputs(f: Array) -> Array:
    """The binary score ``f`` (shape (m,) or (m, 1)) as two outputs ``(-f/2, f/2)``."""
    f = np.asarray(f, dtype=np.float64).reshape(-1)
    return np.column_stack([-0.5 * f, 0.5 * f])


def _best_shared(Fu: Array, Fv: Array) -> tuple[Array, Index]:
    """``max_r f_r(x_u) + f_r(x_v)`` and its ``r`` (ties to the lower index)."""
    S = Fu + Fv
    r = np.argmax(S, axis=1).astype(np.intp)
    return S[np.arange(S.shape[0]), r], r


def _best_split(Fu: Array, Fv: Array) -> tuple[Array, Index, Index]:
    """``max_{p != q} f_p(x_u) + f_q(x_v)`` and its ``(p, q)``, from the top two of each row.

    If the rows' argmax differ, the best split is the two argmax; otherwise one
    of the rows takes its second best.
    """
    m = Fu.shape[0]
    rows = np.arange(m)
    a1 = np.argmax(Fu, axis=1)
    b1 = np.argmax(Fv, axis=1)
    Gu = Fu.copy()
    Gu[rows, a1] = -np.inf
    Gv = Fv.copy()
    Gv[rows, b1] = -np.inf
    a2 = np.argmax(Gu, axis=1)
    b2 = np.argmax(Gv, axis=1)
    keep_u = Fu[rows, a1] + Fv[rows, b2]  # u keeps its argmax, v takes its second
    keep_v = Fu[rows, a2] + Fv[rows, b1]
    differ = a1 != b1
    first = keep_u >= keep_v
    p = np.where(differ | first, a1, a2).astype(np.intp)
    q = np.where(differ, b1, np.where(first, b2, b1)).astype(np.intp)
    return Fu[rows, p] + Fv[rows, q], p, q


def _best_joint(Fu: Array, Fv: Array, shared: npt.NDArray[np.bool_]) -> tuple[Array, Index, Index]:
    """Per pair, the best shared joint label where ``shared``, else the best split."""
    s_same, r = _best_shared(Fu, Fv)
    s_split, p, q = _best_split(Fu, Fv)
    return (
        np.where(shared, s_same, s_split),
        np.where(shared, r, p).astype(np.intp),
        np.where(shared, r, q).astype(np.intp),
    )


def best_allowed(Fu: Array, Fv: Array, z: Array) -> tuple[Array, Index, Index]:
    """The best allowed joint label of each pair: its score ``S(A*)`` and ``A* = (p, q)``.

    Must-link (``z > 0``): the best shared cluster; cannot-link: the best split.
    """
    return _best_joint(Fu, Fv, z > 0)


def best_forbidden(Fu: Array, Fv: Array, z: Array) -> tuple[Array, Index, Index]:
    """The best forbidden joint label of each pair: its score and ``(p, q)``.

    Must-link: the best split; cannot-link: the best shared cluster.
    """
    return _best_joint(Fu, Fv, z < 0)


def pair_margin_loss(Fu: Array, Fv: Array, z: Array) -> Array:
    """The pair margin ``max(0, 1 + max_B S(B) - max_A S(A))`` of each pair, shape (m,).

    Parameters
    ----------
    Fu, Fv : ndarray of shape (m, k)
        Scores of the pairs' first and second rows (binary: :func:`two_outputs`).
    z : ndarray of shape (m,)
        +1 for a must-link, -1 for a cannot-link.

    Returns
    -------
    loss : ndarray of shape (m,)
    """
    allowed = best_allowed(Fu, Fv, z)[0]
    forbidden = best_forbidden(Fu, Fv, z)[0]
    return np.maximum(0.0, 1.0 + forbidden - allowed)


def linearised_pair_margin(
    Fu: Array, Fv: Array, z: Array, p: Index, q: Index
) -> tuple[Array, Array, Array]:
    """The CCCP surrogate of the pair margin with the allowed joint label fixed at ``(p, q)``.

    ``max(0, 1 + max_B S(B) - f_p(x_u) - f_q(x_v))``: convex in the scores, at
    least :func:`pair_margin_loss` everywhere, equal where ``(p, q)`` is the
    best allowed joint label.

    Returns
    -------
    loss : ndarray of shape (m,)
    Gu, Gv : ndarray of shape (m, k)
        A subgradient of each pair's loss in ``Fu`` and ``Fv``.
    """
    m = Fu.shape[0]
    rows = np.arange(m)
    forbidden, bp, bq = best_forbidden(Fu, Fv, z)
    h = 1.0 + forbidden - Fu[rows, p] - Fv[rows, q]
    active = (h > 0).astype(np.float64)
    Gu = np.zeros_like(Fu)
    Gv = np.zeros_like(Fv)
    # one entry per row in each statement: plain fancy-index updates are exact
    Gu[rows, bp] += active
    Gu[rows, p] -= active
    Gv[rows, bq] += active
    Gv[rows, q] -= active
    return np.maximum(h, 0.0), Gu, Gv


def binary_linearised_pair_margin(
    fu: Array, fv: Array, z: Array, p: Index, q: Index
) -> tuple[Array, Array, Array]:
    """:func:`linearised_pair_margin` of the binary model, from its one score per row.

    The same joint labels, values and subgradients as the general function on
    :func:`two_outputs` (the same choices at ties, the same sums), without building
    the two outputs: with ``sigma = (-1, +1)`` the outputs are ``sigma_r f / 2``, an
    output's argmax is ``f > 0`` and the slopes in ``f`` are ``bp - p`` and ``bq - q``.
    The bundle and cutting-plane solvers call it once per plane of the pair part.

    Returns
    -------
    loss, gu, gv : ndarray of shape (m,)
        The surrogate's loss and its slopes in ``f_u`` and ``f_v``.
    """
    hu, hv = 0.5 * fu, 0.5 * fv
    nu, nv = -0.5 * fu, -0.5 * fv

    def out(r: Index, pos: Array, neg: Array) -> Array:
        return np.where(r == 1, pos, neg)

    # best shared cluster: argmax of (nu + nv, hu + hv), ties to cluster 0
    r = (hu + hv > nu + nv).astype(np.intp)
    # best split, as _best_split: each row's argmax (f > 0) and the other cluster
    a1 = (hu > nu).astype(np.intp)
    b1 = (hv > nv).astype(np.intp)
    a2, b2 = 1 - a1, 1 - b1
    differ = a1 != b1
    first = out(a1, hu, nu) + out(b2, hv, nv) >= out(a2, hu, nu) + out(b1, hv, nv)
    sp = np.where(differ | first, a1, a2)
    sq = np.where(differ, b1, np.where(first, b2, b1))
    cannot = z < 0  # forbidden: the shared clusters for a cannot-link, the splits otherwise
    bp = np.where(cannot, r, sp).astype(np.intp)
    bq = np.where(cannot, r, sq).astype(np.intp)
    forbidden = out(bp, hu, nu) + out(bq, hv, nv)
    h = 1.0 + forbidden - out(p, hu, nu) - out(q, hv, nv)
    active = (h > 0).astype(np.float64)
    return np.maximum(h, 0.0), active * (bp - p), active * (bq - q)


def paper_pair_loss(Fu: Array, Fv: Array, z: Array) -> tuple[Array, Array, Array]:
    """The paper's pair loss ``sum_r |f_r(x_u) - z f_r(x_v)|`` (BMMC eqs. 35, 46) and a subgradient.

    Convex, so CCCP keeps it whole. Binary model: one output, ``|f_u - z f_v|``.

    Returns
    -------
    loss : ndarray of shape (m,)
    Gu, Gv : ndarray of shape (m, q)
    """
    D = Fu - z[:, None] * Fv
    S = np.sign(D)
    return np.abs(D).sum(axis=1), S, -z[:, None] * S


class PairTerm:
    """The pair term of a linear MMC objective, on the rows the pairs touch only.

    The pairs' rows are gathered once (``rows``: a
    :class:`~marginclust.objectives._mmc.LinearData` of those rows with the
    full data's mean and scale), so the pair term costs ``O(q * nnz(rows))``
    per evaluation, whatever the number of samples, and the passes over ``X``
    stay the margin's row-block passes.

    Parameters
    ----------
    rows : LinearData
        The pairs' rows (``raw_scores``, ``back``), centred and scaled as the data.
    iu, iv : ndarray of shape (m,)
        Positions of each pair's two rows in ``rows``.
    z : ndarray of shape (m,)
        +1 for a must-link, -1 for a cannot-link.
    q : int
        Outputs of the model (1: binary; ``k``: multiclass).
    kind : {"margin", "paper"}
        The pair margin (module docstring) or the paper's ``|f_u - z f_v|``.

    Notes
    -----
    The term is a mean over pairs: ``1/m sum l`` for the binary model,
    ``1/(2m) sum l`` for the multiclass one (the pair margin is one hinge per pair,
    and the ``k = 2`` multiclass model is the binary one at half the objective);
    the paper's loss is ``1/(m q) sum_r |...|`` (eq. 46).
    """

    def __init__(self, rows: Any, iu: Index, iv: Index, z: Array, q: int, kind: str) -> None:
        self.rows = rows
        self.iu = np.asarray(iu, dtype=np.intp)
        self.iv = np.asarray(iv, dtype=np.intp)
        self.z = np.asarray(z, dtype=np.float64)
        self.q = int(q)
        self.kind = kind
        m = self.z.size
        if kind == "paper":
            self.norm = 1.0 / (m * self.q)
        else:
            self.norm = 1.0 if self.q == 1 else 0.5

    @property
    def size(self) -> int:
        """Number of pairs ``m``."""
        return int(self.z.size)

    def scores(self, W: Array, t: Array) -> Array:
        """Scores of the pairs' rows, shape (n_rows, q)."""
        return self.rows.raw_scores(W) + t

    def _split(self, F: Array) -> tuple[Array, Array]:
        Fu, Fv = F[self.iu], F[self.iv]
        if self.q == 1:
            return two_outputs(Fu), two_outputs(Fv)
        return Fu, Fv

    def assignment(self, F: Array) -> tuple[Index, Index] | None:
        """The best allowed joint label of each pair at scores ``F`` (None for the paper's loss)."""
        if self.kind == "paper":
            return None
        Fu, Fv = self._split(F)
        _, p, q = best_allowed(Fu, Fv, self.z)
        return p, q

    def value(self, W: Array, t: Array) -> float:
        """The true (non-convex) mean pair loss at ``(W, t)``."""
        F = self.scores(W, t)
        if self.kind == "paper":
            return float(paper_pair_loss(F[self.iu], F[self.iv], self.z)[0].sum() * self.norm)
        Fu, Fv = self._split(F)
        return float(pair_margin_loss(Fu, Fv, self.z).sum() * self.norm)

    def risk_coef(self, F: Array, assign: tuple[Index, Index] | None) -> tuple[float, Array]:
        """The surrogate's mean pair loss at scores ``F`` and its coefficients ``dR/dF``.

        ``assign``: the allowed joint labels fixed by CCCP (ignored by the paper's loss).
        """
        if self.kind == "paper":
            loss, Gu, Gv = paper_pair_loss(F[self.iu], F[self.iv], self.z)
        else:
            assert assign is not None
            if self.q == 1:  # the binary form: the same numbers, a fraction of the work
                f = F[:, 0]
                loss, gu, gv = binary_linearised_pair_margin(
                    f[self.iu], f[self.iv], self.z, assign[0], assign[1]
                )
                Gu, Gv = gu[:, None], gv[:, None]
            else:
                Fu, Fv = self._split(F)
                loss, Gu, Gv = linearised_pair_margin(Fu, Fv, self.z, assign[0], assign[1])
        # per output, the coefficients of each row summed over its pairs (bincount: a
        # row may be in many pairs; the entries are multiples of 1/2, so sums are exact)
        r = F.shape[0]
        G = np.column_stack([
            np.bincount(self.iu, Gu[:, j], minlength=r)
            + np.bincount(self.iv, Gv[:, j], minlength=r)
            for j in range(F.shape[1])
        ])
        return float(loss.sum() * self.norm), G * self.norm

    def risk(self, W: Array, t: Array, assign: tuple[Index, Index] | None) -> float:
        """The surrogate's mean pair loss at ``(W, t)``."""
        return self.risk_coef(self.scores(W, t), assign)[0]

    def plane(
        self, W: Array, t: Array, assign: tuple[Index, Index] | None
    ) -> tuple[float, Array, Array]:
        """The surrogate's pair loss and a subgradient ``(R_p, dR_p/dW, dR_p/dt)`` at ``(W, t)``."""
        risk, G = self.risk_coef(self.scores(W, t), assign)
        return risk, self.rows.back(G), G.sum(axis=0)

    def offset_hinges(
        self, W: Array, assign: tuple[Index, Index] | None
    ) -> tuple[Array, Array, Array]:
        """Binary model: the surrogate pair loss as ``sum_j w_j max(0, a_j + b_j t)`` + a constant.

        For the exact offset polish (every score is ``g + t``). Pair margin: a
        must-link's surrogate is one hinge in ``t``; a cannot-link's is
        ``max(0, L1, L2)`` with slopes +1 and -1, which is the sum of the two
        hinges when the lines cross at or below 0, and otherwise
        ``c + |t - t_c|`` (a constant plus two hinges at ``t_c``). The paper's
        ``|d + (1 - z) t|`` is two hinges.
        """
        g = self.rows.raw_scores(W)[:, 0]
        gu, gv = g[self.iu], g[self.iv]
        m = self.size
        wt = np.full(m, self.norm)
        if self.kind == "paper":
            d = gu - self.z * gv
            b = 1.0 - self.z
            return np.concatenate([d, -d]), np.concatenate([b, -b]), np.concatenate([wt, wt])
        assert assign is not None
        # sigma = -1 / +1 for output 0 / 1: S(p, q) = (sigma_p f_u + sigma_q f_v) / 2
        su = 2.0 * assign[0] - 1.0
        sv = 2.0 * assign[1] - 1.0
        # allowed part: -S(A*) = alpha + beta t
        alpha = -0.5 * (su * gu + sv * gv)
        beta = -0.5 * (su + sv)
        a_list, b_list, w_list = [], [], []
        must = self.z > 0
        # must-link: forbidden are the splits (+-1/2 (f_u - f_v)), slope 0 in t:
        # 1 + |g_u - g_v| / 2 + alpha + beta t, one hinge
        a_ml = 1.0 + 0.5 * np.abs(gu - gv) + alpha
        a_list.append(a_ml[must])
        b_list.append(beta[must])
        w_list.append(wt[must])
        # cannot-link: forbidden are (0,0) and (1,1): S = -+(g_u + g_v)/2 -+ t
        cl = ~must
        s = 0.5 * (gu + gv)
        a1 = (1.0 + s + alpha)[cl]  # (1,1): slope beta + 1
        b1 = (beta + 1.0)[cl]
        a2 = (1.0 - s + alpha)[cl]  # (0,0): slope beta - 1
        b2 = (beta - 1.0)[cl]
        w_cl = wt[cl]
        # A* of a cannot-link is a split: beta = 0, so the slopes are +1 and -1
        tc = (a2 - a1) / (b1 - b2)  # where the two lines cross
        top = a1 + b1 * tc
        cross_above = top > 0
        # lines crossing at or below zero: the sum of two hinges
        below = ~cross_above
        a_list += [a1[below], a2[below]]
        b_list += [b1[below], b2[below]]
        w_list += [w_cl[below], w_cl[below]]
        # crossing above zero: top + |t - tc| = top + max(0, t - tc) + max(0, tc - t)
        above = cross_above
        a_list += [-tc[above], tc[above]]
        b_list += [np.ones(int(above.sum())), -np.ones(int(above.sum()))]
        w_list += [w_cl[above], w_cl[above]]
        return np.concatenate(a_list), np.concatenate(b_list), np.concatenate(w_list)


def _components(F: Array, component: Index, cannot: Index) -> tuple[Array, list[list[int]]]:
    """Summed scores of each must-link component and the components each is cannot-linked to."""
    n_comp = int(component.max()) + 1 if component.size else 0
    S = np.zeros((n_comp, F.shape[1]))
    np.add.at(S, component, F)
    apart: list[list[int]] = [[] for _ in range(n_comp)]
    for a, b in cannot.tolist():
        apart[a].append(b)
        apart[b].append(a)
    return S, apart


def honour_pairs(F: Array, component: Index, cannot: Index) -> Index:
    """Labels of the constrained rows that keep every must-link and repair cannot-links.

    Each must-link component takes its best shared cluster (the argmax of its
    members' summed scores: the pair margin's best allowed joint label for a
    must-link); then each cannot-link whose two components share a cluster
    moves, of the two, the one that loses the least summed score to its best
    cluster that breaks none of its cannot-links (greedy, in the order given;
    a cannot-link no such move repairs is left broken).

    Parameters
    ----------
    F : ndarray of shape (r, k)
        Scores of the constrained rows (binary: :func:`two_outputs`).
    component : ndarray of shape (r,)
        Must-link component of each row (``0 .. c - 1``).
    cannot : ndarray of shape (e, 2)
        Pairs of components joined by a cannot-link.

    Returns
    -------
    labels : ndarray of shape (r,)
    """
    S, apart = _components(F, component, cannot)
    label = np.argmax(S, axis=1).astype(np.intp)
    for a, b in cannot.tolist():
        if label[a] != label[b]:
            continue
        best: tuple[float, int, int] | None = None
        for c in (a, b):
            taken = {int(label[o]) for o in apart[c]}
            for r in np.argsort(-S[c], kind="stable"):
                if int(r) not in taken:
                    loss = float(S[c, label[c]] - S[c, r])
                    if best is None or loss < best[0]:
                        best = (loss, c, int(r))
                    break
        if best is not None:
            label[best[1]] = best[2]
    return label[component]


def assign_in_order(F: Array, component: Index, cannot: Index) -> Index:
    """Labels of the constrained rows, placing the must-link components one at a time.

    The assignment rule of COP-KMeans (Wagstaff et al. 2001) on given scores:
    the components, most confident first (the gap between their two best summed
    scores), each take their best cluster that none of their already placed
    cannot-linked components holds (their best cluster when every cluster is
    held: that cannot-link is left broken). Where many cannot-links join
    components that share a cluster, moving one component at a time
    (:func:`honour_pairs`) can find no free cluster for either end, while
    placing them in turn still finds one.

    Parameters
    ----------
    F : ndarray of shape (r, k)
        Scores of the constrained rows.
    component : ndarray of shape (r,)
        Must-link component of each row (``0 .. c - 1``).
    cannot : ndarray of shape (e, 2)
        Pairs of components joined by a cannot-link.

    Returns
    -------
    labels : ndarray of shape (r,)
    """
    S, apart = _components(F, component, cannot)
    n_comp = S.shape[0]
    top = -np.sort(-S, axis=1)
    gap = top[:, 0] - top[:, 1] if S.shape[1] > 1 else np.zeros(n_comp)
    label = np.full(n_comp, -1, dtype=np.intp)
    for c in np.argsort(-gap, kind="stable").tolist():
        taken = {int(label[o]) for o in apart[c]}
        ranked = np.argsort(-S[c], kind="stable")
        label[c] = next((int(r) for r in ranked if int(r) not in taken), int(ranked[0]))
    return label[component]

"""Linear constraints of maximum margin clustering: class balance and pairwise links.

Balance (BMMC eq. 3 and 21). Write the linear scores as
``f_r(x) = w_r . (x - xbar) + t_r`` with ``xbar`` the data mean, so that
``t_r = (1/n) sum_i f_r(x_i)`` is the mean score of output ``r``. Then

- binary (one output):  ``-l <= sum_i f(x_i) <= l``  is the box  ``|t| <= l / n``;
- multiclass (k outputs): ``|sum_i f_p(x_i) - sum_i f_q(x_i)| <= l`` for all ``p, q`` is
  ``max_r t_r - min_r t_r <= l / n``. The margin and pair losses read only
  differences of scores, so a common shift of all ``t_r`` changes neither the
  labels nor the objective: the set is represented by the box
  ``|t_r| <= l / (2 n)`` (the range set's points shifted to a centred range),
  ``2 k`` rows instead of the ``k (k - 1)`` pairwise ones. The two give the same
  minimum; the box's dual has ``2 k`` balance multipliers with one optimal value
  each, where the pairwise rows' are a degenerate transport problem on which the
  active-set QP stalled (156 multipliers at ``k = 13``).

The balance constraint therefore only involves the ``k`` numbers ``t`` (never
``w``), which keeps the bundle QP small; see :mod:`marginclust.solvers._qp`.
The usual offsets are ``b_r = t_r - w_r . xbar``.

Pairs (BMMC Sec. IV): must-link (``z = +1``) and cannot-link (``z = -1``)
index pairs ``(u, v)``. Must-links are closed transitively (components), a
cannot-link inside a component is a contradiction, and a cannot-link between
two rows holds between their components (:func:`close_pairs`,
:func:`closed_pairs`); their loss is in :mod:`._pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils import check_pairs

__all__ = [
    "BalanceSet",
    "PairClosure",
    "PairSet",
    "check_two_clusters",
    "close_pairs",
    "closed_pairs",
    "make_balance",
    "make_pairs",
    "resolve_balance",
]


@dataclass(frozen=True)
class BalanceSet:
    """The polyhedron ``{t : G t <= h, E t = e}`` of admissible mean scores.

    Attributes
    ----------
    G : ndarray of shape (n_ineq, q)
    h : ndarray of shape (n_ineq,)
    E : ndarray of shape (n_eq, q)
    e : ndarray of shape (n_eq,)
    bound : float
        The bound ``l / n`` on (differences of) mean scores.
    shift_free : bool
        The objective ignores a common shift of ``t``: the set stands for every
        ``t`` whose shift lies in it (multiclass; :func:`make_balance`).
    """

    G: npt.NDArray[np.float64]
    h: npt.NDArray[np.float64]
    E: npt.NDArray[np.float64]
    e: npt.NDArray[np.float64]
    bound: float
    shift_free: bool = False

    def normalise(self, t: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``t`` in the reported normalisation: with ``shift_free``, shifted to mean zero.

        The solvers return a point of the box; the fitted offsets keep the
        convention ``sum_r t_r = 0`` (same labels, same objective).
        """
        t = np.asarray(t, dtype=np.float64).ravel()
        return t - t.mean() if self.shift_free else t

    def violation(self, t: npt.ArrayLike) -> float:
        """Largest violation of the constraints at ``t`` (0 when feasible).

        With ``shift_free``, the excess of the range of ``t`` over ``bound``.
        """
        t = np.asarray(t, dtype=np.float64).ravel()
        if self.shift_free:
            return max(0.0, float(t.max() - t.min()) - self.bound)
        v = 0.0
        if self.G.shape[0]:
            v = max(v, float(np.max(self.G @ t - self.h)))
        if self.E.shape[0]:
            v = max(v, float(np.max(np.abs(self.E @ t - self.e))))
        return v


def resolve_balance(balance: object, n_samples: int) -> float:
    """The absolute bound ``l`` of the balance constraint.

    Parameters
    ----------
    balance : int or float
        An int ``>= 0`` is the absolute bound ``l`` of BMMC eq. (3); a float in
        ``(0, 1]`` is a fraction of ``n_samples`` (the estimators check the value,
        :func:`marginclust.estimators._balance.mean_output_balance`).
    n_samples : int
        Number of samples.

    Returns
    -------
    l : float
    """
    if isinstance(balance, Integral):
        return float(balance)
    return float(balance) * n_samples  # type: ignore[arg-type]


def make_balance(n_outputs: int, bound: float) -> BalanceSet:
    """Balance polyhedron for ``n_outputs`` mean scores (1 = binary).

    Parameters
    ----------
    n_outputs : int
        1 for the binary model, ``k >= 2`` for the multiclass model.
    bound : float
        ``l / n``.

    Returns
    -------
    balance : BalanceSet
    """
    if n_outputs == 1:
        G = np.array([[1.0], [-1.0]])
        h = np.array([bound, bound])
        return BalanceSet(G, h, np.zeros((0, 1)), np.zeros(0), bound)
    k = n_outputs
    G = np.vstack([np.eye(k), -np.eye(k)])
    h = np.full(2 * k, 0.5 * bound)
    return BalanceSet(G, h, np.zeros((0, k)), np.zeros(0), bound, shift_free=True)


@dataclass(frozen=True)
class PairClosure:
    """Must-link components and the cannot-links between them (the closure of a pair set).

    Must-link is an equivalence: its transitive closure partitions the constrained
    rows into components (a row in no must-link is a component of its own). A
    cannot-link between two rows is then one between their components: every
    member of one cannot share a cluster with any member of the other.

    Attributes
    ----------
    rows : ndarray of shape (r,)
        The constrained rows, sorted.
    component : ndarray of shape (r,)
        The component of each of ``rows`` (``0 .. n_components - 1``).
    n_components : int
        Number of components.
    cannot : ndarray of shape (e, 2)
        Pairs of components joined by at least one cannot-link (each once, ``a < b``).
    """

    rows: npt.NDArray[np.intp]
    component: npt.NDArray[np.intp]
    n_components: int
    cannot: npt.NDArray[np.intp]

    def members(self) -> list[npt.NDArray[np.intp]]:
        """The rows of each component, in component order."""
        order = np.argsort(self.component, kind="stable")
        bounds = np.cumsum(np.bincount(self.component, minlength=self.n_components))[:-1]
        return np.split(self.rows[order], bounds)

    def labels_of(self, n_samples: int) -> npt.NDArray[np.intp]:
        """Component of every sample: ``-1`` for an unconstrained row."""
        out = np.full(n_samples, -1, dtype=np.intp)
        out[self.rows] = self.component
        return out


@dataclass(frozen=True)
class PairSet:
    """Must-link and cannot-link pairs as ``(u, v, z)`` arrays, with their closure."""

    u: npt.NDArray[np.intp]
    v: npt.NDArray[np.intp]
    z: npt.NDArray[np.float64]
    closure: PairClosure | None = None

    @property
    def size(self) -> int:
        """Number of pairs ``m``."""
        return int(self.u.size)


def _must_link_path(ml: npt.NDArray[np.intp], a: int, b: int) -> list[int]:
    """A chain of must-links from row ``a`` to row ``b`` (for the error message)."""
    adj: dict[int, list[int]] = {}
    for x, y in ml.tolist():
        adj.setdefault(x, []).append(y)
        adj.setdefault(y, []).append(x)
    prev = {a: a}
    queue = [a]
    for node in queue:
        if node == b:
            break
        for nxt in adj.get(node, []):
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    path = [b]
    while path[-1] != a:
        path.append(prev[path[-1]])
    return path[::-1]


def close_pairs(ml: npt.NDArray[np.intp], cl: npt.NDArray[np.intp]) -> PairClosure:
    """Transitive closure of must-links and the cannot-links it implies between components.

    Parameters
    ----------
    ml, cl : ndarray of shape (n_pairs, 2)
        Validated must-link and cannot-link index pairs.

    Returns
    -------
    closure : PairClosure

    Raises
    ------
    ValueError
        If a cannot-link joins two rows of one must-link component (the set is
        contradictory); the message shows the chain of must-links.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rows = np.unique(np.concatenate([ml.ravel(), cl.ravel()])).astype(np.intp)
    r = rows.size
    mu, mv = np.searchsorted(rows, ml[:, 0]), np.searchsorted(rows, ml[:, 1])
    graph = coo_matrix((np.ones(mu.size), (mu, mv)), shape=(r, r))
    n_comp, comp = connected_components(graph, directed=False)
    comp = comp.astype(np.intp)
    ca = comp[np.searchsorted(rows, cl[:, 0])]
    cb = comp[np.searchsorted(rows, cl[:, 1])]
    inside = np.flatnonzero(ca == cb)
    if inside.size:
        a, b = (int(i) for i in cl[inside[0]])
        chain = " - ".join(map(str, _must_link_path(ml, a, b)))
        raise ValueError(
            f"The pairs are contradictory: {inside.size} cannot-link pair(s) join samples that "
            f"must-links put together, e.g. cannot_link ({a}, {b}) while must-links chain "
            f"{chain}. Remove one of these constraints."
        )
    cannot = np.unique(np.sort(np.column_stack([ca, cb]), axis=1), axis=0).astype(np.intp)
    return PairClosure(rows, comp, int(n_comp), cannot.reshape(-1, 2))


def check_two_clusters(closure: PairClosure) -> None:
    """Raise if the cannot-links cannot be satisfied by two clusters (an odd cycle).

    With two clusters a cannot-link puts its components on opposite sides, so the
    graph of cannot-links between must-link components must be bipartite.

    Raises
    ------
    ValueError
        On an odd cycle of cannot-links (the message names one).
    """
    adj: dict[int, list[int]] = {}
    for a, b in closure.cannot.tolist():
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    side: dict[int, int] = {}
    for start in adj:
        if start in side:
            continue
        side[start] = 0
        queue = [start]
        for node in queue:
            for nxt in adj[node]:
                if nxt not in side:
                    side[nxt] = 1 - side[node]
                    queue.append(nxt)
                elif side[nxt] == side[node]:
                    members = closure.members()
                    ra, rb = int(members[node][0]), int(members[nxt][0])
                    raise ValueError(
                        "The cannot-links cannot all hold with n_clusters=2: they form an odd "
                        f"cycle of must-link components (e.g. samples {ra} and {rb} must be "
                        "apart, yet other cannot-links put them on the same side). Remove a "
                        "cannot-link of the cycle or ask for more clusters."
                    )


def make_pairs(
    must_link: Any, cannot_link: Any, n_samples: int, n_clusters: int | None = None
) -> PairSet:
    """Validate must-link (``z = +1``) and cannot-link (``z = -1``) pairs and close them.

    The one validation of pairs for every estimator that takes them.

    Parameters
    ----------
    must_link, cannot_link : array-like of shape (n_pairs, 2) or None
        Index pairs into the rows of ``X``.
    n_samples : int
        Number of samples.
    n_clusters : int or None, default=None
        The number of clusters asked for: with 2, cannot-links that no two
        clusters can satisfy (:func:`check_two_clusters`) are an error too.

    Returns
    -------
    pairs : PairSet
        The pairs as given (must-links first) and their :class:`PairClosure`.

    Raises
    ------
    ValueError
        On malformed pairs (shape, non-integer or out-of-range indices, a row
        linked to itself), a cannot-link inside a must-link component, or (with
        ``n_clusters=2``) an odd cycle of cannot-links.
    """
    ml = check_pairs(must_link, n_samples, "must_link")
    cl = check_pairs(cannot_link, n_samples, "cannot_link")
    u = np.concatenate([ml[:, 0], cl[:, 0]]).astype(np.intp)
    v = np.concatenate([ml[:, 1], cl[:, 1]]).astype(np.intp)
    z = np.concatenate([np.ones(ml.shape[0]), -np.ones(cl.shape[0])])
    closure = close_pairs(ml, cl) if u.size else None
    if n_clusters == 2 and closure is not None:
        check_two_clusters(closure)
    return PairSet(u, v, z, closure)


def closed_pairs(pairs: PairSet, X: Any) -> PairSet:
    """The pairs the objective uses: the closure, one pair per must-link edge of a star.

    Every must-link component becomes a star around its member nearest the
    component's mean (its size minus one must-links; all of the closure's
    must-links hold exactly when these do), and every pair of components joined
    by a cannot-link one cannot-link between their centres (with the stars, all
    the implied cannot-links hold exactly when these do). The set is never
    larger than the pairs given, and the same whatever order they came in.

    Parameters
    ----------
    pairs : PairSet
        Pairs from :func:`make_pairs`.
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data (to find each component's centre).

    Returns
    -------
    pairs : PairSet
        Must-links first, then cannot-links; ``closure`` kept.
    """
    import scipy.sparse as sp

    closure = pairs.closure
    if closure is None:
        return pairs
    rows, comp = closure.rows, closure.component
    sizes = np.bincount(comp, minlength=closure.n_components)
    by_comp = np.argsort(comp, kind="stable")  # members of each component, in row order
    starts = np.cumsum(sizes) - sizes
    centre = rows[by_comp[starts]]  # the first member; the one nearest the mean from 3 on
    for c in np.flatnonzero(sizes > 2):
        members = rows[by_comp[starts[c] : starts[c] + sizes[c]]]
        Xc = X[members]
        Xc = Xc.toarray() if sp.issparse(Xc) else np.asarray(Xc, dtype=np.float64)
        dist = ((Xc - Xc.mean(axis=0)) ** 2).sum(axis=1)
        centre[c] = members[int(np.argmin(dist))]
    # the star's edges, component by component: every member but the centre
    spoke = by_comp[rows[by_comp] != centre[comp[by_comp]]]
    mu = [centre[comp[spoke]]]
    mv = [rows[spoke]]
    cu, cv = centre[closure.cannot[:, 0]], centre[closure.cannot[:, 1]]
    u = np.concatenate([*mu, cu]).astype(np.intp)
    v = np.concatenate([*mv, cv]).astype(np.intp)
    n_ml = u.size - cu.size
    z = np.concatenate([np.ones(n_ml), -np.ones(cu.size)])
    return PairSet(u, v, z, closure)

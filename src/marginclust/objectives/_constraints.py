"""Linear constraints of maximum margin clustering: class balance and pairwise links.

Balance (BMMC eq. 3 and 21). Write the linear scores as
``f_r(x) = w_r . (x - xbar) + t_r`` with ``xbar`` the data mean, so that
``t_r = (1/n) sum_i f_r(x_i)`` is the mean score of output ``r``. Then

- binary (one output):  ``-l <= sum_i f(x_i) <= l``  is the box  ``|t| <= l / n``;
- multiclass (k outputs): ``|sum_i f_p(x_i) - sum_i f_q(x_i)| <= l`` for all ``p, q`` is
  ``t_p - t_q <= l / n`` for all ordered pairs ``p != q``. A common shift of all ``t_r``
  does not change the labels, so it is fixed by ``sum_r t_r = 0``.

The balance constraint therefore only involves the ``k`` numbers ``t`` (never
``w``), which keeps the bundle QP small; see :mod:`marginclust.solvers._qp`.
The usual offsets are ``b_r = t_r - w_r . xbar``.

Pairs (BMMC Sec. IV): must-link (``z = +1``) and cannot-link (``z = -1``)
index pairs ``(u, v)``, penalised by ``|f(x_u) - z f(x_v)|``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils import check_pairs

__all__ = ["BalanceSet", "PairSet", "make_balance", "make_pairs", "resolve_balance"]


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
    """

    G: npt.NDArray[np.float64]
    h: npt.NDArray[np.float64]
    E: npt.NDArray[np.float64]
    e: npt.NDArray[np.float64]
    bound: float

    def violation(self, t: npt.ArrayLike) -> float:
        """Largest violation of the constraints at ``t`` (0 when feasible)."""
        t = np.asarray(t, dtype=np.float64).ravel()
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
    rows = [(p, q) for p in range(k) for q in range(k) if p != q]
    G = np.zeros((len(rows), k))
    for i, (p, q) in enumerate(rows):
        G[i, p], G[i, q] = 1.0, -1.0
    h = np.full(len(rows), bound)
    return BalanceSet(G, h, np.ones((1, k)), np.zeros(1), bound)


@dataclass(frozen=True)
class PairSet:
    """Must-link and cannot-link pairs as ``(u, v, z)`` arrays."""

    u: npt.NDArray[np.intp]
    v: npt.NDArray[np.intp]
    z: npt.NDArray[np.float64]

    @property
    def size(self) -> int:
        """Number of pairs ``m``."""
        return int(self.u.size)


def make_pairs(must_link: Any, cannot_link: Any, n_samples: int) -> PairSet:
    """Validate and merge must-link (``z = +1``) and cannot-link (``z = -1``) pairs.

    Parameters
    ----------
    must_link, cannot_link : array-like of shape (n_pairs, 2) or None
        Index pairs into the rows of ``X``.
    n_samples : int
        Number of samples.

    Returns
    -------
    pairs : PairSet

    Raises
    ------
    ValueError
        On malformed pairs, or a pair that is both must-link and cannot-link.
    """
    ml = check_pairs(must_link, n_samples, "must_link")
    cl = check_pairs(cannot_link, n_samples, "cannot_link")
    if ml.size and cl.size:
        key = lambda P: set(map(tuple, np.sort(P, axis=1).tolist()))  # noqa: E731
        both = key(ml) & key(cl)
        if both:  # the user's pairs (data of fit) contradict each other: no model has them
            raise ValueError(
                f"{len(both)} pair(s) are both must-link and cannot-link (e.g. {sorted(both)[0]}); "
                "the constraints are contradictory."
            )
    u = np.concatenate([ml[:, 0], cl[:, 0]]).astype(np.intp)
    v = np.concatenate([ml[:, 1], cl[:, 1]]).astype(np.intp)
    z = np.concatenate([np.ones(ml.shape[0]), -np.ones(cl.shape[0])])
    return PairSet(u, v, z)

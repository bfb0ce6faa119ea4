"""Fuzzy c-means math: J_m, centre and membership updates (pure functions, no loops).

Notation: ``X`` is n x d, centres ``V`` are K x d, memberships ``U`` are n x K with
rows on the simplex, ``w`` are sample weights. With a distance ``D_ik`` between
sample ``i`` and centre ``k``,

    J_m(U, V) = sum_i w_i sum_k u_ik^m D_ik.

- Euclidean FCM: ``D_ik = ||x_i - v_k||^2``.
- Kernel FCM / kernel K-means with centres in data space (SLMC eq. 15) and the RBF
  kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``:
  ``D_ik = ||phi(x_i) - phi(v_k)||^2 = 2 (1 - k(x_i, v_k))``.

For fixed distances the optimal memberships are
``u_ik = D_ik^(-1/(m-1)) / sum_r D_ir^(-1/(m-1))`` (computed with a log-sum-exp style
shift; a sample at zero distance from some centres splits its membership equally
among them). For fixed
memberships the Euclidean centres are the weighted means with weights ``w_i u_ik^m``.
In the kernel case the centre step is the majorise-minimise (fixed-point) update
``v_k = sum_i a_ik x_i / sum_i a_ik`` with ``a_ik = w_i u_ik^m k(x_i, v_k)``: since
``1 - exp(-t / (2 sigma^2))`` is concave in ``t = ||x - v||^2`` its tangent majorises it,
and the weighted mean minimises the tangent bound, so the step cannot increase J.

Layout: the public functions take n x K arrays (samples as rows). With
``transposed=True`` they take and return K x n arrays instead: the reductions over
the clusters then run along the long contiguous axis, several times faster for the
small K of clustering, which is what the estimators' loops use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "FuzzyProblem",
    "KernelKMeansProblem",
    "membership_floor",
    "memberships_into",
    "fcm_objective",
    "kernel_distances",
    "log_weighted_means",
    "memberships_from_distances",
    "safe_log",
    "squared_distances",
]


def squared_distances(
    X: npt.NDArray[np.floating],
    V: npt.NDArray[np.floating],
    X_sq: npt.NDArray | None = None,
    *,
    transposed: bool = False,
) -> npt.NDArray[np.floating]:
    """Squared Euclidean distances ``||x_i - v_k||^2``, BLAS-shaped, clipped at 0.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    V : ndarray of shape (n_clusters, n_features)
    X_sq : ndarray of shape (n_samples,), default=None
        Precomputed row norms ``||x_i||^2`` (saves one pass per iteration).
    transposed : bool, default=False
        Return the K x n matrix instead of n x K.

    Returns
    -------
    D2 : ndarray of shape (n_samples, n_clusters), or (n_clusters, n_samples)
        Dtype of ``X``.
    """
    if X_sq is None:
        X_sq = np.einsum("ij,ij->i", X, X)
    V_sq = np.einsum("ij,ij->i", V, V)
    if transposed:
        D2 = V @ X.T
        D2 *= -2.0
        D2 += X_sq[None, :]
        D2 += V_sq[:, None]
    else:
        D2 = X @ V.T
        D2 *= -2.0
        D2 += X_sq[:, None]
        D2 += V_sq[None, :]
    np.maximum(D2, 0.0, out=D2)
    return D2


def kernel_distances(
    D2: npt.NDArray[np.floating], sigma: float, *, return_kernel: bool = False
) -> npt.NDArray[np.floating] | tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    """RBF kernel-space distances ``2 (1 - exp(-D2 / (2 sigma^2)))`` (``expm1``, exact near 0).

    With ``return_kernel=True`` also return the kernel values ``exp(-D2 / (2 sigma^2))``,
    computed by their own ``exp`` (``1 + expm1`` would lose the small values that
    weigh far samples).
    """
    gamma = 1.0 / (2.0 * sigma * sigma)
    E = np.multiply(D2, -gamma)
    D = np.expm1(E)
    D *= -2.0
    if not return_kernel:
        return D
    np.exp(E, out=E)
    return D, E


def memberships_from_distances(
    D: npt.NDArray[np.floating],
    m: float,
    *,
    return_cost: bool = False,
    transposed: bool = False,
) -> npt.NDArray[np.floating] | tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    """Optimal memberships for fixed distances (the FCM U-step), overflow-free.

    ``u_ik = D_ik^(-p) / sum_r D_ir^(-p)`` with ``p = 1/(m-1)``. This is the log-space
    (log-sum-exp) computation with its usual max-shift, done multiplicatively: each
    sample's distances are divided by their minimum first, so every ratio
    ``r_ik >= 1``, ``r_ik^(-p)`` lies in ``(0, 1]``, the sum is at least 1, and nothing
    overflows or divides by zero whatever ``m`` and the scale of the data (tiny
    memberships may underflow to 0, which is their value to machine precision).

    Parameters
    ----------
    D : ndarray of shape (n_samples, n_clusters)
        Non-negative distances (squared Euclidean, or kernel-space); shape
        (n_clusters, n_samples) with ``transposed=True``.
    m : float
        Fuzzifier, ``m > 1``.
    return_cost : bool, default=False
        Also return the per-sample cost ``sum_k u_ik^m D_ik`` at these optimal
        memberships, which has the closed form ``min_k D_ik * s_i^(1-m)`` with
        ``s_i = sum_k r_ik^(-p)`` (0 for a sample at zero distance).
    transposed : bool, default=False
        ``D`` (and the returned ``U``) are K x n.

    Returns
    -------
    U : ndarray, same shape as ``D``
        Memberships of each sample sum to one. A sample at zero distance from some
        centres splits its membership equally among them (the limit of the formula).
    cost : ndarray of shape (n_samples,)
        Only with ``return_cost=True``.
    """
    ax = 0 if transposed else 1
    p = 1.0 / (m - 1.0)
    dmin = D.min(axis=ax)
    # Fast path: when no D_ik^(-p) can overflow (the smallest distance is not tiny) the
    # shift by the row minimum is not needed: u = D^-p / sum D^-p, cost = s^(1-m).
    # Same values up to rounding; the shifted computation below handles the rest.
    k = D.shape[ax]
    with np.errstate(over="ignore", divide="ignore"):
        floor = float(np.finfo(D.dtype).max / (4.0 * k)) ** (-1.0 / p)
    if dmin.size and float(dmin.min()) > floor:
        if p == 1.0:
            R = np.divide(1.0, D)
        else:
            with np.errstate(under="ignore"):
                R = np.power(D, -p)
        s = R.sum(axis=ax)
        # (every D^(-p) of a sample underflowing, e.g. float32 with m near 1: the
        # shifted computation below)
        if float(s.min()) > _normal_sum(D.dtype):
            inv = np.divide(1.0, s)
            R *= inv[None, :] if transposed else inv[:, None]
            if not return_cost:
                return R
            if m == 2.0:
                cost = inv.astype(np.float64)
            else:
                cost = np.power(s.astype(np.float64), 1.0 - m)
            return R, cost
    zero = dmin <= 0
    any_zero = bool(zero.any())
    scale = np.where(zero, 1.0, dmin).astype(D.dtype, copy=False)
    scale_b = scale[None, :] if transposed else scale[:, None]
    with np.errstate(over="ignore"):  # a ratio beyond the float range -> inf -> u = 0
        R = D / scale_b
    if any_zero:
        if transposed:
            R[:, zero] = 1.0
        else:
            R[zero] = 1.0
    if p == 1.0:
        np.divide(1.0, R, out=R)
    else:
        np.power(R, -p, out=R)
    s = R.sum(axis=ax)
    R /= s[None, :] if transposed else s[:, None]
    if any_zero:
        if transposed:
            Z = (D[:, zero] <= 0).astype(R.dtype)
            R[:, zero] = Z / Z.sum(axis=0, keepdims=True)
        else:
            Z = (D[zero] <= 0).astype(R.dtype)
            R[zero] = Z / Z.sum(axis=1, keepdims=True)
    if not return_cost:
        return R
    cost = dmin.astype(np.float64) * np.power(s.astype(np.float64), 1.0 - m)
    if any_zero:
        cost[zero] = 0.0
    return R, cost


def fcm_objective(
    D: npt.NDArray[np.floating],
    U: npt.NDArray[np.floating],
    m: float,
    sample_weight: npt.NDArray[np.floating] | None = None,
) -> float:
    """``J_m = sum_i w_i sum_k u_ik^m D_ik`` (accumulated in float64; any layout).

    Literal oracle of the per-sample cost of :func:`memberships_from_distances`
    (the closed form the solvers sum); used by the tests.

    Parameters
    ----------
    D : ndarray of shape (n_samples, n_clusters)
    U : ndarray of shape (n_samples, n_clusters)
    m : float
        Fuzzifier (``m = 1`` with crisp ``U`` gives the K-means cost).
    sample_weight : ndarray of shape (n_samples,), default=None

    Returns
    -------
    J : float
    """
    per_sample = np.einsum("ik,ik->i", np.power(U, m, dtype=np.float64), D.astype(np.float64))
    if sample_weight is not None:
        per_sample = per_sample * sample_weight
    return float(per_sample.sum())


def log_weighted_means(
    X: npt.NDArray[np.floating],
    logW: npt.NDArray[np.floating],
    previous: npt.NDArray[np.floating],
    *,
    transposed: bool = False,
) -> npt.NDArray[np.floating]:
    """Centres ``v_k = sum_i a_ik x_i / sum_i a_ik`` from log-weights ``log a_ik``.

    Each cluster's log-weights are shifted by their maximum before exponentiation
    (the scale cancels), so weights that would underflow (e.g. ``u^m`` for large m,
    or a kernel value ``exp(-D2 / (2 sigma^2))`` with a small sigma) still give a
    finite centre. A cluster with no positive weight (all ``-inf``) keeps its
    ``previous`` centre.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    logW : ndarray of shape (n_samples, n_clusters), or (n_clusters, n_samples)
        Log-weights; ``-inf`` marks a zero weight.
    previous : ndarray of shape (n_clusters, n_features)
    transposed : bool, default=False
        ``logW`` is K x n.

    Returns
    -------
    V : ndarray of shape (n_clusters, n_features)
    """
    LT = logW if transposed else logW.T
    top = LT.max(axis=1)
    alive = np.isfinite(top)
    shift = np.where(alive, top, 0.0)
    W = np.exp(LT - shift[:, None])
    totals = W.sum(axis=1)
    V = (W @ X) / np.where(alive, totals, 1.0)[:, None]
    if not alive.all():
        V[~alive] = previous[~alive]
    return V.astype(X.dtype, copy=False)


def safe_log(A: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """``log(A)`` with ``-inf`` for zeros and no warning."""
    out = np.full(A.shape, -np.inf, dtype=A.dtype)
    np.log(A, out=out, where=A > 0)
    return out


def membership_floor(dtype: npt.DTypeLike, n_clusters: int, m: float) -> float:
    """Smallest distance for which ``D^(-1/(m-1))`` summed over clusters cannot overflow."""
    p = 1.0 / (m - 1.0)
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        return float(np.finfo(dtype).max / (4.0 * n_clusters)) ** (-1.0 / p)


def memberships_into(
    D: npt.NDArray[np.floating],
    m: float,
    out: npt.NDArray[np.floating],
    floor: float | None = None,
) -> npt.NDArray[np.floating] | None:
    """Optimal memberships of a K x c block of distances written into ``out``, fast.

    ``u_ik = D_ik^(-p) / sum_r D_ir^(-p)`` without the shift by the row minimum, and
    the per-sample cost ``s_i^(1-m)`` (``s_i = sum_r D_ir^(-p)``), both in the dtype
    of ``D``. Valid only when no ``D_ik^(-p)`` can overflow and no distance is zero
    or negative (a rounding artefact): then it returns the cost; otherwise it
    returns ``None`` and leaves ``out`` unspecified, and the caller uses
    :func:`memberships_from_distances`.

    The only transcendental work over the K x c block is ``D^(-p)``, and none for
    the exponents with a cheaper exact form: ``p = 1`` (``m = 2``: a reciprocal),
    ``p = 2`` (``m = 1.5``: reciprocal, square) and ``p = 1/2`` (``m = 3``: square
    root, reciprocal). The per-sample cost needs one power over c values only.

    Parameters
    ----------
    D : ndarray of shape (n_clusters, n_samples)
        Squared (or kernel) distances, transposed layout.
    m : float
        Fuzzifier > 1.
    out : ndarray, same shape and dtype as ``D``
        Receives the memberships (may be a strided view).
    floor : float, default=None
        :func:`membership_floor` of this dtype, K and m (computed if None).

    Returns
    -------
    cost : ndarray of shape (n_samples,) or None
        Dtype of ``D``.
    """
    p = 1.0 / (m - 1.0)
    if floor is None:
        floor = membership_floor(D.dtype, D.shape[0], m)
    if D.size == 0 or not float(D.min()) > floor:
        return None
    tiny = _normal_sum(D.dtype)
    # 1 / x as a division: the same correctly rounded value as np.reciprocal, whose
    # float loops are not vectorised (about twice the time of a division by NumPy's SIMD loop)
    if p == 1.0:
        np.divide(1.0, D, out=out)
    elif p == 2.0:
        np.divide(1.0, D, out=out)
        out *= out
    elif p == 0.5:
        np.sqrt(D, out=out)
        np.divide(1.0, out, out=out)
    else:
        with np.errstate(under="ignore"):
            np.power(D, -p, out=out)
    s = out.sum(axis=0)
    if not float(s.min()) > tiny:  # every D^(-p) of a sample (nearly) underflows: shift
        return None
    inv = np.divide(1.0, s)
    out *= inv
    if m == 2.0:
        return inv
    return np.power(s.astype(np.float64), 1.0 - m).astype(D.dtype, copy=False)


def _normal_sum(dtype: npt.DTypeLike) -> float:
    """Smallest ``sum_r D_ir^(-p)`` the unshifted formula keeps to full precision."""
    info = np.finfo(dtype)
    return float(info.tiny) / float(info.eps)


# ---------------------------------------------------------------------------
# The problem objects the solvers are handed: a solver of solvers/ reaches the model
# only through these methods, never by importing this module.
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FuzzyProblem:
    """(Kernel) fuzzy c-means at fuzzifier ``m``, as its block solvers see it.

    :mod:`marginclust.solvers._fuzzy` computes the distances and the centre sums
    of each row block; the membership update, its overflow floor and the
    log-space centres come from here.

    Parameters
    ----------
    m : float
        Fuzzifier ``> 1``.
    """

    m: float

    def floor(self, dtype: npt.DTypeLike, n_clusters: int) -> float:
        """:func:`membership_floor` at this ``m``."""
        return membership_floor(dtype, n_clusters, self.m)

    def memberships_into(
        self, D: npt.NDArray[np.floating], out: npt.NDArray[np.floating], floor: float
    ) -> npt.NDArray[np.floating] | None:
        """:func:`memberships_into` (the fast update; None where it does not apply)."""
        return memberships_into(D, self.m, out, floor)

    def memberships(
        self, D: npt.NDArray[np.floating]
    ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
        """:func:`memberships_from_distances` of a K x c block, with the per-sample cost."""
        U, cost = memberships_from_distances(D, self.m, return_cost=True, transposed=True)
        return U, cost

    def log_centres(
        self,
        X: npt.NDArray[np.floating],
        Ut: npt.NDArray[np.floating],
        w: npt.NDArray[np.floating],
        V: npt.NDArray[np.floating],
        log_kernel: npt.NDArray[np.floating] | None = None,
    ) -> npt.NDArray[np.floating]:
        """Centres of weights ``w u^m`` (times ``exp(log_kernel)``) from their logarithms.

        For clusters whose weights underflow: ``Ut`` is K x n, ``V`` the previous
        centres (kept by a cluster with no positive weight).
        """
        logW = safe_log(w)[None, :] + self.m * safe_log(Ut)
        if log_kernel is not None:
            logW = logW + log_kernel
        return log_weighted_means(X, logW, V, transposed=True)


@dataclass(frozen=True)
class KernelKMeansProblem:
    """Kernel K-means with centres in data space (RBF ``exp(-gamma ||x - v||^2)``).

    :func:`marginclust.solvers._kernel_kmeans.kernel_kmeans_alternation` assigns
    by the squared distances and scores by the kernel distances of this object.

    Parameters
    ----------
    gamma : float
        RBF coefficient ``> 0``.
    """

    gamma: float

    def sq_distances(
        self, X: npt.NDArray[np.floating], V: npt.NDArray[np.floating], X_sq: npt.NDArray
    ) -> npt.NDArray[np.floating]:
        """:func:`squared_distances`, K x n."""
        return squared_distances(X, V, X_sq, transposed=True)

    def costs(self, D2: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
        """Kernel distances ``2 (1 - k)`` of squared distances (:func:`kernel_distances`)."""
        return np.asarray(kernel_distances(D2, float(np.sqrt(0.5 / self.gamma))))

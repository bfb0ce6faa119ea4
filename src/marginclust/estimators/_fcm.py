"""Fuzzy c-means and kernel fuzzy c-means (RBF kernel, centres in data space).

The math (objective, closed-form steps) lives in :mod:`marginclust.objectives._fcm`;
this module holds the alternating loop and the public estimators.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.cluster import kmeans_plusplus

from ..base import BaseClusterer, SoftClusterMixin
from ..feature_maps._kernel import mean_pairwise_distance
from ..objectives._fcm import (
    fcm_centers,
    kernel_distances,
    kernel_fcm_centers,
    memberships_from_distances,
    squared_distances,
)
from ..solvers import SolverResult
from ..utils import check_memberships, check_positive

__all__ = ["FuzzyCMeans", "KernelFuzzyCMeans"]


# ------------------------------------------------------------------ helpers
def check_sample_weight(sample_weight: Any, X: np.ndarray) -> np.ndarray:
    """Validate ``sample_weight`` (None -> ones) as a non-negative finite 1-D array."""
    n = X.shape[0]
    if sample_weight is None:
        return np.ones(n, dtype=X.dtype)
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        sw = np.full(n, float(sample_weight), dtype=X.dtype)
    else:
        sw = np.asarray(sample_weight)
        if sw.dtype.kind not in "fiub":
            raise ValueError(f"sample_weight must be numeric; got dtype {sw.dtype}.")
        sw = sw.astype(X.dtype)
    if sw.shape != (n,):
        raise ValueError(
            f"sample_weight must have shape (n_samples,) = ({n},); got {sw.shape}."
        )
    if not np.all(np.isfinite(sw)) or np.any(sw < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    if not np.any(sw > 0):
        raise ValueError(
            "sample_weight is all zero: at least one weight must be positive (zero-weight "
            "samples are ignored by the fit)."
        )
    return sw


def check_init(init: Any, n_clusters: int, X: np.ndarray) -> None:
    """Check ``init`` (a known string, centres (K, d) or memberships (n, K))."""
    if isinstance(init, str):
        if init not in ("k-means++", "random"):
            raise ValueError(
                f"init must be 'k-means++', 'random' or an array of initial centres "
                f"(n_clusters, n_features) or memberships (n_samples, n_clusters); "
                f"got {init!r}."
            )
        return
    arr = np.asarray(init)
    n, d = X.shape
    if arr.ndim != 2 or arr.shape not in ((n_clusters, d), (n, n_clusters)):
        raise ValueError(
            f"An array init must be centres of shape (n_clusters, n_features) = "
            f"({n_clusters}, {d}) or memberships of shape (n_samples, n_clusters) = "
            f"({n}, {n_clusters}); got shape {arr.shape}."
        )
    if arr.dtype.kind not in "fiu" or not np.all(np.isfinite(arr)):
        raise ValueError("An array init must be numeric and finite.")


def initial_point(
    init: Any,
    X: np.ndarray,
    n_clusters: int,
    sample_weight: np.ndarray,
    random_state: np.random.RandomState,
    *,
    allow_memberships: bool = True,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Return ``(centres, None)`` or ``(None, memberships)`` for one restart."""
    n, d = X.shape
    if isinstance(init, str):
        if init == "k-means++":
            centres, _ = kmeans_plusplus(
                X, n_clusters, sample_weight=sample_weight, random_state=random_state
            )
        else:
            p = sample_weight / sample_weight.sum()
            n_pos = int(np.count_nonzero(p))
            idx = random_state.choice(n, size=n_clusters, replace=n_pos < n_clusters, p=p)
            centres = X[idx]
        return np.array(centres, dtype=X.dtype), None
    arr = np.asarray(init, dtype=np.float64)
    if arr.shape == (n_clusters, d):
        return arr.astype(X.dtype), None
    if not allow_memberships:
        raise ValueError(
            f"init must be centres of shape (n_clusters, n_features) = ({n_clusters}, {d}); "
            f"got shape {arr.shape}."
        )
    U = check_memberships(arr, n, n_clusters, name="init")
    return None, U.astype(X.dtype)


def _check_common_params(est: Any) -> None:
    check_positive(est.max_iter, "max_iter", integer=True)
    check_positive(est.tol, "tol", strict=False)


def _check_sigma(sigma: Any) -> None:
    if sigma is not None:
        check_positive(sigma, "sigma")


def _resolve_sigma(est: Any, X: np.ndarray) -> float:
    if est.sigma is not None:
        return float(est.sigma)
    rs = est.random_state if isinstance(est.random_state, numbers.Integral) else 0
    sigma0 = mean_pairwise_distance(X, random_state=rs)
    if not sigma0 > 0:
        raise ValueError("The mean pairwise distance of X is 0; pass sigma explicitly.")
    return sigma0


def fcm_loop(
    X: np.ndarray,
    *,
    n_clusters: int,
    m: float,
    sample_weight: np.ndarray,
    centres: np.ndarray | None,
    memberships: np.ndarray | None,
    max_iter: int,
    tol: float,
    sigma: float | None = None,
) -> SolverResult:
    """Alternate the centre and membership steps of (kernel) FCM.

    Each iteration updates the centres for the current memberships, then the
    memberships for the new centres, and records ``J_m`` (both steps cannot increase
    it). Stops when the largest membership change is below ``tol``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_clusters : int
    m : float
        Fuzzifier > 1.
    sample_weight : ndarray of shape (n_samples,)
    centres, memberships : ndarray or None
        Exactly one is given (the starting point).
    max_iter : int
    tol : float
    sigma : float or None
        ``None``: Euclidean FCM. A float: RBF kernel FCM with centres in data space.

    Returns
    -------
    result : SolverResult
        ``x`` holds ``labels_``, ``memberships_`` and ``cluster_centers_``.
    """
    kernel = sigma is not None
    gamma = 0.0 if sigma is None else 1.0 / (2.0 * sigma * sigma)
    X_sq = np.einsum("ij,ij->i", X, X)
    # K x n layout inside the loop: reductions over clusters run along contiguous rows

    def distances(V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        D2 = squared_distances(X, V, X_sq, transposed=True)
        if not kernel:
            return D2, D2, None
        D, K = kernel_distances(D2, sigma, return_kernel=True)
        return D2, D, K

    if memberships is None:
        V = centres
        D2, D, K = distances(V)
        U = memberships_from_distances(D, m, transposed=True)
    else:
        U = np.ascontiguousarray(memberships.T)
        # starting centres (for the kernel linearisation): the plain FCM weighted means
        V0 = np.zeros((n_clusters, X.shape[1]), X.dtype)
        V = fcm_centers(X, U, m, sample_weight, V0, transposed=True)
        D2, D, K = distances(V)
    history: list[float] = []
    converged = False
    shift = np.inf
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        if kernel:
            V = kernel_fcm_centers(X, U, m, K, sample_weight, V, D2, gamma, transposed=True)
        else:
            V = fcm_centers(X, U, m, sample_weight, V, transposed=True)
        D2, D, K = distances(V)
        U_new, cost = memberships_from_distances(D, m, return_cost=True, transposed=True)
        history.append(float(np.dot(sample_weight.astype(np.float64), cost)))
        shift = float(np.max(np.abs(U_new - U)))
        U = U_new
        if shift <= tol:
            converged = True
            break
    U = np.ascontiguousarray(U.T)
    labels = np.argmax(U, axis=1)
    return SolverResult(
        x={"labels_": labels, "memberships_": U, "cluster_centers_": V},
        objective=history[-1],
        objective_history=np.asarray(history),
        n_iter=n_iter,
        converged=converged,
        stop_crit=shift,
        message=(
            ""
            if converged
            else f"Fuzzy c-means stopped at max_iter={max_iter} with a membership change "
            f"of {shift:.3g} > tol={tol}; increase max_iter or tol."
        ),
    )


# --------------------------------------------------------------- estimators
class FuzzyCMeans(SoftClusterMixin, BaseClusterer):
    """Fuzzy c-means (Bezdek): soft memberships minimising ``J_m``.

    Minimises ``J_m(U, V) = sum_i w_i sum_k u_ik^m ||x_i - v_k||^2`` over memberships
    ``U`` (rows on the simplex) and centres ``V`` by exact alternating minimisation,
    so ``objective_history_`` is non-increasing.

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    m : float, default=2.0
        Fuzzifier, ``m > 1`` (values near 1 give nearly crisp memberships).
    init : {"k-means++", "random"} or array-like, default="k-means++"
        ``"k-means++"``: initial centres by scikit-learn's :func:`~sklearn.cluster.kmeans_plusplus`
        (weighted by ``sample_weight``). ``"random"``: ``n_clusters`` samples drawn
        with probability proportional to ``sample_weight``. An array of shape
        ``(n_clusters, n_features)`` gives initial centres; one of shape
        ``(n_samples, n_clusters)`` gives initial memberships (rows summing to 1).
        If both shapes coincide, the array is read as centres. An array start is
        deterministic, so ``n_init > 1`` repeats the same run.
    max_iter : int, default=300
        Maximum number of (centre, membership) iterations.
    tol : float, default=1e-4
        Stop when the largest change of a membership between two iterations is
        at most ``tol``.
    n_init : int, default=1
        Number of restarts with different seeds; the one with the lowest ``J_m``
        (and all clusters non-empty) is kept.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation.

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships (rows on the simplex), dtype of ``X``.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centres.
    labels_ : ndarray of shape (n_samples,)
        ``argmax`` of the memberships (ties to the lower index).
    objective_ : float
        Final ``J_m``.
    objective_history_ : ndarray of shape (n_iter_,)
        ``J_m`` after each iteration (non-increasing).
    n_iter_ : int
        Iterations run in the kept restart.
    converged_ : bool
        Whether the tolerance was met before ``max_iter``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    KernelFuzzyCMeans : the RBF-kernel variant with centres in data space.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import FuzzyCMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> fcm = FuzzyCMeans(n_clusters=2, random_state=0).fit(X)
    >>> fcm.labels_[0] == fcm.labels_[1] != fcm.labels_[2]
    np.True_
    """

    _min_clusters = 1  # one cluster is well defined (all memberships 1), as in KMeans

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        m: float = 2.0,
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.m = m
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None, *, sample_weight: Any = None) -> FuzzyCMeans:
        """Fit the memberships and centres to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (float64 or float32; float32 is kept).
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``w_i`` in ``J_m``; an integer weight acts as
            repeating the sample.

        Returns
        -------
        self : FuzzyCMeans
            The fitted estimator.
        """
        return self._fit(X, sample_weight=sample_weight)

    def _check_params(self, X: Any) -> None:
        m = check_positive(self.m, "m")
        if m <= 1:
            raise ValueError(f"m (the fuzzifier) must be > 1; got {self.m!r}.")
        _check_common_params(self)
        check_init(self.init, self._n_clusters, X)

    def _sigma(self, X: np.ndarray) -> float | None:
        return None

    def _fit_one(
        self, X: Any, random_state: np.random.RandomState, sample_weight: Any = None
    ) -> SolverResult:
        sw = check_sample_weight(sample_weight, X)
        sigma = self._sigma(X)
        centres, U0 = initial_point(self.init, X, self._n_clusters, sw, random_state)
        res = fcm_loop(
            X,
            n_clusters=self._n_clusters,
            m=float(self.m),
            sample_weight=sw,
            centres=centres,
            memberships=U0,
            max_iter=int(self.max_iter),
            tol=float(self.tol),
            sigma=sigma,
        )
        if sigma is not None:
            res.x["sigma_"] = sigma
        return res

    def _distances(self, X: np.ndarray) -> np.ndarray:
        return squared_distances(X, self.cluster_centers_.astype(X.dtype, copy=False))

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        return memberships_from_distances(self._distances(X), float(self.m))


class KernelFuzzyCMeans(FuzzyCMeans):
    """Kernel fuzzy c-means with an RBF kernel and centres in data space (SLMC eq. 15).

    Minimises ``J(U, V) = sum_i w_i sum_k u_ik^m ||phi(x_i) - phi(v_k)||^2
    = sum_i w_i sum_k u_ik^m 2 (1 - k(x_i, v_k))`` with
    ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``. The membership step is exact; the
    centre step is the fixed-point update ``v_k = sum_i a_ik x_i / sum_i a_ik``,
    ``a_ik = w_i u_ik^m k(x_i, v_k)``, which majorises-minimises J, so
    ``objective_history_`` is non-increasing.

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    m : float, default=2.0
        Fuzzifier, ``m > 1``.
    sigma : float or None, default=None
        RBF width. ``None`` uses ``sigma0``, the mean pairwise distance of the
        training data (unweighted; estimated on 2000 rows drawn with
        ``random_state`` if it is an int, else with seed 0, when there are more;
        see :func:`~marginclust.feature_maps._kernel.mean_pairwise_distance`).
    init : {"k-means++", "random"} or array-like, default="k-means++"
        As in :class:`FuzzyCMeans`.
    max_iter : int, default=300
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when the largest membership change is at most ``tol``.
    n_init : int, default=1
        Number of restarts; the lowest objective is kept.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation (and the sigma0 subsample).

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centres (in data space).
    sigma_ : float
        The kernel width used.
    labels_ : ndarray of shape (n_samples,)
        ``argmax`` of the memberships.
    objective_ : float
        Final objective.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective after each iteration (non-increasing).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the tolerance was met.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    With centres in data space the RBF kernel distance is a monotone function of the
    Euclidean distance, so the crisp labels are those of the nearest centre; the
    kernel changes the memberships (bounded distances damp far points) and the
    centre update (far points get weight ``k(x_i, v_k)``, close to 0).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import KernelFuzzyCMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> kfcm = KernelFuzzyCMeans(n_clusters=2, random_state=0).fit(X)
    >>> kfcm.labels_[0] == kfcm.labels_[1] != kfcm.labels_[2]
    np.True_
    """

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        m: float = 2.0,
        sigma: float | None = None,
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        super().__init__(
            n_clusters,
            m=m,
            init=init,
            max_iter=max_iter,
            tol=tol,
            n_init=n_init,
            random_state=random_state,
        )
        self.sigma = sigma

    def _check_params(self, X: Any) -> None:
        super()._check_params(X)
        _check_sigma(self.sigma)
        self._sigma_fit = _resolve_sigma(self, X)

    def _sigma(self, X: np.ndarray) -> float | None:
        return self._sigma_fit

    def _distances(self, X: np.ndarray) -> np.ndarray:
        return kernel_distances(super()._distances(X), self.sigma_)

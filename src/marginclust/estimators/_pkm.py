"""Probabilistic K-means (PKM): soft K-means (FCM at m = 1) by active gradient projection."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.metrics.pairwise import euclidean_distances

from ..base import BaseClusterer, SoftClusterMixin
from ..objectives._pkm import PKMObjective
from ..solvers import SolverResult
from ..solvers._gradient_projection import METHODS, active_gradient_projection
from ..utils import check_memberships, check_positive

__all__ = ["PKM"]

_INITS = ("kmeans++-soft", "dirichlet", "uniform-perturbed")
# Above this many samples the faithful solvers (n (K - 1) + r steps of O(n K d)) are slow.
_FAITHFUL_WARN_SAMPLES = 2000


def _kmeans_plusplus(
    obj: PKMObjective, k: int, random_state: np.random.RandomState
) -> npt.NDArray[np.float64]:
    """Greedy k-means++ seeds (Arthur & Vassilvitskii 2007), in the objective's centred frame.

    Each new seed is the best (lowest potential) of ``2 + int(log k)`` candidates
    drawn with probability proportional to the squared distance to the nearest
    seed so far. Prior validation of the data is assumed.
    """
    Xc, sq = obj.Xc, obj.sq_norms
    n = Xc.shape[0]
    n_trials = 2 + int(np.log(k))
    centers = np.empty((k, Xc.shape[1]))
    first = random_state.randint(n)
    centers[0] = Xc[first]
    closest = np.maximum(sq - 2.0 * Xc @ Xc[first] + sq[first], 0.0)
    for c in range(1, k):
        total = closest.sum()
        if total <= 0:  # fewer distinct points than seeds so far: pick uniformly
            cand = random_state.randint(n, size=n_trials)
        else:
            cum = np.cumsum(closest)
            cand = np.searchsorted(cum, random_state.uniform(size=n_trials) * cum[-1])
            cand = np.minimum(cand, n - 1)
        d_cand = np.maximum(sq[None, :] - 2.0 * Xc[cand] @ Xc.T + sq[cand][:, None], 0.0)
        d_cand = np.minimum(d_cand, closest[None, :])
        best = int(np.argmin(d_cand.sum(axis=1)))
        centers[c] = Xc[cand[best]]
        closest = d_cand[best]
    return centers


class PKM(SoftClusterMixin, BaseClusterer):
    """Probabilistic K-means: soft K-means solved by active gradient projection.

    Minimises ``J(P) = sum_ij p_ij ||x_i - c_j(P)||^2`` with ``c_j(P)`` the
    P-weighted mean of the data, over memberships P whose rows lie on the
    probability simplex (Liu et al., "Probabilistic K-means"; fuzzy c-means at
    m = 1). J is concave in P, its gradient is ``dJ/dp_ij = ||x_i - c_j||^2``,
    and every KKT point is a hard partition (up to ties) in which each point
    sits in its nearest centre, i.e. a fixed point of K-means.

    Parameters
    ----------
    n_clusters : int, default=3
        Number of clusters.
    solver : {"block", "fmsagp", "msagp", "agp"}, default="block"
        ``"agp"``: Rosen's active gradient projection with the fixed step
        ``step``; ``"msagp"``: the maximum feasible step; ``"fmsagp"``: MSAGP's
        iterates with the active set updated incrementally (the paper's
        rank-one projection update). These three release one violated
        constraint at a time, as in the paper, and need about ``n (K - 1)``
        steps of O(n K d) each. ``"block"`` (our extension, the default) lets
        every row take its own maximal step and release its own violated
        constraint in the same iteration; J is concave, so this never increases
        J, and it reaches a KKT point in a few dozen iterations (from a hard
        partition its iterations are Lloyd's K-means steps). It takes larger,
        less cautious steps than MSAGP: from an uninformative soft start
        (``"dirichlet"``, ``"uniform-perturbed"``) all centres start near the
        data mean and it can end in a markedly worse local minimum than MSAGP
        (measured: 3x the SSE on the 210-sample Segmentation set), much as
        Lloyd's algorithm from a random partition; use the default
        ``init="kmeans++-soft"`` or ``n_init > 1`` with it.
    step : float, default=0.01
        Step length ``t`` of ``solver="agp"`` (ignored by the other solvers).
    init : {"kmeans++-soft", "dirichlet", "uniform-perturbed"} or array-like \
of shape (n_samples, n_clusters), default="kmeans++-soft"
        Initial memberships. ``"kmeans++-soft"``: k-means++ seeds, then
        ``p_ij`` proportional to ``1 / ||x_i - c_j||^2``; ``"dirichlet"``: rows
        drawn from the flat Dirichlet distribution (random soft memberships, as
        in the paper); ``"uniform-perturbed"``: ``1/K`` plus 10% uniform noise;
        an array: rows on the simplex (used by every restart).
    tol : float, default=1e-9
        A projected-gradient entry or KKT multiplier counts as zero when its
        size is at most ``tol`` times the mean squared distance of the data to
        their mean.
    max_iter : int or None, default=None
        Maximum number of steps. None: 300 for ``"block"``, ``10 n K`` for
        ``"msagp"``/``"fmsagp"`` and ``500 n K`` for ``"agp"`` (the faithful
        solvers need at least ``n (K - 1)``).
    n_init : int, default=1
        Number of restarts; the one with the lowest J is kept.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation. Pass an int for reproducible results.

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships P (hard, up to ties, at convergence).
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres ``c_j(P)``.
    labels_ : ndarray of shape (n_samples,)
        ``argmax_j p_ij`` (ties to the lower index).
    objective_ : float
        Final J.
    objective_history_ : ndarray of shape (n_iter_,)
        J after each step (non-increasing).
    n_iter_ : int
        Number of steps of the kept restart.
    n_released_ : int
        Number of inequality constraints released (moves out of an active
        ``p_ij = 0``) in the kept restart.
    converged_ : bool
        Whether a KKT point was reached before ``max_iter``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    marginclust.FuzzyCMeans : Fuzzy c-means (m > 1).
    sklearn.cluster.KMeans : Lloyd's K-means.

    Notes
    -----
    For a new point with the centres fixed, the membership row minimising J is
    one-hot on the nearest centre (J is linear in that row), so ``predict``
    returns the nearest centre and ``predict_proba`` returns that one-hot row.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import PKM
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> pkm = PKM(n_clusters=2, random_state=0).fit(X)
    >>> int(pkm.labels_[0] == pkm.labels_[1]), int(pkm.labels_[0] != pkm.labels_[2])
    (1, 1)
    """

    # K = 1 is a valid (trivial) problem, as for KMeans; scikit-learn's checks use it.
    _min_clusters = 1

    def __init__(
        self,
        n_clusters: int = 3,
        *,
        solver: str = "block",
        step: float = 0.01,
        init: Any = "kmeans++-soft",
        tol: float = 1e-9,
        max_iter: int | None = None,
        n_init: int = 1,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.solver = solver
        self.step = step
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    # ------------------------------------------------------------------ hooks
    def _check_params(self, X: Any) -> None:
        if not isinstance(self.solver, str) or self.solver not in METHODS:
            raise ValueError(f"solver must be one of {METHODS}; got {self.solver!r}.")
        check_positive(self.step, "step")
        check_positive(self.tol, "tol", strict=False)
        n, k = X.shape[0], self._n_clusters
        if self.max_iter is None:
            if self.solver == "block":
                self._max_iter = 300
            elif self.solver == "agp":
                self._max_iter = 500 * n * k
            else:
                self._max_iter = 10 * n * k
        else:
            self._max_iter = check_positive(self.max_iter, "max_iter", integer=True)
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(
                    f"init must be one of {_INITS} or an array of memberships of shape "
                    f"(n_samples, n_clusters); got {self.init!r}."
                )
            self._init = self.init
        else:
            self._init = check_memberships(self.init, n, k, name="init")
            empty = np.flatnonzero(self._init.sum(axis=0) <= 0)
            if empty.size:
                raise ValueError(
                    f"init gives cluster(s) {empty.tolist()} zero total membership, so their "
                    "centres are undefined; give every column some positive membership."
                )
        if self.solver != "block" and n > _FAITHFUL_WARN_SAMPLES:
            warnings.warn(
                f"solver={self.solver!r} releases one constraint at a time: about "
                f"n*(K-1) = {n * (k - 1)} steps of O(n K d) each on these data (O(n^2 K^2 d) "
                "in total). Use the default solver='block' for data of this size.",
                UserWarning,
                stacklevel=4,
            )

    def _initial_memberships(
        self, obj: PKMObjective, X: Any, random_state: np.random.RandomState
    ) -> npt.NDArray[np.float64]:
        n, k = X.shape[0], self._n_clusters
        init = self._init
        if not isinstance(init, str):
            return init.copy()
        if init == "dirichlet":
            P = random_state.dirichlet(np.ones(k), size=n)
        elif init == "uniform-perturbed":
            P = 1.0 + 0.1 * random_state.uniform(-1.0, 1.0, size=(n, k))
        else:  # kmeans++-soft
            D = obj.sq_distances(_kmeans_plusplus(obj, k, random_state))
            P = 1.0 / (D + 1e-12 * obj.scale)
        P = np.maximum(P, 0.0)
        P /= P.sum(axis=1, keepdims=True)
        return P

    def _fit_one(
        self, X: Any, random_state: np.random.RandomState, **fit_params: Any
    ) -> SolverResult:
        obj = PKMObjective(X)
        P0 = self._initial_memberships(obj, X, random_state)
        res = active_gradient_projection(
            obj,
            P0,
            method=self.solver,
            step=float(self.step),
            tol=float(self.tol),
            max_iter=self._max_iter,
        )
        P = res.x
        centers = obj.centers(P).astype(X.dtype, copy=False)
        attrs = {
            "memberships_": P,
            "cluster_centers_": centers,
            "labels_": np.argmax(P, axis=1).astype(np.intp),
            "n_released_": int(res.info["n_released"]),
        }
        return SolverResult(
            x=attrs,
            objective=res.objective,
            objective_history=res.objective_history,
            n_iter=res.n_iter,
            converged=res.converged,
            stop_crit=res.stop_crit,
            message=res.message,
            info=res.info,
        )

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        D = euclidean_distances(X, self.cluster_centers_, squared=True)
        return np.argmin(D, axis=1).astype(np.intp)

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        labels = self._predict(X)
        U = np.zeros((labels.shape[0], self.cluster_centers_.shape[0]), dtype=np.float64)
        U[np.arange(labels.shape[0]), labels] = 1.0
        return U

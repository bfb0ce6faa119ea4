"""Probabilistic K-means (PKM): soft K-means (FCM at m = 1) by active gradient projection."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer, ClusterTransformerMixin, SoftClusterMixin
from ..objectives._pkm import PKMObjective, frame_sq_distances, initial_memberships
from ..solvers import SolverResult
from ..solvers._gradient_projection import METHODS, active_gradient_projection
from ..solvers._lloyd import chunk_rows_for, lloyd, lloyd_from_memberships
from ..starts._kmeans import kmeans_plusplus_centres
from ..utils import (
    Frame,
    Init,
    MaxIter,
    NClusters,
    OneOf,
    Or,
    Positive,
    Seed,
    Verbose,
    centred_frame,
    check_memberships,
    check_objective_scale,
    report,
    resolve_alias,
)
from ..utils._blocks import backend_for, init_sample_size, out_of_core
from ..utils._memory import check_rows_memory

__all__ = ["PKM"]

_INITS = ("k-means++", "k-means++-soft", "dirichlet", "uniform-perturbed")
_INIT_ALIASES = {"kmeans++": "k-means++", "kmeans++-soft": "k-means++-soft"}
# Above this many samples the faithful solvers (n (K - 1) + r steps of O(n K d)) are slow.
_FAITHFUL_WARN_SAMPLES = 2000


def _are_centres(init: Any, n: int, d: int, k: int) -> bool:
    """An array ``init`` of centres (n_clusters, n_features), not of memberships."""
    shape = np.shape(init)
    return len(shape) == 2 and shape == (k, d) and shape != (n, k)


def _array_init(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """An array ``init``: finite centres, or memberships that give every cluster some weight."""
    n, d = X.shape
    k = int(n_clusters or 0)
    if _are_centres(value, n, d, k):
        arr = np.asarray(value)
        if arr.dtype.kind not in "fiu" or not np.all(np.isfinite(arr)):
            raise ValueError("An array of initial centres must be numeric and finite.")
        return
    P = check_memberships(value, n, k, name=name)
    empty = np.flatnonzero(P.sum(axis=0) <= 0)
    if empty.size:
        raise ValueError(
            f"{name} gives cluster(s) {empty.tolist()} zero total membership, so "
            "their centres are undefined; give every column some positive "
            "membership."
        )


class PKM(SoftClusterMixin, ClusterTransformerMixin, BaseClusterer):
    """Probabilistic K-means: soft K-means solved by active gradient projection.

    Minimises

    .. math::

        J(P) = \\sum_{i,j} p_{ij} \\, \\lVert x_i - c_j(P) \\rVert^2

    with :math:`c_j(P)` the P-weighted mean of the data, over memberships P whose
    rows lie on the probability simplex (Li et al., "Probabilistic K-means";
    fuzzy c-means at m = 1). J is concave in P, its gradient is
    :math:`\\partial J / \\partial p_{ij} = \\lVert x_i - c_j \\rVert^2`,
    and every KKT point is a hard partition (up to ties) in which each point
    sits in its nearest centre, i.e. a fixed point of K-means.

    Parameters
    ----------
    n_clusters : int, default=2
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
        J. From a hard partition (the default ``init="k-means++"``) its
        iterations are exactly Lloyd's K-means steps, run by a chunked solver
        whose iteration is one BLAS pass over X (as fast as scikit-learn's
        KMeans). From an uninformative soft start (``"dirichlet"``,
        ``"uniform-perturbed"``) all centres start near the data mean and it can
        end in a markedly worse local minimum than MSAGP (measured: 3x the SSE
        on the 210-sample Segmentation set).
    step : float, default=0.01
        Step length ``t`` of ``solver="agp"`` (ignored by the other solvers).
    init : {"k-means++", "k-means++-soft", "dirichlet", "uniform-perturbed"} or \
array-like, default="k-means++"
        Start. ``"k-means++"``: scikit-learn's k-means++ seeds
        (:func:`~sklearn.cluster.kmeans_plusplus`), each point a member of its
        nearest seed (a hard start). ``"k-means++-soft"`` (formerly
        ``"kmeans++-soft"``): the same seeds, then ``p_ij`` proportional to
        ``1 / ||x_i - c_j||^2``. ``"dirichlet"``: rows drawn from the flat
        Dirichlet distribution (random soft memberships, as in the paper);
        ``"uniform-perturbed"``: ``1/K`` plus 10% uniform noise. An array of
        shape ``(n_samples, n_clusters)``: memberships (rows on the simplex); of
        shape ``(n_clusters, n_features)``: centres (a hard start, as for
        ``"k-means++"``); when both shapes coincide it is read as memberships.
        An array start is used by every restart.
    tol : float, default=1e-9
        A projected-gradient entry or KKT multiplier counts as zero when its
        size is at most ``tol`` times the mean squared distance of the data to
        their mean (for a hard partition: a point moves only if that much closer
        to another centre).
    max_iter : int or None, default=None
        Maximum number of steps. None: 300 for ``"block"``, ``10 n K`` for
        ``"msagp"``/``"fmsagp"`` and ``500 n K`` for ``"agp"`` (the faithful
        solvers need at least ``n (K - 1)``).
    n_init : int, default=1
        Number of restarts; the one with the lowest J is kept.
    verbose : int, default=0
        Print the objective after each iteration (and per restart) to stderr.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation. Pass an int for reproducible results.

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships P (hard, up to ties, at convergence), dtype of X.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres ``c_j(P)``, dtype of X.
    labels_ : ndarray of shape (n_samples,)
        ``argmax_j p_ij`` (ties to the lower index).
    objective_ : float
        Final J (the sum of squared distances to the centres at a hard point).
    objective_history_ : ndarray of shape (n_iter_,)
        J after each step (non-increasing).
    n_iter_ : int
        Number of steps of the kept restart; a start that is already a KKT
        point counts its verification as one iteration (as Lloyd's last pass,
        in which no point moves, is counted).
    n_released_ : int
        Number of inequality constraints released (moves out of an active
        ``p_ij = 0``; for a hard start: points moved after the first
        assignment) in the kept restart.
    n_relocated_ : int
        Clusters that emptied and were re-seeded with the point farthest from
        its centre (as scikit-learn's KMeans does), in the kept restart.
    converged_ : bool
        Whether a KKT point was reached before ``max_iter``.
    n_clusters_found_ : int
        Number of non-empty clusters.
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
    returns the nearest centre, ``predict_proba`` returns that one-hot row,
    ``transform`` returns the Euclidean distances to the centres and ``score``
    is minus the sum of squared distances to the nearest centres.

    The data are centred (and rescaled by a power of two) before any distance
    is expanded, so a large common offset (``X + 1e9``) or an extreme scale
    (``X * 1e-150``) gives the same partition as ``X``. Data whose sum of squared
    distances exceeds the float range (features beyond about 1e154) are refused
    with the advice to rescale.

    References
    ----------
    Y. Li, B. Liu, Z. Liu and T. Zhang, "Probabilistic K-means Clustering via
    Nonlinear Programming", arXiv:2001.03286 (2020) (the PKM paper,
    ``papers/pkm-probabilistic-kmeans.txt``; AGP, MSAGP and FMSAGP are its
    Section 3 algorithms). D. Arthur and S. Vassilvitskii, "k-means++: the
    advantages of careful seeding", SODA 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import PKM
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> pkm = PKM(n_clusters=2, random_state=0).fit(X)
    >>> int(pkm.labels_[0] == pkm.labels_[1]), int(pkm.labels_[0] != pkm.labels_[2])
    (1, 1)
    >>> pkm.transform(X).shape
    (4, 2)
    >>> round(-pkm.score(X), 4)
    0.01
    """

    # K = 1 is a valid (trivial) problem, as for KMeans; scikit-learn's checks use it.
    _preserves_float32 = True  # transform of float32 data is float32
    _cluster_axes = {"cluster_centers_": 0, "memberships_": 1}
    _out_of_core = True  # the default solver from a hard start (Lloyd passes)
    _collapse_advice = (
        "Use init='k-means++' (the default) with n_init > 1, or fewer n_clusters if the data "
        "have few distinct points."
    )

    _parameter_constraints = {
        "n_clusters": NClusters(1),
        "solver": OneOf(METHODS),
        "step": Positive(),
        "init": Init(_INITS, _array_init,
                     "an array of centres (n_clusters, n_features) or memberships "
                     "(n_samples, n_clusters)", aliases=tuple(_INIT_ALIASES)),
        "tol": Positive(strict=False),
        # None: a default that depends on the solver and the data (see _setup_on_data)
        "max_iter": Or(
            (None,), MaxIter(), "{name} must be None or a positive integer; got {value!r}."
        ),
        "n_init": MaxIter(),
        "verbose": Verbose(),
        "random_state": Seed(),
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        solver: str = "block",
        step: float = 0.01,
        init: Any = "k-means++",
        tol: float = 1e-9,
        max_iter: int | None = None,
        n_init: int = 1,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.solver = solver
        self.step = step
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.verbose = verbose
        self.random_state = random_state

    # ------------------------------------------------------------------ hooks
    def _setup_on_data(self, X: Any) -> None:
        n, d = X.shape
        k = self._n_clusters
        if self.max_iter is None:
            if self.solver == "block":
                self._max_iter = 300
            elif self.solver == "agp":
                self._max_iter = 500 * n * k
            else:
                self._max_iter = 10 * n * k
        else:
            self._max_iter = int(self.max_iter)
        if isinstance(self.init, str):
            self._init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)
        elif _are_centres(self.init, n, d, k):
            self._init = ("centres", np.asarray(self.init, dtype=np.float64))
        else:  # memberships (the table checked them)
            self._init = ("memberships", check_memberships(self.init, n, k, name="init"))
        if out_of_core(X) and not self._lloyd_path():
            what = self.init if isinstance(self.init, str) else "an array of memberships"
            raise ValueError(
                "Out of core PKM runs its default solver='block' from a hard start: "
                "init='k-means++' or centres of shape (n_clusters, n_features); got "
                f"solver={self.solver!r}, init={what!r}. The faithful solvers and soft starts "
                "need every membership in memory."
            )
        if not out_of_core(X):  # out of core the memory is per chunk
            # Lloyd: the frame and per-block labels; the faithful solvers: P, its
            # gradient, direction and multipliers (n x K float64 each)
            per_cluster = 3 if self._lloyd_path() else 8 * 8 / X.dtype.itemsize
            check_rows_memory(type(self).__name__, X.shape, k, X.dtype.itemsize, per_cluster)
        if self.solver != "block" and n > _FAITHFUL_WARN_SAMPLES:
            warnings.warn(
                f"solver={self.solver!r} releases one constraint at a time: about "
                f"n*(K-1) = {n * (k - 1)} steps of O(n K d) each on these data (O(n^2 K^2 d) "
                "in total). Use the default solver='block' for data of this size.",
                UserWarning,
                stacklevel=4,
            )

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        if fit_params:
            raise TypeError(f"PKM.fit got unexpected parameters {sorted(fit_params)}.")
        chunk = self._chunk_rows(X)
        context = self._context(centred_frame(X, chunk_rows=chunk))
        context["rows"] = backend_for(context["frame"].Z, chunk)
        if not self._lloyd_path():
            context["objective"] = PKMObjective(context["frame"].Z)
        return context

    def _chunk_rows(self, X: Any) -> int:
        """Rows per block of the Lloyd passes over X (and of the frame's sums)."""
        return chunk_rows_for(X.shape[1], X.dtype.itemsize)

    def _lloyd_path(self) -> bool:
        """Whether the fit runs the chunked Lloyd solver (default solver, hard start)."""
        return self.solver == "block" and self._hard_start()

    def _context(self, frame: Frame) -> dict[str, Any]:
        """The restart context from the working frame (in memory or lazy)."""
        check_objective_scale(frame.Z, frame)
        # The tolerance unit: the mean squared distance of the data to their mean.
        scale = frame.sq_total / frame.Z.shape[0]
        if not scale > 0:
            scale = 1.0
        return {"frame": frame, "thr": float(self.tol) * scale}

    def _hard_start(self) -> bool:
        init = self._init
        if isinstance(init, str):
            return init == "k-means++"
        if init[0] == "centres":
            return True
        P = init[1]
        return bool(np.all(P.max(axis=1) == 1.0))

    def _seeds(self, frame: Frame, random_state: np.random.RandomState) -> npt.NDArray:
        init = self._init
        if not isinstance(init, str) and init[0] == "centres":
            return frame.centers_to_frame(init[1])
        seeds = kmeans_plusplus_centres(frame.Z, self._n_clusters, random_state)
        return np.asarray(seeds, dtype=np.float64)

    def _callback(self) -> Callable[[int, float], None] | None:
        if not self.verbose:
            return None

        def cb(it: int, J: float) -> None:
            report(self.verbose, "PKM iteration %d: objective %.6g", it, J)

        return cb

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        frame: Frame = context["frame"]
        Z, k = frame.Z, self._n_clusters
        init = self._init
        common = {"thr": context["thr"], "callback": self._callback(), "total_sq": frame.sq_total}
        if self._lloyd_path():
            rows = context["rows"]  # in memory or out of core
            given = not isinstance(init, str) and init[0] == "memberships"
            if given:
                C0 = np.zeros((k, rows.shape[1]))
            elif isinstance(init, str):  # k-means++ on every row in memory, a sample out of core
                Zs, _ = rows.start_rows(init_sample_size(k), random_state)
                C0 = self._seeds(replace(frame, Z=Zs), random_state)
            else:
                C0 = self._seeds(frame, random_state)
            res = lloyd(
                rows,
                C0,
                labels=np.argmax(init[1], axis=1) if given else None,
                max_iter=self._max_iter,
                **common,
            )
            return self._lloyd_result(res, frame)
        obj: PKMObjective = context["objective"]
        seeds = lambda: self._seeds(frame, random_state)  # noqa: E731
        P0 = initial_memberships(init, obj, k, random_state, seeds)
        res = active_gradient_projection(
            obj,
            P0,
            method=self.solver,
            step=float(self.step),
            tol=float(self.tol),
            max_iter=self._max_iter,
            callback=self._callback(),
        )
        if res.n_iter == 0:  # the start is a KKT point: its verification is the iteration
            res = replace(res, n_iter=1, objective_history=np.array([res.objective]))
        P, n_released, n_relocated = res.x, int(res.info["n_released"]), 0
        if res.info.get("emptied"):
            # a cluster lost all membership: harden, then Lloyd steps that re-seed it
            hard = lloyd_from_memberships(
                Z, P, sq_distances=frame_sq_distances,
                max_iter=max(1, self._max_iter - res.n_iter), **common,
            )
            P, n_relocated = _one_hot(hard.x[0], k), int(hard.info["n_relocated"])
            res = replace(
                hard,
                objective_history=np.concatenate([res.objective_history, hard.objective_history]),
                n_iter=res.n_iter + hard.n_iter,
            )
        message = "" if res.converged else (
            f"PKM ({self.solver}) stopped after max_iter={self._max_iter} steps before "
            "reaching a KKT point; increase max_iter"
            + (" or use solver='block' (much faster)." if self.solver != "block" else ".")
        )
        labels = np.argmax(P, axis=1)
        return self._result(frame, obj.centers(P), labels, res, n_released, n_relocated, message)

    def _lloyd_result(self, res: SolverResult, frame: Frame) -> SolverResult:
        """A restart's attributes from a Lloyd run (``labels_`` and ``memberships_``:
        the base's final assignment)."""
        C = res.x[1]
        message = "" if res.converged else (
            f"PKM stopped after max_iter={self._max_iter} Lloyd steps with points still "
            "moving; increase max_iter."
        )
        return self._result(
            frame, C, None, res, int(res.info["n_moved"]), int(res.info["n_relocated"]), message
        )

    def _result(
        self,
        frame: Frame,
        C: Any,
        labels: Any,
        res: SolverResult,
        n_released: int,
        n_relocated: int,
        message: str,
    ) -> SolverResult:
        """Attributes in data units; objective, history and stopping state from ``res``."""
        dtype = frame.Z.dtype
        attrs = {
            "cluster_centers_": frame.centers_from_frame(C).astype(dtype, copy=False),
            "n_released_": n_released,
            "n_relocated_": n_relocated,
            "_frame_mean": frame.mean,
            "_frame_scale": frame.scale,
        }
        # back to data units (two divisions: scale**2 may underflow); beyond the float
        # range (features near 1e154 or more) the sum of squares is inf, the partition exact
        sc = frame.scale
        with np.errstate(over="ignore"):
            hist = np.asarray(res.objective_history, dtype=np.float64) / sc / sc
        info = dict(res.info)
        if labels is not None:  # the solver's partition decides which restart is degenerate
            info["cluster_sizes"] = np.bincount(labels, minlength=self._n_clusters)
        return replace(
            res, x=attrs, objective=float(res.objective) / sc / sc, objective_history=hist,
            message=message, info=info,
        )

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """PKM has no width or penalty to choose: only the start varies."""
        return {"init": ["k-means++", "k-means++-soft"]}

    # ------------------------------------------------------------ prediction
    def _frame_distances(self, X: Any) -> npt.NDArray[np.float64]:
        """Squared distances to the centres in the training frame (times ``scale**2``)."""
        mean, scale = self._frame_mean, self._frame_scale
        Z = X - mean.astype(X.dtype)
        if scale != 1.0:
            Z *= X.dtype.type(scale)
        C = (np.asarray(self.cluster_centers_, dtype=np.float64) - mean) * scale
        return frame_sq_distances(Z, C)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return np.argmin(self._frame_distances(X), axis=1).astype(np.intp)

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        labels = self._predict(X)
        U = np.zeros((labels.shape[0], self.cluster_centers_.shape[0]), dtype=X.dtype)
        U[np.arange(labels.shape[0]), labels] = 1.0
        return U

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Euclidean distances of each sample to each centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            In the dtype of ``X``.
        """
        X = self._validate_predict_data(X)
        D = np.sqrt(self._frame_distances(X)) / self._frame_scale
        return D.astype(X.dtype, copy=False)

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the PKM objective of ``X`` with the fitted centres (higher is better).

        For new data the optimal memberships are one-hot on the nearest centre,
        so this is minus the sum of squared distances to the nearest centres.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Minus the objective; higher is better.
        """
        X = self._validate_predict_data(X)
        sc = self._frame_scale
        return -float(self._frame_distances(X).min(axis=1).sum()) / sc / sc


def _one_hot(labels: Any, k: int) -> npt.NDArray[np.float64]:
    P = np.zeros((labels.shape[0], k))
    P[np.arange(labels.shape[0]), labels] = 1.0
    return P

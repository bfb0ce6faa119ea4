"""Kernel K-means with an RBF kernel and centres in data space (SLMC eq. 15, crisp u)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer, ClusterTransformerMixin
from ..feature_maps import kernel_gamma_grid, resolve_frame_gamma
from ..feature_maps._kernel import GAMMA_CONSTRAINT
from ..objectives._fcm import KernelKMeansProblem, kernel_distances, squared_distances
from ..solvers import SolverResult
from ..solvers._kernel_kmeans import kernel_kmeans_alternation
from ..starts._centres import check_center_init, initial_point
from ..utils import (
    Frame,
    Init,
    MaxIter,
    NClusters,
    Positive,
    Seed,
    Verbose,
    centred_frame,
    check_sample_weight,
)
from ..utils._memory import check_rows_memory

__all__ = ["KernelKMeans"]


def _centres_init(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """An array ``init``: centres of shape (n_clusters, n_features), numeric and finite."""
    shape = np.shape(value)
    if shape != (n_clusters, X.shape[1]):
        raise ValueError(
            f"{name} must be 'k-means++', 'random' or centres of shape (n_clusters, "
            f"n_features) = ({n_clusters}, {X.shape[1]}); got shape {shape}."
        )
    check_center_init(value, int(n_clusters or 0), X)


class KernelKMeans(ClusterTransformerMixin, BaseClusterer):
    """Kernel K-means with an RBF kernel and centres in data space (SLMC eq. 15).

    Minimises

    .. math::

        J = \\sum_i w_i \\lVert \\phi(x_i) - \\phi(v_{l_i}) \\rVert^2
          = \\sum_i w_i \\, 2 \\bigl(1 - k(x_i, v_{l_i})\\bigr)

    over crisp labels :math:`l` and centres :math:`v_k` in data space, with
    :math:`k(x, y) = \\exp(-\\gamma \\lVert x - y \\rVert^2)`. The assignment step is exact
    (nearest centre: the kernel distance grows with the Euclidean one); the centre
    step is the kernel-weighted mean of the members, ``v_k = sum_{i in C_k} a_i x_i /
    sum a_i``, ``a_i = w_i k(x_i, v_k)``, a majorise-minimise step. Hence
    ``objective_history_`` is non-increasing. Far members get little weight, which
    makes the centres robust to outliers (a mode-seeking K-means). An emptied
    cluster is re-seeded with the sample of largest cost, as scikit-learn's KMeans
    relocates empty clusters.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters.
    gamma : float or {"sigma0", "scale"}, default="sigma0"
        RBF coefficient. ``"sigma0"``: ``1 / (2 sigma0^2)`` with ``sigma0`` the mean
        pairwise distance of the training data (with ``sample_weight``, of the data
        with each row repeated ``w_i`` times, which needs a total weight above 1;
        estimated on 2000 rows
        drawn with ``random_state`` if it is an int, else with seed 0, when there are
        more); ``"scale"``: ``1 / (n_features X.var())``; a positive float. Both rules
        are scale-free.
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), \
default="k-means++"
        Initial centres: scikit-learn's k-means++, random samples, or given.
    max_iter : int, default=300
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when no label of a row of positive weight changed and the
        objective decreased by at most ``tol`` relative to its previous value
        (neither depends on how a weight is split into repeated rows).
    n_init : int, default=1
        Number of restarts; the lowest objective with no empty cluster is kept.
    verbose : int, default=0
        Print a line per restart to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation (and the sigma0 subsample).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres in data space.
    gamma_ : float
        The RBF coefficient used.
    sigma_ : float
        The same as a width, ``1 / sqrt(2 gamma_)``.
    objective_ : float
        Final objective.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective after each iteration (non-increasing).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the stopping rule was met before ``max_iter``.
    n_clusters_found_ : int
        Number of non-empty clusters.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    ``transform`` returns the kernel-space distances ``||phi(x) - phi(v_k)||``,
    ``score`` minus the objective of new data. The data are centred (and rescaled
    by a power of two) before distances are expanded, so ``X + 1e9`` and extreme
    scales give the partition of ``X``.

    References
    ----------
    The SLMC paper's eq. 15 (kernel clustering with centres in data space), with
    crisp memberships; S. Chen and D. Zhang, IEEE Transactions on Systems, Man
    and Cybernetics, Part B 34 (2004) 1907-1916 (the kernel-induced distance;
    reference [8] of the SLMC paper).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import KernelKMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> km = KernelKMeans(n_clusters=2, random_state=0).fit(X)
    >>> bool(km.labels_[0] == km.labels_[1] != km.labels_[2])
    True
    >>> km.transform(X).shape
    (4, 2)
    """

    _preserves_float32 = True  # transform of float32 data is float32
    _cluster_axes = {"cluster_centers_": 0}
    _collapse_advice = (
        "Use a larger gamma (a narrower kernel, e.g. a multiple of the default 'sigma0') "
        "or more n_init."
    )

    _parameter_constraints = {
        "n_clusters": NClusters(1),  # one cluster is well defined, as in KMeans
        "gamma": GAMMA_CONSTRAINT,
        "init": Init(("k-means++", "random"), _centres_init,
                     "centres of shape (n_clusters, n_features)", aliases=("kmeans++",)),
        "max_iter": MaxIter(),
        "tol": Positive(strict=False),
        "n_init": MaxIter(),
        "verbose": Verbose(),
        "random_state": Seed(),
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        gamma: float | str = "sigma0",
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        verbose: int = 0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.verbose = verbose
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None, *, sample_weight: Any = None) -> KernelKMeans:
        """Fit the clustering to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (float64 or float32; float32 is kept). Dense only.
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; an integer weight acts as repeating the
            sample (in the objective, the stopping rule, the empty-cluster
            re-seeding and ``gamma="sigma0"``). The k-means++ and random starts
            draw rows in row order: a weighted fit and the fit on repeated rows
            start from different draws unless ``init`` is an array.

        Returns
        -------
        self : KernelKMeans
            The fitted estimator.
        """
        return self._fit(X, sample_weight=sample_weight)

    def _setup_on_data(self, X: Any) -> None:
        if isinstance(self.init, str):
            check_center_init(self.init, self._n_clusters, X)  # warns on an old spelling
        # the frame (a copy of X), K x n distances, weights and their products
        check_rows_memory(type(self).__name__, X.shape, self._n_clusters, X.dtype.itemsize, 5)

    def _prepare(self, X: Any, sample_weight: Any = None) -> dict[str, Any]:  # type: ignore[override]
        frame = centred_frame(X)
        weights = check_sample_weight(sample_weight, X)
        gamma_data, gamma_frame = resolve_frame_gamma(
            self, frame, sample_weight=None if sample_weight is None else weights)
        init = self.init
        if not isinstance(init, str):
            init = frame.centers_to_frame(init).astype(X.dtype)
        with np.errstate(divide="ignore"):
            sigma = float(np.sqrt(0.5 / gamma_data)) if gamma_data > 0 else float("inf")
        return {
            "frame": frame,
            "sample_weight": weights,
            "init": init,
            "gamma": gamma_frame,
            "attrs": {"gamma_": gamma_data, "sigma_": sigma, "_frame_gamma": gamma_frame},
        }

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        frame: Frame = context["frame"]
        Z, sw = frame.Z, context["sample_weight"]
        centres, _ = initial_point(
            context["init"], Z, self._n_clusters, sw, random_state, allow_memberships=False
        )
        assert centres is not None  # allow_memberships=False: always centres
        res = kernel_kmeans_alternation(
            KernelKMeansProblem(context["gamma"]),
            Z,
            n_clusters=self._n_clusters,
            sample_weight=sw,
            centres=centres,
            max_iter=int(self.max_iter),
            tol=float(self.tol),
        )
        labels, V = res.x
        attrs = {
            "labels_": labels,
            "cluster_centers_": frame.centers_from_frame(V).astype(Z.dtype),
            "_frame_mean": frame.mean,
            "_frame_scale": frame.scale,
            **context["attrs"],
        }
        return SolverResult(
            x=attrs,
            objective=res.objective,
            objective_history=res.objective_history,
            n_iter=res.n_iter,
            converged=res.converged,
            stop_crit=res.stop_crit,
            message=res.message.replace("Kernel K-means", "KernelKMeans"),
        )

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Kernel widths at multiples of the data's sigma0 (computed from X, centred)."""
        return {"gamma": kernel_gamma_grid(X, self.random_state)}

    def _squared_distances(self, X: Any) -> npt.NDArray[np.floating]:
        """K x n squared Euclidean distances to the centres in the training frame."""
        Z = X - self._frame_mean.astype(X.dtype)
        if self._frame_scale != 1.0:
            Z *= X.dtype.type(self._frame_scale)
        C = (self.cluster_centers_.astype(np.float64) - self._frame_mean) * self._frame_scale
        return squared_distances(Z, C.astype(X.dtype), transposed=True)

    def _kernel_distances(self, X: Any) -> npt.NDArray[np.floating]:
        """K x n kernel-space squared distances ``2 (1 - k(x, v))`` in the training frame."""
        D2 = self._squared_distances(X)
        return np.asarray(kernel_distances(D2, float(np.sqrt(0.5 / self._frame_gamma))))

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        # the nearest centre in data space: the kernel distance grows with the squared
        # one but saturates at 2 far from every centre (ties the argmin would break
        # to cluster 0)
        return np.argmin(self._squared_distances(X), axis=0)

    def transform(self, X: Any) -> npt.NDArray[np.floating]:
        """Kernel-space distances ``||phi(x) - phi(v_k)||`` of each sample to each centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            Distance of each sample to each centre in the kernel's feature space.
        """
        X = self._validate_predict_data(X)
        return np.sqrt(self._kernel_distances(X).T)

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the objective of ``X`` (each sample at its nearest centre); higher is better.

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
        return -float(self._kernel_distances(X).min(axis=0).sum(dtype=np.float64))

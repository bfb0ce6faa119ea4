"""Fuzzy c-means and kernel fuzzy c-means (RBF kernel, centres in data space).

The math (objective, closed-form steps) lives in :mod:`marginclust.objectives._fcm`,
the one-pass alternating loop in :mod:`marginclust.solvers._fuzzy`; this module
holds parameter checks and the public estimators.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer, ClusterTransformerMixin, SoftClusterMixin
from ..feature_maps import kernel_gamma_grid, resolve_frame_gamma
from ..feature_maps._kernel import GAMMA_CONSTRAINT
from ..objectives._fcm import (
    FuzzyProblem,
    kernel_distances,
    memberships_from_distances,
    squared_distances,
)
from ..solvers import SolverResult
from ..solvers._fuzzy import fcm_chunk_rows, fuzzy_alternation
from ..starts._centres import check_center_init, initial_point
from ..utils import (
    Frame,
    Fuzzifier,
    Init,
    MaxIter,
    NClusters,
    Or,
    Positive,
    Seed,
    Verbose,
    centred_frame,
    check_objective_scale,
    report,
)
from ..utils._blocks import backend_for, init_sample_size, out_of_core
from ..utils._memory import check_rows_memory

__all__ = ["FuzzyCMeans", "KernelFuzzyCMeans", "auto_fuzzifier"]

#: The conventional fuzzifier (Bezdek), the largest one ``m="auto"`` returns.
_CONVENTIONAL_M = 2.0


def auto_fuzzifier(n_samples: float, n_features: int) -> float:
    """The fuzzifier of ``m="auto"``: Schwämmle & Jensen's formula, at most 2.

    ``m = 1 + (1418 / N + 22.05) D^-2 + (12.33 / N + 0.243) D^(-0.0406 ln N - 0.1134)``
    (Schwämmle & Jensen 2010, eq. 5; the ``mestimate`` of the Mfuzz package),
    with ``N`` samples and ``D`` features, capped at Bezdek's conventional 2.
    The formula is their fit of the largest ``m`` at which fuzzy c-means finds
    no structure in randomised data of that size: as ``D`` grows, distances
    concentrate and memberships ``||x - v_k||^{-2/(m-1)}`` at ``m = 2`` become
    nearly uniform, so the centres fall together. At ``m = 2`` FuzzyCMeans found
    3 of 10 clusters on usps (256 features) and 12 of 26 on letter (16); at the
    formula's 1.017 and 1.145 all of them. In two or three dimensions the
    formula exceeds 2 (7.1 for 1,000 points in 2-D) and fuzzier memberships
    lost accuracy on a benchmark battery of 2-D shapes (mean NCA .669 against
    .678 at 2), hence the cap.

    Parameters
    ----------
    n_samples : float
        Number of samples ``N`` (> 0); for weighted data the total weight (an
        integer weight counts as repeated rows).
    n_features : int
        Number of features ``D`` (>= 1).

    Returns
    -------
    m : float
        In ``(1, 2]``.

    References
    ----------
    V. Schwämmle and O. N. Jensen, "A simple and fast method to determine the
    parameters for fuzzy c-means cluster analysis", Bioinformatics 26(22):
    2841-2848, 2010.

    Examples
    --------
    >>> from marginclust.estimators._fcm import auto_fuzzifier
    >>> round(auto_fuzzifier(9298, 256), 3), round(auto_fuzzifier(150, 4), 3)
    (1.017, 2.0)
    """
    N, D = float(n_samples), float(n_features)
    m = 1.0 + (1418.0 / N + 22.05) * D**-2 + (12.33 / N + 0.243) * D ** (
        -0.0406 * np.log(N) - 0.1134
    )
    return float(min(m, _CONVENTIONAL_M))


# --------------------------------------------------------------- estimators
def _center_init(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """An array ``init``: centres or memberships of the data's shape (:func:`check_center_init`)."""
    check_center_init(value, int(n_clusters or 0), X)


class FuzzyCMeans(SoftClusterMixin, ClusterTransformerMixin, BaseClusterer):
    r"""Fuzzy c-means (Bezdek): soft memberships minimising ``J_m``.

    Minimises

    .. math::

        J_m(U, V) = \sum_i w_i \sum_k u_{ik}^m \, \lVert x_i - v_k \rVert^2

    over memberships :math:`U` (rows on the simplex) and centres :math:`V` by exact
    alternating minimisation, so ``objective_history_`` is non-increasing. Each iteration
    is one pass over X by row blocks (distances, memberships, the convergence measure and
    the next centre sums fused per block, in the dtype of X).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters.
    m : float or "auto", default="auto"
        Fuzzifier, ``m > 1`` (values near 1 give nearly crisp memberships).
        ``"auto"``: Schwämmle & Jensen's fuzzifier for the data's number of
        samples :math:`n` (the total ``sample_weight`` when weights are given,
        so that integer weights act as repeated rows) and features :math:`d`,
        :math:`\min\{2,\ 1 + (1418/n + 22.05)\, d^{-2} + (12.33/n + 0.243)\,
        d^{-0.0406 \ln n - 0.1134}\}`, at most the conventional 2 (stored in
        ``m_``). It is 2 on small low-dimensional data and approaches 1 in high
        dimension, where ``m = 2`` merges clusters (usps: 3 of 10 clusters
        found at ``m = 2``, 10 at the automatic 1.017; letter: 12 of 26, and 26
        at 1.145). Pass ``m=2.0`` for the fuzzifier used before 0.2.
    init : {"k-means++", "random"} or array-like, default="k-means++"
        ``"k-means++"``: initial centres by scikit-learn's :func:`~sklearn.cluster.kmeans_plusplus`
        (weighted by ``sample_weight``). ``"random"``: ``n_clusters`` samples drawn
        with probability proportional to ``sample_weight``. An array of shape
        ``(n_clusters, n_features)`` gives initial centres; one of shape
        ``(n_samples, n_clusters)`` gives initial memberships (rows summing to 1).
        If both shapes coincide, the array is read as centres. An array start is
        deterministic, so ``n_init > 1`` repeats the same run. ``"kmeans++"`` is a
        deprecated spelling of ``"k-means++"``.
    max_iter : int, default=300
        Maximum number of (centre, membership) iterations.
    tol : float, default=1e-4
        Stop when the largest change of a membership between two iterations is
        at most ``tol`` (rows of ``sample_weight`` 0 left out, as removed rows).
    n_init : int, default=1
        Number of restarts with different seeds; the one with the lowest ``J_m``
        (and all clusters non-empty) is kept.
    verbose : int, default=0
        Print the objective after each iteration to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation.

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships (rows on the simplex), dtype of ``X``.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centres.
    m_ : float
        The fuzzifier used (``m``, or its value for ``m="auto"``).
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
    n_clusters_found_ : int
        Number of non-empty clusters of ``labels_``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    KernelFuzzyCMeans : The RBF-kernel variant with centres in data space.

    Notes
    -----
    ``transform`` returns the memberships (as ``predict_proba``), ``score`` minus
    ``J_m`` of new data at their optimal memberships. The data are centred and
    rescaled by a power of two before distances are expanded, so ``X + 1e9`` and
    extreme scales give the memberships of ``X``.

    References
    ----------
    J. C. Bezdek, "Pattern Recognition with Fuzzy Objective Function Algorithms",
    Plenum Press, 1981 (reference [13] of the PKM paper).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import FuzzyCMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> fcm = FuzzyCMeans(n_clusters=2, random_state=0).fit(X)
    >>> bool(fcm.labels_[0] == fcm.labels_[1] != fcm.labels_[2])
    True
    >>> fcm.transform(X).shape
    (4, 2)
    """

    _preserves_float32 = True  # transform of float32 data is float32
    _out_of_core = True  # every pass through the row-block backend (marginclust.dask)
    _cluster_axes = {"cluster_centers_": 0, "memberships_": 1}
    _collapse_advice = (
        "Lower the fuzzifier m (memberships near 1/K merge clusters), standardise the "
        "features, or use more n_init."
    )

    _parameter_constraints = {
        # one cluster is well defined (all memberships 1), as in KMeans
        "n_clusters": NClusters(1),
        "m": Or(("auto",), Fuzzifier(), "{name} must be a float > 1 or 'auto'; got {value!r}."),
        "init": Init(("k-means++", "random"), _center_init,
                     "an array of centres (n_clusters, n_features) or memberships "
                     "(n_samples, n_clusters)",
                     aliases=("kmeans++",)),
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
        m: float | str = "auto",
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        verbose: int = 0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.m = m
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.verbose = verbose
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None, *, sample_weight: Any = None) -> FuzzyCMeans:
        """Fit the memberships and centres to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (float64 or float32; float32 is kept). Dense only.
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``w_i`` in ``J_m``; an integer weight acts as
            repeating the sample (also in ``m="auto"``, whose sample count is the
            total weight, and in KernelFuzzyCMeans' ``gamma="sigma0"``). The
            k-means++ and random starts draw rows with probability proportional
            to the weights, in row order: a weighted fit and the fit on repeated
            rows start from different draws unless ``init`` is an array.

        Returns
        -------
        self : FuzzyCMeans
            The fitted estimator.
        """
        return self._fit(X, sample_weight=sample_weight)

    def _setup_on_data(self, X: Any) -> None:
        # "auto" resolved on the data's shape (the table checked the value)
        self._m = (auto_fuzzifier(X.shape[0], X.shape[1]) if isinstance(self.m, str)
                   else float(self.m))
        if isinstance(self.init, str):
            check_center_init(self.init, self._n_clusters, X)  # warns on an old spelling
        n, d = X.shape
        k = self._n_clusters
        init_shape = np.shape(self.init)
        if not out_of_core(X):  # out of core the memory is per chunk; the start is refused
            # measured: the frame (a copy of X), two membership buffers per block's
            # state, the memberships gathered and predicted, their distances
            check_rows_memory(type(self).__name__, X.shape, k, X.dtype.itemsize, 5)
        elif not isinstance(self.init, str) and init_shape != (k, d):
            raise ValueError(
                "Out of core, init must be 'k-means++', 'random' or centres of shape "
                f"(n_clusters, n_features) = ({k}, {d}); initial memberships would be an "
                "n_samples x n_clusters array in memory."
            )

    def _prepare(self, X: Any, sample_weight: Any = None) -> dict[str, Any]:  # type: ignore[override]
        chunk = self._chunk_rows(X)
        frame = centred_frame(X, chunk_rows=chunk)
        rows = backend_for(frame.Z, chunk)
        weights, unit = rows.weights(sample_weight)
        if isinstance(self.m, str) and not unit:
            # weights count as repeated rows: the formula's n is their total
            self._m = auto_fuzzifier(float(weights.sum(dtype=np.float64)), X.shape[1])
        return self._context(frame, rows, weights, unit)

    def _chunk_rows(self, X: Any) -> int:
        """Rows per block of the passes over X (and of the frame's sums)."""
        k = int(getattr(self, "_n_clusters", self.n_clusters))
        return fcm_chunk_rows(X.shape[1], X.dtype.itemsize, k, X.shape[0])

    def _context(self, frame: Frame, rows: Any, weights: Any, unit: bool) -> dict[str, Any]:
        """The restart context: the working frame, its row blocks, the checked weights."""
        context: dict[str, Any] = {
            "frame": frame, "rows": rows, "weights": weights,
            "sample_weight": None if unit else weights, "gamma": None,
        }
        init = self.init
        d = frame.Z.shape[1]
        if not isinstance(init, str) and np.asarray(init).shape == (self._n_clusters, d):
            init = frame.centers_to_frame(init).astype(frame.Z.dtype)
        context["init"] = init
        self._set_kernel(context)
        if context["gamma"] is None:  # kernel distances are bounded: any scale is fine
            check_objective_scale(frame.Z, frame)
        return context

    def _set_kernel(self, context: dict[str, Any]) -> None:
        """Plain FCM has no kernel."""

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """The automatic fuzzifier and 1.5, 2, 2.5 around Bezdek's usual m = 2."""
        return {"m": ["auto", 1.5, 2.0, 2.5]}

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        rows = context["rows"]  # the working frame's row blocks (in memory or out of core)
        k, init = self._n_clusters, context["init"]
        if isinstance(init, str):  # drawn on every row in memory, on a sample out of core
            Zs, ws = rows.start_rows(init_sample_size(k), random_state, context["weights"])
            centres, U0 = initial_point(init, Zs, k, ws, random_state)
        elif np.shape(init) == (k, rows.shape[1]):
            centres, U0 = np.asarray(init, dtype=rows.dtype), None
        else:  # memberships: in memory only (refused out of core by _setup_on_data)
            centres, U0 = initial_point(init, rows.X, k, context["weights"], random_state)
        res = fuzzy_alternation(
            rows,
            context["sample_weight"],
            FuzzyProblem(self._m),
            centres=centres,
            memberships=U0,
            gamma=context["gamma"],
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            callback=self._iteration_callback(),
        )
        return self._restart_result(res, context)

    def _iteration_callback(self) -> Any:
        """The verbose per-iteration report (None when silent)."""
        if not self.verbose:
            return None

        def callback(it: int, J: float) -> None:
            report(self.verbose, "%s iteration %d: objective %.6g", type(self).__name__, it, J)

        return callback

    def _restart_result(self, res: SolverResult, context: Any) -> SolverResult:
        """Fitted attributes of one restart from the solver's centres (``labels_`` and
        ``memberships_`` come from the final assignment step of the base class)."""
        frame: Frame = context["frame"]
        V = res.x[1]
        dtype = frame.Z.dtype
        # kernel distances are scale-free; squared distances scale by 1 / scale**2
        unit = 1.0 if context["gamma"] is not None else frame.scale
        with np.errstate(over="ignore"):
            hist = res.objective_history / unit / unit
        attrs = {
            "m_": self._m,
            "cluster_centers_": frame.centers_from_frame(V).astype(dtype),
            "_frame_mean": frame.mean,
            "_frame_scale": frame.scale,
        }
        attrs.update(context.get("attrs", {}))
        return SolverResult(
            x=attrs,
            objective=float(res.objective) / unit / unit,
            objective_history=hist,
            n_iter=res.n_iter,
            converged=res.converged,
            stop_crit=res.stop_crit,
            message=res.message,
            info=res.info,
        )

    def _distances(self, X: np.ndarray) -> np.ndarray:
        """Distances in the training frame (squared Euclidean times ``scale**2``)."""
        Z = X - self._frame_mean.astype(X.dtype)
        if self._frame_scale != 1.0:
            Z *= X.dtype.type(self._frame_scale)
        C = ((self.cluster_centers_.astype(np.float64) - self._frame_mean) * self._frame_scale)
        return squared_distances(Z, C.astype(X.dtype))

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        return np.asarray(memberships_from_distances(self._distances(X), self.m_))

    def transform(self, X: Any) -> npt.NDArray[np.floating]:
        """Memberships of each sample in each cluster (the same as :meth:`predict_proba`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        memberships : ndarray of shape (n_samples, n_clusters)
            Non-negative rows that sum to one.
        """
        return self.predict_proba(X)

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the objective of ``X`` at its optimal memberships (higher is better).

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
        _, cost = memberships_from_distances(
            self._distances(X), self.m_, return_cost=True
        )
        unit = 1.0 if getattr(self, "_frame_gamma", None) is not None else self._frame_scale
        return -float(cost.sum()) / unit / unit


class KernelFuzzyCMeans(FuzzyCMeans):
    r"""Kernel fuzzy c-means with an RBF kernel and centres in data space (SLMC eq. 15).

    Minimises

    .. math::

        J(U, V) = \sum_i w_i \sum_k u_{ik}^m \lVert \phi(x_i) - \phi(v_k) \rVert^2
                = \sum_i w_i \sum_k u_{ik}^m \, 2 \bigl(1 - k(x_i, v_k)\bigr)

    with :math:`k(x, y) = \exp(-\gamma \lVert x - y \rVert^2)`. The membership step
    is exact; the centre step is the fixed-point update
    :math:`v_k = \sum_i a_{ik} x_i / \sum_i a_{ik}`, :math:`a_{ik} = w_i u_{ik}^m
    k(x_i, v_k)`, which majorises-minimises J, so
    ``objective_history_`` is non-increasing.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters.
    m : float or "auto", default=2.0
        Fuzzifier, ``m > 1``; ``"auto"`` as in :class:`FuzzyCMeans` (a formula
        fitted for Euclidean distances: the bounded kernel distances keep the
        conventional 2 as the default here).
    gamma : float or {"sigma0", "scale", "local"}, default="sigma0"
        RBF coefficient. ``"sigma0"``: ``1 / (2 sigma0^2)`` with ``sigma0`` the mean
        pairwise distance of the training data (with ``sample_weight``, of the data
        with each row repeated ``w_i`` times, which needs a total weight above 1;
        estimated on 2000 rows
        drawn with ``random_state`` if it is an int, else with seed 0, when there
        are more); ``"scale"``: ``1 / (n_features X.var())``; a positive float.
        Both rules are scale-free (a fit is unchanged when X is multiplied by a
        constant).
    init : {"k-means++", "random"} or array-like, default="k-means++"
        As in :class:`FuzzyCMeans`.
    max_iter : int, default=300
        Maximum number of iterations.
    tol : float, default=1e-4
        Stop when the largest membership change is at most ``tol``.
    n_init : int, default=1
        Number of restarts; the lowest objective is kept.
    verbose : int, default=0
        Print the objective after each iteration to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed for the initialisation (and the sigma0 subsample).

    Attributes
    ----------
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centres (in data space).
    gamma_ : float
        The RBF coefficient used.
    sigma_ : float
        The same as a width, ``1 / sqrt(2 gamma_)``.
    m_ : float
        The fuzzifier used.
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
    n_clusters_found_ : int
        Number of non-empty clusters of ``labels_``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    With centres in data space the RBF kernel distance is a monotone function of the
    Euclidean distance, so the crisp labels are those of the nearest centre; the
    kernel changes the memberships (bounded distances damp far points) and the
    centre update (far points get weight ``k(x_i, v_k)``, close to 0).

    References
    ----------
    S. Chen and D. Zhang, "Robust image segmentation using FCM with spatial
    constraints based on new kernel-induced distance measure", IEEE Transactions
    on Systems, Man and Cybernetics, Part B 34 (2004) 1907-1916 (reference [8] of
    the SLMC paper); the SLMC paper's eq. 15 (kernel FCM, centres in data space).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import KernelFuzzyCMeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> kfcm = KernelFuzzyCMeans(n_clusters=2, random_state=0).fit(X)
    >>> bool(kfcm.labels_[0] == kfcm.labels_[1] != kfcm.labels_[2])
    True
    """

    _out_of_core = False  # the "sigma0" width reads a sample of the working frame in memory
    _collapse_advice = (
        "Use a larger gamma (a narrower kernel; e.g. a multiple of the default "
        "'sigma0'), a lower fuzzifier m, or more n_init."
    )
    _parameter_constraints = {**FuzzyCMeans._parameter_constraints, "gamma": GAMMA_CONSTRAINT}

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        m: float = 2.0,
        gamma: float | str = "sigma0",
        init: str | npt.ArrayLike = "k-means++",
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        verbose: int = 0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        super().__init__(
            n_clusters,
            m=m,
            init=init,
            max_iter=max_iter,
            tol=tol,
            n_init=n_init,
            verbose=verbose,
            random_state=random_state,
        )
        self.gamma = gamma

    def _set_kernel(self, context: dict[str, Any]) -> None:
        gamma_data, gamma_frame = resolve_frame_gamma(
            self, context["frame"], sample_weight=context["sample_weight"])
        context["gamma"] = gamma_frame
        with np.errstate(divide="ignore"):
            sigma = float(np.sqrt(0.5 / gamma_data)) if gamma_data > 0 else float("inf")
        context["attrs"] = {"gamma_": gamma_data, "sigma_": sigma, "_frame_gamma": gamma_frame}

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Kernel widths at multiples of the data's sigma0 (computed from X, centred)."""
        return {"gamma": kernel_gamma_grid(X, self.random_state), "m": [1.5, 2.0]}

    def _distances(self, X: np.ndarray) -> np.ndarray:
        D2 = super()._distances(X)
        return np.asarray(kernel_distances(D2, float(np.sqrt(0.5 / self._frame_gamma))))

"""Soft large margin clustering (SLMC, Wang & Chen 2013), exact and low-rank."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.utils import Tags

from ..base import BaseClusterer, ClusterTransformerMixin, SoftClusterMixin
from ..feature_maps import _low_rank, resolve_gamma
from ..objectives._slmc import (
    SLMCProblem,
    SLMCRowProblem,
    code_loss,
    u_step,
)
from ..solvers import SolverResult
from ..solvers._alternating import AlternatingMinimizer
from ..solvers._lloyd import nearest_one_hot, split_reseeded_start
from ..starts._kmeans import kmeans_plusplus_centres, kmeans_start_states
from ..starts._library import fcm_memberships
from ..starts._sample import START_SAMPLE_ROWS, sample_start
from ..starts._spectral import spectral_labels
from ..utils import (
    Fuzzifier,
    Init,
    MaxIter,
    NClusters,
    OneOf,
    Positive,
    check_memberships,
    membership_init,
    report,
    resolve_alias,
)
from ..utils._blocks import backend_for, out_of_core
from ..utils._preprocessing import column_spread_ratio, standardise_advice
from ._kernel_model import (
    KERNEL_CONSTRAINTS,
    KernelContext,
    KernelModelMixin,
)

__all__ = ["SLMC"]

_INITS = ("max-margin", "spectral", "fcm", "fcm-sharp", "k-means", "k-means++", "random")
_INIT_ALIASES = {"kmeans": "k-means", "kmeans++": "k-means++", "fcm_sharp": "fcm-sharp"}
_SHARP_M = 1.2
_START_ROWS = 20000  # out of core, the k-means / k-means++ starts run on this many rows


def _ones(Xb: Any) -> npt.NDArray[np.float64]:
    return np.ones((np.shape(Xb)[0], 1))


def _dirichlet(k: int, random_state: np.random.RandomState, n: int) -> npt.NDArray[np.float64]:
    return random_state.dirichlet(np.ones(k), size=n)


def _one_hot(labels: Any, k: int) -> npt.NDArray[np.float64]:
    return np.eye(k)[np.asarray(labels, dtype=np.intp)]


def _sample_one_hot(Xb: Any, labeller: Any, k: int) -> npt.NDArray[np.float64]:
    return _one_hot(labeller.predict(Xb), k)


_MAX_RESEEDS = 3


class _CollapseWatch:
    """An SLMC problem whose sweeps also count the non-empty clusters (``found``)."""

    def __init__(self, problem: Any, n_clusters: int, exact: bool) -> None:
        self.problem, self.K, self.exact = problem, n_clusters, exact
        self.found = n_clusters

    def step(self, state: Any) -> tuple[Any, float]:
        new, value = self.problem.step(state)
        sizes = (np.bincount(np.argmax(new[2], axis=1), minlength=self.K) if self.exact
                 else new[4])
        self.found = int(np.count_nonzero(sizes))
        return new, value

    def change(self, old: Any, new: Any) -> float:
        return float(self.problem.change(old, new))


class SLMC(KernelModelMixin, SoftClusterMixin, ClusterTransformerMixin, BaseClusterer):
    """Soft large margin clustering (Wang & Chen, Information Sciences 2013).

    Learns a kernel decision function :math:`f(x) = \\sum_i \\alpha_i k(x_i, x)` in
    :math:`\\mathbb{R}^K` and soft memberships :math:`U` by alternating two exact
    minimisations of

    .. math::

        J(\\alpha, U) = \\operatorname{tr}(\\alpha K \\alpha^\\top)
            + \\lambda \\sum_{i,k} u_{ik}^m \\, \\lVert f(x_i) - e_k \\rVert^2

    (:math:`K` the kernel matrix, :math:`e_k` the k-th unit vector, :math:`\\lambda`
    the parameter ``lam``).

    The alpha-step is a weighted kernel ridge regression solved by one Cholesky
    factorisation (the paper's printed eq. (8) is not the
    minimiser); the U-step is the closed form (13), computed in log space. ``J``
    never increases. Labels are ``argmax_k f_k(x)`` (= ``argmax_k u_k``,
    Proposition 1), so ``predict(X_train)`` equals ``labels_``.

    The data are centred internally (RBF and linear kernels), so a large common
    offset does not change the result; features are used at their scale, and
    standardising them first (``make_pipeline(StandardScaler(), SLMC(...))``)
    is recommended (the defaults were chosen on standardised data). The defaults are
    invariant to a uniform rescaling of ``X`` (``gamma`` is data-relative).

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``K``.
    kernel : {"rbf", "linear", "precomputed"} or callable, default="rbf"
        ``"rbf"``: ``exp(-gamma ||x - y||^2)``; ``"linear"``: ``x^T y + 1``
        on centred data (the paper's implicit threshold; this linear kernel is
        not scale-free, since the constant weighs more on small features:
        standardise first); a callable
        ``kernel(X, Y)`` returning the (n_x, n_y) kernel matrix (data not
        centred); ``"precomputed"``: ``X`` is the (n, n) training kernel
        matrix in ``fit`` and the (n_new, n) cross-kernel in ``predict``.
    gamma : float or {"local", "scale", "sigma0"}, default="local"
        RBF width parameter. ``"local"``: ``1 / s^2`` with ``s`` the median
        distance of a point to its 7th nearest neighbour (the local scale of
        Zelnik-Manor & Perona's self-tuning affinity;
        :func:`marginclust.feature_maps.neighbor_scale`, on at most 2,000
        rows); ``"scale"``: ``1 / (n_features * X.var())`` as in scikit-learn's
        SVC (about ``sigma = 0.5 sigma0``; the default before 0.2);
        ``"sigma0"``: ``1 / (2 sigma0^2)`` with ``sigma0`` the paper's mean
        pairwise distance (on at most 2,000 rows). The paper's grid ``sigma``
        in {0.25, ..., 4} x sigma0 is ``gamma`` in
        ``gamma_sigma0 / {0.0625, ..., 16}``. A width set by the whole data
        set's spread makes arms of a spiral or nested rings that are close
        relative to that spread look joined, so the margin objective prefers
        a convex cut through them; the neighbour width follows the gaps
        between neighbouring points (see Notes for the measurements).
    lam : float, default=10.0
        Weight of the membership-weighted squared loss (a sum over samples, as
        in the paper). Model selection keeps its value on subsamples and halves
        rather than rescaling it by their share of the rows: on 524-row
        subsamples of pendigits (10 clusters) ``lam=10`` scaled to 1.5 emptied
        clusters in 3 of 4 draws and ``lam=10`` in none. ``lam=10`` had the
        best mean Hungarian accuracy over eight standardised UCI sets among
        scale-free candidates at the defaults of 0.1 (``lam=1`` lost 24 points
        on heart_statlog); at those of 0.2, ``lam=100`` gave the same mean NCA
        on the benchmark battery (.925 against .923).
    m : float, default=2.0
        Fuzzifier (> 1).
    init : {"max-margin", "spectral", "fcm-sharp", "fcm", "k-means", "k-means++", \
            "random"} or array-like, default="max-margin"
        Initial memberships: one-hot labels of the partition
        :class:`~marginclust.MaxMarginClustering` picks (its label-free search over
        Genie, a Gaussian mixture, spectral clustering, k-means and Ward, judged by
        the class-balanced voting margin; on at most 2,000 rows, the others
        labelled by their nearest such row; on one column, where that margin
        cannot tell cuts apart, the spectral start), one-hot labels of self-tuning
        spectral clustering
        (:func:`marginclust.starts.spectral_labels`: the locally scaled
        10-nearest-neighbour graph, its Laplacian eigenvectors, k-means in that
        embedding; on at most 2,000 rows, the others labelled by their nearest
        such row), fuzzy c-means at ``m = 1.2`` (sharper; the default before
        0.2, since in high dimension FCM at ``m = 2`` is nearly uniform), fuzzy
        c-means at the same ``m`` (the paper's choice), one-hot labels of a
        scikit-learn K-means run, one-hot nearest-seed labels of k-means++
        seeds, random Dirichlet rows, or an (n_samples, n_clusters) membership
        matrix. With ``kernel="precomputed"`` the data-space inits run on the
        rows of the kernel matrix. ``"kmeans"`` and ``"kmeans++"`` are
        deprecated spellings. The alternation is a local search: from an FCM
        or k-means start it keeps their convex cut of a ring or a spiral,
        while the margin search's and the spectral start follow the data's
        connected groups (Notes).
    tol : float, default=1e-5
        Relative objective tolerance of the stopping rule.
    tol_memberships : float, default=1e-3
        Largest membership change allowed at convergence (both tolerances
        must hold). It guards against stopping on the objective alone from a
        near-uniform start, and the move must have stopped growing. Against
        1e-4, 1e-3 gave the same clustering accuracy on the eight shared data
        sets with 12-50% fewer sweeps.
    min_iter : int, default=5
        Minimum number of sweeps before the stopping rule may fire.
    max_iter : int, default=300
        Maximum number of sweeps per restart, its re-seeds included.
    n_init : int, default=1
        Number of restarts; the non-degenerate one with the smallest final
        ``J`` is kept.
    n_components : "auto", int or None, default="auto"
        None: exact kernel (O(n^2) memory, O(n^3) per sweep). An integer ``L``:
        low-rank mode with an ``L``-dimensional feature map (O(n L^2 + L^3) per
        sweep; the n x L features are kept in memory up to 1 GiB and recomputed
        per row block above, so memory stays O(n K + L^2) at any n).
        ``"auto"``: exact up to 2,000 samples, a rank-500 Nystroem map above
        (for pendigits, 3,498 rows and 10 clusters, the same clustering
        accuracy as the exact kernel at a fraction of the time; ``verbose=1``
        prints the switch). Exact mode refuses data whose kernel
        matrix would not fit in memory.
    low_rank : {"nystroem", "rff"}, default="nystroem"
        Feature map of the low-rank mode (Nystroem landmarks or random
        Fourier features, RBF only). Ignored for ``kernel="linear"``, whose
        exact features ``[x - mu, 1]`` are used.
    w_step : {"pcg", "exact"}, default="pcg"
        Solver of the low-rank W-step ``(I + lam Phi^T D Phi) W = lam Phi^T U^m``.
        ``"exact"`` forms ``Phi^T D Phi`` (O(n L^2)) at every sweep.
        ``"pcg"`` does so at the first sweep only and then runs conjugate
        gradients warm-started at the previous ``W``, preconditioned by the
        inverse of that first system (O(n L K) per CG iteration; ``D`` changes
        little between sweeps, so a few iterations reach a relative residual
        of 1e-5). CG lowers the W-step's quadratic from its warm start, so
        ``J`` still never increases; a sweep whose CG does not converge in 20
        iterations is redone exactly (which refreshes the preconditioner), and
        a CG step that took more iterations than an exact step costs (about
        ``L / (4 K)``) makes the next sweep exact (on standardised letter,
        20,000 rows and 26 clusters, CG took 13-20 iterations a sweep from the
        start's preconditioner and 2-5 with this refresh).
        On 100,000 x 20 blobs (10 clusters, L = 500) the converged objectives
        of the two agree to 1e-6 relative with the same labels
        (``tests/objectives/test_slmc_pcg.py``) and a sweep costs a
        fraction of an exact one.
        Ignored by the exact kernel and by features streamed from the data
        (too large to keep in memory, or out of core with
        :mod:`marginclust.dask`: every pass recomputes them, and a CG
        iteration would cost a pass), which take the exact step.
    dtype : {None, "float32", "float64"}, default=None
        dtype of the low-rank features; None follows ``X`` (float32 data give
        float32 features: half the memory, about twice the speed). The exact
        kernel matrix is always float64.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the low-rank feature map. Use an int to
        make the randomness deterministic.
    verbose : int, default=0
        ``verbose > 0`` prints the mode, the start (announced before the
        margin search runs, then its seconds), one line per sweep and a summary
        of each run of the alternation and of each re-seed to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        ``argmax_k f_k(x_i)``.
    memberships_ : ndarray of shape (n_samples, n_clusters)
        Final memberships ``U`` (rows on the simplex), in the input dtype.
    decision_values_ : ndarray of shape (n_samples, n_clusters)
        ``f(x_i)`` on the training data.
    dual_coef_ : ndarray of shape (n_samples, n_clusters) or None
        alpha^T (exact mode).
    coef_ : ndarray of shape (n_output_features, n_clusters) or None
        Primal weights (low-rank mode).
    feature_map_ : LowRankKernelMap or None
        Fitted feature map (low-rank mode).
    n_components_ : int or None
        Rank of the low-rank map used (None: exact kernel).
    gamma_ : float or None
        RBF ``gamma`` actually used.
    mean_ : ndarray of shape (n_features,) or None
        Training mean subtracted before the kernel.
    objective_ : float
        Final ``J``.
    objective_history_ : ndarray of shape (n_iter_,)
        ``J`` after each sweep (never increases).
    n_iter_ : int
        Sweeps run by the kept restart since its last re-seed (the length of
        ``objective_history_``).
    converged_ : bool
        Whether the kept restart met the stopping rule.
    n_clusters_found_ : int
        Non-empty clusters (a warning is raised when below ``n_clusters``).
    n_reseeds_ : int
        How often the kept restart re-seeded emptied clusters (at most 3). A
        sweep that leaves a cluster empty stops the alternation (as
        scikit-learn's KMeans relocates an empty cluster during its iterations,
        not after them); each empty cluster then takes half of the cluster of
        the largest sum of squared distances to its mean (two-means on that
        cluster's rows, seeded at its mean and at its row farthest from it),
        every other row keeps its label, and the alternation resumes from these
        one-hot memberships with the sweeps left of ``max_iter``. After the
        third re-seed, or when a re-seed would repeat an earlier one (the same
        sizes and split, up to the clusters' numbering), the alternation runs
        to its end whatever empties. ``objective_history_`` is that of the run
        after the last re-seed (``J`` jumps at a re-seed). Clusters that stay
        empty are numbered last (labels ``0 .. n_clusters_found_ - 1``).
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    marginclust.FuzzyCMeans : The initialisation.
    marginclust.IterativeLSSVM : The paper's binary LS-SVM baseline.

    Notes
    -----
    Defaults of 0.2 (``init="max-margin"``, ``gamma="local"``, ``w_step="pcg"``) against
    0.1's (``init="fcm-sharp"``, ``gamma="scale"``, exact W-step), label-free with the
    true K, mean normalised clustering accuracy (NCA; results in
    ``benchmarks/results/defaults_battery.md``): on the 33 sets with at most 3,000 points
    of Gagolewski's batteries fcps, graves and wut (rings, chains, spirals, nested and
    touching groups; the framework's "original" scaling) .701 -> .938, no collapsed fit;
    on 23 shared UCI-like sets (standardised, at most 3,000 rows, K = the number of
    classes) .503 -> .563; on 20 sets of the suite's sipu, uci and other batteries, never
    used to choose anything, .553 -> .748 (their 8 UCI sets .417 -> .453). The start
    matters most: with the neighbour width and 0.1's FCM start the battery mean is .697
    (the alternation keeps FCM's convex cut); from self-tuning spectral clustering
    (``init="spectral"``) it is .923, .524 and .699 on the three groups. The spectral
    start follows the best-separated structure of the graph, which on some real data is
    not the classes (iris: setosa split in two before versicolor and virginica are
    parted; categorical australian: a group of 58 of 690 rows); the margin search
    compares it with Genie's, a mixture's, k-means' and Ward's partitions and keeps the
    best separated, so the alternation starts from a convex split where that separates
    best and from a graph's where that does. It costs one
    :class:`~marginclust.MaxMarginClustering` fit on at most 2,000 rows (0.5 s of CPU on
    2,000 x 20 rows with 10 clusters, one BLAS thread). On 100,000 x 20 blobs with 10
    clusters (``make_blobs(..., cluster_std=2)``) the defaults find all ten (accuracy
    1.0; 0.1's merged two, .81).

    References
    ----------
    Y. Wang and S. Chen, "Soft large margin clustering", Information Sciences
    229 (2013) 157-168.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import SLMC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> est = SLMC(n_clusters=2, random_state=0).fit(X)
    >>> np.bincount(est.labels_).tolist()
    [20, 20]
    >>> est.predict_proba(X[:1]).round(2).sum()
    np.float64(1.0)
    """

    _out_of_core = True  # the low-rank mode (every sweep is one pass over the row blocks)
    _preserves_float32 = True  # transform of float32 data is float32 (every mode)
    # still collapsed after the re-seeds: the base numbers the non-empty clusters first
    _cluster_axes = {"memberships_": 1, "decision_values_": 1, "dual_coef_": 1, "coef_": 1}
    _collapse_advice = (
        "Standardise the features, raise lam (e.g. 10x) or use a narrower kernel "
        "(a larger gamma, e.g. 4x gamma_); more n_init also helps."
    )

    def _fit_collapse_advice(self) -> str:
        """The collapse advice naming what this fit tried: its start, its re-seeds (with
        the clusters each found) and, from the column spreads, whether standardising
        the features could change anything."""
        tried = getattr(self, "_tried", None)
        if tried is None:
            return self._collapse_advice
        K = self._n_clusters
        segments = tried["segments"]
        text = f"Tried: the start {tried['start']}"
        if tried["start_found"] is not None:
            text += f" ({tried['start_found']} of {K} clusters)"
        sweeps, found, stopped = segments[0]
        text += (f"; the alternation from it emptied clusters after {sweeps} sweeps "
                 f"({found} left)" if stopped else
                 f"; the alternation from it ended with {found} clusters")
        if len(segments) > 1:
            text += (f"; then {len(segments) - 1} re-seed(s), each giving an emptied cluster "
                     "half of the cluster of the largest spread, after which the "
                     f"alternation left {', '.join(str(f) for _, f, _ in segments[1:])} "
                     "clusters")
        text += f" ({tried['sweeps']} sweeps of max_iter={int(self.max_iter)})"
        if int(self.n_init) > 1:
            text += f", in each of n_init={int(self.n_init)} restarts (the best is kept)"
        text += ". "
        if self.kernel != "precomputed":
            text += standardise_advice(tried["spread"])
        other = "init='spectral'" if "'max-margin'" in tried["start"] else "init='max-margin'"
        return text + ("Raise lam (e.g. 10x) or use a narrower kernel (a larger gamma, e.g. "
                       f"4x gamma_); another init (e.g. {other}) or more n_init may help.")

    _parameter_constraints = {
        # n_clusters=1: the trivial one-cluster partition (u = 1)
        "n_clusters": NClusters(1),
        "lam": Positive(),
        "m": Fuzzifier(),
        "init": Init(_INITS, membership_init, "an array of memberships (n_samples, n_clusters)",
                     aliases=tuple(_INIT_ALIASES)),
        "tol": Positive(strict=False),
        "tol_memberships": Positive(strict=False),
        "max_iter": MaxIter(),
        "min_iter": MaxIter(),
        "n_init": MaxIter(),
        "w_step": OneOf(("pcg", "exact"), "w_step must be 'pcg' or 'exact'; got {value!r}."),
        **KERNEL_CONSTRAINTS,
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str = "local",
        lam: float = 10.0,
        m: float = 2.0,
        init: str | npt.ArrayLike = "max-margin",
        tol: float = 1e-5,
        tol_memberships: float = 1e-3,
        min_iter: int = 5,
        max_iter: int = 300,
        n_init: int = 1,
        n_components: int | str | None = "auto",
        low_rank: str = "nystroem",
        w_step: str = "pcg",
        dtype: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.lam = lam
        self.m = m
        self.init = init
        self.tol = tol
        self.tol_memberships = tol_memberships
        self.min_iter = min_iter
        self.max_iter = max_iter
        self.n_init = n_init
        self.n_components = n_components
        self.low_rank = low_rank
        self.w_step = w_step
        self.dtype = dtype
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _setup_on_data(self, X: Any) -> None:
        if out_of_core(X) and (
            self.kernel == "precomputed" or self._resolved_components(X.shape[0]) is None
        ):
            raise ValueError(
                "Out of core SLMC needs the low-rank mode (an exact kernel is an n x n "
                "matrix): set n_components (e.g. 500) and a kernel other than 'precomputed'."
            )
        self._check_kernel_params(X)

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)
        init_U = None
        if not isinstance(init, str):
            if hasattr(init, "__dask_graph__"):  # lazy memberships, row-aligned with X
                init_U = init
            else:
                init_U = check_memberships(init, X.shape[0], self._n_clusters, name="init")
        kctx = self._prepare_kernel(X, stream=True)
        # the rows the starts and the low-rank sweeps read: the centred data
        rows = backend_for(kctx.X)
        # what a collapse warning says of the data's scale (None: not measured)
        spread = None if self.kernel == "precomputed" else column_spread_ratio(X)
        return {"kernel": kctx, "rows": rows, "init": init, "init_U": init_U,
                "lam": float(self.lam), "m": float(self.m), "spread": spread}

    # ----------------------------------------------------------------- init
    def _initial_memberships(self, ctx: dict[str, Any], random_state: np.random.RandomState) -> Any:
        """The start's memberships, row-aligned with X (lazy out of core).

        Out of core ``"k-means"`` / ``"k-means++"`` run on a sample of rows (each
        row then takes its nearest centre) and ``"random"`` draws per row block;
        in memory they use every row, as on data no larger than the sample.
        """
        K = self._n_clusters
        rows = ctx["rows"]
        init = ctx["init"]
        if ctx["init_U"] is not None:
            return ctx["init_U"].astype(np.float64)
        if K == 1:
            return rows.map_rows(_ones, dtype=np.float64, tail=(1,))
        if init == "random":
            return rows.draw(functools.partial(_dirichlet, K), random_state)
        if init == "spectral" and not out_of_core(rows):  # every row (out of core: a sample)
            return np.eye(K)[spectral_labels(ctx["kernel"].X, K, random_state=random_state)]
        if init in ("spectral", "max-margin"):
            # every other row labelled by its nearest sample row, block by block
            labels, labeller = sample_start(rows, K, random_state, init)
            if labeller is None:  # every row: the in-memory start
                return np.eye(K)[labels]
            return rows.map_rows(_sample_one_hot, labeller, K, dtype=np.float64, tail=(K,))
        if init == "k-means":
            states = kmeans_start_states(rows, K, random_state, _START_ROWS)
            return rows.gather_states(_one_hot, states, K, dtype=np.float64, tail=(K,))
        if init == "k-means++":
            Xs, _ = rows.start_rows(_START_ROWS, random_state)
            centers = kmeans_plusplus_centres(Xs, K, random_state)
            return rows.map_rows(nearest_one_hot, centers, dtype=np.float64, tail=(K,))
        m = ctx["m"] if init == "fcm" else _SHARP_M
        return fcm_memberships(rows.estimator_input(), K, m, random_state)

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any = None) -> SLMC:
        """Fit SLMC to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data (dense; float32 kept in the low-rank mode), or the
            training kernel matrix if ``kernel="precomputed"``.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X)

    def _alternating_solver(self) -> AlternatingMinimizer:
        """The sweep driver with this estimator's stopping rule (in memory and on dask)."""
        return AlternatingMinimizer(
            tol=float(self.tol),
            tol_x=float(self.tol_memberships),
            min_iter=int(self.min_iter),
            max_iter=int(self.max_iter),
            verbose=self.verbose,
            tol_x_name="tol_memberships",
            name="SLMC",
            require_shrinking_move=True,
        )

    def _solve_from(
        self, ctx: dict[str, Any], U0: Any, max_iter: int, stop_on_collapse: bool = False,
    ) -> tuple[SolverResult, Any]:
        """One alternation from the memberships ``U0``: ``(result, sweep summary)``.

        At most ``max_iter`` sweeps; with ``stop_on_collapse`` it stops after the
        first sweep that leaves a cluster empty (the caller re-seeds it) while at
        least ``min_iter`` sweeps of the budget remain. The summary holds the
        weights (``"coef"``), training decision values (``"F"``), cluster sizes
        (``"sizes"``), each block's labels or state (``"states"``, for a re-seed)
        and whether the collapse stopped the run (``"stopped"``).
        """
        kctx: KernelContext = ctx["kernel"]
        K = self._n_clusters
        solver = replace(self._alternating_solver(), max_iter=int(max_iter))
        exact = kctx.Kmat is not None
        if exact:  # exact kernel (in memory)
            problem: Any = SLMCProblem(kctx.Kmat, ctx["lam"], ctx["m"])
            x0: Any = (U0, None, None)
        else:
            rows = ctx["rows"]
            L = int(kctx.fmap.n_output_features_)
            itemsize = np.dtype(kctx.fmap._out_dtype(rows)).itemsize
            budget = _low_rank.FEATURE_CACHE_BYTES
            # the features of every row are kept in memory only (out of core: per pass)
            cache = not out_of_core(rows) and rows.shape[0] * L * itemsize <= budget
            problem = SLMCRowProblem(rows, kctx.fmap, ctx["lam"], ctx["m"], U0, cache=cache,
                                     w_step=self.w_step)
            x0 = problem.initial_state()
        watch = _CollapseWatch(problem, K, exact)
        last = int(max_iter) - int(self.min_iter)

        def collapsed(it: int, value: float) -> bool:
            return stop_on_collapse and watch.found < K and it <= last

        res = solver.solve(watch, x0, callback=collapsed)
        stopped = stop_on_collapse and not res.converged and res.n_iter < int(max_iter)
        if exact:
            F = res.x[2]
            labels = np.argmax(F, axis=1)
            return res, {"coef": res.x[1], "F": F, "states": ctx["rows"].split(labels),
                         "sizes": np.bincount(labels, minlength=K), "stopped": stopped}
        return res, {"coef": res.x[0], "F": problem.decision_values(), "states": problem.states,
                     "sizes": np.asarray(res.x[4], dtype=np.intp), "stopped": stopped}

    def _fit_one(
        self, ctx: dict[str, Any], random_state: np.random.RandomState
    ) -> SolverResult:
        kctx: KernelContext = ctx["kernel"]
        K = self._n_clusters
        start = "init=<memberships>" if ctx["init_U"] is not None else f"init={ctx['init']!r}"
        if ctx["init_U"] is None and ctx["init"] == "max-margin" and K > 1:
            report(self.verbose, "SLMC start (%s): the margin search for %d clusters on "
                   "%d sample rows ...", start, K, min(START_SAMPLE_ROWS, kctx.X.shape[0]))
        t0 = time.perf_counter()
        U = self._initial_memberships(ctx, random_state)
        report(self.verbose, "SLMC start (%s): %.2f s", start, time.perf_counter() - t0)
        # One budget of max_iter sweeps for the alternation and its re-seeds: a sweep that
        # empties a cluster stops the run, the empty cluster takes half of the widest one
        # (as KMeans relocates an empty cluster during its iterations, not after them)
        # and the alternation resumes from that partition.
        budget, used, n_reseeds = int(self.max_iter), 0, 0
        seen: set[Any] = set()
        repeat = False
        start_found = None
        if isinstance(U, np.ndarray):
            start_found = int(np.count_nonzero(np.bincount(np.argmax(U, axis=1), minlength=K)))
        segments: list[tuple[int, int, bool]] = []
        while True:
            may_reseed = not repeat and n_reseeds < _MAX_RESEEDS
            t0 = time.perf_counter()
            res, out = self._solve_from(ctx, U, budget - used, stop_on_collapse=may_reseed)
            used += res.n_iter
            found = int(np.count_nonzero(out["sizes"]))
            segments.append((res.n_iter, found, bool(out["stopped"])))
            what = "the start" if n_reseeds == 0 else f"re-seed {n_reseeds}"
            report(self.verbose, "SLMC alternation from %s: %d sweeps%s, %d of %d clusters, "
                   "%.2f s", what, res.n_iter,
                   " (stopped: a cluster emptied)" if out["stopped"] else "", found, K,
                   time.perf_counter() - t0)
            if found == K or not may_reseed or budget - used < max(1, int(self.min_iter)):
                break
            t0 = time.perf_counter()
            U, splits = split_reseeded_start(ctx["rows"], out["states"], K)
            if not any(moved for _, _, moved in splits):
                # every cluster holds identical rows: none can be split
                if out["stopped"]:
                    res = replace(res, message=(
                        "The alternation stopped when a cluster emptied and no cluster "
                        "could be split to re-seed it (each holds identical rows)."))
                break
            # the sizes and the rows moved, up to the clusters' numbering: a re-seed that
            # repeats an earlier one (a collapse after it leaves the same partition, up to
            # numbering) would repeat its run, which collapsed; finish it without stopping
            key = (tuple(sorted(int(v) for v in out["sizes"])),
                   tuple(sorted(moved for _, _, moved in splits)))
            if key in seen:
                repeat = True
                segments.pop()  # redone to its end from the same start below
                report(self.verbose, "SLMC re-seed would repeat the previous one: the "
                       "alternation from it continues without further re-seeds")
                continue
            seen.add(key)
            n_reseeds += 1
            report(self.verbose, "SLMC re-seed %d of at most %d at sweep %d of %d (%d emptied "
                   "clusters, each given half of the cluster of the largest spread: %s), "
                   "%.2f s", n_reseeds, _MAX_RESEEDS, used, budget, K - found,
                   ", ".join(f"{c} -> {j} ({moved} rows)" for j, c, moved in splits),
                   time.perf_counter() - t0)
        if n_reseeds and not res.converged and used >= budget:
            res = replace(res, message=(
                f"Alternating minimisation stopped after max_iter={budget} sweeps ({n_reseeds} "
                f"re-seed(s) of emptied clusters, the last after sweep {used - res.n_iter}) "
                f"before meeting tol={float(self.tol):g} and "
                f"tol_memberships={float(self.tol_memberships):g}; increase max_iter or the "
                "tolerances."))
        x = {"decision_values_": out["F"], "n_reseeds_": n_reseeds,
             "_tried": {"start": start, "start_found": start_found, "segments": segments,
                        "sweeps": used, "spread": ctx["spread"]}}
        x.update(self._fitted_model(kctx, out["coef"]))
        return replace(res, x=x, info={"cluster_sizes": out["sizes"]})

    # -------------------------------------------------------- model selection
    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """``lam`` in {1, 10, 100} x ``gamma`` in {1/4, 1, 4} x the default width rule.

        Nine settings around the defaults (``lam=10``, ``gamma`` by its rule,
        ``"local"`` unless set): a factor 10 either way in ``lam`` and 2x either
        way in the width, computed from ``X`` only (centred, as in ``fit``).
        """
        Xa = np.asarray(X, dtype=np.float64)
        rule = self.gamma if isinstance(self.gamma, str) else "local"
        base = resolve_gamma(rule, Xa - Xa.mean(axis=0), random_state=0)
        return {"lam": [1.0, 10.0, 100.0],
                "gamma": [base * f for f in (0.25, 1.0, 4.0)]}

    # -------------------------------------------------------------- predict
    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values ``f(x)`` (one score per cluster).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (the (n_samples, n_train) cross-kernel if
            ``kernel="precomputed"``).

        Returns
        -------
        F : ndarray of shape (n_samples, n_clusters)
            One decision value per cluster; the label is the argmax.
        """
        X = self._validate_predict_data(X)
        return self._decision_values(X)

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        return self._memberships_of(X, self._decision_values(X))

    def _memberships_of(self, X: Any, F: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
        U = u_step(F, float(self.m))
        return U.astype(X.dtype if X.dtype == np.float32 else np.float64, copy=False)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return np.argmax(self._decision_values(X), axis=1)

    def _memberships_and_labels(
        self, X: Any
    ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.intp]]:
        """``(predict_proba(X), predict(X))`` from one evaluation of the decision values
        (in the low-rank mode each evaluation is a pass that maps every row anew)."""
        F = self._decision_values(X)
        return self._memberships_of(X, F), np.argmax(F, axis=1)

    def transform(self, X: Any) -> npt.NDArray[np.floating]:
        """Return the memberships of ``X`` (the U-step of the fitted ``f``), as ``predict_proba``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        U : ndarray of shape (n_samples, n_clusters)
            Rows on the simplex.
        """
        return self.predict_proba(X)

    def score(self, X: Any, y: Any = None) -> float:
        """Return minus the SLMC objective of the fitted ``f`` on ``X`` (higher is better).

        ``-(||f||^2 + lam * sum_i sum_k u_ik^m ||f(x_i) - e_k||^2)`` with the
        optimal memberships of ``X`` (the U-step); on the training data of a
        converged fit this is ``-objective_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            ``-J`` on ``X``.
        """
        X = self._validate_predict_data(X)
        F = self._decision_values(X)
        m = float(self.m)
        loss = code_loss(F, u_step(F, m), m)
        if self.coef_ is not None:
            reg = float(np.sum(np.asarray(self.coef_, dtype=np.float64) ** 2))
        else:
            reg = float(np.einsum("ik,ik->", self.dual_coef_, self.decision_values_))
        return -(reg + float(self.lam) * loss)

    def __sklearn_tags__(self) -> Tags:  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

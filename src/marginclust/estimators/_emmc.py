"""EMMC: extreme maximum margin clustering (Zhang, Xia, Liu & Zhang 2013)."""

from __future__ import annotations

import functools
import warnings
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer, one_cluster_result
from ..exceptions import ConvergenceWarning
from ..feature_maps import location_scale
from ..feature_maps._elm import ELM_CONSTRAINTS, ELMFeatures
from ..objectives._elm_ridge import (
    ELMRidgeProblem,
    ELMRowProblem,
    elm_outputs,
    emmc_objective,
    hidden_by_blocks,
    labels_to_targets,
    relabel,
    resolve_balance_count,
)
from ..solvers import LabelAlternation, SolverResult
from ..solvers._label_alternation import kmeans_on_sample
from ..starts._sample import sample_start
from ..starts._spectral import spectral_labels
from ..utils import (
    Init,
    MaxIter,
    NClusters,
    OneOf,
    Or,
    PositiveFinite,
    Seed,
    UnitInterval,
    Verbose,
    label_init,
    resolve_alias,
)
from ..utils._blocks import BLOCK_ROWS, backend_for, out_of_core
from ..utils._memory import check_memory
from ._balance import SIZE_SPREAD_BALANCE

__all__ = ["EMMC"]

_INITS = ("spectral", "k-means-elm", "k-means", "random")
_INIT_ALIASES = {"kmeans-elm": "k-means-elm", "kmeans": "k-means"}
_PER_SAMPLE_C = 100.0  # C="auto": C = 100 / n_samples, a weight on the MEAN squared residual
_AUTO_BALANCE_FLOOR = 0.03  # balance="auto" never bounds the spread below 0.03 n (the paper's)
_KMEANS_MAX_ROWS = 20000  # rows of the k-means start (as marginclust.solvers.kmeans_labels)
# rows of the k-means whose cluster sizes cap balance="auto": only the sizes are needed, and
# on 2,000 rows a size's share has a standard error of at most 1.1 % of n
_CAP_MAX_ROWS = 2000


class EMMC(BaseClusterer):
    """Extreme maximum margin clustering (Zhang, Xia, Liu & Zhang, IEICE 2013).

    Maximum margin clustering with the SVM replaced by a regularised ELM: over
    labels ``t`` (under the class balance constraint
    :math:`\\max_p N_p - \\min_q N_q \\le l`) and output weights :math:`\\beta` it
    minimises

    .. math::

        \\tfrac12 \\lVert \\beta \\rVert^2 + \\tfrac{C}{2} \\lVert H \\beta - T(t) \\rVert^2

    where :math:`H` is a random ELM hidden layer (:class:`ELMFeatures`). It alternates
    a ridge fit of ``beta`` (a Cholesky factor of ``I/C + H^T H`` computed once and
    reused, since only the targets change) with the optimal relabelling and the
    balance repair of Sec. 4.2, until the labels stop changing (the loop is
    :class:`marginclust.solvers.LabelAlternation`).

    Two clusters use targets ``+-1`` and the sign rule; more clusters one output
    (targets ``1..m``, nearest index) or one output per cluster (one-hot, argmax):
    see ``output``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters m (1 gives the trivial one-cluster partition).
    n_hidden : int, default=300
        Number of hidden nodes L (the paper uses 300 for mid-size sets, 1000 for
        USPS and L = n for small sets).
    activation : {"sigmoid", "gaussian"}, default="sigmoid"
        ELM node type.
    weight_scale : float, default=1.0
        Scale of the random node parameters relative to the data (see
        :class:`ELMFeatures`); too large saturates sigmoid nodes.
    C : float or "auto", default="auto"
        Trade-off of the squared loss, a weight on the SUM of squared residuals
        as in the paper (which uses C = 500). ``"auto"``: ``C = 100 / n_samples``,
        i.e. a weight of 100 on the MEAN squared residual, so the default means
        the same for any n (the ridge fit's effective degrees of freedom per sample
        do not grow with n, and a setting chosen on a subsample carries over).
        Measured label-free (standardised features, seeds 0 and 1, 8 shared sets):
        per-sample weights 1 to 1000 are within 2 points of each other; 100 and
        1000 were best on 5 of 8 sets, and 100 with ``balance="auto"`` gave a mean
        accuracy of 0.778 against 0.748 for the paper's C = 500, balance 0.03.
    output : {"auto", "single", "multi"}, default="auto"
        ``"single"``: one output node (targets ``+-1`` for two clusters, ``1..m``
        otherwise); ``"multi"``: one output per cluster (one-hot targets);
        ``"auto"``: single for two clusters, multi otherwise. The paper favours the
        single output, but with many clusters the ``1..m`` targets impose an
        arbitrary order on the clusters and the fit degrades (USPS, 10 clusters,
        L = 300: k-means init 68 %, single output 30-35 %, multi-output 71 %).
    balance : "auto", float or int, default="auto"
        Class balance ``l`` (the largest allowed spread of the cluster sizes): a
        float in (0, 1] is a fraction of n_samples (raised to 1 when n_clusters
        does not divide n_samples), an int an absolute count. The paper uses 0.03
        for balanced and 0.15 for imbalanced data, chosen knowing which is which.
        ``"auto"`` (label-free): the size spread of the initial labels, at most
        the spread of k-means in the hidden layer (on at most 2,000 rows, scaled
        to n; not computed for the ``"k-means-elm"`` start) and at least 0.03 n.
        The constraint exists to stop EMMC from drifting to a trivial, one-sided
        partition; bounding it by the start's own spread forbids that drift
        without forcing equal sizes on data whose clusters are not (wdbc, 357 /
        212: 0.858 with 0.03, 0.914 with "auto"; see ``balance_``). The cap
        keeps a graph start that isolates a small, well-separated group (a value
        of a categorical feature, a few outliers) from making that split the
        bound (Notes).
    init : {"spectral", "k-means-elm", "k-means", "random"} or array-like, \
            default="spectral"
        Initial labels: self-tuning spectral clustering
        (:func:`marginclust.starts.spectral_labels`: the locally scaled
        10-nearest-neighbour graph of X, its Laplacian eigenvectors, k-means in
        that embedding; on at most 2,000 rows, the others labelled by their
        nearest such row), k-means on the hidden layer (the paper's best scheme
        and the default before 0.2), k-means on X, uniform random labels, or
        given labels. k-means is the best of five runs on a 2000-row subsample
        polished by at most 10 Lloyd iterations on all rows
        (:func:`marginclust.solvers.kmeans_labels`). ``"kmeans-elm"`` and
        ``"kmeans"`` are deprecated aliases. EMMC moves few labels from its
        start (a ridge fit to the labels, then the optimal relabelling), so the
        start decides which partitions it can find: a k-means start keeps
        k-means' convex cut of a ring or a spiral, the spectral start follows
        the data's connected groups (Notes).
    tol : float, default=0.0
        Stop when at most ``tol * n_samples`` labels change in an iteration.
    max_iter : int, default=50
        Maximum number of alternations.
    n_init : int, default=1
        Restarts (new random features and init each); the lowest objective wins.
    verbose : int, default=0
        ``verbose > 0`` prints one line per iteration and per restart to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed of the ELM features and of the initialisation.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample (after the balance repair): the labels
        the final weights were fitted to.
    balance_moved_ : ndarray of int
        Training rows whose ``labels_`` differ from ``predict(X_train)``.
        ``fit_predict`` returns the balanced ``labels_``; :meth:`predict` applies the
        relabelling rule alone (no balance constraint for new data), so the rows the
        class-balance repair moved against their outputs are listed here (empty
        when the unconstrained labels already met the balance).
    coef_ : ndarray of shape (n_hidden,) or (n_hidden, n_clusters)
        Output weights ``beta`` fitted to the final labels.
    feature_map_ : ELMFeatures
        The fitted random hidden layer.
    balance_ : int
        The resolved spread ``l`` of the winning restart.
    C_ : float
        The resolved trade-off (``100 / n_samples`` for ``C="auto"``).
    output_ : {"binary", "single", "multi"}
        Target encoding used.
    solver_ : {"primal", "dual"}
        ``"dual"`` (n x n system) when n_hidden > n_samples, else ``"primal"``.
    stop_reason_ : {"converged", "cycle", "max_iter"}
        Why the alternation stopped; ``"cycle"`` when the labels returned to an
        earlier labeling (the multiclass repair can oscillate), with a warning.
    init_fixed_point_ : bool
        True when the first relabelling changed no label while the ridge smoother
        has more than n/2 effective degrees of freedom (it can reproduce any
        labels): EMMC did not move from its initialisation (see Notes).
    effective_dof_ : float
        ``trace(H (I/C + H^T H)^{-1} H^T)``; divided by n, the mean leverage of a
        sample on its own output (near 1: the fit interpolates).
    init_labels_ : ndarray of shape (n_samples,)
        Labels of the initialisation (possibly violating the balance).
    objective_ : float
        Final ``1/2 ||beta||^2 + C/2 ||H beta - T||^2``.
    objective_history_ : ndarray of shape (n_iter_,)
        ``J(t_k, beta_k)`` after each ridge fit, from the first labelling that meets
        the balance constraint: an initialisation that violates it is first
        repaired with the outputs of a fit to it (that fit is not recorded; its
        ``J`` can be below every feasible one). Non-increasing for two clusters,
        with any output, node type or init (both steps are exact minimisers over
        the feasible labellings); for more clusters the balance repair is the
        paper's greedy rule and ``J`` may rise.
    n_iter_ : int
        Ridge fits run.
    converged_ : bool
        Whether the labels stopped changing before ``max_iter``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.

    Notes
    -----
    The spectral start with the capped ``balance="auto"`` (0.2) against k-means in the
    hidden layer with the start's own spread (0.1), label-free with the true K, mean NCA
    (results in ``benchmarks/results/defaults_battery.md``): on the 33 sets with at most
    3,000 points of Gagolewski's batteries fcps, graves and wut .685 -> .858; on 23
    shared UCI-like sets (standardised, K = the number of classes) .597 -> .612; on 20
    held-out sets of the same suite .544 -> .607. EMMC keeps most labels of its start,
    so it inherits the spectral start's failures where the best-separated structure is
    not the classes; without the cap on the balance (the spectral start's own spread)
    the UCI-like sets fall to .551 (australian .063, iris .330). The cap follows
    k-means' preference for even sizes, so it costs where true clusters are more
    unequal than k-means' (wut/isolation .500 -> .337, wut/trapped_lovers 1.000 ->
    .784; on the 20 sets of 3,000-10,000 points of the suite, not used to choose it,
    .695 -> .677; on the 143 two-Gaussian sets g2mg and h2mg .884 -> .894).
    Fitting from both starts and keeping the lower ``objective_`` does not tell the
    cases apart: the objective favours the spectral start's lopsided splits (australian:
    1.43 against 1.98) and k-means' convex cuts on the shape sets.

    Cost per iteration is O(n L m) after the one-time O(n L^2 + L^3) factorisation
    (primal) or O(n^2 L + n^3) (dual). ``H^T H`` is accumulated over row blocks; H
    is kept in memory only when it takes less than 1 GiB, otherwise it is
    recomputed block by block in each pass (memory O(L^2 + block x L)), in
    float32 (the Gram matrix, the factorisation and beta stay float64), and
    ``H^T T`` is updated from the rows whose label changed only.

    With L close to or above n and a large C the ridge fit interpolates its
    targets, so the first relabelling returns the initial labels and EMMC stops
    at its initialisation (e.g. optdigits 3 vs 9, n = 357, L = 300, C = 500:
    ``effective_dof_ / n`` = 0.77). ``init_fixed_point_`` flags it (with a
    warning); a lower C or fewer nodes help.

    The balance constraint is hard: when it can only be met by moving one of
    several identical samples, identical samples end up in different clusters
    (they are listed in ``balance_moved_``). Every cluster is kept non-empty.

    The hidden layer acts on the data centred and divided by one global scale
    (:class:`ELMFeatures`), so labels are unchanged by a common offset
    (``X + 1e9``) or a uniform rescaling (``X * 1e-150`` to ``X * 1e200``), also on
    the float32 streamed path.

    :meth:`decision_function` returns the ELM outputs ``h(x) beta``; there are no
    memberships (EMMC is a hard method), and no centres (no ``transform``).
    :meth:`score` is minus the objective on new data.

    References
    ----------
    Q. Zhang, S. Xia, Y. Liu and J. Zhang, "Extreme maximum margin clustering",
    IEICE Trans. Inf. & Syst. E96-D(8), 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import EMMC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(30, 2) - 3, rng.randn(30, 2) + 3])
    >>> est = EMMC(n_clusters=2, n_hidden=20, random_state=0).fit(X)
    >>> est.labels_[[0, -1]]
    array([0, 1])
    >>> bool(np.all(np.diff(est.objective_history_) <= 0)), est.balance_moved_.size
    (True, 0)
    """

    _out_of_core: ClassVar[bool] = True  # the primal, on dense row blocks
    # labels_ meet the class balance; predict applies the relabelling rule alone
    _moved_attribute: ClassVar[str | None] = "balance_moved_"
    _accept_sparse: ClassVar[tuple[str, ...]] = ("csr",)
    _block_rows: ClassVar[int] = BLOCK_ROWS
    _max_cache_bytes: ClassVar[int] = 1 << 30
    _stream_dtype: ClassVar[type] = np.float32
    _collapse_advice: ClassVar[str] = (
        "Use a smaller balance (e.g. 0.03, which bounds the cluster-size spread), "
        "output='multi', a lower C or fewer n_hidden."
    )
    # the hidden layer sees (X - mean) / scale: labels unchanged by a common offset
    _translation_invariant: ClassVar[bool] = True
    # C multiplies a sum of squared residuals over the samples (the paper's eq. 11).
    _n_scaled_params: ClassVar[tuple[str, ...]] = ("C",)
    _parameter_constraints = {
        # n_clusters=1: the trivial one-cluster partition
        "n_clusters": NClusters(1),
        **ELM_CONSTRAINTS,
        "C": Or(("auto",), PositiveFinite(),
                "C must be a positive float or 'auto'; got {value!r}."),
        "output": OneOf(("auto", "single", "multi"),
                        "output must be 'auto', 'single' or 'multi'; got {value!r}."),
        "tol": UnitInterval(),
        "max_iter": MaxIter(),
        "balance": Or(
            ("auto",), SIZE_SPREAD_BALANCE,
            "balance must be 'auto', a float in (0, 1] or an int; got {value!r}.",
        ),
        "init": Init(_INITS, label_init, "an array of labels", aliases=tuple(_INIT_ALIASES)),
        "n_init": MaxIter(),
        "verbose": Verbose(),
        "random_state": Seed(),
    }

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_hidden: int = 300,
        activation: str = "sigmoid",
        weight_scale: float = 1.0,
        C: float | str = "auto",
        output: str = "auto",
        balance: float | int | str = "auto",
        init: Any = "spectral",
        tol: float = 0.0,
        max_iter: int = 50,
        n_init: int = 1,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_hidden = n_hidden
        self.activation = activation
        self.weight_scale = weight_scale
        self.C = C
        self.output = output
        self.balance = balance
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.verbose = verbose
        self.random_state = random_state

    # ------------------------------------------------------------ validation
    def _setup_on_data(self, X: Any) -> None:
        n = X.shape[0]
        m = self._n_clusters
        self._C = _PER_SAMPLE_C / n if isinstance(self.C, str) else float(self.C)
        balance = _AUTO_BALANCE_FLOOR if isinstance(self.balance, str) else self.balance
        self._balance = resolve_balance_count(balance, n, m)  # feasible: the table checked
        self._init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)
        if out_of_core(X):  # dense chunks and the primal only; memory per chunk
            if X.sparse:
                raise ValueError("Out of core EMMC needs dense row chunks; densify them.")
            if int(self.n_hidden) > n:
                raise ValueError(
                    f"Out of core EMMC solves the primal (n_hidden x n_hidden) system; "
                    f"n_hidden={self.n_hidden} > n_samples={n} needs the dual (n x n): fit "
                    "in memory or use fewer hidden nodes."
                )
        else:
            self._check_memory(n)
        if m <= 2 and self.output in ("auto", "single"):
            self._output = "binary"
        else:
            self._output = "multi" if self.output == "auto" else self.output

    def _check_memory(self, n: int) -> None:
        """Refuse a fit whose hidden-layer systems would not fit in memory (before any)."""
        L = int(self.n_hidden)
        if L > n:  # the dual: the n x n system, its factor, H and its products
            check_memory(8.0 * (4.5 * n * n + 2 * n * L),
                         f"EMMC's dual (n_hidden={L} > n_samples={n})",
                         "use n_hidden <= n_samples (the primal, L x L) or a subsample")
            return
        cached = n * L * 8 <= self._max_cache_bytes
        nbytes = 8.0 * (3 * L * L + 2 * min(n, self._block_rows) * L + (n * L if cached else 0))
        if isinstance(self._init, str) and self._init == "k-means-elm":
            nbytes += 4.0 * min(n, _KMEANS_MAX_ROWS) * L  # the start's float32 layer
        elif isinstance(self.balance, str):
            nbytes += 4.0 * min(n, _CAP_MAX_ROWS) * L  # the balance cap's float32 layer
        check_memory(nbytes, f"EMMC with n_hidden={L} on n_samples={n}",
                     "use fewer n_hidden or a subsample")

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        """Once per fit: the data's location and scale that every hidden layer uses."""
        mu, s = location_scale(X)
        return {"X": X, "mean": mu, "scale": s}

    # ------------------------------------------------------------- internals
    def _draw_features(
        self, rows: Any, context: Any, random_state: np.random.RandomState
    ) -> ELMFeatures:
        """This restart's hidden layer, drawn from ``rows`` (X, or a row indexer of an
        out-of-core X) with the location and scale of the fit's context."""
        return ELMFeatures(
            n_hidden=int(self.n_hidden),
            activation=self.activation,
            weight_scale=self.weight_scale,
            random_state=random_state,
        )._draw(rows, context["mean"], context["scale"], random_state)

    def _start(
        self, X: Any, rows: Any, fmap: ELMFeatures, f64: bool,
        random_state: np.random.RandomState,
    ) -> tuple[Any, Any, Any]:
        """The start: ``(labels or None, a labeller or None, its features)``.

        ``"spectral"``: :func:`~marginclust.starts.spectral_labels` (in memory;
        out of core the same sample of at most 2,000 rows is gathered and every
        other row takes the label of its nearest sample row, block by block, in
        the Gram pass); ``"k-means-elm"`` / ``"k-means"``:
        :func:`~marginclust.solvers.kmeans_on_sample` on at most 20,000 rows (every
        row when there are no more; the other rows take the nearest centre, block
        by block, in the Gram pass); ``"random"``: uniform labels (one stream in
        memory, one per row block out of core); an array: the given labels.
        """
        m = self._n_clusters
        init = self._init
        if not isinstance(init, str):
            return init, None, None
        if init == "spectral":
            if not out_of_core(rows):  # every row (out of core: a sample, as documented)
                return spectral_labels(X, m, random_state=random_state), None, None
            labels, labeller = sample_start(rows, m, random_state, "spectral")
            if labeller is None:  # every row: the in-memory start
                return labels, None, None
            return None, labeller, _identity
        if init == "random":
            return rows.draw(functools.partial(_random_labels, m), random_state), None, None
        km, feats, m_rows = _sample_kmeans(rows, fmap, f64, m, random_state,
                                           on_x=init == "k-means")
        if m_rows == rows.shape[0]:  # every row: k-means' own labels
            return np.asarray(km.labels_, dtype=np.intp), None, None
        return None, km, feats

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        """One restart from the context of :meth:`_prepare` (the base's contract).

        The primal (``n_hidden <= n_samples``) runs over the row blocks of X
        (:class:`~marginclust.objectives._elm_ridge.ELMRowProblem`; in memory or
        out of core); the dual (an n x n system) in memory.
        """
        X = context["X"]
        n = X.shape[0]
        m = self._n_clusters
        L = int(self.n_hidden)
        out = self._output
        rows = backend_for(X, self._block_rows)
        fmap = self._draw_features(rows.indexable(), context, random_state)
        if m == 1:
            return one_cluster_result(n, _attributes(
                np.zeros(L), fmap, self._balance, self._C, "binary", "none", "converged",
                False, np.zeros(n, dtype=np.intp), 0.0,
            ))
        dual = L > n
        f64 = dual or n * L * 8 <= self._max_cache_bytes
        labels0, km, feats = self._start(X, rows, fmap, f64, random_state)
        solver = LabelAlternation(
            max_iter=int(self.max_iter),
            tol=float(self.tol),
            verbose=int(self.verbose),
            name="EMMC",
        )
        l_max = self._balance
        auto = isinstance(self.balance, str)  # "auto": the start's own size spread, floored
        # ... and capped by the spread of k-means in the hidden layer (see `balance`)
        cap = None
        if auto and not (isinstance(self._init, str) and self._init == "k-means-elm"):
            cap = _kmeans_spread(rows, fmap, f64, m, random_state)
        if dual:  # in memory only (refused out of core)
            H = hidden_by_blocks(fmap._transform, X, self._block_rows)
            if km is not None:
                labels0 = np.concatenate([np.asarray(km.predict(feats(Xb)), dtype=np.intp)
                                          for Xb in rows.split(X)])
            labels0 = np.asarray(labels0, dtype=np.intp).copy()
            if auto:
                counts = np.bincount(labels0, minlength=m)
                l_max = _auto_spread(l_max, int(counts.max() - counts.min()), cap)
            problem: Any = ELMRidgeProblem(H, self._C, m, out, l_max)
            res = solver.solve(problem, labels0)
            labels, init_labels, sizes = res.x, labels0, np.bincount(res.x, minlength=m)
        else:
            cfg: dict[str, Any] = {
                "hidden": fmap._transform, "hdtype": np.float64 if f64 else self._stream_dtype,
                # the hidden layer of every row is kept in memory only (out of core: per pass)
                "f64": f64, "cache": f64 and not out_of_core(rows), "m": m, "out": out, "L": L,
                "km": km, "feats": feats,
            }
            problem = ELMRowProblem(rows, cfg, self._C, l_max, labels0)
            if auto:
                c0 = problem.init_counts
                l_max = _auto_spread(l_max, int(c0.max() - c0.min()), cap)
            problem.l_max = l_max
            # a label handle: the labels stay in the blocks
            res = solver.solve(problem, 0)
            labels, init_labels = problem.labels(res.x), problem.labels(0)
            sizes = problem.counts[res.x]
        beta = res.info["model"][0]
        dof = problem.dof
        fixed_point, message = self._stop_outcome(res, dof, n)
        x = _attributes(
            np.asarray(beta, dtype=np.float64), fmap, l_max, self._C, out,
            "dual" if dual else "primal", res.info["stop_reason"], fixed_point, init_labels, dof,
        )
        x["labels_"] = labels
        return replace(res, x=x, message=message, info={"cluster_sizes": sizes})

    @staticmethod
    def _stop_outcome(res: SolverResult, dof: float, n: int) -> tuple[bool, str]:
        """Whether the fit stopped at its start because the ridge fit interpolates, and
        the solver's message with advice; warns in the first case.

        Shared by the in-memory fit and the dask fitter (``marginclust.dask``).
        """
        fixed_point = bool(
            res.n_iter == 1
            and res.info["n_changed"] == 0
            and not res.info["start_repaired"]
            and dof > 0.5 * n
        )
        if fixed_point:
            warnings.warn(
                "EMMC stopped at its initialisation: the ridge fit has "
                f"{dof:.0f} effective degrees of freedom for {n} samples, so it reproduces "
                "any labels (n_hidden close to or above n_samples with a large C). Lower C "
                "or use fewer hidden nodes.",
                ConvergenceWarning,
                stacklevel=5,
            )
        message = res.message
        if res.info["stop_reason"] == "cycle":
            message += " Try output='multi', another balance or n_init > 1."
        return fixed_point, message

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Per-sample C of 10, 100 (the default) and 1000, and L = 100 or 300 (at most n / 2).

        C is returned in the sum convention for these n rows (``c / n``), so a
        search that refits on more rows rescales it
        (:func:`~marginclust.model_selection.n_scaled_params`). L is capped at half
        the samples so the ridge fit cannot reproduce any labelling
        (``init_fixed_point_``); the hidden layer is scaled to the data
        (:class:`ELMFeatures`), so the grid needs no kernel width.
        """
        n = X.shape[0]
        Ls = sorted({max(10, min(L, n // 2)) for L in (100, 300)})
        return {"C": [c / n for c in (10.0, _PER_SAMPLE_C, 1000.0)], "n_hidden": Ls}

    # ------------------------------------------------------------- prediction
    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """ELM outputs ``h(x) beta`` of new samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        F : ndarray of shape (n_samples,) or (n_samples, n_clusters)
            Single output: positive means cluster 1 (two clusters), or the value
            whose nearest index ``1..m`` is the cluster plus one; multi-output:
            one score per cluster.
        """
        X = self._validate_predict_data(X)
        return self._decision(X)

    def _decision(self, X: Any) -> npt.NDArray[np.float64]:
        return elm_outputs(self.feature_map_._transform, X, self.coef_, self._block_rows)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        """Optimal labels of the outputs (no balance repair for new samples)."""
        return relabel(self._decision(X), self._n_clusters, self.output_)

    def score(self, X: Any, y: Any = None) -> float:
        """Minus EMMC's objective on ``X``, each sample taking its best label.

        ``-(1/2 ||beta||^2 + C/2 sum_i ||h(x_i) beta - T(t_i)||^2)`` with ``t_i`` =
        :meth:`predict` (no balance constraint for new data). Higher is better.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Minus the objective; higher is better.
        """
        X = self._validate_predict_data(X)
        F = self._decision(X)
        T = labels_to_targets(
            relabel(F, self._n_clusters, self.output_), self._n_clusters, self.output_
        )
        return -emmc_objective(self.coef_, F, T, self.C_)


def _random_labels(m: int, random_state: np.random.RandomState, n: int) -> Any:
    return random_state.randint(m, size=n).astype(np.intp)


def _identity(rows: Any) -> Any:
    return rows


def _sample_kmeans(
    rows: Any, fmap: ELMFeatures, f64: bool, m: int, random_state: np.random.RandomState,
    *, on_x: bool = False, max_rows: int | None = None,
) -> tuple[Any, Any, int]:
    """k-means on a sample of at most ``max_rows`` (default 20,000) rows of the hidden
    layer (or of X).

    Returns the fitted :func:`~marginclust.solvers.kmeans_on_sample`, the feature
    function it was fitted in, and the number of rows of the sample.
    """
    if on_x:
        feats: Any = _identity
    elif f64:
        feats = functools.partial(_layer32, fmap._transform)
    else:
        feats = functools.partial(fmap._transform, dtype=np.float32)
    size = _KMEANS_MAX_ROWS if max_rows is None else max_rows
    sample, _ = rows.sample(size, random_state)
    return kmeans_on_sample(feats(sample), m, random_state), feats, int(sample.shape[0])


def _kmeans_spread(
    rows: Any, fmap: ELMFeatures, f64: bool, m: int, random_state: np.random.RandomState,
) -> int:
    """Size spread (largest minus smallest cluster) of k-means in the hidden layer.

    On a sample of ``s < n`` rows (at most 2,000), the sample's spread scaled by ``n / s``.
    """
    km, _, s = _sample_kmeans(rows, fmap, f64, m, random_state, max_rows=_CAP_MAX_ROWS)
    counts = np.bincount(np.asarray(km.labels_, dtype=np.intp), minlength=m)
    return int(round((counts.max() - counts.min()) * rows.shape[0] / s))


def _auto_spread(floor: int, start: int, cap: int | None) -> int:
    """``balance="auto"``: the start's spread, at most ``cap``, at least ``floor``."""
    return max(floor, start if cap is None else min(start, cap))


def _layer32(transform: Any, rows: Any) -> Any:
    """The float64 hidden layer of rows cast to float32 (the cached layer's start features)."""
    return hidden_by_blocks(transform, rows, BLOCK_ROWS).astype(np.float32)


def _attributes(
    coef: Any, fmap: ELMFeatures, balance: int, C: float, output: str, solver: str,
    stop_reason: str, init_fixed_point: bool, init_labels: Any, dof: float,
) -> dict[str, Any]:
    """The fitted attributes of one restart but ``labels_`` (``balance_moved_``: the base)."""
    return {
        "coef_": coef,
        "feature_map_": fmap,
        "balance_": balance,
        "C_": C,
        "output_": output,
        "solver_": solver,
        "stop_reason_": stop_reason,
        "init_fixed_point_": init_fixed_point,
        "init_labels_": init_labels,
        "effective_dof_": dof,
    }

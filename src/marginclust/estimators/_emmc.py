"""EMMC: extreme maximum margin clustering (Zhang, Xia, Liu & Zhang 2013)."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..base import BaseClusterer
from ..exceptions import ConvergenceWarning
from ..feature_maps._elm import ELMFeatures, _location_scale
from ..objectives._elm_ridge import (
    ELMRidgeProblem,
    emmc_objective,
    labels_to_targets,
    relabel,
    resolve_balance_count,
)
from ..solvers import LabelAlternation, SolverResult, kmeans_labels
from ..utils import (
    check_label_init,
    check_max_iter,
    check_positive_finite,
    check_unit_interval,
    resolve_alias,
)

__all__ = ["EMMC", "resolve_balance"]

_INITS = ("k-means-elm", "k-means", "random")
_INIT_ALIASES = {"kmeans-elm": "k-means-elm", "kmeans": "k-means"}

# Deprecated home of the count-valued balance (kept for one release).
resolve_balance = resolve_balance_count


def initial_labels(
    init: Any,
    X: Any,
    n_clusters: int,
    random_state: np.random.RandomState,
    features: Any = None,
) -> npt.NDArray[np.intp]:
    """Initial labels of EMMC.

    ``"k-means-elm"``: one k-means run (k-means++ seeding) on the ELM features
    ``h(x)`` in float32 (``features``: the cached layer, or a callable mapping
    rows of ``X`` to it; the paper's best scheme);
    ``"k-means"``: one k-means run on ``X``; ``"random"``: uniform random labels;
    an array: given labels. One k-means run gives the same start as ten on USPS
    (start accuracy 0.672 vs 0.671, final 0.687 vs 0.688, seed 0) at a tenth of
    the cost; restarts come from EMMC's own ``n_init``.
    """
    n = X.shape[0]
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.intp).copy()
    if init == "random":
        return random_state.randint(n_clusters, size=n).astype(np.intp)
    if init == "k-means":
        return kmeans_labels(X, n_clusters, random_state)
    if callable(features):
        return kmeans_labels(X, n_clusters, random_state, transform=features)
    return kmeans_labels(features, n_clusters, random_state)


class EMMC(BaseClusterer):
    """Extreme maximum margin clustering (Zhang, Xia, Liu & Zhang, IEICE 2013).

    Maximum margin clustering with the SVM replaced by a regularised ELM: over
    labels ``t`` (under the class balance constraint ``max_p N_p - min_q N_q <= l``)
    and output weights ``beta`` it minimises ``1/2 ||beta||^2 + C/2 ||H beta - T(t)||^2``
    where ``H`` is a random ELM hidden layer (:class:`ELMFeatures`). It alternates
    a ridge fit of ``beta`` (a Cholesky factor of ``I/C + H^T H`` computed once and
    reused, since only the targets change) with the optimal relabelling and the
    balance repair of Sec. 4.2, until the labels stop changing.

    Two clusters use targets ``+-1`` and the sign rule. More clusters use either
    ``output="single"`` (one output, targets ``1..m``, nearest-index rule) or
    ``output="multi"`` (one-hot targets, argmax rule).

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
    C : float, default=500.0
        Trade-off of the squared loss (the paper's C = 500).
    output : {"auto", "single", "multi"}, default="auto"
        ``"single"``: one output node (targets ``+-1`` for two clusters, ``1..m``
        otherwise); ``"multi"``: one output per cluster (one-hot targets);
        ``"auto"``: single for two clusters, multi otherwise. The paper favours the
        single output, but with many clusters the ``1..m`` targets impose an
        arbitrary order on the clusters and the fit degrades (USPS, 10 clusters,
        L = 300: k-means init 68 %, single output 30-35 %, multi-output 71 %).
    balance : float or int, default=0.03
        Class balance ``l``: a float in (0, 1] is a fraction of n_samples (raised
        to 1 when n_clusters does not divide n_samples), an int an absolute count.
        The paper uses 0.03 for balanced and 0.15 for imbalanced data.
    init : {"kmeans-elm", "kmeans", "random"} or array-like, default="kmeans-elm"
        Initial labels (see :func:`initial_labels`).
    tol : float, default=0.0
        Stop when at most ``tol * n_samples`` labels change in an iteration.
    max_iter : int, default=50
        Maximum number of alternations.
    n_init : int, default=1
        Restarts (new random features and init each); the lowest objective wins.
    random_state : int, RandomState instance or None, default=None
        Seed of the ELM features and of the initialisation.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample (after the balance repair).
    coef_ : ndarray of shape (n_hidden,) or (n_hidden, n_clusters)
        Output weights ``beta`` fitted to the final labels.
    feature_map_ : ELMFeatures
        The fitted random hidden layer.
    balance_ : int
        The resolved spread ``l``.
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
        Labels of the initialisation.
    objective_ : float
        Final ``1/2 ||beta||^2 + C/2 ||H beta - T||^2``.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective after each ridge fit (non-increasing for two clusters).
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

    :meth:`decision_function` returns the ELM outputs ``h(x) beta``; there are no
    memberships (EMMC is a hard method).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import EMMC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(30, 2) - 3, rng.randn(30, 2) + 3])
    >>> EMMC(n_clusters=2, n_hidden=20, random_state=0).fit(X).labels_[[0, -1]]
    array([0, 1])
    """

    _min_clusters: ClassVar[int] = 1  # n_clusters=1: the trivial one-cluster partition
    _accept_sparse: ClassVar[tuple[str, ...]] = ("csr",)
    _block_rows: ClassVar[int] = 8192
    _max_cache_bytes: ClassVar[int] = 1 << 30
    _stream_dtype: ClassVar[type] = np.float32

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_hidden: int = 300,
        activation: str = "sigmoid",
        weight_scale: float = 1.0,
        C: float = 500.0,
        output: str = "auto",
        balance: float | int = 0.03,
        init: Any = "k-means-elm",
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
    def _check_params(self, X: Any) -> None:
        n = X.shape[0]
        m = self._n_clusters
        ELMFeatures(
            n_hidden=self.n_hidden, activation=self.activation, weight_scale=self.weight_scale
        )._check_params()
        check_positive_finite(self.C, "C")
        if self.output not in ("auto", "single", "multi"):
            raise ValueError(f"output must be 'auto', 'single' or 'multi'; got {self.output!r}.")
        check_unit_interval(self.tol, "tol")
        check_max_iter(self.max_iter)
        self._balance = resolve_balance_count(self.balance, n, m)
        self._init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)
        check_label_init(self._init, n, m, _INITS)
        if m <= 2 and self.output in ("auto", "single"):
            self._output = "binary"
        else:
            self._output = "multi" if self.output == "auto" else self.output

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        """Once per fit: the data's location and scale that every hidden layer uses."""
        mu, s = _location_scale(X)
        return {"X": X, "mean": mu, "scale": s}

    # ------------------------------------------------------------- internals
    def _fit_one(self, context: Any, random_state: np.random.RandomState, **_: Any) -> SolverResult:
        X = context["X"]
        n = X.shape[0]
        m = self._n_clusters
        L = int(self.n_hidden)
        out = self._output
        fmap = ELMFeatures(
            n_hidden=L,
            activation=self.activation,
            weight_scale=self.weight_scale,
            random_state=random_state,
        )._draw(X, context["mean"], context["scale"], random_state)
        if m == 1:
            return _one_cluster(n, L, fmap, self._balance)
        dual = L > n
        cache = dual or n * L * 8 <= self._max_cache_bytes
        H = fmap._transform(X) if cache else None
        # when H is recomputed block by block in every pass, do it in _stream_dtype
        # (float32: half the time of the exp and the products; Gram accumulated in float64)
        sdt = self._stream_dtype

        def hidden(rows: Any) -> Any:
            return fmap._transform(X[rows], dtype=sdt)

        if isinstance(self._init, str) and self._init == "k-means-elm":
            feats: Any = (
                H.astype(np.float32)
                if H is not None
                else (lambda Xr: fmap._transform(Xr, dtype=np.float32))
            )
        else:
            feats = None
        init_labels = initial_labels(self._init, X, m, random_state, feats)
        problem = ELMRidgeProblem(
            hidden,
            n,
            L,
            float(self.C),
            m,
            out,
            self._balance,
            H=H,
            block_rows=self._block_rows,
            labels0=init_labels,
        )
        solver = LabelAlternation(
            max_iter=int(self.max_iter),
            tol=float(self.tol),
            verbose=int(self.verbose),
            name="EMMC",
        )
        res = solver.solve(problem, init_labels)
        labels = res.x
        beta, F, _ = res.info["model"]
        dof = problem.dof
        fixed_point = (
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
                stacklevel=4,
            )
        message = res.message
        if res.info["stop_reason"] == "cycle":
            message += " Try output='multi', another balance or n_init > 1."
        x = {
            "labels_": labels,
            "coef_": np.asarray(beta, dtype=np.float64),
            "feature_map_": fmap,
            "balance_": self._balance,
            "balance_moved_": np.flatnonzero(relabel(F, m, out) != labels),
            "output_": out,
            "solver_": "dual" if dual else "primal",
            "stop_reason_": res.info["stop_reason"],
            "init_fixed_point_": fixed_point,
            "init_labels_": init_labels,
            "effective_dof_": dof,
        }
        return SolverResult(
            x=x,
            objective=res.objective,
            objective_history=res.objective_history,
            n_iter=res.n_iter,
            converged=res.converged,
            stop_crit=res.stop_crit,
            message=message,
        )

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """C around the default (per-sample loss) and L around the default, from X's size."""
        n = X.shape[0]
        Ls = sorted({max(10, min(L, n // 2)) for L in (100, 300, 1000)})
        return {"C": [0.1, 1.0, 10.0, 100.0], "n_hidden": Ls}

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
        n = X.shape[0]
        F = np.empty((n,) + self.coef_.shape[1:])
        for start in range(0, n, self._block_rows):
            sl = slice(start, min(start + self._block_rows, n))
            F[sl] = self.feature_map_._transform(X[sl]) @ self.coef_
        return F

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
        """
        X = self._validate_predict_data(X)
        F = self._decision(X)
        T = labels_to_targets(relabel(F, self._n_clusters, self.output_), self._n_clusters,
                              self.output_)
        return -emmc_objective(self.coef_, F, T, float(self.C))


def _one_cluster(n: int, L: int, fmap: ELMFeatures, balance: int) -> SolverResult:
    """``n_clusters=1``: every sample in cluster 0 (``beta = 0``, outputs <= 0)."""
    x = {
        "labels_": np.zeros(n, dtype=np.intp),
        "coef_": np.zeros(L),
        "feature_map_": fmap,
        "balance_": balance,
        "balance_moved_": np.zeros(0, dtype=np.intp),
        "output_": "binary",
        "solver_": "none",
        "stop_reason_": "converged",
        "init_fixed_point_": False,
        "init_labels_": np.zeros(n, dtype=np.intp),
        "effective_dof_": 0.0,
    }
    return SolverResult(x=x, objective=0.0, objective_history=np.zeros(1), n_iter=1, converged=True)

"""EMMC: extreme maximum margin clustering (Zhang, Xia, Liu & Zhang 2013)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from scipy.linalg.blas import dsyrk, ssyrk
from sklearn.cluster import KMeans

from ..base import BaseClusterer
from ..exceptions import ConvergenceWarning
from ..feature_maps._elm import ELMFeatures, elm_hidden
from ..objectives._elm_ridge import (
    balance_feasible,
    factor_ridge,
    labels_to_targets,
    relabel,
    repair_balance,
    ridge_dof,
    ridge_dual,
    ridge_primal,
)
from ..solvers import SolverResult
from ..utils import check_label_init, check_max_iter, check_positive_finite, check_unit_interval

__all__ = ["EMMC", "resolve_balance", "initial_labels"]

_INITS = ("kmeans-elm", "kmeans", "random")
_KMEANS_MAX_ROWS = 20000  # k-means initialisations fit on at most this many rows


def resolve_balance(balance: Any, n: int, n_clusters: int) -> int:
    """The allowed class-size spread ``l`` (an int) of a ``balance`` parameter.

    A float in (0, 1] is a fraction of ``n``: ``l = floor(balance * n)``, raised to
    the smallest feasible spread (1 when ``n_clusters`` does not divide ``n``).
    An int is an absolute count and must be feasible.

    Parameters
    ----------
    balance : float or int
        The ``balance`` parameter.
    n : int
        Number of samples.
    n_clusters : int
        Number of clusters.

    Returns
    -------
    l_max : int

    Raises
    ------
    ValueError
        On a value of the wrong type or range, or an absolute count that no
        partition of ``n`` samples into ``n_clusters`` clusters can meet.
    """
    if isinstance(balance, bool) or not isinstance(balance, numbers.Real):
        raise ValueError(
            f"balance must be a float in (0, 1] (a fraction of n_samples) or a non-negative "
            f"int (an absolute count); got {balance!r}."
        )
    if isinstance(balance, numbers.Integral):
        l_max = int(balance)
        if l_max < 0:
            raise ValueError(f"balance as an absolute count must be >= 0; got {balance}.")
        if not balance_feasible(n, n_clusters, l_max):
            raise ValueError(
                f"balance={balance} cannot be met: {n} samples cannot be split into "
                f"{n_clusters} clusters whose sizes differ by at most {l_max}. Use "
                f"balance >= 1 (or a fraction such as 0.03)."
            )
        return l_max
    if not np.isfinite(balance) or not 0.0 < balance <= 1.0:
        raise ValueError(
            f"balance as a fraction of n_samples must lie in (0, 1]; got {balance!r}. "
            "Pass an int for an absolute count."
        )
    return max(int(np.floor(balance * n)), 0 if n % n_clusters == 0 else 1)


def initial_labels(
    init: Any,
    X: Any,
    n_clusters: int,
    feature_map: ELMFeatures | None,
    random_state: np.random.RandomState,
    block_rows: int = 8192,
) -> npt.NDArray[np.intp]:
    """Initial labels of EMMC (and of the IterSVR / IterSVM baselines).

    Parameters
    ----------
    init : {"kmeans-elm", "kmeans", "random"} or array-like of shape (n_samples,)
        ``"kmeans-elm"``: k-means on the ELM features ``h(x)`` (the paper's best
        scheme); ``"kmeans"``: k-means on ``X``; ``"random"``: uniform random
        labels; an array: given labels ``0..n_clusters-1``. k-means runs once
        (k-means++ seeding) on at most 20000 rows and assigns the rest.
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data.
    n_clusters : int
        Number of clusters.
    feature_map : ELMFeatures or None
        Fitted ELM map (needed for ``"kmeans-elm"``).
    random_state : RandomState
        Randomness.
    block_rows : int, default=8192
        Row-block size when features are computed on the fly.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    """
    n = X.shape[0]
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.intp).copy()
    if init == "random":
        return random_state.randint(n_clusters, size=n).astype(np.intp)
    sub = None
    if n > _KMEANS_MAX_ROWS:
        sub = np.sort(random_state.choice(n, size=_KMEANS_MAX_ROWS, replace=False))

    def feats(rows: Any) -> Any:
        if init == "kmeans-elm":
            assert feature_map is not None
            return feature_map._transform(rows)
        return rows

    km = KMeans(n_clusters=n_clusters, n_init=10 if sub is None else 3, random_state=random_state)
    km.fit(feats(X if sub is None else X[sub]))
    if sub is None:
        return km.labels_.astype(np.intp)
    out = np.empty(n, dtype=np.intp)
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)
        out[start:stop] = km.predict(feats(X[start:stop]))
    return out


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
        init: Any = "kmeans-elm",
        tol: float = 0.0,
        max_iter: int = 50,
        n_init: int = 1,
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
        self._balance = resolve_balance(self.balance, n, m)
        check_label_init(self.init, n, m, _INITS)
        if m <= 2 and self.output in ("auto", "single"):
            self._output = "binary"
        else:
            self._output = "multi" if self.output == "auto" else self.output

    # ------------------------------------------------------------- internals
    def _blocks(self, n: int) -> Iterator[slice]:
        for start in range(0, n, self._block_rows):
            yield slice(start, min(start + self._block_rows, n))

    def _fit_one(self, X: Any, random_state: np.random.RandomState, **_: Any) -> SolverResult:
        n = X.shape[0]
        m = self._n_clusters
        L = int(self.n_hidden)
        C = float(self.C)
        out = self._output
        if m == 1:
            return _one_cluster(X, L, self, random_state)
        fmap = ELMFeatures(
            n_hidden=L,
            activation=self.activation,
            weight_scale=self.weight_scale,
            random_state=random_state,
        ).fit(X)
        dual = L > n
        cache = dual or n * L * 8 <= self._max_cache_bytes
        H = fmap._transform(X) if cache else None
        # when H is recomputed block by block in every pass, do it in _stream_dtype
        # (float32: half the time of the exp and the products; Gram accumulated in float64)
        sdt = self._stream_dtype
        W_s, b_s = fmap.weights_.astype(sdt), fmap.biases_.astype(sdt)

        def hrows(rows: Any) -> Any:
            Xr = X[rows]
            if not hasattr(Xr, "toarray"):
                Xr = np.asarray(Xr, dtype=sdt)
            return elm_hidden(Xr, W_s, b_s, self.activation)

        def hblock(sl: slice) -> Any:
            return H[sl] if H is not None else hrows(sl)

        labels = initial_labels(self.init, X, m, fmap, random_state, self._block_rows)
        init_labels = labels
        T = labels_to_targets(labels, m, out)

        # One-time factorisation (only the targets change across iterations). In the
        # primal, the same pass over the row blocks also accumulates H^T T of the init.
        if dual:
            assert H is not None
            K = _syrk_add(np.zeros((n, n), order="F"), H)
            _symmetrize(K)
            factor = factor_ridge(K, C)
        else:
            G = np.zeros((L, L), order="F")
            HtT = np.zeros((L,) + T.shape[1:])
            for sl in self._blocks(n):
                Hb = hblock(sl)
                G = _syrk_add(G, Hb.T)
                HtT += Hb.T @ T[sl]
            _symmetrize(G)
            factor = factor_ridge(G, C)
            del G
        dof = ridge_dof(factor, C)

        seen: dict[bytes, int] = {labels.tobytes(): 0}
        history: list[float] = []
        converged = False
        stop_reason = "max_iter"
        fixed_point = False
        beta = None
        for it in range(1, int(self.max_iter) + 1):
            if dual:
                alpha = ridge_dual(factor, T)
                F = K @ alpha
                beta_sq = float(np.sum(alpha * F))
            else:
                beta = ridge_primal(factor, HtT)
                F = np.empty_like(T)
                beta_b = beta if H is not None else beta.astype(sdt)
                for sl in self._blocks(n):
                    F[sl] = hblock(sl) @ beta_b
                beta_sq = float(np.sum(beta * beta))
            r = F - T
            history.append(0.5 * beta_sq + 0.5 * C * float(np.sum(r * r)))
            new = relabel(F, m, out)
            new, _ = repair_balance(new, F, m, self._balance, out)
            n_changed = int(np.count_nonzero(new != labels))
            if it == 1 and n_changed == 0:
                # a trivial fixed point when the ridge smoother can reproduce any labels
                fixed_point = dof > 0.5 * n
            if n_changed <= self.tol * n:
                converged, stop_reason = True, "converged"
                break
            key = new.tobytes()
            if key in seen:
                stop_reason = "cycle"
                break
            seen[key] = it
            T_new = labels_to_targets(new, m, out)
            if not dual:
                if H is not None:
                    HtT = H.T @ T_new
                else:
                    # only the changed rows move H^T T: recompute just those rows of H
                    idx = np.flatnonzero(new != labels)
                    for start in range(0, idx.size, self._block_rows):
                        rows = idx[start : start + self._block_rows]
                        HtT += hrows(rows).T @ (T_new[rows] - T[rows])
            labels, T = new, T_new
        if dual:
            beta = H.T @ alpha  # type: ignore[union-attr]
        assert beta is not None
        if fixed_point:
            warnings.warn(
                "EMMC stopped at its initialisation: the ridge fit has "
                f"{dof:.0f} effective degrees of freedom for {n} samples, so it reproduces "
                "any labels (n_hidden close to or above n_samples with a large C). Lower C "
                "or use fewer hidden nodes.",
                ConvergenceWarning,
                stacklevel=4,
            )
        message = ""
        if stop_reason == "cycle":
            message = (
                "EMMC's relabelling returned to an earlier labeling (the class-balance repair "
                f"cycles); stopped after {it} iterations. Try output='multi', another "
                "balance or n_init > 1."
            )
        x = {
            "labels_": labels,
            "coef_": beta,
            "feature_map_": fmap,
            "balance_": self._balance,
            "output_": out,
            "solver_": "dual" if dual else "primal",
            "stop_reason_": stop_reason,
            "init_fixed_point_": fixed_point,
            "init_labels_": init_labels,
            "effective_dof_": dof,
        }
        return SolverResult(
            x=x,
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            stop_crit=float(n_changed),
            message=message,
        )

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
        for sl in self._blocks(n):
            F[sl] = self.feature_map_._transform(X[sl]) @ self.coef_
        return F

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        """Optimal labels of the outputs (no balance repair for new samples)."""
        return relabel(self._decision(X), self._n_clusters, self.output_)


def _one_cluster(X: Any, L: int, est: EMMC, random_state: np.random.RandomState) -> SolverResult:
    """``n_clusters=1``: every sample in cluster 0 (``beta = 0``, outputs <= 0)."""
    fmap = ELMFeatures(
        n_hidden=L,
        activation=est.activation,
        weight_scale=est.weight_scale,
        random_state=random_state,
    ).fit(X)
    n = X.shape[0]
    x = {
        "labels_": np.zeros(n, dtype=np.intp),
        "coef_": np.zeros(L),
        "feature_map_": fmap,
        "balance_": est._balance,
        "output_": "binary",
        "solver_": "none",
        "stop_reason_": "converged",
        "init_fixed_point_": False,
        "init_labels_": np.zeros(n, dtype=np.intp),
        "effective_dof_": 0.0,
    }
    return SolverResult(x=x, objective=0.0, objective_history=np.zeros(1), n_iter=1, converged=True)


def _syrk_add(G: npt.NDArray[np.float64], B: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``G + B B^T`` (upper triangle) via BLAS syrk; ``G`` F-ordered, ``B`` ideally F-contiguous.

    A C-contiguous row block ``H_b`` passed as ``H_b.T`` is F-contiguous, so
    ``_syrk_add(G, H_b.T)`` adds ``H_b^T H_b`` without a copy.
    """
    if B.dtype == np.float32:
        # float32 block product, accumulated into the float64 Gram matrix
        if not B.flags.f_contiguous:
            B = np.asfortranarray(B)
        G += ssyrk(1.0, B, trans=0, lower=0)
        return G
    B = np.asarray(B, dtype=np.float64)
    if not B.flags.f_contiguous:
        B = np.asfortranarray(B)
    return dsyrk(1.0, B, beta=1.0, c=G, trans=0, lower=0, overwrite_c=1)


def _symmetrize(G: npt.NDArray[np.float64]) -> None:
    """Copy the upper triangle of ``G`` to the lower one, in place."""
    iu = np.triu_indices(G.shape[0], 1)
    G[(iu[1], iu[0])] = G[iu]

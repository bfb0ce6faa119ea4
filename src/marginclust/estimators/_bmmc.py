"""BMMC: maximum margin clustering by CCCP + the bundle method (Li et al., IEEE Access 2019)."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ..base import BaseClusterer
from ..objectives._constraints import PairSet, make_pairs, resolve_balance
from ..objectives._mmc import LinearData, MMCObjective
from ..solvers._bundle import BundleMethod
from ..solvers._cccp import CCCP
from ..solvers._result import SolverResult
from ..utils import check_label_init, check_max_iter, check_positive
from ..utils._reporting import report

__all__ = ["BMMC", "initial_labels"]

_INITS = ("auto", "kmeans", "pca")


def _principal_scores(
    data: LinearData,
    n_components: int,
    random_state: np.random.RandomState,
    pairs: PairSet | None = None,
    n_iter: int = 8,
) -> npt.NDArray[np.float64]:
    """Scores on the top principal directions of the centred data (randomised subspace iteration).

    Works on dense or sparse ``X`` without centring it (``Xc v = X v - xbar.v``).
    With pairs, the directions maximise ``v'(S/tr S + S_cl/tr S_cl - S_ml/tr S_ml)v``
    (S: covariance; S_cl, S_ml: second moments of the cannot-link / must-link
    differences), a semi-supervised PCA in the spirit of SSDR (Zhang, Zhou & Chen
    2007): directions that spread cannot-linked and tie must-linked samples. Each
    score column is scaled to the square root of its eigenvalue.
    """
    X, xbar, n = data.X, data.xbar, data.n
    r = min(n_components, data.d)

    def cov(V: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        U = np.asarray(X @ V, dtype=np.float64) - xbar @ V
        return (np.asarray(X.T @ U, dtype=np.float64) - np.outer(xbar, U.sum(axis=0))) / n

    terms: list[tuple[float, Any]] = []
    tr_s = float(
        (X.multiply(X).sum() if sp.issparse(X) else np.einsum("ij,ij->", X, X)) / n - xbar @ xbar
    )
    terms.append((1.0 / max(tr_s, 1e-300), cov))
    shift = 0.0
    if pairs is not None and pairs.size:
        for sign, mask in ((1.0, pairs.z < 0), (-1.0, pairs.z > 0)):
            if not mask.any():
                continue
            D = X[pairs.u[mask]] - X[pairs.v[mask]]
            tr = float(D.multiply(D).sum() if sp.issparse(D) else np.einsum("ij,ij->", D, D))
            if tr <= 0:
                continue

            def second(V: npt.NDArray[np.float64], D: Any = D) -> npt.NDArray[np.float64]:
                return np.asarray(D.T @ np.asarray(D @ V), dtype=np.float64)

            terms.append((sign / tr, second))
            if sign < 0:
                shift = 1.0  # keeps the operator positive semidefinite for subspace iteration

    def op(V: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        out = shift * V
        for wgt, f in terms:
            out = out + wgt * f(V)
        return out

    V = random_state.standard_normal((data.d, r + 2))
    for _ in range(n_iter):
        V, _ = np.linalg.qr(op(V))
    # Rayleigh-Ritz on the small subspace to order the directions
    evals, evecs = np.linalg.eigh(V.T @ op(V))
    V = V @ evecs[:, ::-1][:, :r]
    evals = np.maximum(evals[::-1][:r] - shift, 0.0)
    U = np.asarray(X @ V, dtype=np.float64) - xbar @ V
    # spread of column j = sqrt(eigenvalue j): plain PCA scores up to one common factor;
    # with pairs, directions favoured by the constraints dominate the K-means that follows
    std = U.std(axis=0)
    return U * (np.sqrt(evals) / np.where(std > 0, std, 1.0))


def initial_labels(
    X: Any,
    n_clusters: int,
    init: Any,
    random_state: np.random.RandomState,
    data: LinearData | None = None,
    pairs: PairSet | None = None,
) -> npt.NDArray[np.intp]:
    """Initial labels for CCCP that avoid the trivial all-in-one-cluster solution.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated data.
    n_clusters : int
        Number of clusters.
    init : {"auto", "kmeans", "pca"} or array-like of shape (n_samples,)
        ``"kmeans"``: labels of one K-means run (scikit-learn, k-means++ seeding).
        ``"pca"``: K-means (3 initialisations) on the scores of the top
        ``min(d, max(2 k, 10))`` principal directions, found by randomised
        subspace iteration without centring ``X`` (cheap for very large or sparse
        data). With pairs the directions also spread cannot-linked and tie
        must-linked samples (see :func:`_principal_scores`). ``"auto"``:
        ``"pca"`` when pairs are given, else ``"kmeans"``. An array gives the
        labels directly.
    random_state : RandomState
        Randomness of K-means and of the subspace iteration.
    data : LinearData or None
        Precomputed data wrapper.
    pairs : PairSet or None
        Must-link / cannot-link pairs (used by ``"pca"``).

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    """
    n = X.shape[0]
    if isinstance(init, str):
        if init == "auto":
            init = "pca" if pairs is not None and pairs.size else "kmeans"
        if init == "kmeans":
            km = KMeans(n_clusters=n_clusters, n_init=1, random_state=random_state)
            return km.fit_predict(X).astype(np.intp)
        data = data if data is not None else LinearData(X)
        n_dir = min(data.d, max(2 * n_clusters, 10))
        S = _principal_scores(data, n_dir, random_state, pairs)
        km = KMeans(n_clusters=n_clusters, n_init=3, random_state=random_state)
        return km.fit_predict(S).astype(np.intp)
    return check_label_init(init, n, n_clusters)  # type: ignore[return-value]


class BMMC(BaseClusterer):
    """Maximum margin clustering by CCCP and the bundle method (BMMC).

    Linear maximum margin clustering: binary (``n_clusters=2``, Li et al. 2019
    eqs. 3-18) or multiclass (eqs. 19-34, one weight vector per cluster, label
    = argmax of the scores), with the class balance constraint and, optionally,
    must-link / cannot-link pairs (Sec. IV). The non-convex problem is solved by
    CCCP (the signs / argmax are fixed at the current iterate), each convex
    subproblem by a bundle method for regularised risk minimisation whose small
    QP is solved exactly. Dense and sparse (CSR) input; the cost per bundle step
    is ``O(n_clusters * nnz(X))``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters (2: binary model; more: multiclass model; 1: the
        trivial one-cluster partition).
    C : float, default=1.0
        Weight of the mean hinge loss (the paper's ``C``; the loss is divided by
        ``n``, by ``nk`` for multiclass). ``C`` is not scale free: when the scores
        stay far inside the margin (small ``C`` for the data's scale) the MMC
        optimum may put every sample on one side; raise ``C`` then.
    balance : int or float, default=0.1
        The ``l`` of eq. (3)/(21): an int is the absolute bound on
        ``|sum_i f(x_i)|`` (resp. on ``|sum_i f_p(x_i) - sum_i f_q(x_i)|``); a
        float in ``(0, 1]`` is a fraction of ``n_samples``.
    C_pairs : float, default=1.0
        Weight ``C'`` of the pairwise loss (used only with ``must_link`` /
        ``cannot_link``).
    tol : float, default=0.01
        CCCP stops when the true objective decreases by at most ``tol`` times its
        value (the paper's epsilon), or when the signs / argmax repeat.
    max_iter : int, default=50
        Maximum CCCP iterations.
    inner_tol : float, default=1e-3
        Bundle method stops when (best value - model minimum) <= inner_tol * best value.
    inner_max_iter : int, default=200
        Maximum bundle steps per CCCP iteration.
    init : {"auto", "kmeans", "pca"} or array-like of shape (n_samples,), default="auto"
        Initial labels (they define the first convex subproblem, so the trivial
        solution ``w = 0`` is never the starting point): K-means labels, or a
        principal-direction split (constraint-aware with pairs), or given labels;
        ``"auto"`` is ``"pca"`` with pairs and ``"kmeans"`` without (see
        :func:`initial_labels`).
    n_init : int, default=1
        Restarts (different K-means seeds); the lowest objective is kept.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        Solver of the bundle QP: ``"auto"`` = the built-in active-set method
        warm-started from the previous bundle step (interior point fallback);
        ``"ipm"``: the built-in interior point method; ``"clarabel"``: the
        optional clarabel package.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    verbose : int, default=0
        Verbosity (logging).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster labels.
    coef_ : ndarray of shape (1, n_features) or (n_clusters, n_features)
        Weights ``w`` (binary) or ``w_r`` (multiclass).
    intercept_ : ndarray of shape (1,) or (n_clusters,)
        Offsets ``b``.
    objective_ : float
        True (non-convex) objective at the solution.
    objective_history_ : ndarray
        True objective after each CCCP iteration (non-increasing).
    n_iter_ : int
        CCCP iterations.
    n_inner_iter_ : ndarray of int
        Bundle steps of each CCCP iteration.
    converged_ : bool
        Whether CCCP met its stopping rule.
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    Written around the data mean: ``f(x) = w.(x - xbar) + t`` with ``t`` the mean
    score, so the balance constraint is the box ``|t| <= l/n`` (binary) or
    ``|t_p - t_q| <= l/n`` (multiclass, with ``sum_r t_r = 0`` since a common shift
    does not change the labels), and the bundle QP only involves ``t``. The
    multiclass model has offsets (the paper's eq. 19 has none); with them the
    ``n_clusters=2`` multiclass problem is exactly the binary one for
    ``f = f_1 - f_2`` at half the objective. The semi-supervised variant keeps the
    balance constraint (the paper drops it); a loose bound such as
    ``balance=1.0`` effectively removes it.

    References
    ----------
    J. Li, J. Sun, L. Liu, B. Liu, C. Xiao, F. Wang. Improved maximum margin
    clustering via the bundle method. IEEE Access 7, 2019.
    C. H. Teo, S. V. N. Vishwanathan, A. J. Smola, Q. V. Le. Bundle methods for
    regularized risk minimization. JMLR 11, 2010.
    """

    _accept_sparse = ("csr", "csc", "coo")
    _min_clusters = 1  # n_clusters=1: the trivial one-cluster partition (f = -1 everywhere)

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        C: float = 1.0,
        balance: int | float = 0.1,
        C_pairs: float = 1.0,
        tol: float = 0.01,
        max_iter: int = 50,
        inner_tol: float = 1e-3,
        inner_max_iter: int = 200,
        init: Any = "auto",
        n_init: int = 1,
        qp: str = "auto",
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.balance = balance
        self.C_pairs = C_pairs
        self.tol = tol
        self.max_iter = max_iter
        self.inner_tol = inner_tol
        self.inner_max_iter = inner_max_iter
        self.init = init
        self.n_init = n_init
        self.qp = qp
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- fitting
    def fit(self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None) -> BMMC:
        """Fit the clustering to ``X``, optionally with pairwise constraints.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.
        must_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should share a cluster.
        cannot_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should be in different clusters.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, must_link=must_link, cannot_link=cannot_link)

    def _check_params(self, X: Any) -> None:
        check_positive(self.C, "C")
        check_positive(self.C_pairs, "C_pairs", strict=False)
        check_positive(self.tol, "tol")
        check_positive(self.inner_tol, "inner_tol")
        for name in ("max_iter", "inner_max_iter"):
            check_max_iter(getattr(self, name), name)
        resolve_balance(self.balance, X.shape[0])
        _check_init_qp(self.init, self.qp)
        if not isinstance(self.C, Real):  # pragma: no cover - check_positive covers it
            raise ValueError("C must be a real number.")

    def _make_objective(self, X: Any, must_link: Any, cannot_link: Any) -> MMCObjective:
        n = X.shape[0]
        pairs = make_pairs(must_link, cannot_link, n)
        bound = resolve_balance(self.balance, n) / n
        return MMCObjective(
            X, self._n_clusters, float(self.C), bound, C_pairs=float(self.C_pairs), pairs=pairs
        )

    def _solver(self) -> CCCP:
        inner = BundleMethod(tol=self.inner_tol, max_iter=self.inner_max_iter, qp=self.qp)
        return CCCP(inner, tol=self.tol, max_iter=self.max_iter)

    def _fit_one(
        self,
        X: Any,
        random_state: np.random.RandomState,
        must_link: Any = None,
        cannot_link: Any = None,
    ) -> SolverResult:
        if self._n_clusters == 1:
            return _one_cluster(X)
        obj = self._make_objective(X, must_link, cannot_link)
        labels0 = initial_labels(X, self._n_clusters, self.init, random_state, obj.data, obj.pairs)
        res = self._solver().solve(obj, obj.zero(), first=obj.surrogate(labels0))
        report(
            self.verbose,
            "BMMC: %d CCCP iterations, bundle steps %s, objective %.6g",
            res.n_iter,
            res.info["n_inner_iter"],
            res.objective,
        )
        return _linear_result(
            X,
            obj,
            res,
            {"n_inner_iter_": np.asarray(res.info["n_inner_iter"], dtype=np.intp)},
            f"BMMC: CCCP stopped at max_iter={self.max_iter} before the objective "
            f"changed by less than tol={self.tol}; increase max_iter or tol.",
        )

    # ---------------------------------------------------------- prediction
    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Scores ``f(x) = w.x + b`` (binary, shape (n,)) or ``W x + b`` (shape (n, n_clusters)).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_clusters)
        """
        X = self._validate_predict_data(X)
        return self._scores(X)

    def _scores(self, X: Any) -> npt.NDArray[np.float64]:
        return _linear_scores(X, self.coef_, self.intercept_)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return _labels(self._scores(X))


def _one_cluster(X: Any) -> SolverResult:
    """The one-cluster partition (``n_clusters=1``): ``w = 0, b = -1``, nothing to fit."""
    x = {
        "labels_": np.zeros(X.shape[0], dtype=np.intp),
        "coef_": np.zeros((1, X.shape[1])),
        "intercept_": np.array([-1.0]),
        "n_inner_iter_": np.zeros(0, dtype=np.intp),
    }
    return SolverResult(x=x, objective=0.0, objective_history=np.zeros(1), n_iter=0, converged=True)


def _check_init_qp(init: Any, qp: Any) -> None:
    """Validate the ``init`` name and the ``qp`` backend shared by BMMC and CPMMC."""
    if isinstance(init, str) and init not in _INITS:
        raise ValueError(f"init must be one of {_INITS} or an array of labels; got {init!r}.")
    if qp not in ("auto", "active-set", "ipm", "clarabel"):
        raise ValueError(f"qp must be 'auto', 'active-set', 'ipm' or 'clarabel'; got {qp!r}.")


def _linear_result(
    X: Any, obj: MMCObjective, res: SolverResult, extra: dict[str, Any], message: str
) -> SolverResult:
    """Fitted attributes of a solved linear MMC: ``b = t - W xbar`` (uncentred), labels.

    ``extra`` holds the solver's own fitted attributes; ``message`` is used only
    when the solver did not converge.
    """
    W, t = res.x
    b = t - W @ obj.data.xbar
    x = {"labels_": _labels(_linear_scores(X, W, b)), "coef_": W.copy(), "intercept_": b}
    x.update(extra)
    return SolverResult(
        x=x,
        objective=res.objective,
        objective_history=res.objective_history,
        n_iter=res.n_iter,
        converged=res.converged,
        message="" if res.converged else message,
    )


def _linear_scores(X: Any, W: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> Any:
    """``X W' + b``, flattened to (n,) for one output."""
    if sp.issparse(X):
        X = X.tocsr()
    F = np.asarray(X @ W.T, dtype=np.float64) + b
    return F[:, 0] if W.shape[0] == 1 else F


def _labels(F: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """``f >= 0 -> 1`` for one output, else the argmax (ties to the lower index)."""
    if F.ndim == 1:
        return (F >= 0).astype(np.intp)
    return np.argmax(F, axis=1).astype(np.intp)

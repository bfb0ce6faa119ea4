"""Shared parts of the linear maximum margin clusterers (BMMC, CPMMC).

One home for what both estimators do the same way: the once-per-fit context
(validated pairs, the data wrapper with its mean and scale, the objective), the
initial labels, the fitted attributes of a solved linear model, and the
prediction side (``decision_function``, ``predict``, ``transform``, ``score``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.base import TransformerMixin
from sklearn.cluster import KMeans

from ..base import BaseClusterer
from ..objectives._constraints import PairSet, make_pairs, resolve_balance
from ..objectives._mmc import LinearData, MMCObjective, true_margin_loss
from ..solvers._result import SolverResult
from ..utils import (
    check_finite_scale,
    check_label_init,
    resolve_alias,
)

__all__ = [
    "INITS",
    "INIT_ALIASES",
    "LinearMMCBase",
    "MMCContext",
    "initial_labels",
    "labels_from_scores",
    "linear_result",
    "linear_scores",
    "one_cluster_result",
    "principal_scores",
]

INITS = ("auto", "k-means", "pca")
INIT_ALIASES = {"kmeans": "k-means"}
QPS = ("auto", "active-set", "ipm", "clarabel")


@dataclass
class MMCContext:
    """Once-per-fit state shared by the restarts of a linear MMC fit."""

    X: Any
    init: Any
    pairs: PairSet
    objective: MMCObjective | None  # None for n_clusters=1


def principal_scores(
    data: LinearData,
    n_components: int,
    random_state: np.random.RandomState,
    pairs: PairSet | None = None,
    n_iter: int = 4,
) -> npt.NDArray[np.float64]:
    """Scores on the top principal directions of the centred data (randomised subspace iteration).

    Works on dense or sparse ``X`` without centring it (``Xc v = X v - xbar.v``).
    With pairs, the directions maximise ``v'(S/tr S + S_cl/tr S_cl - S_ml/tr S_ml)v``
    (S: covariance; S_cl, S_ml: second moments of the cannot-link / must-link
    differences), a semi-supervised PCA in the spirit of SSDR (Zhang, Zhou & Chen
    2007): directions that spread cannot-linked and tie must-linked samples. Each
    score column is scaled to the square root of its eigenvalue. The subspace has
    ``n_components + 2`` columns and ``n_iter`` power steps (Halko et al. 2011:
    a few steps suffice for the leading directions that a 2-way split needs).
    """
    X, xbar, n = data.X, data.xbar, data.n
    r = min(n_components, data.d)

    def cov(V: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        U = np.asarray(X @ V, dtype=np.float64) - xbar @ V
        return (np.asarray(X.T @ U, dtype=np.float64) - np.outer(xbar, U.sum(axis=0))) / n

    terms: list[tuple[float, Any]] = []
    tr_s = data.sum_sq / n  # computed once per fit by LinearData, no copy of X
    terms.append((1.0 / max(tr_s, 1e-300), cov))
    shift = 0.0
    if pairs is not None and pairs.size:
        for sign, mask in ((1.0, pairs.z < 0), (-1.0, pairs.z > 0)):
            if not mask.any():
                continue
            D = X[pairs.u[mask]] - X[pairs.v[mask]]
            tr = float(
                D.data @ D.data if sp.issparse(D) else np.einsum("ij,ij->", D, D)
            )
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
    if len(terms) == 1:
        # plain PCA: Rayleigh-Ritz from the scores themselves (V' S V = U'U / n), one
        # pass over X instead of three; the scores are U times the Ritz vectors
        U = np.asarray(X @ V, dtype=np.float64) - xbar @ V
        Rt = np.linalg.svd(U, full_matrices=False)[2]
        return np.asarray(U @ Rt[:r].T, dtype=np.float64)
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
    init : {"auto", "k-means", "pca"} or array-like of shape (n_samples,)
        ``"k-means"``: labels of one K-means run (scikit-learn, k-means++ seeding).
        ``"pca"``: K-means (one k-means++ run) on the scores of the top
        ``min(d, 2 k)`` principal directions (``min(d, max(2 k, 10))`` with
        pairs), found by randomised
        subspace iteration without centring ``X`` (cheap for very large or sparse
        data). With pairs the directions also spread cannot-linked and tie
        must-linked samples (see :func:`principal_scores`). ``"auto"``:
        ``"pca"`` when pairs are given or ``X`` is sparse, else ``"k-means"``.
        An array gives the labels directly.
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
            init = "pca" if (pairs is not None and pairs.size) or sp.issparse(X) else "k-means"
        if init == "k-means":
            km = KMeans(n_clusters=n_clusters, n_init=1, random_state=random_state)
            return km.fit_predict(X).astype(np.intp)
        data = data if data is not None else LinearData(X)
        with_pairs = pairs is not None and pairs.size > 0
        # 2k directions carry a k-way split; constraint-aware directions need room
        n_dir = min(data.d, max(2 * n_clusters, 10) if with_pairs else 2 * n_clusters)
        S = principal_scores(data, n_dir, random_state, pairs)
        km = KMeans(n_clusters=n_clusters, n_init=1, random_state=random_state)
        return km.fit_predict(S).astype(np.intp)
    labels = check_label_init(init, n, n_clusters)
    assert labels is not None  # only a method name gives None, and those returned above
    return labels


def one_cluster_result(X: Any, extra: dict[str, Any]) -> SolverResult:
    """The one-cluster partition (``n_clusters=1``): ``w = 0, b = -1``, nothing to fit."""
    x = {
        "labels_": np.zeros(X.shape[0], dtype=np.intp),
        "coef_": np.zeros((1, X.shape[1])),
        "intercept_": np.array([-1.0]),
        "data_scale_": 1.0,
    }
    x.update(extra)
    return SolverResult(x=x, objective=0.0, objective_history=np.zeros(1), n_iter=0, converged=True)


def linear_scores(X: Any, W: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> Any:
    """``X W' + b``, flattened to (n,) for one output."""
    if sp.issparse(X):
        X = X.tocsr()
    F = np.asarray(X @ W.T, dtype=np.float64) + b
    return F[:, 0] if W.shape[0] == 1 else F


def labels_from_scores(F: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """``f >= 0 -> 1`` for one output, else the argmax (ties to the lower index)."""
    if F.ndim == 1:
        return (F >= 0).astype(np.intp)
    return np.argmax(F, axis=1).astype(np.intp)


def linear_result(
    obj: MMCObjective, res: SolverResult, extra: dict[str, Any], message: str
) -> SolverResult:
    """Fitted attributes of a solved linear MMC in the data's units, and the labels.

    The solver's ``W`` acts on ``(x - xbar) / scale``; ``coef_ = W / scale`` and
    ``intercept_ = t - coef_ xbar``. The labels come from the training scores
    the solver already computed (no further pass over ``X``). ``extra`` holds
    the solver's own fitted attributes; ``message`` is used only when the solver
    did not converge.
    """
    W, t = res.x
    data = obj.data
    coef = W / data.scale
    b = t - coef @ data.xbar
    x = {
        "labels_": labels_from_scores(linear_scores(data.X, coef, b)),
        "coef_": coef,
        "intercept_": b,
        "data_scale_": data.scale,
    }
    x.update(extra)
    return SolverResult(
        x=x,
        objective=res.objective,
        objective_history=res.objective_history,
        n_iter=res.n_iter,
        converged=res.converged,
        message="" if res.converged else message,
    )


class LinearMMCBase(TransformerMixin, BaseClusterer):
    """Validation, per-fit preparation and prediction shared by BMMC and CPMMC."""

    _accept_sparse: ClassVar[bool | tuple[str, ...]] = ("csr", "csc", "coo")
    _min_clusters: ClassVar[int] = 1  # n_clusters=1: the one-cluster partition (f = -1)
    # Measured (glass, segmentation; raw and standardised; seeds 0, 1): C=10 finds
    # more non-empty clusters than C=1 in 3 of 4 cases, C=0.1 fewer; standardising
    # helps on glass. Re-seeding an emptied cluster and solving again did not help
    # (the cluster emptied again in every case), so no recovery is attempted.
    _collapse_advice: ClassVar[str] = (
        "This linear method has no kernel: raise C (e.g. C=10; a small C lets an "
        "empty cluster save weight norm) or standardise the features "
        "(sklearn.preprocessing.StandardScaler), or ask for fewer clusters."
    )

    # C weighs the MEAN loss and balance (a float) is a fraction of n: nothing scales
    # with n (an int balance is absolute and would; the label-free grid uses floats).
    _n_scaled_params: ClassVar[tuple[str, ...]] = ()

    # attributes a subclass provides
    C: float
    balance: int | float
    init: Any
    qp: str

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """C around the default (a mean loss in standardised units) and the balance bound.

        C and the balance are scale free (the data are divided by their root mean
        feature variance, the loss is a mean over samples, the balance a fraction
        of ``n``), so the grid does not depend on ``X``.
        """
        return {"C": [0.1, 1.0, 10.0, 100.0], "balance": [0.03, 0.1, 0.3]}

    def _check_common(self, X: Any) -> None:
        resolve_balance(self.balance, X.shape[0])
        if self.qp not in QPS:
            raise ValueError(
                f"qp must be 'auto', 'active-set', 'ipm' or 'clarabel'; got {self.qp!r}."
            )
        if isinstance(self.init, str) and self.init not in INITS and self.init not in INIT_ALIASES:
            raise ValueError(
                f"init must be one of {list(INITS)} or an array of labels; got {self.init!r}."
            )

    def _make_context(
        self, X: Any, must_link: Any = None, cannot_link: Any = None, C_pairs: float = 0.0
    ) -> MMCContext:
        """Once per fit: check the scale, validate pairs, build the data wrapper and objective."""
        check_finite_scale(X)
        n = X.shape[0]
        pairs = make_pairs(must_link, cannot_link, n)  # validated whatever n_clusters is
        init = resolve_alias(self.init, "init", INITS, INIT_ALIASES)
        if not isinstance(init, str):
            init = check_label_init(init, n, self._n_clusters)
        if self._n_clusters == 1:
            return MMCContext(X, init, pairs, None)
        data = LinearData(X, scale="auto")
        if X.dtype == np.float32 and data.sum_sq >= float(np.finfo(np.float32).max):
            raise ValueError(
                f"X (float32) has squared norms up to {data.sum_sq:.3g}, beyond float32's range "
                "(K-means would overflow). Rescale your features (e.g. "
                "sklearn.preprocessing.StandardScaler) or pass float64 data."
            )
        obj = MMCObjective(
            X,
            self._n_clusters,
            float(self.C),
            resolve_balance(self.balance, n) / n,
            C_pairs=float(C_pairs),
            pairs=pairs,
            data=data,
        )
        return MMCContext(X, init, pairs, obj)

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
            Signed distances to the separating hyperplane(s).
        """
        X = self._validate_predict_data(X)
        return linear_scores(X, self.coef_, self.intercept_)

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values per cluster, shape (n_samples, n_clusters); the label is the argmax.

        Multiclass: ``W x + b``. Binary: ``(-f/2, f/2)`` (the two-output scores
        of the equivalent multiclass model, ``f = f_1 - f_0``). One cluster: zeros.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_clusters)
            One decision value per cluster.
        """
        F = self.decision_function(X)
        if self._n_clusters == 1:
            return np.zeros((F.shape[0], 1))
        if F.ndim == 1:
            return np.column_stack([-0.5 * F, 0.5 * F])
        return F

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the MMC objective on ``X`` at the fitted weights (higher is better).

        ``-(1/2 ||W||^2 + C * mean margin loss on X)`` with ``W`` in the
        standardised units of the fit (``coef_ * data_scale_``), the same
        objective as ``objective_`` without the pair term and the balance
        constraint.

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
        F = self.decision_function(X)
        if self._n_clusters == 1:
            return 0.0
        W = self.coef_ * self.data_scale_
        loss = true_margin_loss(F.reshape(F.shape[0], -1))
        return -float(0.5 * np.vdot(W, W) + float(self.C) * loss)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return labels_from_scores(linear_scores(X, self.coef_, self.intercept_))

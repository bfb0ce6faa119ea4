"""Starts of the linear maximum margin clusterers (BMMC, CPMMC).

- :func:`initial_labels`: labels that avoid the trivial one-cluster CCCP start
  (one K-means run on ``X`` or on its top principal directions).
- :func:`principal_scores`: those directions by randomised subspace iteration,
  without centring ``X`` (dense or sparse), optionally constraint-aware.
- :func:`pair_kmeans_start`: a k-means start that keeps must-links and repairs
  cannot-links.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..objectives._constraints import PairClosure, PairSet
from ..objectives._mmc import LinearData
from ..objectives._pairs import honour_pairs
from ..utils import check_label_init
from ._kmeans import kmeans_start

__all__ = [
    "initial_labels",
    "pair_kmeans_start",
    "principal_scores",
]


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


def _dense_rows(X: Any, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    sub = X[rows]
    return sub.toarray() if sp.issparse(sub) else np.asarray(sub, dtype=np.float64)


def pair_kmeans_start(
    X: Any, n_clusters: int, random_state: np.random.RandomState, closure: PairClosure
) -> npt.NDArray[np.intp]:
    """A k-means start that keeps must-linked rows together and repairs cannot-links.

    One scikit-learn k-means run (k-means++ seeding) on the rows outside any
    must-link component and one point per component (its mean, weighted by its
    size), so every component lands in one cluster and the partition minimises
    the k-means objective among those that keep the components whole (at the
    run's local optimum). Then violated cannot-links are repaired by
    :func:`~._pairs.honour_pairs` with the scores ``-||x - c_r||^2``: each moves
    the one of its two components whose move to its nearest admissible other
    cluster costs the least k-means objective (a cannot-link that no move
    repairs is left to the fit's pair loss).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data of the start (or its principal scores).
    n_clusters : int
        Number of clusters.
    random_state : RandomState
        Seeds k-means.
    closure : PairClosure
        The pairs' must-link components and the cannot-links between them.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
    """
    from sklearn.cluster import KMeans

    n = X.shape[0]
    comp_of = closure.labels_of(n)
    rows = closure.rows
    Xr = _dense_rows(X, rows)
    sizes = np.bincount(closure.component, minlength=closure.n_components).astype(np.float64)
    means = np.zeros((closure.n_components, Xr.shape[1]))
    np.add.at(means, closure.component, Xr)
    means /= sizes[:, None]
    free = np.flatnonzero(comp_of < 0)
    points: Any
    if sp.issparse(X):
        points = sp.vstack([X[free], sp.csr_matrix(means)]).tocsr()
    else:  # one copy: the free rows written straight into the k-means input
        points = np.empty((free.size + means.shape[0], Xr.shape[1]))
        Xd = np.asarray(X)
        if Xd.dtype == np.float64:
            np.take(Xd, free, axis=0, out=points[: free.size])
        else:
            points[: free.size] = Xd[free]
        points[free.size :] = means
    weight = np.concatenate([np.ones(free.size), sizes])
    k = min(n_clusters, points.shape[0])
    km = KMeans(n_clusters=k, n_init=1, random_state=random_state)
    km.fit(points, sample_weight=weight)
    centres = np.asarray(km.cluster_centers_, dtype=np.float64)
    labels = np.empty(n, dtype=np.intp)
    labels[free] = km.labels_[: free.size]
    # the components: k-means' choice (the nearest centre of the mean), cannot-links repaired
    F = 2.0 * Xr @ centres.T - (centres**2).sum(axis=1)  # -||x - c||^2 up to a per-row constant
    labels[rows] = honour_pairs(F, closure.component, closure.cannot)
    return labels


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
        must-linked samples (see :func:`principal_scores`), and either
        K-means keeps must-link components whole and repairs cannot-links
        (:func:`pair_kmeans_start`). ``"auto"``: ``"k-means"`` (whether ``X`` is
        sparse or dense, so both copies of the same data start alike). An array
        gives the labels directly.
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
    closure = pairs.closure if pairs is not None and pairs.size else None
    if isinstance(init, str):
        if init == "auto":
            # not by sparsity: the sparse and the dense copy of the same data start alike
            init = "k-means"
        if init == "k-means":
            if closure is not None:
                return pair_kmeans_start(X, n_clusters, random_state, closure)
            return kmeans_start(X, n_clusters, random_state)
        data = data if data is not None else LinearData(X)
        with_pairs = closure is not None
        # 2k directions carry a k-way split; constraint-aware directions need room
        n_dir = min(data.d, max(2 * n_clusters, 10) if with_pairs else 2 * n_clusters)
        S = principal_scores(data, n_dir, random_state, pairs)
        if closure is not None:
            return pair_kmeans_start(S, n_clusters, random_state, closure)
        return kmeans_start(S, n_clusters, random_state)
    labels = check_label_init(init, n, n_clusters)
    assert labels is not None  # only a method name gives None, and those returned above
    return labels

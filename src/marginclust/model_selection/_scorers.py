"""Label-free scorers with scikit-learn's callable signature ``scorer(estimator, X, y=None)``.

Every scorer ignores ``y`` (it is never read) and is "greater is better", so it
plugs into :class:`~sklearn.model_selection.GridSearchCV` and
:class:`~sklearn.model_selection.HalvingGridSearchCV` as ``scoring=``. The
geometric indices are computed in ONE fixed reference space, the standardised
input (zero mean, unit variance per feature of the ``X`` handed to the scorer),
never in a setting's own kernel or feature space, so that settings with
different kernel widths are comparable. A degenerate labelling (fewer non-empty
clusters than asked, or a cluster below :func:`marginclust.utils.min_cluster_size`)
gets the scorer's worst value instead of an error or NaN (scikit-learn #15717).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.metrics import calinski_harabasz_score, silhouette_score

from ..exceptions import ConvergenceWarning
from ..metrics import xie_beni
from ..utils import degeneracy

__all__ = [
    "LABEL_FREE_SCORERS",
    "WORST_SCORE",
    "calinski_harabasz_scorer",
    "get_label_free_scorer",
    "hungarian_disagreement",
    "normalized_instability",
    "reference_space",
    "silhouette_scorer",
    "stability_scorer",
    "xie_beni_scorer",
]

# Worst value of each scorer, returned for degenerate labellings.
WORST_SCORE = {
    "stability": -1.0,  # 1 - normalised instability; random labellings score about 0
    "silhouette": -1.0,  # the silhouette's minimum
    "calinski_harabasz": 0.0,  # the CH index is non-negative
    "xie_beni": -np.inf,  # minus the Xie-Beni index, which is unbounded above
}

# Random labellings drawn to normalise the instability (fixed seed: a scorer is
# a deterministic function of its inputs).
_N_RANDOM = 20


def reference_space(X: Any) -> npt.NDArray[np.float64]:
    """The fixed space every geometric index is computed in: standardised ``X``.

    Each feature is centred and divided by its standard deviation (constant
    features are only centred). Sparse input is densified.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data.

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
        Standardised copy of ``X`` (float64).

    Examples
    --------
    >>> import numpy as np
    >>> Z = reference_space(np.array([[0.0, 10.0], [2.0, 30.0]]))
    >>> Z.tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    """
    Z = X.toarray() if sparse.issparse(X) else np.asarray(X)
    Z = np.asarray(Z, dtype=np.float64)
    Z = Z - Z.mean(axis=0)
    std = Z.std(axis=0)
    return Z / np.where(std > 0, std, 1.0)


def _contingency(a: npt.NDArray[np.intp], b: npt.NDArray[np.intp], k: int) -> np.ndarray:
    return np.bincount(a * k + b, minlength=k * k).reshape(k, k)


def hungarian_disagreement(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Fraction of samples on which two labellings disagree, minimised over relabellings.

    The minimum over one-to-one maps between the labels (Hungarian algorithm on
    the contingency table), as in Lange et al. (2004).

    Parameters
    ----------
    a : array-like of shape (n_samples,)
        First labelling.
    b : array-like of shape (n_samples,)
        Second labelling of the same samples.

    Returns
    -------
    disagreement : float
        In [0, 1); 0 for identical partitions.

    Examples
    --------
    >>> hungarian_disagreement([0, 0, 1, 1], [1, 1, 0, 0])
    0.0
    >>> hungarian_disagreement([0, 0, 1, 1], [0, 1, 1, 1])
    0.25
    """
    a = np.asarray(a, dtype=np.intp).ravel()
    b = np.asarray(b, dtype=np.intp).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"Two labellings of equal non-zero length expected; got {a.shape}, "
                         f"{b.shape}.")
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    k = int(max(a.max(), b.max())) + 1
    table = _contingency(a, b, k)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(1.0 - table[rows, cols].sum() / a.size)


def normalized_instability(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Lange et al.'s instability of two labellings, normalised by random labellings.

    The Hungarian-minimised disagreement of ``a`` and ``b`` divided by its mean
    over random labellings with the same cluster sizes (``b`` randomly permuted,
    20 draws with a fixed seed), so that values for different numbers of
    clusters are comparable: 0 for identical partitions, about 1 for unrelated
    ones. Permuting (rather than drawing uniform labels) keeps the sizes, so an
    unbalanced split is not mistaken for a stable one.

    Parameters
    ----------
    a : array-like of shape (n_samples,)
        First labelling.
    b : array-like of shape (n_samples,)
        Second labelling of the same samples.

    Returns
    -------
    instability : float
        Non-negative; ``inf`` when one labelling is a single cluster.

    Examples
    --------
    >>> normalized_instability([0, 0, 1, 1, 2, 2], [2, 2, 0, 0, 1, 1])
    0.0
    """
    a = np.asarray(a, dtype=np.intp).ravel()
    b = np.asarray(b, dtype=np.intp).ravel()
    observed = hungarian_disagreement(a, b)
    if observed == 0.0:
        return 0.0
    rng = np.random.RandomState(0)
    baseline = float(np.mean([hungarian_disagreement(a, rng.permutation(b))
                              for _ in range(_N_RANDOM)]))
    if baseline <= 0.0:  # one of the labellings is a single cluster
        return np.inf
    return observed / baseline


def _n_clusters_of(estimator: Any, labels: npt.NDArray[np.intp] | None = None) -> int:
    """The number of clusters the estimator was asked for (a Pipeline's last step too)."""
    params = estimator.get_params(deep=True)
    if "n_clusters" in params and params["n_clusters"] is not None:
        return int(params["n_clusters"])
    for key, value in params.items():
        if key.endswith("__n_clusters") and isinstance(value, int | np.integer):
            return int(value)
    if labels is not None:
        return int(np.unique(labels).size)
    raise ValueError(f"{type(estimator).__name__} has no n_clusters parameter.")


def _is_degenerate(labels: Any, k: int) -> bool:
    lab = np.asarray(labels)
    if lab.ndim != 1 or lab.size == 0 or np.any(lab < 0):  # noise labels (-1) count
        return True
    return degeneracy(lab.astype(np.intp), k).degenerate


def _fit_labels(estimator: Any, X: Any) -> npt.NDArray[np.intp]:
    """Labels of a fresh fit of ``estimator`` (a clone) on ``X``; collapse warnings muted."""
    fresh = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if hasattr(fresh, "fit_predict"):
            return np.asarray(fresh.fit_predict(X))
        return np.asarray(fresh.fit(X).predict(X))


def stability_scorer(estimator: Any, X: Any, y: Any = None) -> float:
    """Transfer-by-prediction stability (Lange, Roth, Braun & Buhmann 2004).

    ``estimator`` was fitted on one half of the data and ``X`` is the other half:
    the half is labelled once by the estimator's own ``predict`` and once by a
    fresh fit of the same estimator (a clone) on ``X``; the two labellings'
    Hungarian-minimised disagreement, normalised by that of random labellings
    with the same cluster sizes, is the normalised instability. The score is
    ``1 - normalised instability``: 1 for a perfectly reproducible partition,
    about 0 for one no better than chance, comparable across ``n_clusters``.
    A degenerate fit or prediction scores -1. Use it with a splitter whose test
    part is half the data, e.g. ``ShuffleSplit(n_splits=5, test_size=0.5)``.

    Parameters
    ----------
    estimator : fitted clusterer
        Fitted on the other half; must have ``predict``.
    X : array-like of shape (n_samples, n_features)
        The held-out half.
    y : ignored
        Never read.

    Returns
    -------
    score : float
        In ``[-1, 1]`` (greater is better).

    Notes
    -----
    Stability measures reproducibility, not correctness (Ben-David, von Luxburg
    and Pal 2006). On nested structure (two close groups beside a far one)
    fewer clusters can be just as reproducible, and a grid search on this score
    alone then prefers the smaller ``n_clusters``;
    :class:`~marginclust.model_selection.StabilitySearch` breaks such ties with
    a geometric index.

    References
    ----------
    T. Lange, V. Roth, M. L. Braun and J. M. Buhmann, "Stability-based validation
    of clustering solutions", Neural Computation 16(6):1299-1323, 2004.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.cluster import KMeans
    >>> X, _ = make_blobs(200, centers=3, random_state=0)
    >>> est = KMeans(3, n_init=3, random_state=0).fit(X[:100])
    >>> round(stability_scorer(est, X[100:]), 2)
    1.0
    """
    worst = WORST_SCORE["stability"]
    transferred = np.asarray(estimator.predict(X))
    k = _n_clusters_of(estimator, transferred)
    train_labels = getattr(estimator, "labels_", None)
    if train_labels is not None and _is_degenerate(train_labels, k):
        return worst
    if _is_degenerate(transferred, k):
        return worst
    try:
        own = _fit_labels(estimator, X)
    except Exception:  # noqa: BLE001 - a setting that cannot fit a half is unstable
        return worst
    if _is_degenerate(own, k):
        return worst
    return float(max(worst, 1.0 - normalized_instability(transferred, own)))


def _labels_and_k(estimator: Any, X: Any) -> tuple[npt.NDArray[np.intp], int]:
    labels = np.asarray(estimator.predict(X))
    return labels, _n_clusters_of(estimator, labels)


def silhouette_scorer(estimator: Any, X: Any, y: Any = None) -> float:
    """Mean silhouette of ``estimator.predict(X)`` in the standardised reference space.

    Above 2,000 samples the silhouette is estimated on 2,000 rows drawn with a
    fixed seed. A degenerate labelling scores -1 (the silhouette's minimum).

    Parameters
    ----------
    estimator : estimator
        A fitted clusterer with ``predict``.
    X : array-like of shape (n_samples, n_features)
        The rows to score (sparse accepted).
    y : None
        Ignored (label-free).

    Returns
    -------
    score : float
        Mean silhouette in [-1, 1]; higher is better.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.cluster import KMeans
    >>> X, _ = make_blobs(150, centers=3, random_state=0)
    >>> est = KMeans(3, n_init=3, random_state=0).fit(X)
    >>> silhouette_scorer(est, X) > 0.4
    True
    """
    labels, k = _labels_and_k(estimator, X)
    if _is_degenerate(labels, k) or np.unique(labels).size < 2:
        return WORST_SCORE["silhouette"]
    Z = reference_space(X)
    size = 2000 if Z.shape[0] > 2000 else None
    return float(silhouette_score(Z, labels, sample_size=size, random_state=0))


def calinski_harabasz_scorer(estimator: Any, X: Any, y: Any = None) -> float:
    """Calinski-Harabasz index of ``estimator.predict(X)`` in the standardised space.

    A degenerate labelling scores 0 (the index's minimum).

    Parameters
    ----------
    estimator : estimator
        A fitted clusterer with ``predict``.
    X : array-like of shape (n_samples, n_features)
        The rows to score (sparse accepted).
    y : None
        Ignored (label-free).

    Returns
    -------
    score : float
        Non-negative; higher is better.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.cluster import KMeans
    >>> X, _ = make_blobs(150, centers=3, random_state=0)
    >>> est = KMeans(3, n_init=3, random_state=0).fit(X)
    >>> calinski_harabasz_scorer(est, X) > 100
    True
    """
    labels, k = _labels_and_k(estimator, X)
    if _is_degenerate(labels, k) or np.unique(labels).size < 2:
        return WORST_SCORE["calinski_harabasz"]
    return float(calinski_harabasz_score(reference_space(X), labels))


def xie_beni_scorer(estimator: Any, X: Any, y: Any = None) -> float:
    """Minus the Xie-Beni index (fuzzifier 2) in the standardised reference space.

    Memberships are ``estimator.predict_proba(X)`` when the estimator has it,
    else the one-hot labels; centres are the ``u**2``-weighted means of the
    standardised rows. A degenerate labelling scores ``-inf``.

    Parameters
    ----------
    estimator : estimator
        A fitted clusterer with ``predict``.
    X : array-like of shape (n_samples, n_features)
        The rows to score (sparse accepted).
    y : None
        Ignored (label-free).

    Returns
    -------
    score : float
        Minus the Xie-Beni index (at most 0); higher is better.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.cluster import KMeans
    >>> X, _ = make_blobs(150, centers=3, random_state=0)
    >>> est = KMeans(3, n_init=3, random_state=0).fit(X)
    >>> -1 < xie_beni_scorer(est, X) < 0
    True
    """
    labels, k = _labels_and_k(estimator, X)
    if _is_degenerate(labels, k) or np.unique(labels).size < 2:
        return WORST_SCORE["xie_beni"]
    Z = reference_space(X)
    U: np.ndarray | None = None
    if hasattr(estimator, "predict_proba"):
        try:
            U = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        except (AttributeError, NotImplementedError):
            U = None
    if U is None or U.ndim != 2 or U.shape[0] != Z.shape[0]:
        _, inv = np.unique(labels, return_inverse=True)
        U = np.eye(int(inv.max()) + 1)[inv]
    W = U**2
    mass = W.sum(axis=0)
    if np.any(mass <= 0):
        return WORST_SCORE["xie_beni"]
    centers = (W.T @ Z) / mass[:, None]
    value = xie_beni(Z, U, centers, m=2)
    return -float(value) if np.isfinite(value) else WORST_SCORE["xie_beni"]


LABEL_FREE_SCORERS: dict[str, Callable[..., float]] = {
    "stability": stability_scorer,
    "silhouette": silhouette_scorer,
    "calinski_harabasz": calinski_harabasz_scorer,
    "xie_beni": xie_beni_scorer,
}


def get_label_free_scorer(scoring: str | Callable[..., float]) -> Callable[..., float]:
    """The scorer called ``scoring`` (a callable is returned unchanged).

    Parameters
    ----------
    scoring : str or callable
        A name of ``LABEL_FREE_SCORERS`` or a callable ``scorer(estimator, X)``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``, higher is better.

    Raises
    ------
    ValueError
        If ``scoring`` is an unknown name.

    Examples
    --------
    >>> get_label_free_scorer("silhouette") is silhouette_scorer
    True
    """
    if callable(scoring):
        return scoring
    if scoring not in LABEL_FREE_SCORERS:
        raise ValueError(f"scoring must be one of {sorted(LABEL_FREE_SCORERS)} or a callable "
                         f"scorer(estimator, X); got {scoring!r}.")
    return LABEL_FREE_SCORERS[scoring]

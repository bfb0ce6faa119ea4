"""Named feature scalings ("raw", "standardize", "minmax"), and the per-column scalings.

``marginclust fit --standardize``, the demo and the benchmark harness (a table's
``preprocessing``, recorded in every row) apply the named ones. The per-column
scalings (:data:`SCALINGS`: ``"auto"``, ``"none"``, ``"standard"``, ``"robust"``)
are ``MaxMarginClustering``'s ``scale`` and ``marginclust fit --scale``: one rule
for both, :func:`resolve_scaling`, and one map, :func:`column_divisors`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["COMPARABLE_SPREADS", "PREPROCESSING", "SCALINGS", "UNITS_SPREAD",
           "column_divisors", "column_spread_ratio", "preprocess", "resolve_scaling",
           "scale_columns", "standardise_advice"]

PREPROCESSING = ("raw", "standardize", "minmax")

#: Columns whose standard deviations are within this factor of each other are taken
#: as already on one scale: advice to standardise them would change little.
COMPARABLE_SPREADS = 2.0

#: The per-column scalings of ``scale=`` / ``--scale``.
SCALINGS = ("auto", "none", "standard", "robust")

#: ``"auto"`` standardises when the column standard deviations differ by more than
#: this factor. Then the narrowest column carries under 1/10,000 of the widest's
#: weight in a squared distance, so distance-based methods ignore it: a sign of
#: different units (the UCI-like tables measured in mixed units differ by 120 to
#: 2.6e6), not of a shape's aspect ratio (shape data in one unit stay under about 10;
#: standardising them would stretch a thin strip's noise to the strip's length).
UNITS_SPREAD = 100.0


def preprocess(X: npt.NDArray[np.floating], how: str) -> npt.NDArray[np.float64]:
    """Apply a named preprocessing to a dense data matrix.

    Constant columns are left at zero instead of being divided by zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data.
    how : {"raw", "standardize", "minmax"}
        ``"standardize"``: zero mean, unit variance per column; ``"minmax"``:
        each column mapped to [0, 1].

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        A new float64 array.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import preprocess
    >>> preprocess(np.array([[1.0, 5.0], [3.0, 5.0]]), "minmax")
    array([[0., 0.],
           [1., 0.]])
    """
    Z = np.array(X, dtype=np.float64)
    if how == "raw":
        return Z
    if how == "standardize":
        scale = Z.std(axis=0)
        scale[scale == 0] = 1.0
        return (Z - Z.mean(axis=0)) / scale
    if how == "minmax":
        lo = Z.min(axis=0)
        span = Z.max(axis=0) - lo
        span[span == 0] = 1.0
        return (Z - lo) / span
    raise ValueError(f"preprocessing must be one of {PREPROCESSING}; got {how!r}.")


def column_spread_ratio(X: object) -> float | None:
    """Largest over smallest standard deviation of the non-constant columns of ``X``.

    Parameters
    ----------
    X : object
        Data; only an in-memory ndarray (or a scipy sparse matrix) is measured.

    Returns
    -------
    ratio : float or None
        1 for standardised data; None for other inputs (e.g. lazy arrays) or
        fewer than two non-constant columns.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils._preprocessing import column_spread_ratio
    >>> column_spread_ratio(np.array([[0.0, 0.0], [1.0, 10.0], [2.0, 20.0]]))
    10.0
    """
    import scipy.sparse as sp

    # each column divided by its largest magnitude first: the squares of data near
    # float64's range would overflow (std(X / s) * s is the same spread)
    if sp.issparse(X):
        A = sp.csr_matrix(X, dtype=np.float64)
        scale = np.asarray(abs(A).max(axis=0).todense()).ravel()
        scale[~(scale > 0)] = 1.0
        A = sp.csr_matrix(A.multiply(1.0 / scale))
        mean = np.asarray(A.mean(axis=0)).ravel()
        var = np.asarray(A.multiply(A).mean(axis=0)).ravel() - mean**2
        std = np.sqrt(np.maximum(var, 0.0)) * scale
    elif isinstance(X, np.ndarray) and X.ndim == 2:
        A = np.asarray(X, dtype=np.float64)
        scale = np.abs(A).max(axis=0) if A.shape[0] else np.ones(A.shape[1])
        scale[~(scale > 0)] = 1.0
        std = (A / scale).std(axis=0) * scale
    else:
        return None
    std = std[std > 0]
    if std.size < 2 or not np.all(np.isfinite(std)):
        return None
    with np.errstate(over="ignore"):
        ratio = float(std.max() / std.min())
    return ratio if np.isfinite(ratio) else None


def standardise_advice(ratio: float | None) -> str:
    """The collapse warnings' sentence on standardising, from :func:`column_spread_ratio`.

    Parameters
    ----------
    ratio : float or None
        Largest over smallest column standard deviation (None: not measured).

    Returns
    -------
    advice : str
        A sentence ending in a space: standardise when the spreads differ by more
        than :data:`COMPARABLE_SPREADS`, or a note that they are already comparable.

    Examples
    --------
    >>> from marginclust.utils._preprocessing import standardise_advice
    >>> standardise_advice(1.0).startswith("The features are already on one scale")
    True
    >>> standardise_advice(37.0)
    'Standardise the features (their column standard deviations differ up to 37-fold). '
    """
    if ratio is None:
        return "Standardise the features if they are in different units. "
    if ratio > COMPARABLE_SPREADS:
        return (f"Standardise the features (their column standard deviations differ up to "
                f"{ratio:.3g}-fold). ")
    return (f"The features are already on one scale (column standard deviations within a "
            f"factor {ratio:.3g}), so standardising them would change little. ")


def resolve_scaling(X: object, how: str, weights: npt.NDArray[np.float64] | None = None) -> str:
    """The scaling that ``how`` means for ``X``: ``"auto"`` resolved from its columns.

    Parameters
    ----------
    X : object
        Data (:func:`column_spread_ratio` measures in-memory arrays only).
    how : {"auto", "none", "standard", "robust"}
        ``"auto"`` is ``"standard"`` when the non-constant columns' standard
        deviations differ by more than :data:`UNITS_SPREAD` (100), else ``"none"``.
    weights : ndarray of shape (n_samples,) or None, default=None
        For a dense ``X``: a row of weight ``r`` counts as ``r`` identical rows.

    Returns
    -------
    scaling : {"none", "standard", "robust"}

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils._preprocessing import resolve_scaling
    >>> X = np.random.RandomState(0).randn(50, 2)
    >>> resolve_scaling(X, "auto"), resolve_scaling(X * [1.0, 1e3], "auto")
    ('none', 'standard')
    """
    if how not in SCALINGS:
        raise ValueError(f"scale must be one of {SCALINGS}; got {how!r}.")
    if how != "auto":
        return how
    if isinstance(X, np.ndarray) and X.ndim == 2 and weights is not None:
        sd = _column_sds(np.asarray(X, dtype=np.float64), _shares(X.shape[0], weights))
        sd = sd[sd > 0]
        ratio = float(sd.max() / sd.min()) if sd.size >= 2 else None
    else:
        ratio = column_spread_ratio(X)
    return "standard" if ratio is not None and ratio > UNITS_SPREAD else "none"


def _weighted_quantiles(
    X: npt.NDArray[np.float64], share: npt.NDArray[np.float64], qs: tuple[float, ...],
) -> npt.NDArray[np.float64]:
    """Per column, the lower ``q``-quantiles of the rows weighted by ``share`` (summing to 1)."""
    order = np.argsort(X, axis=0, kind="stable")
    cum = np.cumsum(share[order], axis=0)
    out = np.empty((len(qs), X.shape[1]))
    for i, q in enumerate(qs):
        # the first row whose cumulative share reaches q (a row of weight r counts r times)
        at = np.minimum((cum < q - 1e-12).sum(axis=0), X.shape[0] - 1)
        out[i] = X[order[at, np.arange(X.shape[1])], np.arange(X.shape[1])]
    return out


def column_divisors(
    X: npt.NDArray[np.floating], how: str, weights: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """What each column is divided by under a resolved scaling (its centre is removed apart).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data (dense, finite).
    how : {"none", "standard", "robust"}
        ``"none"``: 1 for every column (a uniform scale keeps shapes);
        ``"standard"``: the column's standard deviation; ``"robust"``: its
        interquartile range over 1.349 (the standard deviation of a Gaussian with
        that range), or its standard deviation where the quartiles coincide.
        A constant column gets 1.
    weights : ndarray of shape (n_samples,) or None, default=None
        A row of weight ``r`` counts as ``r`` identical rows.

    Returns
    -------
    divisors : ndarray of shape (n_features,)
        Positive and finite.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils._preprocessing import column_divisors
    >>> X = np.array([[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]])
    >>> column_divisors(X, "standard")
    array([1.63299316, 1.        ])
    """
    A = np.asarray(X, dtype=np.float64)
    if how == "none":
        return np.ones(A.shape[1])
    if how not in ("standard", "robust"):
        raise ValueError(f"scaling must be 'none', 'standard' or 'robust'; got {how!r}.")
    share = _shares(A.shape[0], weights)
    out = _column_sds(A, share)
    if how == "robust":
        big = _magnitudes(A)
        q1, q3 = _weighted_quantiles(A / big, share, (0.25, 0.75))
        iqr = (q3 - q1) * big / 1.349
        out = np.where(iqr > 0, iqr, out)
    return np.where(out > 0, out, 1.0)


def _shares(n: int, weights: npt.NDArray[np.float64] | None) -> npt.NDArray[np.float64]:
    """Each row's share of the total weight (equal shares without weights)."""
    if weights is None:
        return np.full(n, 1.0 / n)
    w = np.asarray(weights, dtype=np.float64)
    return w / float(w.sum())


def _magnitudes(A: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each column's largest magnitude (1 for a zero column)."""
    big = np.abs(A).max(axis=0)
    big[~(big > 0)] = 1.0
    return big


def _column_sds(A: npt.NDArray[np.float64], share: npt.NDArray[np.float64]
                ) -> npt.NDArray[np.float64]:
    """Weighted column standard deviations, each column over its largest magnitude
    first (the squares of data near float64's range would overflow)."""
    big = _magnitudes(A)
    B = A / big
    centred = B - share @ B
    return np.sqrt(np.maximum(share @ (centred * centred), 0.0)) * big


def scale_columns(X: npt.NDArray[np.floating], how: str) -> npt.NDArray[np.float64]:
    """``X`` under a resolved per-column scaling: centred and divided by :func:`column_divisors`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data (dense, finite).
    how : {"none", "standard", "robust"}
        ``"none"`` returns the values unchanged (as float64); ``"standard"``
        centres each column at its mean, ``"robust"`` at its median.

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
        A new float64 array.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils._preprocessing import scale_columns
    >>> scale_columns(np.array([[1.0, 10.0], [3.0, 30.0]]), "standard")
    array([[-1., -1.],
           [ 1.,  1.]])
    """
    A = np.array(X, dtype=np.float64)
    if how == "none":
        return A
    divisors = column_divisors(A, how)
    centre = A.mean(axis=0) if how == "standard" else np.median(A, axis=0)
    return (A - centre) / divisors

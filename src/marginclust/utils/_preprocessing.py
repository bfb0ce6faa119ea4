"""Named feature scalings ("raw", "standardize", "minmax").

``marginclust fit --standardize``, the demo and the benchmark harness (a table's
``preprocessing``, recorded in every row) apply them by name.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["COMPARABLE_SPREADS", "PREPROCESSING", "column_spread_ratio", "preprocess",
           "standardise_advice"]

PREPROCESSING = ("raw", "standardize", "minmax")

#: Columns whose standard deviations are within this factor of each other are taken
#: as already on one scale: advice to standardise them would change little.
COMPARABLE_SPREADS = 2.0


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

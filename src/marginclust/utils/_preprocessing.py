"""Named feature scalings ("raw", "standardize", "minmax").

``marginclust fit --standardize``, the demo and the benchmark harness (a table's
``preprocessing``, recorded in every row) apply them by name.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["PREPROCESSING", "preprocess"]

PREPROCESSING = ("raw", "standardize", "minmax")


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

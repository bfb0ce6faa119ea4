"""Scores of the linear maximum margin clusterers (BMMC, CPMMC): ``X W' + b`` and its labels."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = ["labels_from_scores", "linear_scores"]


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

"""Input checks shared by the metrics (private)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["check_label_pair", "check_memberships_matrix", "check_data_centers"]


def _as_labels(labels: npt.ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels; got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass at least one label.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; labels must be finite.")
    return arr


def check_label_pair(
    y_true: npt.ArrayLike, labels: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Validate two label vectors and encode each as integers ``0 .. k-1``."""
    y_true = _as_labels(y_true, "y_true")
    labels = _as_labels(labels, "labels")
    if y_true.shape[0] != labels.shape[0]:
        raise ValueError(
            f"y_true and labels must have the same length; got {y_true.shape[0]} and "
            f"{labels.shape[0]}."
        )
    _, yt = np.unique(y_true, return_inverse=True)
    _, lb = np.unique(labels, return_inverse=True)
    return yt.ravel(), lb.ravel()


def contingency(yt: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """Dense contingency table: rows are classes, columns clusters (int64 counts)."""
    n_classes = int(yt.max()) + 1
    n_clusters = int(lb.max()) + 1
    table = np.zeros((n_classes, n_clusters), dtype=np.int64)
    np.add.at(table, (yt, lb), 1)
    return table


def check_memberships_matrix(U: npt.ArrayLike, *, atol: float = 1e-5) -> np.ndarray:
    """Validate a membership matrix (samples are rows, rows on the simplex)."""
    U = np.asarray(U)
    if U.dtype.kind not in "fiu":
        raise ValueError(f"U must be a numeric array; got dtype {U.dtype}.")
    U = U.astype(np.float64, copy=False)
    if U.ndim != 2:
        raise ValueError(
            f"U must be a 2-D array of shape (n_samples, n_clusters); got shape {U.shape}."
        )
    if U.shape[0] == 0 or U.shape[1] == 0:
        raise ValueError(f"U is empty (shape {U.shape}).")
    if not np.all(np.isfinite(U)):
        raise ValueError("U contains NaN or inf; memberships must be finite.")
    if np.any(U < 0):
        raise ValueError("U contains negative entries; memberships must be >= 0.")
    sums = U.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        worst = sums[np.argmax(np.abs(sums - 1.0))]
        hint = ""
        if U.shape[0] == U.shape[1] or np.allclose(U.sum(axis=0), 1.0, atol=atol):
            hint = " (did you pass U transposed? samples must be rows)"
        raise ValueError(
            f"Each row of U must sum to 1 (samples are rows, clusters are columns); "
            f"{int(bad.sum())} rows do not, the worst sums to {worst:.6g}{hint}."
        )
    return U


def check_data_centers(
    X: npt.ArrayLike, U: np.ndarray, centers: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``X`` (n x d) and ``centers`` (k x d) against memberships ``U`` (n x k)."""
    X = np.asarray(X, dtype=np.float64)
    centers = np.asarray(centers, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if centers.ndim != 2:
        raise ValueError(
            f"centers must be 2-D (n_clusters, n_features); got shape {centers.shape}."
        )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(centers))):
        raise ValueError("X and centers must be finite (no NaN or inf).")
    if X.shape[0] != U.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} samples but U has {U.shape[0]} rows; they must match."
        )
    if centers.shape != (U.shape[1], X.shape[1]):
        raise ValueError(
            f"centers must have shape (n_clusters, n_features) = ({U.shape[1]}, "
            f"{X.shape[1]}); got {centers.shape}."
        )
    if centers.shape[0] < 2:
        raise ValueError("The Xie-Beni index needs at least 2 clusters (centers).")
    return X, centers

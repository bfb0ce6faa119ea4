"""Overlap measures for binary segmentations: DICE and sensitivity."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["dice", "sensitivity"]


def _confusion(
    y_true: npt.ArrayLike, y_pred: npt.ArrayLike, pos_label: object
) -> tuple[int, int, int]:
    a = np.asarray(y_true)
    b = np.asarray(y_pred)
    if a.shape != b.shape:
        raise ValueError(
            f"y_true and y_pred must have the same shape (e.g. two masks); got {a.shape} and "
            f"{b.shape}."
        )
    if a.size == 0:
        raise ValueError("y_true and y_pred are empty.")
    t = (a == pos_label).ravel()
    p = (b == pos_label).ravel()
    tp = int(np.count_nonzero(t & p))
    fp = int(np.count_nonzero(~t & p))
    fn = int(np.count_nonzero(t & ~p))
    return tp, fp, fn


def dice(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, pos_label: object = 1) -> float:
    """DICE coefficient ``2 TP / (2 TP + FP + FN)`` of two binary labelings or masks.

    Parameters
    ----------
    y_true : array-like
        Reference labels or mask (any shape; entries equal to ``pos_label`` are positive).
    y_pred : array-like
        Predicted labels or mask, same shape.
    pos_label : object, default=1
        The value that marks the positive (foreground) class; for a boolean mask
        ``1 == True`` works.

    Returns
    -------
    dice : float
        In ``[0, 1]``; 1 when both have no positive entry at all (perfect agreement).
    """
    tp, fp, fn = _confusion(y_true, y_pred, pos_label)
    denom = 2 * tp + fp + fn
    return 1.0 if denom == 0 else float(2 * tp / denom)


def sensitivity(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, pos_label: object = 1) -> float:
    """Sensitivity (recall, true-positive rate) ``TP / (TP + FN)``.

    Parameters
    ----------
    y_true : array-like
        Reference labels or mask.
    y_pred : array-like
        Predicted labels or mask, same shape.
    pos_label : object, default=1
        The value that marks the positive class.

    Returns
    -------
    sensitivity : float
        In ``[0, 1]``; ``nan`` when ``y_true`` has no positive entry (undefined).
    """
    tp, _, fn = _confusion(y_true, y_pred, pos_label)
    return float("nan") if tp + fn == 0 else float(tp / (tp + fn))

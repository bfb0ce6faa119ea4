"""One look per method and per cluster, shared by every figure of a comparison."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["align_memberships", "method_styles"]

_LINESTYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p", "d", "8")


def method_styles(names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """A distinct colour, line style and marker for each method name.

    Colours come from matplotlib's ``tab20`` (its ten dark shades first, then the
    light ones), line styles and markers cycle independently, so no two of up to
    20 methods share a colour and the legend tells every curve apart.

    Parameters
    ----------
    names : sequence of str
        Method names, in legend order.

    Returns
    -------
    styles : dict of str to dict
        ``name -> {"color": rgba, "linestyle": str, "marker": str}``, ready to
        pass to ``Axes.plot``.

    Examples
    --------
    >>> from marginclust.plotting import method_styles
    >>> styles = method_styles(["FCM", "SLMC"])
    >>> styles["FCM"]["linestyle"], styles["SLMC"]["linestyle"]
    ('-', '--')
    """
    from ._membership import import_pyplot

    cmap = import_pyplot().get_cmap("tab20")
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    styles = {}
    for i, name in enumerate(names):
        styles[name] = {
            "color": cmap(order[i % 20]),
            "linestyle": _LINESTYLES[i % len(_LINESTYLES)],
            "marker": _MARKERS[i % len(_MARKERS)],
        }
    return styles


def align_memberships(U: npt.ArrayLike, reference: npt.ArrayLike) -> np.ndarray:
    """Reorder the columns of ``U`` so its clusters match ``reference``'s labels.

    Clusters are paired by the largest overlap of hard labels (Hungarian
    assignment on the contingency table), so two methods that found the same
    groups draw them in the same colours.

    Parameters
    ----------
    U : array-like of shape (n_samples, n_clusters)
        Memberships (or one-hot labels) to reorder.
    reference : array-like of shape (n_samples,)
        Hard labels of the reference clustering, integers ``0 .. K-1``.

    Returns
    -------
    U_aligned : ndarray of shape (n_samples, n_clusters)
        ``U`` with its columns permuted; columns without a partner come last.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.plotting import align_memberships
    >>> U = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> align_memberships(U, [1, 0])
    array([[0.1, 0.9],
           [0.8, 0.2]])
    """
    from scipy.optimize import linear_sum_assignment

    U = np.asarray(U, dtype=np.float64)
    ref = np.asarray(reference).astype(np.intp).ravel()
    if U.ndim != 2 or U.shape[0] != ref.shape[0]:
        raise ValueError(f"U {U.shape} and reference ({ref.shape[0]},) must have the same rows.")
    k = U.shape[1]
    k_ref = int(ref.max()) + 1 if ref.size else 0
    size = max(k, k_ref)
    overlap = np.zeros((size, size))
    np.add.at(overlap, (ref, U.argmax(axis=1)), 1.0)
    rows, cols = linear_sum_assignment(-overlap)
    order = np.empty(size, dtype=np.intp)
    order[rows] = cols  # reference cluster r is drawn with U's column order[r]
    order = np.array([c for c in order if c < k], dtype=np.intp)
    return U[:, order]

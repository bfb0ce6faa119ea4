"""Plots for SLMC: points coloured by soft membership (the paper's Fig. 2).

matplotlib is an optional extra (``pip install marginclust[plot]``); it is
imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ._membership import import_pyplot, membership_colors

__all__ = ["membership_colors", "plot_memberships", "plot_slmc_cluster_numbers"]


def plot_memberships(
    X: npt.ArrayLike, memberships: npt.ArrayLike, *, ax: Any = None, title: str | None = None
) -> Any:
    """Scatter 2-D data coloured by soft membership; the hard label sets the marker.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Two-dimensional data.
    memberships : array-like of shape (n_samples, n_clusters)
        Soft memberships (rows on the simplex).
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made if None.
    title : str, optional
        Axes title.

    Returns
    -------
    ax : matplotlib Axes
    """
    plt = import_pyplot()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_memberships needs 2-D data (n_samples, 2); got {X.shape}.")
    U = np.asarray(memberships, dtype=np.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    colors = membership_colors(U)
    labels = np.argmax(U, axis=1)
    markers = "o^sDvP*Xh<>"
    for k in range(U.shape[1]):
        sel = labels == k
        ax.scatter(X[sel, 0], X[sel, 1], c=colors[sel], s=14, marker=markers[k % len(markers)],
                   edgecolors="none")
    if title:
        ax.set_title(title)
    ax.set_aspect("equal", adjustable="datalim")
    return ax


def plot_slmc_cluster_numbers(
    X: npt.ArrayLike,
    ks: Sequence[int] = (3, 4, 5, 6),
    *,
    random_state: int | None = 0,
    **slmc_params: Any,
) -> Any:
    """The paper's Fig. 2: SLMC on 2-D data with several cluster numbers.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Two-dimensional data (e.g. ``load_dataset("slmc-four-gaussians")``).
    ks : sequence of int, default=(3, 4, 5, 6)
        Cluster numbers, one panel each.
    random_state : int or None, default=0
        Seed of each SLMC fit.
    **slmc_params
        Further :class:`~marginclust.SLMC` parameters.

    Returns
    -------
    fig : matplotlib Figure
    """
    from ..estimators._slmc import SLMC

    plt = import_pyplot()
    X = np.asarray(X, dtype=np.float64)
    ncols = min(len(ks), 2)
    nrows = int(np.ceil(len(ks) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.5 * ncols, 4.2 * nrows), squeeze=False)
    for ax, k, letter in zip(axes.ravel(), ks, "abcdefghij"):
        est = SLMC(int(k), random_state=random_state, **slmc_params).fit(X)
        plot_memberships(X, est.memberships_, ax=ax, title=f"({letter}) {k} clusters")
    for ax in axes.ravel()[len(ks):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig

"""Scatter plot of a 2-D data set coloured by soft cluster memberships."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["import_pyplot", "membership_colors", "plot_memberships"]


def import_pyplot() -> Any:
    """``matplotlib.pyplot``, on a non-interactive backend unless one is set up for inline use.

    Returns
    -------
    plt : module
        The ``matplotlib.pyplot`` module.

    Raises
    ------
    ImportError
        If matplotlib is not installed; the message names the extra to install.

    Examples
    --------
    >>> from marginclust.plotting import import_pyplot
    >>> hasattr(import_pyplot(), "subplots")
    True
    """
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Plotting needs matplotlib: pip install 'marginclust[plot]'."
        ) from exc
    if matplotlib.get_backend().lower() not in {"agg", "module://matplotlib_inline.backend_inline"}:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def membership_colors(U: npt.ArrayLike, palette: npt.ArrayLike | None = None) -> np.ndarray:
    """RGB colour per sample: the membership-weighted mix of the cluster colours.

    Parameters
    ----------
    U : array-like of shape (n_samples, n_clusters)
        Memberships, rows on the simplex.
    palette : array-like of shape (n_clusters, 3), default=None
        Cluster colours in [0, 1]; None uses matplotlib's ``tab10`` cycle.

    Returns
    -------
    colors : ndarray of shape (n_samples, 3)
        RGB values in [0, 1].
    """
    U = np.asarray(U, dtype=np.float64)
    if palette is None:
        plt = import_pyplot()
        cmap = plt.get_cmap("tab10")
        palette = np.array([cmap(k % 10)[:3] for k in range(U.shape[1])])
    palette = np.asarray(palette, dtype=np.float64)
    return np.clip(U @ palette, 0.0, 1.0)


def plot_memberships(
    X: npt.ArrayLike,
    U: npt.ArrayLike,
    *,
    centers: npt.ArrayLike | None = None,
    ax: Any = None,
    title: str | None = None,
    palette: npt.ArrayLike | None = None,
) -> Any:
    """Scatter the first two features, each point coloured by its memberships.

    A point with membership 1 in cluster k takes cluster k's colour; an
    ambiguous point takes the mix, so soft boundaries show as blended bands.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (the first two columns are plotted).
    U : array-like of shape (n_samples, n_clusters)
        Memberships.
    centers : array-like of shape (n_clusters, n_features), default=None
        Cluster centres drawn as black crosses.
    ax : matplotlib Axes, default=None
        Axes to draw on (None: a new figure).
    title : str, default=None
        Axes title.
    palette : array-like of shape (n_clusters, 3), default=None
        Cluster colours (see :func:`membership_colors`); pass the same palette and
        memberships aligned with :func:`align_memberships` to match colours across
        panels.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.
    """
    plt = import_pyplot()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 2:
        raise ValueError(f"X must have at least two columns to plot; got shape {X.shape}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    ax.scatter(X[:, 0], X[:, 1], c=membership_colors(U, palette), s=12, linewidths=0)
    if centers is not None:
        C = np.asarray(centers, dtype=np.float64)
        ax.scatter(C[:, 0], C[:, 1], marker="x", c="k", s=60)
    if title:
        ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax

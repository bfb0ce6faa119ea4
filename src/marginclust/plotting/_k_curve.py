"""The number-of-clusters curve of ``MaxMarginClustering``: each K against data without clusters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._membership import import_pyplot

__all__ = ["plot_k_curve"]

# The rule's thresholds, as MaxMarginClustering's documentation states them: a boundary
# is clear from a separation of 0.5 (half the structureless split's mixed neighbourhoods
# avoided) in a valley (density, modes or neck) of 1.5 or more; between two modes the
# reference's error band is enough, and between two Gaussians (the mixture's own test)
# whatever the valley.
_CLEAR_SEPARATION = 0.5
_VALLEY = 1.5


def plot_k_curve(
    estimator_or_rows: Any, *, ax: Any = None, title: str | None = "Number of clusters"
) -> Any:
    """Plot each K's weakest boundary against data without clusters, like a gap plot.

    For every K tried, the separation of the weakest boundary of the K-cluster
    partition (0 = no better than splitting structureless data of the same size
    and spread, 1 = no neighbour across) with the reference's sampling error as
    a band around 0, the line at 0.5 from which a boundary is clear, and the
    chosen K marked; K whose every boundary is also in a valley are
    filled. Read it like a gap plot (Tibshirani, Walther & Hastie 2001): the
    largest K whose partition is clearly separated is chosen.

    Parameters
    ----------
    estimator_or_rows : MaxMarginClustering or sequence of KScore
        A fitted estimator (its ``k_scores_`` and ``n_clusters_``) or the rows.
    ax : matplotlib Axes, default=None
        Axes to draw on (None: a new figure).
    title : str, default="Number of clusters"
        Axes title.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from marginclust import MaxMarginClustering
    >>> from marginclust.plotting import plot_k_curve
    >>> X, _ = make_blobs(300, centers=[[0, 0], [8, 0], [0, 8]], random_state=0)
    >>> est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    >>> ax = plot_k_curve(est)
    >>> ax.get_xlabel()
    'number of clusters K'
    """
    rows: Sequence[Any] = getattr(estimator_or_rows, "k_scores_", estimator_or_rows)
    chosen = getattr(estimator_or_rows, "n_clusters_", None)
    rows = [r for r in rows if r.n_clusters > 1]
    if not rows:
        raise ValueError("no K above 1 to plot: fit with n_clusters='auto' or K >= 2.")
    plt = import_pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3.2))
    ks = np.array([r.n_clusters for r in rows])
    sep = np.array([r.separation for r in rows], dtype=np.float64)
    # the reference's sampling error on the separation's scale
    err = np.array([r.error / (1.0 - r.reference) if np.isfinite(r.reference)
                    and r.reference < 1.0 else 0.0 for r in rows], dtype=np.float64)
    ax.fill_between(ks, -err, err, color="0.85", label="no clusters ± error", step="mid")
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.axhline(_CLEAR_SEPARATION, color="tab:green", lw=0.8, ls="--",
               label=f"clear from {_CLEAR_SEPARATION} (between two modes, past the band)")
    ax.plot(ks, sep, color="tab:blue", lw=1.2)
    valley = np.array([r.separated for r in rows])
    ax.scatter(ks[valley], sep[valley], color="tab:blue", zorder=3, s=22,
               label="every boundary clear")
    ax.scatter(ks[~valley], sep[~valley], facecolor="white", edgecolor="tab:blue", zorder=3,
               s=22, label="a boundary unclear")
    if chosen is not None and chosen in ks:
        i = int(np.flatnonzero(ks == chosen)[0])
        ax.scatter([chosen], [sep[i]], marker="*", s=140, color="tab:red", zorder=4,
                   label=f"chosen K = {chosen}")
    elif chosen == 1:
        ax.text(0.02, 0.04, "chosen: one cluster", transform=ax.transAxes, color="tab:red",
                fontsize=8)
    ax.set_xticks(ks)
    ax.set_ylim(min(-0.5, float(np.nanmin(sep)) - 0.05), 1.05)
    ax.set_xlabel("number of clusters K")
    ax.set_ylabel("weakest boundary's separation")
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    return ax

"""Convergence curves: objective value per iteration (``objective_history_``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._membership import _pyplot

__all__ = ["plot_convergence"]


def plot_convergence(
    histories: Mapping[str, Sequence[float]],
    *,
    ax: Any = None,
    relative: bool = True,
    title: str | None = "Convergence",
) -> Any:
    """Plot each method's objective history against the iteration number.

    Parameters
    ----------
    histories : mapping of str to sequence of float
        Method name -> ``objective_history_``.
    ax : matplotlib Axes, default=None
        Axes to draw on (None: a new figure).
    relative : bool, default=True
        Plot ``(J_t - min J) / (max J - min J)`` so methods whose objectives
        differ in scale and sign share one axis (0 = lowest value reached).
    title : str, default="Convergence"
        Axes title.

    Returns
    -------
    ax : matplotlib Axes
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    styles = ["-", "--", ":", "-."]
    for i, (name, history) in enumerate(histories.items()):
        h = np.asarray(history, dtype=np.float64).ravel()
        h = h[np.isfinite(h)]
        if h.size == 0:
            continue
        if relative:
            span = h.max() - h.min()
            h = (h - h.min()) / span if span > 0 else np.zeros_like(h)
        ax.plot(
            np.arange(1, h.size + 1), h, marker="o", ms=3, label=name,
            color=plt.get_cmap("tab10")(i % 10), linestyle=styles[(i // 10) % len(styles)],
        )
    ax.set_xlabel("iteration")
    ax.set_ylabel("normalised objective" if relative else "objective")
    if title:
        ax.set_title(title, fontsize=9)
    if histories:
        ax.legend(fontsize=7, ncol=2 if len(histories) > 6 else 1)
    return ax

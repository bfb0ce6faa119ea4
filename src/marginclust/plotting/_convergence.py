"""Convergence curves: objective value per iteration (``objective_history_``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._membership import import_pyplot
from ._style import method_styles

__all__ = ["plot_convergence"]


def plot_convergence(
    histories: Mapping[str, Sequence[float]],
    *,
    ax: Any = None,
    relative: bool = True,
    x: str = "iteration",
    styles: Mapping[str, Mapping[str, Any]] | None = None,
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
    x : {"iteration", "fraction"}, default="iteration"
        ``"fraction"`` plots iteration ``t`` of a run of ``T`` iterations at
        ``(t - 1) / (T - 1)``, so a 175-iteration run and a 5-iteration run use the
        same width; the legend then gives each run's iteration count.
    styles : mapping of str to dict, default=None
        ``name -> Axes.plot keyword arguments`` (colour, line style, marker); None
        uses :func:`method_styles`, one distinct look per method.
    title : str, default="Convergence"
        Axes title.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> from marginclust.plotting import plot_convergence
    >>> ax = plot_convergence({"A": [3.0, 2.0, 1.5], "B": [10, 9, 8, 7, 6]}, x="fraction")
    >>> [line.get_label() for line in ax.get_lines()]
    ['A (3 it.)', 'B (5 it.)']
    """
    if x not in ("iteration", "fraction"):
        raise ValueError(f"x must be 'iteration' or 'fraction'; got {x!r}.")
    plt = import_pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    styles = dict(styles) if styles is not None else method_styles(list(histories))
    drawn = 0
    for name, history in histories.items():
        h = np.asarray(history, dtype=np.float64).ravel()
        h = h[np.isfinite(h)]
        if h.size == 0:
            continue
        if relative:
            span = h.max() - h.min()
            h = (h - h.min()) / span if span > 0 else np.zeros_like(h)
        t = np.arange(1, h.size + 1, dtype=np.float64)
        label = name
        if x == "fraction":
            t = (t - 1) / (h.size - 1) if h.size > 1 else np.zeros(1)
            label = f"{name} ({h.size} it.)"
        style = {"ms": 3, "markevery": max(1, h.size // 12), **styles.get(name, {})}
        ax.plot(t, h, label=label, **style)
        drawn += 1
    ax.set_xlabel("fraction of the run's iterations" if x == "fraction" else "iteration")
    ax.set_ylabel("normalised objective" if relative else "objective")
    if title:
        ax.set_title(title, fontsize=9)
    if drawn:
        ax.legend(fontsize=7, ncol=2 if drawn > 6 else 1, handlelength=3.5)
    return ax

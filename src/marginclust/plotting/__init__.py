"""Plots (matplotlib is an optional extra, imported lazily inside each function)."""

from ._convergence import plot_convergence
from ._membership import membership_colors, plot_memberships

__all__ = ["membership_colors", "plot_convergence", "plot_memberships"]

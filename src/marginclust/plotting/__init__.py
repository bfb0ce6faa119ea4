"""Plots (matplotlib is an optional extra, imported lazily inside each function)."""

from ._convergence import plot_convergence
from ._k_curve import plot_k_curve
from ._membership import import_pyplot, membership_colors, plot_memberships
from ._style import align_memberships, method_styles

__all__ = [
    "align_memberships",
    "import_pyplot",
    "membership_colors",
    "method_styles",
    "plot_convergence",
    "plot_k_curve",
    "plot_memberships",
]

"""Plots (matplotlib is an optional extra, imported lazily)."""

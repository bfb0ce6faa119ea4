"""Shared validation, randomness and reporting helpers."""

from ._random import spawn_seeds
from ._reporting import progress, report
from ._validation import (
    Degeneracy,
    check_finite_scale,
    check_label_init,
    check_max_iter,
    check_memberships,
    check_n_clusters,
    check_not_constant,
    check_pairs,
    check_positive,
    check_positive_finite,
    check_unit_interval,
    degeneracy,
    min_cluster_size,
    resolve_alias,
    resolve_renamed,
)

__all__ = [
    "Degeneracy",
    "check_finite_scale",
    "check_label_init",
    "check_max_iter",
    "check_memberships",
    "check_n_clusters",
    "check_not_constant",
    "check_pairs",
    "check_positive",
    "check_positive_finite",
    "check_unit_interval",
    "degeneracy",
    "min_cluster_size",
    "progress",
    "report",
    "resolve_alias",
    "resolve_renamed",
    "spawn_seeds",
]

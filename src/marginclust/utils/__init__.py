"""Shared validation, randomness and reporting helpers."""

from ._random import spawn_seeds
from ._validation import (
    check_label_init,
    check_max_iter,
    check_memberships,
    check_n_clusters,
    check_not_constant,
    check_pairs,
    check_positive,
    check_positive_finite,
    check_unit_interval,
)

__all__ = [
    "check_label_init",
    "check_max_iter",
    "check_memberships",
    "check_n_clusters",
    "check_not_constant",
    "check_pairs",
    "check_positive",
    "check_positive_finite",
    "check_unit_interval",
    "spawn_seeds",
]

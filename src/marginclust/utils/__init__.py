"""Shared validation, randomness and reporting helpers."""

from ._random import spawn_seeds
from ._validation import (
    check_memberships,
    check_n_clusters,
    check_not_constant,
    check_pairs,
    check_positive,
)

__all__ = [
    "check_memberships",
    "check_n_clusters",
    "check_not_constant",
    "check_pairs",
    "check_positive",
    "spawn_seeds",
]

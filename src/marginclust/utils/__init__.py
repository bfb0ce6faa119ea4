"""Shared validation, randomness, reporting and data-frame helpers."""

from ._frame import Frame, centred_frame, check_objective_scale
from ._init import check_center_init, initial_point
from ._random import spawn_seeds
from ._reporting import StatusLine, format_seconds, progress, report
from ._validation import (
    Degeneracy,
    check_finite_scale,
    check_iteration_params,
    check_label_init,
    check_max_iter,
    check_memberships,
    check_n_clusters,
    check_not_constant,
    check_pairs,
    check_positive,
    check_positive_finite,
    check_sample_weight,
    check_unit_interval,
    degeneracy,
    min_cluster_size,
    resolve_alias,
    resolve_renamed,
)

__all__ = [
    "Degeneracy",
    "Frame",
    "StatusLine",
    "centred_frame",
    "check_center_init",
    "check_finite_scale",
    "check_iteration_params",
    "check_label_init",
    "check_max_iter",
    "check_memberships",
    "check_n_clusters",
    "check_not_constant",
    "check_objective_scale",
    "check_pairs",
    "check_positive",
    "check_positive_finite",
    "check_sample_weight",
    "check_unit_interval",
    "degeneracy",
    "format_seconds",
    "initial_point",
    "min_cluster_size",
    "progress",
    "report",
    "resolve_alias",
    "resolve_renamed",
    "spawn_seeds",
]

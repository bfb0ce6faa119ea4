"""Feature maps as scikit-learn transformers (ELM random features, low-rank kernels).

Also the RBF width vocabulary shared by every kernel method (:func:`resolve_gamma`)
and the data's local geometry (:func:`neighbor_scale`, :func:`local_scaling_affinity`).
"""

from ._elm import location_scale
from ._graph import local_scaling_affinity, neighbor_scale
from ._kernel import (
    GAMMA_RULES,
    kernel_gamma_grid,
    mean_pairwise_distance,
    resolve_frame_gamma,
    resolve_gamma,
)

__all__ = [
    "GAMMA_RULES",
    "kernel_gamma_grid",
    "local_scaling_affinity",
    "location_scale",
    "mean_pairwise_distance",
    "neighbor_scale",
    "resolve_frame_gamma",
    "resolve_gamma",
]

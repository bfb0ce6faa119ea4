"""Feature maps as scikit-learn transformers (ELM random features, low-rank kernels).

Also the RBF width vocabulary shared by every kernel method (:func:`resolve_gamma`).
"""

from ._elm import location_scale
from ._kernel import (
    GAMMA_RULES,
    kernel_gamma_grid,
    mean_pairwise_distance,
    rbf_kernel_sigma,
    resolve_frame_gamma,
    resolve_gamma,
)

__all__ = [
    "GAMMA_RULES",
    "kernel_gamma_grid",
    "location_scale",
    "mean_pairwise_distance",
    "rbf_kernel_sigma",
    "resolve_frame_gamma",
    "resolve_gamma",
]

"""Feature maps as scikit-learn transformers (ELM random features, low-rank kernels).

Also the RBF width vocabulary shared by every kernel method (:func:`resolve_gamma`).
"""

from ._kernel import GAMMA_RULES, mean_pairwise_distance, rbf_kernel_sigma, resolve_gamma

__all__ = ["GAMMA_RULES", "mean_pairwise_distance", "rbf_kernel_sigma", "resolve_gamma"]

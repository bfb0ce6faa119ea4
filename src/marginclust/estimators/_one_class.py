"""What WOC-SVM and OC-SVM hard clustering share: parameter constraints, the grid."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..feature_maps._kernel import GAMMA_CONSTRAINT
from ..feature_maps._one_class import AUTO_COMPONENTS, EXACT_MAX_SAMPLES, prepare_one_class_data
from ..objectives._weighted_ocsvm import KERNELS
from ..utils import Check, Constraint, OneOf

__all__ = [
    "DECISION_SCALE",
    "KERNEL_NU",
    "one_class_label_free_grid",
    "one_class_subset_params",
]

def _nu(value: Any, name: str) -> float:
    """The one-class SVM's ``nu``: a number in ``(0, 1]``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number in (0, 1]; got {value!r}.")
    if not (np.isfinite(value) and 0 < value <= 1):
        raise ValueError(f"{name} must be in (0, 1]; got {value!r}.")
    return float(value)


# The parameters both estimators have, in the order of their tables.
KERNEL_NU: dict[str, Constraint] = {
    "kernel": OneOf(KERNELS),
    "gamma": GAMMA_CONSTRAINT,
    "nu": Check(_nu, invalid=(0.0, 1.5, "0.5")),
}
DECISION_SCALE = OneOf(
    ("libsvm", "normalized", "relative"),
    "decision_scale must be 'libsvm', 'normalized' or 'relative'; got {value!r}.",
)


def one_class_subset_params(kernel: str, n_components: Any, n_fit: int,
                            n_total: int) -> dict[str, Any]:
    """Keep the low-rank mode of a fit on ``n_total`` rows on a subset of ``n_fit`` rows.

    With ``n_components="auto"`` a model-selection subset at or below
    ``EXACT_MAX_SAMPLES`` rows would switch to the exact kernel (an n x n matrix
    and a different model) while the refit on all rows uses the rank-300 map;
    subsets up to twice ``AUTO_COMPONENTS`` rows keep the exact kernel, no dearer.
    """
    if kernel == "linear" or not (isinstance(n_components, str) and n_components == "auto"):
        return {}
    if n_total <= EXACT_MAX_SAMPLES or n_fit <= 2 * AUTO_COMPONENTS:
        return {}
    return {"n_components": AUTO_COMPONENTS}


def one_class_label_free_grid(kernel: str, X: Any, rule: str = "sigma0") -> dict[str, list[Any]]:
    """Kernel widths around the rule's (x 1/4 .. 2 in gamma) and nu in {0.8, 0.9, 0.95}."""
    if kernel == "linear":
        return {"nu": [0.8, 0.9, 0.95]}
    data = prepare_one_class_data(
        np.asarray(X, dtype=np.float64), kernel="rbf", gamma=rule, n_components=None,
        random_state=0, cache_kernel=False,
    )
    g = data.gamma_user
    if not (np.finfo(np.float64).tiny * 4 <= g <= np.finfo(np.float64).max / 4):
        # the fit itself works in rescaled units; a grid is in the user's units
        raise ValueError(
            f"The kernel widths around gamma={rule!r} on these data are about "
            f"2**{-2 * data.exponent} (their spread is about 2**{data.exponent}): beyond "
            "the float range. Rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    return {"gamma": [g / 4, g / 2, g, 2 * g], "nu": [0.8, 0.9, 0.95]}

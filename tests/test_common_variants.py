"""scikit-learn's estimator checks on the non-default code paths.

``tests/test_common.py`` runs the checks at default parameters only; here every
variant of the estimator registry (``marginclust._registry``) that selects another code
path (low rank, linear kernel, solvers, forms, outputs, QP back-ends; the init
variants only change the start and are left to the property suite) runs them
too. Expected failures inherit the written reasons of ``test_common`` for the
same class, plus the variant-specific ones below (each with its reason). The
instances get ``random_state=0`` so that an expected failure does not depend on
the draw (``tests/test_common.py`` keeps ``random_state=None``).
"""

from __future__ import annotations

import importlib.util

from sklearn.utils.estimator_checks import parametrize_with_checks

from marginclust._registry import ESTIMATORS
from tests.properties._registry import CONFIGS
from tests.test_common import EXPECTED_FAILED_CHECKS, TEST_PARAMS

# variant id -> {check name: written reason}, from the estimator registry
VARIANT_EXPECTED_FAILED: dict[str, dict[str, str]] = {
    f"{spec.name}-{variant}": dict(reasons)
    for spec in ESTIMATORS
    for variant, reasons in spec.variant_expected_failed.items()
}


def _variant_configs():
    for config in CONFIGS:
        if config.variant == "default" or config.variant.startswith("init-"):
            continue
        if config.skip_reason:
            continue
        if config.params.get("qp") == "clarabel" and importlib.util.find_spec("clarabel") is None:
            continue
        yield config


def _instances():
    out = []
    for config in _variant_configs():
        params = {**TEST_PARAMS.get(config.name, {}), **config.params}
        if "random_state" in config.cls().get_params():
            # deterministic checks: a variant's expected failure must not depend on the draw
            params.setdefault("random_state", 0)
        out.append(config.cls(**params))
    return out


def _variant_id(est) -> str:
    """The registry id of the variant whose parameters ``est`` carries."""
    params = est.get_params()
    for config in _variant_configs():
        if type(est) is config.cls and all(params.get(k) == v for k, v in config.params.items()):
            return config.id
    return type(est).__name__


def _expected(est) -> dict[str, str]:
    name = type(est).__name__
    extra = VARIANT_EXPECTED_FAILED.get(_variant_id(est), {})
    return {**EXPECTED_FAILED_CHECKS.get(name, {}), **extra}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected)
def test_sklearn_compatible_variant(estimator, check):
    check(estimator)

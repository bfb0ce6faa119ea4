"""scikit-learn's estimator checks over every public estimator, and __all__ consistency."""

from __future__ import annotations

import importlib

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import marginclust
from marginclust._registry import ESTIMATORS

# Constructor arguments for the checks (kept small so the suite stays fast) and
# check name -> written reason, per estimator: both from the estimator registry.
TEST_PARAMS: dict[str, dict] = {spec.name: dict(spec.test_params) for spec in ESTIMATORS}
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    spec.name: dict(spec.expected_failed_checks) for spec in ESTIMATORS
}

ESTIMATOR_NAMES = sorted(spec.name for spec in ESTIMATORS)


def _instances():
    out = []
    for name in ESTIMATOR_NAMES:
        cls = getattr(marginclust, name)
        out.append(cls(**TEST_PARAMS.get(name, {})))
    return out


@parametrize_with_checks(
    _instances(),
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(type(est).__name__, {}),
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", marginclust.__all__)
def test_all_names_exist(name):
    assert getattr(marginclust, name) is not None


def test_lazy_modules_import():
    for name, module in marginclust._LAZY.items():
        assert hasattr(importlib.import_module(module), name), f"{module} lacks {name}"

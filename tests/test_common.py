"""scikit-learn's estimator checks over every public estimator, and __all__ consistency.

Every estimator of the registry at its test parameters, and the two meta-estimators:
``StabilitySearch`` (model selection) and, with the dask extra, ``DaskClusterer``
over a soft transformer (FuzzyCMeans) and over a method without ``transform`` or
``predict_proba`` (EMMC), the wrapper's two shapes. Besides ``check_estimator``'s
list, the checks scikit-learn runs on its own estimators outside it: DataFrame
column names at predict and ``set_output`` / ``get_feature_names_out`` of every
transformer.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    check_get_feature_names_out_error,
    check_global_output_transform_pandas,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

import marginclust
from marginclust._registry import ESTIMATORS, expected_failed_checks
from marginclust.model_selection import StabilitySearch

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


HAS_DASK = importlib.util.find_spec("dask") is not None
NO_DASK = "the dask extra is not installed (pip install marginclust[dask])"


def _meta_instances():
    """The meta-estimators, their inner fits kept small (one grid value, one split)."""
    out = [StabilitySearch(marginclust.FuzzyCMeans(), param_grid={"m": [2.0]}, n_pairs=1)]
    if HAS_DASK:
        from marginclust.dask import DaskClusterer

        # the wrapper has no random_state: it is deterministic through the estimator's
        out += [DaskClusterer(marginclust.FuzzyCMeans(random_state=0)),
                DaskClusterer(marginclust.EMMC(n_hidden=30, random_state=0))]
    return out


def all_instances():
    """Every public estimator as the checks run it (registry, then meta-estimators)."""
    return _instances() + _meta_instances()


@parametrize_with_checks(all_instances(), expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


if not HAS_DASK:  # the one public estimator left out, and why

    def test_dask_clusterer_needs_the_extra():
        pytest.skip(f"DaskClusterer is not checked: {NO_DASK}")


# run by scikit-learn on its own transformers, outside check_estimator's list
TRANSFORMER_CHECKS = (
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_global_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    check_get_feature_names_out_error,
)


@pytest.mark.parametrize("estimator", all_instances(), ids=repr)
def test_dataframe_columns_and_set_output(estimator):
    pytest.importorskip("pandas")
    name = type(estimator).__name__
    check_dataframe_column_names_consistency(name, estimator)
    if not hasattr(estimator, "transform"):
        assert not hasattr(estimator, "set_output")
        return
    # the checks return early without set_output; every transformer has it
    assert hasattr(estimator, "set_output") and hasattr(estimator, "get_feature_names_out")
    for check in TRANSFORMER_CHECKS:
        check(name, estimator)


@pytest.mark.parametrize("name", marginclust.__all__)
def test_all_names_exist(name):
    assert getattr(marginclust, name) is not None


def test_lazy_modules_import():
    for name, module in marginclust._LAZY.items():
        assert hasattr(importlib.import_module(module), name), f"{module} lacks {name}"

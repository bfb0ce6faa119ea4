"""The estimator registry is the one list of public estimators."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import marginclust
from marginclust._registry import (
    ESTIMATORS,
    cli_aliases,
    clusterer_names,
    expected_failed_checks,
    get_spec,
)
from marginclust.base import BaseClusterer
from marginclust.cli import _demo, _fit


def _public_clusterer_classes() -> dict[str, type]:
    """Every public BaseClusterer subclass defined in the package that can fit.

    A class that does not implement the restart contract (``_fit_one``), such as
    ``BaseClusterer`` itself or ``LinearMMCBase``, is a base, not an estimator.
    """
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(marginclust.__path__, "marginclust."):
        if info.name.startswith("marginclust.dask"):
            continue  # meta-estimators over in-memory ones; optional dependency
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseClusterer)
                and obj.__module__ == module.__name__
                and not name.startswith("_")
                and obj._fit_one is not BaseClusterer._fit_one
            ):
                found[name] = obj
    return found


def test_every_public_clusterer_is_registered():
    classes = _public_clusterer_classes()
    assert classes, "no clusterer found: the walk is broken"
    missing = sorted(set(classes) - set(clusterer_names()))
    assert not missing, f"add these to marginclust._registry.ESTIMATORS: {missing}"


@pytest.mark.parametrize("spec", ESTIMATORS, ids=lambda s: s.name)
def test_registered_estimator_is_exported_from_its_module(spec):
    cls = getattr(marginclust, spec.name)
    assert cls.__module__ == spec.module
    assert spec.name in marginclust.__all__
    assert issubclass(cls, BaseClusterer) == spec.clusterer


@pytest.mark.parametrize("spec", ESTIMATORS, ids=lambda s: s.name)
def test_registered_parameters_are_accepted(spec):
    accepted = set(getattr(marginclust, spec.name)().get_params())
    used = set(spec.demo_params) | set(spec.test_params)
    for _, params in spec.variants:
        used |= set(params)
    assert used <= accepted, f"{spec.name} does not accept {sorted(used - accepted)}"
    variant_ids = {v for v, _ in spec.variants}
    assert set(spec.variant_expected_failed) <= variant_ids


def test_names_and_aliases_are_unique():
    names = [spec.name for spec in ESTIMATORS]
    assert len(names) == len(set(names))
    aliases = [a for spec in ESTIMATORS for a in spec.aliases]
    assert len(aliases) == len(set(aliases))
    # an alias never names another class (``resolve_method`` is case-insensitive)
    lowered = {n.lower(): n for n in names}
    for alias, name in cli_aliases().items():
        assert lowered.get(alias.lower(), name) == name, alias


def test_cli_and_demo_read_the_registry():
    assert _fit.METHOD_ALIASES == cli_aliases()
    assert set(_demo.DEMO_PARAMS) == set(clusterer_names())
    for alias, name in cli_aliases().items():
        assert _fit.resolve_method(alias).__name__ == name
    with pytest.raises(KeyError, match="not a registered"):
        get_spec("KMeans")


def test_expected_failures_have_reasons_that_name_existing_tests():
    root = Path(__file__).resolve().parents[1]
    for spec in ESTIMATORS:
        reasons = dict(spec.expected_failed_checks)
        for extra in spec.variant_expected_failed.values():
            reasons.update(extra)
        assert expected_failed_checks(getattr(marginclust, spec.name)()) == dict(
            spec.expected_failed_checks)
        for check, reason in reasons.items():
            assert check.startswith("check_"), check
            for path in re.findall(r"tests/[\w/]+\.py", reason):
                assert (root / path).is_file(), f"{spec.name} {check}: {path} is missing"
    assert expected_failed_checks(object()) == {}

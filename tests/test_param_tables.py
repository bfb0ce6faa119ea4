"""Every public estimator declares every constructor parameter in its parameter table,
and every declared constraint is enforced by ``fit`` with a message naming the parameter
(as scikit-learn's ``check_param_validation``)."""

from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust import FuzzyCMeans
from marginclust._registry import ESTIMATORS
from marginclust.dask import DaskClusterer
from marginclust.model_selection import StabilitySearch
from marginclust.utils import AnyValue, check_parameters, invalid_examples


def _registered():
    for spec in ESTIMATORS:
        yield getattr(importlib.import_module(spec.module), spec.name)


CLASSES = [*_registered(), StabilitySearch, DaskClusterer]


def _make(cls, **params):
    """An instance with the defaults (a meta-estimator wraps FuzzyCMeans)."""
    if cls in (StabilitySearch, DaskClusterer):
        params.setdefault("estimator", FuzzyCMeans(random_state=0))
    return cls(**params)


def _init_params(cls):
    return [name for name, p in inspect.signature(cls.__init__).parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _cases():
    for cls in CLASSES:
        for name, constraint in cls._parameter_constraints.items():
            for value in invalid_examples(constraint):
                yield pytest.param(cls, name, value, id=f"{cls.__name__}-{name}-{value!r:.20}")


X, _ = make_blobs(30, centers=3, n_features=2, random_state=0)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_constructor_parameter_is_declared(cls):
    params = _init_params(cls)
    table = cls._parameter_constraints
    assert isinstance(table, dict)
    assert sorted(set(params) - set(table)) == []
    assert sorted(set(table) - set(params)) == []


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_defaults_meet_the_table(cls):
    check_parameters(_make(cls), cls._parameter_constraints)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_constraint_names_values_it_refuses(cls):
    for name, constraint in cls._parameter_constraints.items():
        if isinstance(constraint, AnyValue):  # any value by design, and said why
            assert constraint.why
        else:
            assert invalid_examples(constraint), name


@pytest.mark.parametrize(("cls", "name", "value"), list(_cases()))
def test_fit_refuses_each_invalid_value_naming_the_parameter(cls, name, value):
    est = _make(cls, **{name: value})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as info:
            est.fit(X)
    assert name in str(info.value)


def test_values_are_checked_against_the_data():
    from marginclust import BMMC, EMMC, PKM, SLMC, KernelKMeans

    labels = np.zeros(X.shape[0] + 1, dtype=np.intp)  # one label too many
    for est in (BMMC(init=labels), SLMC(init=np.full((5, 2), 0.5)),
                KernelKMeans(init=np.zeros((2, 5))), PKM(init=np.zeros((3, 3)))):
        with pytest.raises(ValueError, match="init"):
            est.fit(X)
    with pytest.raises(ValueError, match="larger than n_samples"):
        FuzzyCMeans(n_clusters=X.shape[0] + 1).fit(X)
    with pytest.raises(ValueError, match="square"):
        SLMC(kernel="precomputed").fit(X)
    with pytest.raises(ValueError, match="cannot be met"):  # 30 rows in 4 equal clusters
        EMMC(n_clusters=4, balance=0).fit(X)

"""Every docstring example in the package runs (numpydoc Examples are doctests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import marginclust

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(marginclust.__path__, "marginclust.")
    if not m.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"

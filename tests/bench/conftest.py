"""Shared fixtures of the bench tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def load_benchmark() -> Callable[[str], ModuleType]:
    """``load_benchmark("x")`` imports ``benchmarks/x.py`` (skips when benchmarks/ is not
    beside the tests, e.g. for an installed package)."""

    def load(name: str) -> ModuleType:
        path = BENCH / f"{name}.py"
        if not path.is_file():
            pytest.skip("benchmarks/ is not beside the tests (installed package)")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        # registered first, as an import would: dataclasses resolve their module by name
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    return load

"""Shared fixtures: a seed fixture that can sweep seeds, the shared data directory, and
an environment without tqdm."""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if "MARGINCLUST_DATA" not in os.environ and _SHARED.is_dir():
    os.environ["MARGINCLUST_DATA"] = str(_SHARED)


def _seeds() -> list[int]:
    spec = os.environ.get("MARGINCLUST_TEST_SEEDS", "42")
    if spec == "all":
        return list(range(100))
    if "-" in spec:
        lo, hi = (int(s) for s in spec.split("-"))
        return list(range(lo, hi + 1))
    return [int(s) for s in spec.split(",")]


@pytest.fixture(params=_seeds())
def global_random_seed(request: pytest.FixtureRequest) -> int:
    """A seed; set MARGINCLUST_TEST_SEEDS=0-9 (or "all") to sweep several."""
    return request.param


@pytest.fixture
def rng(global_random_seed: int) -> np.random.RandomState:
    """A RandomState seeded by ``global_random_seed``."""
    return np.random.RandomState(global_random_seed)


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The shared real data sets; tests that need them skip when absent."""
    path = Path(os.environ.get("MARGINCLUST_DATA", _SHARED))
    if not path.is_dir():
        pytest.skip(f"shared data sets not found at {path}")
    return path


@pytest.fixture
def no_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Imports of tqdm fail, as where the optional extra is not installed."""
    real_import = builtins.__import__

    def hide(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", hide)


@pytest.fixture
def rows_passed(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str], list[int]]:
    """Spy on a function or method: ``spy(owner, name)`` returns the list that records,
    call by call, the rows of its second positional argument (the data of
    ``method(self, X)`` or of ``function(model, X)``)."""

    def spy(owner: Any, name: str) -> list[int]:
        calls: list[int] = []
        original = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls.append(int(args[1].shape[0]))
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
        return calls

    return spy

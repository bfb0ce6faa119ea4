"""marginclust: soft and maximum-margin clustering with scikit-learn conventions.

Estimators are imported lazily, so ``import marginclust`` stays cheap and a
method's optional dependencies are only needed when that method is used.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._registry import ESTIMATORS

__version__ = "0.1.0"

# public name -> module that defines it (the registry is the one list)
_LAZY: dict[str, str] = {spec.name: spec.module for spec in ESTIMATORS}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'marginclust' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

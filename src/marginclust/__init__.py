"""marginclust: soft and maximum-margin clustering with scikit-learn conventions.

Estimators are imported lazily, so ``import marginclust`` stays cheap and a
method's optional dependencies are only needed when that method is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY: dict[str, str] = {
    "FuzzyCMeans": "marginclust.estimators._fcm",
    "KernelFuzzyCMeans": "marginclust.estimators._fcm",
    "KernelKMeans": "marginclust.estimators._kernel_kmeans",
    "SLMC": "marginclust.estimators._slmc",
    "IterativeLSSVM": "marginclust.estimators._iterative_lssvm",
    "PKM": "marginclust.estimators._pkm",
    "EMMC": "marginclust.estimators._emmc",
    "IterSVR": "marginclust.estimators._itersvr",
    "IterSVM": "marginclust.estimators._itersvr",
    "BMMC": "marginclust.estimators._bmmc",
    "CPMMC": "marginclust.estimators._cpmmc",
    "WOCSVMClustering": "marginclust.estimators._wocsvm",
    "OCSVMHardClustering": "marginclust.estimators._ocsvm_hard",
    "ELMFeatures": "marginclust.feature_maps._elm",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'marginclust' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

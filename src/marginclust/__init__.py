"""marginclust: soft and maximum-margin clustering with scikit-learn conventions.

Estimators are imported lazily, so ``import marginclust`` stays cheap and a
method's optional dependencies are only needed when that method is used.

The package is built in layers, lowest first; a module imports only from its own
layer or below (``tests/test_layers.py`` reads every import statement and allows
no exception):

1. ``utils`` (with ``exceptions``, ``metrics``, ``datasets`` and ``_version``,
   which import nothing else of the package): validation, row blocks, seeds,
   measures, loaders.
2. ``objectives``: the models' mathematics (objective values, closed-form steps,
   decision functions); no loop over iterations, no parameter validation.
3. ``solvers``: the iteration loops; a solver knows a model through the problem
   object it is handed (the methods its ``required`` names).
4. ``feature_maps``: kernels, low-rank maps, ELM features and the once-per-fit
   data preparation built on them.
5. ``starts``: where the iterative methods begin, each start written once:
   k-means, k-means++ and centre starts, the spectral start, the PCA and pair
   starts of the linear methods, and maximum-margin clustering's search over a
   pool of candidate partitions (with the K rule's boundary tests), which is
   also the kernel methods' ``init="max-margin"``. The few estimators a start or
   a candidate fits (FuzzyCMeans, SLMC, KernelKMeans, EMMC) are registered here
   by the estimators' package when it is imported, so nothing here imports
   them.
6. ``estimators`` (with ``base``, the estimator registry and this package's
   face): thin scikit-learn classes that validate their parameters against one
   declarative table each and wire a start and a problem to a solver. No
   estimator module imports another (the estimators' ``__init__`` alone imports
   several, to register them with the starts).
7. ``dask``, ``model_selection`` and ``plotting``: what works on top of fitted or
   fitting estimators.
8. ``bench``: the benchmark harness (the papers' tables are not installed: they
   are the repository's ``benchmarks/papers``).
9. ``cli``: the ``marginclust`` command.

No module imports this package's face (``import marginclust``): each imports
what it needs from the module that defines it.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._registry import ESTIMATORS
from ._version import __version__

# public name -> module that defines it (the registry is the one list)
_LAZY: dict[str, str] = {spec.name: spec.module for spec in ESTIMATORS}
# the library-wide settings (max_memory), as scikit-learn's set_config / config_context
_LAZY.update({name: "marginclust.utils._memory"
              for name in ("config_context", "get_config", "set_config")})

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'marginclust' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

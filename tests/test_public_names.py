"""What users read names only what they can use: no private module paths, private hooks
or repository scripts in the public docstrings, and no placeholder defaults in the
estimators' signatures."""

from __future__ import annotations

import inspect
import re

import pytest

from .test_docstrings import NUMPYDOC_MODULES, _public_objects

# ``marginclust.x._private``, a ``_hook`` in literal markup, a script of the repository
PRIVATE = re.compile(r"marginclust(\.[a-z_]+)*\._[a-z]|``_[a-z][a-z_]*``|_label_free_grid|"
                     r"_n_scaled_params|EXACT_MAX_SAMPLES|benchmarks/[a-z_]+\.py")
# BaseClusterer documents the hooks a subclass implements; the paper-protocol package
# documents the repository's harness.
DEVELOPER_FACING = ("marginclust.base", "marginclust.bench")


@pytest.mark.parametrize("modname", [m for m in NUMPYDOC_MODULES if m not in DEVELOPER_FACING])
def test_public_docstrings_name_no_private_names_or_scripts(modname):
    hits = []
    for path, obj in _public_objects(modname):
        for match in PRIVATE.finditer(inspect.getdoc(obj) or ""):
            hits.append(f"{path}: {match.group(0)}")
    assert not hits, "\n".join(hits)


def _public_estimators():
    import marginclust

    return [getattr(marginclust, n) for n in marginclust.__all__
            if inspect.isclass(getattr(marginclust, n))
            and hasattr(getattr(marginclust, n), "get_params")]


@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_signatures_have_no_deprecated_placeholders(cls):
    """A signature shows only parameters that work: no ``"deprecated"`` sentinel and no
    removed width or temperature names (``sigma*``, now ``gamma`` / ``temperature*``)."""
    params = inspect.signature(cls).parameters
    assert not [name for name, p in params.items()
                if isinstance(p.default, str) and p.default == "deprecated"]
    assert not [name for name in params if name.startswith("sigma")]

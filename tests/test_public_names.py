"""What users read names only what they can use: no private module paths, private hooks
or repository scripts in the public docstrings, and no placeholder defaults in SLMC's
signature."""

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


def test_slmc_signature_has_no_deprecated_placeholders():
    from marginclust import SLMC

    params = inspect.signature(SLMC).parameters
    assert not [name for name, p in params.items() if p.default == "deprecated"]

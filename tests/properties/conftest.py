"""Hypothesis profiles for the property suite, selected by MARGINCLUST_HYPOTHESIS_PROFILE.

- ``ci`` (default): the issue's standard problem and the pinned cases as explicit
  examples plus one generated problem per test, drawn from a fixed seed so that
  every category reuses the same guarded fit (the whole package runs in a few
  minutes of one core).
- ``long`` (``make test-long``): many generated problems per test, a fresh seed
  each run (hypothesis prints the failing problem; pin it in ``_known.PINNED``);
  ``MARGINCLUST_HYPOTHESIS_MAX_EXAMPLES`` (default 30) sets how many.

No profile shrinks: a failing problem is a seed, shrinking it would only refit
(and a hang would cost the watchdog's timeout per shrink step).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, settings

_COMMON = dict(
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
settings.register_profile("ci", max_examples=1, **_COMMON)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("MARGINCLUST_HYPOTHESIS_MAX_EXAMPLES", "30")),
    **_COMMON,
)
settings.load_profile(os.environ.get("MARGINCLUST_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config, items):
    """A pytest-timeout backstop (signal method: fails one test) for Python-level hangs.

    Fits run in forked children under ``_guard.run_guarded``, which also stops hangs
    inside compiled code; this only bounds what runs in the pytest process itself.
    """
    if not config.pluginmanager.hasplugin("timeout"):
        return
    seconds = 1800 if os.environ.get("MARGINCLUST_HYPOTHESIS_PROFILE") == "long" else 300
    for item in items:
        if "tests/properties" in str(item.fspath) and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(seconds, method="signal"))

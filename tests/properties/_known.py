"""Open findings of the property suite that it still reproduces, pinned as strict xfails.

``KNOWN`` maps ``(config id pattern, category)`` to the reason. The matching
parametrized test is marked ``xfail(strict=True)``: it stays visible, and it
turns into an error ("XPASS(strict)") the moment the estimator is fixed, which
is the signal to delete the entry. ``PINNED`` lists, per category, the generated
problems that found a failure; every test of that category runs them as explicit
``@example`` s (on every configuration, so a fix elsewhere cannot regress them).

Patterns use :func:`fnmatch.fnmatchcase` on ``Config.id`` (``"PKM-*"``).
"""

from __future__ import annotations

import fnmatch

from ._cases import Case

__all__ = ["KNOWN", "PINNED", "STANDARD", "STANDARD3", "TINY", "known_reason"]

# The problem: make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0).
STANDARD = Case(seed=0, n=40, d=3, k=2, std=0.6)
# A three-cluster problem (binary-only methods get its first two blobs' k=2 version).
STANDARD3 = Case(seed=1, n=60, d=4, k=3, std=1.0)

# Tiny problems of the contract category (run on every configuration, both dtypes):
# one cluster, and 3 to 9 rows, where predict(X_train) once left [0, n_clusters_found_)
# or differed from labels_ on a few rows.
TINY = [
    Case(seed=3, n=2, d=2, k=1, std=0.6),
    Case(seed=4, n=3, d=2, k=2, std=0.6),
    Case(seed=5, n=6, d=3, k=2, std=1.0),
    Case(seed=6, n=9, d=2, k=3, std=0.3),
    Case(seed=7, n=40, d=2, k=1, std=1.0),
]

# every finding pinned so far is fixed; add new ones here as they are found
KNOWN: dict[tuple[str, str], str] = {}

# category -> generated problems that found a failure (run as @example on every config)
_PKM_EMPTY = [
    Case(seed=62501, n=32, d=2, k=3, std=0.6),  # found by tests/properties exploration
    Case(seed=9304, n=46, d=3, k=3, std=1.0),  # found by the long profile
]
PINNED: dict[str, list[Case]] = {
    # PKM init="dirichlet" / "uniform-perturbed": EmptyClusterError
    category: _PKM_EMPTY
    for category in ("labels", "predict", "input", "monotone", "simplex")
}


def known_reason(config_id: str, category: str) -> str | None:
    """The reason of the open finding for this configuration and category, if any."""
    for (pattern, cat), reason in KNOWN.items():
        if cat == category and fnmatch.fnmatchcase(config_id, pattern):
            owner = config_id.split("-")[0]
            return f"open finding: {reason} (to fix in {owner})"
    return None

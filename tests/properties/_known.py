"""Open findings of issue 16 that the suite still reproduces, pinned as strict xfails.

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

__all__ = ["KNOWN", "PINNED", "STANDARD", "STANDARD3", "known_reason"]

# The problem: make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0).
STANDARD = Case(seed=0, n=40, d=3, k=2, std=0.6)
# A three-cluster problem (binary-only methods get its first two blobs' k=2 version).
STANDARD3 = Case(seed=1, n=60, d=4, k=3, std=1.0)

_OFFSET = "a large common offset (timestamps) changes the answer: centre X first"
_NAN_OFFSET = "LinAlgError (leading minor not positive definite) on X + offset"

KNOWN: dict[tuple[str, str], str] = {
    # ---------------------------------------------------------------- dtype
    ("SLMC-*", "dtype"): "memberships_ / predict_proba are float64 for float32 input",
    # ---------------------------------------------------------------- scale
    ("SLMC-linear*", "scale"): (
        "kernel='linear' is x^T y + 1: at X * 1e-6 the constant swamps the data (ARI 0)"
    ),
    # ---------------------------------------------------------------- labels (fit refused)
    # ---------------------------------------------------------------- extremes
    ("IterativeLSSVM-linear", "extremes:x1e-150"): "predict(X_train) != labels_ (22/40 rows)",
    ("IterativeLSSVM-linear", "extremes:x1e150"): "LinAlgError (leading minor)",
    ("IterativeLSSVM-linear", "extremes:x1e200"): "overflow RuntimeWarning (feature map matmul)",
    ("IterativeLSSVM-linear", "extremes:plus1e9"): _NAN_OFFSET,
    ("IterativeLSSVM-linear", "extremes:plus1e10"): _NAN_OFFSET,
    ("IterativeLSSVM-linear", "extremes:mixed1e-8_1e8"): "LinAlgError on mixed 1e-8/1e8 columns",
    ("IterativeLSSVM-default", "extremes:plus1e9"): _OFFSET,
    ("IterativeLSSVM-default", "extremes:plus1e10"): _OFFSET,
    ("IterativeLSSVM-low-rank-nystroem", "extremes:plus1e9"): _OFFSET,
    ("IterativeLSSVM-low-rank-nystroem", "extremes:plus1e10"): _OFFSET,
    ("SLMC-linear", "extremes:x1e150"): "LinAlgError (leading minor)",
    ("SLMC-linear", "extremes:x1e200"): "overflow RuntimeWarning (feature map matmul)",
    ("SLMC-linear-low-rank", "extremes:x1e200"): "NaN memberships_ / predict_proba",
    ("SLMC-default", "extremes:plus1e9"): _NAN_OFFSET,
    ("SLMC-default", "extremes:plus1e10"): _NAN_OFFSET,
    ("SLMC-linear", "extremes:plus1e9"): _NAN_OFFSET,
    ("SLMC-linear", "extremes:plus1e10"): _NAN_OFFSET,
    ("SLMC-linear-low-rank", "extremes:plus1e9"): _NAN_OFFSET,
    ("SLMC-linear-low-rank", "extremes:plus1e10"): _NAN_OFFSET,
    ("SLMC-low-rank-*", "extremes:plus1e9"): _OFFSET,
    ("SLMC-low-rank-*", "extremes:plus1e10"): _OFFSET,
    ("SLMC-linear", "extremes:mixed1e-8_1e8"): "LinAlgError on mixed 1e-8/1e8 columns",
}

# category -> generated problems that found a failure (run as @example on every config)
PINNED: dict[str, list[Case]] = {
    # PKM init="dirichlet" / "uniform-perturbed": EmptyClusterError
    "labels": [Case(seed=62501, n=32, d=2, k=3, std=0.6)],
}


def known_reason(config_id: str, category: str) -> str | None:
    """The reason of the open finding for this configuration and category, if any."""
    for (pattern, cat), reason in KNOWN.items():
        if cat == category and fnmatch.fnmatchcase(config_id, pattern):
            owner = config_id.split("-")[0]
            return f"issue 16: {reason}; fixed by the {owner} engineer"
    return None

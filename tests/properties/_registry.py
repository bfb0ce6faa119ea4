"""Discover the public estimators and their code-path variants.

Every class exported by ``marginclust.__all__`` that is a clusterer (has
``fit_predict``) is tested. ``VARIANTS`` declares, per estimator, the
parameter sets that select other code paths (low rank, linear kernel, solvers,
outputs, inits, forms, QP back-ends, annealing); the default configuration is
always included. A class missing from ``VARIANTS`` is still tested at its
defaults, and a variant whose parameter the estimator no longer accepts is
reported as a skip (never silently dropped).

Claims read from the estimators (class attribute first, docstring second):

- scale-free defaults: ``_scale_free_defaults = True`` / ``False`` on the class;
  otherwise the project's vocabulary (defaults invariant to a uniform rescaling
  of ``X``) applies unless the class docstring says "not scale-free" or
  "not scale free" about its defaults.
- monotone objective: ``_monotone_objective = True`` / ``False`` / ``"binary"``
  on the class; otherwise the ``objective_history_`` entry of the docstring's
  Attributes section is read: "non-increasing" or "never increases" claims it,
  "for two clusters" restricts it to ``n_clusters=2``, "Not monotone" / "not
  necessarily monotone" without a later "Multiclass: ... non-increasing"
  denies it.
- labels are the argmax of the memberships: the ``labels_`` entry mentions
  ``argmax`` and the class has ``memberships_`` documented.
- ``predict(X_train) == labels_``: always, unless the class sets
  ``_predict_matches_labels = False`` and documents the fitted attribute that
  says which rows moved (the project's vocabulary).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any

import marginclust
from marginclust._registry import ESTIMATORS

__all__ = ["Config", "CONFIGS", "VARIANTS", "discover_estimators"]

# estimator -> [(variant id, parameters)]; defaults are added automatically. Declared
# in the estimator registry; parameters small so every fit takes a fraction of a second
# at n <= 60.
VARIANTS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    spec.name: [(variant, dict(params)) for variant, params in spec.variants]
    for spec in ESTIMATORS
    if spec.variants
}

# Keep the fits small (these only shorten the run; they select no code path).
SMALL: dict[str, dict[str, Any]] = {
    spec.name: dict(spec.test_params) for spec in ESTIMATORS if spec.test_params
}

# Optional packages a variant needs: (parameter, value) -> module.
OPTIONAL = {("qp", "clarabel"): "clarabel"}


def discover_estimators() -> dict[str, type]:
    """Public clusterers of ``marginclust`` by name."""
    out = {}
    for name in marginclust.__all__:
        obj = getattr(marginclust, name)
        if inspect.isclass(obj) and hasattr(obj, "fit_predict") and hasattr(obj, "fit"):
            out[name] = obj
    return out


def _attribute_entry(doc: str, attr: str) -> str:
    """The text of ``attr``'s entry in a numpydoc Attributes section ('' if none)."""
    m = re.search(rf"^{re.escape(attr)} : .*?$\n((?:^[ ]{{4,}}.*$\n?)*)", doc, re.M)
    return (m.group(0) if m else "").strip()


@dataclass(frozen=True)
class Config:
    """One estimator in one code-path variant."""

    name: str
    variant: str
    params: dict[str, Any] = field(hash=False, compare=False)
    cls: type = field(hash=False, compare=False)
    skip_reason: str | None = field(default=None, hash=False, compare=False)

    @property
    def id(self) -> str:
        return f"{self.name}-{self.variant}"

    # ---------------------------------------------------------------- claims
    @property
    def max_clusters(self) -> int:
        return int(getattr(self.cls, "_max_clusters", None) or 3)

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.cls) or ""

    def is_soft(self) -> bool:
        """Soft memberships: the class documents ``memberships_``."""
        return bool(_attribute_entry(self.doc, "memberships_"))

    def has_predict_proba(self) -> bool:
        """``predict_proba`` exists with this configuration's parameters (``available_if``)."""
        return hasattr(self.cls(**{**SMALL.get(self.name, {}), **self.params}), "predict_proba")

    def labels_are_argmax(self) -> bool:
        entry = _attribute_entry(self.doc, "labels_")
        return bool(_attribute_entry(self.doc, "memberships_")) and "argmax" in entry and (
            "membership" in entry or "p_ij" in entry
        )

    def predict_matches_labels(self) -> bool:
        return bool(getattr(self.cls, "_predict_matches_labels", True))

    def scale_free(self) -> bool:
        flag = getattr(self.cls, "_scale_free_defaults", None)
        if flag is not None:
            return bool(flag)
        doc = " ".join(self.doc.split())
        if self.params.get("kernel") == "linear" and re.search(
            r"linear kernel[^.]*not scale[- ]free", doc
        ):
            return False  # a documented non-default kernel that is not scale-free
        return not re.search(r"not scale[- ]free defaults|defaults are not scale[- ]free", doc)

    def monotone(self, n_clusters: int) -> bool:
        flag = getattr(self.cls, "_monotone_objective", None)
        if flag is not None:
            return flag is True or (flag == "binary" and n_clusters == 2) or (
                flag == "multiclass" and n_clusters > 2
            )
        entry = " ".join(_attribute_entry(self.doc, "objective_history_").split())
        if not entry:
            return False
        if re.search(r"Binary:.*not necessarily monotone.*Multiclass:.*non-increasing", entry):
            return n_clusters > 2
        if re.search(r"not (necessarily )?monotone", entry, re.I):
            return False
        if re.search(r"non-increasing|never increases", entry):
            if "for two clusters" in entry:
                return n_clusters == 2
            return True
        return False

    def make(self, n_clusters: int, **extra: Any) -> Any:
        params = {**SMALL.get(self.name, {}), **self.params, **extra}
        return self.cls(n_clusters=n_clusters, **params)


def _build_configs() -> list[Config]:
    import importlib.util

    configs = []
    for name, cls in discover_estimators().items():
        accepted = set(cls().get_params())
        for variant, params in [("default", {}), *VARIANTS.get(name, [])]:
            reason = None
            missing = sorted(set(params) - accepted)
            if missing:
                reason = f"{name} no longer accepts {missing}: update VARIANTS"
            for (key, value), module in OPTIONAL.items():
                if params.get(key) == value and importlib.util.find_spec(module) is None:
                    reason = f"optional package {module} not installed"
            configs.append(Config(name, variant, params, cls, reason))
    return configs


CONFIGS: list[Config] = _build_configs()

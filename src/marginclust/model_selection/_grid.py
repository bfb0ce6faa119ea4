"""Candidate settings of a label-free search, and rescaling of n-scaled parameters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

from sklearn.model_selection import ParameterGrid

__all__ = ["candidate_settings", "n_scaled_params", "scale_params", "subset_params"]


def candidate_settings(
    estimator: Any, param_grid: Mapping[str, Sequence[Any]] | Sequence[Any] | None, X: Any
) -> tuple[list[dict[str, Any]], str]:
    """The settings to compare and where they came from.

    ``param_grid=None`` asks the estimator for its own label-free grid
    (marginclust's estimators declare one, computed from ``X`` only; for a
    Pipeline, its last step's grid on the transformed rows); an estimator
    without one is compared at its defaults alone.

    Parameters
    ----------
    estimator : estimator
        The clusterer (or Pipeline ending in one) whose settings are compared.
    param_grid : dict, list of dict or None
        A scikit-learn parameter grid, or None for the estimator's own grid.
    X : array-like of shape (n_samples, n_features)
        The data the estimator's grid is computed from (never labels).

    Returns
    -------
    settings : list of dict
        The parameter settings, ``[{}]`` for the defaults alone.
    source : {"given", "estimator", "defaults"}
        Where the settings came from.

    Raises
    ------
    ValueError
        If the grid is empty or names a parameter the estimator does not have.
    """
    source = "given"
    if param_grid is None:
        param_grid = _declared_grid(estimator, X)
        source = "estimator"
        if not param_grid:
            return [{}], "defaults"
    settings = [dict(p) for p in ParameterGrid(param_grid)]
    if not settings:
        raise ValueError("param_grid gives no setting; pass None or a non-empty grid.")
    valid = set(estimator.get_params(deep=True))
    unknown = sorted({k for s in settings for k in s} - valid)
    if unknown:
        raise ValueError(f"{type(estimator).__name__} has no parameter"
                         f"{'s' if len(unknown) > 1 else ''} {unknown}; "
                         f"its parameters are {sorted(valid)}.")
    return settings, source


def _declared_grid(estimator: Any, X: Any) -> dict[str, list[Any]]:
    """The estimator's label-free grid; for a Pipeline, its last step's grid computed on
    the rows the earlier steps produce, with the step name as prefix."""
    steps = getattr(estimator, "steps", None)
    if steps:
        name, last = steps[-1]
        hook = getattr(last, "_label_free_grid", None)
        if not callable(hook):
            return {}
        if len(steps) > 1:
            from sklearn.base import clone
            from sklearn.pipeline import Pipeline

            X = clone(Pipeline(list(steps[:-1]))).fit_transform(X)
        return {f"{name}__{k}": list(v) for k, v in (hook(X) or {}).items()}
    hook = getattr(estimator, "_label_free_grid", None)
    return dict(hook(X) or {}) if callable(hook) else {}


def n_scaled_params(estimator: Any) -> tuple[str, ...]:
    """Names of the estimator's parameters that are sums over samples.

    Declared by the estimator class (EMMC's ``C``, WOC-SVM's ``temperature``), or
    by the estimator's method ``_n_scaled_param_names()`` when the answer depends
    on its parameters (WOC-SVM's relative scores do not scale with n); for a
    Pipeline, those of its last step, prefixed with the step name.

    Parameters
    ----------
    estimator : estimator
        A clusterer or a Pipeline ending in one.

    Returns
    -------
    names : tuple of str
        Parameter names (``step__name`` for a Pipeline), possibly empty.
    """
    def names(est: Any) -> tuple[str, ...]:
        hook = getattr(est, "_n_scaled_param_names", None)
        if callable(hook):
            return tuple(hook())
        return tuple(getattr(type(est), "_n_scaled_params", ()))

    steps = getattr(estimator, "steps", None)
    if steps:
        name, last = steps[-1]
        return tuple(f"{name}__{p}" for p in names(last))
    return names(estimator)


def scale_params(
    estimator: Any, setting: Mapping[str, Any], n_fit: int, n_ref: int
) -> dict[str, Any]:
    """``setting`` for a fit on ``n_fit`` rows when its values are meant for ``n_ref`` rows.

    Every n-scaled parameter (see :func:`n_scaled_params`) that is a real number
    -- from the setting, or the estimator's current value -- is multiplied by
    ``n_fit / n_ref``; other parameters are unchanged.

    Parameters
    ----------
    estimator : estimator
        The clusterer the setting is for.
    setting : mapping
        Parameter values meant for ``n_ref`` rows.
    n_fit : int
        Number of rows of the coming fit.
    n_ref : int
        Number of rows the values are meant for.

    Returns
    -------
    setting : dict
        A new setting with the n-scaled parameters rescaled.

    Examples
    --------
    >>> from marginclust import EMMC
    >>> scale_params(EMMC(C=1.0), {"n_hidden": 100}, 300, 100)
    {'n_hidden': 100, 'C': 3.0}
    """
    out = dict(setting)
    names = n_scaled_params(estimator)
    if not names or n_fit == n_ref:
        return out
    current = estimator.get_params(deep=True)
    for name in names:
        value = out.get(name, current.get(name))
        if isinstance(value, Real) and not isinstance(value, bool):
            out[name] = float(value) * n_fit / n_ref
    return out


def subset_params(estimator: Any, n_fit: int, n_total: int) -> dict[str, Any]:
    """Parameters that keep a fit on ``n_fit`` rows in the mode of a fit on ``n_total``.

    An estimator whose mode depends on the number of rows (an exact kernel up to
    a size, a low-rank map above it) declares it in the hook
    ``_subset_fit_params(n_fit, n_total)``; halves and halving rungs of a search
    then compare the settings in the mode the refit on all rows will use (and
    do not fall back to a slower exact kernel below the size limit). For a
    Pipeline, its last step's hook, prefixed with the step name.

    Parameters
    ----------
    estimator : estimator
        A clusterer or a Pipeline ending in one.
    n_fit : int
        Rows of the coming fit.
    n_total : int
        Rows of the fit whose mode is kept.

    Returns
    -------
    params : dict
        Parameters to set for the fit (empty when nothing depends on the size).
    """
    steps = getattr(estimator, "steps", None)
    prefix = ""
    if steps:
        name, estimator = steps[-1]
        prefix = f"{name}__"
    hook = getattr(estimator, "_subset_fit_params", None)
    if not callable(hook) or n_fit >= n_total:
        return {}
    return {prefix + k: v for k, v in (hook(n_fit, n_total) or {}).items()}

"""One setting of a label-free search: fit it, judge its degeneracy, score it.

:func:`evaluate_setting` is a pure function of its arguments (the estimator
with its seed, the setting, the rung's rows and the half splits), so a
:class:`joblib.Memory` can keep its outcome: a search interrupted after some
settings resumes from them (``StabilitySearch(memory=...)``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from sklearn.base import clone

from ..exceptions import ConvergenceWarning
from ..utils import degeneracy
from ._grid import scale_params, subset_params
from ._scorers import WORST_SCORE, get_label_free_scorer, normalized_instability

__all__ = ["GEOMETRIC", "PAIRED", "Outcome", "evaluate_setting", "fit_setting", "labels_of",
           "setting_n_clusters"]

# Geometric criteria recorded for every kept setting (on its fit on the rung's rows, in
# the standardised reference space), whatever the scoring.
GEOMETRIC = ("calinski_harabasz", "silhouette", "xie_beni")
# Scorings evaluated on half splits (1 + 2 n_pairs fits per setting).
PAIRED = ("stability",)


class Outcome(NamedTuple):
    """What one setting's evaluation on one rung found.

    ``pair_scores`` holds one stability value per half split, NaN for a split
    whose halves could not be fitted or collapsed (a failure, not a number);
    ``score`` is their median with failures counted as the worst value.
    ``reason`` says why a degenerate setting was dropped.
    """

    score: float
    score_std: float
    degenerate: bool
    n_clusters: int
    n_found: int
    smallest: int
    seconds: float
    n_fits: int
    n_convergence_warnings: int
    error: str | None
    reason: str | None = None
    pair_scores: tuple[float, ...] = ()
    tie_score: float = np.nan
    criteria: Mapping[str, float] | None = None


def setting_n_clusters(estimator: Any, setting: Mapping[str, Any]) -> int | None:
    """The number of clusters ``setting`` asks of ``estimator`` (a Pipeline's last step too)."""
    for key, value in setting.items():
        if key == "n_clusters" or key.endswith("__n_clusters"):
            return None if value is None else int(value)
    params = estimator.get_params(deep=True)
    for key, value in params.items():
        if (key == "n_clusters" or key.endswith("__n_clusters")) and value is not None:
            try:
                return int(value)
            except (TypeError, ValueError):
                return None
    return None


def fit_setting(
    estimator: Any, params: Mapping[str, Any], X: Any
) -> tuple[Any, float, int]:
    """Fit a clone with ``params``; return it, the seconds and its ConvergenceWarnings."""
    est = clone(estimator).set_params(**params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        est.fit(X)
        seconds = time.perf_counter() - start
    n_conv = 0
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            n_conv += 1
        else:  # not ours to swallow
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return est, seconds, n_conv


def labels_of(est: Any, X: Any) -> npt.NDArray[np.intp]:
    """The fitted labels (``labels_``, else ``predict(X)``) as integers."""
    labels = getattr(est, "labels_", None)
    if labels is None:
        labels = est.predict(X)
    return np.asarray(labels, dtype=np.intp)


def _k_of(est: Any, labels: npt.NDArray[np.intp]) -> int:
    k = setting_n_clusters(est, {})
    return int(np.unique(labels).size) if k is None else k


def degeneracy_reason(labels: npt.NDArray[np.intp], k: int) -> str | None:
    """Why ``labels`` is degenerate for ``k`` clusters, or None when it is not."""
    if labels.size == 0:
        return "no labels"
    if np.any(labels < 0):
        return f"{int(np.sum(labels < 0))} sample(s) labelled as noise"
    deg = degeneracy(labels, k)
    if deg.n_found < k:
        return f"{deg.n_found} of {k} clusters non-empty"
    if deg.degenerate:
        small = int(np.min(deg.sizes[deg.sizes > 0]))
        return (f"a cluster of {small} sample(s), below the minimum of {deg.min_size} "
                f"on {labels.size} rows")
    return None


def _criteria(est: Any, X: Any) -> dict[str, float]:
    out = {}
    for name in GEOMETRIC:
        try:
            out[name] = float(get_label_free_scorer(name)(est, X))
        except Exception:  # noqa: BLE001 - a criterion that cannot be computed is unknown
            out[name] = np.nan
    return out


def _params(estimator: Any, setting: Mapping[str, Any], n_fit: int,
            n_total: int) -> dict[str, Any]:
    """The setting for a fit on ``n_fit`` of the ``n_total`` rows: values that are sums
    over samples rescaled by ``n_fit / n_total``, the mode of the fit on all rows kept."""
    params = scale_params(estimator, setting, n_fit, n_total)
    probe = clone(estimator).set_params(**params)
    return {**params, **subset_params(probe, n_fit, n_total)}


def _pair_score(estimator: Any, setting: Mapping[str, Any], X: Any, a: np.ndarray,
                b: np.ndarray, k: int, n_total: int,
                tick: Callable[[int, float], None] | None) -> tuple[float, float, int, int]:
    """Stability of one split (NaN when a half fails), the seconds, fits and warnings."""
    seconds = 0.0
    n_fits = n_conv = 0
    fitted = []
    worst = WORST_SCORE["stability"]
    try:
        for part in (a, b):
            params = _params(estimator, setting, part.size, n_total)
            e, t, w = fit_setting(estimator, params, X[part])
            seconds, n_fits, n_conv = seconds + t, n_fits + 1, n_conv + w
            if tick is not None:
                tick(part.size, t)
            fitted.append((e, labels_of(e, X[part])))
    except Exception:  # noqa: BLE001 - a half this setting cannot fit is a failure
        return np.nan, seconds, n_fits, n_conv
    (ea, la), (eb, lb) = fitted
    if degeneracy_reason(la, k) or degeneracy_reason(lb, k):
        return np.nan, seconds, n_fits, n_conv
    both = []
    for e, own, other in ((ea, lb, b), (eb, la, a)):
        moved = np.asarray(e.predict(X[other]), dtype=np.intp)
        both.append(worst if degeneracy_reason(moved, k) else
                    max(worst, 1.0 - normalized_instability(moved, own)))
    return float(np.mean(both)), seconds, n_fits, n_conv


def evaluate_setting(
    estimator: Any,
    setting: Mapping[str, Any],
    X: Any,
    n_total: int,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    scoring: str | Callable[..., float],
    tie_break: str | None = None,
    tick: Callable[[int, float], None] | None = None,
) -> Outcome:
    """Fit one setting on ``X`` (the rung's rows), check degeneracy, score it.

    Parameters
    ----------
    estimator : estimator
        The seeded clusterer the settings are applied to.
    setting : mapping
        Parameter values (meant for all ``n_total`` rows).
    X : array-like of shape (n_rows, n_features)
        The rung's rows.
    n_total : int
        Rows of the data: a fit on fewer rows rescales the values that are sums
        over samples and keeps the mode (exact or low rank) of a fit on all rows.
    pairs : sequence of (ndarray, ndarray)
        Half splits of the rows of ``X`` (stability only).
    scoring : str or callable
        The criterion.
    tie_break : str or None
        Geometric criterion stored as ``tie_score`` (stability only).
    tick : callable, optional
        ``tick(n_rows, seconds)`` after every fit (progress); not part of the result.

    Returns
    -------
    outcome : Outcome
        The setting's score and what its fits found.
    """
    seconds = 0.0
    n_fits = n_conv = 0
    try:
        est, t, w = fit_setting(estimator, _params(estimator, setting, X.shape[0], n_total), X)
        seconds, n_fits, n_conv = t, 1, w
        if tick is not None:
            tick(X.shape[0], t)
        labels = labels_of(est, X)
        k = _k_of(est, labels)
        deg = degeneracy(np.clip(labels, 0, None), k)
        smallest = int(np.min(deg.sizes[deg.sizes > 0])) if deg.n_found else 0
        reason = degeneracy_reason(labels, k)
        if reason is not None:
            return Outcome(np.nan, np.nan, True, k, deg.n_found, smallest, seconds, n_fits,
                           n_conv, None, reason)
        crit = _criteria(est, X)
        if scoring not in PAIRED:
            score = (crit[scoring] if isinstance(scoring, str) and scoring in crit
                     else float(get_label_free_scorer(scoring)(est, X)))
            return Outcome(score, 0.0, False, k, deg.n_found, smallest, seconds, n_fits,
                           n_conv, None, criteria=crit)
        values = []
        for a, b in pairs:
            v, t, f, w = _pair_score(estimator, setting, X, a, b, k, n_total, tick)
            values.append(v)
            seconds, n_fits, n_conv = seconds + t, n_fits + f, n_conv + w
        tie = np.nan if tie_break is None else crit[tie_break]
        if all(np.isnan(values)):
            return Outcome(np.nan, np.nan, True, k, deg.n_found, smallest, seconds, n_fits,
                           n_conv, None, f"every half failed or collapsed ({len(values)} "
                           "splits)", tuple(values), tie, crit)
        counted = np.where(np.isnan(values), WORST_SCORE["stability"], values)
        spread = float(np.nanstd(values))  # over the splits that did not fail
        return Outcome(float(np.median(counted)), spread, False, k,
                       deg.n_found, smallest, seconds, n_fits, n_conv, None, None,
                       tuple(values), tie, crit)
    except Exception as exc:  # noqa: BLE001 - a setting that cannot be fitted is dropped
        return Outcome(np.nan, np.nan, True, -1, 0, 0, seconds, n_fits, n_conv,
                       f"{type(exc).__name__}: {exc}", "the fit raised an error")

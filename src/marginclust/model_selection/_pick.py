"""How a search orders its settings: the defaults as incumbent, ties, the least degenerate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.base import clone

from ._evaluate import setting_n_clusters

__all__ = ["least_degenerate", "rank_settings", "with_defaults"]


def _same_params(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a.keys() != b.keys():
        return False
    return all(type(a[k]) is type(b[k]) and repr(a[k]) == repr(b[k]) for k in a)


def with_defaults(
    estimator: Any, settings: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[bool]]:
    """The settings with the estimator's defaults added, one per number of clusters.

    The defaults are the estimator as given (its own parameters) at each
    ``n_clusters`` the settings ask for; a setting equal to them is marked
    rather than added twice. Added settings come after the grid's, so grid
    indices do not move.

    Parameters
    ----------
    estimator : estimator
        The clusterer as the user configured it.
    settings : sequence of dict
        The grid's settings.

    Returns
    -------
    settings : list of dict
        The grid's settings, then the defaults not already among them.
    is_default : list of bool
        Which settings are the defaults.
    """
    out = [dict(s) for s in settings]
    keys = {k for s in settings for k in s if k == "n_clusters" or k.endswith("__n_clusters")}
    key = min(keys, key=len) if keys else None
    full = [clone(estimator).set_params(**s).get_params(deep=True) for s in out]
    is_default = [False] * len(out)
    ks: list[int | None] = []
    for s in out:
        k = setting_n_clusters(estimator, s)
        if k not in ks:
            ks.append(k)
    for k in ks:
        default: dict[str, Any] = {} if key is None or k is None else {key: k}
        params = clone(estimator).set_params(**default).get_params(deep=True)
        match = [i for i, p in enumerate(full) if _same_params(p, params)]
        if match:
            is_default[match[0]] = True
            continue
        out.append(default)
        full.append(params)
        is_default.append(True)
    return out, is_default


def _value(results: Mapping[str, list[Any]], name: str, i: int) -> float:
    s = results[name][i]
    return float(s) if s is not None and np.isfinite(s) else -np.inf


def _near(kept: Sequence[int], results: Mapping[str, list[Any]], tol: float) -> list[int]:
    """Settings tied with the best: within ``tol`` of it.

    With stability the settings are compared on the same half splits: a setting
    ties with the best when the median over the splits of the best's lead is at
    most ``tol`` (a failed split counts as -1). Pairing removes the part of the
    split-to-split spread that all settings share (a hard split is hard for
    every setting), and the median ignores one split that lands in a poor local
    optimum.
    """
    top_i = max(kept, key=lambda i: _value(results, "score", i))
    top = _value(results, "score", top_i)
    if not np.isfinite(top):
        return []
    pairs = results.get("pair_scores")
    lead_of = None
    if pairs is not None and len(pairs[top_i]):
        ref = np.nan_to_num(np.asarray(pairs[top_i], dtype=float), nan=-1.0)

        def lead_of(i: int) -> float:
            other = np.nan_to_num(np.asarray(pairs[i], dtype=float), nan=-1.0)
            return float(np.median(ref - other)) if other.shape == ref.shape else np.inf

    near = []
    for i in kept:
        score = _value(results, "score", i)
        if lead_of is None:
            tied = score >= top - tol
        else:
            tied = lead_of(i) <= tol
        if tied:
            near.append(i)
    return near


def rank_settings(alive: Sequence[int], results: Mapping[str, list[Any]], tol: float,
                  estimator: Any) -> list[int]:
    """Non-degenerate settings of ``alive``, best first.

    Settings tied with the best (within ``tol`` of it; with stability, a
    median lead of the best over the same half splits of at most ``tol``) are
    ordered by their tie-break
    score (when there is one); remaining ties keep grid order. Then the
    defaults are the incumbent: when the first setting's defaults (same
    ``n_clusters``) are also tied with the best, they go first, so a search
    never picks a setting that its own score does not rate above the defaults.

    Parameters
    ----------
    alive : sequence of int
        Indices of the settings evaluated on the current rung.
    results : dict of lists
        The search's ``results_`` (``degenerate``, ``score``, ``pair_scores``,
        ``tie_break_score``, ``is_default``, ``params``).
    tol : float
        Scores closer than this are ties.
    estimator : estimator
        The searched estimator (for each setting's ``n_clusters``).

    Returns
    -------
    ranking : list of int
        Indices, best first.
    """
    kept = [i for i in alive if not results["degenerate"][i]]
    if not kept:
        return []
    near = _near(kept, results, tol)
    near.sort(key=lambda i: (-_value(results, "tie_break_score", i),
                             -_value(results, "score", i)))
    rest = sorted((i for i in kept if i not in near), key=lambda i: -_value(results, "score", i))
    ranking = near + rest
    first = ranking[0]
    k = setting_n_clusters(estimator, results["params"][first])
    best = _value(results, "score", first)
    for i in kept:
        if (results["is_default"][i] and (i in near or _value(results, "score", i) >= best)
                and setting_n_clusters(estimator, results["params"][i]) == k):
            ranking.remove(i)
            ranking.insert(0, i)
            break
    return ranking


def least_degenerate(indices: Sequence[int], results: Mapping[str, list[Any]]) -> list[int]:
    """Settings ordered from the least to the most degenerate.

    Settings that raised come last; then more of the asked clusters found is
    better, then a larger smallest cluster, then the defaults, then settings
    that reached a later rung.

    Parameters
    ----------
    indices : sequence of int
        Settings to order.
    results : dict of lists
        The search's ``results_``.

    Returns
    -------
    order : list of int
        The same indices, least degenerate first.
    """
    def key(i: int) -> tuple[Any, ...]:
        asked = results["n_clusters"][i]
        found = results["n_clusters_found"][i]
        share = found / asked if asked and asked > 0 else 0.0
        return (results["error"][i] is not None, -share, -results["smallest_cluster"][i],
                not results["is_default"][i], -results["iter"][i], i)

    return sorted(indices, key=key)

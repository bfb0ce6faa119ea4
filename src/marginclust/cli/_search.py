"""``marginclust fit --search``: choose the parameters without labels before writing labels.

Kept apart from :mod:`._fit` so that the fit command only needs two calls:
:func:`add_search_arguments` when building its parser and :func:`fit_estimator`
where it fits.
"""

from __future__ import annotations

import argparse
import ast
import sys
from typing import Any

from ._output import format_params, plural

__all__ = ["add_search_arguments", "check_grid", "fit_estimator", "parse_grid",
           "searched_n_clusters"]


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--search`` and its options to the ``fit`` parser."""
    group = parser.add_argument_group(
        "label-free search",
        "With --search the parameters are chosen by marginclust.model_selection."
        "StabilitySearch (labels are never read; --label-column only scores the result). "
        "Scale the features by rule (--scale): the search does not choose "
        "preprocessing.",
    )
    group.add_argument("--search", action="store_true",
                       help="choose the parameters without labels (default grid: the "
                            "method's label-free grid, plus its defaults)")
    group.add_argument("--search-param", action="append", metavar="KEY=[V1,V2,...]",
                       help="grid values for one parameter, a Python list (repeatable; "
                            "replaces the method's own grid)")
    group.add_argument("--search-scoring", default="stability",
                       choices=["stability", "auto", "silhouette", "calinski_harabasz",
                                "xie_beni"],
                       help="label-free criterion (default: stability; auto: stability "
                            "when n_clusters varies, else calinski_harabasz)")
    group.add_argument("--search-n-pairs", type=int, default=5,
                       help="half splits per setting for stability (default 5)")
    group.add_argument("--search-subsample", type=int, default=None,
                       help="rows used by the search (default: chosen by the budget); the "
                            "pick is refitted on all rows")
    group.add_argument("--search-budget", default="auto", type=_budget,
                       help="cost cap of the whole search, the refit on all rows "
                            "included, in plain fits on all rows: a number (e.g. 5; the "
                            "search chooses a subsample and halving within it and says "
                            "what it chose), 'auto' (10; more on small data, which are "
                            "then searched on every row), or 'none' (every setting on "
                            "every search row). A number below 10 never costs more than "
                            "'auto'")
    group.add_argument("--search-cache", default=None, metavar="DIR",
                       help="keep finished settings in DIR; rerunning the same command "
                            "after an interruption reuses them")


def _budget(value: str) -> float | str | None:
    """``--search-budget``: ``auto``, ``none`` or a positive number."""
    low = value.strip().lower()
    if low == "auto":
        return "auto"
    if low in ("none", "all", "off"):
        return None
    try:
        number = float(low)
    except ValueError:
        number = float("nan")
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected 'auto', 'none' or a positive number of fits; got {value!r}")
    return number


def searched_n_clusters(args: argparse.Namespace) -> list[int] | None:
    """The ``n_clusters`` values of ``--search-param`` (None when not searched)."""
    if not getattr(args, "search", False):
        return None
    grid = parse_grid(args.search_param) or {}
    values = grid.get("n_clusters")
    return None if values is None else list(values)


def parse_grid(items: list[str] | None) -> dict[str, list[Any]] | None:
    """``["C=[0.1, 1]", "m=[1.5,2]"]`` -> ``{"C": [0.1, 1], "m": [1.5, 2]}``; None if empty."""
    grid: dict[str, list[Any]] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        try:
            values = ast.literal_eval(value.strip()) if sep else None
        except (ValueError, SyntaxError):
            values = None
        if not key.isidentifier() or not isinstance(values, list | tuple) or not values:
            raise ValueError(f"--search-param expects KEY=[V1,V2,...] (a Python list, e.g. "
                             f"C=[0.1,1,10]); got {item!r}.")
        grid[key] = list(values)
    return grid or None


def _state(res: dict[str, list[Any]], i: int) -> str:
    """A setting's outcome in words: its score, or why it was dropped."""
    if res["degenerate"][i]:
        reason = res["reason"][i] or "collapsed"
        if res["error"][i]:
            reason = f"failed: {res['error'][i]}"
        return f"dropped: {reason}"
    n_pairs = len(res["pair_scores"][i])
    failed = res["n_failed_pairs"][i]
    if n_pairs and 2 * failed > n_pairs:  # the median is a failure: no number to show
        ok = [v for v in res["pair_scores"][i] if v == v]
        return (f"failed: a half collapsed in {failed} of {plural(n_pairs, 'split')} (the "
                f"other {len(ok)} scored {sum(ok) / len(ok):.2f})")
    text = f"score {res['score'][i]:.4f}"
    if n_pairs:
        text += f" +- {res['score_std'][i]:.2f}"
        if failed:
            text += (f" ({failed} of {plural(n_pairs, 'split')} failed: a half "
                     "collapsed)")
    return text


def check_grid(estimator: Any, grid: dict[str, list[Any]] | None) -> None:
    """Fail before searching when no setting of ``grid`` is a valid parameter set.

    Each setting is checked against the estimator's declarative parameter table
    (``_parameter_constraints``), the check its ``fit`` starts with. A grid whose every
    setting breaks it would otherwise leave only the defaults to pick, silently.

    Parameters
    ----------
    estimator : estimator
        The unfitted clusterer the grid is for.
    grid : dict of str to list, or None
        The ``--search-param`` grid (None: the estimator's own, not checked).

    Raises
    ------
    ValueError
        Naming each setting and what is wrong with it.
    """
    if not grid:
        return
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from marginclust.model_selection import candidate_settings
    from marginclust.utils import check_parameters

    # an unknown parameter name: the search's own message (its parameters listed)
    candidate_settings(estimator, grid, None)
    problems = []
    settings = list(ParameterGrid(grid))
    for setting in settings:
        est = clone(estimator).set_params(**setting)
        table = getattr(est, "_parameter_constraints", None)
        if not isinstance(table, dict):
            return  # nothing declared to check against: the search reports failures
        try:
            check_parameters(est, table)
        except (ValueError, TypeError) as exc:
            problems.append(f"{format_params(setting)} ({' '.join(str(exc).split())})")
        else:
            return
    shown = "; ".join(problems[:4]) + ("; ..." if len(problems) > 4 else "")
    raise ValueError(
        f"no setting of --search-param is valid for {type(estimator).__name__}, so the "
        f"search would only fit the defaults: {shown}. Give values the parameters allow."
    )


def _all_failed(search: Any) -> str | None:
    """The errors, when every setting of a given grid failed to fit (None otherwise)."""
    res = search.results_
    grid = [i for i in range(len(res["params"])) if not res["is_default"][i]]
    if search.grid_source_ != "given" or not grid or not all(res["error"][i] for i in grid):
        return None
    return "; ".join(f"{format_params(res['params'][i])} ({res['error'][i]})"
                     for i in grid[:4]) + ("; ..." if len(grid) > 4 else "")


def fit_estimator(estimator: Any, X: Any, args: argparse.Namespace) -> Any:
    """Fit ``estimator`` on ``X``; with ``--search`` return the search's refitted pick.

    The search's plan, its progress line ``setting i/N, fit j/M, ETA`` (ended
    before anything else is printed), its table (one line per setting) and the
    pick go to stderr.
    """
    if not getattr(args, "search", False):
        return estimator.fit(X)
    from marginclust.model_selection import StabilitySearch

    args.interrupt_hint = (
        f"; rerun the same command to resume from the settings saved in {args.search_cache}"
        if args.search_cache else
        "; nothing was saved: --search-cache DIR keeps finished settings for a rerun"
    )
    grid = parse_grid(args.search_param)
    check_grid(estimator, grid)
    search = StabilitySearch(
        estimator,
        grid,
        scoring=args.search_scoring,
        n_pairs=args.search_n_pairs,
        subsample=args.search_subsample,
        budget=args.search_budget,
        memory=args.search_cache,
        random_state=args.seed,
        n_jobs=None if getattr(args, "n_jobs", 1) == 1 else args.n_jobs,
        verbose=0 if args.no_progress else 1,
    ).fit(X)
    failed = _all_failed(search)
    if failed is not None:
        raise ValueError(f"every setting of --search-param failed to fit, so only the "
                         f"defaults were left to pick: {failed}. Give values the "
                         "parameters allow.")
    res = search.results_
    print(f"search ({search.grid_source_} grid, {search.scoring_}, "
          f"{plural(search.n_search_rows_, 'row')}):", file=sys.stderr)
    mixed = not all(res["is_default"])  # mark the defaults only beside other settings
    for i in sorted(range(len(res["params"])), key=lambda j: res["rank"][j]):
        params = format_params(res["params"][i])
        if not res["params"][i]:
            params = f"({params})"
        mark = " [defaults]" if mixed and res["is_default"][i] and res["params"][i] else ""
        print(f"  #{res['rank'][i]:<3d} {params}{mark}  {_state(res, i)}, "
              f"{plural(res['n_clusters_found'][i], 'cluster')} found, "
              f"{res['seconds'][i]:.2f} s", file=sys.stderr)
    if search.collapsed_:
        print(f"search: every setting collapsed; writing the least degenerate one, "
              f"{format_params(search.best_params_)}", file=sys.stderr)
    else:
        print(f"search picked {format_params(search.best_params_)}", file=sys.stderr)
    return search.best_estimator_

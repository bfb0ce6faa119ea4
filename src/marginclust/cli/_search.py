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

__all__ = ["add_search_arguments", "fit_estimator", "parse_grid"]


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--search`` and its options to the ``fit`` parser."""
    group = parser.add_argument_group(
        "label-free search",
        "With --search the parameters are chosen by marginclust.model_selection."
        "StabilitySearch (labels are never read; --label-column only scores the result). "
        "Standardise the features by rule (--standardize): the search does not choose "
        "preprocessing.",
    )
    group.add_argument("--search", action="store_true",
                       help="choose the parameters without labels (default grid: the "
                            "method's label-free grid)")
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
                       help="rows used by the search (default: all); the pick is refitted "
                            "on all rows")
    group.add_argument("--search-budget", type=float, default=None,
                       help="cost cap in fits on the search rows (successive halving)")


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


def fit_estimator(estimator: Any, X: Any, args: argparse.Namespace) -> Any:
    """Fit ``estimator`` on ``X``; with ``--search`` return the search's refitted pick.

    The search's table (one line per setting) and the pick go to stderr.
    """
    if not getattr(args, "search", False):
        return estimator.fit(X)
    from marginclust.model_selection import StabilitySearch

    search = StabilitySearch(
        estimator,
        parse_grid(args.search_param),
        scoring=args.search_scoring,
        n_pairs=args.search_n_pairs,
        subsample=args.search_subsample,
        budget=args.search_budget,
        random_state=args.seed,
    ).fit(X)
    res = search.results_
    print(f"search ({search.grid_source_} grid, {args.search_scoring}):", file=sys.stderr)
    for i in sorted(range(len(res["params"])), key=lambda j: res["rank"][j]):
        state = "degenerate" if res["degenerate"][i] else f"score {res['score'][i]:.4f}"
        print(f"  #{res['rank'][i]:<3d} {res['params'][i]}  {state}, "
              f"{res['n_clusters_found'][i]} clusters found, {res['seconds'][i]:.2f} s",
              file=sys.stderr)
    if search.best_estimator_ is None:
        raise ValueError("every setting of the search collapsed (see the table above); try "
                         "fewer clusters, --standardize or other --search-param values.")
    print(f"search picked {search.best_params_}", file=sys.stderr)
    return search.best_estimator_

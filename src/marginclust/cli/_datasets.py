"""``marginclust datasets``: list the data sets the loader can find, with sizes."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the ``datasets`` subcommand."""
    p = sub.add_parser(
        "datasets",
        help="list data sets",
        description="List the bundled, synthetic and shared CSV data sets with their sizes "
        "(class subsets such as 'satimage:1,2' are accepted by 'bench' and 'fit' too).",
    )
    p.add_argument("--data-home", metavar="DIR", default=None, help="CSV data directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the ``datasets`` subcommand."""
    from marginclust.datasets import list_datasets

    sets = list_datasets(data_home=args.data_home)
    width = max((len(s["name"]) for s in sets), default=4)
    print(f"{'name':<{width}}  {'n':>6}  {'d':>5}  {'k':>3}  where")
    for s in sets:
        print(
            f"{s['name']:<{width}}  {s['n_samples']:>6}  {s['n_features']:>5}  "
            f"{s['n_classes']:>3}  {s['where']}"
        )
    return 0

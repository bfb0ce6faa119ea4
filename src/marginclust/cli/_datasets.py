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
        description="List the bundled, synthetic and shared CSV data sets with their sizes. "
        "These names (and class subsets such as 'satimage:1,2') are what 'bench' tables and "
        "marginclust.datasets.load_dataset take; 'fit' reads a CSV file path instead.",
    )
    p.add_argument("--data-home", metavar="DIR", default=None,
                   help="CSV data directory (default: $MARGINCLUST_DATA)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the ``datasets`` subcommand."""
    import sys

    from marginclust.datasets import DATA_ENV, list_datasets, resolve_data_home

    home = resolve_data_home(args.data_home)
    source = "--data-home" if args.data_home is not None else f"${DATA_ENV}"
    if home is not None and not home.is_dir():
        raise ValueError(
            f"the data directory {home} (from {source}) does not exist; point {source} at the "
            "folder of <name>.csv.gz files."
        )
    sets = list_datasets(data_home=args.data_home)
    width = max((len(s["name"]) for s in sets), default=4)
    print(f"{'name':<{width}}  {'n':>6}  {'d':>5}  {'k':>3}  where")
    for s in sets:
        print(
            f"{s['name']:<{width}}  {s['n_samples']:>6}  {s['n_features']:>5}  "
            f"{s['n_classes']:>3}  {s['where']}"
        )
    if home is None:
        print(
            f"No data directory is configured, so only the bundled and synthetic sets are "
            f"listed: set {DATA_ENV} or pass --data-home DIR for the CSV sets.",
            file=sys.stderr,
        )
    elif not any(s["where"] not in ("sklearn", "synthetic") for s in sets):
        print(f"No <name>.csv or <name>.csv.gz files in {home}.", file=sys.stderr)
    return 0

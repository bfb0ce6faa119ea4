"""The ``marginclust`` command line (also ``python -m marginclust``).

Subcommands:

- ``fit``: cluster a CSV file and write labels and memberships;
- ``bench``: run a paper table (or a whole paper's suite) and print the report;
- ``datasets``: list the data sets the loader finds, with their sizes;
- ``demo``: every available method on small bundled sets, a table and a figure.

The command line is the only part of the package that prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``marginclust`` command."""
    from . import _bench, _datasets, _demo, _fit

    parser = argparse.ArgumentParser(
        prog="marginclust",
        description="Soft and maximum-margin clustering: fit, benchmark, demo.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _fit.add_parser(sub)
    _bench.add_parser(sub)
    _datasets.add_parser(sub)
    _demo.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Parameters
    ----------
    argv : sequence of str, default=None
        Arguments without the program name (None: ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(None if argv is None else list(argv))
    if args.version:
        from marginclust import __version__

        print(__version__)
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"marginclust {args.command}: error: {exc}", file=sys.stderr)
        return 1

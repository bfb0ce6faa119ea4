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
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from .._version import __version__

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


def _show_warning(command: str) -> Any:
    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        text = str(message).strip().replace("\n", " ")
        name = getattr(category, "__name__", "Warning")
        prefix = "" if name == "UserWarning" else f"{name}: "
        print(f"marginclust {command}: warning: {prefix}{text}", file=sys.stderr, flush=True)

    return show


def _silence_stdout() -> None:
    """After a closed pipe (``| head``): send what is left to /dev/null, quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (e.g. captured in tests)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Every failure ends in one line on stderr, ``marginclust <command>: error: ...``
    (exit 1); Ctrl-C prints ``interrupted`` (exit 130); a closed output pipe exits
    quietly (141, as for SIGPIPE); warnings print as ``marginclust <command>: warning: ...``.
    Set ``MARGINCLUST_TRACEBACK=1`` to see the traceback of an unexpected error.

    Parameters
    ----------
    argv : sequence of str, default=None
        Arguments without the program name (None: ``sys.argv[1:]``).
    """
    parser = build_parser()
    args = parser.parse_args(None if argv is None else list(argv))
    if args.version:
        print(__version__)
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    command = args.command
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning(command)
        try:
            code = int(args.func(args) or 0)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return code
        except KeyboardInterrupt:
            hint = getattr(args, "interrupt_hint", "")
            print(f"\nmarginclust {command}: interrupted{hint}", file=sys.stderr, flush=True)
            return 130
        except BrokenPipeError:
            _silence_stdout()
            return 141
        except (ValueError, OSError, EOFError) as exc:
            if os.environ.get("MARGINCLUST_TRACEBACK"):
                raise
            print(f"marginclust {command}: error: {_one_line(exc)}", file=sys.stderr)
            return 1
        except Exception as exc:  # noqa: BLE001 - a CLI prints one line, never a traceback
            if os.environ.get("MARGINCLUST_TRACEBACK"):
                raise
            print(
                f"marginclust {command}: error: {type(exc).__name__}: {_one_line(exc)} "
                "(set MARGINCLUST_TRACEBACK=1 to see where)",
                file=sys.stderr,
            )
            return 1


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return text or type(exc).__name__

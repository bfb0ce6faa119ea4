"""``marginclust bench``: run a benchmark's tables and print their Markdown reports.

The tables come from a benchmark folder or file (``--benchmark``), by default the
papers' tables of a repository checkout, ``benchmarks/papers``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_BENCHMARK", "add_parser", "run"]

# The papers' tables, relative to the root of a repository checkout.
DEFAULT_BENCHMARK = Path("benchmarks") / "papers"


def add_parser(sub: Any) -> None:
    """Register the ``bench`` subcommand."""
    p = sub.add_parser(
        "bench",
        help="reproduce a paper table",
        description="Run a paper table (--table), every table of a paper (--suite) or every "
        "table of the benchmark (--all) and print ours beside the published numbers; without "
        "them, list the tables. Rows are cached in --out, so a rerun resumes. The tables come "
        f"from --benchmark: by default {DEFAULT_BENCHMARK}, the papers' tables of a repository "
        "checkout (run from its root); your own tables from a .py file or folder that "
        "registers them with marginclust.bench.register_table.",
    )
    p.add_argument("--benchmark", metavar="PATH", default=None,
                   help="benchmark folder (a Python package) or .py file whose import "
                   f"registers the tables (default: {DEFAULT_BENCHMARK})")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--table", action="append", metavar="NAME", help="table to run (repeatable)")
    what.add_argument("--suite", metavar="PAPER", help="every table of a paper, e.g. 'slmc'")
    what.add_argument("--list", action="store_true", help="list the registered tables (also "
                      "what the command does without --table, --suite or --all)")
    what.add_argument("--all", action="store_true",
                      help="every registered table (hours at full size; --quick: minutes)")
    p.add_argument("--quick", action="store_true", help="small version: fewer runs and settings")
    p.add_argument("--tiny", action="store_true",
                   help="smoke test: one data set, run and setting on a row subsample (seconds)")
    p.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    p.add_argument("--seed", type=int, default=0, help="global seed (default 0)")
    p.add_argument("--out", metavar="DIR", default=None, help="cache and results directory")
    p.add_argument("--data-home", metavar="DIR", default=None,
                   help="CSV data directory (default: $MARGINCLUST_DATA)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--label-free", action="store_true",
                   help="add a label-free column: a StabilitySearch per run (grid tables)")
    p.set_defaults(func=run)


def _out_dir(out: str | None) -> Path | None:
    """Fail before any work when ``--out`` cannot be a results directory."""
    if out is None:
        return None
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory; name a directory.")
    if not path.exists() and not (path.parent if str(path.parent) else Path(".")).is_dir():
        raise ValueError(f"--out {out}: the directory {path.parent} does not exist.")
    return path


def _needed_datasets(table: Any, quick: bool) -> list[str]:
    from marginclust.bench._runner import _effective

    try:
        return list(_effective(table, quick)["datasets"])
    except ValueError:
        return list(table.datasets)


def missing_datasets(table: Any, quick: bool, data_home: str | None) -> list[str]:
    """The data sets of ``table`` that cannot be found (bundled and synthetic sets always are)."""
    from marginclust.bench._registry import DATASETS
    from marginclust.bench._runner import parse_dataset
    from marginclust.datasets import dataset_exists

    missing = []
    for spec in _needed_datasets(table, quick):
        name = parse_dataset(spec)[0]
        if name in DATASETS:
            try:
                DATASETS[name].loader(data_home)
            except (FileNotFoundError, OSError, ValueError):
                missing.append(name)
            continue
        if not dataset_exists(name, data_home=data_home):
            missing.append(name)
    return list(dict.fromkeys(missing))


def _check_data(names: list[str], quick: bool, data_home: str | None) -> None:
    """Without a usable data directory, fail before running, naming what is missing."""
    from marginclust.bench._registry import TABLES
    from marginclust.datasets import DATA_ENV, resolve_data_home

    missing = {n: missing_datasets(TABLES[n], quick, data_home) for n in names}
    missing = {n: m for n, m in missing.items() if m}
    if not missing:
        return
    sets = sorted({s for m in missing.values() for s in m})
    home = resolve_data_home(data_home)
    shown = ", ".join(sets[:12]) + (" ..." if len(sets) > 12 else "")
    if home is None or not home.is_dir():
        where = (
            "no data directory is configured" if home is None
            else f"the data directory {home} does not exist"
        )
        raise ValueError(
            f"{where}, and {'tables' if len(missing) > 1 else 'table'} {', '.join(missing)} "
            f"need{'' if len(missing) > 1 else 's'} the CSV data sets {shown}. "
            f"Set the environment variable {DATA_ENV} or pass --data-home DIR "
            "(a folder of <name>.csv.gz files with a 'label' column)."
        )
    print(
        f"marginclust bench: warning: not in {home}: {shown}; their cells will read 'no data'.",
        file=sys.stderr,
    )


def _load(benchmark: str | None) -> None:
    """Import the benchmark whose tables the command runs (default: the papers')."""
    from marginclust.bench import load_benchmark

    path = Path(benchmark) if benchmark is not None else DEFAULT_BENCHMARK
    if benchmark is None and not path.is_dir():
        raise ValueError(
            f"no benchmark at {path}: the papers' tables live in the repository's "
            f"{DEFAULT_BENCHMARK} folder, not in the installed package. Run from the root of "
            "a marginclust checkout, or pass --benchmark PATH (a folder or .py file whose "
            "import registers tables with marginclust.bench.register_table)."
        )
    load_benchmark(path)


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def run(args: argparse.Namespace) -> int:
    """Run the ``bench`` subcommand."""
    from marginclust.bench._registry import TABLES
    from marginclust.bench._report import format_report
    from marginclust.bench._runner import run_table, system_info

    _load(args.benchmark)
    if args.list or not (args.table or args.suite or args.all):
        width = max((len(n) for n in TABLES), default=0)
        for name, table in sorted(TABLES.items()):
            print(f"{name:<{width}}  {table.source}: {table.title}")
        if not args.list:
            print("\nmarginclust bench: no table named, so nothing was run. Run one with "
                  "--table NAME (add --quick for a small version), a paper's tables with "
                  "--suite PAPER, or every table with --all.", file=sys.stderr)
        return 0
    if args.suite:
        names = sorted(n for n in TABLES if n.split("-")[0] == args.suite)
        if not names:
            papers = sorted({n.split("-")[0] for n in TABLES})
            raise ValueError(f"No tables for suite {args.suite!r}; suites: {papers}.")
    elif args.all:
        names = sorted(TABLES)
    else:
        names = args.table
        unknown = [n for n in names if n not in TABLES]
        if unknown:
            raise ValueError(f"Unknown table{'s' if len(unknown) > 1 else ''} {unknown}; run "
                             "'marginclust bench --list'.")
    out = _out_dir(args.out)
    _check_data(names, args.quick, args.data_home)
    args.interrupt_hint = (
        f"; rerun the same command to resume from the rows saved in {out}"
        if out is not None
        else "; nothing was saved: rerun with --out DIR to keep finished fits and resume"
    )
    for name in names:
        table = TABLES[name]
        start = time.perf_counter()
        rows = run_table(
            table,
            quick=args.quick,
            seed=args.seed,
            n_jobs=args.n_jobs,
            out_dir=out,
            data_home=args.data_home,
            progress=not args.no_progress,
            label_free=args.label_free,
            tiny=args.tiny,
        )
        elapsed = time.perf_counter() - start
        tail = f"\n\n(wall time {elapsed:.1f} s, n_jobs={args.n_jobs})\n"
        quick = args.quick or args.tiny
        report = format_report(rows, table, seed=args.seed, quick=quick) + tail
        print(format_report(rows, table, seed=args.seed, quick=quick, layout="long") + tail)
        if out is not None:
            suffix = "-tiny" if args.tiny else "-quick" if args.quick else ""
            (out / f"{name}{suffix}.md").write_text(report, encoding="utf-8")
            if rows:
                _write_csv(out / f"{name}{suffix}.csv", rows)
            (out / "system.json").write_text(json.dumps(system_info(), indent=2) + "\n")
    return 0

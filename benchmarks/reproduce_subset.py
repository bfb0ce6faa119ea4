"""Run a registered bench table on a subset: fewer runs, data sets or methods.

For tables whose full protocol does not fit one sitting (e.g. SLMC Table 6: 26,520 fits
per scaling, up to two minutes each on segmentation). The subset is a copy of the
registered table, run by the ordinary runner and reported by the ordinary report
(headed "Subset of ..."; the footer prints the runs per cell). A grid table's fits
are cached per fit under the table's own name, so they are the full table's first
runs and a later full run with the same ``--out`` reuses them; a custom table is
renamed ``<table>@<what changed>``.

Example (PYTHONPATH=src, MARGINCLUST_DATA set)::

    python benchmarks/reproduce_subset.py --table slmc-table6-minmax \
        --datasets glass --runs 5 --out /tmp/bench --md benchmarks/results/x.md
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    import papers  # noqa: F401  (registers the papers' tables)
    from marginclust.bench import TABLES
    from marginclust.bench._report import format_report
    from marginclust.bench._runner import run_table

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--table", required=True)
    p.add_argument("--datasets", default=None, help="';'-separated (grid tables)")
    p.add_argument("--methods", default=None, help="';'-separated (grid tables)")
    p.add_argument("--runs", type=int, default=None, help="runs per cell")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="runner cache directory (resumable)")
    p.add_argument("--md", default=None, help="write the Markdown report here")
    args = p.parse_args(argv)

    table = TABLES[args.table]
    changes: dict[str, object] = {}
    tags = []
    if args.datasets:
        changes["datasets"] = args.datasets.split(";")
        tags.append("datasets=" + args.datasets)
    if args.methods:
        changes["methods"] = args.methods.split(";")
        tags.append("methods=" + args.methods)
    if args.runs is not None:
        changes["n_runs"] = args.runs
        tags.append(f"runs={args.runs}")
    if tags and table.run is not None:
        # a custom table caches its whole row set under its name: rename the subset
        # (its units file is still the full table's, see papers._common.UnitCache)
        changes["name"] = f"{table.name}@{';'.join(tags)}"
    # a grid table keeps its name: its rows are cached per fit, so the subset's fits
    # are exactly the full table's first runs and a later full run reuses them
    table = replace(table, **changes)
    start = time.perf_counter()
    rows = run_table(table, seed=args.seed, out_dir=args.out, progress=False)
    elapsed = time.perf_counter() - start
    head = f"Subset of `{args.table}` ({', '.join(tags)}).\n\n" if tags else ""
    report = (
        head
        + format_report(rows, table, seed=args.seed)
        + f"\n\n(wall time {elapsed:.1f} s, n_jobs=1)\n"
    )
    print(report)
    if args.md:
        Path(args.md).write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

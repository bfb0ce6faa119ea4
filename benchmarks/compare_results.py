"""Do two runs of the benchmarks give the same results? Timings aside, row by row.

Two uses, each comparing what two checkouts of the library wrote:

- ``tables A B``: two output folders of ``marginclust bench`` (``--out``): every
  row of every ``<table>.jsonl`` of A is looked up in B by its key (the table, data
  set, method, parameters, run, seed, preprocessing and version) and compared field
  by field, every field whose name holds ``time`` left out at any depth (fit times,
  wall times).
- ``battery A B``: two fit caches of ``bench_battery.py`` (``--cache``): every
  cached fit of A (method, data set, K, seed) is compared with B's, labels and
  success flag bitwise (the error text and the seconds are not compared).

A run under one checkout, then the other, then this script::

    marginclust bench --all --quick --out /tmp/before   # on the first checkout
    marginclust bench --all --quick --out /tmp/after    # on the second
    python benchmarks/compare_results.py tables /tmp/before /tmp/after

    python benchmarks/bench_battery.py --cache /tmp/bb-before --code-key before
    python benchmarks/bench_battery.py --cache /tmp/bb-after --code-key after
    python benchmarks/compare_results.py battery /tmp/bb-before /tmp/bb-after

It prints one line per table or method and a total, and exits with 1 when
anything differs or is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def _untimed(value: Any) -> Any:
    """``value`` with every mapping key that names a time removed, at any depth."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if "time" not in k}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _rows(path: Path) -> dict[Any, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    # rows of the harness carry their key; a study's rows are matched by position
    return {row.get("key", i): row for i, row in enumerate(rows)}


def compare_tables(a: Path, b: Path) -> int:
    """Rows of A that B lacks or that differ in a field other than a time."""
    bad = 0
    for fa in sorted(a.glob("*.jsonl")):
        fb = b / fa.name
        if not fb.exists():
            print(f"{fa.stem}: missing in {b}")
            bad += 1
            continue
        ra, rb = _rows(fa), _rows(fb)
        differ = [k for k in ra if k not in rb or _untimed(ra[k]) != _untimed(rb[k])]
        for k in differ[:3]:
            print(f"  differs: {str(k)[:120]}")
        print(f"{fa.stem}: {len(ra)} rows, {len(differ)} differ")
        bad += len(differ)
    return bad


def compare_battery(a: Path, b: Path) -> int:
    """Cached fits of A that B lacks or whose labels or success differ."""

    def methods(root: Path) -> dict[str, Path]:
        # a method's folder is "<name>-<hash of its parameters and code key>"
        return {d.name.rsplit("-", 1)[0]: d for d in root.iterdir() if d.is_dir()}

    ma, mb = methods(a), methods(b)
    bad = 0
    for name in sorted(ma):
        if name not in mb:
            print(f"{name}: missing in {b}")
            bad += 1
            continue
        differ = 0
        fits = sorted(ma[name].glob("*.npz"))
        for fa in fits:
            fb = mb[name] / fa.name
            if not fb.exists():
                differ += 1
                continue
            za, zb = np.load(fa, allow_pickle=True), np.load(fb, allow_pickle=True)
            if any(not np.array_equal(za[k], zb[k]) for k in ("labels", "ok")):
                differ += 1
                print(f"  differs: {name} {fa.stem}")
        print(f"{name}: {len(fits)} fits, {differ} differ")
        bad += differ
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("tables", "battery"))
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    compare = compare_tables if args.what == "tables" else compare_battery
    bad = compare(args.a, args.b)
    print(f"total: {bad} differing or missing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

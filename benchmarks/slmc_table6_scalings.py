"""SLMC Table 6 under three feature scalings, side by side, from the runner's caches.

The paper does not say how it scaled the features, and on several rows the scaling
decides the result. This script reads the cached fits of ``slmc-table6``,
``slmc-table6-standardize`` and ``slmc-table6-minmax`` from ``--out`` (written by
``marginclust bench --table ... --out DIR`` or ``benchmarks/reproduce_subset.py``),
keeps only runs that are complete for every method and scaling shown (so the three
columns average the same runs), and prints one Markdown table: per data set and
method, the paper protocol's mean ± std over those runs (per run the best of the
method's label-picked settings) under each scaling, beside the published number.

Example (PYTHONPATH=src, MARGINCLUST_DATA set)::

    python benchmarks/reproduce_subset.py --table slmc-table6-minmax \
        --datasets segmentation --runs 3 --out /tmp/bench
    python benchmarks/slmc_table6_scalings.py --out /tmp/bench \
        --datasets "glass;pendigits_train:3,9;segmentation"
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

SCALINGS = (("raw", "slmc-table6"), ("standardised", "slmc-table6-standardize"),
            ("min-max", "slmc-table6-minmax"))
METHODS = ("slmc", "kmeans", "fcm", "kernel-kmeans", "kernel-fcm", "iterative-lssvm")


def complete_runs(rows: list[dict[str, Any]], dataset: str, method: str,
                  n_settings: int) -> set[int]:
    """Runs of ``method`` on ``dataset`` with every paper-protocol setting fitted."""
    from collections import Counter

    count = Counter(r["run"] for r in rows if r["dataset"] == dataset
                    and r["method"] == method and r.get("protocol") == "paper")
    return {run for run, c in count.items() if c >= n_settings}


def main(argv: list[str] | None = None) -> int:
    import papers  # noqa: F401  (registers the papers' tables)
    from marginclust.bench import TABLES
    from marginclust.bench._report import summarize
    from marginclust.bench._runner import expand_jobs, read_rows

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="runner cache directory")
    p.add_argument("--datasets", required=True, help="';'-separated")
    p.add_argument("--methods", default="slmc;kmeans;fcm;kernel-kmeans;kernel-fcm",
                   help="';'-separated (a pooled column is shown when all its methods are)")
    p.add_argument("--measure", default="ca_majority")
    args = p.parse_args(argv)

    datasets, methods = args.datasets.split(";"), args.methods.split(";")
    caches = {name: [r for r in read_rows(Path(args.out) / f"{name}.jsonl")]
              for _, name in SCALINGS}
    base = TABLES["slmc-table6"]
    n_settings = {m: sum(1 for j in expand_jobs(base, seed=0)
                         if j.dataset == datasets[0] and j.method == m and j.run == 0
                         and j.protocol == "paper") for m in methods}
    lines = [f"| data set | method | runs | {' | '.join(s for s, _ in SCALINGS)} | published |",
             "|---|---|---|" + "---|" * len(SCALINGS) + "---|"]
    for ds in datasets:
        for m in methods:
            runs = set.intersection(*(complete_runs(caches[name], ds, mm, n_settings[mm])
                                      for _, name in SCALINGS for mm in methods))
            cells = []
            for _, name in SCALINGS:
                keep = [r for r in caches[name] if r["dataset"] == ds and r["method"] == m
                        and r["run"] in runs]
                s = summarize(keep, TABLES[name]).get((ds, m, "paper")) if keep else None
                stat = s[args.measure] if s else None
                cells.append("-" if not stat or not stat["n"] else
                             f"{stat['mean']:.4f} ± {stat['std']:.4f}")
            pub = base.published.get((ds, m, args.measure))
            lines.append(f"| {ds} | {m} | {len(runs)} | {' | '.join(cells)} | "
                         f"{'-' if pub is None else f'{pub:.4f}'} |")
        for label, pooled in base.pooled.items():
            if not set(pooled) <= set(methods):
                continue
            runs = set.intersection(*(complete_runs(caches[name], ds, mm, n_settings[mm])
                                      for _, name in SCALINGS for mm in methods))
            cells = []
            for _, name in SCALINGS:
                # per run the best setting over the pooled methods (the report's column)
                best = [max(r[args.measure] for r in caches[name]
                            if r["dataset"] == ds and r["method"] in pooled and r["run"] == run
                            and r.get("protocol") == "paper" and r.get(args.measure) is not None)
                        for run in sorted(runs)]
                cells.append(f"{np.mean(best):.4f} ± {np.std(best):.4f}" if best else "-")
            pub = base.published.get((ds, pooled[0], args.measure))
            lines.append(f"| {ds} | {label} | {len(runs)} | {' | '.join(cells)} | "
                         f"{'-' if pub is None else f'{pub:.4f}'} |")
    print("\n".join(lines))
    print(f"\n{args.measure}, paper protocol: per run the best of the method's "
          f"label-picked settings ({', '.join(f'{m} {n}' for m, n in n_settings.items())}); "
          "mean ± std (population) over the runs complete for every method and scaling.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How a label-picked "best" grows with the number of random starts it is picked from.

A paper that reports the best over its grid and "random starts" without saying how
many starts makes its number depend on that count (e.g. BMMC on ionosphere,
Li et al. 2019, Table 4). This reads a runner cache whose paper-protocol rows carry a
``start`` parameter (e.g. ``bmmc-table4-random-starts``), and prints, for k starts,
the best of the measure over the grid and k starts drawn at random from those fitted
(mean and 5-95% range over the draws). No fit is repeated.

Example (PYTHONPATH=src, MARGINCLUST_DATA set)::

    marginclust bench --table bmmc-table4-random-starts --out /tmp/bench
    python benchmarks/best_of_starts.py /tmp/bench/bmmc-table4-random-starts.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

import numpy as np


def best_of_starts(rows: list[dict], measure: str, ks: list[int], n_draws: int,
                   seed: int = 0) -> dict[int, tuple[float, float, float]]:
    """``k -> (mean, 5th, 95th percentile)`` of the best over the grid and k starts."""
    best_per_start: dict[object, float] = defaultdict(lambda: -np.inf)
    for r in rows:
        params = r["params"] if isinstance(r["params"], dict) else json.loads(r["params"])
        if r.get("protocol") == "paper" and "start" in params and r.get(measure) is not None:
            s = params["start"]
            best_per_start[s] = max(best_per_start[s], float(r[measure]))
    values = np.array(list(best_per_start.values()))
    if values.size == 0:
        raise ValueError(f"No paper-protocol rows with a 'start' parameter and {measure!r}.")
    rng = np.random.RandomState(seed)
    out = {}
    for k in ks:
        if k > values.size:
            continue
        draws = [values[rng.choice(values.size, k, replace=False)].max() for _ in range(n_draws)]
        out[k] = (float(np.mean(draws)), *map(float, np.percentile(draws, [5, 95])))
    return out


def main(argv: list[str] | None = None) -> int:
    from marginclust.bench._runner import read_rows

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cache", help="a runner cache <table>.jsonl")
    p.add_argument("--measure", default="ca_majority")
    p.add_argument("--ks", default="1,2,5,10,15,20,40")
    p.add_argument("--draws", type=int, default=2000)
    args = p.parse_args(argv)
    rows = read_rows(args.cache)
    curve = best_of_starts(rows, args.measure, [int(k) for k in args.ks.split(",")], args.draws)
    print(f"| starts k | best {args.measure} (mean over draws) | 5% | 95% |\n|---|---|---|---|")
    for k, (mean, lo, hi) in curve.items():
        print(f"| {k} | {mean:.4f} | {lo:.4f} | {hi:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

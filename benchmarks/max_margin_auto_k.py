"""How often ``MaxMarginClustering(n_clusters="auto")`` finds the reference number of clusters.

For every set of a battery (n <= ``--max-samples``, "original" preprocessing), the
estimator chooses K in 2..10 without labels; the set counts as found when the chosen
K is the K of one of its reference partitions. Fits are cached (``--cache``). Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/max_margin_auto_k.py
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from joblib import Memory

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import list_sets, load_set, preprocess  # noqa: E402


def choose_k(X: np.ndarray, seed: int) -> tuple[int, list[float]]:
    """The chosen K and the best candidate's margin for each K in 2..10."""
    from marginclust import MaxMarginClustering

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = MaxMarginClustering(n_clusters="auto", random_state=seed).fit(X)
    best = [max(c.score for c in est.candidates_ if c.n_clusters == k) for k in range(2, 11)]
    return int(est.n_clusters_), best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None)
    ap.add_argument("--batteries", default="fcps,graves,wut")
    ap.add_argument("--max-samples", type=int, default=3000)
    ap.add_argument("--cache", default=str(HERE.parent / "bench-results" / "auto-k-cache"))
    args = ap.parse_args(argv)
    cached = Memory(args.cache, verbose=0).cache(choose_k)
    keys = list_sets(tuple(args.batteries.split(",")), max_samples=args.max_samples,
                     root=args.root)
    print("| data set | reference K | chosen K | best margin for K = 2 .. 10 |")
    print("|---|---|---|---|")
    found = 0
    for key in keys:
        ds = load_set(key, root=args.root)
        k, best = cached(preprocess(ds.X), 0)
        found += k in ds.ks()
        print(f"| {key} | {', '.join(map(str, ds.ks()))} | {k}{'' if k in ds.ks() else ' *'} | "
              + " ".join(f"{b:.3f}" for b in best) + " |", flush=True)
    print(f"\nChosen K equals a reference K on {found} of {len(keys)} data sets "
          "(* marks the others).")
    return 0


if __name__ == "__main__":
    sys.exit(main())

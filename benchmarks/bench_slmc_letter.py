"""SLMC at its defaults beside the former start on standardised letter (20,000 x 16, K=26).

Each repeat fits ``SLMC(26, random_state=seed)`` at the defaults and at the former
start (``init="fcm-sharp", gamma="scale"``), interleaved in one process, and prints
per fit: CPU seconds (``time.process_time``; set one BLAS thread), the Hungarian
clustering accuracy against the labels, the non-empty clusters, the re-seeds, the
sweeps after the last re-seed and the warnings. The load average is printed at the
start and end (on a shared machine the CPU seconds are indicative).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_slmc_letter.py \\
        --letter ../shared/datasets/letter.csv.gz [--seeds 0] [--only defaults]

``--letter``: a gzip CSV whose last column is the label.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from marginclust import SLMC
from marginclust.metrics import clustering_accuracy

SETTINGS = {
    "defaults": {},
    "former start": {"init": "fcm-sharp", "gamma": "scale"},
}


def _load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--letter", required=True)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0])
    ap.add_argument("--only", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    args = ap.parse_args()
    frame = pd.read_csv(args.letter)
    y = frame.iloc[:, -1].to_numpy()
    X = StandardScaler().fit_transform(frame.iloc[:, :-1].to_numpy(float))
    print(f"# SLMC on standardised letter {X.shape}, K=26; {_load()}", flush=True)
    rows = []
    for seed in args.seeds:
        for name in args.only:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t0 = time.process_time()
                est = SLMC(26, random_state=seed, **SETTINGS[name]).fit(X)
                cpu = time.process_time() - t0
            ca = clustering_accuracy(y, est.labels_)
            said = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught) or "none"
            rows.append((name, seed, cpu, ca, est.n_clusters_found_, est.n_reseeds_,
                         est.n_iter_, said))
            print(f"{name} seed {seed}: {cpu:.1f} CPU s, CA {ca:.4f}, "
                  f"{est.n_clusters_found_} clusters, {est.n_reseeds_} re-seeds, "
                  f"{est.n_iter_} sweeps after the last; {_load()}\n  warnings: {said}",
                  flush=True)
    print(f"\n# {_load()}\n")
    print("| settings | seed | CPU s | CA | clusters | re-seeds | sweeps after the last |")
    print("|---|---|---|---|---|---|---|")
    for name, seed, cpu, ca, found, reseeds, n_iter, _ in rows:
        print(f"| {name} | {seed} | {cpu:.1f} | {ca:.4f} | {found} | {reseeds} | {n_iter} |")
    for name in args.only:
        cpus = [r[2] for r in rows if r[0] == name]
        print(f"{name}: median CPU {np.median(cpus):.1f} s over {len(cpus)} seed(s)")


if __name__ == "__main__":
    main()

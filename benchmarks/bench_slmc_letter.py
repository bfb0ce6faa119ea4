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

``--refresh-sweeps N``: instead, the preconditioner refresh of the CG W-step alone:
the defaults capped at ``max_iter=N`` with the refresh and without it (a CG step
refreshes only when it fails, as before), interleaved, ``--repeats`` times; CPU
seconds, sweeps, CG iterations and exact steps, final ``J`` and CA of each.

``--sets iris wine ...``: instead, the defaults on those shared data sets
(``marginclust.datasets.load_dataset``, ``MARGINCLUST_DATA``), standardised, K the
number of classes, each seed: one JSON line per fit (CA, clusters, re-seeds, sweeps,
CPU seconds, whether a collapse or max_iter warning was raised), to compare two
trees run one after the other.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from typing import Any

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
    ap.add_argument("--letter")
    ap.add_argument("--sets", nargs="*", default=None)
    ap.add_argument("--refresh-sweeps", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0])
    ap.add_argument("--only", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    args = ap.parse_args()
    if args.sets:
        return shared_sets(args.sets, args.seeds)
    if not args.letter:
        ap.error("--letter or --sets is required")
    frame = pd.read_csv(args.letter)
    y = frame.iloc[:, -1].to_numpy()
    X = StandardScaler().fit_transform(frame.iloc[:, :-1].to_numpy(float))
    if args.refresh_sweeps:
        return refresh_sweeps(X, y, args.refresh_sweeps, args.repeats)
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


def refresh_sweeps(X: np.ndarray, y: np.ndarray, n_sweeps: int, repeats: int) -> None:
    from marginclust.objectives import _slmc as objective

    print(f"# CG W-step with and without the refresh, max_iter={n_sweeps}; {_load()}",
          flush=True)
    cls = objective.SLMCRowProblem
    exact_cost, init = cls.exact_cost, cls.__init__
    made: list[Any] = []  # every alternation's problem (a re-seed starts a new one)

    def recorded(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    cls.__init__ = recorded  # type: ignore[method-assign]
    cpu: dict[str, list[float]] = {"refresh": [], "no refresh": []}
    try:
        for rep in range(repeats):
            for name in cpu:
                cls.exact_cost = (  # type: ignore[method-assign]
                    exact_cost if name == "refresh" else (lambda self: float("inf")))
                made.clear()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.process_time()
                    est = SLMC(26, random_state=0, max_iter=n_sweeps).fit(X)
                    cpu[name].append(time.process_time() - t0)
                print(f"run {rep} {name:10s}: {cpu[name][-1]:.1f} CPU s, "
                      f"{sum(p.n_cg for p in made)} CG iterations, "
                      f"{sum(p.n_exact for p in made)} exact steps, J {est.objective_:.6f}, "
                      f"CA {clustering_accuracy(y, est.labels_):.4f}, {est.n_reseeds_} "
                      f"re-seeds; {_load()}", flush=True)
    finally:
        cls.exact_cost = exact_cost  # type: ignore[method-assign]
        cls.__init__ = init  # type: ignore[method-assign]
    new, old = (float(np.median(cpu[k])) for k in ("refresh", "no refresh"))
    print(f"median CPU s: refresh {new:.1f}, no refresh {old:.1f}, ratio {old / new:.2f}x")


def shared_sets(names: list[str], seeds: list[int]) -> None:
    from sklearn.preprocessing import StandardScaler

    from marginclust.datasets import load_dataset

    print(f"# SLMC defaults on shared sets; {_load()}", flush=True)
    for name in names:
        X, y = load_dataset(name)[:2]
        X = StandardScaler().fit_transform(np.asarray(X, dtype=float))
        K = int(np.unique(y).size)
        for seed in seeds:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t0 = time.process_time()
                est = SLMC(K, random_state=seed).fit(X)
                cpu = time.process_time() - t0
            said = [str(w.message) for w in caught]
            print(json.dumps(dict(
                set=name, seed=seed, n=X.shape[0], K=K,
                ca=round(clustering_accuracy(y, est.labels_), 4),
                found=int(est.n_clusters_found_), reseeds=int(est.n_reseeds_),
                n_iter=int(est.n_iter_), cpu=round(cpu, 2),
                collapse_warning=any("non-empty clusters" in m for m in said),
                max_iter_warning=any("max_iter" in m for m in said))), flush=True)
    print(f"# {_load()}")


if __name__ == "__main__":
    main()

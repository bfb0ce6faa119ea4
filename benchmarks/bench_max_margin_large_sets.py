"""MaxMarginClustering past its fitted sample: shape sets of 3,000 to 10,000 rows (and 1e5).

The candidates of :class:`marginclust.MaxMarginClustering` are fitted to
``max_samples=3000`` rows; the vote that ranks them runs on up to
``max_vote_samples`` rows (default 10,000), each labelled by its nearest fitted
row. This benchmark compares, on every set of Gagolewski's benchmark framework
with more than 3,000 and at most ``--max-rows`` points (K given: each distinct K
of the set's reference partitions; "original" preprocessing; noise points left
out of the scores; a set's score is the best over its references):

- ``default``: ``MaxMarginClustering(K, random_state=seed)``;
- ``fitted-rows vote``: the same with ``max_vote_samples=3000`` (the vote on the
  fitted rows only, the behaviour before ``max_vote_samples`` existed);
- ``Genie``: genieclust's ``Genie(K)`` at its defaults (benchmark-only peer, AGPL:
  skipped when not importable); deterministic, fitted once.

Seeds 0 .. ``--seeds - 1`` (the sample and the candidates' seeds); the table gives
each set's NCA per seed and the means. Times are CPU seconds of one fit (one BLAS
thread; ``time.process_time``). ``--large`` adds the sets above 10,000 rows (sipu
birch1, birch2, worms_2: 1e5 rows, K = 100, 100, 35) at seed 0. ``--tables`` runs
the shared measured tables with more than 3,000 rows instead (features standardised
per column, K = the number of classes, seed 0; NCA against the classes). Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_large_sets.py \\
        --root /path/to/clustering-data-v1 --out benchmarks/results/max-margin-large-sets.md
    python benchmarks/bench_max_margin_large_sets.py --tables
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import list_sets, load_set, preprocess, score_partitions  # noqa: E402
from _report import publish  # noqa: E402

BATTERIES = ("fcps", "graves", "other", "sipu", "wut")
FORMER_VOTE = 3000


def _mmc(seed: int, **params: object) -> Callable[[np.ndarray, int], np.ndarray]:
    from marginclust import MaxMarginClustering

    def fit(X: np.ndarray, k: int) -> np.ndarray:
        return MaxMarginClustering(k, random_state=seed, **params).fit(X).labels_

    return fit


def _genie() -> Callable[[np.ndarray, int], np.ndarray] | None:
    try:
        import genieclust
    except ImportError:
        return None

    def fit(X: np.ndarray, k: int) -> np.ndarray:
        return np.asarray(genieclust.Genie(n_clusters=k).fit_predict(X))

    return fit


def score_set(key: str, root: str, fit: Callable[[np.ndarray, int], np.ndarray]
              ) -> tuple[float, float]:
    """The set's best NCA over its references, and the CPU seconds of its fits."""
    ds = load_set(key, root=root)
    X = preprocess(ds.X)
    seconds = 0.0

    def timed(k: int) -> np.ndarray:
        nonlocal seconds
        start = time.process_time()
        labels = fit(X, k)
        seconds += time.process_time() - start
        return labels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = max(nca for _, _, nca, _ in score_partitions(ds, timed))
    return best, seconds


def tables(home: str) -> str:
    """The shared tables of more than 3,000 rows: the two votes side by side (seed 0)."""
    from sklearn.preprocessing import StandardScaler

    from marginclust.datasets import list_datasets, load_dataset
    from marginclust.metrics import normalized_clustering_accuracy

    load = [os.getloadavg()[0]]
    out = ["| table | rows x columns | K | default NCA | fitted-rows vote NCA | difference "
           "| default s | fitted-rows vote s |", "|---|---|---|---|---|---|---|---|"]
    for info in list_datasets(home):
        if info["where"] in ("sklearn", "synthetic") or info["n_samples"] <= FORMER_VOTE:
            continue
        X, y = load_dataset(info["name"], data_home=home)
        X = StandardScaler().fit_transform(X[:, X.std(axis=0) > 0])
        k = int(np.unique(y).size)
        got = {}
        for name, make in (("default", _mmc(0)),
                           ("former", _mmc(0, max_vote_samples=FORMER_VOTE))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.process_time()
                labels = make(X, k)
                got[name] = (normalized_clustering_accuracy(y, labels),
                             time.process_time() - start)
        (a, sa), (b, sb) = got["default"], got["former"]
        out.append(f"| {info['name']} | {X.shape[0]:,} x {X.shape[1]} | {k} | {a:.3f} | "
                   f"{b:.3f} | {a - b:+.3f} | {sa:.1f} | {sb:.1f} |")
        print(out[-1], flush=True)
    load.append(os.getloadavg()[0])
    return (f"Shared measured tables of more than {FORMER_VOTE:,} rows "
            f"(`--tables`, {time.strftime('%Y-%m-%d')}; load average {load[0]:.1f} at the "
            f"start, {load[1]:.1f} at the end; standardised, K given, seed 0):\n\n"
            + "\n".join(out) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None, help="a folder of battery folders")
    ap.add_argument("--tables", action="store_true",
                    help="the shared measured tables of more than 3,000 rows instead")
    ap.add_argument("--data-home", default=str(HERE.parents[1] / "shared" / "datasets"))
    ap.add_argument("--max-rows", type=int, default=10_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--large", action="store_true", help="also the sets above --max-rows")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.tables:
        publish(tables(args.data_home), args.out)
        return 0
    if args.root is None:
        ap.error("--root is required without --tables")
    small = set(list_sets(BATTERIES, max_samples=FORMER_VOTE, root=args.root))
    keys = [k for k in list_sets(BATTERIES, max_samples=args.max_rows, root=args.root)
            if k not in small]
    large = ([k for k in list_sets(BATTERIES, max_samples=None, root=args.root)
              if k not in small and k not in keys] if args.large else [])
    seeds = list(range(args.seeds))
    methods: dict[str, Callable[[int], Callable[[np.ndarray, int], np.ndarray]]] = {
        "default": lambda s: _mmc(s),
        "fitted-rows vote": lambda s: _mmc(s, max_vote_samples=FORMER_VOTE),
    }
    genie = _genie()
    load = [os.getloadavg()[0]]
    rows: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for key in keys + large:
        rows[key] = {}
        for seed in seeds if key in keys else seeds[:1]:
            for name, make in methods.items():  # interleaved per set and seed
                rows[key].setdefault(name, []).append(score_set(key, args.root, make(seed)))
        if genie is not None:
            rows[key]["Genie"] = [score_set(key, args.root, genie)]
        print(key, {m: [round(v[0], 3) for v in r] for m, r in rows[key].items()}, flush=True)
    load.append(os.getloadavg()[0])
    names = [*methods, *(["Genie"] if genie is not None else [])]
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=HERE).stdout.strip()
    out = [
        "# MaxMarginClustering past its fitted sample: shape sets of 3,000 to "
        f"{args.max_rows:,} rows",
        "",
        f"`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/"
        f"bench_max_margin_large_sets.py --root <clustering-data-v1> --seeds {args.seeds}"
        f"{' --large' if args.large else ''}` ({time.strftime('%Y-%m-%d')}, code {code}; "
        f"load average {load[0]:.1f} at the start, {load[1]:.1f} at the end; one BLAS "
        "thread). K given; NCA, the best over a set's references; seeds "
        f"0-{seeds[-1]} (Genie is deterministic). *fitted-rows vote*: "
        f"`max_vote_samples={FORMER_VOTE}`, the vote on the 3,000 fitted rows only.",
        "",
        "| set | rows | " + " | ".join(f"{m} (per seed)" for m in names[:2])
        + " | " + " | ".join(f"{m} mean" for m in names) + " | default - fitted-rows |",
        "|---|---|" + "---|" * (2 + len(names) + 1),
    ]
    means: dict[str, list[float]] = {m: [] for m in names}
    secs: dict[str, list[float]] = {m: [] for m in names}
    for key in keys + large:
        ds_rows = load_set(key, root=args.root).n_samples
        per = {m: [v[0] for v in rows[key].get(m, [])] for m in names}
        mean = {m: float(np.mean(v)) if v else float("nan") for m, v in per.items()}
        if key in keys:
            for m in names:
                means[m].append(mean[m])
                secs[m].extend(v[1] for v in rows[key].get(m, []))
        out.append(
            f"| {key}{'' if key in keys else ' (seed 0)'} | {ds_rows:,} | "
            + " | ".join(" / ".join(f"{x:.3f}" for x in per[m]) for m in names[:2]) + " | "
            + " | ".join(f"{mean[m]:.3f}" for m in names)
            + f" | {mean['default'] - mean['fitted-rows vote']:+.3f} |")
    out += ["", f"Means over the {len(keys)} sets of 3,000 to {args.max_rows:,} rows "
            "(each set's mean over the seeds; CPU seconds: median of one fit):", "",
            "| method | mean NCA | median seconds |", "|---|---|---|"]
    for m in names:
        out.append(f"| {m} | {np.mean(means[m]):.4f} | {np.median(secs[m]):.2f} |")
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

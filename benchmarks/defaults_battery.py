"""Defaults of the margin methods on a clustering benchmark battery and the shared UCI-like sets.

Before/after measurement of estimator defaults, label-free: each method is fitted
at its defaults (plus any ``--set`` overrides) with the true K, and scored with
the labels afterwards.

- **battery** (default): Gagolewski's benchmark folders (``benchmarks/_battery.py``;
  ``MARGINCLUST_BATTERY`` or ``--root`` for another copy of the suite), sets with
  at most ``--max-samples`` points (and more than ``--min-samples``), the framework's
  "original" preprocessing, one
  fit per distinct K of the references, NCA (and ARI) best over the references.
- **uci** (``--uci``): the shared UCI-like sets (``MARGINCLUST_DATA``), missing cells
  mean-imputed, features standardised, K = number of classes, sets above
  ``--uci-max-samples`` rows cut to a seeded subsample; NCA and ARI against the
  classes.

A fit is *collapsed* when it returns fewer non-empty clusters than asked.

Every fit is cached as one JSON line keyed by (tag, method, overrides, set, K,
seed) in ``--cache``, so a rerun resumes and a summary costs nothing. ``--tag``
names the code measured: run the same command with ``PYTHONPATH`` pointing at an
older checkout's ``src`` and ``--tag before`` to measure the old defaults in the
same cache.

Run (BLAS threads pinned to 1)::

    PYTHONPATH=/tmp/old/src python benchmarks/defaults_battery.py --tag before
    python benchmarks/defaults_battery.py --tag after
    python benchmarks/defaults_battery.py --summary --tags before,after
    python benchmarks/defaults_battery.py --uci --tag after
    MARGINCLUST_BATTERY=/path/to/clustering-data-v1 python benchmarks/defaults_battery.py \\
        --batteries sipu,uci,other --tag after-heldout
    python benchmarks/defaults_battery.py --methods slmc --set slmc:lam=100 --tag try

Two starts and the fit of lower objective (the rule of the estimators' restarts),
offline from the rows of both::

    python benchmarks/defaults_battery.py --methods emmc --set emmc:init=spectral --tag study
    python benchmarks/defaults_battery.py --methods emmc --set emmc:init=k-means-elm --tag study
    python benchmarks/defaults_battery.py --summary --methods emmc --tags study \\
        --lower-objective spectral,k-means-elm [--per-set]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _battery import battery_root, load_set, preprocess  # noqa: E402

from marginclust.metrics import adjusted_rand_index, normalized_clustering_accuracy  # noqa: E402

METHODS = ("slmc", "emmc", "wocsvm", "bmmc", "cpmmc", "fcm")
PEERS = ("kmeans", "gmm", "spectral")
BATTERIES = ("fcps", "graves", "wut")
UCI_SETS = (
    "iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
    "breast_cancer_wisconsin", "parkinsons", "biomed", "yeast", "soybean_small",
    "australian", "hepatitis", "segmentation", "satimage", "pendigits_train", "waveform",
    "ringnorm", "svmguide1", "usps", "letter", "mnist_5k",
)
DEFAULT_CACHE = HERE / "results" / "defaults_battery.jsonl"


def make_estimator(method: str, k: int, seed: int, params: dict[str, Any]) -> Any:
    """The estimator ``method`` at its defaults, with ``params`` overriding them."""
    import marginclust as mc

    if method == "kmeans":
        from sklearn.cluster import KMeans

        return KMeans(k, n_init=10, random_state=seed, **params)
    if method == "gmm":
        from sklearn.mixture import GaussianMixture

        return GaussianMixture(k, n_init=1, random_state=seed, **params)
    if method == "spectral":
        from sklearn.cluster import SpectralClustering

        return SpectralClustering(k, affinity="nearest_neighbors", random_state=seed, **params)
    cls = {"slmc": mc.SLMC, "emmc": mc.EMMC, "wocsvm": mc.WOCSVMClustering, "bmmc": mc.BMMC,
           "cpmmc": mc.CPMMC, "fcm": mc.FuzzyCMeans}[method]
    return cls(n_clusters=k, random_state=seed, **params)


def fit_labels(method: str, X: np.ndarray, k: int, seed: int,
               params: dict[str, Any]) -> tuple[np.ndarray, float, float | None]:
    """Labels, seconds and the fit's own ``objective_`` (None when it has none)."""
    est = make_estimator(method, k, seed, params)
    tic = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = np.asarray(est.fit_predict(X)) if method == "gmm" else np.asarray(
            est.fit(X).labels_)
    secs = time.perf_counter() - tic
    objective = getattr(est, "objective_", None)
    return labels, secs, None if objective is None else float(objective)


def parse_sets(items: list[str]) -> dict[str, dict[str, Any]]:
    """``["slmc:lam=100", "slmc:init=k-means"]`` -> ``{"slmc": {"lam": 100.0, ...}}``."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        method, _, kv = item.partition(":")
        key, _, value = kv.partition("=")
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        out.setdefault(method, {})[key] = parsed
    return out


class Cache:
    """One JSON line per fit; the key is (tag, method, overrides, set, K, seed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.rows[row["key"]] = row

    @staticmethod
    def key(tag: str, method: str, params: dict[str, Any], name: str, k: int, seed: int) -> str:
        return json.dumps([tag, method, params, name, k, seed], sort_keys=True)

    def add(self, row: dict[str, Any]) -> None:
        self.rows[row["key"]] = row
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")


def readable_sets(batteries: list[str], max_samples: int, min_samples: int = 0) -> list[str]:
    """``battery/name`` of the sets with more than ``min_samples`` and at most
    ``max_samples`` rows; a file that cannot be read (e.g. a truncated download) is
    reported and skipped."""
    import gzip

    keys = []
    for battery in batteries:
        for path in sorted((battery_root() / battery).glob("*.data.gz")):
            try:
                with gzip.open(path, "rt") as fh:
                    n = sum(1 for line in fh if line.strip())
            except (OSError, EOFError) as exc:
                print(f"skipped {path}: {exc}", file=sys.stderr)
                continue
            if min_samples < n <= max_samples:
                keys.append(f"{battery}/{path.name[: -len('.data.gz')]}")
    return keys


def battery_jobs(args: argparse.Namespace) -> list[tuple[str, np.ndarray, list[tuple[int, Any]]]]:
    """``(key, X, [(K, references of that K)])`` per battery set."""
    jobs = []
    for key in readable_sets(args.batteries.split(","), args.max_samples, args.min_samples):
        if args.only and not any(s in key for s in args.only.split(",")):
            continue
        try:
            ds = load_set(key)
        except (OSError, EOFError, ValueError) as exc:  # e.g. a truncated labels file
            print(f"skipped {key}: {exc}", file=sys.stderr)
            continue
        X = preprocess(ds.X, "original")
        by_k: dict[int, list[np.ndarray]] = {}
        for ref in ds.references:
            by_k.setdefault(int(ref.max()), []).append(ref)
        jobs.append((key, X, list(by_k.items())))
    return jobs


def uci_jobs(args: argparse.Namespace) -> list[tuple[str, np.ndarray, list[tuple[int, Any]]]]:
    """Shared UCI-like sets: mean-imputed, standardised, K = number of classes."""
    from marginclust.datasets import load_dataset

    jobs = []
    for name in UCI_SETS:
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        X, y = load_dataset(name)
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        if y.dtype.kind == "f":
            keep = np.isfinite(y)
            X, y = X[keep], y[keep]
        miss = ~np.isfinite(X)
        if miss.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                means = np.nanmean(np.where(miss, np.nan, X), axis=0)
            X = np.where(miss, np.nan_to_num(means)[None, :], X)
        if X.shape[0] > args.uci_max_samples:
            keep = np.sort(np.random.RandomState(0).choice(X.shape[0], args.uci_max_samples,
                                                           replace=False))
            X, y = X[keep], y[keep]
        _, y = np.unique(y, return_inverse=True)
        X = preprocess(X, "standardise")
        jobs.append((f"uci/{name}", X, [(int(y.max()) + 1, [y + 1])]))
    return jobs


def run(args: argparse.Namespace) -> None:
    cache = Cache(Path(args.cache))
    overrides = parse_sets(args.set or [])
    jobs = uci_jobs(args) if args.uci else battery_jobs(args)
    seeds = [int(s) for s in args.seeds.split(",")]
    for method in args.methods.split(","):
        params = overrides.get(method, {})
        for name, X, groups in jobs:
            for k, refs in groups:
                for seed in seeds:
                    key = Cache.key(args.tag, method, params, name, k, seed)
                    if key in cache.rows:
                        continue
                    try:
                        labels, secs, objective = fit_labels(method, X, k, seed, params)
                        err = ""
                    except Exception as exc:  # a failed fit is a result too
                        labels, secs, objective = np.zeros(X.shape[0], dtype=int), float(
                            "nan"), None
                        err = repr(exc)[:200]
                    scores = []
                    for ref in refs:
                        keep = ref > 0
                        scores.append((normalized_clustering_accuracy(ref[keep], labels[keep]),
                                       adjusted_rand_index(ref[keep], labels[keep])))
                    nca, ari = max(scores)
                    row = {"key": key, "tag": args.tag, "method": method, "params": params,
                           "set": name, "k": k, "seed": seed, "nca": float(nca),
                           "ari": float(ari), "found": int(np.unique(labels).size),
                           "seconds": secs, "objective": objective, "error": err}
                    cache.add(row)
                    print(f"{args.tag:>10} {method:>8} {name:<28} K={k:<3} seed={seed} "
                          f"NCA={nca:.3f} found={row['found']} {secs:.1f}s {err}", flush=True)


def _table_row(method: str, label: str, sel: list[dict[str, Any]], groups: list[str]) -> None:
    """One markdown row: a set's score is the best over its references (and K), mean
    over seeds; the groups' and all sets' means of those."""
    per_set: dict[str, list[float]] = {}
    by_seed: dict[tuple[str, int], float] = {}
    for r in sel:
        k = (r["set"], r["seed"])
        by_seed[k] = max(by_seed.get(k, -1.0), r["nca"])
    for (s, _), v in by_seed.items():
        per_set.setdefault(s, []).append(v)
    set_score = {s: float(np.mean(v)) for s, v in per_set.items()}
    cells = []
    for g in groups:
        vals = [v for s, v in set_score.items() if s.split("/")[0] == g]
        cells.append(f"{np.mean(vals):.3f} ({len(vals)})" if vals else "-")
    collapsed = sum(r["found"] < r["k"] for r in sel)
    secs = np.nansum([r["seconds"] for r in sel])
    print(f"| {method} | {label} | {len(sel)} | {' | '.join(cells)} | "
          f"{np.mean(list(set_score.values())):.3f} ({len(set_score)}) | "
          f"{collapsed}/{len(sel)} | {secs:.0f} |")


def lower_objective(
    sel_a: list[dict[str, Any]], sel_b: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """``(row a, row b, kept row)`` per fit (set, K, seed) present in both: the rule of
    the estimators' own restarts, a fit with all K clusters first, then the lower
    ``objective_`` (labels play no part)."""
    def fit_key(r: dict[str, Any]) -> tuple[str, int, int]:
        return r["set"], r["k"], r["seed"]

    b_rows = {fit_key(r): r for r in sel_b}
    out = []
    for ra in sel_a:
        rb = b_rows.get(fit_key(ra))
        if rb is None or ra["objective"] is None or rb["objective"] is None:
            continue
        rank_a = (ra["found"] < ra["k"], ra["objective"])
        rank_b = (rb["found"] < rb["k"], rb["objective"])
        out.append((ra, rb, ra if rank_a <= rank_b else rb))
    return sorted(out, key=lambda t: fit_key(t[0]))


def summary(args: argparse.Namespace) -> None:
    cache = Cache(Path(args.cache))
    overrides = parse_sets(args.set or [])
    tags = args.tags.split(",")
    uci = args.uci
    if uci:
        rows = [r for r in cache.rows.values() if r["set"].startswith("uci/")]
    else:  # the suite's own "uci" battery lives in another cache (--cache)
        bats = args.batteries.split(",")
        rows = [r for r in cache.rows.values() if r["set"].split("/")[0] in bats]
    methods = args.methods.split(",")
    groups = sorted({r["set"].split("/")[0] for r in rows})
    starts = args.lower_objective.split(",") if args.lower_objective else []
    picks: dict[tuple[str, str], Any] = {}
    print(f"| method | tag | n fits | {' | '.join(groups)} | all sets | collapsed | seconds |")
    print("|---|---|---|" + "---|" * len(groups) + "---|---|---|")
    for method in methods:
        params = overrides.get(method, {})
        for tag in tags:
            def select(p: dict[str, Any], method: str = method,
                       tag: str = tag) -> list[dict[str, Any]]:
                return [r for r in rows if r["method"] == method and r["tag"] == tag
                        and r["params"] == p]

            if not starts:
                if select(params):
                    _table_row(method, tag, select(params), groups)
                continue
            sels = [select({**params, "init": start}) for start in starts]
            if not all(sels):
                continue
            for start, sel in zip(starts, sels, strict=True):
                _table_row(method, f"{tag} init={start}", sel, groups)
            kept = lower_objective(*sels)
            picks[method, tag] = kept
            _table_row(method, f"{tag} lower objective", [t[2] for t in kept], groups)
    if args.per_set and starts:
        for (method, tag), kept in picks.items():
            print(f"\n{method} {tag}: NCA {starts[0]} / {starts[1]}, objective_ "
                  f"{starts[0]} / {starts[1]}, start kept (* its NCA is lower by > 0.01)")
            for ra, rb, r in kept:
                worse = r["nca"] < max(ra["nca"], rb["nca"]) - 0.01
                print(f"  {ra['set']:<28} K={ra['k']:<3} {ra['nca']:.3f} / {rb['nca']:.3f}  "
                      f"{ra['objective']:10.5g} / {rb['objective']:<10.5g} "
                      f"{r['params']['init']}{' *' if worse else ''}")
    elif args.per_set:
        print()
        for method in methods:
            params = overrides.get(method, {})
            sets = sorted({r["set"] for r in rows if r["method"] == method})
            print(f"\n{method}: " + " ".join(f"{t:>8}" for t in tags))
            for s in sets:
                vals = []
                for tag in tags:
                    v = [r["nca"] for r in rows if r["method"] == method and r["set"] == s
                         and r["tag"] == tag and r["params"] == params]
                    vals.append(f"{max(v):8.3f}" if v else f"{'-':>8}")
                print(f"  {s:<30} " + " ".join(vals))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma list of {METHODS + PEERS}")
    p.add_argument("--set", action="append", metavar="METHOD:PARAM=VALUE",
                   help="override a default (JSON value), repeatable")
    p.add_argument("--tag", default="current", help="names the code measured (cache key)")
    p.add_argument("--tags", default="before,after", help="tags compared by --summary")
    p.add_argument("--seeds", default="0")
    p.add_argument("--batteries", default=",".join(BATTERIES))
    p.add_argument("--max-samples", type=int, default=3000)
    p.add_argument("--min-samples", type=int, default=0,
                   help="only battery sets with more rows than this")
    p.add_argument("--only", default="", help="comma list of substrings of set names")
    p.add_argument("--uci", action="store_true", help="the shared UCI-like sets instead")
    p.add_argument("--uci-max-samples", type=int, default=3000)
    p.add_argument("--cache", default=str(DEFAULT_CACHE))
    p.add_argument("--summary", action="store_true", help="print the tables from the cache")
    p.add_argument("--per-set", action="store_true", help="with --summary: every set")
    p.add_argument("--lower-objective", default="", metavar="INIT_A,INIT_B",
                   help="with --summary: the fits at init=INIT_A and at init=INIT_B (rows "
                        "of --set ... init=...) and, per fit, the one of lower objective_")
    args = p.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("MARGINCLUST_DATA", str(HERE.parents[1] / "shared" / "datasets"))
    if args.summary:
        summary(args)
    else:
        print(f"load average {os.getloadavg()}", flush=True)
        run(args)


if __name__ == "__main__":
    main()

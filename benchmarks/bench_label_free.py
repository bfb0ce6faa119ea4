"""Label-free model selection against K-means and against the label-tuned oracle.

For every method and every shared data set (standardised features; labels used
ONLY to score the result), the Hungarian clustering accuracy (CA) of

- ``default``: the estimator at its defaults;
- ``search``: :class:`marginclust.model_selection.StabilitySearch` over the
  method's label-free grid (``estimator._label_free_grid(X)``; when the
  estimator declares none yet, the small fallback grid below, marked ``*``);
- ``median``: the median CA over the grid's non-degenerate settings (what a
  random non-collapsed pick gives);
- ``oracle``: the best CA over the same grid, chosen with the labels (the
  papers' protocol; optimistic, a max over noisy fits);
- ``kmeans``: ``sklearn.cluster.KMeans(n_clusters=K, n_init=10)``;

averaged over the seeds, with the seconds of the default fit and of the search,
and the number of collapsed grid settings. The summary row per method gives the
mean of each column and the wins/ties/losses of ``search`` (and ``default``)
against KMeans (a tie is within 0.005).

Run (the lead, on a quiet machine)::

    PYTHONPATH=src .venv/bin/python benchmarks/bench_label_free.py            # full
    PYTHONPATH=src .venv/bin/python benchmarks/bench_label_free.py --quick    # < 2 min
    ... --methods slmc,bmmc --datasets iris,wine --n-pairs 5 --seeds 0,1

Data come from ``MARGINCLUST_DATA`` (the shared CSV folder).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.model_selection import ParameterGrid

import marginclust as mc
from marginclust.bench._runner import load_data
from marginclust.metrics import clustering_accuracy
from marginclust.model_selection import StabilitySearch
from marginclust.utils import degeneracy

DATASETS = ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
            "segmentation"]


def _d(X: np.ndarray) -> int:
    return X.shape[1]


# name -> (estimator class name, fallback grid used only while the estimator's
# _label_free_grid(X) is empty). The fallback grids are small, label-free, and
# relative to the (standardised) data where a scale enters.
METHODS: dict[str, tuple[str, Callable[[np.ndarray], dict[str, list[Any]]]]] = {
    "fcm": ("FuzzyCMeans", lambda X: {"m": [1.5, 2.0, 2.5]}),
    "slmc": ("SLMC", lambda X: {"lam": [0.1, 1.0, 10.0], "sigma_scale": [0.25, 0.5, 1.0]}),
    "pkm": ("PKM", lambda X: {}),
    "emmc": ("EMMC", lambda X: {"C": [1.0, 10.0, 100.0, 1000.0], "n_hidden": [100, 300]}),
    "bmmc": ("BMMC", lambda X: {"C": [0.01, 0.1, 1.0, 10.0], "balance": [0.05, 0.1, 0.2]}),
    "cpmmc": ("CPMMC", lambda X: {"C": [0.01, 0.1, 1.0, 10.0], "balance": [0.05, 0.1, 0.2]}),
    "wocsvm": ("WOCSVMClustering", lambda X: {"gamma": [0.25 / _d(X), 1.0 / _d(X),
                                                         4.0 / _d(X)],
                                              "nu": [0.5, 0.7, 0.9]}),
}


def _make(cls_name: str, k: int, seed: int) -> Any:
    cls = getattr(mc, cls_name)
    params = cls().get_params()
    kw: dict[str, Any] = {"n_clusters": k}
    if "random_state" in params:
        kw["random_state"] = seed
    return cls(**kw)


def _grid(est: Any, X: np.ndarray, fallback: Callable[..., dict[str, list[Any]]]
          ) -> tuple[dict[str, list[Any]], bool]:
    hook = getattr(est, "_label_free_grid", None)
    grid = hook(X) if callable(hook) else {}
    if grid:
        return dict(grid), False
    return fallback(X), True


def _thin(grid: dict[str, list[Any]], keep: int) -> dict[str, list[Any]]:
    out = {}
    for name, values in grid.items():
        values = list(values)
        if len(values) > keep:
            idx = np.unique(np.round(np.linspace(0, len(values) - 1, keep)).astype(int))
            values = [values[i] for i in idx]
        out[name] = values
    return out


def _ca(y: np.ndarray, labels: np.ndarray) -> float:
    return clustering_accuracy(y, labels, mapping="hungarian")


def _quiet_fit(est: Any, X: np.ndarray) -> tuple[Any, float, bool]:
    """Fit; return the estimator, seconds and whether its labels are degenerate."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        est.fit(X)
        seconds = time.perf_counter() - start
    labels = np.asarray(est.labels_)
    k = est.get_params()["n_clusters"]
    return est, seconds, bool(np.any(labels < 0) or degeneracy(labels, k).degenerate)


def run_cell(method: str, X: np.ndarray, y: np.ndarray, k: int, seed: int, args: Any
             ) -> dict[str, Any]:
    cls_name, fallback = METHODS[method]
    row: dict[str, Any] = {"method": method, "seed": seed}
    base = _make(cls_name, k, seed)
    try:
        est, row["t_default"], row["default_collapsed"] = _quiet_fit(clone(base), X)
        row["default"] = _ca(y, est.labels_)
    except Exception as exc:  # noqa: BLE001 - a failure is a result
        row["default"], row["error"] = np.nan, f"default: {type(exc).__name__}: {exc}"
    grid, is_fallback = _grid(base, X, fallback)
    if args.quick:
        grid = _thin(grid, 2)
    row["grid"] = "fallback*" if is_fallback else "estimator"
    settings = list(ParameterGrid(grid)) if grid else [{}]
    row["n_settings"] = len(settings)
    cas, collapsed = [], 0
    for s in settings:
        try:
            est, _, bad = _quiet_fit(clone(base).set_params(**s), X)
            cas.append((_ca(y, est.labels_), bad))
            collapsed += bad
        except Exception:  # noqa: BLE001
            cas.append((np.nan, True))
            collapsed += 1
    good = [c for c, bad in cas if not bad and np.isfinite(c)]
    row["median"] = float(np.median(good)) if good else np.nan
    row["oracle"] = float(np.nanmax([c for c, _ in cas])) if cas else np.nan
    row["collapsed"] = f"{collapsed}/{len(settings)}"
    kw = {} if args.scoring is None else {"scoring": args.scoring}
    search = StabilitySearch(
        clone(base), grid or None, n_pairs=args.n_pairs, random_state=seed,
        subsample=min(X.shape[0], args.max_rows), **kw,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            search.fit(X)
            row["t_search"] = time.perf_counter() - start
            if search.best_estimator_ is None:
                row["search"], row["pick"] = np.nan, "all collapsed"
            else:
                row["search"] = _ca(y, search.labels_)
                row["pick"] = json.dumps(search.best_params_, default=str)
            row["scoring"] = str(search.scoring_)
            # per setting: the label-free criteria the search saw and the CA of the
            # setting's fit on all rows (for offline rule studies; labels score only)
            res = search.results_
            row["settings"] = [
                {"params": json.dumps(res["params"][i], default=str), "ca": cas[i][0],
                 "collapsed": bool(cas[i][1]), "degenerate": bool(res["degenerate"][i]),
                 **{c: res[c][i] for c in ("score", "calinski_harabasz", "silhouette",
                                           "xie_beni")}}
                for i in range(len(settings))
            ] if len(res["params"]) == len(settings) else []
        except Exception as exc:  # noqa: BLE001
            row["search"], row["error"] = np.nan, f"search: {type(exc).__name__}: {exc}"
    return row


def _fmt(v: float) -> str:
    return "n/a" if v is None or not np.isfinite(v) else f"{v:.3f}"


COLS = ["default", "search", "median", "oracle", "kmeans"]


def _cell_means(cell: list[dict[str, Any]]) -> dict[str, float]:
    """Per column, the mean over seeds. A search that picked nothing (every setting
    collapsed: a warning, no pick) counts with the default's CA, which is what the
    user keeps after the warning."""
    out = {}
    for c in COLS:
        vals = []
        for r in cell:
            v = r.get(c)
            if c == "search" and (v is None or not np.isfinite(v)):
                v = r.get("default")
            if v is not None and np.isfinite(v):
                vals.append(float(v))
        out[c] = float(np.mean(vals)) if vals else np.nan
    return out


def _nanmean(values: list[Any]) -> float:
    vals = [float(v) for v in values if v is not None and np.isfinite(v)]
    return float(np.mean(vals)) if vals else float("nan")


def print_tables(rows: list[dict[str, Any]], methods: list[str], datasets: list[str]) -> None:
    """The per-set table and the per-method summary (Markdown, on stdout)."""
    print()
    print("| data set | method | grid | default | search | median | oracle | KMeans "
          "| collapsed | s default | s search | pick (first seed) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for method in methods:
        for name in datasets:
            cell = [r for r in rows if r["method"] == method and r["dataset"] == name]
            if not cell:
                continue
            mean = _cell_means(cell)
            t_def = _nanmean([r.get("t_default") for r in cell])
            t_s = _nanmean([r.get("t_search") for r in cell])
            print(f"| {name} | {method} | {cell[0]['grid']} | "
                  + " | ".join(_fmt(mean[c]) for c in COLS)
                  + f" | {', '.join(r['collapsed'] for r in cell)} | {t_def:.2f} | {t_s:.1f} | "
                  f"{cell[0].get('pick', '-')} |")
    print()
    print("| method | sets | mean default | mean search | mean median | mean oracle "
          "| mean KMeans | search vs KMeans W/T/L | default vs KMeans W/T/L | search / oracle "
          "| no pick |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for method in methods:
        per_set = []
        no_pick = 0
        for name in datasets:
            cell = [r for r in rows if r["method"] == method and r["dataset"] == name]
            if cell:
                per_set.append(_cell_means(cell))
                no_pick += sum(r.get("pick") == "all collapsed" for r in cell)
        if not per_set:
            continue

        def wtl(col: str, sets: list[dict[str, float]] = per_set) -> str:
            w = sum(bool(s[col] > s["kmeans"] + 0.005) for s in sets)
            t = sum(bool(abs(s[col] - s["kmeans"]) <= 0.005) for s in sets)
            return f"{w}/{t}/{len(sets) - w - t}"

        means = {c: _nanmean([s[c] for s in per_set]) for c in COLS}
        ratio = _nanmean([s["search"] / s["oracle"] for s in per_set])
        print(f"| {method} | {len(per_set)} | " + " | ".join(_fmt(means[c]) for c in COLS)
              + f" | {wtl('search')} | {wtl('default')} | {_fmt(ratio)} | {no_pick} |")
    print("\nW/T/L: search (or default) beats / ties (within 0.005) / loses to KMeans(n_init=10) "
          "on the set's mean over seeds. 'no pick' = searches where every setting collapsed "
          "(a warning, no silent pick); such a search counts with the default's CA (what the "
          "user keeps) in its set's 'search' value. '*' grid = the bench "
          f"fallback grid (the estimator declares no _label_free_grid yet). loadavg "
          f"{os.getloadavg()}.")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="iris + wine, 1 seed, 2 pairs, "
                   "grids thinned to 2 values per parameter (< 2 min)")
    p.add_argument("--methods", default=",".join(METHODS), help="comma-separated")
    p.add_argument("--datasets", default=None, help="comma-separated (default: all shared)")
    p.add_argument("--seeds", default=None, help="comma-separated (default 0,1; quick 0)")
    p.add_argument("--n-pairs", type=int, default=None, help="default 5 (quick 2)")
    p.add_argument("--max-rows", type=int, default=1000, help="search subsample cap")
    p.add_argument("--scoring", default=None,
                   help="StabilitySearch scoring (default: the search's default)")
    p.add_argument("--json", default=None, help="also write the rows here")
    p.add_argument("--from-json", default=None, help="only print the tables of saved rows")
    args = p.parse_args(argv)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as fh:
            saved = json.load(fh)
        print_tables(saved, list(dict.fromkeys(r["method"] for r in saved)),
                     list(dict.fromkeys(r["dataset"] for r in saved)))
        return 0
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        p.error(f"unknown methods {unknown}; known: {sorted(METHODS)}")
    datasets = args.datasets.split(",") if args.datasets else (
        ["iris", "wine"] if args.quick else DATASETS)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else (
        [0] if args.quick else [0, 1])
    if args.n_pairs is None:
        args.n_pairs = 2 if args.quick else 5
    print(f"# bench_label_free: methods {methods}, data {datasets}, seeds {seeds}, "
          f"n_pairs {args.n_pairs}, max_rows {args.max_rows}, scoring {args.scoring or 'default'}, "
          f"loadavg {os.getloadavg()}", flush=True)
    rows = []
    for name in datasets:
        X, y, _ = load_data(name, "standardize")
        k = int(np.unique(y).size)
        km = []
        for seed in seeds:
            start = time.perf_counter()
            labels = KMeans(k, n_init=10, random_state=seed).fit(X).labels_
            km.append((_ca(y, labels), time.perf_counter() - start))
        for method in methods:
            for seed, (kca, kt) in zip(seeds, km, strict=True):
                row = run_cell(method, X, y, k, seed, args)
                row.update(dataset=name, kmeans=kca, t_kmeans=kt)
                rows.append(row)
                print(f"  {name:14s} {method:7s} seed {seed}: default {_fmt(row['default'])} "
                      f"search {_fmt(row['search'])} median {_fmt(row['median'])} "
                      f"oracle {_fmt(row['oracle'])} kmeans {_fmt(kca)} "
                      f"collapsed {row['collapsed']} pick {row.get('pick')} "
                      f"t_search {row.get('t_search', float('nan')):.1f}s "
                      f"{row.get('error', '')}", file=sys.stderr, flush=True)
    print_tables(rows, methods, datasets)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, default=str, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Study: which label-free selection rule generalises? (collect per-setting features, then
evaluate rules offline with a leave-one-data-set-out view).

Step 1 (``collect``): for every method, data set and seed, every setting of the
estimator's own label-free grid is evaluated exactly as
:class:`~marginclust.model_selection.StabilitySearch` sees it (same seeded base
estimator, same search rows, same half splits: the search's own ``results_``),
plus label-free geometric features of the setting's fit on the search rows in
the standardised reference space (Calinski-Harabasz, silhouette, Xie-Beni,
boundary density), and -- for scoring only -- the CA of the refit on all rows
(what the search would return if it picked that setting).

Step 2 (``rules``): each candidate rule picks one non-degenerate setting from
the label-free features only; the table gives its mean CA per method, and the
leave-one-data-set-out view: for each held-out set, the rule that is best on
the other sets (mean CA over every method), applied to the held-out set.

Run::

    PYTHONPATH=src python benchmarks/label_free_rules.py collect --methods slmc,bmmc \
        --out /work/runs/label-free/feat_slmc_bmmc.json
    PYTHONPATH=src python benchmarks/label_free_rules.py rules /work/runs/label-free/feat_*.json
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
import warnings
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.metrics import calinski_harabasz_score, silhouette_score
from sklearn.utils import check_random_state

from marginclust.bench._runner import load_data
from marginclust.metrics import clustering_accuracy
from marginclust.model_selection import StabilitySearch, reference_space
from marginclust.model_selection._grid import scale_params

sys.path.insert(0, os.path.dirname(__file__))
from bench_label_free import DATASETS, METHODS, _make  # noqa: E402


def _ca(y: np.ndarray, labels: np.ndarray) -> float:
    return clustering_accuracy(y, labels, mapping="hungarian")


def boundary_features(Z: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """Label-free margin features of a partition in the reference space Z.

    Relative centroid margin of each row, r = (d_other - d_own) / (d_other + d_own)
    (d_own: distance to its cluster's centroid, d_other: to the nearest other
    centroid); ``boundary_density`` = fraction of rows with r < 0.1 (rows close to
    a boundary: low is a low-density separation), ``mean_margin`` = mean r
    (the simplified silhouette). Scale free.
    """
    ks = np.unique(labels)
    C = np.stack([Z[labels == c].mean(axis=0) for c in ks])
    D = np.sqrt(np.maximum(((Z[:, None, :] - C[None]) ** 2).sum(-1), 0))
    idx = np.searchsorted(ks, labels)
    own = D[np.arange(len(Z)), idx]
    D[np.arange(len(Z)), idx] = np.inf
    other = D.min(axis=1)
    r = (other - own) / np.maximum(other + own, 1e-300)
    return {"boundary_density": float(np.mean(r < 0.1)), "mean_margin": float(np.mean(r))}


def collect_cell(method: str, X: np.ndarray, y: np.ndarray, k: int, seed: int,
                 n_pairs: int, max_rows: int) -> dict[str, Any]:
    cls_name, _ = METHODS[method]
    base = _make(cls_name, k, seed)
    n = X.shape[0]
    m = min(n, max_rows)
    start = time.perf_counter()
    search = StabilitySearch(clone(base), None, n_pairs=n_pairs, random_state=seed,
                             subsample=m, tie_break="calinski_harabasz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X)
    t_search = time.perf_counter() - start
    # the search's rows, exactly as StabilitySearch.fit draws them
    rng = check_random_state(seed)
    rng.randint(np.iinfo(np.int32).max)
    rows = np.arange(n) if m == n else np.sort(rng.choice(n, m, replace=False))
    Xs = X[rows]
    Zs = reference_space(Xs)
    res = search.results_
    settings = []
    for i, s in enumerate(res["params"]):
        rec: dict[str, Any] = {"params": json.dumps(s, default=str),
                               "stability": res["score"][i], "stability_std": res["score_std"][i],
                               "degenerate": bool(res["degenerate"][i])}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if not rec["degenerate"]:
                    e = clone(base).set_params(**scale_params(base, s, m, m)).fit(Xs)
                    lab = np.asarray(e.labels_)
                    rec["ch"] = float(calinski_harabasz_score(Zs, lab))
                    rec["silhouette"] = float(silhouette_score(Zs, lab))
                    rec.update(boundary_features(Zs, lab))
                    rec["objective"] = float(getattr(e, "objective_", np.nan) or np.nan)
                full = clone(base).set_params(**scale_params(base, s, n, m)).fit(X)
                lab = np.asarray(full.labels_)
                rec["ca"] = _ca(y, lab)
                from marginclust.utils import degeneracy
                rec["refit_degenerate"] = bool(np.any(lab < 0) or degeneracy(lab, k).degenerate)
            except Exception as exc:  # noqa: BLE001
                rec["ca"], rec["error"] = np.nan, f"{type(exc).__name__}: {exc}"
                rec["refit_degenerate"] = True
        settings.append(rec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = clone(base).fit(X)
    km = KMeans(k, n_init=10, random_state=seed).fit(X).labels_
    return {"method": method, "seed": seed, "settings": settings,
            "default_params": json.dumps({p: base.get_params()[p] for p in
                                          {q for s in res["params"] for q in s}}, default=str),
            "default": _ca(y, np.asarray(d.labels_)), "kmeans": _ca(y, km),
            "search": (_ca(y, search.labels_) if search.best_estimator_ is not None else None),
            "pick": json.dumps(search.best_params_, default=str), "t_search": t_search}


def collect(args: argparse.Namespace) -> None:
    methods = args.methods.split(",")
    datasets = args.datasets.split(",") if args.datasets else DATASETS
    seeds = [int(s) for s in args.seeds.split(",")]
    out: list[dict[str, Any]] = []
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            out = json.load(fh)
    done = {(r["dataset"], r["method"], r["seed"]) for r in out}
    for name in datasets:
        X, y, _ = load_data(name, "standardize")
        k = int(np.unique(y).size)
        for method in methods:
            for seed in seeds:
                if (name, method, seed) in done:
                    continue
                row = collect_cell(method, X, y, k, seed, args.n_pairs, args.max_rows)
                row["dataset"] = name
                out.append(row)
                print(f"{name:14s} {method:7s} {seed}: search {row['search']} default "
                      f"{row['default']:.3f} kmeans {row['kmeans']:.3f} "
                      f"t {row['t_search']:.1f}s load {os.getloadavg()[0]:.1f}", flush=True)
                with open(args.out, "w", encoding="utf-8") as fh:
                    json.dump(out, fh, default=float)


# ---------------------------------------------------------------- rules
def _ok(s: dict[str, Any]) -> bool:
    return not s["degenerate"] and s.get("stability") is not None and np.isfinite(
        s["stability"]) and "ch" in s


def _rank(values: np.ndarray, higher: bool = True) -> np.ndarray:
    """Average ranks, 0 = best."""
    from scipy.stats import rankdata
    v = -values if higher else values
    return rankdata(v, method="average") - 1


def rule_stab_tie(tol: float, tie: str = "ch"):
    def pick(S: list[dict[str, Any]]) -> int:
        st = np.array([s["stability"] for s in S])
        near = [i for i in range(len(S)) if st[i] >= st.max() - tol]
        return max(near, key=lambda i: (S[i][tie], st[i]))
    return pick


def rule_stab_se(z: float, tie: str = "ch", n_pairs: int = 3):
    """Ties = within z standard errors of the best stability (error from its pairs)."""
    def pick(S: list[dict[str, Any]]) -> int:
        st = np.array([s["stability"] for s in S])
        b = int(np.argmax(st))
        se = (S[b]["stability_std"] or 0.0) / np.sqrt(n_pairs)
        near = [i for i in range(len(S)) if st[i] >= st[b] - z * se - 1e-12]
        return max(near, key=lambda i: (S[i][tie], st[i]))
    return pick


def rule_single(key: str, higher: bool = True):
    def pick(S: list[dict[str, Any]]) -> int:
        v = np.array([s[key] for s in S])
        return int(np.argmax(v) if higher else np.argmin(v))
    return pick


def rule_borda(keys: tuple[tuple[str, bool], ...]):
    def pick(S: list[dict[str, Any]]) -> int:
        tot = np.zeros(len(S))
        for key, higher in keys:
            tot += _rank(np.array([s[key] for s in S], dtype=float), higher)
        return int(np.argmin(tot))  # ties: first in grid order
    return pick


def rule_stable_filter(q: float, key: str, higher: bool = True):
    """Among settings whose stability is at least the q-quantile of the kept ones,
    the best by ``key``."""
    def pick(S: list[dict[str, Any]]) -> int:
        st = np.array([s["stability"] for s in S])
        thr = np.quantile(st, q)
        near = [i for i in range(len(S)) if st[i] >= thr]
        return max(near, key=lambda i: S[i][key] if higher else -S[i][key])
    return pick


def rule_default(default_params: str):
    def pick(S: list[dict[str, Any]]) -> int:
        return -1  # sentinel: the default fit
    return pick


RULES = {
    "stab+ch tol.05 (current)": rule_stab_tie(0.05),
    "stab+ch tol0": rule_stab_tie(0.0),
    "stab+ch tol.02": rule_stab_tie(0.02),
    "stab+ch tol.10": rule_stab_tie(0.10),
    "stab+ch tol.20": rule_stab_tie(0.20),
    "stab+ch 1se": rule_stab_se(1.0),
    "stab+ch 2se": rule_stab_se(2.0),
    "stab+sil tol.05": rule_stab_tie(0.05, "silhouette"),
    "stab+sil tol.10": rule_stab_tie(0.10, "silhouette"),
    "ch": rule_single("ch"),
    "silhouette": rule_single("silhouette"),
    "boundary density": rule_single("boundary_density", higher=False),
    "mean margin": rule_single("mean_margin"),
    "stab+bd tol.05": rule_stab_tie(0.05, "mean_margin"),
    "borda stab,ch,sil": rule_borda((("stability", True), ("ch", True), ("silhouette", True))),
    "borda stab,ch": rule_borda((("stability", True), ("ch", True))),
    "borda ch,sil": rule_borda((("ch", True), ("silhouette", True))),
    "borda stab,ch,sil,bd": rule_borda((("stability", True), ("ch", True),
                                        ("silhouette", True), ("boundary_density", False))),
    "top-half stab, then ch": rule_stable_filter(0.5, "ch"),
    "top-half stab, then sil": rule_stable_filter(0.5, "silhouette"),
}


def evaluate(rows: list[dict[str, Any]], rule) -> dict[tuple[str, str], float]:
    """Mean CA over seeds per (method, set) of ``rule``'s pick (all collapsed: the default)."""
    acc: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        S = [s for s in r["settings"] if _ok(s) and np.isfinite(s.get("ca", np.nan))
             and not s.get("refit_degenerate")]
        if not S:
            ca = r["default"]
        else:
            ca = S[rule(S)]["ca"]
        acc.setdefault((r["method"], r["dataset"]), []).append(ca)
    return {k: float(np.mean(v)) for k, v in acc.items()}


def rules(args: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    for pattern in args.files:
        for f in sorted(glob.glob(pattern)):
            with open(f, encoding="utf-8") as fh:
                rows += json.load(fh)
    methods = list(dict.fromkeys(r["method"] for r in rows))
    sets = list(dict.fromkeys(r["dataset"] for r in rows))
    km: dict[tuple[str, str], list[float]] = {}
    orc: dict[tuple[str, str], list[float]] = {}
    med: dict[tuple[str, str], list[float]] = {}
    dfl: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        key = (r["method"], r["dataset"])
        km.setdefault(key, []).append(r["kmeans"])
        dfl.setdefault(key, []).append(r["default"])
        cas = [s["ca"] for s in r["settings"] if np.isfinite(s.get("ca", np.nan))]
        good = [s["ca"] for s in r["settings"] if _ok(s) and not s.get("refit_degenerate")]
        orc.setdefault(key, []).append(max(cas) if cas else np.nan)
        med.setdefault(key, []).append(float(np.median(good)) if good else r["default"])
    mean = {k: float(np.mean(v)) for k, v in km.items()}
    oracle = {k: float(np.mean(v)) for k, v in orc.items()}
    results = {name: evaluate(rows, rule) for name, rule in RULES.items()}
    results["default"] = {k: float(np.mean(v)) for k, v in dfl.items()}
    results["median setting"] = {k: float(np.mean(v)) for k, v in med.items()}

    def summary(res: dict[tuple[str, str], float], method: str) -> str:
        keys = [(method, s) for s in sets if (method, s) in res]
        ca = np.mean([res[k] for k in keys])
        w = sum(res[k] > mean[k] + 0.005 for k in keys)
        lo = sum(res[k] < mean[k] - 0.005 for k in keys)
        ratio = np.mean([res[k] / oracle[k] for k in keys])
        return f"{ca:.3f} {w}/{lo} {ratio:.3f}"

    print(f"rows {len(rows)}; sets {sets}")
    print("| rule | " + " | ".join(methods) + " | mean over methods |")
    print("|---|" + "---|" * (len(methods) + 1))
    print("| KMeans | " + " | ".join(
        f"{np.mean([mean[(m, s)] for s in sets if (m, s) in mean]):.3f}" for m in methods)
        + " | |")
    print("| label-tuned best | " + " | ".join(
        f"{np.mean([oracle[(m, s)] for s in sets if (m, s) in oracle]):.3f}" for m in methods)
        + " | |")
    for name, res in results.items():
        allm = np.mean([np.mean([res[(m, s)] - mean[(m, s)] for s in sets if (m, s) in res])
                        for m in methods])
        print(f"| {name} | " + " | ".join(summary(res, m) for m in methods)
              + f" | {allm:+.4f} vs KM |")
    print("\ncell = mean CA, wins/losses vs KMeans (0.005), mean ratio to label-tuned best")
    # leave one data set out: the rule chosen on the other sets (mean CA - KMeans over
    # methods and sets), applied to the held-out set
    cand = [n for n in results if n not in ("median setting",)]
    print("\nLeave-one-data-set-out (rule chosen on the other sets, applied to the held-out):")
    print("| held out | chosen rule | " + " | ".join(methods) + " | current rule |")
    print("|---|---|" + "---|" * (len(methods) + 1))
    lodo: dict[tuple[str, str], float] = {}
    for held in sets:
        def gain(name: str, held: str = held) -> float:
            res = results[name]
            return float(np.mean([res[(m, s)] - mean[(m, s)] for m in methods for s in sets
                                  if s != held and (m, s) in res]))
        best = max(cand, key=gain)
        for m in methods:
            if (m, held) in results[best]:
                lodo[(m, held)] = results[best][(m, held)]
        cur = results["stab+ch tol.05 (current)"]
        print(f"| {held} | {best} | " + " | ".join(
            f"{results[best].get((m, held), np.nan):.3f} (KM {mean.get((m, held), np.nan):.3f})"
            for m in methods) + " | " + ", ".join(f"{cur.get((m, held), np.nan):.3f}"
                                                  for m in methods) + " |")
    print("| LODO summary | | " + " | ".join(summary(lodo, m) for m in methods) + " | |")
    if args.per_set:
        for name in args.per_set.split(";"):
            res = results[name]
            print(f"\n{name}: per set")
            for m in methods:
                print(f"  {m}: " + " ".join(
                    f"{s}={res.get((m, s), np.nan):.3f}/{mean.get((m, s), np.nan):.3f}/"
                    f"{oracle.get((m, s), np.nan):.3f}" for s in sets))


def table(args: argparse.Namespace) -> None:
    """bench_label_free.py's tables from collected rows (the search column is the
    StabilitySearch default the collection ran; oracle/median over the refits)."""
    from bench_label_free import print_tables

    rows: list[dict[str, Any]] = []
    for pattern in args.files:
        for f in sorted(glob.glob(pattern)):
            with open(f, encoding="utf-8") as fh:
                rows += json.load(fh)
    out = []
    for r in rows:
        cas = [s["ca"] for s in r["settings"] if np.isfinite(s.get("ca", np.nan))]
        good = [s["ca"] for s in r["settings"] if _ok(s) and not s.get("refit_degenerate")]
        n_bad = sum(bool(s["degenerate"]) for s in r["settings"])
        out.append({"method": r["method"], "dataset": r["dataset"], "seed": r["seed"],
                    "default": r["default"], "kmeans": r["kmeans"],
                    "search": np.nan if r["search"] is None else r["search"],
                    "median": float(np.median(good)) if good else np.nan,
                    "oracle": max(cas) if cas else np.nan, "grid": "estimator",
                    "collapsed": f"{n_bad}/{len(r['settings'])}", "t_default": np.nan,
                    "t_search": r["t_search"],
                    "pick": "all collapsed" if r["search"] is None else r["pick"]})
    print_tables(out, list(dict.fromkeys(r["method"] for r in out)),
                 list(dict.fromkeys(r["dataset"] for r in out)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--methods", required=True)
    c.add_argument("--datasets", default=None)
    c.add_argument("--seeds", default="0,1")
    c.add_argument("--n-pairs", type=int, default=3)
    c.add_argument("--max-rows", type=int, default=500)
    c.add_argument("--out", required=True)
    r = sub.add_parser("rules")
    r.add_argument("files", nargs="+")
    r.add_argument("--per-set", default=None)
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    args = p.parse_args(argv)
    {"collect": collect, "rules": rules, "table": table}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Every clusterer of the library, MaxMarginClustering and the peers on clustering batteries.

Gagolewski's benchmark framework (``benchmarks/_battery.py``): for each data set of
a battery with at most ``--max-samples`` points, each method is fitted once per
distinct K of the set's reference partitions (K given, label-free otherwise) on the
framework's "original" preprocessing (zero-variance columns dropped, centred, all
of X divided by its overall standard deviation); each reference scores its K's
partition on its non-noise points by the normalised clustering accuracy (NCA) and
the adjusted Rand index (ARI), and a data set's score is the best over its
references. ``--uci`` runs the same on the shared UCI-like sets instead (K = number
of classes; features standardised per column, since they come in different
units; rows without a label dropped, missing cells imputed by the loader).
``--side-by-side`` runs both, the battery and the UCI-like sets, each with its own
preprocessing, and writes one table of both (below).

Methods (``--methods``, comma-separated; default: all available):

- every clusterer registered in ``marginclust`` at its defaults, built as
  ``Cls(n_clusters=K, random_state=seed)`` (whatever the defaults are on the
  branch that runs this; a binary-only method fails on K > 2, counted below);
- ``StabilitySearch(SLMC)``: :class:`marginclust.model_selection.StabilitySearch`
  over SLMC's own label-free grid (the library's label-free parameter search),
  searching on 500 rows and refitting the pick on all;
- the peers: scikit-learn ``KMeans``, ``GaussianMixture`` (its defaults: full
  covariance matrices), ``GaussianMixture(diag)`` (``covariance_type="diag"``,
  otherwise the same), ``SpectralClustering``, ``AgglomerativeClustering`` at their
  defaults with K, ``HDBSCAN`` (rule below), and genieclust's ``Genie`` (gini
  threshold 0.3, its default; benchmark-only, AGPL: installed by the ``peers`` extra,
  skipped when absent).

HDBSCAN does not take K. Rule: ``min_cluster_size`` runs over 5, 10, 20, ... (doubling,
up to n / K); the first value that yields exactly K clusters is kept and its noise
points join the cluster of their nearest clustered point. If none yields K clusters,
the fit counts as failed.

Measures per method: mean NCA and ARI per battery and overall (a failed fit -- an
exception, a binary-only method asked for K > 2, HDBSCAN without K clusters -- scores
0), its mean rank over the data sets (1 = best NCA; ties share their mean rank),
win/tie/loss against each peer (a difference in NCA above 0.01 counts), collapsed
fits (fewer non-empty clusters than K, or a cluster under 1% of n where the
reference has none that small) and seconds of fitting.

``--side-by-side`` (methods by default: every registered clusterer at its defaults,
``GaussianMixture``, ``GaussianMixture(diag)``, ``KMeans`` and ``Genie``) reports
per method the mean NCA on the battery, on the UCI-like sets and on both (the
mean over all their data sets), and win/tie/loss on each collection against
``GaussianMixture`` and against the best single library method (the one other
than MaxMarginClustering with the highest mean NCA on the UCI-like sets), then
the UCI-like sets one by one, marking those where MaxMarginClustering scores
more than 0.05 below ``GaussianMixture``.

Every (method, data set, K) fit is cached on disk (``--cache``; the key holds the
method's parameters, and the hash of the library's source files for the library's
methods or the peer package's version), so reruns are cheap and an interrupted run
resumes. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 5 python benchmarks/bench_battery.py
    python benchmarks/bench_battery.py --methods MaxMarginClustering,Genie,GaussianMixture,KMeans \\
        --root /work/clustering-data-v1 --batteries sipu,uci,other --out results/heldout.md
    python benchmarks/bench_battery.py --uci --out benchmarks/results/battery-uci.md
    python benchmarks/bench_battery.py --side-by-side --out benchmarks/results/side-by-side.md
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import platform
import re
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import BatterySet, battery_root, list_sets, load_set, preprocess  # noqa: E402

from marginclust.metrics import (  # noqa: E402
    adjusted_rand_index,
    normalized_clustering_accuracy,
)

PEERS = ("KMeans", "GaussianMixture", "GaussianMixture(diag)", "SpectralClustering",
         "AgglomerativeClustering", "HDBSCAN", "Genie")
# --side-by-side: the peers beside the library's clusterers, and the one they are judged by
SIDE_PEERS = ("GaussianMixture", "GaussianMixture(diag)", "KMeans", "Genie")
REFERENCE = "MaxMarginClustering"
LOSS = 0.05  # --side-by-side marks UCI-like sets where REFERENCE trails GaussianMixture by more
SEED = 0
TIE = 0.01  # NCA differences up to this count as ties
# StabilitySearch fits 6 SLMC per grid setting (9 settings): on 500 search rows, as
# benchmarks/bench_label_free.py runs it (all rows took over 10 minutes per fit at n = 2000)
_SEARCH_ROWS = 500


class Failed(Exception):
    """A method that cannot produce K clusters on this data by its documented rule."""


@dataclass(frozen=True)
class Method:
    """A method of the benchmark: its name, group, fit function and cache identity."""

    name: str
    group: str  # "library", "search" or "peer"
    fit: Callable[[np.ndarray, int, int], np.ndarray]
    identity: str  # parameters and code version: part of the cache key


# ------------------------------------------------------------------ methods
def _source_hash() -> str:
    """Hash of the library's source files: a code change invalidates its cached fits."""
    import marginclust

    h = hashlib.sha256()
    for path in sorted(Path(marginclust.__file__).parent.rglob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _library_methods(code: str | None = None) -> list[Method]:
    import marginclust
    from marginclust._registry import clusterer_names

    code = code or _source_hash()
    out = []
    for name in clusterer_names():
        cls = getattr(marginclust, name)

        def fit(X: np.ndarray, k: int, seed: int, cls: Any = cls) -> np.ndarray:
            kw = {"n_clusters": k}
            if "random_state" in cls().get_params():
                kw["random_state"] = seed
            return np.asarray(cls(**kw).fit(X).labels_)

        defaults = json.dumps(cls().get_params(), default=repr, sort_keys=True)
        out.append(Method(name, "library", fit, f"{defaults} {code}"))

    def search(X: np.ndarray, k: int, seed: int) -> np.ndarray:
        from marginclust import SLMC
        from marginclust.model_selection import StabilitySearch

        search = StabilitySearch(SLMC(n_clusters=k), subsample=_SEARCH_ROWS, random_state=seed)
        return np.asarray(search.fit(X).labels_)

    out.append(Method("StabilitySearch(SLMC)", "search", search,
                      f"subsample={_SEARCH_ROWS} {code}"))
    return out


def _hdbscan(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import HDBSCAN
    from sklearn.neighbors import NearestNeighbors

    size = 5
    while size <= max(5, X.shape[0] // k):
        labels = HDBSCAN(min_cluster_size=size, copy=True).fit_predict(X)
        if labels.max() + 1 == k:
            noise = labels < 0
            if noise.any():
                nn = NearestNeighbors(n_neighbors=1).fit(X[~noise])
                labels[noise] = labels[~noise][nn.kneighbors(X[noise])[1][:, 0]]
            return labels
        size *= 2
    raise Failed("no min_cluster_size gives K clusters")


def _peer_methods() -> list[Method]:
    import sklearn
    from sklearn.cluster import AgglomerativeClustering, KMeans, SpectralClustering
    from sklearn.mixture import GaussianMixture

    v = f"scikit-learn {sklearn.__version__}"
    out = [
        Method("KMeans", "peer", lambda X, k, s: KMeans(k, random_state=s).fit(X).labels_,
               f"defaults {v}"),
        # "GaussianMixture" (full covariances) keeps its name: the name is part of the
        # cache key, and renaming it would refit every cached fit
        Method("GaussianMixture", "peer",
               lambda X, k, s: GaussianMixture(k, random_state=s).fit(X).predict(X),
               f"defaults {v}"),
        Method("GaussianMixture(diag)", "peer",
               lambda X, k, s: GaussianMixture(k, covariance_type="diag", random_state=s)
               .fit(X).predict(X),
               f"covariance_type=diag {v}"),
        Method("SpectralClustering", "peer",
               lambda X, k, s: SpectralClustering(k, random_state=s).fit(X).labels_,
               f"defaults {v}"),
        Method("AgglomerativeClustering", "peer",
               lambda X, k, s: AgglomerativeClustering(k).fit(X).labels_, f"defaults {v}"),
        Method("HDBSCAN", "peer", _hdbscan, f"rule doubling min_cluster_size {v}"),
    ]
    try:
        import genieclust
    except ImportError:
        print("genieclust is not installed (pip install -e '.[peers]'): Genie skipped",
              file=sys.stderr)
    else:
        out.append(Method(
            "Genie", "peer",
            lambda X, k, s: genieclust.Genie(n_clusters=k, gini_threshold=0.3).fit_predict(X),
            f"gini 0.3 genieclust {genieclust.__version__}",
        ))
    return out


def all_methods(code: str | None = None) -> dict[str, Method]:
    """Every available method by name, library first (``code``: the library's cache key)."""
    return {m.name: m for m in [*_library_methods(code), *_peer_methods()]}


# --------------------------------------------------------------------- data
def _uci_sets(max_samples: int | None) -> list[BatterySet]:
    """The shared UCI-like sets with at most ``max_samples`` rows, as one-reference sets.

    They are read from ``$MARGINCLUST_DATA``, else from ``../shared/datasets`` beside
    the repository; K is the number of classes.
    """
    from marginclust.datasets import list_datasets, load_dataset

    home = os.environ.get("MARGINCLUST_DATA") or str(HERE.parents[1] / "shared" / "datasets")
    out = []
    for info in list_datasets(home):
        if info["where"] in ("sklearn", "synthetic"):
            continue
        if max_samples is not None and info["n_samples"] > max_samples:
            continue
        X, y = load_dataset(info["name"], data_home=home)
        out.append(BatterySet("uci-shared", info["name"], X, (np.asarray(y) + 1,)))
    return out


def _select(keys: list[str], patterns: list[str] | None) -> list[str]:
    if not patterns:
        return keys
    return [k for k in keys if any(fnmatch.fnmatch(k, p) for p in patterns)]


# -------------------------------------------------------------------- fits
def _cache_path(cache: Path, method: Method, key: str, k: int, seed: int) -> Path:
    ident = hashlib.sha256(f"{method.name}|{method.identity}".encode()).hexdigest()[:16]
    safe = key.replace("/", "__")
    return cache / f"{method.name}-{ident}" / f"{safe}__K{k}__s{seed}.npz"


def cached_fit(method: Method, key: str, X: np.ndarray, k: int, seed: int,
               cache: Path) -> tuple[np.ndarray | None, float, str]:
    """Labels (None if failed), seconds and error message of one fit, from cache if there."""
    path = _cache_path(cache, method, key, k, seed)
    if path.is_file():
        with np.load(path, allow_pickle=False) as f:
            labels = f["labels"] if f["ok"] else None
            return labels, float(f["seconds"]), str(f["error"])
    from threadpoolctl import threadpool_limits

    labels, error = None, ""
    start = time.perf_counter()
    try:
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            labels = np.asarray(method.fit(X, k, seed)).astype(np.int64).ravel()
        if labels.shape != (X.shape[0],):
            raise Failed(f"{labels.shape} labels for {X.shape[0]} points")
    except Exception as exc:  # noqa: BLE001 - a failure is a result
        labels, error = None, f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    seconds = time.perf_counter() - start
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, labels=labels if labels is not None else np.zeros(0, np.int64),
             ok=labels is not None, seconds=seconds, error=error)
    os.replace(tmp, path)
    return labels, seconds, error


@dataclass
class Cell:
    """One method on one data set: best scores over the references, and fit facts."""

    nca: float = 0.0
    ari: float = 0.0
    seconds: float = 0.0
    fits: int = 0
    failed: int = 0
    collapsed: int = 0
    errors: tuple[str, ...] = ()


def _collapsed(labels: np.ndarray, ref: np.ndarray, k: int) -> bool:
    sizes = np.bincount(labels - labels.min(), minlength=k)
    found = int(np.count_nonzero(sizes))
    if found < k:
        return True
    n = labels.size
    ref_sizes = np.bincount(ref[ref > 0])[1:]
    smallest_ref = int(ref_sizes[ref_sizes > 0].min()) if ref_sizes.size else n
    return bool(sizes.min() < 0.01 * n <= smallest_ref)


def score_set(ds: BatterySet, X: np.ndarray, method: Method, cache: Path) -> Cell:
    """Fit ``method`` once per K of ``ds`` and score every reference; the best counts."""
    cell = Cell(nca=-np.inf, ari=-np.inf)
    errors = []
    by_k: dict[int, np.ndarray | None] = {}
    for ref in ds.references:
        k = int(ref.max())
        if k not in by_k:
            labels, seconds, error = cached_fit(method, ds.key, X, k, SEED, cache)
            by_k[k] = labels
            cell.fits += 1
            cell.seconds += seconds
            if labels is None:
                cell.failed += 1
                errors.append(f"K={k}: {error}")
            elif _collapsed(labels, ref, k):
                cell.collapsed += 1
        labels = by_k[k]
        keep = ref > 0
        if labels is None:
            nca = ari = 0.0
        else:
            nca = normalized_clustering_accuracy(ref[keep], labels[keep])
            ari = adjusted_rand_index(ref[keep], labels[keep])
        cell.nca, cell.ari = max(cell.nca, nca), max(cell.ari, ari)
    cell.errors = tuple(errors)
    return cell


# ----------------------------------------------------------------- report
def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def _ranks(table: dict[str, dict[str, Cell]], methods: list[str],
           keys: list[str]) -> dict[str, float]:
    from scipy.stats import rankdata

    per = {m: [] for m in methods}
    for key in keys:
        ranks = rankdata([-table[m][key].nca for m in methods])  # ties: mean rank
        for m, r in zip(methods, ranks):
            per[m].append(float(r))
    return {m: _mean(v) for m, v in per.items()}


def _wtl(table: dict[str, dict[str, Cell]], m: str, p: str, keys: list[str]) -> str:
    """Win/tie/loss of ``m`` against ``p`` in NCA over ``keys``: ``"W/T/L"``."""
    d = [table[m][k].nca - table[p][k].nca for k in keys]
    w = sum(x > TIE for x in d)
    t = sum(abs(x) <= TIE for x in d)
    return f"{w}/{t}/{len(d) - w - t}"


def report(table: dict[str, dict[str, Cell]], methods: list[str], keys: list[str],
           skipped: list[tuple[str, str]], header: str) -> str:
    """The markdown report: summary per method, W/T/L against the peers, per-set NCA."""
    batteries = sorted({k.split("/")[0] for k in keys})
    ranks = _ranks(table, methods, keys)
    lines = [header, ""]
    cols = " | ".join(f"{b} ({sum(k.startswith(b + '/') for k in keys)})" for b in batteries)
    lines += [
        f"## Mean NCA / ARI per battery and overall ({len(keys)} data sets)",
        "",
        f"| method | {cols} | all NCA | all ARI | mean rank | collapsed fits | failed fits "
        "| seconds (sum) |",
        "|---|" + "---|" * (len(batteries) + 6),
    ]
    order = sorted(methods, key=lambda m: -_mean([table[m][k].nca for k in keys]))
    for m in order:
        cells = [table[m][k] for k in keys]
        per_b = " | ".join(
            f"{_mean([table[m][k].nca for k in keys if k.startswith(b + '/')]):.3f} / "
            f"{_mean([table[m][k].ari for k in keys if k.startswith(b + '/')]):.3f}"
            for b in batteries)
        fits = sum(c.fits for c in cells)
        lines.append(
            f"| {m} | {per_b} | {_mean([c.nca for c in cells]):.3f} | "
            f"{_mean([c.ari for c in cells]):.3f} | {ranks[m]:.2f} | "
            f"{sum(c.collapsed for c in cells)}/{fits} | {sum(c.failed for c in cells)}/{fits} | "
            f"{sum(c.seconds for c in cells):.1f} |")
    peers = [p for p in PEERS if p in methods]
    if peers:
        lines += ["", f"## Win / tie / loss in NCA against each peer (tie: |difference| <= "
                      f"{TIE})", "",
                  "| method | " + " | ".join(peers) + " |",
                  "|---|" + "---|" * len(peers)]
        for m in order:
            lines.append(f"| {m} | " + " | ".join(_wtl(table, m, p, keys) for p in peers)
                         + " |")
    lines += ["", "## NCA per data set", "",
              "| data set | " + " | ".join(order) + " |", "|---|" + "---|" * len(order)]
    for k in keys:
        best = max(table[m][k].nca for m in order)
        lines.append(f"| {k} | " + " | ".join(
            (f"**{table[m][k].nca:.2f}**" if table[m][k].nca == best else
             f"{table[m][k].nca:.2f}") for m in order) + " |")
    errors = [f"- {m} on {k}: {e}" for m in order for k in keys for e in table[m][k].errors]
    if errors:
        lines += ["", "## Failed fits", "", *errors]
    if skipped:
        lines += ["", "## Data sets left out", "", *[f"- {k}: {why}" for k, why in skipped]]
    return "\n".join(lines) + "\n"


def side_by_side_report(table: dict[str, dict[str, Cell]], methods: list[str],
                        battery: list[str], uci: list[str], library: list[str],
                        header: str) -> str:
    """The ``--side-by-side`` report: both collections per method, then the UCI-like sets.

    ``table`` holds the cells of both collections (their keys differ); ``library``
    names the library's methods, among which the best single one is picked.
    """
    def mean(m: str, keys: list[str]) -> float:
        return _mean([table[m][k].nca for k in keys])

    gm = "GaussianMixture"
    rivals = [m for m in methods if m in library and m != REFERENCE]
    best = max(rivals, key=lambda m: mean(m, uci)) if rivals else REFERENCE
    both = battery + uci
    order = sorted(methods, key=lambda m: -mean(m, both))
    lines = [
        header, "",
        f"Best single library method: **{best}** (the library's method other than "
        f"{REFERENCE} with the highest mean NCA on the UCI-like sets). Win / tie / loss "
        f"counts data sets by NCA (tie: |difference| <= {TIE}); 'both' is the mean over all "
        f"{len(both)} data sets. `{gm}` fits full covariance matrices (scikit-learn's "
        f"default), `{gm}(diag)` diagonal ones.", "",
        f"## Mean NCA and win / tie / loss ({len(battery)} battery sets, {len(uci)} "
        "UCI-like sets)", "",
        f"| method | battery NCA ({len(battery)}) | UCI NCA ({len(uci)}) | both ({len(both)}) "
        f"| W/T/L vs {gm} (full) on UCI | W/T/L vs {gm} (full) on battery "
        f"| W/T/L vs {best} on UCI "
        f"| W/T/L vs {best} on battery | failed fits |",
        "|---|" + "---|" * 8,
    ]
    for m in order:
        cells = [table[m][k] for k in both]
        lines.append(
            f"| {m} | {mean(m, battery):.3f} | {mean(m, uci):.3f} | {mean(m, both):.3f} | "
            f"{_wtl(table, m, gm, uci)} | {_wtl(table, m, gm, battery)} | "
            f"{_wtl(table, m, best, uci)} | {_wtl(table, m, best, battery)} | "
            f"{sum(c.failed for c in cells)}/{sum(c.fits for c in cells)} |")
    shown = [m for m in dict.fromkeys([REFERENCE, best, *SIDE_PEERS]) if m in methods]
    lines += [
        "", f"## NCA per UCI-like set ({REFERENCE} more than {LOSS} below {gm} (full): "
        "**bold**)",
        "", "| data set | " + " | ".join(shown) + f" | {REFERENCE} - {gm} |",
        "|---|" + "---|" * (len(shown) + 1),
    ]
    losses = []
    for k in uci:
        d = table[REFERENCE][k].nca - table[gm][k].nca
        mark = "**" if d < -LOSS else ""
        if mark:
            losses.append(f"- {k}: {table[REFERENCE][k].nca:.3f} against "
                          f"{table[gm][k].nca:.3f}")
        lines.append(f"| {mark}{k}{mark} | " + " | ".join(
            f"{table[m][k].nca:.3f}" for m in shown) + f" | {mark}{d:+.3f}{mark} |")
    lines += ["", f"UCI-like sets where {REFERENCE} scores more than {LOSS} below {gm} (full): "
              f"{len(losses)}", "", *losses]
    failed = []
    for m in order:
        # one line per kind of failure: K's value taken out of the message
        errors = sorted({re.sub(r"n_clusters=\d+", "n_clusters=K", e.split(": ", 1)[-1])
                         for k in both for e in table[m][k].errors})
        n = sum(len(table[m][k].errors) for k in both)
        if n:
            failed.append(f"- {m}: {n} fits ({'; '.join(errors)[:300]})")
    if failed:
        lines += ["", "## Failed fits (scored 0; binary-only methods fail on K > 2)", "",
                  *failed]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------- main
def _collect(args: argparse.Namespace, uci: bool, names: list[str],
             available: dict[str, Method], skipped: list[tuple[str, str]],
             ) -> tuple[dict[str, dict[str, Cell]], list[str], str]:
    """Score ``names`` on the UCI-like sets or the battery: cells, data sets, preprocessing."""
    if uci:
        sets = {ds.key: ds for ds in _uci_sets(args.max_samples)}
        keys = _select(sorted(sets), args.sets.split(",") if args.sets else None)
        how = "standardise"
    else:
        root = battery_root(args.root)
        batteries = (tuple(args.batteries.split(",")) if args.batteries else
                     tuple(sorted(p.name for p in root.iterdir()
                                  if p.is_dir() and any(p.glob("*.data.gz")))))
        keys = _select(list_sets(batteries, max_samples=args.max_samples, root=root,
                                 skipped=skipped), args.sets.split(",") if args.sets else None)
        sets, how = {}, "original"
    cache = Path(args.cache)
    table: dict[str, dict[str, Cell]] = {m: {} for m in names}
    kept = []
    for key in keys:
        try:
            ds = sets[key] if key in sets else load_set(key, root=args.root)
        except (OSError, EOFError, ValueError) as exc:
            skipped.append((key, f"unreadable: {exc}"))
            continue
        X = preprocess(ds.X, how)
        for m in names:
            try:
                table[m][key] = score_set(ds, X, available[m], cache)
            except Exception:  # noqa: BLE001 - never lose the run to one cell
                traceback.print_exc()
                table[m][key] = Cell(errors=("scoring failed",))
        kept.append(key)
        print(f"{key:32s} " + " ".join(f"{m[:12]}={table[m][key].nca:.2f}" for m in names),
              flush=True)
    return table, kept, how


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default=None,
                    help="comma-separated method names (default: all available)")
    ap.add_argument("--sets", default=None,
                    help="comma-separated data set keys or patterns, e.g. 'fcps/*,wut/x1'")
    ap.add_argument("--root", default=None,
                    help="folder of battery folders (default: $MARGINCLUST_BATTERY or "
                         "../shared/battery)")
    ap.add_argument("--batteries", default=None,
                    help="comma-separated batteries (default: every folder of the root)")
    ap.add_argument("--max-samples", type=int, default=3000,
                    help="leave out data sets with more points (default 3000)")
    ap.add_argument("--uci", action="store_true",
                    help="the shared UCI-like sets ($MARGINCLUST_DATA) instead of a battery")
    ap.add_argument("--side-by-side", action="store_true",
                    help="the battery and the UCI-like sets in one report (default methods: "
                         "the library's clusterers and " + ", ".join(SIDE_PEERS) + ")")
    ap.add_argument("--cache", default=str(HERE.parent / "bench-results" / "battery-cache"),
                    help="folder of cached fits")
    ap.add_argument("--out", default=None, help="write the markdown report here")
    ap.add_argument("--code-key", default=None,
                    help="cache key of the library's code (default: a hash of its source "
                         "files, so that any change refits the library's methods)")
    args = ap.parse_args(argv)

    if args.side_by_side and args.uci:
        ap.error("--side-by-side runs the UCI-like sets already: leave out --uci")
    available = all_methods(args.code_key)
    if args.methods is not None:
        names = [m.strip() for m in args.methods.split(",") if m.strip()]
    elif args.side_by_side:
        names = [m for m, meth in available.items() if meth.group == "library"
                 or m in SIDE_PEERS]
    else:
        names = list(available)
    unknown = [m for m in names if m not in available]
    if unknown:
        ap.error(f"unknown methods {unknown}; available: {sorted(available)}")
    if args.side_by_side and not {REFERENCE, "GaussianMixture"} <= set(names):
        ap.error(f"--side-by-side compares {REFERENCE} and GaussianMixture: name both")
    skipped: list[tuple[str, str]] = []
    t0 = time.perf_counter()
    run = (f"Generated by `python benchmarks/bench_battery.py "
           f"{' '.join(argv if argv is not None else sys.argv[1:])}` on "
           f"{time.strftime('%Y-%m-%d')}")

    def facts() -> str:
        return (f" ({platform.machine()}, {os.cpu_count()} cores, load average "
                f"{' / '.join(f'{v:.1f}' for v in os.getloadavg())} at the end; 1 BLAS thread "
                f"per fit; {time.perf_counter() - t0:.0f} s of wall time in this run, cached "
                f"fits taking none). Data sets with at most {args.max_samples} points; seed "
                f"{SEED}; the data set's score is the best over its reference partitions. A "
                "failed fit scores 0.")

    if args.side_by_side:
        table, battery, _ = _collect(args, False, names, available, skipped)
        uci_table, uci, _ = _collect(args, True, names, available, skipped)
        for m in names:
            table[m].update(uci_table[m])
        header = (f"# Side by side: battery root {battery_root(args.root)} and the shared "
                  f"UCI-like sets\n\n{run}{facts()} Preprocessing 'original' on the battery, "
                  "'standardise' (per column) on the UCI-like sets.")
        library = [m for m in names if available[m].group == "library"]
        text = side_by_side_report(table, names, battery, uci, library, header)
        if skipped:
            text += "\n## Data sets left out\n\n" + "".join(
                f"- {k}: {why}\n" for k, why in skipped)
    else:
        table, kept, how = _collect(args, args.uci, names, available, skipped)
        where = ("shared UCI-like sets" if args.uci else
                 f"battery root {battery_root(args.root)}")
        header = (f"# Clustering battery: {where}\n\n{run}{facts()} Preprocessing '{how}'.")
        text = report(table, names, kept, skipped, header)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

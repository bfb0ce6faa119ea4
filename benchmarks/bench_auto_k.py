"""How many clusters, label-free: ``MaxMarginClustering(n_clusters="auto")`` beside the usual rules.

Every method chooses K without labels; the labels only score. A fit is *right*
when its K is the K of one of the case's reference partitions (one cluster for
data without clusters); ARI is that of the chosen partition against the best
reference (noise points, label 0 in the battery, left out; HDBSCAN's own noise
is one more cluster). Methods:

- ``mmc``: ``MaxMarginClustering(n_clusters="auto")`` at its defaults.
- ``gmm-bic``: ``GaussianMixture`` (full covariances, 3 starts) with the lowest
  BIC over K = 1 .. 10.
- ``silhouette``: ``KMeans`` (10 starts) with the largest silhouette over
  K = 2 .. 10 (silhouette on at most 3,000 rows); it cannot answer one cluster.
- ``gap``: the gap statistic with ``KMeans`` (Tibshirani, Walther & Hastie 2001;
  10 uniform references over the principal-axes box, the smallest K with
  ``Gap(K) >= Gap(K+1) - s(K+1)``, K = 1 .. 10), on at most 3,000 rows.
- ``hdbscan``: scikit-learn's ``HDBSCAN`` at its defaults (it takes no K).
- ``mmc-given``: ``MaxMarginClustering`` with the reference K (2 on data without
  clusters); right when it warns that no partition is clearly separated exactly on
  data without clusters (not run by default).

Genie (genieclust) has no rule of its own for K and is not listed.

Suites:

- ``battery``: the shared battery (``../shared/battery``, or ``--root`` /
  ``MARGINCLUST_BATTERY`` and ``--batteries`` for other batteries of the suite),
  sets with at most ``--max-samples`` rows, the framework's "original"
  preprocessing.
- ``blobs``: ``make_blobs`` with every pair of centres at least 4 standard
  deviations apart (centres drawn uniformly in scikit-learn's box ``[-10, 10]^d``
  until they are), K in {2, 3, 5, 8, 12}, d in {2, 5, 10, 20}, n cycling over
  300, 2,000 and 20,000 with the seed, 10 seeds.
- ``default``: ``make_blobs(1000, 2, centers=c, random_state=s)``, scikit-learn's
  default spread (nearest centres often 3-5 sd apart), c in {3, 5, 8}, s = 0..9.
- ``null``: no clusters: uniform on the unit cube and a standard Gaussian,
  d in {1, 2, 5, 10, 20, 50}, n in {200, 1,000, 5,000}, 10 draws each.
- ``curves``: no clusters either, but shapes of the battery's kind: a ring of
  radius 1 in 2-D and a tube ring in 3-D (as each ring of FCPS's chainlink:
  radial sd .065, off-plane sd .041), half of the 2-D ring and a straight
  stretch of length 2 pi (sd .065 across), angles or positions uniform,
  n in {200, 1,000, 5,000}, 10 draws each.
- ``small``: a few points, where a search for up to 10 clusters can cut the data
  into clusters of a handful: no clusters (uniform on the unit cube and a standard
  Gaussian, d in {1, 2, 5}, n in {20, 30, 60, 100}) and ``make_blobs`` with
  every pair of centres at least 8 standard deviations apart (K in {2, 3, 5}, d in
  {2, 5}, n in {30, 60, 100}), 10 draws each.
- ``dup``: the ``default`` suite with every row repeated 2, 3 and 5 times:
  ``mmc`` only, and a fit is right when its K and labels equal those of the rows
  given once.

``--cost ROWS`` times ``"auto"`` (at the default ``max_clusters="auto"`` and at the
former bound 10) against a fit with K given on ``ROWS x 10`` blobs (K = 3, 8 and 12,
seeds interleaved, CPU seconds, median). ``--min-rows N`` runs only the cases of at
least N rows (e.g. those past ``max_samples``, where a change of the sampled path shows).

Each fit is one JSON line in ``--cache`` keyed by (code key, suite, case,
method), so a rerun resumes; ``--summary`` prints the tables from the cache.
The peers do not depend on the library: their key is ``peers``.
Run with one BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_auto_k.py \\
        --suites battery,default,null,curves,small,blobs,dup \\
        --code-key $(git rev-parse --short HEAD)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _battery import list_sets, load_set, preprocess  # noqa: E402

METHODS = ("mmc", "gmm-bic", "silhouette", "gap", "hdbscan", "mmc-given")
SUITES = ("battery", "default", "null", "curves", "small", "blobs", "dup")
K_MAX = 10
_SAMPLE = 3000


# ------------------------------------------------------------------ cases
class Case:
    """One data set: points, the K that count as right, and labels to score against."""

    def __init__(self, suite: str, name: str, X: np.ndarray, refs: list[np.ndarray]) -> None:
        self.suite, self.name, self.X, self.refs = suite, name, X, refs

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.name}"

    @property
    def ks(self) -> list[int]:
        return sorted({int(len(np.unique(r[r > 0]))) for r in self.refs})


def separated_centres(k: int, d: int, rng: np.random.RandomState,
                      min_dist: float = 4.0) -> np.ndarray:
    """``k`` centres in ``[-10, 10]^d``, every pair at least ``min_dist`` apart."""
    for _ in range(100_000):
        C = rng.uniform(-10.0, 10.0, (k, d))
        gaps = np.sqrt(((C[:, None] - C[None]) ** 2).sum(-1)) + np.eye(k) * 1e9
        if gaps.min() >= min_dist:
            return C
    raise RuntimeError(f"no {k} centres {min_dist} apart in [-10, 10]^{d}")


def cases(suite: str, root: str | None, max_samples: int,
          batteries: tuple[str, ...] = ("fcps", "graves", "wut")) -> Iterator[Case]:
    from sklearn.datasets import make_blobs

    if suite == "battery":
        for key in list_sets(batteries, max_samples=max_samples, root=root):
            ds = load_set(key, root=root)
            yield Case(suite, key, preprocess(ds.X), [np.asarray(r) for r in ds.references])
    elif suite == "default":
        for c in (3, 5, 8):
            for s in range(10):
                X, y = make_blobs(1000, 2, centers=c, random_state=s)
                yield Case(suite, f"c{c}/s{s}", X, [y + 1])
    elif suite == "blobs":
        ns = (300, 2000, 20000)
        for c in (2, 3, 5, 8, 12):
            for d in (2, 5, 10, 20):
                for s in range(10):
                    rng = np.random.RandomState(1000 * c + 10 * d + s)
                    n = ns[s % 3]
                    X, y = make_blobs(n, d, centers=separated_centres(c, d, rng),
                                      random_state=rng)
                    yield Case(suite, f"c{c}/d{d}/n{n}/s{s}", X, [y + 1])
    elif suite == "null":
        for kind in ("uniform", "gaussian"):
            for d in (1, 2, 5, 10, 20, 50):
                for n in (200, 1000, 5000):
                    for s in range(10):
                        rng = np.random.RandomState(s)
                        X = rng.uniform(size=(n, d)) if kind == "uniform" else rng.randn(n, d)
                        yield Case(suite, f"{kind}/d{d}/n{n}/s{s}", X, [np.ones(n, int)])
    elif suite == "curves":
        for kind in ("ring2", "ring3", "arc2", "segment2"):
            for n in (200, 1000, 5000):
                for s in range(10):
                    yield Case(suite, f"{kind}/n{n}/s{s}", _curve(kind, n, s),
                               [np.ones(n, int)])
    elif suite == "small":
        for kind in ("uniform", "gaussian"):
            for d in (1, 2, 5):
                for n in (20, 30, 60, 100):
                    for s in range(10):
                        rng = np.random.RandomState(s)
                        X = rng.uniform(size=(n, d)) if kind == "uniform" else rng.randn(n, d)
                        yield Case(suite, f"{kind}/d{d}/n{n}/s{s}", X, [np.ones(n, int)])
        for c in (2, 3, 5):
            for d in (2, 5):
                for n in (30, 60, 100):
                    for s in range(10):
                        rng = np.random.RandomState(1000 * c + 10 * d + s)
                        X, y = make_blobs(n, d, centers=separated_centres(c, d, rng, 8.0),
                                          random_state=rng)
                        yield Case(suite, f"c{c}/d{d}/n{n}/s{s}", X, [y + 1])
    elif suite == "dup":
        for base in cases("default", root, max_samples):
            for r in (1, 2, 3, 5):
                yield Case(suite, f"{base.name}/x{r}", np.repeat(base.X, r, axis=0),
                           [np.repeat(base.refs[0], r)])
    else:
        raise ValueError(f"unknown suite {suite!r}")


def _curve(kind: str, n: int, seed: int) -> np.ndarray:
    """``n`` points along a curve of uniform density, Gaussian across (``curves``)."""
    if kind not in ("ring2", "ring3", "arc2", "segment2"):
        raise ValueError(f"unknown curve {kind!r}")
    rng = np.random.RandomState(seed)
    across = 0.065 * rng.randn(n)
    if kind == "segment2":
        return np.c_[rng.uniform(0.0, 2.0 * np.pi, n), across]
    t = rng.uniform(0.0, np.pi if kind == "arc2" else 2.0 * np.pi, n)
    r = 1.0 + across
    X = np.c_[r * np.cos(t), r * np.sin(t)]
    return np.c_[X, 0.041 * rng.randn(n)] if kind == "ring3" else X


# ---------------------------------------------------------------- methods
def _sample(X: np.ndarray, seed: int = 0) -> np.ndarray:
    if X.shape[0] <= _SAMPLE:
        return X
    return X[np.sort(np.random.RandomState(seed).choice(X.shape[0], _SAMPLE, replace=False))]


def fit_mmc(X: np.ndarray) -> tuple[int, np.ndarray, dict[str, Any]]:
    from marginclust import MaxMarginClustering

    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    curve = [[r.n_clusters, r.score, r.separation, r.valley, bool(r.separated)]
             for r in est.k_scores_]
    return int(est.n_clusters_), est.labels_, {"curve": curve}


def fit_gmm_bic(X: np.ndarray) -> tuple[int, np.ndarray, dict[str, Any]]:
    from sklearn.mixture import GaussianMixture

    best = None
    for k in range(1, K_MAX + 1):
        gm = GaussianMixture(k, n_init=3, random_state=0).fit(X)
        bic = gm.bic(X)
        if best is None or bic < best[0]:
            best = (bic, k, gm)
    assert best is not None
    return best[1], best[2].predict(X), {}


def fit_silhouette(X: np.ndarray) -> tuple[int, np.ndarray, dict[str, Any]]:
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    best = None
    S = _sample(X)
    for k in range(2, K_MAX + 1):
        km = KMeans(k, n_init=10, random_state=0).fit(X)
        score = silhouette_score(S, km.predict(S))
        if best is None or score > best[0]:
            best = (score, k, km.labels_)
    assert best is not None
    return best[1], best[2], {}


def fit_gap(X: np.ndarray, n_refs: int = 10) -> tuple[int, np.ndarray, dict[str, Any]]:
    from sklearn.cluster import KMeans

    S = _sample(X)
    rng = np.random.RandomState(0)
    centred = S - S.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    P = centred @ vt.T
    lo, hi = P.min(axis=0), P.max(axis=0)
    refs = [(lo + rng.random_sample(P.shape) * (hi - lo)) @ vt for _ in range(n_refs)]

    def log_w(Y: np.ndarray, k: int) -> float:
        return float(np.log(KMeans(k, n_init=3, random_state=0).fit(Y).inertia_ + 1e-300))

    gap, err = {}, {}
    for k in range(1, K_MAX + 1):
        ref = np.array([log_w(R, k) for R in refs])
        gap[k] = float(ref.mean() - log_w(S, k))
        err[k] = float(ref.std() * np.sqrt(1.0 + 1.0 / n_refs))
    k = next((k for k in range(1, K_MAX) if gap[k] >= gap[k + 1] - err[k + 1]), K_MAX)
    labels = np.zeros(X.shape[0], dtype=int) if k == 1 else KMeans(
        k, n_init=10, random_state=0).fit(X).labels_
    return k, labels, {}


def fit_hdbscan(X: np.ndarray) -> tuple[int, np.ndarray, dict[str, Any]]:
    from sklearn.cluster import HDBSCAN

    labels = HDBSCAN().fit(X).labels_
    return int(len(set(labels.tolist()) - {-1})), labels, {}


FITTERS: dict[str, Callable[[np.ndarray], tuple[int, np.ndarray, dict[str, Any]]]] = {
    "mmc": fit_mmc, "gmm-bic": fit_gmm_bic, "silhouette": fit_silhouette, "gap": fit_gap,
    "hdbscan": fit_hdbscan,
}


def _fit_given(case: Case) -> tuple[int, np.ndarray, dict[str, Any], float]:
    """K given (the reference K, 2 for data without clusters): does it warn?"""
    from marginclust import MaxMarginClustering
    from marginclust.exceptions import ConvergenceWarning

    k = max(case.ks[0], 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.process_time()
        est = MaxMarginClustering(n_clusters=k, random_state=0).fit(case.X)
        seconds = time.process_time() - start
    warned = any(issubclass(w.category, ConvergenceWarning)
                 and "clearly separated" in str(w.message) for w in caught)
    return k, est.labels_, {"warned": bool(warned)}, seconds


# ---------------------------------------------------------------- scoring
def score(case: Case, k: int, labels: np.ndarray) -> tuple[bool, float]:
    from sklearn.metrics import adjusted_rand_score

    right = k in case.ks
    ari = -1.0
    for ref in case.refs:
        keep = ref > 0
        if len(np.unique(ref[keep])) == 1:  # no clusters: one cluster is the answer
            a = 1.0 if k == 1 else 0.0
        else:
            a = float(adjusted_rand_score(ref[keep], labels[keep]))
        ari = max(ari, a)
    return right, ari


def run(args: argparse.Namespace) -> None:
    cache = Path(args.cache)
    cache.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if cache.exists():
        for line in cache.read_text().splitlines():
            r = json.loads(line)
            done.add((r["code"], r["suite"], r["case"], r["method"]))
    once: dict[str, np.ndarray] = {}
    for suite in args.suites.split(","):
        methods = ["mmc"] if suite == "dup" else args.methods.split(",")
        for case in cases(suite, args.root, args.max_samples,
                          tuple(args.batteries.split(","))):
            if case.X.shape[0] < args.min_rows:
                continue
            for method in methods:
                code = args.code_key if method.startswith("mmc") else "peers"
                if (code, suite, case.name, method) in done:
                    continue
                if method == "mmc-given":
                    k, labels, extra, seconds = _fit_given(case)
                    right, ari = score(case, k, np.asarray(labels))
                    # right: the warning on data without clusters, none on clusters
                    right = extra["warned"] == (case.ks == [1])
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        start = time.process_time()
                        k, labels, extra = FITTERS[method](case.X)
                        seconds = time.process_time() - start
                    right, ari = score(case, k, np.asarray(labels))
                if suite == "dup":  # right: the labels of the rows given once
                    base = case.name.rsplit("/", 1)[0]
                    reps = int(case.name.rsplit("x", 1)[1])
                    if base not in once:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            once[base] = np.asarray(FITTERS[method](case.X[::reps])[1])
                    right = bool(np.array_equal(np.asarray(labels)[::reps], once[base]))
                row = {"code": code, "suite": suite, "case": case.name,
                       "method": method, "k": k, "ks": case.ks, "right": bool(right),
                       "ari": ari, "seconds": seconds, **extra}
                with cache.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{suite}/{case.name} {method}: K={k} (right {right}) ARI {ari:.3f} "
                      f"{seconds:.1f} s", flush=True)


def summary(args: argparse.Namespace) -> str:
    rows = [json.loads(line) for line in Path(args.cache).read_text().splitlines()]
    # the peers do not depend on the library's code: one key for them
    rows = [r for r in rows
            if r["code"] == (args.code_key if r["method"].startswith("mmc") else "peers")]
    out = [f"Code {args.code_key}; right = the chosen K is a reference K (one cluster for "
           "data without clusters); ARI of the chosen partition; CPU seconds per fit "
           "(median); (fits).",
           "", "| suite | fits | " + " | ".join(METHODS) + " |",
           "|---|---|" + "---|" * len(METHODS)]
    for suite in SUITES:
        sub = [r for r in rows if r["suite"] == suite]
        if not sub:
            continue
        cells = []
        for m in METHODS:
            mr = [r for r in sub if r["method"] == m]
            if not mr:
                cells.append("")
                continue
            cells.append(f"{np.mean([r['right'] for r in mr]):.2f} / "
                         f"{np.mean([r['ari'] for r in mr]):.3f} / "
                         f"{np.median([r['seconds'] for r in mr]):.1f} s ({len(mr)})")
        n = max(len([r for r in sub if r["method"] == m]) for m in METHODS)
        out.append(f"| {suite} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def cost(rows: int, seeds: int) -> str:
    """CPU time of ``n_clusters="auto"`` against one fit with K given, interleaved."""
    import os

    from sklearn.datasets import make_blobs

    from marginclust import MaxMarginClustering

    out = [f"Cost of n_clusters='auto' (max_clusters 'auto', the default, and 10, the "
           f"former default) against K given, "
           f"make_blobs({rows}, 10, centers=K), CPU seconds, median of {seeds} seeds "
           f"interleaved, OMP/OPENBLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', '?')}, "
           f"load {os.getloadavg()[0]:.2f} at the start",
           "", "| data | K given | auto | ratio | auto's K | auto, max_clusters=10 | its K |",
           "|---|---|---|---|---|---|---|"]
    for k in (3, 8, 12):
        times: dict[str, list[float]] = {"given": [], "auto": [], "ten": []}
        chosen: dict[str, list[int]] = {"auto": [], "ten": []}
        for seed in range(seeds):
            X, _ = make_blobs(rows, 10, centers=k, cluster_std=1.0, random_state=seed)
            for which in times:
                params = ({"n_clusters": k} if which == "given" else
                          {"n_clusters": "auto", "max_clusters": "auto" if which == "auto" else 10})
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.process_time()
                    est = MaxMarginClustering(random_state=seed, **params).fit(X)
                    times[which].append(time.process_time() - start)
                if which != "given":
                    chosen[which].append(est.n_clusters_)
        g, a, t = (float(np.median(times[w])) for w in ("given", "auto", "ten"))
        out.append(f"| blobs K={k} | {g:.1f} s | {a:.1f} s | {a / g:.2f}x | {chosen['auto']} "
                   f"| {t:.1f} s | {chosen['ten']} |")
    out.append(f"\nload {os.getloadavg()[0]:.2f} at the end")
    return "\n".join(out)


def per_set(args: argparse.Namespace, suite: str) -> str:
    """Each case of a suite: the reference K, then each method's K (* where wrong)."""
    rows = [json.loads(line) for line in Path(args.cache).read_text().splitlines()]
    rows = [r for r in rows if r["suite"] == suite
            and r["code"] == (args.code_key if r["method"].startswith("mmc") else "peers")]
    cases_ = sorted({r["case"] for r in rows})
    out = [f"| {suite} set | reference K | " + " | ".join(METHODS) + " |",
           "|---|---|" + "---|" * len(METHODS)]
    for case in cases_:
        got = {r["method"]: r for r in rows if r["case"] == case}
        ks = next(iter(got.values()))["ks"]
        cells = [f"{got[m]['k']}{'' if got[m]['right'] else ' *'} ({got[m]['ari']:.2f})"
                 if m in got else "" for m in METHODS]
        out.append(f"| {case} | {', '.join(map(str, ks))} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", default="battery,default,null,curves,small,blobs,dup")
    ap.add_argument("--methods", default=",".join(METHODS[:-1]))
    ap.add_argument("--root", default=None, help="a folder of battery folders")
    ap.add_argument("--batteries", default="fcps,graves,wut")
    ap.add_argument("--max-samples", type=int, default=3000)
    ap.add_argument("--cache", default=str(HERE / "results" / "auto_k.jsonl"))
    ap.add_argument("--code-key", default="dev")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--per-set", default="", help="suites to list case by case "
                    "(K chosen, * where wrong, ARI)")
    ap.add_argument("--cost", type=int, default=0, metavar="ROWS",
                    help="time 'auto' against K given on ROWS x 10 blobs instead")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--min-rows", type=int, default=0,
                    help="run only the cases with at least this many rows")
    args = ap.parse_args(argv)
    if args.cost:
        print(cost(args.cost, args.seeds))
        return 0
    if not args.summary:
        run(args)
    print(summary(args))
    for suite in args.per_set.split(",") if args.per_set else []:
        print("\n" + per_set(args, suite))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where MaxMarginClustering's fit spends its time from 1e4 to 1e6 rows, beside its peers.

What: the CPU seconds of each stage of ``MaxMarginClustering(K).fit`` (K given) on
``make_moons(n, noise=0.05)`` in 2 dimensions and ``make_blobs(n, 10, centers=5)``
in 10 (the data of ``bench_max_margin_classify.py``, seed 0), beside the whole-fit
time of the clusterers a user would pick instead: genieclust's ``Genie`` (K given;
a benchmark-only peer, imported when installed, skipped with a note otherwise),
scikit-learn's ``HDBSCAN`` at its defaults (it does not take K), ``KMeans(n_init=10)``
and ``GaussianMixture`` (K given).

How: one process, one BLAS thread (threadpoolctl, with ``OMP_NUM_THREADS=1``),
CPU time (``time.process_time``); in each repeat every method is fitted once on
the same data with the same seed (the repeat's number), and the median over
``--repeats`` is reported (one repeat at 1e6 rows). The stages are measured
without changing the library: the benchmark process replaces the library's
module-level functions and methods that make up the fit (validation and distinct
rows, each candidate family, the voting-margin neighbour graphs of the search, the
boundary tests, the margin classifier's training, the labelling of every row) by
timing wrappers and restores them afterwards; a function missing from the code
measured is simply not timed. A stage called inside another counts towards the
outer one, so the stages do not overlap and "other" is the whole fit minus their
sum (the medians of the stages need not add up to the median fit exactly). A peer
whose fit would take more than ``--budget`` CPU seconds (extrapolated from its largest
smaller size measured, with the exponent of its two largest sizes, or of its
algorithm when only one is measured) is skipped and the extrapolation stated; a
peer whose single fit takes more than ``--long`` seconds is not repeated at that
size; a fit still running after twice the budget is stopped. The load average is
printed before and after each fit (the machine may be shared: read the seconds
beside it). The peak resident memory of the fit at the
largest size is that of a fresh child process making the data and fitting once
(``VmHWM``: interpreter, libraries and data included; not ``ru_maxrss``, which
Linux carries over from the parent's peak through fork and exec). Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src \\
        python benchmarks/bench_max_margin_scale.py
    python benchmarks/bench_max_margin_scale.py --sizes 10000 --dims 2 --repeats 1  # a look
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shlex
import signal
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
PEERS = ("Genie", "HDBSCAN", "KMeans", "GaussianMixture")
PEER_NAMES = {
    "Genie": "Genie (genieclust, K given)",
    "HDBSCAN": "HDBSCAN (defaults, no K)",
    "KMeans": "KMeans(n_init=10)",
    "GaussianMixture": "GaussianMixture",
}
# The growth of a peer's time with n assumed when only one size is measured:
# scikit-learn's HDBSCAN builds its minimum spanning tree by Prim's algorithm
# over all pairs of rows (quadratic); the others are taken as linear (a lower bound).
PRIOR_EXPONENT = {"HDBSCAN": 2.0}
MMC = "MaxMarginClustering"
# The "of which" lines: parts timed inside a stage, shown under it.
INNER_PARENT = {
    "distinct rows (weighted_points)": "validation + distinct rows",
    "pair_separations": "boundary tests",
}
# What the last MaxMarginClustering fit left to report beside its times.
FITTED: dict[str, int] = {}

# The stages in the order of the fit; candidate families are inserted after the frame.
STAGE_ORDER = (
    "validation + distinct rows",
    "working frame",
    "candidates",
    "voting-margin neighbour graph(s)",
    "nearest fitted point",
    "candidates' voting margins",
    "boundary tests",
    "margin classifier (training)",
    "labelling every row (classify)",
    "fitted attributes",
    "neighbour graph (outside the search)",
)


def make_data(n: int, d: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The benchmark's data (seed 0) and its number of clusters."""
    from sklearn.datasets import make_blobs, make_moons

    if d == 2:
        X, y = make_moons(n, noise=0.05, random_state=0)
        return X, y, 2
    X, y = make_blobs(n, d, centers=5, random_state=0)
    return X, y, 5


def rows(n: int) -> str:
    """``n`` as ``1e5`` when it is a power of ten, else with thousands separators."""
    e = int(round(np.log10(n)))
    return f"1e{e}" if 10 ** e == n else f"{n:,}"


def data_name(n: int, d: int) -> str:
    return (f"make_moons({rows(n)}, noise=0.05), 2-D, K=2" if d == 2
            else f"make_blobs({rows(n)}, {d}, centers=5), {d}-D, K=5")


# ------------------------------------------------------------------ stage timers
class StageClock:
    """Timing wrappers put on the library's functions and methods, and taken off again.

    A call counts towards its stage only when no other stage is running (the
    outer stage keeps the time of the calls inside it); ``inner`` stages count
    every call, as "of which" lines of the stage that contains them.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.inner: dict[str, float] = defaultdict(float)
        self.depth = 0
        self.in_search = False
        self._undo: list[Callable[[], None]] = []
        self.timed: list[str] = []

    def reset(self) -> None:
        self.seconds = defaultdict(float)
        self.inner = defaultdict(float)

    def _timed(self, func: Callable[..., Any], label: Any, inner: bool) -> Callable[..., Any]:
        clock = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            name = label(args, kwargs) if callable(label) else label
            if inner:
                start = time.process_time()
                try:
                    return func(*args, **kwargs)
                finally:
                    clock.inner[name] += time.process_time() - start
            if name is None or clock.depth:
                return func(*args, **kwargs)
            clock.depth += 1
            start = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                clock.depth -= 1
                clock.seconds[name] += time.process_time() - start

        wrapper.__wrapped__ = func  # type: ignore[attr-defined]
        return wrapper

    def patch(self, owner: Any, attr: str, label: Any, *, inner: bool = False,
              around: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None) -> None:
        """Replace ``owner.attr`` (a module's function or a class's method) by a timed one."""
        if not hasattr(owner, attr):
            return  # not in the code measured
        own = attr in vars(owner)
        raw = vars(owner)[attr] if own else getattr(owner, attr)
        if isinstance(raw, classmethod | staticmethod):
            func = raw.__func__
            new: Any = type(raw)(around(func) if around else self._timed(func, label, inner))
        else:
            func = raw
            new = around(func) if around else self._timed(func, label, inner)
        setattr(owner, attr, new)
        self.timed.append(f"{getattr(owner, '__name__', owner)}.{attr}")

        def undo() -> None:
            if own:
                setattr(owner, attr, raw)
            else:
                delattr(owner, attr)

        self._undo.append(undo)

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()

    def search_context(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """``margin_search`` marked as running (its neighbour graphs are the vote's)."""
        clock = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            clock.in_search = True
            try:
                return func(*args, **kwargs)
            finally:
                clock.in_search = False

        return wrapper


@contextmanager
def stage_clock() -> Iterator[StageClock]:
    """The stage wrappers in place for the block, taken off after it."""
    import marginclust.estimators._max_margin as mm
    import marginclust.starts._margin_search as ms
    import marginclust.starts._selection as sel
    from marginclust.feature_maps._neighbors import NeighborGraph

    clock = StageClock()
    name_of = getattr(ms, "_candidate_name", str)
    try:
        valid = "validation + distinct rows"
        for attr in ("_validate_fit_data", "_cluster_counts", "_check_points", "_point_pairs",
                     "_dense"):
            clock.patch(mm.MaxMarginClustering, attr, valid)
        for attr in ("weighted_points", "resolve_scaling", "column_divisors"):
            clock.patch(mm, attr, valid)
        clock.patch(mm, "weighted_points", "distinct rows (weighted_points)", inner=True)
        clock.patch(ms, "_working_points", "working frame")
        clock.patch(ms, "fit_candidate", lambda a, k: f"candidate {name_of(a[0])}")
        clock.patch(NeighborGraph, "from_data", lambda a, k: (
            "voting-margin neighbour graph(s)" if clock.in_search
            else "neighbour graph (outside the search)"))
        clock.patch(ms, "_nearest_fitted", "nearest fitted point")
        clock.patch(ms, "vote_margins", "candidates' voting margins")
        clock.patch(ms, "_select", "boundary tests")
        clock.patch(sel, "pair_separations", "pair_separations", inner=True)
        clock.patch(mm, "margin_search", None, around=clock.search_context)
        clock.patch(mm, "margin_classifier", "margin classifier (training)")
        clock.patch(mm, "classify", "labelling every row (classify)")
        for attr in ("_set_search", "_finish_fit"):
            clock.patch(mm.MaxMarginClustering, attr, "fitted attributes")
        yield clock
    finally:
        clock.restore()


# ------------------------------------------------------------------ fits
def fit_mmc(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    from marginclust import MaxMarginClustering

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = MaxMarginClustering(k, random_state=seed).fit(X)
    clf = getattr(est, "classifier_", None)
    FITTED["support_vectors"] = 0 if clf is None else int(clf.support_vectors_.shape[0])
    return np.asarray(est.labels_)


def fit_peer(method: str, X: np.ndarray, k: int, seed: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # HDBSCAN's coming change of `copy`
        return _fit_peer(method, X, k, seed)


def _fit_peer(method: str, X: np.ndarray, k: int, seed: int) -> np.ndarray:
    if method == "Genie":
        import genieclust  # type: ignore[import-not-found, unused-ignore]

        return np.asarray(genieclust.Genie(n_clusters=k).fit_predict(X))
    if method == "HDBSCAN":
        from sklearn.cluster import HDBSCAN

        return np.asarray(HDBSCAN().fit(X).labels_)
    if method == "KMeans":
        from sklearn.cluster import KMeans

        return np.asarray(KMeans(k, n_init=10, random_state=seed).fit(X).labels_)
    from sklearn.mixture import GaussianMixture

    return np.asarray(GaussianMixture(k, random_state=seed).fit(X).predict(X))


class FitTimeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise FitTimeout


def timed_fit(fit: Callable[[], np.ndarray], limit: float | None
              ) -> tuple[float | None, np.ndarray | None, tuple[float, float]]:
    """CPU seconds and labels of one fit (None when stopped after ``limit`` CPU seconds).

    The timer interrupts Python code only: a long compiled loop ends first.
    """
    before = os.getloadavg()[0]
    if limit:
        signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, limit)
    start = time.process_time()
    try:
        labels = fit()
        seconds: float | None = time.process_time() - start
    except FitTimeout:
        labels, seconds = None, None
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_PROF, 0)
    return seconds, labels, (before, os.getloadavg()[0])


def extrapolate(method: str, done: list[tuple[int, float]], n: int) -> tuple[float, float] | None:
    """The expected seconds at ``n`` from the largest sizes measured, and the exponent."""
    if not done:
        return None
    (n1, t1) = done[-1]
    if len(done) >= 2:
        n0, t0 = done[-2]
        a = max(1.0, float(np.log(t1 / t0) / np.log(n1 / n0))) if t0 > 0 < t1 else 1.0
    else:
        a = PRIOR_EXPONENT.get(method, 1.0)
    return t1 * (n / n1) ** a, a


# ------------------------------------------------------------------ peak memory
def _child(n: int, d: int) -> None:
    """One MaxMarginClustering fit in this (fresh) process; its peak resident set."""
    from threadpoolctl import threadpool_limits

    X, _, k = make_data(n, d)
    with threadpool_limits(1):
        start = time.process_time()
        fit_mmc(X, k, 0)
        seconds = time.process_time() - start
    # the high-water mark of this process's own memory (ru_maxrss would keep the
    # parent's peak at the fork)
    status = Path("/proc/self/status").read_text()
    peak = int(next(ln for ln in status.splitlines() if ln.startswith("VmHWM:")).split()[1]) / 1024
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "peak_mib": peak, "maxrss_mib": maxrss}))


def peak_memory(n: int, d: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(n), str(d)],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"),
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


# ------------------------------------------------------------------ report
def _load(pairs: list[tuple[float, float]]) -> str:
    values = [v for p in pairs for v in p]
    return f"{min(values):.1f}-{max(values):.1f}" if values else ""


def stage_table(n: int, d: int, runs: list[dict[str, Any]], peers: dict[str, dict[str, Any]],
                ) -> list[str]:
    """The markdown table of one data set: the stages, the whole fit, the peers."""
    totals = [r["total"] for r in runs]
    fit = float(np.median(totals))
    names = {s for r in runs for s in r["stages"]}
    candidates = sorted(s for s in names if s.startswith("candidate "))
    order = [s for s in STAGE_ORDER if s != "candidates"]
    order = order[:2] + candidates + order[2:]
    order += sorted(names - set(order))
    lines = [f"### {data_name(n, d)}", "",
             f"{len(runs)} repeat(s); CPU seconds, median over the repeats. The margin "
             f"classifier has {runs[-1]['support_vectors']} support vectors (kernel values "
             "per row labelled).", "",
             "| stage / method | CPU s | share of the fit / ratio to it | ARI | load |",
             "|---|---|---|---|---|"]
    for s in order:
        if s not in names:
            continue
        med = float(np.median([r["stages"].get(s, 0.0) for r in runs]))
        lines.append(f"| {s} | {med:.3f} | {100 * med / fit:.1f} % | | |")
        for inner in sorted({i for r in runs for i in r["inner"]}):
            if INNER_PARENT.get(inner) == s:
                med = float(np.median([r["inner"].get(inner, 0.0) for r in runs]))
                lines.append(f"| &nbsp;&nbsp;of which {inner} | {med:.3f} | "
                             f"{100 * med / fit:.1f} % | | |")
    for s in sorted({i for r in runs for i in r["inner"]} - set(INNER_PARENT)):
        med = float(np.median([r["inner"].get(s, 0.0) for r in runs]))
        lines.append(f"| (inside the stages) {s} | {med:.3f} | {100 * med / fit:.1f} % | | |")
    other = float(np.median([r["total"] - sum(r["stages"].values()) for r in runs]))
    lines.append(f"| other | {other:.3f} | {100 * other / fit:.1f} % | | |")
    ari = np.mean([r["ari"] for r in runs])
    lines.append(f"| **{MMC} (whole fit)** | **{fit:.3f}** | 100 % | {ari:.3f} | "
                 f"{_load([p for r in runs for p in r['load']])} |")
    for p, res in peers.items():
        name = PEER_NAMES[p]
        if res.get("note"):
            lines.append(f"| {name} | {res['note']} | | | |")
            continue
        med = float(np.median(res["seconds"]))
        extra = f" ({len(res['seconds'])} fit)" if res.get("single") else ""
        lines.append(f"| {name} | {med:.3f}{extra} | {med / fit:.2f}x | "
                     f"{np.mean(res['ari']):.3f} | {_load(res['load'])} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 10], choices=[2, 10])
    ap.add_argument("--repeats", type=int, default=3,
                    help="repeats per size below 1e6 rows (one at 1e6 and above)")
    ap.add_argument("--peers", nargs="*", default=list(PEERS), choices=PEERS)
    ap.add_argument("--budget", type=float, default=300.0,
                    help="skip a peer whose fit is expected to take longer (s)")
    ap.add_argument("--long", type=float, default=60.0,
                    help="a peer's fit longer than this (s) is not repeated at that size")
    ap.add_argument("--out", default=str(HERE / "results" / "max-margin-scale.md"),
                    help="markdown file written (empty: none)")
    ap.add_argument("--child", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0

    from sklearn.metrics import adjusted_rand_score
    from threadpoolctl import threadpool_info, threadpool_limits

    peers = [p for p in PEERS if p in args.peers]
    notes: list[str] = []
    if "Genie" in peers:
        try:
            import genieclust  # type: ignore[import-not-found, unused-ignore]
            notes.append(f"genieclust {genieclust.__version__} (Genie at its defaults, "
                         "n_clusters=K).")
        except ImportError:
            peers.remove("Genie")
            notes.append("Genie: skipped, genieclust is not installed.")
    start_load = os.getloadavg()
    started = datetime.datetime.now(datetime.UTC)
    blas = "; ".join(f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                     if i.get("user_api") == "blas")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                            capture_output=True, text=True).stdout.strip()
    print(f"load average at start {start_load}; BLAS {blas} limited to 1 thread; "
          f"niceness {os.nice(0)}", flush=True)

    tables: list[list[str]] = []
    stage_runs: dict[tuple[int, int], list[dict[str, Any]]] = {}
    with threadpool_limits(1), stage_clock() as clock:
        # warm-up: imports and first calls outside the times
        Xw, _, kw = make_data(2000, 2)
        fit_mmc(Xw, kw, 0)
        for p in peers:
            fit_peer(p, Xw, kw, 0)
        for d in args.dims:
            done: dict[str, list[tuple[int, float]]] = defaultdict(list)
            skipped: dict[str, str] = {}
            for n in sorted(args.sizes):
                X, y, k = make_data(n, d)
                repeats = 1 if n >= 1_000_000 else args.repeats
                runs: list[dict[str, Any]] = []
                res: dict[str, dict[str, Any]] = {
                    p: {"seconds": [], "ari": [], "load": []} for p in peers}
                for p in peers:
                    guess = extrapolate(p, done[p], n)
                    if p in skipped:
                        res[p]["note"] = skipped[p]
                    elif guess and guess[0] > args.budget:
                        n1, t1 = done[p][-1]
                        skipped[p] = (f"skipped: {t1:.0f} s at {rows(n1)}, extrapolated "
                                      f"~{guess[0]:.0f} s at {rows(n)} (n^{guess[1]:.1f}) "
                                      f"> {args.budget:.0f} s")
                        res[p]["note"] = skipped[p]
                for r in range(repeats):
                    clock.reset()
                    seconds, labels, load = timed_fit(
                        partial(fit_mmc, X, k, r), None)
                    assert seconds is not None and labels is not None
                    runs.append({"total": seconds, "stages": dict(clock.seconds),
                                 "inner": dict(clock.inner), "load": [load],
                                 "support_vectors": FITTED.get("support_vectors", 0),
                                 "ari": adjusted_rand_score(y, labels)})
                    print(f"{d}-D n={n} repeat {r}: {MMC} {seconds:.2f} s "
                          f"{json.dumps({s: round(v, 3) for s, v in clock.seconds.items()})}",
                          flush=True)
                    for p in peers:
                        if res[p].get("note") or (r and res[p].get("single")):
                            continue
                        seconds, labels, load = timed_fit(
                            partial(fit_peer, p, X, k, r), 2 * args.budget)
                        res[p]["load"].append(load)
                        if seconds is None or labels is None:
                            res[p]["note"] = skipped[p] = (
                                f"stopped after {2 * args.budget:.0f} CPU s at {rows(n)}")
                        else:
                            res[p]["seconds"].append(seconds)
                            res[p]["ari"].append(adjusted_rand_score(y, labels))
                            res[p]["single"] = repeats > 1 and seconds > args.long
                        print(f"{d}-D n={n} repeat {r}: {p} "
                              f"{res[p].get('note') or f'{seconds:.2f} s'}", flush=True)
                for p in peers:
                    if res[p]["seconds"]:
                        done[p].append((n, float(np.median(res[p]["seconds"]))))
                stage_runs[(n, d)] = runs
                table = stage_table(n, d, runs, res)
                print("\n" + "\n".join(table) + "\n", flush=True)
                tables.append(table)
    end_load = os.getloadavg()
    print(f"load average at end {end_load}", flush=True)
    big = max(args.sizes)
    peaks = {d: peak_memory(big, d) for d in args.dims}
    for d, pk in peaks.items():
        print(f"peak RSS of a fresh {MMC} fit, {data_name(big, d)}: {pk['peak_mib']:.0f} MiB "
              f"({pk['seconds']:.2f} CPU s)", flush=True)
    if args.out:
        write_report(Path(args.out), args, tables, notes, peaks, big, start_load, end_load,
                     started, blas, commit, clock.timed)
    return 0


def write_report(path: Path, args: argparse.Namespace, tables: list[list[str]],
                 notes: list[str], peaks: dict[int, dict[str, float]], big: int,
                 start_load: tuple[float, ...], end_load: tuple[float, ...],
                 started: datetime.datetime, blas: str, commit: str, timed: list[str]) -> None:
    cmd = " ".join(shlex.quote(a) for a in sys.argv[1:])
    load = (f"{' / '.join(f'{v:.1f}' for v in start_load)} at the start, "
            f"{' / '.join(f'{v:.1f}' for v in end_load)} at the end (1 / 5 / 15 minutes)")
    lines = [
        "# MaxMarginClustering from 1e4 to 1e6 rows: the fit's stages beside its peers", "",
        f"Generated {started:%Y-%m-%d %H:%M} UTC at code commit `{commit}` by", "",
        "    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src:<directory holding "
        "genieclust> \\",
        f"        nice -n {os.nice(0)} python benchmarks/bench_max_margin_scale.py {cmd}".rstrip(),
        "",
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"BLAS {blas}, limited to 1 thread. Load average {load}: the machine was shared "
        "with other jobs, so the seconds are CPU time (`time.process_time`) and the "
        "load during each fit is given beside it.", "",
        "MaxMarginClustering at its defaults with K given (max_samples=3000: the candidates "
        "are fitted to 3,000 rows whatever n, and the margin classifier labels every row). "
        "Each stage is the CPU time of the library's functions making it up, timed by "
        "wrappers the benchmark puts in place (the library unchanged); a stage called "
        "inside another counts towards the outer one, and \"other\" is the fit minus the "
        "stages (medians need not add up). Shares are of the median whole fit; a peer's "
        "ratio is its seconds over MaxMarginClustering's. ARI against the generating "
        "labels (HDBSCAN's noise label -1 counts as one cluster).", "",
        "Functions timed: " + ", ".join(f"`{t}`" for t in dict.fromkeys(timed)) + ".", "",
        *[f"- {n}" for n in notes],
        f"- A peer expected to take more than {args.budget:.0f} CPU s is skipped (extrapolated "
        "from its two largest sizes measured; from one size, n^2 for HDBSCAN, whose "
        "minimum spanning tree is Prim's over all pairs of rows, n^1 for the others); a "
        f"peer fit longer than {args.long:.0f} s is not repeated at that size; one still "
        f"running after {2 * args.budget:.0f} CPU s would be stopped.", "",
    ]
    for table in tables:
        lines += table + [""]
    lines += ["## Peak memory", ""]
    for d, pk in peaks.items():
        lines.append(f"- {data_name(big, d)}: {pk['peak_mib']:.0f} MiB peak resident set (VmHWM) "
                     f"of a fresh process making the data and fitting MaxMarginClustering once "
                     f"({pk['seconds']:.2f} CPU s in it; its ru_maxrss, {pk['maxrss_mib']:.0f} "
                     "MiB, is at least the parent's resident set at the fork).")
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())

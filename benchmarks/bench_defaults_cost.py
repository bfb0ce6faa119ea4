"""Cost of the 0.2 defaults: every clusterer beside its 0.1 settings, WOC-SVM, SLMC's start.

``wocsvm``: :class:`marginclust.WOCSVMClustering` on ``make_blobs(n, 4, centers=3,
random_state=0)`` (above 5,000 rows: a 300-component Nystroem map, each machine a
linear one-class SVM solved by the box-simplex Newton solver) at its defaults and
at the former settings (``init="gmm", gamma="sigma0", nu=0.9, temperature=1,
decision_scale="libsvm"``), CPU seconds (``time.process_time``) and wall seconds.
With ``--compare-solver PATH`` (another copy of ``solvers/_box_simplex_newton.py``)
every fit also runs with that solver, interleaved in the same process, and the
labels and memberships of the two are compared; ``--compare-libsvm PATH`` (another
copy of ``solvers/_weighted_ocsvm.py``) does the same with its LIBSVM call, the
exact-kernel path of at most 5,000 rows. ``--compare-final-pass`` compares, the
same way, the fit whose final assignment maps the training rows through the
Nystroem map a second time (before 2026-11-29) with the one that reuses the fit's
features. ``--features``, ``--centers`` and
``--cluster-std`` change the blobs (``n_clusters`` is the number of centres).

``slmc-start``: seconds of :class:`marginclust.SLMC`'s start on standardised letter
(``--letter``, a gzip CSV whose last column is the label; K=26, the frame's
Fortran-ordered values as a user passes them): the margin-search start (the
default) against the former ``init="fcm-sharp", gamma="scale"``, interleaved; the
fit stops after the start.

``all``: every registered clusterer (the registry's list) on ``make_blobs(n, 10,
centers=5, cluster_std=1, random_state=0)`` (``--cluster-std`` for another spread)
with ``n_clusters=5`` (a method that refuses three clusters on 30 rows:
``centers=2``, ``n_clusters=2``), at its defaults and, where a default changed in
0.2, at its former settings (:data:`FORMER`), interleaved per estimator; the
median over ``--repeats`` of CPU seconds (``time.process_time``) and wall seconds,
the ARI against the blobs' labels, the number of non-empty clusters and the
warning categories of each. Each fit runs in a forked child process, killed after
``--timeout`` seconds, its address space limited to ``--memory-limit`` GiB (the
library's memory checks see that limit). Above 10,000 rows a probe first fits
5,000 and 10,000 rows. A fit whose probe does not end within the timeout, whose
seconds extrapolated by the probe's growth exponent (clipped to 1..2) exceed the
timeout, or whose probe peak is of the size of an n x n matrix and,
extrapolated quadratically, exceeds the address space, gets ``--refuse-window``
seconds to refuse by itself (the library's ``MemoryLimitError``) or finish;
otherwise (still running, or NumPy's ``MemoryError``) it is recorded as not run,
with those extrapolations. The load average is printed at the start and end of
each estimator, and a Markdown table at the end.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_defaults_cost.py \\
        wocsvm --n 20000 --repeats 3 [--compare-solver OLD/_box_simplex_newton.py]
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_defaults_cost.py \\
        slmc-start --letter letter.csv.gz --repeats 3
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_defaults_cost.py \\
        all --n 100000 --repeats 1 [--only SLMC EMMC]
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import os
import resource
import statistics
import sys
import time
import warnings
from typing import Any

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

import marginclust
import marginclust.solvers._weighted_ocsvm as weighted_ocsvm
from marginclust.estimators import _slmc

FORMER_WOCSVM = dict(init="gmm", gamma="sigma0", nu=0.9, temperature=1.0,
                     decision_scale="libsvm")
FORMER_SLMC_START = dict(init="fcm-sharp", gamma="scale")


def _load_solver(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("compared_box_simplex_newton", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.solve_box_simplex_newton


def _load_avg() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _load_libsvm_solution(path: str) -> Any:
    """``_libsvm_solution`` of another copy of ``solvers/_weighted_ocsvm.py``, run with this
    tree's module globals (the function itself imports nothing of its own)."""
    import ast

    with open(path) as f:
        tree = ast.parse(f.read())
    (node,) = [d for d in tree.body
               if isinstance(d, ast.FunctionDef) and d.name == "_libsvm_solution"]
    namespace = dict(vars(weighted_ocsvm))
    exec(compile(ast.Module([node], type_ignores=[]), path, "exec"), namespace)
    return namespace["_libsvm_solution"]


class _MappedTwice(marginclust.WOCSVMClustering):
    """The final assignment of the training rows through ``predict_proba``'s own path:
    every row mapped again (the library's path before 2026-11-29)."""

    _memberships_and_labels = None


def bench_wocsvm(n: int, repeats: int, compare_solver: str | None,
                 compare_libsvm: str | None = None, features: int = 4, centers: int = 3,
                 cluster_std: float = 1.0, compare_final_pass: bool = False) -> None:
    X, y = make_blobs(n, features, centers=centers, cluster_std=cluster_std, random_state=0)
    solvers = {"this": (weighted_ocsvm.solve_box_simplex_newton,
                        weighted_ocsvm._libsvm_solution)}
    if compare_solver or compare_libsvm or compare_final_pass:
        solvers = {"compared": (
            _load_solver(compare_solver) if compare_solver else solvers["this"][0],
            _load_libsvm_solution(compare_libsvm) if compare_libsvm else solvers["this"][1],
        ), **solvers}
    print(f"# WOCSVMClustering on make_blobs({n}, {features}, centers={centers}, "
          f"cluster_std={cluster_std}); {_load_avg()}")
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    fits: dict[tuple[str, str], Any] = {}
    for rep in range(repeats):
        for setting, params in (("defaults", {}), ("former", FORMER_WOCSVM)):
            for name, solver in solvers.items():
                weighted_ocsvm.solve_box_simplex_newton = solver[0]  # type: ignore[assignment]
                weighted_ocsvm._libsvm_solution = solver[1]
                cls = (_MappedTwice if compare_final_pass and name == "compared"
                       else marginclust.WOCSVMClustering)
                est = cls(centers, random_state=0, **params)
                t0, c0 = time.perf_counter(), time.process_time()
                est.fit(X)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                times.setdefault((setting, name), []).append(dt)
                cpu.setdefault((setting, name), []).append(dc)
                fits[(setting, name)] = est
                print(f"n={n} run {rep} {setting:8s} solver={name:8s} CPU {dc:7.2f} s, wall "
                      f"{dt:7.2f} s  ARI {adjusted_rand_score(y, est.labels_):.4f}  EM "
                      f"iterations {est.n_iter_}  one-class fits {est.n_fits_}", flush=True)
    weighted_ocsvm.solve_box_simplex_newton = solvers["this"][0]  # type: ignore[assignment]
    weighted_ocsvm._libsvm_solution = solvers["this"][1]
    for setting in ("defaults", "former"):
        line = f"n={n} {setting}: median of {repeats}: " + ", ".join(
            f"{name} CPU {statistics.median(cpu[(setting, name)]):.2f} s (wall "
            f"{statistics.median(times[(setting, name)]):.2f} s)" for name in solvers)
        if "compared" in solvers:
            a, b = fits[(setting, "compared")], fits[(setting, "this")]
            same = np.array_equal(a.labels_, b.labels_)
            diff = float(np.max(np.abs(a.memberships_ - b.memberships_)))
            line += f"; labels identical: {same}; memberships differ by at most {diff:.3g}"
        print(line)
    print(f"# {_load_avg()}")


class _StartDone(Exception):
    pass


def bench_slmc_start(letter: str, repeats: int) -> None:
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    frame = pd.read_csv(letter)
    X = StandardScaler().fit_transform(frame.iloc[:, :-1].to_numpy(float))
    print(f"# SLMC start on standardised letter {X.shape}, K=26; {_load_avg()}")
    seen: dict[str, Any] = {}
    initial = _slmc.SLMC._initial_memberships

    def timed(self: Any, ctx: Any, random_state: Any) -> Any:
        t0 = time.perf_counter()
        seen["U"] = np.asarray(initial(self, ctx, random_state))
        seen["t"] = time.perf_counter() - t0
        raise _StartDone

    _slmc.SLMC._initial_memberships = timed  # type: ignore[method-assign]
    times: dict[str, list[float]] = {}
    try:
        for rep in range(repeats):
            for name, params in (("max-margin", {}), ("fcm-sharp", FORMER_SLMC_START)):
                try:
                    _slmc.SLMC(26, random_state=0, **params).fit(X)
                except _StartDone:
                    pass
                times.setdefault(name, []).append(seen["t"])
                found = np.unique(seen["U"].argmax(axis=1)).size
                print(f"run {rep} {name:10s} {seen['t']:.2f} s, {found} clusters", flush=True)
    finally:
        _slmc.SLMC._initial_memberships = initial  # type: ignore[method-assign]
    new, old = (statistics.median(times[k]) for k in ("max-margin", "fcm-sharp"))
    print(f"median of {repeats}: margin search {new:.2f} s, fcm-sharp {old:.2f} s, "
          f"ratio {new / old:.2f}; {_load_avg()}")


# the settings of 0.1 where a default changed in 0.2 (docs/changelog.rst, "Changed defaults")
FORMER: dict[str, dict[str, Any]] = {
    "SLMC": dict(FORMER_SLMC_START, w_step="exact"),
    # balance="auto" is the start's own size spread after a k-means-elm start (the former rule)
    "EMMC": dict(init="k-means-elm"),
    "WOCSVMClustering": FORMER_WOCSVM,
    "BMMC": dict(C=1.0, min_cluster_size=0),
    "CPMMC": dict(C=1.0, min_cluster_size=0),
    "FuzzyCMeans": dict(m=2.0),
}
# a default that changed but that a fit with n_clusters given never reads
NO_FORMER = {
    "MaxMarginClustering": 'no former setting: max_clusters="auto" (was 10) is read only '
                           'with n_clusters="auto"',
}
_PROBE_ROWS = 10_000
_GIB = 2.0**30


def _blobs(n: int, centers: int, std: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_blobs(n, 10, centers=centers, cluster_std=std, random_state=0)
    return X, y


def _refuses_three(cls: type) -> bool:
    """Whether the method refuses n_clusters=3 (a binary-only method) on 30 rows."""
    X, _ = _blobs(30, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cls(3, random_state=0).fit(X)
        except ValueError:
            return True
    return False


def _peak_reset() -> int:
    """Reset the peak resident size (Linux) and return the current one, in bytes."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        with open("/proc/self/status") as f:
            rss = next(line for line in f if line.startswith("VmRSS:"))
        return int(rss.split()[1]) * 1024
    except (OSError, StopIteration):
        return 0


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _child(conn: Any, cls: type, params: dict[str, Any], X: np.ndarray, y: np.ndarray,
           k: int, memory_limit: float) -> None:
    limit = int(memory_limit * _GIB)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    rss0 = _peak_reset()
    out: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            est = cls(k, random_state=0, **params).fit(X)
            out["ari"] = adjusted_rand_score(y, est.labels_)
            out["clusters"] = int(np.unique(est.labels_).size)
        except Exception as exc:  # a refusal is a result
            out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        out["cpu"], out["wall"] = time.process_time() - c0, time.perf_counter() - w0
    out["peak"] = max(_peak() - rss0, 0)
    out["warnings"] = sorted({w.category.__name__ for w in caught})
    conn.send(out)
    conn.close()


def _fit(cls: type, params: dict[str, Any], X: np.ndarray, y: np.ndarray, k: int,
         timeout: float, memory_limit: float) -> dict[str, Any]:
    """One fit in a forked child: its seconds, ARI, clusters, warnings and peak memory."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, cls, params, X, y, k, memory_limit))
    w0 = time.perf_counter()
    proc.start()
    child.close()
    out: dict[str, Any]
    if parent.poll(timeout):
        try:
            out = parent.recv()
        except EOFError:
            proc.join()
            out = {"error": f"the child died (exit code {proc.exitcode})",
                   "cpu": float("nan"), "wall": time.perf_counter() - w0}
    else:
        proc.kill()
        out = {"timeout": time.perf_counter() - w0}
    proc.join()
    parent.close()
    return out


def _probe(cls: type, params: dict[str, Any], centers: int, std: float, n: int,
           timeout: float, memory_limit: float) -> dict[str, Any]:
    """Fits at 5,000 and 10,000 rows and their extrapolation to n rows."""
    fits: list[dict[str, Any]] = []
    for m in (_PROBE_ROWS // 2, _PROBE_ROWS):
        fits.append(_fit(cls, params, *_blobs(m, centers, std), centers, timeout, memory_limit))
        if "timeout" in fits[-1]:  # the fit at n rows would not end either
            return {"fits": fits, "seconds": float("inf"), "square": False,
                    "stopped": f"the probe at {m} rows did not end in {timeout:.0f} s"}
    if any("error" in f for f in fits):
        return {"fits": fits, "seconds": None}
    small, large = fits
    growth = np.log2(max(large["wall"], 1e-3) / max(small["wall"], 1e-3))
    exponent = float(np.clip(growth, 1.0, 2.0))
    scale = n / _PROBE_ROWS
    return {
        "fits": fits,
        "exponent": exponent,
        "seconds": large["wall"] * scale**exponent,
        # an n x n float32 matrix or more at the probe: the peak grows as n^2
        "square": large["peak"] >= 4.0 * _PROBE_ROWS**2,
        "gib": large["peak"] * scale**2 / _GIB,
    }


def _too_large(probe: dict[str, Any], timeout: float, memory_limit: float) -> str:
    """Why a fit would not end at n rows (from its probe), or "" when it would."""
    if probe["seconds"] is None:
        return ""
    if "stopped" in probe:
        return str(probe["stopped"])
    reasons = []
    if probe["square"]:
        reasons.append(f"would need an n x n matrix (estimated {probe['gib']:.1f} GiB)")
    if probe["seconds"] > timeout:
        reasons.append(f"extrapolated {probe['seconds']:.0f} s from 1e4 rows "
                       f"(n^{probe['exponent']:.2f})")
    if probe["seconds"] > timeout or (probe["square"] and probe["gib"] > memory_limit):
        return "; ".join(reasons)
    return ""


def _describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in params.items())


def _fit_line(name: str, setting: str, rep: int, out: dict[str, Any]) -> str:
    if "timeout" in out:
        return f"{name} {setting} run {rep}: stopped after {out['timeout']:.0f} s"
    line = (f"{name} {setting} run {rep}: CPU {out['cpu']:.2f} s, wall {out['wall']:.2f} s, "
            f"peak +{out['peak'] / _GIB:.2f} GiB")
    if "error" in out:
        return line + f", {out['error']}"
    return (line + f", ARI {out['ari']:.4f}, {out['clusters']} clusters, warnings "
            f"{', '.join(out['warnings']) or 'none'}")


def bench_all(n: int, repeats: int, only: list[str] | None, std: float, timeout: float,
              refuse_window: float, memory_limit: float) -> None:
    from marginclust._registry import clusterer_names, estimator_class

    unknown = set(only or ()) - set(clusterer_names())
    if unknown:
        raise SystemExit(f"--only: not registered clusterers: {sorted(unknown)}")
    names = [name for name in clusterer_names() if not only or name in only]
    print(f"# every clusterer at its defaults and 0.1 settings, make_blobs({n}, 10, "
          f"cluster_std={std:g}); "
          f"timeout {timeout:.0f} s, address space {memory_limit:g} GiB per fit; {_load_avg()}")
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for name in names:
        cls = estimator_class(name)
        centers = 2 if _refuses_three(cls) else 5
        X, y = _blobs(n, centers, std)
        settings: dict[str, dict[str, Any]] = {"defaults": {}}
        if name in FORMER:
            settings["former"] = FORMER[name]
        print(f"## {name}, n_clusters={centers}; {_load_avg()}", flush=True)
        planned: dict[str, float] = {setting: timeout for setting in settings}
        notes: dict[str, str] = {}
        if n > _PROBE_ROWS:
            for setting, params in settings.items():
                probe = _probe(cls, params, centers, std, n, timeout, memory_limit)
                for m, fit in zip((_PROBE_ROWS // 2, _PROBE_ROWS), probe["fits"], strict=False):
                    print("  probe " + _fit_line(name, setting, m, fit).replace(" run ", " n="))
                note = _too_large(probe, timeout, memory_limit)
                if note:
                    print(f"  {setting}: {note}; {refuse_window:.0f} s to refuse", flush=True)
                    planned[setting] = refuse_window
                    notes[setting] = note
        runs: dict[str, list[dict[str, Any]]] = {setting: [] for setting in settings}
        for rep in range(repeats):
            for setting, params in settings.items():
                if runs[setting] and ("timeout" in runs[setting][-1]
                                      or "error" in runs[setting][-1]):
                    continue  # a refusal or a stop is not repeated
                out = _fit(cls, params, X, y, centers, planned[setting], memory_limit)
                # neither refused (MemoryLimitError) nor finished: NumPy's MemoryError or a stop
                if setting in notes and ("timeout" in out
                                         or out.get("error", "").startswith("MemoryError")):
                    out["not_run"] = notes[setting]
                runs[setting].append(out)
                print("  " + _fit_line(name, setting, rep, out), flush=True)
        for setting, params in settings.items():
            label = setting if setting == "defaults" else f"former: {_describe(params)}"
            if len(settings) == 1:
                label += " (" + NO_FORMER.get(name, "unchanged") + ")"
            rows.append((name, label, _summary(runs[setting])))
        print(f"## end {name}; {_load_avg()}", flush=True)
    print(f"# {_load_avg()}")
    _print_table(rows)


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    last = runs[-1]
    if "timeout" in last or "error" in last:
        return last
    return {**last, "cpu": statistics.median(r["cpu"] for r in runs),
            "wall": statistics.median(r["wall"] for r in runs)}


def _print_table(rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    print("\n| estimator | settings | CPU s | wall s | ratio defaults/former | ARI | clusters "
          "| warnings |\n|---|---|---|---|---|---|---|---|")
    former = {name: out for name, label, out in rows if label.startswith("former")}
    for name, label, out in rows:
        if "not_run" in out:
            cells = [f"not run: {out['not_run']}", "", ""]
        elif "timeout" in out:
            cells = [f"stopped after {out['timeout']:.0f} s", "", ""]
        elif "error" in out:
            cells = [f"{out['cpu']:.2f}", f"{out['wall']:.2f}", f"refused: {out['error']}"]
        else:
            ratio = ""
            old = former.get(name)
            if label.startswith("defaults") and old is not None and "ari" in old:
                ratio = f"{out['cpu'] / old['cpu']:.2f}x"
            cells = [f"{out['cpu']:.2f}", f"{out['wall']:.2f}", ratio]
        if "ari" in out:
            cells += [f"{out['ari']:.4f}", str(out["clusters"]),
                      ", ".join(out["warnings"]) or "none"]
        else:
            cells += ["", "", ", ".join(out.get("warnings", []))]
        print(f"| {name} | {label} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["wocsvm", "slmc-start", "all"])
    parser.add_argument("--n", type=int, default=None,
                        help="rows (default 20,000; 100,000 for all)")
    parser.add_argument("--repeats", type=int, default=None, help="default 3; 1 for all")
    parser.add_argument("--only", nargs="*", default=None, help="all: these class names only")
    parser.add_argument("--cluster-std", type=float, default=1.0, help="the blobs' spread")
    parser.add_argument("--features", type=int, default=4, help="wocsvm: the blobs' columns")
    parser.add_argument("--centers", type=int, default=3,
                        help="wocsvm: the blobs' centres (and n_clusters)")
    parser.add_argument("--timeout", type=float, default=600.0, help="all: seconds per fit")
    parser.add_argument("--refuse-window", type=float, default=30.0,
                        help="all: seconds at n rows for a fit its probe says would not end")
    parser.add_argument("--memory-limit", type=float, default=8.0,
                        help="all: address space of each fit's process, GiB")
    parser.add_argument("--compare-solver", default=None)
    parser.add_argument("--compare-final-pass", action="store_true",
                        help="wocsvm: against the final pass that maps the rows again")
    parser.add_argument("--compare-libsvm", default=None,
                        help="wocsvm: another copy of solvers/_weighted_ocsvm.py (its LIBSVM call)")
    parser.add_argument("--letter", default=os.path.join(os.environ.get("MARGINCLUST_DATA", "."),
                                                         "letter.csv.gz"))
    args = parser.parse_args()
    if args.what == "all":
        bench_all(args.n or 100_000, args.repeats or 1, args.only, args.cluster_std, args.timeout,
                  args.refuse_window, args.memory_limit)
    elif args.what == "wocsvm":
        bench_wocsvm(args.n or 20000, args.repeats or 3, args.compare_solver,
                     args.compare_libsvm, args.features, args.centers, args.cluster_std,
                     args.compare_final_pass)
    else:
        bench_slmc_start(args.letter, args.repeats or 3)


if __name__ == "__main__":
    main()

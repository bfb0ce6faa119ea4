"""Cost of the 0.2 defaults: WOC-SVM's low-rank one-class fits and SLMC's margin-search start.

``wocsvm``: :class:`marginclust.WOCSVMClustering` on ``make_blobs(n, 4, centers=3,
random_state=0)`` (above 5,000 rows: a 300-component Nystroem map, each machine a
linear one-class SVM solved by the box-simplex Newton solver) at its defaults and
at the former settings (``init="gmm", gamma="sigma0", nu=0.9, temperature=1,
decision_scale="libsvm"``). With ``--compare-solver PATH`` (another copy of
``solvers/_box_simplex_newton.py``) every fit also runs with that solver,
interleaved in the same process, and the labels of the two are compared.

``slmc-start``: seconds of :class:`marginclust.SLMC`'s start on standardised letter
(``--letter``, a gzip CSV whose last column is the label; K=26, the frame's
Fortran-ordered values as a user passes them): the margin-search start (the
default) against the former ``init="fcm-sharp", gamma="scale"``, interleaved; the
fit stops after the start.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_defaults_cost.py \\
        wocsvm --n 20000 --repeats 3 [--compare-solver OLD/_box_simplex_newton.py]
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_defaults_cost.py \\
        slmc-start --letter letter.csv.gz --repeats 3
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
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


def bench_wocsvm(n: int, repeats: int, compare_solver: str | None) -> None:
    X, y = make_blobs(n, 4, centers=3, random_state=0)
    solvers = {"this": weighted_ocsvm.solve_box_simplex_newton}
    if compare_solver:
        solvers = {"compared": _load_solver(compare_solver), **solvers}
    print(f"# WOCSVMClustering on make_blobs({n}, 4, centers=3); {_load_avg()}")
    times: dict[tuple[str, str], list[float]] = {}
    labels: dict[tuple[str, str], np.ndarray] = {}
    for rep in range(repeats):
        for setting, params in (("defaults", {}), ("former", FORMER_WOCSVM)):
            for name, solver in solvers.items():
                weighted_ocsvm.solve_box_simplex_newton = solver  # type: ignore[assignment]
                est = marginclust.WOCSVMClustering(3, random_state=0, **params)
                t0 = time.perf_counter()
                est.fit(X)
                dt = time.perf_counter() - t0
                times.setdefault((setting, name), []).append(dt)
                labels[(setting, name)] = est.labels_
                print(f"n={n} run {rep} {setting:8s} solver={name:8s} {dt:7.2f} s  ARI "
                      f"{adjusted_rand_score(y, est.labels_):.4f}  EM iterations "
                      f"{est.n_iter_}  one-class fits {est.n_fits_}", flush=True)
    weighted_ocsvm.solve_box_simplex_newton = solvers["this"]  # type: ignore[assignment]
    for setting in ("defaults", "former"):
        line = f"n={n} {setting}: median of {repeats}: " + ", ".join(
            f"{name} {statistics.median(times[(setting, name)]):.2f} s" for name in solvers)
        if compare_solver:
            same = np.array_equal(labels[(setting, "compared")], labels[(setting, "this")])
            line += f"; labels identical: {same}"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["wocsvm", "slmc-start"])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare-solver", default=None)
    parser.add_argument("--letter", default=os.path.join(os.environ.get("MARGINCLUST_DATA", "."),
                                                         "letter.csv.gz"))
    args = parser.parse_args()
    if args.what == "wocsvm":
        bench_wocsvm(args.n, args.repeats, args.compare_solver)
    else:
        bench_slmc_start(args.letter, args.repeats)


if __name__ == "__main__":
    main()

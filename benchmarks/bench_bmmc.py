"""BMMC speed: against its former code ("today") and against LinearSVC on the final labels.

Run (from the repository root, ``PYTHONPATH=src``)::

    git archive <old-commit> src | tar -x -C /tmp/mmc_base      # the code to compare with
    python benchmarks/bench_bmmc.py --baseline-src /tmp/mmc_base/src --quick   # < 1 min
    python benchmarks/bench_bmmc.py --baseline-src /tmp/mmc_base/src           # 1e5 rows
    python benchmarks/bench_bmmc.py --baseline-src /tmp/mmc_base/src --big     # 1e6 rows, once
    python benchmarks/bench_bmmc.py --baseline-src /tmp/mmc_base/src --init-check  # the start
    MARGINCLUST_DATA=... python benchmarks/bench_bmmc.py --label-free 1.0   # vs KMeans

(``--big --only sparse`` / ``--only dense`` runs one of the two 1e6 problems.)

What is compared, like with like:

- **ours vs today**: the same binary BMMC problem, solved by the current code and
  by the code under ``--baseline-src`` (imported in this process as the package
  ``marginclust_base``), interleaved, same seed, same ``init="pca"``. The current
  code divides the centred data by their root mean feature variance ``s``, so its
  ``C`` means ``C_old * s**2``: it is given ``C = C_old * s**2`` and solves the same
  problem (the labels are printed as agreeing or not). Without
  ``--baseline-src`` only the LinearSVC comparison runs.
- **ours vs LinearSVC**: scikit-learn's ``LinearSVC(loss="hinge")`` trained on
  BMMC's final labels with the same regularisation (``C_svc = C_old / n``), i.e.
  the supervised linear SVM a user who had the labels would train: the cost of
  one convex problem against BMMC's whole non-convex fit.

Each cell is the median of ``--reps`` interleaved runs with 1 and 2 BLAS threads
(threadpoolctl); ratios are printed, with the load average before and after
(timings on a shared machine are inflated; ratios taken interleaved much less).
The init's share of the fit is measured by timing ``initial_labels``.

Data: dense two Gaussians (d = 100, the clusters 6 apart on one axis) and a
sparse two-topic CSR matrix (d = 1e5, 50 non-zeros per row, 10 of them in a
class-specific block of 1,000 features; never densified).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from _ratios import record
from threadpoolctl import threadpool_limits

from marginclust import BMMC
from marginclust.estimators import _bmmc as ours_bmmc
from marginclust.metrics import adjusted_rand_index, clustering_accuracy
from marginclust.objectives._mmc import LinearData


def load_baseline(src: str) -> Any:
    """Import the package under ``src/marginclust`` as ``marginclust_base``."""
    path = os.path.join(src, "marginclust", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        "marginclust_base", path, submodule_search_locations=[os.path.dirname(path)]
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["marginclust_base"] = mod
    spec.loader.exec_module(mod)
    return mod


def two_gaussians(n: int, d: int, rng: np.random.RandomState) -> tuple[np.ndarray, np.ndarray]:
    y = rng.randint(2, size=n)
    X = rng.standard_normal((n, d))
    X[:, 0] += 3.0 * (2 * y - 1)
    return X, y


def sparse_two_topics(
    n: int, d: int, nnz: int, rng: np.random.RandomState
) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR with ``nnz`` entries per row, 10 of them in a class-specific block of 1,000 features."""
    y = rng.randint(2, size=n)
    cols = rng.randint(0, d, size=(n, nnz)).astype(np.int32)
    cols[:, :10] = rng.randint(0, 1000, size=(n, 10)) + 1000 * y[:, None]
    vals = rng.uniform(0.5, 1.5, size=n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int64)
    return sp.csr_matrix((vals, cols.ravel(), indptr), shape=(n, d)), y


class InitTimer:
    """Wraps a module's ``initial_labels`` to accumulate its seconds."""

    def __init__(self, module: Any) -> None:
        self.module, self.seconds = module, 0.0
        self.orig = module.initial_labels

        def timed(*args: Any, **kw: Any) -> Any:
            tic = time.perf_counter()
            out = self.orig(*args, **kw)
            self.seconds += time.perf_counter() - tic
            return out

        module.initial_labels = timed


def fit_timed(make: Any, X: Any, timer: InitTimer | None) -> tuple[float, float, Any]:
    if timer is not None:
        timer.seconds = 0.0
    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tic = time.perf_counter()
        est.fit(X)
        t = time.perf_counter() - tic
    return t, (timer.seconds if timer is not None else float("nan")), est


def compare(
    name: str, X: Any, y: np.ndarray, C_old: float, reps: int, base: Any, threads_list: Any
) -> None:
    from sklearn.svm import LinearSVC

    n = X.shape[0]
    s = LinearData(X, scale="auto").scale
    C_new = C_old * s * s
    t_ours = InitTimer(ours_bmmc)
    # the former estimator module itself (the package's lazy names point to "marginclust")
    base_mod = importlib.import_module("marginclust_base.estimators._bmmc") if base else None
    t_base = InitTimer(base_mod) if base_mod is not None else None
    for threads in threads_list:
        rows: dict[str, list[float]] = {"ours": [], "ours_init": [], "base": [], "base_init": []}
        rows["svc"] = []
        est = est_b = None
        with threadpool_limits(threads):
            for _ in range(reps):
                t, ti, est = fit_timed(lambda: BMMC(C=C_new, init="pca", random_state=0), X, t_ours)
                rows["ours"].append(t)
                rows["ours_init"].append(ti)
                if base is not None:
                    t, ti, est_b = fit_timed(
                        lambda: base_mod.BMMC(C=C_old, init="pca", random_state=0), X, t_base
                    )
                    rows["base"].append(t)
                    rows["base_init"].append(ti)
                assert est is not None
                svc = LinearSVC(C=C_old / n, loss="hinge", dual=True, max_iter=5000)
                tic = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    svc.fit(X, est.labels_)
                rows["svc"].append(time.perf_counter() - tic)
        med = {k: float(np.median(v)) if v else float("nan") for k, v in rows.items()}
        assert est is not None
        ca = clustering_accuracy(y, est.labels_, mapping="majority")
        line = (
            f"| {name} | {threads} | {med['ours']:.2f} | {med['ours_init'] / med['ours']:.0%} "
            f"| {est.n_iter_} / {int(est.n_inner_iter_.sum())} | {ca:.4f} "
        )
        if base is not None and est_b is not None:
            agree = adjusted_rand_index(est_b.labels_, est.labels_)
            line += (
                f"| {med['base']:.2f} | {med['base_init'] / med['base']:.0%} "
                f"| {est_b.n_iter_} / {int(est_b.n_inner_iter_.sum())} "
                f"| **{med['base'] / med['ours']:.2f}x** | {agree:.3f} "
            )
        else:
            line += "| - | - | - | - | - "
        line += f"| {med['svc']:.2f} | {med['ours'] / med['svc']:.2f} |"
        record("BMMC init share of its fit", "-", name, threads,
               med["ours_init"] / med["ours"], None, unit="%")
        record("BMMC fit", "LinearSVC on BMMC's final labels", name, threads,
               med["ours"] / med["svc"], None)
        if base is not None and est_b is not None:
            record("BMMC fit", "the code under --baseline-src", name, threads,
                   med["base"] / med["ours"], 3.0 if "CSR" in name else None, better="higher")
        print(line, flush=True)


def init_check(base: Any) -> None:
    """The "pca" start of the current code beside the former one: same labels? how fast?"""
    from sklearn.preprocessing import StandardScaler

    from marginclust.datasets import load_dataset
    from marginclust.estimators._linear_mmc import initial_labels

    old = importlib.import_module("marginclust_base.estimators._bmmc")
    rng = np.random.RandomState(0)
    sets: list[tuple[str, Any, np.ndarray]] = [
        ("CSR 20000 x 1e5", *sparse_two_topics(20_000, 100_000, 50, rng)),
        ("dense 50000 x 100", *two_gaussians(50_000, 100, rng)),
    ]
    for name in ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
                 "segmentation"]:  # fmt: skip
        X, y = load_dataset(name)[:2]
        sets.append((name, StandardScaler().fit_transform(X), y))
    print("\n## init='pca': current vs former start (seeds 0, 1; 1 BLAS thread)")
    print("| data | ARI(former, current) | start CA former | current | s former | current |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for name, X, y in sets:
            k, out = int(np.unique(y).size), []
            for seed in (0, 1):
                tic = time.perf_counter()
                a = old.initial_labels(X, k, "pca", np.random.RandomState(seed))
                ta = time.perf_counter() - tic
                tic = time.perf_counter()
                b = initial_labels(X, k, "pca", np.random.RandomState(seed), LinearData(X, "auto"))
                tb = time.perf_counter() - tic
                out.append(
                    (adjusted_rand_index(a, b), clustering_accuracy(y, a),
                     clustering_accuracy(y, b), ta, tb)
                )  # fmt: skip
            o = np.mean(out, axis=0)
            print(f"| {name} | {o[0]:.3f} | {o[1]:.3f} | {o[2]:.3f} | {o[3]:.2f} | {o[4]:.2f} |")


def label_free(C: float) -> None:
    """The brief's label-free protocol: standardised features, defaults (C given), seeds 0
    and 1, Hungarian CA beside KMeans(n_init=10); "(c)" counts collapsed fits."""
    from sklearn.cluster import KMeans
    from sklearn.preprocessing import StandardScaler

    from marginclust import CPMMC
    from marginclust.datasets import load_dataset
    from marginclust.utils import degeneracy

    print(f"\n## label-free: standardised, C={C}, seeds 0 and 1 (mean CA; (c) = collapsed)")
    print("| set | KMeans(n_init=10) | BMMC | CPMMC |\n|---|---|---|---|")
    means: dict[str, list[float]] = {"km": [], "bmmc": [], "cpmmc": []}
    for name in ["iris", "wine", "seeds", "glass", "ionosphere", "heart_statlog", "wdbc",
                 "segmentation"]:  # fmt: skip
        X, y = load_dataset(name)[:2]
        X = StandardScaler().fit_transform(X)
        k = int(np.unique(y).size)
        makers = {
            "km": lambda s, k=k: KMeans(k, n_init=10, random_state=s),
            "bmmc": lambda s, k=k: BMMC(k, C=C, random_state=s),
            "cpmmc": lambda s, k=k: CPMMC(k, C=C, random_state=s),
        }
        cells = []
        for key, make in makers.items():
            cas, collapsed = [], 0
            for seed in (0, 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    labels = make(seed).fit(X).labels_
                cas.append(clustering_accuracy(y, labels))
                collapsed += degeneracy(labels, k).n_found < k
            means[key].append(float(np.mean(cas)))
            cells.append(f"{np.mean(cas):.3f}" + (f" ({collapsed}c)" if collapsed else ""))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    km = np.array(means["km"])
    row = [f"{km.mean():.3f}"]
    for key in ("bmmc", "cpmmc"):
        v = np.array(means[key])
        row.append(f"{v.mean():.3f} (W/L {int((v > km).sum())}/{int((v < km).sum())})")
    print("| mean | " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", default=None, help="src/ of the code to compare with")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, < 1 minute")
    parser.add_argument("--big", action="store_true", help="1e6 rows (one repetition each)")
    parser.add_argument("--sparse-C", type=float, default=100.0, help="C of the former code")
    parser.add_argument("--only", choices=["dense", "sparse"], default=None)
    parser.add_argument(
        "--init-check", action="store_true", help="only compare the 'pca' starts (needs data)"
    )
    parser.add_argument(
        "--label-free",
        type=float,
        default=None,
        metavar="C",
        help="only the label-free protocol on the shared sets at this C (needs data)",
    )
    args = parser.parse_args()
    base = load_baseline(args.baseline_src) if args.baseline_src else None
    print(f"load average before: {os.getloadavg()}")
    if args.label_free is not None:
        label_free(args.label_free)
        print(f"\nload average after: {os.getloadavg()}")
        return
    if args.init_check:
        init_check(base)
        print(f"\nload average after: {os.getloadavg()}")
        return
    print(
        "\n| data | threads | ours (s) | init share | CCCP / bundle iter | CA | today (s) "
        "| init share | CCCP / bundle iter | today / ours | ARI(ours, today) | LinearSVC (s) "
        "| ours / LinearSVC |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rng = np.random.RandomState(0)
    threads_list: tuple[int, ...] = (1, 2)
    if args.quick:
        dense_n, sparse_n, reps = [10_000], [10_000], max(1, min(args.reps, 3))
    elif args.big:
        dense_n, sparse_n, reps = [1_000_000], [1_000_000], 1
        threads_list = (1,)  # run each 1e6 fit once on a shared machine
    else:
        dense_n, sparse_n, reps = [100_000], [100_000], args.reps
    if args.only == "sparse":
        dense_n = []
    if args.only == "dense":
        sparse_n = []
    for n in dense_n:
        X, y = two_gaussians(n, 100, rng)
        compare(f"dense {n} x 100", X, y, 1.0, reps, base, threads_list)
        del X
    for n in sparse_n:
        Xs, y = sparse_two_topics(n, 100_000, 50, rng)
        compare(f"CSR {n} x 1e5 (50 nnz/row)", Xs, y, args.sparse_C, reps, base, threads_list)
        del Xs
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

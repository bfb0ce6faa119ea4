"""``marginclust demo``: every available method on small bundled data, a table and a figure.

Runs each public clusterer that imports (others are listed as skipped, with the
reason) on scikit-learn's bundled iris, wine and breast cancer sets
(standardised), prints clustering accuracy under the majority and the
one-to-one (Hungarian) mapping with the fit time, and writes ``demo.png``: a
2-D synthetic set (SLMC's four Gaussians) coloured by each soft method's
memberships, and the objective histories. Needs only the core and matplotlib.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DEMO_DATASETS", "DEMO_PARAMS", "add_parser", "run"]

# Per-method demo parameters (each method's owner tunes its own entry).
DEMO_PARAMS: dict[str, dict[str, Any]] = {
    "FuzzyCMeans": {"m": 2.0},
    "KernelFuzzyCMeans": {},
    "KernelKMeans": {},
    "SLMC": {},
    "IterativeLSSVM": {},
    "PKM": {},
    "EMMC": {},
    "IterSVR": {},
    "IterSVM": {},
    "BMMC": {},
    "CPMMC": {},
    "WOCSVMClustering": {},
    "OCSVMHardClustering": {},
}

DEMO_DATASETS = ("sk-iris", "sk-wine", "sk-breast_cancer")


def add_parser(sub: Any) -> None:
    """Register the ``demo`` subcommand."""
    p = sub.add_parser(
        "demo",
        help="run every available method on small bundled data sets",
        description="Fit every available method on iris, wine and breast cancer "
        "(scikit-learn's copies, standardised), print clustering accuracy and fit time, and "
        "write a figure of soft memberships and convergence curves.",
    )
    p.add_argument("--out", default="demo-output", help="directory for demo.png "
                   "(default: demo-output)")
    p.add_argument("--seed", type=int, default=0, help="random_state (default 0)")
    p.add_argument("--no-plot", action="store_true", help="skip the figure")
    p.add_argument(
        "--methods", default=None,
        help="comma-separated method names, as 'fit --method' takes them (short names such "
        "as fcm,slmc or class names; default: all)"
    )
    p.set_defaults(func=run)


def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    from marginclust.bench._preprocessing import preprocess
    from marginclust.datasets import load_dataset

    X, y = load_dataset(name)
    return preprocess(X, "standardize"), np.asarray(y)


def _fit(cls: type, params: dict[str, Any], X: np.ndarray, k: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {"error": None, "n_warnings": 0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = cls(n_clusters=k, random_state=seed, **params)
            start = time.perf_counter()
            est.fit(X)
            out["time"] = time.perf_counter() - start
            out["estimator"] = est
        except Exception as exc:  # noqa: BLE001 - the demo reports failures, then goes on
            out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    out["n_warnings"] = len(caught)
    out["warning"] = (
        f"{caught[0].category.__name__}: {str(caught[0].message).splitlines()[0][:100]}"
        if caught
        else None
    )
    return out


def _methods(selected: str | None) -> tuple[list[tuple[str, type]], list[str]]:
    import marginclust

    from ._fit import clusterer_names, resolve_method

    names = clusterer_names()
    if selected:
        wanted = [s.strip() for s in selected.split(",") if s.strip()]
        names = list(dict.fromkeys(resolve_method(w).__name__ for w in wanted))
    found, notes = [], []
    for name in names:
        try:
            found.append((name, getattr(marginclust, name)))
        except Exception as exc:  # noqa: BLE001 - a method not written yet is skipped
            notes.append(f"{name}: skipped, import failed ({type(exc).__name__}: {exc})")
    return found, notes


def run(args: argparse.Namespace) -> int:
    """Run the ``demo`` subcommand."""
    from marginclust.metrics import clustering_accuracy

    total_start = time.perf_counter()
    out = Path(args.out)
    if not args.no_plot and out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out} exists and is not a directory; name a directory.")
    methods, notes = _methods(args.methods)
    data = {name: _load(name) for name in DEMO_DATASETS}
    print(
        f"{'method':<22} {'data':<17} {'n':>4} {'k':>2} {'CA maj':>7} {'CA hung':>7} "
        f"{'fit s':>7} {'iter':>5} {'warn':>4}"
    )
    from sklearn.cluster import KMeans

    reference: list[tuple[str, type]] = [("KMeans (scikit-learn)", KMeans)]
    for label, cls in reference + methods:
        params = {} if cls is KMeans else DEMO_PARAMS.get(label, {})
        max_k = getattr(cls, "_max_clusters", None)
        for dname, (X, y) in data.items():
            k = int(np.unique(y).size)
            if max_k is not None and k > max_k:
                notes.append(f"{label} on {dname}: skipped, binary method ({k} classes)")
                continue
            res = _fit(cls, params, X, k, args.seed)
            if res["error"] is not None:
                notes.append(f"{label} on {dname}: failed, {res['error']}")
                print(f"{label:<22} {dname:<17} {X.shape[0]:>4} {k:>2} {'failed':>7}")
                continue
            if res["warning"] is not None:
                notes.append(f"{label} on {dname}: {res['warning']}")
            labels = res["estimator"].labels_
            n_iter = getattr(res["estimator"], "n_iter_", None)
            print(
                f"{label:<22} {dname:<17} {X.shape[0]:>4} {k:>2} "
                f"{clustering_accuracy(y, labels, mapping='majority'):>7.4f} "
                f"{clustering_accuracy(y, labels, mapping='hungarian'):>7.4f} "
                f"{res['time']:>7.3f} {'-' if n_iter is None else int(np.max(n_iter)):>5} "
                f"{res['n_warnings']:>4}"
            )
    print()
    print("Data standardised (zero mean, unit variance); k = number of classes; "
          f"random_state={args.seed}; warn = warnings raised during the fit.")
    for note in notes:
        print(f"- {note}")
    if not args.no_plot:
        path = _figure(methods, Path(args.out), args.seed)
        print(f"Figure written to {path}")
    print(f"Demo finished in {time.perf_counter() - total_start:.1f} s.")
    return 0


def _figure(methods: list[tuple[str, type]], out: Path, seed: int) -> Path:
    from marginclust.datasets import load_dataset
    from marginclust.plotting import plot_convergence, plot_memberships
    from marginclust.plotting._membership import _pyplot

    plt = _pyplot()
    X, _ = load_dataset("slmc-four-gaussians")
    soft, histories = [], {}
    for name, cls in methods:
        max_k = getattr(cls, "_max_clusters", None)
        k = 4 if max_k is None else min(4, max_k)
        res = _fit(cls, DEMO_PARAMS.get(name, {}), X, k, seed)
        est = res.get("estimator")
        if est is None:
            continue
        history = getattr(est, "objective_history_", None)
        if history is not None and len(history) > 0:
            histories[name] = history
        if getattr(est, "memberships_", None) is not None:
            soft.append((name, est))
    ncols = max(1, min(4, len(soft)))
    nrows = -(-len(soft) // ncols) + 1
    fig = plt.figure(figsize=(3.4 * max(ncols, 3), 3.4 * nrows))
    grid = fig.add_gridspec(nrows, ncols)
    for i, (name, est) in enumerate(soft):
        ax = fig.add_subplot(grid[i // ncols, i % ncols])
        centers = getattr(est, "cluster_centers_", None)
        if centers is None or np.ndim(centers) != 2 or np.shape(centers)[1] != X.shape[1]:
            centers = None
        plot_memberships(
            X, est.memberships_, centers=centers, ax=ax,
            title=f"{name} (k={est.memberships_.shape[1]})",
        )
    plot_convergence(
        histories, ax=fig.add_subplot(grid[nrows - 1, :]),
        title="Objective per iteration (each curve scaled to [0, 1])",
    )
    fig.suptitle("marginclust demo: SLMC four-Gaussian set coloured by soft memberships")
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / "demo.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

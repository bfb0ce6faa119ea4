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

from .._registry import ESTIMATORS, estimator_class

__all__ = ["CAPTION", "DEMO_DATASETS", "DEMO_PARAMS", "add_parser", "demo_figure", "run"]

# Per-method demo parameters: the ``demo_params`` of the estimator registry.
DEMO_PARAMS: dict[str, dict[str, Any]] = {
    spec.name: dict(spec.demo_params) for spec in ESTIMATORS if spec.clusterer
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
    from marginclust.datasets import load_dataset
    from marginclust.utils import preprocess

    X, y = load_dataset(name)[:2]
    return preprocess(X, "standardize"), np.asarray(y)


def _fit(cls: type, params: dict[str, Any], X: np.ndarray, k: int, seed: int) -> dict[str, Any]:
    from marginclust.utils import shorten

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
            out["error"] = f"{type(exc).__name__}: {shorten(str(exc).splitlines()[0], 160)}"
    out["n_warnings"] = len(caught)
    out["warning"] = (
        f"{caught[0].category.__name__}: "
        f"{shorten(str(caught[0].message).splitlines()[0], 160)}"
        if caught
        else None
    )
    return out


def _methods(selected: str | None) -> tuple[list[tuple[str, type]], list[str]]:
    from ._fit import clusterer_names, resolve_method

    names = clusterer_names()
    if selected:
        wanted = [s.strip() for s in selected.split(",") if s.strip()]
        names = list(dict.fromkeys(resolve_method(w).__name__ for w in wanted))
    found, notes = [], []
    for name in names:
        try:
            found.append((name, estimator_class(name)))
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


CAPTION = (
    "Each point mixes its clusters' colours by its memberships: blended colours are split "
    "memberships (points between clusters). Cluster colours are matched across panels "
    "(Hungarian pairing with the first panel). Bottom: each objective scaled to [0, 1] "
    "against the fraction of its run (iteration counts in the legend)."
)


def demo_figure(X: np.ndarray, fitted: list[tuple[str, Any]]) -> Any:
    """The demo's figure: a panel per soft method, then every method's convergence.

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
        The 2-D data the estimators were fitted on.
    fitted : list of (name, estimator)
        Fitted estimators; soft ones (``memberships_``) get a scatter panel, every
        one with an ``objective_history_`` gets a curve.

    Returns
    -------
    fig : matplotlib Figure
    """
    from marginclust.plotting import (
        align_memberships,
        import_pyplot,
        method_styles,
        plot_convergence,
        plot_memberships,
    )

    plt = import_pyplot()
    soft = [(n, e) for n, e in fitted if getattr(e, "memberships_", None) is not None]
    histories = {}
    for name, est in fitted:
        history = getattr(est, "objective_history_", None)
        if history is not None and np.isfinite(np.asarray(history, dtype=float)).any():
            histories[name] = history
    n = len(soft)
    prow = -(-n // 5) if n else 0
    ncols = max(1, -(-n // prow)) if n else 1
    nrows = prow + (1 if histories else 0)
    if nrows == 0:
        raise ValueError("nothing to draw: no method produced memberships or a history.")
    fig = plt.figure(figsize=(3.3 * max(ncols, 3), 3.3 * prow + (3.6 if histories else 0) + 0.9))
    grid = fig.add_gridspec(nrows, ncols, height_ratios=[1.0] * prow + ([1.1] if histories
                                                                          else []))
    cmap = plt.get_cmap("tab10")
    k_max = max((e.memberships_.shape[1] for _, e in soft), default=1)
    palette = np.array([cmap(j % 10)[:3] for j in range(k_max)])
    reference = None
    for i, (name, est) in enumerate(soft):
        U = np.asarray(est.memberships_)
        if reference is None:
            reference = U.argmax(axis=1)
        else:
            U = align_memberships(U, reference)
        ax = fig.add_subplot(grid[i // ncols, i % ncols])
        plot_memberships(X, U, ax=ax, palette=palette[: U.shape[1]],
                         title=f"{name} (k={U.shape[1]})")
    if histories:
        plot_convergence(
            histories, ax=fig.add_subplot(grid[nrows - 1, :]), x="fraction",
            styles=method_styles(list(histories)),
            title="Objective per iteration (each curve scaled to [0, 1])",
        )
    fig.suptitle("marginclust demo: SLMC's four-Gaussian set coloured by soft memberships")
    fig.text(0.5, 0.01, CAPTION, ha="center", va="bottom", fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def _figure(methods: list[tuple[str, type]], out: Path, seed: int) -> Path:
    from marginclust.datasets import load_dataset
    from marginclust.plotting import import_pyplot

    plt = import_pyplot()
    X = load_dataset("slmc-four-gaussians")[0]
    fitted = []
    for name, cls in methods:
        max_k = getattr(cls, "_max_clusters", None)
        k = 4 if max_k is None else min(4, max_k)
        est = _fit(cls, DEMO_PARAMS.get(name, {}), X, k, seed).get("estimator")
        if est is not None:
            fitted.append((name, est))
    fig = demo_figure(X, fitted)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "demo.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

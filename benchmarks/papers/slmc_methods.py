"""SLMC and iterative LS-SVM for the harness, plus the SLMC paper's m sweep and figures.

Methods (imported by :mod:`papers.slmc`):

- ``slmc``: :class:`marginclust.SLMC`, m = 2. Paper protocol (Sec. 4.1): one
  ``setting`` per grid point, linear kernel with ``lam`` in {0.1, 0.5, 1, 5, 10}
  and RBF kernel with the same ``lam`` and ``sigma`` in {0.25, 0.5, 1, 2, 4} x
  sigma0 (30 settings, not a 2 x 5 x 5 product, since the linear kernel has no
  width); FCM initialisation as in the paper. Default protocol: the label-free
  defaults measured by ``benchmarks/slmc_defaults.py`` (see ``SLMC_DEFAULTS``).
- ``iterative-lssvm``: :class:`marginclust.IterativeLSSVM` (binary only), the same
  30 settings; 2-means initialisation as in Zhang, Tsang & Kwok (2009).

Tables: ``slmc-table8`` (Table 8, m in {1.5, 2, 2.5} on the optdigits pairs; the
printed numbers are FCM's, SLMC beside them) and ``slmc-fig3`` (Fig. 3, m in {1.5,
..., 5}) are grids with a curve over m; ``slmc-fig2`` (Fig. 2, the four Gaussians with
3..6 clusters) a grid that draws ``slmc_fig2.png``; ``slmc-fig4`` (Fig. 4, objective
and CA over the first 20 iterations) a custom trajectory on the runner's fits.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, clone

from marginclust.bench import Method, RunContext, Table, register_method, summarize

from ._common import Delegating, md_table, register_table, split_method, table_head
from .baselines import SIGMA_MULTIPLES

__all__ = [
    "PAPER_SETTINGS", "SLMC_DEFAULTS", "Sigma0Width", "Standardized", "make_iterative_lssvm",
    "make_slmc", "parse_setting",
]

LAMS = (0.1, 0.5, 1.0, 5.0, 10.0)
# The paper's 30 settings, as readable strings (recorded in every row).
PAPER_SETTINGS = [f"linear lam={lam:g}" for lam in LAMS] + [
    f"rbf lam={lam:g} sigma={s:g}x" for lam in LAMS for s in SIGMA_MULTIPLES
]
# Label-free defaults: SLMC's own of 0.1 (lam=10, gamma="scale", init="fcm-sharp", chosen
# by benchmarks/slmc_defaults.py over eight standardised UCI sets, and the exact W-step)
# plus standardisation, passed explicitly so the tables keep their numbers when SLMC's
# defaults change.
# ``sigma_multiple`` (the paper's width as a multiple of sigma0) is used only by the
# figure that reproduces the paper's Fig. 2 setting.
SLMC_DEFAULTS: dict[str, Any] = {"lam": 10.0, "gamma": "scale", "init": "fcm-sharp",
                                 "w_step": "exact", "standardize": True}
_FIG2_PARAMS: dict[str, Any] = {"lam": 1.0, "sigma_multiple": 0.25, "init": "fcm"}


def parse_setting(setting: str) -> dict[str, Any]:
    """``"rbf lam=5 sigma=0.5x"`` -> ``{"kernel": "rbf", "lam": 5.0, "sigma_multiple": 0.5}``
    (the width as a multiple of sigma0)."""
    kernel, *rest = setting.split()
    out: dict[str, Any] = {"kernel": kernel}
    for item in rest:
        key, _, value = item.partition("=")
        if key == "lam":
            out["lam"] = float(value)
        elif key == "sigma":
            out["sigma_multiple"] = float(value.rstrip("x"))
        else:
            raise ValueError(f"Unknown item {item!r} in setting {setting!r}.")
    return out


class Standardized(Delegating, ClusterMixin, BaseEstimator):
    """Standardise the columns of X (zero mean, unit variance), then fit ``estimator``.

    Parameters
    ----------
    estimator : estimator
        A marginclust clusterer.

    Attributes
    ----------
    estimator_ : estimator
        The fitted copy; its fitted attributes are readable on the wrapper.
    """

    _delegated = ("kernel", "max_iter")

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def _scale(self, X: Any) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_

    def fit(self, X: Any, y: Any = None) -> Standardized:
        """Standardise ``X`` and fit a copy of the estimator on it."""
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        self.estimator_ = clone(self.estimator).fit(self._scale(X))
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Cluster labels of new data."""
        return self.estimator_.predict(self._scale(X))


class Sigma0Width(Delegating, ClusterMixin, BaseEstimator):
    """Fit ``estimator`` with the RBF width ``sigma = multiple * sigma0`` of the data it sees.

    The papers state widths as multiples of sigma0 (the mean pairwise
    distance); the estimators take ``gamma``, so the multiple is converted at
    fit time: ``gamma = gamma_sigma0 / multiple^2``.

    Parameters
    ----------
    estimator : estimator
        A marginclust kernel clusterer with a ``gamma`` parameter.
    multiple : float, default=1.0
        Width as a multiple of sigma0.
    """

    _delegated = ("kernel", "max_iter")

    def __init__(self, estimator: Any = None, multiple: float = 1.0) -> None:
        self.estimator = estimator
        self.multiple = multiple

    def fit(self, X: Any, y: Any = None) -> Sigma0Width:
        """Resolve ``gamma`` on ``X`` and fit a copy of the estimator."""
        from marginclust.feature_maps import resolve_gamma

        Xa = np.asarray(X, dtype=np.float64)
        g0 = resolve_gamma("sigma0", Xa - Xa.mean(axis=0), random_state=0)
        self.estimator_ = (
            clone(self.estimator).set_params(gamma=g0 / float(self.multiple) ** 2).fit(Xa)
        )
        return self


def _build(cls_name: str, n_clusters: int, random_state: Any, params: dict[str, Any]) -> Any:
    import marginclust

    params = dict(params)
    setting = params.pop("setting", None)
    standardize = bool(params.pop("standardize", False))
    if setting is not None:
        params.update(parse_setting(setting))
    multiple = params.pop("sigma_multiple", None)
    est = getattr(marginclust, cls_name)(n_clusters=n_clusters, random_state=random_state, **params)
    if multiple is not None and params.get("kernel", "rbf") == "rbf":
        est = Sigma0Width(est, multiple)
    return Standardized(est) if standardize else est


def make_slmc(*, n_clusters: int, random_state: Any, **params: Any) -> Any:
    """:class:`marginclust.SLMC`; ``setting`` (see :func:`parse_setting`) and
    ``standardize`` are resolved here, every other parameter is passed on."""
    return _build("SLMC", n_clusters, random_state, params)


def make_iterative_lssvm(*, n_clusters: int, random_state: Any, **params: Any) -> Any:
    """:class:`marginclust.IterativeLSSVM` (binary); ``setting`` as for :func:`make_slmc`."""
    return _build("IterativeLSSVM", n_clusters, random_state, params)


register_method(
    Method(
        "slmc",
        make_slmc,
        grid={"setting": PAPER_SETTINGS, "init": ["fcm"], "m": [2.0], "n_components": [None]},
        defaults=dict(SLMC_DEFAULTS),
        notes="SLMC (exact kernel, m = 2). Paper protocol: 30 settings (linear and RBF, "
        "lam in {0.1,0.5,1,5,10}, sigma in {0.25,...,4} x sigma0), FCM init; default: "
        f"{SLMC_DEFAULTS} (label-free, measured by benchmarks/slmc_defaults.py)",
    )
)
register_method(
    Method(
        "iterative-lssvm",
        make_iterative_lssvm,
        grid={"setting": PAPER_SETTINGS},
        defaults={"lam": 0.1, "sigma_multiple": 1.0, "balance": 0.1, "standardize": True},
        notes="Iterative LS-SVM (eq. 14), binary only (n/a on multi-class sets), "
        "2-means init, balance |sum y| <= 0.1 n; default: lam=0.1, sigma0, "
        "standardised (benchmarks/slmc_defaults.py --lssvm: mean CA 0.821 over 8 binary sets)",
    )
)


# ---------------------------------------------------------------- custom tables
OPTDIGITS_PAIRS = ("optdigits:8,9", "optdigits:3,8", "optdigits:3,9")
FIG3_DATASETS = (
    "lenses", "soybean_small", "hepatitis", "wine", "glass", "heart_statlog", "ionosphere",
    "optdigits:8,9", "optdigits:3,8", "optdigits:3,9", "australian",
)
FIG4_DATASETS = ("lenses", "hepatitis", "wine", "heart_statlog", "optdigits:3,8", "optdigits:3,9")
TABLE8_M = (1.5, 2.0, 2.5)
FIG3_M = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0)
QUICK_SETTINGS = ["rbf lam=1 sigma=0.5x", "rbf lam=10 sigma=0.5x", "rbf lam=10 sigma=1x"]

_MEASURES4 = ("ca_majority", "pc", "pe", "xb")


def _mean_by(rows: Sequence[dict], keys: Sequence[str], value: str) -> dict[tuple, float]:
    acc: dict[tuple, list[float]] = {}
    for r in rows:
        if value in r and r[value] is not None and np.isfinite(r[value]):
            acc.setdefault(tuple(r[k] for k in keys), []).append(float(r[value]))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def _by_m(rows: Sequence[dict], table: Table) -> dict[tuple[str, str, float], Any]:
    """``(method, dataset, m) -> summary`` of a curve-over-m table's rows."""
    out = {}
    for (dataset, variant, _), summary in summarize(rows, table).items():
        method, params = split_method(variant)
        if "m" in params:
            out[(method, dataset, float(params["m"]))] = summary
    return out


def report_fig3(rows: Sequence[dict], table: Table) -> str:
    """Markdown: per m, the mean over data sets of each measure, then CA per data set."""
    summaries = _by_m(rows, table)
    ms = sorted({m for _, _, m in summaries})
    body = [[f"{m:g}", *(f"{v:.4f}" for v in (
        np.nanmean([s[n]["mean"] for k, s in summaries.items() if k[2] == m])
        for n in table.measures))] for m in ms]
    per_set = [[d, *("nan" if (c := summaries.get(("slmc", d, m))) is None
                     else f"{c['ca_majority']['mean']:.4f}" for m in ms)]
               for d in sorted({d for _, d, _ in summaries})]
    return "\n".join([
        *table_head(table)[:2], f"Source: {table.source} (a figure; no printed numbers; the paper "
        "finds the best mean CA at m = 2)", "", *md_table(["m", "CA", "PC", "PE", "XB"], body),
        "", "CA per data set:", "", *md_table(["data set", *(f"m={m:g}" for m in ms)], per_set),
    ])


def _fit_fcm_init(
    context: RunContext, X: np.ndarray, y: np.ndarray, seed: int, setting: str, **params: Any
) -> tuple[dict[str, Any], Any]:
    est = make_slmc(n_clusters=int(np.unique(y).size), random_state=seed, setting=setting,
                    init="fcm", **params)
    return context.fit(est, X, y)


def run_fig4(table: Table, context: RunContext) -> list[dict[str, Any]]:
    """Fig. 4: J and CA over the first 20 iterations, best setting per run."""
    datasets = context.pick(FIG4_DATASETS, FIG4_DATASETS[:2], FIG4_DATASETS[:1])
    settings = context.pick(PAPER_SETTINGS, QUICK_SETTINGS, QUICK_SETTINGS[:1])
    rows: list[dict[str, Any]] = []
    for spec in datasets:
        try:
            X, y = context.load(spec)
        except (FileNotFoundError, ValueError) as exc:
            rows.append({"dataset": spec, "status": "no-data", "error": str(exc)})
            continue
        for run in range(context.pick(5, 1)):
            seed = context.seed_for(spec, "slmc", run)
            fit = partial(_fit_fcm_init, context, X, y, seed)
            # per run, the setting with the best CA (first of equals), as the paper tuned
            fits = [fit(setting)[0] for setting in settings]
            best = max(range(len(settings)), key=lambda i: fits[i]["ca_majority"] or -1.0)
            # The fit is deterministic given the seed, so max_iter = t reproduces the
            # first t sweeps of one trajectory (tol = 0: no early stop).
            exact: dict[str, Any] = {"tol": 0.0, "tol_memberships": 0.0}
            _, full = fit(settings[best], max_iter=20, **exact)
            for t, objective in enumerate(full.objective_history_, start=1):
                part, _ = fit(settings[best], max_iter=t, **exact)
                rows.append({"dataset": spec, "method": "slmc", "run": run, "seed": seed,
                             "setting": settings[best], "iteration": t,
                             "objective": float(objective), "ca_majority": part["ca_majority"],
                             "status": part["status"],
                             "n_iter_default_rule": fits[best]["n_iter"]})
    return rows


def report_fig4(rows: Sequence[dict], table: Table) -> str:
    """Markdown: mean objective and CA per iteration and data set, and mean n_iter."""
    J = _mean_by(rows, ("dataset", "iteration"), "objective")
    ca = _mean_by(rows, ("dataset", "iteration"), "ca_majority")
    n_it = _mean_by(rows, ("dataset",), "n_iter_default_rule")
    lines = [*table_head(table)[:2], f"Source: {table.source} (a figure)", ""]
    for d in sorted({k[0] for k in J}):
        its = sorted(k[1] for k in J if k[0] == d)
        lines += [
            f"**{d}** (mean iterations with the default stopping rule: "
            f"{n_it.get((d,), float('nan')):.1f})",
            "",
            "| t | " + " | ".join(str(t) for t in its) + " |",
            "|---|" + "---|" * len(its),
            "| J | " + " | ".join(f"{J[(d, t)]:.4g}" for t in its) + " |",
            "| CA | " + " | ".join(f"{ca[(d, t)]:.3f}" for t in its) + " |",
            "",
        ]
        increases = sum(J[(d, t + 1)] > J[(d, t)] * (1 + 1e-12) for t in its[:-1])
        lines.append(f"objective increases: {increases}")
        lines.append("")
    return "\n".join(lines)


def figure_fig2(rows: Sequence[dict], table: Table, context: RunContext) -> None:
    """Fig. 2: SLMC's partitions of the four Gaussians for k = 3..6, to ``slmc_fig2.png``."""
    from pathlib import Path

    from marginclust.bench._runner import parse_dataset
    from marginclust.feature_maps import resolve_gamma
    from marginclust.plotting._slmc import plot_slmc_cluster_numbers

    X, _ = context.load("slmc-four-gaussians")
    ks = sorted({parse_dataset(r["dataset"])[1] or 0 for r in rows})
    gamma = resolve_gamma("sigma0", X - X.mean(axis=0), random_state=0) / float(
        _FIG2_PARAMS["sigma_multiple"]) ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = plot_slmc_cluster_numbers(
            X, ks, random_state=context.seed_for("fig2"), lam=_FIG2_PARAMS["lam"],
            init=_FIG2_PARAMS["init"], gamma=gamma,
        )
    assert context.out_dir is not None
    path = Path(context.out_dir) / "slmc_fig2.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


_SRC = "Wang & Chen 2013, Soft large margin clustering, Inf. Sci."


def _m_seed(job: Any) -> tuple[object, ...]:
    """Seeds per data set, method, m and run (those of the m sweeps these tables replaced).

    A label-free job searches its own m, so it has none: its seed is keyed by ``None``.
    """
    return (job.dataset, job.method, job.params.get("m"), job.run)


register_table(
    Table(
        name="slmc-table8",
        title="FCM (and SLMC) with m in {1.5, 2, 2.5} on the optdigits pairs",
        source=f"{_SRC}, Table 8",
        datasets=list(OPTDIGITS_PAIRS),
        methods=["fcm", "slmc"],
        measures=["ca_majority", "pc", "pe", "xb_own_m"],
        n_runs=5,
        protocols=("paper",),
        grids={
            "fcm": {"m": list(TABLE8_M)},
            "slmc": {"setting": PAPER_SETTINGS, "m": list(TABLE8_M), "init": ["fcm"]},
        },
        curve=("m",),
        seed_key=_m_seed,
        quick={
            "datasets": list(OPTDIGITS_PAIRS[:1]),
            "n_runs": 1,
            "grid": {
                "fcm": {"m": list(TABLE8_M)},
                "slmc": {"setting": QUICK_SETTINGS, "m": list(TABLE8_M), "init": ["fcm"]},
            },
        },
        notes="The printed values at m = 2 are FCM's (they equal Table 6/7's FCM entries), so the "
        "paper column is compared with FCM (one k-means++ init per run; XB eq. 19 with FCM's "
        "centres and its m). SLMC: per run, the best of the 30 paper settings by CA (FCM init at "
        "the same m); its XB uses u^2-weighted centres.",
    )
)
register_table(
    Table(
        name="slmc-fig3",
        title="SLMC measures as a function of the fuzzifier m",
        source=f"{_SRC}, Fig. 3",
        datasets=list(FIG3_DATASETS),
        methods=["slmc"],
        measures=list(_MEASURES4),
        n_runs=2,
        protocols=("paper",),
        grids={"slmc": {"setting": PAPER_SETTINGS, "m": list(FIG3_M), "init": ["fcm"]}},
        curve=("m",),
        seed_key=_m_seed,
        quick={
            "datasets": ["wine"],
            "n_runs": 1,
            "grid": {"slmc": {"setting": QUICK_SETTINGS, "m": [1.5, 2.0, 3.0], "init": ["fcm"]}},
        },
        report=report_fig3,
        notes="Best of the 30 paper settings per run and m (FCM init at that m).",
    )
)
register_table(
    Table(
        name="slmc-fig4",
        title="SLMC objective and CA over the first 20 iterations",
        source=f"{_SRC}, Fig. 4",
        datasets=list(FIG4_DATASETS),
        methods=["slmc"],
        measures=["objective", "ca_majority"],
        n_runs=5,
        run=run_fig4,
        report=report_fig4,
    )
)
register_table(
    Table(
        name="slmc-fig2",
        title="SLMC on the synthetic four Gaussians, 3 to 6 clusters",
        source=f"{_SRC}, Fig. 2",
        datasets=[f"slmc-four-gaussians@k={k}" for k in (3, 4, 5, 6)],
        methods=["slmc"],
        measures=list(_MEASURES4),
        n_runs=1,
        protocols=("paper",),
        grids={"slmc": [dict(_FIG2_PARAMS)]},
        seed_key=lambda job: ("fig2", int(job.dataset.rsplit("=", 1)[1])),
        quick={"datasets": ["slmc-four-gaussians@k=3", "slmc-four-gaussians@k=4"], "n_runs": 1},
        figure=figure_fig2,
        notes="lam = 1, sigma = 0.25 sigma0, FCM init (the paper's Fig. 2 setting); the "
        "figure is written to slmc_fig2.png in the output directory.",
    )
)

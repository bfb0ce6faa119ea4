"""Run a paper table: expand it into jobs, fit, score, and keep one tidy row per job.

A grid :class:`~marginclust.bench.Table` expands into jobs (data set x method x
protocol x setting x run); the ``"paper"`` protocol runs the grid (reports keep,
per run, the setting with the best first measure, picked with the labels as the
papers did), ``"default"`` the method's label-free defaults and ``"label-free"``
a :class:`~marginclust.model_selection.StabilitySearch` from them. Every fit goes
through :func:`fit_and_score` (custom tables reach it through
:meth:`RunContext.fit <marginclust.bench.RunContext.fit>`): only ``fit`` is timed,
warnings are counted, a raise is a row with a ``status``. Rows are appended to
``<out_dir>/<table>.jsonl`` as jobs finish, so a rerun resumes (failed jobs are
tried again).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import platform
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from marginclust.utils import preprocess

from .._version import __version__
from ._label_free import LABEL_FREE, label_free_search, searched_estimator
from ._registry import (
    DATASETS,
    MEASURES,
    METHODS,
    TABLES,
    TINY_MAX_SAMPLES,
    Measure,
    Method,
    Table,
    runs_for,
)
from ._seeds import derive_seed

__all__ = [
    "Job", "RunContext", "expand_jobs", "fit_and_score", "get_table", "load_data",
    "parse_dataset", "read_rows", "run_table", "select_best",
]

NO_DATA = "data set not available"
NOT_APPLICABLE = "not applicable"
STATUSES = ("ok", "failed", "not-applicable", "skipped", "no-data")
# Rows of the tables run in this process, so a table that reports another
# table's fits (``rows_from``) does not fit them again.
_MEMO: dict[tuple[Any, ...], list[dict[str, Any]]] = {}

# Columns every grid row has (measures are added as further columns).
ROW_FIELDS = (
    "table", "dataset", "method", "protocol", "params", "variant", "run", "seed",
    "n_clusters", "preprocessing", "n_samples", "n_features", "fit_time", "n_iter",
    "converged", "n_warnings", "n_convergence_warnings", "error", "status", "version", "key",
)


def _version() -> str:
    return __version__


def get_table(name: str) -> Table:
    """The registered table called ``name``.

    Parameters
    ----------
    name : str
        Table name, as ``marginclust bench --list`` shows it.

    Returns
    -------
    table : Table
        The registered table.

    Raises
    ------
    ValueError
        If no table has that name.
    """
    if name not in TABLES:
        known = ", ".join(sorted(TABLES)) or (
            "none (import a benchmark first, e.g. marginclust.bench.load_benchmark("
            "'benchmarks/papers') in a repository checkout)")
        raise ValueError(f"Unknown table {name!r}; registered tables: {known}.")
    return TABLES[name]


def parse_dataset(spec: str) -> tuple[str, int | None]:
    """Split ``"name@k=5"`` into ``("name", 5)``; a plain name gives ``(name, None)``."""
    name, sep, rest = spec.partition("@")
    if not sep:
        return spec, None
    key, _, value = rest.partition("=")
    if key != "k" or not value.isdigit():
        raise ValueError(f"Data set {spec!r}: the suffix must be '@k=<int>', e.g. 'iris@k=3'.")
    return name, int(value)


def _per_dataset(value: Any, spec: str, default: Any) -> Any:
    """``value`` itself, or its entry for ``spec``, its base name or ``"*"``."""
    if not isinstance(value, Mapping):
        return default if value is None else value
    name = parse_dataset(spec)[0]
    return value.get(spec, value.get(name, value.get("*", default)))


def load_data(
    spec: str, how: str, *, data_home: str | None = None, max_samples: int | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """``(X, y, steps)``: a data set by name, rows without a label dropped, missing cells
    mean-imputed, at most ``max_samples`` rows (a seeded subsample), preprocessed by ``how``.

    Registered data sets (:func:`~marginclust.bench.register_dataset`) come first, then
    :func:`marginclust.datasets.load_dataset`; ``steps`` (e.g. ``"mean-impute+raw"``)
    is recorded in every row.
    """
    name, _ = parse_dataset(spec)
    steps = []
    if name in DATASETS:
        X, y = DATASETS[name].loader(data_home)
    else:
        from marginclust.datasets import load_dataset

        X, y, meta = load_dataset(name, data_home=data_home, return_meta=True)
        if meta.get("n_unlabeled_dropped"):
            steps.append(f"drop-{meta['n_unlabeled_dropped']}-unlabelled")
        steps += [s for k, s in (("imputed_cells", "mean-impute"),
                                 ("encoded_columns", "ordinal-encode")) if meta.get(k)]
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if y.dtype.kind == "f":
        keep = np.isfinite(y)
        if not keep.all():
            X, y = X[keep], y[keep]
            steps.append(f"drop-{int((~keep).sum())}-unlabelled")
        y = y.astype(np.int64)
    missing = ~np.isfinite(X)
    if missing.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.nanmean(np.where(missing, np.nan, X), axis=0)
        X = np.where(missing, np.where(np.isfinite(means), means, 0.0)[None, :], X)
        if "mean-impute" not in steps:
            steps.append("mean-impute")
    if max_samples is not None and X.shape[0] > max_samples:
        keep = np.sort(np.random.RandomState(0).choice(X.shape[0], max_samples, replace=False))
        X, y = X[keep], y[keep]
        steps.append(f"subsample-{max_samples}")
    return preprocess(X, how), y, "+".join([*steps, how])


@dataclass(frozen=True)
class RunContext:
    """What a custom table's ``run(table, context)`` receives from the runner.

    Parameters
    ----------
    quick : bool
        Run the small, fast version (``--quick``).
    tiny : bool
        Smoke-test mode (implies ``quick``): seconds per table, for CI, not numbers.
    seed : int
        Global seed (:meth:`seed_for` derives a unit's seed from it).
    n_jobs : int
        Number of joblib workers.
    data_home : str or None
        Directory of the CSV data sets (None: ``MARGINCLUST_DATA``).
    out_dir : str or None
        Where figures and CSVs go (None: do not write files).
    """

    quick: bool = False
    tiny: bool = False
    seed: int = 0
    n_jobs: int = 1
    data_home: str | None = None
    out_dir: str | None = None

    def pick(self, full: Any, quick: Any, tiny: Any = None) -> Any:
        """``full``, ``quick`` or ``tiny`` (default: ``quick``) by the run's mode.

        Parameters
        ----------
        full : object
            The value of a full run.
        quick : object
            The value of a ``--quick`` run (and of a tiny run without ``tiny``).
        tiny : object, default=None
            The value of a tiny (smoke-test) run.

        Returns
        -------
        value : object
            One of the three, by ``tiny`` and ``quick``.
        """
        if self.tiny:
            return quick if tiny is None else tiny
        return quick if self.quick else full

    def seed_for(self, *keys: object) -> int:
        """The seed of one unit of work.

        Parameters
        ----------
        *keys : object
            What identifies the unit (data set, method, run, ...).

        Returns
        -------
        seed : int
            ``derive_seed(seed, *keys)``, as the grid runner derives job seeds.
        """
        return derive_seed(self.seed, *keys)

    def load(self, name: str, how: str = "raw") -> tuple[Any, Any]:
        """A data set as the runner loads it (tiny mode: a subsample).

        Parameters
        ----------
        name : str
            Data set name.
        how : str, default="raw"
            ``"raw"``, ``"standardize"`` or ``"minmax"``.

        Returns
        -------
        X, y : ndarray
            Features and labels.
        """
        X, y, _ = load_data(name, how, data_home=self.data_home, max_samples=self.max_samples)
        return X, y

    def fit(
        self, estimator: Any, X: Any, y: Any, measures: Sequence[str] = ("ca_majority",),
        **kwargs: Any,
    ) -> tuple[dict[str, Any], Any]:
        """Fit, time and score like a grid job (:func:`fit_and_score`).

        Parameters
        ----------
        estimator : estimator or callable
            An unfitted estimator, or ``make()`` returning one (called per repeat).
        X, y : ndarray
            Data and labels (the labels only score).
        measures : sequence of str, default=("ca_majority",)
            Registered measures to compute.
        **kwargs : dict
            ``repeats``, ``fit_params`` or ``finish`` of ``fit_and_score``.

        Returns
        -------
        fields : dict
            The row fields (``fit_time``, ``status``, ``error``, ...) and the measures.
        estimator : estimator or None
            The fitted estimator (None when the fit failed).
        """
        make = (lambda: estimator) if hasattr(estimator, "fit") else estimator
        return fit_and_score(make, X, y, measures, **kwargs)

    @property
    def max_samples(self) -> int | None:
        """Rows kept per data set (tiny mode only; see :func:`load_data`)."""
        return TINY_MAX_SAMPLES if self.tiny else None


@dataclass(frozen=True)
class Job:
    """One fit: (table, data set, method, protocol, setting, run) and its seed."""

    table: str
    dataset: str
    method: str
    protocol: str
    params: Mapping[str, Any] = field(default_factory=dict)
    run: int = 0
    seed: int = 0
    variant: str = ""

    @property
    def params_json(self) -> str:
        return json.dumps(dict(self.params), sort_keys=True, default=str)

    def key(self, preprocessing: str, version: str) -> str:
        """Identity of the job's row in the cache."""
        return "|".join([self.table, self.dataset, self.method, self.protocol, self.params_json,
                         str(self.run), str(self.seed), preprocessing, version])


def _thin(values: Sequence[Any], k: int) -> list[Any]:
    values = list(values)
    if k <= 0 or len(values) <= k:
        return values
    if k == 1:
        return [values[len(values) // 2]]
    idx = np.unique(np.round(np.linspace(0, len(values) - 1, k)).astype(int))
    return [values[i] for i in idx]


def _settings(grid: Any) -> list[dict[str, Any]]:
    if not isinstance(grid, Mapping):  # an explicit list of settings
        return [dict(setting) for setting in grid]
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def _effective(table: Table, quick: bool, tiny: bool = False) -> dict[str, Any]:
    """Data sets, methods, runs and grids after the ``--quick`` (or tiny) overrides."""
    quick = quick or tiny
    cfg = dict(table.quick) if quick else {}
    if tiny:
        first = list(cfg.get("datasets", table.datasets))[:1]
        cfg.update({"datasets": first, "n_runs": 1, "grid_points": 1, "grid": {}}, **table.tiny)
    methods = list(cfg.get("methods", table.methods))
    grids: dict[str, Any] = {}
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"Table {table.name!r} names method {name!r}, which is not "
                             "registered.")
        grid = table.grids.get(name, METHODS[name].grid)
        k = int(cfg.get("grid_points", 2))
        if quick and name in cfg.get("grid", {}):
            grid = cfg["grid"][name]
        elif quick:
            grid = {p: _thin(v, k) for p, v in grid.items()} if isinstance(grid, Mapping) else (
                _thin(grid, k))
        grids[name] = grid
    return {
        "datasets": list(cfg.get("datasets", table.datasets)),
        "methods": methods,
        "n_runs": cfg.get("n_runs", 2 if quick else table.n_runs),
        "grids": grids,
        "max_samples": cfg.get("max_samples", TINY_MAX_SAMPLES) if tiny else None,
    }


def expand_jobs(
    table: Table, *, quick: bool = False, seed: int = 0, label_free: bool = False,
    tiny: bool = False,
) -> list[Job]:
    """Every job of a grid table, in a deterministic order.

    A job's ``params`` are the table's data-set parameters under the setting; its
    ``variant`` names its report column, ``method[param=value,...]`` (the setting,
    or with ``aggregate="best"`` its ``curve`` parameters); its seed is
    ``derive_seed(seed, *keys)``, keys ``table.seed_key(job)`` or (data set, method, run).
    """
    from ._published import method_key

    eff = _effective(table, quick, tiny)
    protocols = [*table.protocols, *([LABEL_FREE] if label_free else [])]
    jobs = []
    for dataset, name, protocol in itertools.product(
        eff["datasets"], eff["methods"], dict.fromkeys(protocols)
    ):
        if protocol == "paper":
            settings = _settings(eff["grids"][name])
        elif protocol in ("default", LABEL_FREE):
            settings = [dict(METHODS[name].defaults)]
        else:
            raise ValueError(f"Table {table.name!r}: unknown protocol {protocol!r} "
                             "(use 'paper', 'default' or 'label-free').")
        fixed = table.params_for(dataset, name)
        for run, setting in itertools.product(range(runs_for(eff["n_runs"], name)), settings):
            shown = setting if table.aggregate != "best" else {
                k: v for k, v in setting.items() if k in table.curve}
            variant = method_key(name, shown) if protocol == "paper" else name
            job = Job(table.name, dataset, name, protocol, {**fixed, **setting}, run, 0, variant)
            keys = (dataset, name, run) if table.seed_key is None else table.seed_key(job)
            jobs.append(replace(job, seed=derive_seed(seed, *keys)))
    return jobs


def _attribute(estimator: Any, name: str) -> Any:
    try:
        return getattr(estimator, name)
    except Exception:  # noqa: BLE001 - delegating wrappers may raise anything
        return None


def fit_and_score(
    make: Callable[[], Any],
    X: Any,
    y: Any,
    measures: Sequence[str] = (),
    *,
    repeats: int = 1,
    fit_params: Mapping[str, Any] | None = None,
    measure_objs: Mapping[str, Measure] | None = None,
    finish: Callable[[Any], tuple[Any, Any]] | None = None,
) -> tuple[dict[str, Any], Any]:
    """Fit ``make()`` on ``X`` (timed), score it (untimed): the row fields and the estimator.

    The one fit loop of the harness, used by grid jobs and custom tables alike.
    Only ``fit`` is timed; with ``repeats > 1`` a fresh ``make()`` is fitted that
    many times under one BLAS thread and the fastest time kept (the last fit is
    scored). Warnings are counted, not shown; an exception (in ``make`` or
    ``fit``) becomes ``status`` ``"failed"`` (``"not-applicable"`` when its message
    starts so) with the message in ``error``, the measures NaN and the estimator
    None. ``finish(estimator) -> (estimator, params)`` post-processes a fit (the
    label-free search). Returns ``(fields, estimator)``; ``fields`` holds
    ``fit_time, n_iter, converged, n_warnings, n_convergence_warnings, error,
    status`` and one value per measure.
    """
    measure_objs = MEASURES if measure_objs is None else measure_objs
    row: dict[str, Any] = {"fit_time": None, "n_iter": None, "converged": None,
                           "error": None, "status": "ok"}
    estimator = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            times = []
            # timing tables (repeats > 1) measure one BLAS thread, as the papers' CPUs did
            limit = threadpool_limits(1) if repeats > 1 else contextlib.nullcontext()
            for _ in range(max(1, int(repeats))):
                estimator = make()
                with limit:
                    start = time.perf_counter()
                    estimator.fit(X, **dict(fit_params or {}))
                    elapsed = time.perf_counter() - start
                # work this fit reused from an earlier one of the process (a cached start)
                # is charged to it, so each time is that of a standalone fit
                reused = _attribute(estimator, "reused_time_")
                times.append(elapsed + (float(reused) if reused else 0.0))
            row["fit_time"] = min(times)
            if finish is not None:
                estimator, row["params"] = finish(estimator)
        except Exception as exc:  # noqa: BLE001 - a failed setting is a result, not a crash
            row["error"] = f"{type(exc).__name__}: {exc}"
            row["status"] = "not-applicable" if str(exc).startswith(NOT_APPLICABLE) else "failed"
            estimator = None
    row["n_warnings"] = len(caught)
    row["n_convergence_warnings"] = sum(issubclass(w.category, ConvergenceWarning)
                                        for w in caught)
    labels = _attribute(estimator, "labels_") if estimator is not None else None
    if labels is None and row["error"] is None:
        row["error"], row["status"] = "the fitted estimator has no labels_", "failed"
    memberships = _attribute(estimator, "memberships_") if estimator is not None else None
    if estimator is not None:
        n_iter = _attribute(estimator, "n_iter_")
        if n_iter is not None:
            row["n_iter"] = int(np.max(n_iter))
        converged = _attribute(estimator, "converged_")
        max_iter = _attribute(estimator, "max_iter")
        if converged is None and row["n_iter"] is not None and isinstance(
            max_iter, int | np.integer
        ):
            converged = row["n_iter"] < max_iter
        row["converged"] = None if converged is None else bool(converged)
    for name in measures:
        value = float("nan")
        if labels is not None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    measure = measure_objs[name]
                    extra = {"estimator": estimator} if measure.needs_estimator else {}
                    value = float(measure.func(y, np.asarray(labels), memberships, X, **extra))
            except Exception as exc:  # noqa: BLE001
                row["error"] = row["error"] or f"measure {name}: {type(exc).__name__}: {exc}"
                row["status"] = "failed"
        row[name] = value if math.isfinite(value) else None
    return row, estimator


def _applicable(estimator: Any, n_clusters: int) -> Any:
    """``estimator``, or a ``not applicable`` error for a binary method on more clusters."""
    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator  # Pipeline
    for _ in range(5):  # wrappers such as Standardized(Sigma0Width(est))
        final = getattr(final, "estimator", final)
    max_clusters = getattr(final, "_max_clusters", None)
    if max_clusters is not None and n_clusters > max_clusters:
        raise ValueError(f"{NOT_APPLICABLE}: {type(final).__name__} is a binary method "
                         f"and this data set has {n_clusters} clusters")
    return estimator


def _clonable(estimator: Any) -> Any:
    """``estimator``, or a ``not applicable`` error when a search cannot clone it.

    The label-free search fits clones of the method; a paper protocol's own wrapper
    (a fixed start, a width set from the data) is not a scikit-learn estimator.
    """
    from sklearn.base import clone

    try:
        clone(estimator)
    except (TypeError, RuntimeError) as exc:
        raise ValueError(f"{NOT_APPLICABLE}: the label-free search clones the method, and "
                         f"{type(estimator).__name__} cannot be cloned ({exc})") from None
    return estimator


def run_job(
    job: Job,
    X: np.ndarray,
    y: np.ndarray,
    n_clusters: int,
    preprocessing: str,
    measures: Sequence[str],
    version: str,
    *,
    method: Method | None = None,
    measure_objs: Mapping[str, Measure] | None = None,
    repeats: int = 1,
) -> dict[str, Any]:
    """Fit one job with :func:`fit_and_score` and return its tidy row.

    ``method`` and ``measure_objs`` default to the registry entries; the runner
    passes them explicitly so that worker processes need no registry.
    """
    method = METHODS[job.method] if method is None else method
    k = int(n_clusters)

    def make() -> Any:
        if job.protocol != LABEL_FREE:
            return _applicable(method.factory(n_clusters=k, random_state=job.seed,
                                              **job.params), k)
        try:  # the method's registered defaults: a paper wrapper may have none
            est = _applicable(method.factory(n_clusters=k, random_state=job.seed,
                                             **job.params), k)
        except TypeError as exc:
            raise ValueError(f"{NOT_APPLICABLE}: the label-free search starts from the "
                             f"method's defaults, and it has none ({exc})") from None
        # X only; y reaches the measures after the pick
        return label_free_search(_clonable(est), job.seed)

    fields, _ = fit_and_score(
        make, X, y, measures, repeats=repeats, measure_objs=measure_objs,
        finish=searched_estimator if job.protocol == LABEL_FREE else None,
    )
    row = {
        "table": job.table, "dataset": job.dataset, "method": job.method,
        "protocol": job.protocol, "params": job.params_json,
        "variant": job.variant or job.method, "run": job.run, "seed": job.seed,
        "n_clusters": k, "preprocessing": preprocessing,
        "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
        **fields, "version": version, "key": job.key(preprocessing, version),
    }
    return {f: row.get(f) for f in ROW_FIELDS} | {m: row[m] for m in measures}


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows stored in a JSONL results file (missing file: no rows).

    Parameters
    ----------
    path : str or path-like
        The JSONL file (one row per line).

    Returns
    -------
    rows : list of dict
        The rows that parse, in file order (a line cut by an interrupted write is skipped).
    """
    path = Path(path)
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        with contextlib.suppress(json.JSONDecodeError):
            if line.strip():
                rows.append(json.loads(line))
    return rows


def _append(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, default=_json_default) + "\n")
            fh.flush()


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    if isinstance(value, np.floating):
        return float(value) if np.isfinite(value) else None
    return value.tolist() if isinstance(value, np.ndarray) else str(value)


def _progress(iterable: Iterable[Any], total: int, enabled: bool, desc: str) -> Iterator[Any]:
    # tqdm when installed, else a plain stderr line: never silent without the extra.
    from marginclust.utils import progress

    yield from progress(iterable, total=total, desc=desc, enabled=enabled)


def system_info() -> dict[str, str]:
    """Versions and machine recorded beside the results.

    Returns
    -------
    info : dict of str to str
        Package versions, Python version, machine and operating system.
    """
    import scipy
    import sklearn

    return {
        "marginclust": _version(), "python": platform.python_version(),
        "numpy": np.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
        "machine": platform.machine(), "system": platform.system(),
    }


def run_table(
    table: Table | str,
    *,
    quick: bool = False,
    seed: int = 0,
    n_jobs: int = 1,
    out_dir: str | Path | None = None,
    data_home: str | None = None,
    progress: bool = True,
    label_free: bool = False,
    tiny: bool = False,
) -> list[dict[str, Any]]:
    """Run (or resume) a table and return its rows.

    Parameters
    ----------
    table : Table or str
        A table or the name of a registered one.
    quick : bool, default=False
        Apply the table's ``quick`` overrides (fewer runs, data sets, grid points).
    seed : int, default=0
        Global seed; every run's seed is derived from it.
    n_jobs : int, default=1
        Number of joblib workers.
    out_dir : str or Path, default=None
        Directory of the resumable cache ``<table>.jsonl`` (and figures); None keeps nothing.
    data_home : str, default=None
        Directory of the shared CSV data sets (None: ``MARGINCLUST_DATA``).
    progress : bool, default=True
        Show a progress line on stderr (tqdm's bar when tqdm is installed).
    label_free : bool, default=False
        Also run the ``"label-free"`` protocol (a StabilitySearch per run; its
        ``fit_time`` is the whole search) for the report's label-free column.
    tiny : bool, default=False
        Smoke-test mode (seconds per table): the table's ``tiny`` overrides, else
        its first quick data set, one run, one setting, a subsample of the rows.

    Returns
    -------
    rows : list of dict
        One row per job of this configuration (cached rows included).
    """
    table = get_table(table) if isinstance(table, str) else table
    if table.rows_from is not None:  # another table's fits, reported differently
        table = get_table(table.rows_from)
        memo = _MEMO.get((table.name, quick, tiny, seed, label_free, data_home))
        if memo is not None:
            return [dict(r) for r in memo]
    context = RunContext(quick or tiny, tiny, seed, n_jobs, data_home,
                         None if out_dir is None else str(out_dir))
    out_path = None
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        out_path = Path(out_dir) / f"{table.name}.jsonl"
    if table.run is not None:
        rows = _run_custom(table, context, quick, out_path)
    else:
        rows = _run_grid(table, context, quick, out_path, progress, label_free)
    if table.figure is not None and out_dir is not None:
        table.figure(rows, table, context)
    _MEMO[(table.name, quick, tiny, seed, label_free, data_home)] = rows
    return rows


def _run_grid(
    table: Table, context: RunContext, quick: bool, out_path: Path | None, progress: bool,
    label_free: bool,
) -> list[dict[str, Any]]:
    version, tiny = _version(), context.tiny
    jobs = expand_jobs(table, quick=quick, seed=context.seed, label_free=label_free, tiny=tiny)
    max_samples = _effective(table, quick, tiny)["max_samples"]
    # a row field (fit_time, n_iter) may be reported as a measure; the others are computed
    measures = [m for m in dict.fromkeys([*table.measures, *table.also_measures])
                if m not in ROW_FIELDS]
    for name in measures:
        if name not in MEASURES:
            raise ValueError(f"Table {table.name!r} names measure {name!r}, not registered.")
    # Failed rows are retried on a rerun (the failure may have been fixed since).
    cached = {r.get("key"): r for r in (read_rows(out_path) if out_path else [])
              if r.get("error") is None}
    data: dict[str, tuple[np.ndarray, np.ndarray, str, int]] = {}
    todo: list[tuple[Job, str]] = []
    rows: dict[str, dict[str, Any]] = {}  # key -> row in job order, placeholders last
    holes: dict[str, dict[str, Any]] = {}
    for job in jobs:
        if job.dataset not in data:
            how = str(_per_dataset(table.preprocessing, job.dataset, "raw"))
            try:
                X, y, prep = load_data(job.dataset, how, data_home=context.data_home,
                                       max_samples=max_samples)
            except (FileNotFoundError, OSError) as exc:
                data[job.dataset] = (None, None, f"{NO_DATA}: {exc}", 0)  # type: ignore[assignment]
            else:
                k = parse_dataset(job.dataset)[1] or _per_dataset(
                    table.n_clusters, job.dataset, None) or np.unique(y).size
                data[job.dataset] = (X, y, prep, int(k))
        X, _, prep, _ = data[job.dataset]
        reason = f"{prep}" if X is None else (
            table.skip(job.dataset, job.method, X) if table.skip is not None else None)
        if reason:
            # one placeholder row per (data set, method, protocol): the report shows the hole
            status = "no-data" if X is None else "skipped"
            key = f"{job.table}|{job.dataset}|{job.method}|{job.protocol}|{status}"
            holes.setdefault(key, _placeholder(job, str(reason), measures, version, status))
            continue
        key = job.key(prep, version)
        rows[key] = cached.get(key)  # type: ignore[assignment]
        if key not in cached:
            todo.append((job, prep))
    calls = (
        delayed(run_job)(
            job, *data[job.dataset][:2], data[job.dataset][3], prep, measures, version,
            method=METHODS[job.method], measure_objs={m: MEASURES[m] for m in measures},
            repeats=(table.timing_repeats(job, data[job.dataset][0])
                     if callable(table.timing_repeats) else table.timing_repeats),
        )
        for job, prep in todo
    )
    if todo:
        try:
            results = Parallel(n_jobs=context.n_jobs, return_as="generator_unordered")(calls)
        except (TypeError, ValueError):  # joblib < 1.4: rows arrive all at once
            results = Parallel(n_jobs=context.n_jobs)(calls)
        for row in _progress(results, len(todo), progress, table.name):
            rows[row["key"]] = row
            if out_path is not None:
                _append(out_path, [row])
    return [*rows.values(), *holes.values()]


def _placeholder(
    job: Job, message: str, measures: Sequence[str], version: str, status: str = "no-data"
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys([*ROW_FIELDS, *measures])
    row.update(table=job.table, dataset=job.dataset, method=job.method, protocol=job.protocol,
               params=job.params_json, variant=job.method, run=job.run, seed=job.seed,
               error=message, status=status, version=version, n_warnings=0,
               n_convergence_warnings=0,
               key=f"{job.table}|{job.dataset}|{job.method}|{job.protocol}|{status}")
    return row


def _run_custom(
    table: Table, context: RunContext, quick: bool, out_path: Path | None
) -> list[dict[str, Any]]:
    version = _version()
    key = f"{table.name}|custom|quick={quick}|tiny={context.tiny}|seed={context.seed}|{version}"
    cached = [r for r in (read_rows(out_path) if out_path else []) if r.get("key") == key]
    if cached:
        return cached
    assert table.run is not None
    try:
        rows = [dict(row) for row in table.run(table, context)]
    except Exception as exc:  # noqa: BLE001 - a failed table is a row, not a crash of --suite
        rows = [{"status": "failed", "error": f"{type(exc).__name__}: {exc}", "run_failed": True}]
    for row in rows:
        row.setdefault("table", table.name)
        row.setdefault("version", version)
        row.setdefault("status", row_status(row))
        row["key"] = key
    if out_path is not None:
        _append(out_path, rows)
    return rows


def row_status(row: Mapping[str, Any]) -> str:
    """A row's status; rows cached before the column existed get it from ``error``."""
    if row.get("status") in STATUSES:
        return str(row["status"])
    text = row.get("error")
    if text is None:
        return "ok"
    if str(text).startswith(NO_DATA) or text == "no-data":
        return "no-data"
    return "not-applicable" if str(text).startswith(f"ValueError: {NOT_APPLICABLE}") else "failed"


def select_best(rows: Sequence[Mapping[str, Any]], measure: str) -> list[Mapping[str, Any]]:
    """Per (data set, method, run) of the paper protocol, the row with the best ``measure``.

    NaN (failed fits) ranks last; ties keep the first setting in grid order.
    Rows of other protocols are returned unchanged.
    """
    sign = -1.0 if measure in MEASURES and not MEASURES[measure].greater_is_better else 1.0

    def score(row: Mapping[str, Any]) -> float:
        value = row.get(measure)
        return -math.inf if value is None or not math.isfinite(value) else sign * float(value)

    best: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for row in rows:
        if row.get("protocol") == "paper":
            group = (row["dataset"], row["method"], row["run"])
            if group not in best or score(row) > score(best[group]):
                best[group] = row
    return list(best.values()) + [r for r in rows if r.get("protocol") != "paper"]

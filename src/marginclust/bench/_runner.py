"""Run a paper table: expand it into jobs, fit, score, and keep one tidy row per job.

A :class:`~marginclust.bench.Table` is expanded into jobs
(data set x method x protocol x parameter setting x run):

* the ``"paper"`` protocol runs every setting of the method's grid in every run
  (the report keeps, per run, the setting with the best value of the table's
  first measure, chosen with the labels as the papers did);
* the ``"default"`` protocol runs the method's label-free defaults only;
* the ``"label-free"`` protocol (``label_free=True``) runs
  :class:`~marginclust.model_selection.StabilitySearch` from the defaults over
  the estimator's own label-free grid; the labels only score the refitted pick.

All settings of one run share the seed ``derive_seed(seed, dataset, method, run)``,
unless the table's ``seed_key(job)`` names other keys (a converted table keeps
the seeds of the code it replaced).
Only ``fit`` is timed (:func:`time.perf_counter`); measures are computed after.
Warnings raised during a fit are counted in the row (``n_warnings``,
``n_convergence_warnings``) instead of being shown once per fit, and a fit that
raises is recorded with its error message and NaN measures. Every row has a
``status``: ``"ok"``, ``"failed"``, ``"not-applicable"`` (a binary method on a
multi-class set), ``"skipped"`` (the table's ``skip`` hook gave a reason) or
``"no-data"``; reports read it instead of matching error strings.

A table may fix parameters per data set (``dataset_params``), replace a method's
grid (``grids``), report every setting instead of the best one (``aggregate``),
time the best of k fits (``timing_repeats``) and report another table's fits
(``rows_from``). ``tiny=True`` is the smoke-test mode: one data set, one run,
one setting, a subsample of the rows.

Rows are appended to ``<out_dir>/<table>.jsonl`` as jobs finish, so an
interrupted run resumes where it stopped: a rerun skips jobs whose rows are
already there without an error (the key includes the package version, the seed
and the preprocessing); failed jobs are tried again.
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

from ._label_free import LABEL_FREE, label_free_search, searched_estimator
from ._preprocessing import preprocess
from ._registry import (
    DATASETS,
    MEASURES,
    METHODS,
    TABLES,
    TINY_MAX_SAMPLES,
    Measure,
    Method,
    RunContext,
    Table,
    load_protocols,
    runs_for,
)
from ._seeds import derive_seed

__all__ = [
    "Job",
    "expand_jobs",
    "get_table",
    "load_data",
    "parse_dataset",
    "read_rows",
    "run_table",
    "select_best",
]

NO_DATA = "data set not available"
NOT_APPLICABLE = "not applicable"
STATUSES = ("ok", "failed", "not-applicable", "skipped", "no-data")
# Rows of the tables run in this process, so a table that reports another
# table's fits (``rows_from``) does not fit them again.
_MEMO: dict[tuple[Any, ...], list[dict[str, Any]]] = {}

# Columns every grid row has (measures are added as further columns).
ROW_FIELDS = (
    "table",
    "dataset",
    "method",
    "protocol",
    "params",
    "variant",
    "run",
    "seed",
    "n_clusters",
    "preprocessing",
    "n_samples",
    "n_features",
    "fit_time",
    "n_iter",
    "converged",
    "n_warnings",
    "n_convergence_warnings",
    "error",
    "status",
    "version",
    "key",
)


def _version() -> str:
    from marginclust import __version__

    return __version__


def get_table(name: str) -> Table:
    """The registered table called ``name`` (protocol modules are loaded first).

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
    load_protocols()
    if name not in TABLES:
        known = ", ".join(sorted(TABLES)) or "none"
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


def _preprocessing_for(table: Table, spec: str) -> str:
    how = table.preprocessing
    if isinstance(how, Mapping):
        name = parse_dataset(spec)[0]
        return str(how.get(spec, how.get(name, how.get("*", "raw"))))
    return str(how)


def _n_clusters_for(table: Table, spec: str, y: np.ndarray) -> int:
    name, k = parse_dataset(spec)
    if k is not None:
        return k
    if isinstance(table.n_clusters, Mapping):
        if spec in table.n_clusters:
            return int(table.n_clusters[spec])
        if name in table.n_clusters:
            return int(table.n_clusters[name])
    elif table.n_clusters is not None:
        return int(table.n_clusters)
    return int(np.unique(y).size)


def load_data(
    spec: str, how: str, *, data_home: str | None = None, max_samples: int | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """Load a data set by name, impute missing cells, and apply a named preprocessing.

    Names registered with :func:`~marginclust.bench.register_dataset` come first,
    then :func:`marginclust.datasets.load_dataset`.

    Rows without a label are dropped; missing feature cells are replaced by their
    column mean (the papers treat such sets as complete numeric tables). With
    ``max_samples``, a seeded subsample of that many rows is kept (the smoke-test
    mode). What was done is returned as a string recorded in every row, e.g.
    ``"mean-impute+raw"``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    preprocessing : str
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
        if meta.get("imputed_cells"):
            steps.append("mean-impute")
        if meta.get("encoded_columns"):
            steps.append("ordinal-encode")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
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
        means = np.where(np.isfinite(means), means, 0.0)
        X = np.where(missing, means[None, :], X)
        if "mean-impute" not in steps:
            steps.append("mean-impute")
    if max_samples is not None and X.shape[0] > max_samples:
        keep = np.sort(np.random.RandomState(0).choice(X.shape[0], max_samples, replace=False))
        X, y = X[keep], y[keep]
        steps.append(f"subsample-{max_samples}")
    steps.append(how)
    return preprocess(X, how), y, "+".join(steps)


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
        return "|".join(
            [
                self.table,
                self.dataset,
                self.method,
                self.protocol,
                self.params_json,
                str(self.run),
                str(self.seed),
                preprocessing,
                version,
            ]
        )


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
    if not grid:
        return [{}]
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def _effective(table: Table, quick: bool, tiny: bool = False) -> dict[str, Any]:
    """Data sets, methods, runs and grids after the ``--quick`` (or tiny) overrides."""
    quick = quick or tiny
    quick_cfg = dict(table.quick) if quick else {}
    if tiny:
        first = list(quick_cfg.get("datasets", table.datasets))[:1]
        quick_cfg.update(
            {"datasets": first, "n_runs": 1, "grid_points": 1, "grid": {}}, **table.tiny
        )
    methods = list(quick_cfg.get("methods", table.methods))
    grids: dict[str, Any] = {}
    for name in methods:
        if name not in METHODS:
            raise ValueError(
                f"Table {table.name!r} names method {name!r}, which is not registered."
            )
        grid = table.grids.get(name, METHODS[name].grid)
        if quick:
            override = dict(quick_cfg.get("grid", {}))
            k = int(quick_cfg.get("grid_points", 2))
            if name in override:
                grid = override[name]
            elif isinstance(grid, Mapping):
                grid = {p: _thin(v, k) for p, v in grid.items()}
            else:
                grid = _thin(grid, k)
        grids[name] = grid
    return {
        "datasets": list(quick_cfg.get("datasets", table.datasets)),
        "methods": methods,
        "n_runs": quick_cfg.get("n_runs", 2 if quick else table.n_runs),
        "grids": grids,
        "max_samples": quick_cfg.get("max_samples", TINY_MAX_SAMPLES) if tiny else None,
    }


def expand_jobs(
    table: Table,
    *,
    quick: bool = False,
    seed: int = 0,
    label_free: bool = False,
    tiny: bool = False,
) -> list[Job]:
    """Every job of a grid table, in a deterministic order.

    ``label_free=True`` adds the ``"label-free"`` protocol (one search per run).
    A job's ``params`` are the table's data-set parameters under the setting;
    its ``variant`` names the column it is reported in, ``method[param=value,...]``
    (the whole setting, or with ``aggregate="best"`` only the ``curve`` parameters).
    """
    from ._published import method_key

    eff = _effective(table, quick, tiny)
    protocols = list(table.protocols)
    if label_free and LABEL_FREE not in protocols:
        protocols.append(LABEL_FREE)
    jobs = []
    for dataset in eff["datasets"]:
        for name in eff["methods"]:
            method: Method = METHODS[name]
            for protocol in protocols:
                if protocol == "paper":
                    settings = _settings(eff["grids"][name])
                elif protocol in ("default", LABEL_FREE):
                    settings = [dict(method.defaults)]
                else:
                    raise ValueError(
                        f"Table {table.name!r}: unknown protocol {protocol!r} "
                        "(use 'paper', 'default' or 'label-free')."
                    )
                fixed = table.params_for(dataset, name)
                for run in range(runs_for(eff["n_runs"], name)):
                    for setting in settings:
                        shown = (
                            {k: v for k, v in setting.items() if k in table.curve}
                            if table.aggregate == "best" else setting
                        )
                        variant = method_key(name, shown) if protocol == "paper" else name
                        job = Job(table.name, dataset, name, protocol, {**fixed, **setting},
                                  run, 0, variant)
                        keys = (dataset, name, run) if table.seed_key is None else (
                            table.seed_key(job))
                        jobs.append(replace(job, seed=derive_seed(seed, *keys)))
    return jobs


def _attribute(estimator: Any, name: str) -> Any:
    try:
        return getattr(estimator, name)
    except Exception:  # noqa: BLE001 - delegating wrappers may raise anything
        return None


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


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
                    times.append(time.perf_counter() - start)
            row["fit_time"] = min(times)
            if finish is not None:
                estimator, row["params"] = finish(estimator)
        except Exception as exc:  # noqa: BLE001 - a failed setting is a result, not a crash
            row["error"] = f"{type(exc).__name__}: {exc}"
            row["status"] = (
                "not-applicable" if str(exc).startswith(NOT_APPLICABLE) else "failed"
            )
            estimator = None
    row["n_warnings"] = len(caught)
    row["n_convergence_warnings"] = sum(
        issubclass(w.category, ConvergenceWarning) for w in caught
    )
    labels = _attribute(estimator, "labels_") if estimator is not None else None
    if labels is None and row["error"] is None:
        row["error"] = "the fitted estimator has no labels_"
        row["status"] = "failed"
    memberships = _attribute(estimator, "memberships_") if estimator is not None else None
    if estimator is not None:
        n_iter = _attribute(estimator, "n_iter_")
        if n_iter is not None:
            row["n_iter"] = int(np.max(n_iter))
        converged = _attribute(estimator, "converged_")
        if converged is None and row["n_iter"] is not None:
            max_iter = _attribute(estimator, "max_iter")
            if isinstance(max_iter, int | np.integer):
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
        row[name] = _finite_or_none(value)
    return row, estimator


def _applicable(estimator: Any, n_clusters: int) -> Any:
    """``estimator``, or a ``not applicable`` error for a binary method on more clusters."""
    final = estimator
    if hasattr(final, "steps"):  # a Pipeline: its last step clusters
        final = final.steps[-1][1]
    for _ in range(5):  # wrappers such as Standardized(Sigma0Width(est))
        final = getattr(final, "estimator", final)
    max_clusters = getattr(final, "_max_clusters", None)
    if max_clusters is not None and n_clusters > max_clusters:
        raise ValueError(
            f"{NOT_APPLICABLE}: {type(final).__name__} is a binary method "
            f"and this data set has {n_clusters} clusters"
        )
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
        est = _applicable(method.factory(n_clusters=k, random_state=job.seed, **job.params), k)
        # X only; y reaches the measures after the pick
        return label_free_search(est, job.seed) if job.protocol == LABEL_FREE else est

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
        The rows that parse, in file order.
    """
    path = Path(path)
    if not path.is_file():
        return []
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut by an interrupted write
    return rows


def _append(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, default=_json_default) + "\n")
            fh.flush()


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


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
        "marginclust": _version(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "machine": platform.machine(),
        "system": platform.system(),
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
        Directory of the resumable cache ``<table>.jsonl``; None keeps nothing.
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
    if isinstance(table, str):
        table = get_table(table)
    else:
        load_protocols()
    if table.rows_from is not None:  # another table's fits, reported differently
        source = get_table(table.rows_from)
        memo_key = (source.name, quick, tiny, seed, label_free, data_home)
        if memo_key in _MEMO:
            return [dict(r) for r in _MEMO[memo_key]]
        table = source
    rows = _run_table(table, quick, seed, n_jobs, out_dir, data_home, progress, label_free,
                      tiny)
    if table.figure is not None and out_dir is not None:
        table.figure(rows, table, RunContext(quick or tiny, tiny, seed, n_jobs, data_home,
                                             str(out_dir)))
    _MEMO[(table.name, quick, tiny, seed, label_free, data_home)] = rows
    return rows


def _run_table(
    table: Table,
    quick: bool,
    seed: int,
    n_jobs: int,
    out_dir: str | Path | None,
    data_home: str | None,
    progress: bool,
    label_free: bool,
    tiny: bool,
) -> list[dict[str, Any]]:
    version = _version()
    out_path = None
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        out_path = Path(out_dir) / f"{table.name}.jsonl"
    if table.run is not None:
        return _run_custom(table, quick, tiny, seed, n_jobs, out_dir, data_home, out_path,
                           version)

    jobs = expand_jobs(table, quick=quick, seed=seed, label_free=label_free, tiny=tiny)
    max_samples = _effective(table, quick, tiny)["max_samples"]
    # a row field (fit_time, n_iter) may be reported as a measure; the others are computed
    measures = [m for m in dict.fromkeys([*table.measures, *table.also_measures])
                if m not in ROW_FIELDS]
    for name in measures:
        if name not in MEASURES:
            raise ValueError(f"Table {table.name!r} names measure {name!r}, not registered.")
    # Failed rows are retried on a rerun (the failure may have been fixed since).
    cached = {
        row.get("key"): row
        for row in (read_rows(out_path) if out_path else [])
        if row.get("error") is None
    }

    data: dict[str, tuple[np.ndarray, np.ndarray, str, int]] = {}
    todo: list[tuple[Job, str]] = []
    keys: list[str] = []
    missing: dict[str, str] = {}
    skipped: dict[tuple[str, str], str] = {}
    placeholders: dict[str, dict[str, Any]] = {}
    for job in jobs:
        if job.dataset in missing:
            continue
        if job.dataset not in data:
            how = _preprocessing_for(table, job.dataset)
            try:
                X, y, prep = load_data(
                    job.dataset, how, data_home=data_home, max_samples=max_samples
                )
            except (FileNotFoundError, OSError) as exc:
                missing[job.dataset] = f"{NO_DATA}: {exc}"
                continue
            data[job.dataset] = (X, y, prep, _n_clusters_for(table, job.dataset, y))
        if table.skip is not None and (job.dataset, job.method) not in skipped:
            reason = table.skip(job.dataset, job.method, data[job.dataset][0])
            skipped[(job.dataset, job.method)] = reason or ""
        if skipped.get((job.dataset, job.method)):
            continue
        prep = data[job.dataset][2]
        key = job.key(prep, version)
        keys.append(key)
        if key not in cached:
            todo.append((job, prep))

    for job in jobs:
        # One placeholder row per (data set, method, protocol) whose data is missing
        # or that the table skips, so the report shows the hole and its reason.
        reason = skipped.get((job.dataset, job.method))
        if job.dataset in missing or reason:
            status = "no-data" if job.dataset in missing else "skipped"
            key = f"{job.table}|{job.dataset}|{job.method}|{job.protocol}|{status}"
            if key not in placeholders:
                message = missing[job.dataset] if status == "no-data" else str(reason)
                placeholders[key] = _placeholder(job, message, measures, version, status)
                keys.append(key)
    new_rows: dict[str, dict[str, Any]] = dict(placeholders)
    if todo:
        calls = (
            delayed(run_job)(
                job, data[job.dataset][0], data[job.dataset][1], data[job.dataset][3], prep,
                measures, version, method=METHODS[job.method],
                measure_objs={m: MEASURES[m] for m in measures},
                repeats=(table.timing_repeats(job, data[job.dataset][0])
                         if callable(table.timing_repeats) else table.timing_repeats),
            )
            for job, prep in todo
        )
        try:
            results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(calls)
        except (TypeError, ValueError):  # joblib < 1.4: rows arrive all at once
            results = Parallel(n_jobs=n_jobs)(calls)
        for row in _progress(results, len(todo), progress, table.name):
            new_rows[row["key"]] = row
            if out_path is not None:
                _append(out_path, [row])
    return [new_rows[k] if k in new_rows else cached[k] for k in keys]


def _placeholder(
    job: Job, message: str, measures: Sequence[str], version: str, status: str = "no-data"
) -> dict[str, Any]:
    row: dict[str, Any] = {f: None for f in ROW_FIELDS}
    row.update(
        table=job.table,
        dataset=job.dataset,
        method=job.method,
        protocol=job.protocol,
        params=job.params_json,
        variant=job.method,
        run=job.run,
        seed=job.seed,
        error=message,
        status=status,
        version=version,
        n_warnings=0,
        n_convergence_warnings=0,
        key=f"{job.table}|{job.dataset}|{job.method}|{job.protocol}|{status}",
    )
    row.update({m: None for m in measures})
    return row


def _run_custom(
    table: Table,
    quick: bool,
    tiny: bool,
    seed: int,
    n_jobs: int,
    out_dir: str | Path | None,
    data_home: str | None,
    out_path: Path | None,
    version: str,
) -> list[dict[str, Any]]:
    key = f"{table.name}|custom|quick={quick}|tiny={tiny}|seed={seed}|{version}"
    if out_path is not None:
        cached = [row for row in read_rows(out_path) if row.get("key") == key]
        if cached:
            return cached
    context = RunContext(
        quick=quick or tiny,
        tiny=tiny,
        seed=seed,
        n_jobs=n_jobs,
        data_home=data_home,
        out_dir=None if out_dir is None else str(out_dir),
    )
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
    error = row.get("error")
    if error is None:
        return "ok"
    text = str(error)
    if text.startswith(NO_DATA) or text == "no-data":
        return "no-data"
    if text.startswith(f"ValueError: {NOT_APPLICABLE}"):
        return "not-applicable"
    return "failed"


def select_best(rows: Sequence[Mapping[str, Any]], measure: str) -> list[Mapping[str, Any]]:
    """Per (data set, method, run) of the paper protocol, the row with the best ``measure``.

    NaN (failed fits) ranks last; ties keep the first setting in grid order.
    Rows of other protocols are returned unchanged.
    """
    greater = MEASURES[measure].greater_is_better if measure in MEASURES else True
    best: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    others = []
    for row in rows:
        if row.get("protocol") != "paper":
            others.append(row)
            continue
        group = (row["dataset"], row["method"], row["run"])
        value = row.get(measure)
        score = -math.inf if value is None or not math.isfinite(value) else float(value)
        if not greater and math.isfinite(score):
            score = -score
        current = best.get(group)
        if current is None:
            best[group] = row
            continue
        cur_value = current.get(measure)
        cur = -math.inf if cur_value is None or not math.isfinite(cur_value) else float(cur_value)
        if not greater and math.isfinite(cur):
            cur = -cur
        if score > cur:
            best[group] = row
    return list(best.values()) + others

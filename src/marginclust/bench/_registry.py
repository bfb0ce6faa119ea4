"""Registries of the benchmark harness: data sets, methods, measures and tables.

A benchmark is Python code that registers its entries when imported: a user's own
module, or a folder such as the repository's ``benchmarks/papers`` (the papers'
tables), imported by path with :func:`load_benchmark`, as benchopt imports a
benchmark folder. The measures of :mod:`marginclust.metrics` are registered by the
harness itself (:mod:`marginclust.bench._measures`).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "DATASETS", "MEASURES", "METHODS", "TABLES", "Dataset", "Measure", "Method", "Table",
    "load_benchmark", "register_dataset", "register_measure", "register_method",
    "register_table", "runs_for",
]


@dataclass(frozen=True)
class Dataset:
    """A data set variant a paper needs that the generic loader does not provide.

    Parameters
    ----------
    name : str
        Registry key, used in ``Table.datasets`` like a loader name.
    loader : callable
        ``loader(data_home) -> (X, y)`` (``data_home`` None: ``MARGINCLUST_DATA``).
    notes : str, default=""
        How the variant is built.
    """

    name: str
    loader: Callable[..., Any]
    notes: str = ""


@dataclass(frozen=True)
class Method:
    """A clustering method as the harness runs it.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"fcm"`` or ``"slmc-rbf"``.
    factory : callable
        ``factory(n_clusters=..., random_state=..., **params)`` returns an unfitted
        estimator (data-dependent parameters are resolved there or in ``fit``).
    grid : mapping of str to sequence, default={}
        The paper's parameter grid (the "paper" protocol).
    defaults : mapping of str to object, default={}
        Parameters of the label-free "default" protocol.
    notes : str, default=""
        Protocol notes shown in reports.
    """

    name: str
    factory: Callable[..., Any]
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    notes: str = ""


@dataclass(frozen=True)
class Measure:
    """A measure of a clustering.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"ca_majority"``.
    func : callable
        ``func(y_true, labels, memberships, X)`` returns a float (``memberships``
        None for hard methods).
    greater_is_better : bool, default=True
        Direction used when the paper protocol picks the best setting.
    needs_estimator : bool, default=False
        Also pass the fitted estimator as ``estimator=``.
    """

    name: str
    func: Callable[..., float]
    greater_is_better: bool = True
    needs_estimator: bool = False


@dataclass(frozen=True)
class Table:
    """A paper's table (or figure) as data sets x methods x measures.

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"slmc-table6"``.
    title : str
        What the table shows.
    source : str
        Paper and table number, e.g. ``"Wang & Chen 2013, Table 6"``.
    datasets : sequence of str
        Data set names (registered or :func:`marginclust.datasets.load_dataset`'s);
        ``"<name>@k=<int>"`` fixes the number of clusters.
    methods : sequence of str
        Method registry keys.
    measures : sequence of str
        Measure registry keys (or the row fields ``fit_time``, ``n_iter``); the
        first selects the best setting in the paper protocol.
    n_runs : int or mapping of str to int, default=20
        Runs per (data set, method, setting), or per method (``"*"``: the others).
    preprocessing : str or mapping of str to str, default="raw"
        ``"raw"``, ``"standardize"`` or ``"minmax"``, globally or per data set.
    n_clusters : int, mapping of str to int, or None, default=None
        Clusters per data set; None: the number of classes.
    published : mapping, default={}
        ``(dataset, method, measure) -> value`` as printed (a benchmark may read them
        from CSV files with :func:`~marginclust.bench.load_published`).
    quick : mapping, default={}
        ``--quick`` overrides: ``"n_runs"`` (default 2), ``"datasets"``,
        ``"methods"``, ``"grid"`` (method -> grid) and ``"grid_points"`` (evenly
        spaced values kept per grid parameter; default 2).
    protocols : sequence of str, default=("paper", "default")
        Which protocols the table runs.
    run : callable or None, default=None
        A table that is not a grid (trajectories, sweeps): ``run(table, context)
        -> rows``, fitting through the :class:`~marginclust.bench.RunContext` helpers.
    report : callable or None, default=None
        Custom Markdown report ``report(rows, table) -> str``.
    notes : str, default=""
        Protocol notes printed under the table.
    published_spread : mapping, default={}
        ``(dataset, method, measure) -> value`` printed after the paper's "+-".
    pooled : mapping of str to sequence of str, default={}
        Report-only columns ``label -> methods``: per run the best paper-protocol
        setting over those methods, compared with the first one's published numbers.
    contradicted : mapping, default={}
        ``(dataset, method, measure) -> note`` (reason and command) for published
        cells our evidence says the stated method cannot produce (marked †).
    explained : mapping, default={}
        ``(dataset, method, measure) -> note`` (reason and command) for published
        cells whose shortfall a protocol detail the paper does not state explains,
        e.g. the feature scaling (marked ‡ instead of the bare shortfall marker).
    published_only : sequence of str, default=()
        Data sets and methods with published numbers that this table does not run.
    published_from : str or None, default=None
        The table whose published numbers apply to this one (for the benchmark
        that fills ``published`` from its CSV files, e.g. ``benchmarks/papers``).
    grids : mapping of str to mapping or list, default={}
        Per-table grids, ``method -> {param: values}`` (all combinations) or
        ``method -> [setting, ...]`` (these settings), replacing the method's own
        grid in this table (e.g. the initialisations one table compares).
    dataset_params : mapping or callable, default={}
        Parameters fixed per data set, ``dataset -> params`` or
        ``dataset_params(dataset, method) -> params``, merged under every setting.
    skip : callable or None, default=None
        ``skip(dataset, method, X) -> reason or None``: a pair not to run (a row
        with ``status="skipped"`` shows the reason).
    aggregate : {"best", "setting", "count"}, default="best"
        ``"best"``: per run, the setting with the best first measure;
        ``"setting"``: every setting its own column ``method[param=value]``;
        ``"count"``: ``"setting"`` with the first measure summed over runs.
    curve : sequence of str, default=()
        With ``"best"``: parameters whose values are columns of their own (the
        best setting is picked per run within each).
    timing_repeats : int or callable, default=1
        Fit every job this many times (same seed) and keep the fastest fit time
        (best-of-k timing on a shared machine); ``timing_repeats(job, X) -> int``
        chooses per job.
    rows_from : str or None, default=None
        Report that table's rows instead of fitting again (its ``also_measures``
        compute this table's measures).
    also_measures : sequence of str, default=()
        Measures stored in every row but not reported by this table.
    tiny : mapping, default={}
        Smoke-test overrides: like ``quick`` plus ``"max_samples"`` (default 120);
        else the first quick data set, one run, one setting.
    seed_key : callable or None, default=None
        The keys a job's seed is derived from: ``seed_key(job) -> tuple`` gives
        ``derive_seed(seed, *seed_key(job))`` (``job`` is a
        :class:`~marginclust.bench._runner.Job` with ``table``, ``dataset``,
        ``method``, ``params`` (data-set parameters and the setting) and ``run``;
        its ``seed`` is not set yet). None: ``(dataset, method, run)``, one seed
        per run shared by all settings. A table converted from custom code keeps
        that code's seeds, hence its numbers, e.g. a loop that drew
        ``derive_seed(seed, "pkm-table2", label, run)``::

            seed_key=lambda job: ("pkm-table2", LABELS[job.method], job.run)
    figure : callable or None, default=None
        ``figure(rows, table, context)`` draws into ``context.out_dir`` after a run.
    """

    name: str
    title: str
    source: str
    datasets: Sequence[str]
    methods: Sequence[str]
    measures: Sequence[str]
    n_runs: int | Mapping[str, int] = 20
    preprocessing: str | Mapping[str, str] = "raw"
    n_clusters: int | Mapping[str, int] | None = None
    published: Mapping[tuple[str, str, str], float] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    protocols: Sequence[str] = ("paper", "default")
    run: Callable[..., list[dict[str, Any]]] | None = None
    report: Callable[..., str] | None = None
    notes: str = ""
    published_spread: Mapping[tuple[str, str, str], float] = field(default_factory=dict)
    pooled: Mapping[str, Sequence[str]] = field(default_factory=dict)
    contradicted: Mapping[tuple[str, str, str], str] = field(default_factory=dict)
    explained: Mapping[tuple[str, str, str], str] = field(default_factory=dict)
    published_only: Sequence[str] = ()
    published_from: str | None = None
    grids: Mapping[str, Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]]] = field(
        default_factory=dict
    )
    dataset_params: (
        Mapping[str, Mapping[str, Any]] | Callable[[str, str], Mapping[str, Any]]
    ) = field(default_factory=dict)
    skip: Callable[..., str | None] | None = None
    aggregate: str = "best"
    curve: Sequence[str] = ()
    timing_repeats: int | Callable[[Any, Any], int] = 1
    rows_from: str | None = None
    also_measures: Sequence[str] = ()
    tiny: Mapping[str, Any] = field(default_factory=dict)
    seed_key: Callable[[Any], Sequence[object]] | None = None
    figure: Callable[..., None] | None = None

    def runs(self, method: str = "*") -> int:
        """Runs of ``method`` in a full run (``n_runs``, or its entry per method).

        Parameters
        ----------
        method : str, default="*"
            Method registry key (``"*"``: any method not listed).

        Returns
        -------
        n_runs : int
            The number of runs.
        """
        return runs_for(self.n_runs, method)

    def params_for(self, dataset: str, method: str) -> dict[str, Any]:
        """The parameters ``dataset_params`` fixes for ``method`` on ``dataset``.

        Parameters
        ----------
        dataset : str
            Data set name as in ``datasets``.
        method : str
            Method registry key.

        Returns
        -------
        params : dict
            Possibly empty.
        """
        if callable(self.dataset_params):
            return dict(self.dataset_params(dataset, method))
        return dict(self.dataset_params.get(dataset, {}))


# Rows kept per data set in the tiny (smoke-test) mode.
TINY_MAX_SAMPLES = 120

def runs_for(n_runs: int | Mapping[str, int], method: str = "*") -> int:
    """Runs of ``method``: ``n_runs`` or its entry (``"*"``: every other method)."""
    if isinstance(n_runs, Mapping):
        return int(n_runs.get(method, n_runs.get("*", 1)))
    return int(n_runs)


DATASETS: dict[str, Dataset] = {}
METHODS: dict[str, Method] = {}
MEASURES: dict[str, Measure] = {}
TABLES: dict[str, Table] = {}


def _register(registry: dict[str, Any], item: Any, kind: str) -> Any:
    if item.name in registry and registry[item.name] is not item:
        raise ValueError(f"A {kind} named {item.name!r} is already registered.")
    registry[item.name] = item
    return item


def register_dataset(dataset: Dataset) -> Dataset:
    """Add a :class:`Dataset` to ``DATASETS`` (a duplicate name raises ValueError).

    Parameters
    ----------
    dataset : Dataset
        The entry.

    Returns
    -------
    dataset : Dataset
        The same entry.
    """
    return _register(DATASETS, dataset, "dataset")


def register_method(method: Method) -> Method:
    """Add a :class:`Method` to ``METHODS`` (a duplicate name raises ValueError).

    Parameters
    ----------
    method : Method
        The entry.

    Returns
    -------
    method : Method
        The same entry.
    """
    return _register(METHODS, method, "method")


def register_measure(measure: Measure) -> Measure:
    """Add a :class:`Measure` to ``MEASURES`` (a duplicate name raises ValueError).

    Parameters
    ----------
    measure : Measure
        The entry.

    Returns
    -------
    measure : Measure
        The same entry.
    """
    return _register(MEASURES, measure, "measure")


def register_table(table: Table) -> Table:
    """Add a :class:`Table` to ``TABLES`` (a duplicate name raises ValueError).

    Parameters
    ----------
    table : Table
        The entry to register under its ``name``.

    Returns
    -------
    table : Table
        The same entry.
    """
    return _register(TABLES, table, "table")


def load_benchmark(path: str | Path) -> ModuleType:
    """Import a benchmark by path, so that the tables it registers can be run.

    A benchmark is a folder that is a Python package (its ``__init__.py`` imports
    the modules that register methods, data sets and tables), or a single ``.py``
    file. It is imported under its folder's (or file's) name, once per process:
    loading the same path again returns the module already imported.

    Parameters
    ----------
    path : str or path-like
        The benchmark folder (e.g. ``benchmarks/papers`` of a repository
        checkout) or a Python file.

    Returns
    -------
    module : module
        The imported benchmark.

    Raises
    ------
    FileNotFoundError
        If ``path`` is neither a folder with an ``__init__.py`` nor a ``.py`` file.
    ValueError
        If another module of the same name is already imported.

    Examples
    --------
    >>> from marginclust.bench import load_benchmark
    >>> load_benchmark("no/such/folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no benchmark at no/such/folder: ...
    """
    given = Path(path)
    where = given.resolve()
    if where.is_dir() and (where / "__init__.py").is_file():
        init, search = where / "__init__.py", [str(where)]
    elif where.is_file() and where.suffix == ".py":
        init, search = where, None
    else:
        raise FileNotFoundError(
            f"no benchmark at {given}: pass a folder with an __init__.py that registers "
            "tables (e.g. benchmarks/papers of a marginclust checkout) or a .py file."
        )
    name = where.name if search else where.stem
    loaded = sys.modules.get(name)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve() == init:
            return loaded
        raise ValueError(
            f"cannot load the benchmark {given} as {name!r}: a different module of that "
            f"name is already imported ({getattr(loaded, '__file__', None)}). Rename the "
            "benchmark."
        )
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=search)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py path always has one
        raise FileNotFoundError(f"no benchmark at {given}: {init} cannot be imported.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module

"""Registries of the benchmark harness: data sets, methods, measures and paper tables.

Each protocol module in :mod:`marginclust.bench.protocols` registers its entries
when imported; :func:`load_protocols` imports the modules of ``PROTOCOL_MODULES``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "DATASETS", "MEASURES", "METHODS", "PROTOCOL_MODULES", "TABLES", "Dataset", "Measure",
    "Method", "RunContext", "Table", "load_protocols", "register_dataset", "register_measure",
    "register_method", "register_table", "runs_for",
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
        ``(dataset, method, measure) -> value`` as printed; filled at registration
        from ``bench/published/<paper>.csv`` (leave it empty).
    quick : mapping, default={}
        ``--quick`` overrides: ``"n_runs"`` (default 2), ``"datasets"``,
        ``"methods"``, ``"grid"`` (method -> grid) and ``"grid_points"`` (evenly
        spaced values kept per grid parameter; default 2).
    protocols : sequence of str, default=("paper", "default")
        Which protocols the table runs.
    run : callable or None, default=None
        A table that is not a grid (trajectories, sweeps): ``run(table, context)
        -> rows``, fitting through the :class:`RunContext` helpers.
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
        Take the published numbers of that table.
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

# One module per paper (plus the shared baselines), imported in this order.
PROTOCOL_MODULES: tuple[str, ...] = tuple(
    f"marginclust.bench.protocols.{m}" for m in (
        "measures", "baselines", "slmc", "pkm", "emmc", "bmmc", "wocsvm", "reachability")
)


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

    Its ``published`` and ``published_spread`` are read from the paper's CSV
    (see :mod:`marginclust.bench._published`) unless the table brings its own.

    Parameters
    ----------
    table : Table
        The entry to register under its ``name``.

    Returns
    -------
    table : Table
        The entry as registered (with its published numbers filled in).
    """
    from ._published import spreads, values

    if not table.published:
        source = table.published_from or table.name
        table = replace(table, published=values(source), published_spread=spreads(source))
    return _register(TABLES, table, "table")


def load_protocols() -> None:
    """Import every module of ``PROTOCOL_MODULES`` so the registries are filled."""
    for module in PROTOCOL_MODULES:
        importlib.import_module(module)


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
        from ._seeds import derive_seed

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
        from ._runner import load_data

        X, y, _ = load_data(name, how, data_home=self.data_home, max_samples=self.max_samples)
        return X, y

    def fit(
        self, estimator: Any, X: Any, y: Any, measures: Sequence[str] = ("ca_majority",),
        **kwargs: Any,
    ) -> tuple[dict[str, Any], Any]:
        """Fit, time and score like a grid job (:func:`..._runner.fit_and_score`).

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
        from ._runner import fit_and_score

        make = (lambda: estimator) if hasattr(estimator, "fit") else estimator
        return fit_and_score(make, X, y, measures, **kwargs)

    @property
    def max_samples(self) -> int | None:
        """Rows kept per data set (tiny mode only; see :func:`..._runner.load_data`)."""
        return TINY_MAX_SAMPLES if self.tiny else None

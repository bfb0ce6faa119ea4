"""Explicit registries of the benchmark harness: methods, measures and paper tables.

Nothing is discovered from the file system: each paper's protocol module in
:mod:`marginclust.bench.protocols` calls :func:`register_method` and
:func:`register_table` when imported, and :func:`load_protocols` imports the
modules listed in ``PROTOCOL_MODULES``. Data sets are referred to by the names
:func:`marginclust.datasets.load_dataset` understands.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "DATASETS",
    "MEASURES",
    "METHODS",
    "PROTOCOL_MODULES",
    "TABLES",
    "Dataset",
    "Measure",
    "Method",
    "RunContext",
    "Table",
    "load_protocols",
    "register_dataset",
    "register_measure",
    "register_method",
    "register_table",
    "runs_for",
]


@dataclass(frozen=True)
class Dataset:
    """A data set variant a paper needs that the generic loader does not provide.

    Parameters
    ----------
    name : str
        Registry key, used in ``Table.datasets`` like a loader name.
    loader : callable
        ``loader(data_home) -> (X, y)``; ``data_home`` may be None
        (then ``MARGINCLUST_DATA``).
    notes : str, default=""
        How the variant is built (shown in reports).
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
        ``factory(n_clusters=..., random_state=..., **params)`` returns an
        unfitted estimator. Data-dependent parameters (e.g. a kernel width
        given as a multiple of the mean pairwise distance) are resolved by the
        estimator or the factory, never by the harness.
    grid : mapping of str to sequence, default={}
        The paper's parameter grid (the "paper" protocol searches it and keeps,
        per run, the setting with the best selection measure, as the papers did
        with the labels).
    defaults : mapping of str to object, default={}
        Parameters of the label-free "default" protocol (no tuning).
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
        ``func(y_true, labels, memberships, X)`` returns a float; ``memberships``
        may be None for hard methods.
    greater_is_better : bool, default=True
        Direction used when the paper protocol picks the best setting.
    needs_estimator : bool, default=False
        If True, ``func`` is called with the fitted estimator as a further
        keyword argument ``estimator=`` (e.g. to read a fitted kernel width).
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
        Data set names for :func:`marginclust.datasets.load_dataset`. A name may
        carry a cluster count as ``"<name>@k=<int>"`` (e.g.
        ``"slmc-four-gaussians@k=5"``), for tables that cluster one data set
        with several numbers of clusters; it overrides ``n_clusters``.
    methods : sequence of str
        Method registry keys.
    measures : sequence of str
        Measure registry keys (or the row fields ``fit_time``, ``n_iter``); the
        first selects the best setting in the paper protocol.
    n_runs : int or mapping of str to int, default=20
        Runs per (data set, method, setting); a mapping gives them per method
        (``"*"``: every other method), e.g. a faithful solver run less often.
    preprocessing : str or mapping of str to str, default="raw"
        ``"raw"``, ``"standardize"`` or ``"minmax"``, globally or per data set;
        recorded in every row.
    n_clusters : int, mapping of str to int, or None, default=None
        Clusters per data set; None means the number of classes.
    published : mapping, default={}
        ``(dataset, method, measure) -> value`` as printed in the paper. Filled at
        registration from ``bench/published/<paper>.csv`` (the rows whose ``table``
        is ``published_from`` or, by default, this table's name); leave it empty.
    quick : mapping, default={}
        Overrides for ``--quick``: ``"n_runs"``, ``"datasets"``, ``"methods"``,
        ``"grid"`` (method name -> smaller grid) and ``"grid_points"`` (keep at
        most this many evenly spaced values of every grid parameter; default 2).
        Without overrides a quick run uses 2 runs and 2 grid points.
    protocols : sequence of str, default=("paper", "default")
        Which protocols the table runs.
    run : callable or None, default=None
        For tables that are not a grid (convergence curves, robustness
        counts, timings): ``run(table, context) -> list of row dicts``.
    report : callable or None, default=None
        Custom Markdown report ``report(rows, table) -> str``.
    notes : str, default=""
        Protocol notes printed under the table.
    published_spread : mapping, default={}
        ``(dataset, method, measure) -> value`` printed after the paper's
        "+-" (a standard deviation or, as the paper may say, a variance;
        ``notes`` should say which).
    pooled : mapping of str to sequence of str, default={}
        Report-only columns for a paper column that searched several of our
        methods together (e.g. "linear and RBF kernels"): ``label -> methods``.
        Per run, the best paper-protocol setting over all those methods is
        kept; the column is compared with the published numbers of the first
        method.
    contradicted : mapping, default={}
        ``(dataset, method, measure) -> note`` for published cells that our
        evidence says the stated method cannot produce: the reason and the
        command that shows it. Reports print the note instead of a bare
        shortfall marker.
    published_only : sequence of str, default=()
        Data sets and methods that appear in the published numbers but that this
        table does not run (not shared offline, not implemented here).
    published_from : str or None, default=None
        Take the published numbers of that table (variants of one paper table).
    grids : mapping of str to mapping or list, default={}
        Per-table grids, ``method -> {param: values}`` (all combinations) or
        ``method -> [setting, ...]`` (these settings), replacing the method's own
        grid in this table (e.g. the initialisations one table compares).
    dataset_params : mapping or callable, default={}
        Parameters a paper fixes per data set: ``dataset -> params`` (given to
        every method) or ``dataset_params(dataset, method) -> params``. Merged
        under every setting and recorded in the rows' ``params``.
    skip : callable or None, default=None
        ``skip(dataset, method, X) -> reason or None``: a (data set, method)
        pair not to run (e.g. a faithful solver on a set too large for it); the
        report shows the reason as a row with ``status="skipped"``.
    aggregate : {"best", "setting", "count"}, default="best"
        How the paper protocol's settings are reported: ``"best"`` keeps, per
        run, the setting with the best first measure; ``"setting"`` reports every
        setting as its own column ``method[param=value]`` (a curve over a
        parameter, or variants the paper prints side by side); ``"count"`` is
        ``"setting"`` with the first measure summed over runs (e.g. correct
        partitions out of N starts).
    curve : sequence of str, default=()
        With ``aggregate="best"``: parameters whose values are columns of their
        own (``method[m=2]``); the best setting is picked per run within each
        (a curve over ``m`` of per-run label-picked bests).
    timing_repeats : int or callable, default=1
        Fit every job this many times (same seed) and keep the fastest fit time
        (best-of-k timing on a shared machine); ``timing_repeats(job, X) -> int``
        chooses per job.
    rows_from : str or None, default=None
        Report the rows of that table instead of fitting again (two paper
        tables printing different measures of one set of fits); that table's
        ``also_measures`` must compute this table's measures.
    also_measures : sequence of str, default=()
        Measures computed and stored in every row but not reported by this
        table (another table reports them through ``rows_from``).
    tiny : mapping, default={}
        Overrides for the smoke-test mode (``tiny=True``): like ``quick``, plus
        ``"max_samples"`` (rows kept per data set, a seeded subsample; default
        120). Without overrides: the first quick data set, one run, one setting.
    figure : callable or None, default=None
        ``figure(rows, table, context)`` draws the table's figure into
        ``context.out_dir`` after a run that has an output directory.
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
        """Runs of ``method`` (``n_runs``, or its entry when given per method).

        Parameters
        ----------
        method : str, default="*"
            Method registry key (``"*"``: the runs of any method not listed).

        Returns
        -------
        n_runs : int
            How many runs the method gets in a full run of this table.
        """
        return runs_for(self.n_runs, method)

    def params_for(self, dataset: str, method: str) -> dict[str, Any]:
        """The parameters this table fixes for ``method`` on ``dataset``.

        Parameters
        ----------
        dataset : str
            Data set name as in ``datasets``.
        method : str
            Method registry key.

        Returns
        -------
        params : dict
            From ``dataset_params`` (empty when the table fixes none).
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
PROTOCOL_MODULES: tuple[str, ...] = (
    "marginclust.bench.protocols.measures",
    "marginclust.bench.protocols.baselines",
    "marginclust.bench.protocols.slmc",
    "marginclust.bench.protocols.pkm",
    "marginclust.bench.protocols.emmc",
    "marginclust.bench.protocols.bmmc",
    "marginclust.bench.protocols.wocsvm",
    "marginclust.bench.protocols.reachability",
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
        The entry to register under its ``name``.

    Returns
    -------
    dataset : Dataset
        The same entry, so the call can wrap a definition.
    """
    return _register(DATASETS, dataset, "dataset")


def register_method(method: Method) -> Method:
    """Add a :class:`Method` to ``METHODS`` (a duplicate name raises ValueError).

    Parameters
    ----------
    method : Method
        The entry to register under its ``name``.

    Returns
    -------
    method : Method
        The same entry, so the call can wrap a definition.
    """
    return _register(METHODS, method, "method")


def register_measure(measure: Measure) -> Measure:
    """Add a :class:`Measure` to ``MEASURES`` (a duplicate name raises ValueError).

    Parameters
    ----------
    measure : Measure
        The entry to register under its ``name``.

    Returns
    -------
    measure : Measure
        The same entry, so the call can wrap a definition.
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
        Smoke-test mode (implies ``quick``): seconds per table, one seed, one
        setting, few rows; for CI, not for numbers.
    seed : int
        Global seed; derive per-run seeds with
        :func:`marginclust.bench._seeds.derive_seed`.
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
        """The seed of one unit of work: ``derive_seed(seed, *keys)``.

        Parameters
        ----------
        *keys : object
            What identifies the unit (data set, method, run, ...).

        Returns
        -------
        seed : int
            See :func:`marginclust.bench._seeds.derive_seed`.
        """
        from ._seeds import derive_seed

        return derive_seed(self.seed, *keys)

    def load(self, name: str, how: str = "raw") -> tuple[Any, Any]:
        """``(X, y)`` of data set ``name`` as the runner loads it (tiny: a subsample).

        Parameters
        ----------
        name : str
            Data set name (registered or known to the loader).
        how : str, default="raw"
            Preprocessing (``"raw"``, ``"standardize"``, ``"minmax"``).

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
            ``fit_time, n_iter, converged, n_warnings, n_convergence_warnings,
            error, status`` and the measures: a failed fit is a row, not a raise.
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

    def limit(self, X: Any, y: Any) -> tuple[Any, Any]:
        """``(X, y)``, or in tiny mode the seeded subsample ``load_data`` would keep.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Data.
        y : ndarray of shape (n_samples,)
            Labels.

        Returns
        -------
        X, y : ndarray
            At most ``TINY_MAX_SAMPLES`` rows in tiny mode, else unchanged.
        """
        import numpy as np

        n = len(X)
        if not self.tiny or n <= TINY_MAX_SAMPLES:
            return X, y
        keep = np.sort(np.random.RandomState(0).choice(n, TINY_MAX_SAMPLES, replace=False))
        return X[keep], y[keep]

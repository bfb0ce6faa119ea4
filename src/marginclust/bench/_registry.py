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
from dataclasses import dataclass, field
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
        Measure registry keys; the first selects the best setting in the
        paper protocol.
    n_runs : int, default=20
        Runs per (data set, method, setting) in the paper protocol.
    preprocessing : str or mapping of str to str, default="raw"
        ``"raw"``, ``"standardize"`` or ``"minmax"``, globally or per data set;
        recorded in every row.
    n_clusters : int, mapping of str to int, or None, default=None
        Clusters per data set; None means the number of classes.
    published : mapping, default={}
        ``(dataset, method, measure) -> value`` as printed in the paper.
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
    """

    name: str
    title: str
    source: str
    datasets: Sequence[str]
    methods: Sequence[str]
    measures: Sequence[str]
    n_runs: int = 20
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

    Parameters
    ----------
    table : Table
        The entry to register under its ``name``.

    Returns
    -------
    table : Table
        The same entry, so the call can wrap a definition.
    """
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
    seed: int = 0
    n_jobs: int = 1
    data_home: str | None = None
    out_dir: str | None = None

"""``marginclust fit``: cluster a CSV file, write labels and memberships as CSV."""

from __future__ import annotations

import argparse
import ast
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import joblib
import numpy as np

from .._registry import cli_aliases, clusterer_names, estimator_class
from ..utils import shorten
from ._csv import CSVData, parse_delimiter, read_csv
from ._output import check_out_file, open_output, plural, scale_note, write_clusters

__all__ = [
    "METHOD_ALIASES",
    "add_parser",
    "available_methods",
    "check_out_file",
    "memberships",
    "method_kind",
    "parse_params",
    "read_csv",
    "resolve_method",
    "run",
]

# Short command-line names of the public estimators (class names work too), from
# the estimator registry.
METHOD_ALIASES = cli_aliases()
# A fit still running after this many seconds gets a progress line on stderr.
PROGRESS_DELAY = 3.0
# The progress line ends with the fit's latest phase (e.g. SLMC's margin-search start or
# a re-seed) cut to this many characters.
PROGRESS_PHASE_CHARS = 100
# Above this many rows an exact n x n kernel fit (n_components=None) gets a note
# pointing at the low-rank mode: one sweep costs O(n^2) and a fit takes tens of sweeps
# (SLMC on 3,498 rows: 110 s exact, 10.5 s with n_components=300, same accuracy).
EXACT_KERNEL_NOTE_ROWS = 2000
# Reading or writing more cells than this, or for longer, gets a line saying how long.
LARGE_IO_CELLS = 1_000_000
LARGE_IO_SECONDS = 1.0

_EXAMPLES = """\
examples:
  marginclust fit iris.csv --method fcm --label-column label --out clusters.csv
  marginclust fit data.csv.gz --method slmc --n-clusters 4 --standardize \\
      --param n_components=300 --verbose

The input needs numeric feature columns and a header row (a file whose first row is
all numbers is read as headerless, columns x0, x1, ...). The output has one row per
sample: 'cluster', then 'membership_0' ... for soft methods (max-margin: with
--param probability=True), then the label column.
"""


def available_methods() -> tuple[dict[str, type], dict[str, str]]:
    """``(name -> estimator class, class name -> import error)`` for every clusterer.

    Names are the short aliases of :data:`METHOD_ALIASES` and the class names.
    """
    found: dict[str, type] = {}
    failed: dict[str, str] = {}
    for cls_name in clusterer_names():
        try:
            cls = estimator_class(cls_name)
        except Exception as exc:  # noqa: BLE001 - a module still being written
            failed[cls_name] = f"{type(exc).__name__}: {exc}"
            continue
        found[cls_name] = cls
    methods = {alias: found[c] for alias, c in METHOD_ALIASES.items() if c in found}
    methods.update(found)
    return methods, failed


def resolve_method(name: str) -> type:
    """The estimator class of a method name: a short alias or a class name, any case."""
    methods, failed = available_methods()
    lowered = {k.lower(): v for k, v in methods.items()}
    key = name.strip().lower()
    if key in lowered:
        return lowered[key]
    cls_name = METHOD_ALIASES.get(key, name)
    if cls_name in failed:
        raise ValueError(f"Method {name!r} ({cls_name}) is not available: {failed[cls_name]}.")
    names = ", ".join(METHOD_ALIASES)
    raise ValueError(
        f"Unknown or unavailable method {name!r}; available: {names} (or the class names; "
        "see 'marginclust fit --list-methods')."
    )


def method_kind(cls: type) -> str:
    """``"soft"`` (memberships), ``"hard"``, ``"soft with --param probability=True"`` or
    ``"hard, binary only"`` from the class.

    A class whose ``predict_proba`` exists only for some parameters (scikit-learn's
    ``available_if``: ``MaxMarginClustering(probability=True)``) is soft with them.
    """
    soft = callable(getattr(cls, "predict_proba", None))
    kind = "soft" if soft else "hard"
    if soft and not hasattr(cls(), "predict_proba"):
        needs = ("--param probability=True" if "probability" in cls().get_params(deep=False)
                 else "some parameters")
        kind = f"soft with {needs}"
    if getattr(cls, "_max_clusters", None) == 2:
        kind += ", binary only"
    return kind


def memberships(estimator: Any, X: np.ndarray) -> np.ndarray | None:
    """The membership columns of a fitted estimator on its training rows, or None.

    ``memberships_`` when the estimator keeps them; otherwise ``predict_proba(X)`` when
    it is available (``MaxMarginClustering(probability=True)`` calibrates its margin
    classifier and keeps no memberships); None for a hard method.
    """
    U = getattr(estimator, "memberships_", None)
    if U is None and hasattr(estimator, "predict_proba"):
        U = estimator.predict_proba(X)
    return None if U is None else np.asarray(U)


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """Parse ``key=value`` strings; values go through :func:`ast.literal_eval`.

    A value that is not a Python literal is kept as a string (``kernel=rbf``).
    """
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"--param expects key=value (e.g. m=2.0); got {item!r}.")
        try:
            params[key] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key] = value.strip()
    return params


def add_parser(sub: Any) -> None:
    """Register the ``fit`` subcommand."""
    p = sub.add_parser(
        "fit",
        help="cluster a CSV file",
        description="Fit a clusterer to a CSV file (numeric features) and write one row per\n"
        "sample: the cluster label and, for soft methods, the memberships.",
        epilog=_EXAMPLES,
        formatter_class=_HelpFormatter,
    )
    p.add_argument("input", nargs="?", help="CSV file (.csv, or compressed: .gz, .bz2, .xz, "
                   "a .zip of one file); '-' reads standard input")
    p.add_argument("--method", default="fcm", help="method name, see --list-methods")
    p.add_argument(
        "--n-clusters", type=_n_clusters_arg, default=None,
        help="number of clusters, or 'auto' to let a method that can choose it do so "
        "(max-margin: the chosen K and each K's curve are printed) (default: the number "
        "of classes in --label-column; required without it)",
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="estimator parameter, value parsed as a Python literal (repeatable)",
    )
    p.add_argument("--label-column", default=None, help="column holding true labels (not used "
                   "for fitting; clustering accuracy is reported)")
    p.add_argument("--id-column", action="append", default=[], metavar="NAME",
                   help="column identifying the rows (e.g. a sample name): kept out of the "
                   "fit and copied to the output (repeatable)")
    p.add_argument("--delimiter", default=None, help="cell separator: one character or "
                   "comma/semicolon/tab (default: ',' unless the header row uses ';' or tabs)")
    p.add_argument("--scale", choices=("auto", "none", "standard", "robust"), default="auto",
                   help="per-feature scaling first: 'standard' (zero mean, unit variance), "
                   "'robust' (median and interquartile range), 'none', or 'auto': 'standard' "
                   "when the features' standard deviations differ more than 100-fold (then "
                   "they are in different units), else 'none' (MaxMarginClustering's "
                   "scale='auto' applies the same rule)")
    p.add_argument("--standardize", action="store_true", help="the same as --scale standard")
    p.add_argument("--seed", type=int, default=0, help="random_state")
    p.add_argument("--n-jobs", type=_n_jobs_arg, default=1, metavar="N",
                   help="joblib workers for the fit (-1: every core): restarts (n_init), "
                   "max-margin's candidates and labelling, --search's settings; the same "
                   "result as one process")
    p.add_argument("--out", default=None,
                   help="output CSV file; '-' or none: standard output")
    p.add_argument("-v", "--verbose", action="count", default=0,
                   help="print the estimator's iteration lines to stderr (-vv: more)")
    p.add_argument("--no-progress", action="store_true",
                   help=f"no progress line for fits longer than {PROGRESS_DELAY:g} s")
    p.add_argument("--list-methods", action="store_true",
                   help="list the methods (soft / hard / binary only) and exit")
    from ._search import add_search_arguments

    add_search_arguments(p)
    p.set_defaults(func=run)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each option that has one; the epilog's examples kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" not in text
            and default is not None
            and default is not False
            and default is not argparse.SUPPRESS
            and action.option_strings
            and not isinstance(action, argparse._CountAction)
        ):
            text += " (default: %(default)s)"
        return text


def _say(msg: str) -> None:
    print(f"marginclust fit: {msg}", file=sys.stderr, flush=True)


@contextmanager
def fit_progress(what: str, *, enabled: bool, delay: float = PROGRESS_DELAY) -> Iterator[None]:
    """A stderr line with the elapsed time for a fit that runs past ``delay`` seconds.

    Needs no extra (a thread rewrites one line every second); silent for short
    fits and when ``enabled`` is False.
    """
    if not enabled:
        yield
        return
    done = threading.Event()
    start = time.perf_counter()
    shown = threading.Event()
    phase = _LatestPhase()
    library = logging.getLogger("marginclust")
    level = library.level
    library.addHandler(phase)
    library.setLevel(logging.DEBUG)  # the estimators' report lines reach the handler

    def tick() -> None:
        if done.wait(delay):
            return
        width = 0
        while not done.is_set():
            shown.set()
            text = f"marginclust fit: {what}, {time.perf_counter() - start:.0f} s elapsed"
            if phase.text:
                text += ": " + shorten(phase.text, PROGRESS_PHASE_CHARS)
            print(f"\r{text}{' ' * max(0, width - len(text))}", end="", file=sys.stderr,
                  flush=True)
            width = len(text)
            done.wait(1.0)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        library.removeHandler(phase)
        library.setLevel(level)
        if shown.is_set():
            print(file=sys.stderr, flush=True)


class _LatestPhase(logging.Handler):
    """The latest line an estimator reported, per-iteration lines aside (a start, a re-seed)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.text = ""

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("marginclust.iterations"):
            self.text = record.getMessage()


def _list_methods() -> int:
    methods, failed = available_methods()
    print(f"{'name':<16} {'class':<20} kind")
    for alias, cls_name in METHOD_ALIASES.items():
        cls = methods.get(alias)
        kind = method_kind(cls) if cls is not None else f"not available: {failed.get(cls_name)}"
        print(f"{alias:<16} {cls_name:<20} {kind}")
    print("soft = memberships in the output (with the parameter named, when it takes "
          "one); binary only = --n-clusters 2. Class names work as --method too.")
    return 0


def _n_clusters_arg(value: str) -> int | str:
    """``--n-clusters``: a positive integer or ``auto``."""
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive integer or 'auto'; got {value!r}") from None


def _chooses_k(cls: type) -> bool:
    """Whether the estimator takes ``n_clusters="auto"`` (checked by its parameter table)."""
    from marginclust.utils import check_parameters

    constraint = getattr(cls, "_parameter_constraints", {}).get("n_clusters")
    if constraint is None:
        return False
    try:
        check_parameters(cls(n_clusters="auto"), {"n_clusters": constraint})
    except (ValueError, TypeError):
        return False
    return True


def _print_k_curve(estimator: Any) -> None:
    """The chosen K and, per K, its best partition's margin and weakest boundary."""
    rows = getattr(estimator, "k_scores_", None)
    _say(f"chosen number of clusters: {estimator.n_clusters_}")
    if not rows:
        return
    # untested: pairs of touching clusters too small to test (not clear)
    _say("    K   margin  separation  valley  untested  clear")
    for row in rows:
        sep = "-" if np.isnan(row.separation) else f"{row.separation:.3f}"
        valley = "-" if np.isnan(row.valley) else (
            "inf" if np.isinf(row.valley) else f"{row.valley:.2f}")
        mark = " <-" if row.n_clusters == estimator.n_clusters_ else ""
        _say(f"  {row.n_clusters:3d}  {row.score:7.4f}  {sep:>10}  {valley:>6}  "
             f"{row.untested:>8d}  {'yes' if row.separated else 'no':>5}{mark}")


def _n_clusters(args: argparse.Namespace, params: dict[str, Any], labels: Any,
                cls: type | None = None) -> int | str:
    from ._search import searched_n_clusters

    searched = searched_n_clusters(args)
    if searched is not None:
        given = args.n_clusters if args.n_clusters is not None else params.get("n_clusters")
        if given is not None:
            _say(f"note: n_clusters is searched over {searched}, so the number of clusters "
                 f"given ({given}) is not used")
        return int(searched[0])
    from_param = params.get("n_clusters")
    if from_param is not None and args.n_clusters is not None and from_param != args.n_clusters:
        raise ValueError(
            f"--n-clusters {args.n_clusters} and --param n_clusters={from_param} disagree; "
            "give the number of clusters once."
        )
    k = args.n_clusters if args.n_clusters is not None else from_param
    if k == "auto":
        if cls is None or not _chooses_k(cls):
            raise ValueError(
                f"--n-clusters auto needs a method that chooses the number of clusters "
                f"(max-margin); {getattr(cls, '__name__', 'this method')} needs a number.")
        return "auto"
    if k is None:
        if labels is None:
            raise ValueError(
                "--n-clusters is required (or name a --label-column to use its number of "
                "classes, or let --search choose it: --search --search-param "
                "'n_clusters=[2,3,4,5,6]')."
            )
        k = int(np.unique(labels).size)
        _say(f"--n-clusters not given: using {k}, the number of classes in column "
             f"{args.label_column!r}")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"the number of clusters must be a positive integer; got {k!r}.")
    return int(k)


def _n_jobs_arg(value: str) -> int:
    """``--n-jobs``: a positive number of workers, or -1 for every core."""
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n == 0 or n < -1:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of workers or -1 (every core); got {value!r}")
    return n


def run(args: argparse.Namespace) -> int:
    """Run the ``fit`` subcommand."""
    if args.list_methods:
        return _list_methods()
    if args.input is None:
        raise ValueError("name the input CSV file (or pass --list-methods).")
    cls = resolve_method(args.method)
    check_out_file(args.out)
    params = parse_params(args.param)
    init_params = cls().get_params(deep=False)
    _check_known(cls, params, init_params)
    data = _read_input(args)
    X, labels = data.X, data.labels
    k = _n_clusters(args, params, labels, cls)
    params["n_clusters"] = k
    X = _scaled(X, args, data.feature_names)
    _complete_params(cls, args, params, init_params)
    _exact_kernel_note(cls, X, params, init_params)
    estimator = cls(**params)
    kind = method_kind(cls)
    if kind.startswith("soft with") and not hasattr(estimator, "predict_proba"):
        _say(f"note: {cls.__name__} writes membership columns only {kind[5:]}")
    from ._search import fit_estimator

    if args.verbose:
        _say(f"fitting {cls.__name__}(n_clusters={k}) on {X.shape[0]} x {X.shape[1]}")
    start = time.perf_counter()
    with fit_progress(f"fitting {cls.__name__}",
                      enabled=not args.no_progress and not args.verbose and not args.search), \
            joblib.parallel_config(n_jobs=args.n_jobs):
        estimator = fit_estimator(estimator, X, args)  # with --search: the search's pick
    elapsed = time.perf_counter() - start
    labels_ = np.asarray(estimator.labels_)
    _write_output(args, labels_, memberships(estimator, X), data)
    if k == "auto":
        _print_k_curve(estimator)
    to_file = args.out is not None and args.out != "-"
    print(_summary(cls, estimator, X, labels_, labels, elapsed),
          file=sys.stdout if to_file else sys.stderr)
    return 0


def _check_known(cls: type, params: dict[str, Any], init_params: dict[str, Any]) -> None:
    """Refuse ``--param`` names that the estimator does not take, naming those it does."""
    unknown = sorted(set(params) - set(init_params))
    if unknown:
        raise ValueError(
            f"{cls.__name__} has no parameter{'s' if len(unknown) > 1 else ''} {unknown}; its "
            "parameters are "
            f"{sorted(init_params)}."
        )


def _read_input(args: argparse.Namespace) -> CSVData:
    """The input file read, with the reader's notes, its time when long and a scale note."""
    data = read_csv(args.input, args.label_column, delimiter=parse_delimiter(args.delimiter),
                    id_columns=args.id_column)
    for note in data.notes:
        _say(f"note: {note}")
    X = data.X
    if data.seconds > LARGE_IO_SECONDS or X.size > LARGE_IO_CELLS:
        _say(f"read {X.shape[0]:,} rows x {X.shape[1]:,} features from "
             f"{'standard input' if args.input == '-' else args.input} in {data.seconds:.1f} s")
    return data


def _scaled(X: np.ndarray, args: argparse.Namespace, names: list[str]) -> np.ndarray:
    """``X`` under ``--scale`` (``--standardize``: ``standard``), with the note on scales."""
    from marginclust.utils._preprocessing import resolve_scaling, scale_columns

    asked = "standard" if args.standardize else args.scale
    how = resolve_scaling(X, asked)
    if asked in ("auto", "none"):
        scales = scale_note(X, names, scaled=how != "none")
        if scales:
            _say(f"note: {scales}")
    return scale_columns(X, how) if how != "none" else X


def _complete_params(cls: type, args: argparse.Namespace, params: dict[str, Any],
                     init_params: dict[str, Any]) -> None:
    """``--seed`` and ``--verbose`` as parameters, unless ``--param`` gave them."""
    if "random_state" in init_params:
        params.setdefault("random_state", args.seed)
    if args.verbose:
        if "verbose" in init_params:
            params.setdefault("verbose", args.verbose)
        else:
            _say(f"note: {cls.__name__} has no verbose parameter; only the summary is printed")


def _exact_kernel_note(cls: type, X: np.ndarray, params: dict[str, Any],
                       init_params: dict[str, Any]) -> None:
    """A note pointing at the low-rank mode when an exact kernel fit will be slow."""
    n_comp = params.get("n_components", init_params.get("n_components"))
    if n_comp == "auto":  # SLMC / IterativeLSSVM: exact up to EXACT_MAX_SAMPLES rows only
        from marginclust.estimators._kernel_model import EXACT_MAX_SAMPLES

        n_comp = None if X.shape[0] <= EXACT_MAX_SAMPLES else 0
    if (
        X.shape[0] > EXACT_KERNEL_NOTE_ROWS
        and "n_components" in init_params
        and n_comp is None
        and params.get("kernel", init_params.get("kernel")) != "precomputed"
    ):
        _say(
            f"note: {cls.__name__} with an exact {X.shape[0]} x {X.shape[0]} kernel can take "
            "minutes; --param n_components=300 (low rank) is usually much faster at a "
            "similar accuracy"
        )


def _write_output(args: argparse.Namespace, labels_: np.ndarray, U: np.ndarray | None,
                  data: CSVData) -> None:
    """The output CSV (``--out`` or standard output), with its time when long."""
    fh, close = open_output(args.out)
    start = time.perf_counter()
    try:
        write_clusters(fh, labels_, None if U is None else np.asarray(U), data.ids, data.labels,
                       args.label_column)
    finally:
        if close:
            fh.close()
    seconds = time.perf_counter() - start
    if seconds > LARGE_IO_SECONDS or labels_.size * (1 + (0 if U is None else U.shape[1])) \
            > LARGE_IO_CELLS:
        _say(f"wrote {labels_.size:,} rows to "
             f"{'standard output' if close is False else args.out} in {seconds:.1f} s")


def _summary(cls: type, estimator: Any, X: np.ndarray, labels_: np.ndarray, labels: Any,
             elapsed: float) -> str:
    """The closing line: K, sizes, time, iterations and, with true labels, the accuracy."""
    # a search or the estimator itself may have chosen it
    k = getattr(estimator, "n_clusters_", None) or estimator.n_clusters
    summary = (
        f"{cls.__name__}: k={k}, {plural(X.shape[0], 'sample')}, "
        f"{plural(np.unique(labels_).size, 'non-empty cluster')}, fit {elapsed:.3f} s, "
        f"n_iter {getattr(estimator, 'n_iter_', '-')}"
    )
    if labels is not None:
        from marginclust.metrics import clustering_accuracy

        summary += (
            f", CA majority {clustering_accuracy(labels, labels_, mapping='majority'):.4f}"
            f", CA hungarian {clustering_accuracy(labels, labels_, mapping='hungarian'):.4f}"
        )
    return summary

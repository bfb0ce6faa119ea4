"""Markdown reports of a table's rows: ours beside the published numbers, gaps shown.

Per measure, a row per data set and per method: ours under each protocol (mean
+- std over runs of the per-run best setting), the published number and the gap
(signed so that a negative gap is always a shortfall).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from marginclust.utils import shorten

from ._registry import MEASURES, METHODS, Table
from ._runner import row_status, select_best

__all__ = ["format_report", "md_table", "summarize", "table_head"]


def table_head(table: Table) -> list[str]:
    """Markdown heading lines of a table report: name, title and source."""
    return [f"## {table.name}: {table.title}", "", f"Source: {table.source}.", ""]


def md_table(
    header: Sequence[str], body: Sequence[Sequence[Any]], fmt: Callable[[Any], str] = str
) -> list[str]:
    """Lines of a Markdown table (``fmt`` turns a cell into its text)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in body]
    return lines


def _finite(values: Sequence[Any]) -> np.ndarray:
    arr = np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    return arr[np.isfinite(arr)]


def _by_variant(rows: Sequence[Mapping[str, Any]], table: Table) -> list[Mapping[str, Any]]:
    """Paper-protocol rows renamed to their variant when settings are columns."""
    if table.aggregate == "best" and not table.curve:
        return list(rows)
    return [{**r, "method": r.get("variant") or r["method"]} if r.get("protocol") == "paper"
            else r for r in rows]


def summarize(
    rows: Sequence[Mapping[str, Any]], table: Table
) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Aggregate rows into ``(dataset, method, protocol) -> summary``.

    The paper protocol first keeps, per run, the setting with the best value of
    the table's first measure (``table.aggregate == "best"``); with ``"setting"``
    or ``"count"`` every setting is its own method, named by the rows'
    ``variant`` (``method[param=value]``). A summary holds, per measure,
    ``mean``, ``std`` (population, over runs), ``sum``, ``min``, ``max`` and ``n``
    (finite runs), plus ``n_runs``, ``n_failed``, ``n_convergence_warnings``,
    ``fit_time`` (mean seconds), ``params`` (the most often chosen setting) and
    ``status`` (the rows' status when they all share one, else ``"mixed"``).

    Parameters
    ----------
    rows : sequence of mapping
        Result rows of one table (one per fit).
    table : Table
        The table the rows belong to (its first measure selects the best setting).

    Returns
    -------
    summaries : dict
        ``(dataset, method, protocol) -> summary`` as described above.
    """
    if table.aggregate not in ("best", "setting", "count"):
        raise ValueError(
            f"Table {table.name!r}: aggregate must be 'best', 'setting' or 'count'; "
            f"got {table.aggregate!r}."
        )
    rows = _by_variant(rows, table)
    selection = table.measures[0] if table.measures else None
    kept = select_best(rows, selection) if selection and table.aggregate == "best" else list(rows)
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for row in kept:
        groups[(row["dataset"], row["method"], row["protocol"])].append(row)
    failed: Counter[tuple[str, str, str]] = Counter()
    warned: Counter[tuple[str, str, str]] = Counter()
    fits: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        group = (row["dataset"], row["method"], row["protocol"])
        failed[group] += row_status(row) != "ok"
        warned[group] += int(row.get("n_convergence_warnings") or 0)
        fits[group] += 1
    out = {}
    for group, members in groups.items():
        summary: dict[str, Any] = {
            "n_runs": len(members), "n_failed": failed[group], "n_fits": fits[group],
            "n_convergence_warnings": warned[group],
        }
        for measure in table.measures:
            values = _finite([r.get(measure) for r in members])
            summary[measure] = {
                stat: float(getattr(values, stat)()) if values.size else math.nan
                for stat in ("mean", "std", "sum", "min", "max")
            } | {"n": int(values.size)}
        times = _finite([r.get("fit_time") for r in members])
        summary["fit_time"] = float(times.mean()) if times.size else math.nan
        summary["params"] = Counter(str(r.get("params")) for r in members).most_common(1)[0][0]
        summary["preprocessing"] = members[0].get("preprocessing")
        statuses = {row_status(r) for r in members}
        summary["status"] = statuses.pop() if len(statuses) == 1 else "mixed"
        summary["reason"] = members[0].get("error")
        summary["no_data"] = summary["status"] == "no-data"
        summary["not_applicable"] = summary["status"] == "not-applicable"
        out[group] = summary
    return out


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.4f}"


def _cell(summary: Mapping[str, Any] | None, measure: str, count: bool = False) -> str:
    if summary is None:
        return "not run"
    stats = summary[measure]
    status = summary.get("status")
    if status == "no-data":
        return "no data"
    if status == "not-applicable":
        return "n/a (binary method)"
    if status == "skipped":
        return f"skipped: {shorten(str(summary.get('reason')), 60)}"
    if stats["n"] == 0:
        return f"failed ({summary['n_failed']}/{summary['n_fits']})"
    if count:  # e.g. correct partitions out of the runs
        return f"{stats['sum']:.0f}/{summary['n_runs']}"
    # One run (or a deterministic method) has no spread to show.
    spread = stats["std"] if stats["n"] > 1 and stats["std"] > 0 else None
    text = _fmt(stats["mean"]) if spread is None else f"{_fmt(stats['mean'])} ± {_fmt(spread)}"
    if stats["n"] < summary["n_runs"]:
        text += f" ({stats['n']}/{summary['n_runs']} runs)"
    return text


def _published(table: Table, dataset: str, method: str, measure: str) -> str:
    value = table.published.get((dataset, method, measure))
    spread = table.published_spread.get((dataset, method, measure))
    if value is None:
        return "-"
    # a published scalar, not "± 0.0000"
    return f"{_fmt(value)} ± {_fmt(spread)}" if spread is not None and spread > 0 else _fmt(value)


def _gap(
    table: Table, summary: Mapping[str, Any] | None, dataset: str, method: str, measure: str
) -> tuple[str, float | None]:
    value = table.published.get((dataset, method, measure))
    # counts are out of different numbers of runs: no gap
    if value is None or summary is None or summary[measure]["n"] == 0 or table.aggregate == (
        "count"
    ):
        return "-", None
    signed = summary[measure]["mean"] - float(value)
    if measure in MEASURES and not MEASURES[measure].greater_is_better:
        signed = -signed
    return f"{signed:+.4f}", signed


def format_report(
    rows: Sequence[Mapping[str, Any]],
    table: Table | str,
    *,
    seed: int | None = None,
    quick: bool = False,
    shortfall: float = 0.01,
    layout: str = "wide",
) -> str:
    """A Markdown report of ``rows`` (a custom ``table.report`` is used when given).

    Parameters
    ----------
    rows : sequence of dict
        Rows returned by :func:`~marginclust.bench._runner.run_table`.
    table : Table or str
        The table the rows belong to (or its registered name).
    seed : int, default=None
        Global seed given to ``run_table``, named under the table (None: not named).
    quick : bool, default=False
        Whether the rows come from a ``--quick`` run (said in the heading).
    shortfall : float, default=0.01
        A gap below ``-shortfall`` counts as a shortfall in the summary line.
    layout : {"wide", "long"}, default="wide"
        ``"wide"``: a row per data set and columns per method (the paper's layout,
        for rendered Markdown); ``"long"``: a row per data set and method with at
        most six columns (for a terminal; what ``marginclust bench`` prints).

    Returns
    -------
    markdown : str
        The report, Markdown text.
    """
    if layout not in ("wide", "long"):
        raise ValueError(f"layout must be 'wide' or 'long'; got {layout!r}.")
    if isinstance(table, str):
        from ._runner import get_table

        table = get_table(table)
    if any(r.get("run_failed") for r in rows):  # the custom run raised
        return "\n".join(
            table_head(table) + [f"failed: {r.get('error')}" for r in rows if r.get("run_failed")]
        )
    if table.report is not None:
        return table.report(rows, table)
    if table.run is not None:
        return _generic_custom(rows, table)
    fitted, rows = rows, _by_variant(rows, table)
    run_methods = [m for m in dict.fromkeys(r["method"] for r in rows)]
    augmented, pooled_from = _pool(rows, table, run_methods)
    summaries = summarize(augmented, table)
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    # Data sets with published numbers that the table cannot run (no data here).
    datasets += [d for d in dict.fromkeys(k[0] for k in table.published)
                 if d not in table.datasets and d not in datasets]
    protocols = [p for p in [*table.protocols, "label-free"]
                 if any(r["protocol"] == p for r in rows)]
    extra = list(dict.fromkeys(m for _, m, _ in table.published if m not in run_methods))
    lines = [f"## {table.name}: {table.title}" + (" (quick)" if quick else ""), "",
             f"Source: {table.source}.", ""]
    n_short = n_cells = 0
    for measure in table.measures:
        has_published = any(k[2] == measure for k in table.published)
        lines += [f"### {measure}" + ("" if has_published else " (no published numbers)"), ""]
        with_published = {m for (_, m, s) in table.published if s == measure}
        with_published |= {p for p, m in pooled_from.items() if m in with_published}
        records: list[tuple[str, str, dict[str, str]]] = []
        for dataset in datasets:
            for m in run_methods:
                rec, gap = _record(table, summaries, dataset, m, measure, protocols,
                                   pooled_from, m in with_published, shortfall)
                n_cells += gap is not None
                n_short += gap == "short"
                records.append((dataset, m, rec))
            records += [(dataset, m, {"published": _published(table, dataset, m, measure)})
                        for m in (extra if has_published else [])]
        lines += _long_table(records) if layout == "long" else _wide_table(records, datasets)
        lines.append("")
    lines += _footer(fitted, table, summaries, seed, n_short, n_cells, shortfall)
    lines += _marks(table, pooled_from)
    return "\n".join(lines)


def _pool(
    rows: Sequence[Mapping[str, Any]], table: Table, run_methods: list[str]
) -> tuple[list[Mapping[str, Any]], dict[str, str]]:
    """The rows plus a copy per pooled column, and pooled label -> published column.

    A pooled column (``table.pooled``) takes, per run, the best paper-protocol
    setting over its member methods that ran; its label is appended to ``run_methods``.
    """
    pooled_from: dict[str, str] = {}  # pooled label -> method whose published numbers apply
    augmented = list(rows)
    for label, members in table.pooled.items():
        present = [m for m in members if m in run_methods]
        if not present:
            continue
        pooled_from[label] = members[0]
        augmented += [{**r, "method": label} for r in rows
                      if r["method"] in present and r["protocol"] == "paper"]
        run_methods.append(label)
    return augmented, pooled_from


def _record(
    table: Table,
    summaries: Mapping[tuple[str, str, str], Mapping[str, Any]],
    dataset: str,
    m: str,
    measure: str,
    protocols: Sequence[str],
    pooled_from: Mapping[str, str],
    published: bool,
    shortfall: float,
) -> tuple[dict[str, str], str | None]:
    """One (data set, method) record of a measure: ours per protocol, published, gap.

    The second item says how the gap counts in the summary line: None (no gap),
    ``"short"`` (a shortfall, marked ▼) or ``"gap"`` (any other gap).
    """
    count = table.aggregate == "count"
    rec = {
        f"ours ({p})": _cell(summaries.get((dataset, m, p)), measure, count and p == "paper")
        for p in ("paper", "default", "label-free")
        if p in protocols and (p == "paper" or m not in pooled_from)
    }
    if not published:
        return rec, None
    source = pooled_from.get(m, m)
    rec["published"] = _published(table, dataset, source, measure)
    ours = summaries.get((dataset, m, "paper")) or summaries.get((dataset, m, "default"))
    text, signed = _gap(table, ours, dataset, source, measure)
    kind = None
    if signed is not None:
        kind = "gap"
        if (dataset, source, measure) in table.contradicted:
            text += " †"
        elif signed < -shortfall and (dataset, source, measure) in table.explained:
            text += " ‡"
        elif signed < -shortfall:
            kind = "short"
            text += " ▼"
    rec["gap"] = text
    return rec, kind


def _marks(table: Table, pooled_from: Mapping[str, str]) -> list[str]:
    """The report's last lines: what †, ‡ and each pooled column mean."""
    lines = [f"- † {dataset} / {method} / {measure}: published value contested: {note}"
             for (dataset, method, measure), note in table.contradicted.items()]
    lines += [f"- ‡ {dataset} / {method} / {measure}: shortfall explained: {note}"
              for (dataset, method, measure), note in table.explained.items()]
    lines += [f"- `{label}`: per run, the best paper-protocol setting over "
              f"{', '.join(f'`{m}`' for m in table.pooled[label])} pooled, compared with the "
              f"published `{source}` column." for label, source in pooled_from.items()]
    return lines


def _settings_per_run(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Per method, the most settings the paper protocol chose among in one run.

    A "best" column is only as honest as the number of label-picked
    candidates behind it, so reports print it.
    """
    per_run = Counter((r["method"], r["dataset"], r.get("run")) for r in rows
                      if r.get("protocol") == "paper")
    out: dict[str, int] = {}
    for (method, _, _), n in per_run.items():
        out[method] = max(out.get(method, 0), n)
    return out


def _wide_table(records: Sequence[tuple[str, str, dict[str, str]]], datasets: Sequence[str]
                ) -> list[str]:
    """A row per data set, a column per (method, quantity): the paper's layout."""
    columns: list[tuple[str, str]] = []
    for _, m, rec in records:
        columns += [(m, q) for q in rec if (m, q) not in columns]
    cells = {(d, m, q): v for d, m, rec in records for q, v in rec.items()}
    body = [[d] + [cells.get((d, m, q), "-") for m, q in columns] for d in datasets]
    return md_table(["dataset"] + [f"{m} {q}" for m, q in columns], body)


def _long_table(records: Sequence[tuple[str, str, dict[str, str]]]) -> list[str]:
    """A row per (data set, method) and at most six columns: readable in a terminal."""
    quantities = list(dict.fromkeys(q for _, _, rec in records for q in rec))
    body, previous = [], None
    for d, m, rec in records:
        body.append([d if d != previous else "", m] + [rec.get(q, "-") for q in quantities])
        previous = d
    return md_table(["dataset", "method", *quantities], body)


def _footer(
    rows: Sequence[Mapping[str, Any]],
    table: Table,
    summaries: Mapping[tuple[str, str, str], Mapping[str, Any]],
    seed: int | None,
    n_short: int,
    n_cells: int,
    shortfall: float,
) -> list[str]:
    lines = [
        f"Shortfall: ours (paper protocol) is below the published number by more than "
        f"{shortfall} on {n_short} of {n_cells} cells (marked ▼; gap = ours - published, "
        "sign flipped for measures where smaller is better).", "",
    ] if n_cells else []
    selection = table.measures[0] if table.measures else "-"
    n_runs = sorted({s["n_runs"] for s in summaries.values()})
    lines.append(
        f"- Protocols: paper = per run, the grid setting with the best `{selection}` "
        "(chosen with the labels, as the papers did), mean ± std (population) over runs; "
        "default = the method's defaults, no tuning"
        + ("; label-free = StabilitySearch from the defaults over the estimator's "
           "label-free grid, labels never seen (time = the whole search)."
           if any(r.get("protocol") == "label-free" for r in rows) else ".")
    )
    lines.append(
        f"- Runs per cell: {', '.join(map(str, n_runs))}; "
        # format_report is not told run_table's seed unless the caller passes it
        + (f"seed: {seed}; each run's seed is " if seed is not None else
           "each run's seed is, from run_table's seed, ")
        + ("derive_seed(seed, dataset, method, run), shared by all settings of that run."
           if table.seed_key is None else "derived from the keys of the table's seed_key "
           "(the seeds of the code the table replaced).")
    )
    if any(m.startswith("ca_") for m in table.measures):
        lines.append(
            "- CA mapping: `ca_majority` maps each cluster to its majority class (SLMC eq. 16); "
            "`ca_hungarian` uses the best one-to-one mapping."
        )
    by_prep: dict[str, list[str]] = defaultdict(list)
    for dataset, prep in dict.fromkeys((r["dataset"], r.get("preprocessing")) for r in rows):
        by_prep[str(prep)].append(dataset)
    lines.append(
        "- Preprocessing: "
        + "; ".join(f"`{p}`: {', '.join(ds)}" for p, ds in sorted(by_prep.items()))
    )
    methods = list(dict.fromkeys(r["method"] for r in rows))
    picked = _settings_per_run(rows)
    for m in methods:
        method = METHODS.get(m)
        if method is None:
            continue
        grid = json.dumps(_grid_run(rows, m), default=str)
        text = f"- `{m}`: grid {grid}; defaults {json.dumps(dict(method.defaults), default=str)}"
        if picked.get(m, 0) > 1:
            text += f"; paper column = best of {picked[m]} settings per run, picked with the labels"
        if method.notes:
            text += f". {method.notes}"
        lines.append(text)
    statuses = Counter(row_status(r) for r in rows)
    n_na = statuses["not-applicable"]
    n_failed = statuses["failed"] + statuses["no-data"]
    n_warn = sum(int(r.get("n_convergence_warnings") or 0) for r in rows)
    lines.append(
        f"- Fits: {len(rows) - n_na}; failed: {n_failed}; not applicable (binary method on "
        f"a multi-class set): {n_na}; "
        + (f"skipped: {statuses['skipped']}; " if statuses["skipped"] else "")
        + f"ConvergenceWarnings: {n_warn}; "
        f"package version {rows[0].get('version') if rows else '-'}."
    )
    errors = Counter(
        shorten(str(r["error"]).split("\n")[0], 160)
        for r in rows
        if r.get("error") and row_status(r) in ("failed", "no-data")
    )
    for message, count in errors.most_common(3):
        lines.append(f"  - {count} x {message}")
    if table.notes:
        lines.append(f"- Notes: {table.notes}")
    return lines


def _grid_run(rows: Sequence[Mapping[str, Any]], method: str) -> dict[str, list[Any]]:
    """The settings of ``method`` that the paper-protocol rows actually ran, per parameter."""
    grid: dict[str, list[Any]] = {}
    for row in rows:
        params = row.get("params")
        if row["method"] != method or row.get("protocol") != "paper":
            continue
        with contextlib.suppress(ValueError):
            for key, value in (json.loads(params) if isinstance(params, str) else params
                               or {}).items():
                if value not in grid.setdefault(key, []):
                    grid[key].append(value)
    for values in grid.values():
        with contextlib.suppress(TypeError):
            values.sort()
    return grid


def _generic_custom(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    columns = [c for c in dict.fromkeys(k for r in rows for k in r) if c not in {"key", "table"}]
    body = [[_fmt(v) if isinstance(v := r.get(c), float) else str("-" if v is None else v)
             for c in columns] for r in rows]
    lines = table_head(table) + (md_table(columns, body) if rows else ["(no rows)"])
    return "\n".join(lines + ([""] + [f"Notes: {table.notes}"] if table.notes and rows else []))

"""Published numbers: one CSV per paper, one loader, every key a registered name."""

from __future__ import annotations

from dataclasses import replace

from marginclust.bench import DATASETS, MEASURES, METHODS, TABLES
from marginclust.bench._published import (
    FIELDS,
    load_published,
    method_key,
    published_for,
    split_measure,
    split_method,
)
from marginclust.bench._runner import ROW_FIELDS, parse_dataset
from papers._common import PUBLISHED as PUBLISHED_DIR  # registers the tables

PUBLISHED = load_published(PUBLISHED_DIR)


def _known_dataset(name: str) -> bool:
    return parse_dataset(name)[0] in DATASETS


def test_every_paper_has_a_csv_with_numbers():
    names = {p.paper for p in PUBLISHED}
    assert {"slmc", "pkm", "bmmc", "wocsvm", "emmc"} <= names
    assert FIELDS == ("table", "dataset", "method", "measure", "value", "spread", "note")


def _problems(entry):
    if entry.table not in TABLES:
        return [f"no registered table {entry.table!r}"]
    table = TABLES[entry.table]
    out = []
    if entry.table.split("-")[0] != entry.paper:
        out.append(f"listed in {entry.paper}.csv, not in its paper's CSV")
    only = set(table.published_only)
    if not (entry.dataset in table.datasets or entry.dataset in only
            or _known_dataset(entry.dataset)):
        out.append(f"data set {entry.dataset!r}: not run by the table, not declared "
                   "published-only, not a known data set")
    base, params = split_method(entry.method)
    if base not in METHODS and base not in only:
        out.append(f"method {base!r} neither registered nor declared published-only")
    if method_key(base, params) != entry.method:
        out.append(f"method {entry.method!r} not written as {method_key(base, params)!r}")
    measure, stat = split_measure(entry.measure)
    if measure not in MEASURES and measure not in ROW_FIELDS:
        out.append(f"measure {measure!r} not registered")
    if stat not in {"mean", "max", "min"}:
        out.append(f"statistic {stat!r} unknown")
    return out


def test_every_key_names_a_registered_table_dataset_method_and_measure():
    bad = {
        f"{p.table}|{p.dataset}|{p.method}|{p.measure}": problems
        for p in PUBLISHED
        if (problems := _problems(p))
    }
    assert not bad, bad


def test_the_key_check_catches_a_bad_key():
    good = PUBLISHED[0]
    assert _problems(good) == []
    assert _problems(replace(good, method="no-such-method"))
    assert _problems(replace(good, measure="no_such_measure"))
    assert _problems(replace(good, dataset="no-such-data"))
    assert _problems(replace(good, table="no-such-table"))


def test_keys_are_unique_and_tables_see_their_numbers():
    keys = [(p.table, *p.key) for p in PUBLISHED]
    assert len(keys) == len(set(keys))
    names = {p.paper for p in PUBLISHED}
    for name, table in TABLES.items():
        if name.split("-")[0] not in names:
            continue  # a table registered by a test brings its own numbers
        source = table.published_from or name
        expected = {k: p.value for k, p in published_for(source, PUBLISHED_DIR).items()}
        assert dict(table.published) == expected


def test_split_and_join_method_settings():
    assert split_method("pkm[solver=agp,step=0.01]") == ("pkm", {"solver": "agp", "step": 0.01})
    assert split_method("fcm") == ("fcm", {})
    assert method_key("fcm", {"m": 1.5}) == "fcm[m=1.5]"
    assert split_measure("ca_majority:max") == ("ca_majority", "max")

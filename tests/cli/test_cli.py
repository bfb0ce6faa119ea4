"""The ``marginclust`` command line: fit, datasets, bench, demo (each a few seconds)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from marginclust.bench import METHODS, TABLES, Method, Table, register_method, register_table
from marginclust.cli import main
from marginclust.cli._fit import parse_params


def _write_blobs(path, rng, label=True):
    X = np.vstack([rng.normal(0, 0.3, (20, 2)), rng.normal(3, 0.3, (20, 2))])
    y = np.repeat(["a", "b"], 20)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["x0", "x1"] + (["kind"] if label else []))
        for xi, yi in zip(X, y):
            w.writerow([*xi] + ([yi] if label else []))
    return X, y


def test_fit_round_trip(tmp_path, rng, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    X, y = _write_blobs(src, rng)
    code = main(["fit", str(src), "--method", "fcm", "--n-clusters", "2",
                 "--label-column", "kind", "--param", "m=2.0", "--out", str(out)])
    assert code == 0
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == X.shape[0]
    assert list(rows[0]) == ["cluster", "membership_0", "membership_1", "kind"]
    U = np.array([[float(r["membership_0"]), float(r["membership_1"])] for r in rows])
    np.testing.assert_allclose(U.sum(axis=1), 1.0, atol=1e-5)
    labels = np.array([int(r["cluster"]) for r in rows])
    np.testing.assert_array_equal(labels, U.argmax(axis=1))
    assert [r["kind"] for r in rows] == list(y)
    assert "CA majority 1.0000" in capsys.readouterr().out


def test_fit_errors_are_clear(tmp_path, rng, capsys):
    src = tmp_path / "in.csv"
    _write_blobs(src, rng)
    assert main(["fit", str(src), "--method", "no-such"]) == 1
    assert "Unknown or unavailable method" in capsys.readouterr().err
    assert main(["fit", str(src), "--method", "fcm"]) == 1  # text column not named
    assert "not a finite number" in capsys.readouterr().err
    assert main(["fit", str(src), "--label-column", "kind", "--param", "nope=1"]) == 1
    assert "has no parameter" in capsys.readouterr().err


def test_parse_params():
    assert parse_params(["m=1.5", "kernel=rbf", "grid=[1, 2]", "flag=True"]) == {
        "m": 1.5, "kernel": "rbf", "grid": [1, 2], "flag": True,
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_params(["m"])


def test_datasets_lists_bundled_sets(tmp_path, capsys):
    # An empty data directory keeps this fast: only bundled and synthetic sets are listed.
    assert main(["datasets", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "sk-iris" in out and "slmc-four-gaussians" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("sk-iris"))
    assert line.split()[1:4] == ["150", "4", "3"]


def test_bench_quick_prints_report(tmp_path, capsys):
    from sklearn.cluster import KMeans

    if "test-cli-kmeans" not in METHODS:
        register_method(Method("test-cli-kmeans", KMeans, grid={"n_init": [1, 2]},
                               defaults={"n_init": 1}))
    if "test-cli-table" not in TABLES:
        register_table(Table(
            "test-cli-table", "iris by k-means", "unit test", ["sk-iris"], ["test-cli-kmeans"],
            ["ca_majority", "ca_hungarian"], n_runs=5,
            published={("sk-iris", "test-cli-kmeans", "ca_majority"): 0.8933},
            quick={"n_runs": 2},
        ))
    assert main(["bench", "--table", "test-cli-table", "--quick", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "## test-cli-table" in out and "(quick)" in out and "0.8933" in out
    assert (tmp_path / "test-cli-table.jsonl").is_file()
    assert (tmp_path / "test-cli-table-quick.md").read_text().startswith("## test-cli-table")
    assert main(["bench", "--list"]) == 0
    assert "slmc-table6" in capsys.readouterr().out
    assert main(["bench", "--table", "no-such-table"]) == 1


def test_demo_writes_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["demo", "--out", str(tmp_path), "--methods", "FuzzyCMeans"]) == 0
    out = capsys.readouterr().out
    assert "FuzzyCMeans" in out and "sk-iris" in out and "Demo finished" in out
    png = tmp_path / "demo.png"
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

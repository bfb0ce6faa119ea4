"""``marginclust fit --search``: the search runs, the pick's labels are written."""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pytest

from marginclust.cli import main
from marginclust.cli._search import parse_grid

from ._helpers import blobs


def _write(path, X, y=None):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"x{j}" for j in range(X.shape[1])] + (["kind"] if y is not None else []))
        for i, xi in enumerate(X):
            w.writerow([*xi] + ([y[i]] if y is not None else []))


def test_fit_search_picks_k_and_writes_labels(tmp_path, capsys):
    X, y = blobs(3, n_per=30, seed=0, return_y=True)
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write(src, X, y)
    code = main(["fit", str(src), "--method", "fcm", "--search", "--search-param",
                 "n_clusters=[2,3,4]", "--search-n-pairs", "2", "--label-column", "kind",
                 "--out", str(out)])
    assert code == 0
    captured = capsys.readouterr()
    assert "search picked {'n_clusters': 3}" in captured.err
    assert "CA hungarian 1.0000" in captured.out
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 90 and "membership_2" in rows[0]


def test_fit_search_all_collapsed_is_an_error(tmp_path, capsys):
    X = np.r_[np.zeros((30, 2)), np.ones((1, 2))]  # one outlier: any 2-split is degenerate
    src = tmp_path / "in.csv"
    _write(src, X + np.random.RandomState(0).normal(0, 1e-9, X.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the command line may report them itself
        code = main(["fit", str(src), "--method", "fcm", "--n-clusters", "2", "--search",
                     "--search-param", "m=[2.0]", "--search-n-pairs", "1"])
    assert code == 1
    assert "every setting of the search collapsed" in capsys.readouterr().err


def test_parse_grid():
    assert parse_grid(["C=[0.1, 1]", "m=(1.5,)"]) == {"C": [0.1, 1], "m": [1.5]}
    assert parse_grid(None) is None
    with pytest.raises(ValueError, match="KEY=\\[V1,V2"):
        parse_grid(["C=1"])


def test_bench_label_free_flag_adds_the_column(tmp_path, capsys, shared_data_dir):
    code = main(["bench", "--table", "slmc-table3", "--quick", "--label-free", "--no-progress",
                 "--out", str(tmp_path / "out"), "--data-home", str(shared_data_dir)])
    assert code in (0, None)
    assert "ours (label-free)" in capsys.readouterr().out

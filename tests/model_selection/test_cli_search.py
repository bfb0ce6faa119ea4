"""``marginclust fit --search``: the search runs, the pick's labels are written."""

from __future__ import annotations

import argparse
import csv

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
    assert "search picked n_clusters=3" in captured.err
    assert "CA hungarian 1.0000" in captured.out
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 90 and "membership_2" in rows[0]


def test_fit_search_all_collapsed_writes_the_least_degenerate_with_a_warning(tmp_path, capsys):
    X = np.r_[np.zeros((30, 2)), np.ones((1, 2))]  # one outlier: any 2-split is degenerate
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write(src, X + np.random.RandomState(0).normal(0, 1e-9, X.shape))
    code = main(["fit", str(src), "--method", "fcm", "--n-clusters", "2", "--search",
                 "--search-param", "m=[2.0]", "--search-n-pairs", "1", "--out", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    assert "warning: ConvergenceWarning: Every setting of the FuzzyCMeans search collapsed" in err
    assert "search: every setting collapsed; writing the least degenerate one" in err
    assert "dropped: a cluster of 1 sample(s)" in err
    assert len(out.read_text().splitlines()) == 32


def test_fit_search_n_clusters_without_n_clusters_reports_the_fitted_k(tmp_path, capsys):
    X = blobs(4, n_per=30, seed=1)
    src = tmp_path / "in.csv"
    _write(src, X)
    code = main(["fit", str(src), "--method", "kernel-kmeans", "--search", "--search-param",
                 "n_clusters=[2,3,4,5,6]", "--search-n-pairs", "2", "--out",
                 str(tmp_path / "o.csv")])
    assert code == 0
    captured = capsys.readouterr()
    assert "search picked n_clusters=4" in captured.err
    assert "KernelKMeans: k=4, 120 samples, 4 non-empty clusters" in captured.out


def test_fit_search_prints_plan_progress_then_the_table(tmp_path, capsys):
    X = blobs(3, n_per=30, seed=2)
    src = tmp_path / "in.csv"
    _write(src, X)
    code = main(["fit", str(src), "--method", "fcm", "--search", "--search-param",
                 "n_clusters=[2,3]", "--search-n-pairs", "2", "--out", str(tmp_path / "o.csv")])
    assert code == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].startswith("StabilitySearch: 2 settings") and "at most 10 fits" in lines[0]
    assert "budget 'auto'" in lines[0]
    assert any("setting 1/2, fit 1/10" in line and "ETA" in line for line in lines)
    table = lines.index(next(line for line in lines if line.startswith("search (")))
    assert all("StabilitySearch: setting" not in line for line in lines[table:])
    assert "search picked n_clusters=3" in err


def test_fit_without_n_clusters_suggests_searching_it(tmp_path, capsys):
    src = tmp_path / "in.csv"
    _write(src, blobs(2, n_per=10, seed=3))
    assert main(["fit", str(src), "--method", "fcm"]) == 1
    assert "--search-param 'n_clusters=[2,3,4,5,6]'" in capsys.readouterr().err


def test_search_budget_argument():
    from marginclust.cli._search import _budget

    assert _budget("auto") == "auto" and _budget("none") is None and _budget("12") == 12.0
    for bad in ("0", "-1", "lots", "inf"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected 'auto', 'none'"):
            _budget(bad)


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


def test_the_table_shows_failed_splits_as_failures_not_numbers():
    from marginclust.cli._search import _state

    nan = float("nan")
    res = {"degenerate": [False, False, True], "reason": [None, None, "2 of 6 clusters "
                                                                    "non-empty"],
           "error": [None, None, None], "score": [-1.0, 0.83, float("nan")],
           "score_std": [0.0, 0.05, float("nan")], "n_failed_pairs": [4, 1, 0],
           "pair_scores": [(nan, nan, 0.52, nan, nan), (0.8, 0.83, nan, 0.9, 0.85), ()]}
    assert _state(res, 0) == ("failed: a half collapsed in 4 of 5 splits (the other 1 "
                              "scored 0.52)")
    assert _state(res, 1) == "score 0.8300 +- 0.05 (1 of 5 splits failed: a half collapsed)"
    assert _state(res, 2) == "dropped: 2 of 6 clusters non-empty"


def test_fit_search_cache_resumes_after_ctrl_c(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the middle of a search: the command says how to resume, and the rerun
    with the same --search-cache reads the finished settings."""
    from marginclust.model_selection import _evaluate

    X = blobs(3, n_per=30, seed=4)
    src, cache = tmp_path / "in.csv", tmp_path / "cache"
    _write(src, X)
    argv = ["fit", str(src), "--method", "fcm", "--search", "--search-param",
            "n_clusters=[2,3,4]", "--search-n-pairs", "1", "--search-cache", str(cache),
            "--no-progress", "--out", str(tmp_path / "o.csv")]
    real = _evaluate.fit_setting
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 7:  # during the third setting
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(_evaluate, "fit_setting", interrupted)
    assert main(argv) == 130
    assert f"interrupted; rerun the same command to resume from the settings saved in " \
           f"{cache}" in capsys.readouterr().err
    calls["n"] = 0
    monkeypatch.setattr(_evaluate, "fit_setting", lambda *a, **k: (calls.__setitem__(
        "n", calls["n"] + 1), real(*a, **k))[1])
    assert main(argv) == 0
    assert calls["n"] == 3  # the third setting's three fits; the refit is not counted here
    assert "search picked n_clusters=3" in capsys.readouterr().err


def test_fit_search_on_two_workers_writes_the_one_process_output(tmp_path, monkeypatch):
    from marginclust.model_selection import StabilitySearch

    seen = []
    fit = StabilitySearch.fit

    def spy(self, X, y=None):
        seen.append(self.n_jobs)
        return fit(self, X, y)

    monkeypatch.setattr(StabilitySearch, "fit", spy)
    X = blobs(3, n_per=30, seed=0)
    src = tmp_path / "in.csv"
    _write(src, X)
    outs = []
    for n_jobs in ("1", "2"):
        out = tmp_path / f"out{n_jobs}.csv"
        assert main(["fit", str(src), "--method", "fcm", "--search", "--search-param",
                     "n_clusters=[2,3,4]", "--search-n-pairs", "2", "--n-jobs", n_jobs,
                     "--out", str(out), "--no-progress"]) == 0
        outs.append(out.read_text())
    assert seen == [None, 2] and outs[0] == outs[1]

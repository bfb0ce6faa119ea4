"""``marginclust fit``: what it prints (counts, rounded settings), invalid search grids,
and membership columns of estimators whose ``predict_proba`` depends on a parameter."""

from __future__ import annotations

import re

import numpy as np
import pytest

from marginclust import FuzzyCMeans, MaxMarginClustering
from marginclust.cli import main
from marginclust.cli._fit import memberships, method_kind
from marginclust.cli._output import format_params, plural
from marginclust.cli._search import check_grid


def _blobs(n=40, seed=0):
    rng = np.random.RandomState(seed)
    return np.vstack([rng.normal(0, 0.3, (n, 2)), rng.normal(3, 0.3, (n, 2)),
                      rng.normal((0, 3), 0.3, (n, 2))])


def _csv(tmp_path, X, labels=None):
    path = tmp_path / "in.csv"
    lines = ["x0,x1" + (",label" if labels is not None else "")]
    for i, x in enumerate(X):
        lines.append(f"{x[0]:.6f},{x[1]:.6f}" + (f",c{labels[i]}" if labels is not None
                                                  else ""))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_plural_and_format_params():
    assert plural(1, "cluster") == "1 cluster"
    assert plural(0, "cluster") == "0 clusters"
    assert plural(1200, "row") == "1,200 rows"
    assert plural(1, "non-empty cluster") == "1 non-empty cluster"
    assert format_params({"gamma": 1.2499999999999984, "lam": 100.0}) == "gamma=1.25, lam=100"
    assert format_params({"kernel": "rbf", "n_init": 3}) == "kernel=rbf, n_init=3"
    assert format_params({"C": [0.30000000000000004, 1.0]}) == "C=[0.3, 1]"
    assert format_params({}) == format_params(None) == "the defaults"


def test_one_cluster_found_is_singular_in_the_summary(tmp_path, capsys):
    X = np.random.RandomState(0).normal(size=(30, 2))
    out = tmp_path / "out.csv"
    code = main(["fit", _csv(tmp_path, X), "--method", "fcm", "--n-clusters", "1",
                 "--out", str(out)])
    assert code == 0
    summary = capsys.readouterr().out
    assert "30 samples, 1 non-empty cluster," in summary
    assert not re.search(r"\b1 non-empty clusters\b", summary)


def test_search_table_rounds_settings_and_counts_in_words(tmp_path, capsys):
    X = _blobs()
    out = tmp_path / "out.csv"
    code = main(["fit", _csv(tmp_path, X), "--method", "fcm", "--n-clusters", "3",
                 "--search", "--search-param", "m=[1.1000000000000001, 2.5]",
                 "--search-n-pairs", "3", "--no-progress", "--out", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    table = [ln for ln in err.splitlines() if ln.startswith("  #")]
    assert len(table) == 3  # two grid settings and the defaults
    assert any(" m=1.1  " in ln for ln in table), table
    assert "1.1000000000000001" not in err and "{'m'" not in err
    assert "120 rows" in err and "3 clusters found" in err
    picked = [ln for ln in err.splitlines() if ln.startswith("search picked ")]
    assert picked and "{" not in picked[0]


def test_a_wholly_invalid_search_grid_is_an_error_before_any_fit(tmp_path, capsys,
                                                                monkeypatch):
    import marginclust.model_selection as ms

    def no_search(*a, **k):
        raise AssertionError("the search must not start")

    monkeypatch.setattr(ms, "StabilitySearch", no_search)
    code = main(["fit", _csv(tmp_path, _blobs()), "--method", "fcm", "--n-clusters", "3",
                 "--search", "--search-param", "m=[-1, 0.5]", "--out",
                 str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 1
    line = err.strip().splitlines()[-1]
    assert line.startswith("marginclust fit: error: no setting of --search-param is valid")
    assert "m=-1 (" in line and "m=0.5 (" in line
    assert not (tmp_path / "out.csv").exists()


def test_a_partly_invalid_grid_still_searches_the_valid_settings():
    check_grid(FuzzyCMeans(n_clusters=3), {"m": [-1, 1.5]})  # no error: m=1.5 is valid
    check_grid(FuzzyCMeans(n_clusters=3), None)
    with pytest.raises(ValueError, match="no setting of --search-param is valid"):
        check_grid(FuzzyCMeans(n_clusters=3), {"m": [0.5], "max_iter": [10, 20]})


def test_every_setting_failing_at_fit_time_is_an_error(tmp_path, capsys, monkeypatch):
    # a failure the parameter table cannot see (raised inside fit) ends the same way
    import marginclust.cli._search as search_cli

    monkeypatch.setattr(search_cli, "check_grid", lambda *a: None)
    code = main(["fit", _csv(tmp_path, _blobs()), "--method", "fcm", "--n-clusters", "3",
                 "--search", "--search-param", "m=[-1]", "--search-n-pairs", "3",
                 "--no-progress", "--out", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 1
    assert "every setting of --search-param failed to fit" in err
    assert "search picked" not in err


def test_max_margin_with_probability_writes_membership_columns(tmp_path, capsys):
    X = _blobs()
    y = np.repeat([0, 1, 2], 40)
    out = tmp_path / "out.csv"
    code = main(["fit", _csv(tmp_path, X, y), "--method", "max-margin", "--label-column",
                 "label", "--param", "probability=True", "--out", str(out)])
    assert code == 0
    header, *rows = out.read_text().splitlines()
    assert header == "cluster,membership_0,membership_1,membership_2,label"
    U = np.array([[float(v) for v in r.split(",")[1:4]] for r in rows])
    np.testing.assert_allclose(U.sum(axis=1), 1.0, atol=1e-5)
    # the estimator's own predict_proba on the rows as the file holds them (--seed 0)
    Xr = np.loadtxt(tmp_path / "in.csv", delimiter=",", skiprows=1, usecols=(0, 1))
    est = MaxMarginClustering(n_clusters=3, probability=True, random_state=0).fit(Xr)
    np.testing.assert_allclose(U, est.predict_proba(Xr), atol=1e-5)
    np.testing.assert_array_equal(memberships(est, Xr), est.predict_proba(Xr))


def test_max_margin_without_probability_says_how_to_get_memberships(tmp_path, capsys):
    out = tmp_path / "out.csv"
    code = main(["fit", _csv(tmp_path, _blobs()), "--method", "max-margin", "--n-clusters",
                 "3", "--out", str(out)])
    assert code == 0
    assert out.read_text().splitlines()[0] == "cluster"
    assert "membership columns only with --param probability=True" in capsys.readouterr().err


def test_list_methods_names_the_parameter_max_margin_needs(capsys):
    assert method_kind(MaxMarginClustering) == "soft with --param probability=True"
    assert method_kind(FuzzyCMeans) == "soft"
    assert main(["fit", "--list-methods"]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("max-margin")]
    assert line and line[0].endswith("soft with --param probability=True")


def _plan_cost(err):
    (plan,) = [ln for ln in err.splitlines() if ln.startswith("StabilitySearch: ")
               and "costing about" in ln]
    return float(re.search(r"costing about ([\d.]+) fits on all rows", plan).group(1)), plan


@pytest.mark.parametrize("budget", ["0.5", "3", "5"])
def test_search_budget_number_is_fits_on_all_rows_and_never_above_auto(tmp_path, capsys,
                                                                      budget):
    X = np.vstack([_blobs(n=1500, seed=s) for s in range(2)])  # 9,000 rows
    src = _csv(tmp_path, X)
    costs = {}
    for value in ("auto", budget):
        code = main(["fit", src, "--method", "fcm", "--search", "--search-param",
                     "n_clusters=[2,3,4]", "--search-budget", value,
                     "--out", str(tmp_path / "out.csv")])
        assert code == 0
        err = capsys.readouterr().err
        costs[value], plan = _plan_cost(err)
        assert "No successive-halving schedule fits" not in err
    assert costs[budget] <= costs["auto"]
    if float(budget) > 1:  # within the budget: the search and the refit's one fit
        assert f"budget {budget} allows" in plan
        assert costs[budget] + 1 <= float(budget) * (1 + 1e-9)
    else:  # nothing left after the refit: the smallest plan, said in one warning
        assert f"over budget {budget}," in plan
        assert "warning: budget=0.5 fits on all rows (the refit included) is below" in err


def test_one_comment_line_and_one_unknown_parameter_are_singular(tmp_path, capsys):
    path = tmp_path / "c.csv"
    path.write_text("# exported by a tool\nx0,x1\n" + "\n".join(
        f"{x[0]:.4f},{x[1]:.4f}" for x in _blobs(n=10)) + "\n")
    assert main(["fit", str(path), "--method", "fcm", "--n-clusters", "3",
                 "--out", str(tmp_path / "o.csv")]) == 0
    assert "skipped 1 comment line starting with '#'" in capsys.readouterr().err
    assert main(["fit", str(path), "--method", "fcm", "--n-clusters", "3",
                 "--param", "mm=2"]) == 1
    err = capsys.readouterr().err
    assert "FuzzyCMeans has no parameter ['mm']" in err


def test_a_search_grid_naming_no_parameter_lists_the_parameters(tmp_path, capsys):
    code = main(["fit", _csv(tmp_path, _blobs()), "--method", "fcm", "--n-clusters", "3",
                 "--search", "--search-param", "mm=[1, 2]", "--out", str(tmp_path / "o.csv")])
    assert code == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "FuzzyCMeans has no parameter ['mm']; its parameters are [" in line

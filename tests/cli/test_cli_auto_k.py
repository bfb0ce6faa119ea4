"""``marginclust fit --n-clusters auto`` and the K curve plot."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust import MaxMarginClustering
from marginclust.cli import main


def _three_blobs(n=60, seed=0):
    rng = np.random.RandomState(seed)
    return np.vstack([rng.normal(0, 0.3, (n, 2)), rng.normal(3, 0.3, (n, 2)),
                      rng.normal((0, 3), 0.3, (n, 2))])


def _csv(tmp_path, X):
    path = tmp_path / "in.csv"
    path.write_text("x0,x1\n" + "\n".join(f"{a:.6f},{b:.6f}" for a, b in X) + "\n")
    return str(path)


def test_auto_prints_the_chosen_k_and_the_curve(tmp_path, capsys):
    X = _three_blobs()
    out = tmp_path / "out.csv"
    assert main(["fit", _csv(tmp_path, X), "--method", "max-margin", "--n-clusters", "auto",
                 "--seed", "0", "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(
        np.loadtxt(_csv(tmp_path, X), delimiter=",", skiprows=1))
    assert f"chosen number of clusters: {est.n_clusters_}" in err
    assert est.n_clusters_ == 3
    table = [line for line in err.splitlines() if line.rstrip().endswith(("yes", "no", "<-"))]
    assert len(table) == len(est.k_scores_)
    assert sum("<-" in line for line in table) == 1
    labels = np.loadtxt(out, delimiter=",", skiprows=1, usecols=0)
    assert len(np.unique(labels)) == 3


def test_the_curve_counts_the_pairs_too_small_to_test(tmp_path, capsys):
    X = np.random.RandomState(0).uniform(size=(30, 2))
    assert main(["fit", _csv(tmp_path, X), "--method", "max-margin", "--n-clusters", "auto",
                 "--seed", "0", "--out", str(tmp_path / "out.csv"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "chosen number of clusters: 1" in err
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(
        np.loadtxt(_csv(tmp_path, X), delimiter=",", skiprows=1))
    rows = [line.split("fit:", 1)[-1].split() for line in err.splitlines()]
    table = [r for r in rows if r and r[0].isdigit() and r[-1] in ("yes", "no", "<-")]
    # K, margin, separation, valley, untested, clear: one row per K, as k_scores_
    assert [(int(r[0]), int(r[4])) for r in table] == [
        (row.n_clusters, row.untested) for row in est.k_scores_]
    assert any(row.untested > 0 for row in est.k_scores_)


def test_auto_for_a_method_that_needs_k_is_a_clear_error(tmp_path, capsys):
    code = main(["fit", _csv(tmp_path, _three_blobs()), "--method", "fcm",
                 "--n-clusters", "auto", "--no-progress"])
    assert code != 0
    assert "FuzzyCMeans needs a number" in capsys.readouterr().err


def test_n_clusters_neither_number_nor_auto(tmp_path):
    with pytest.raises(SystemExit):
        main(["fit", _csv(tmp_path, _three_blobs()), "--method", "max-margin",
              "--n-clusters", "three"])


def test_k_curve_plot():
    pytest.importorskip("matplotlib")
    from marginclust.plotting import plot_k_curve

    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(_three_blobs())
    ax = plot_k_curve(est)
    ks = [row.n_clusters for row in est.k_scores_ if row.n_clusters > 1]
    assert list(ax.get_xticks()) == ks
    assert any(f"chosen K = {est.n_clusters_}" == t.get_text()
               for t in ax.get_legend().get_texts())
    with pytest.raises(ValueError, match="no K above 1"):
        plot_k_curve([row for row in est.k_scores_ if row.n_clusters == 1])


def test_n_jobs_gives_the_one_process_result(tmp_path):
    from sklearn.datasets import make_moons

    X = make_moons(20_000, noise=0.06, random_state=0)[0]  # labelled in parts past 16,384
    path = _csv(tmp_path, X)
    outs = []
    for n_jobs in ("1", "2"):
        out = tmp_path / f"out{n_jobs}.csv"
        assert main(["fit", path, "--method", "max-margin", "--n-clusters", "2",
                     "--n-jobs", n_jobs, "--out", str(out), "--no-progress"]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit):
            main(["fit", path, "--method", "max-margin", "--n-jobs", bad])

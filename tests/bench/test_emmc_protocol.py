"""EMMC tables on the declarative runner: how C is picked, seeds, Table 4's shared starts."""

from __future__ import annotations

import json

import numpy as np
import pytest

import papers  # noqa: F401  (registers the papers' tables)
from marginclust.bench import TABLES
from marginclust.bench._runner import expand_jobs
from marginclust.bench._seeds import derive_seed
from papers.emmc import (
    StartThenEMMC,
    _pick_c,
    _report_acc_ri,
    _report_single_multi,
)


def _rows():
    # run 0 is best at C=1, run 1 at C=4; C=2 has the best mean (70 vs 65 and 60)
    acc = {
        (0, 1.0): 80.0,
        (0, 2.0): 70.0,
        (0, 4.0): 40.0,
        (1, 1.0): 50.0,
        (1, 2.0): 70.0,
        (1, 4.0): 80.0,
    }
    return [
        dict(run=run, output=out, C=C, acc=a + (0.0 if out == "multi" else -10.0))
        for (run, C), a in acc.items()
        for out in ("single", "multi")
    ]


def _runner_rows():
    """The same fits as the runner records them (Gaussian nodes: the paper protocol)."""
    return [
        dict(dataset="letter:A,B,C,D", method="emmc", run=r["run"], fit_time=1.0,
             n_iter=3, status="ok", ca_hungarian=r["acc"] / 100,
             params=json.dumps({"n_hidden": 1000, "output": r["output"], "C": r["C"],
                               "activation": "gaussian"}))
        for r in _rows()
    ]


def test_pick_c_per_setting_is_one_c_with_the_best_mean():
    rows = [r for r in _rows() if r["output"] == "multi"]
    kept, C = _pick_c(rows, "setting")
    assert C == 2.0 and {r["C"] for r in kept} == {2.0} and len(kept) == 2


def test_pick_c_per_run_is_an_upper_bound_of_the_per_setting_pick():
    rows = [r for r in _rows() if r["output"] == "multi"]
    per_run, C = _pick_c(rows, "run")
    assert C is None and sorted(r["C"] for r in per_run) == [1.0, 4.0]
    per_setting, _ = _pick_c(rows, "setting")
    mean = lambda rs: sum(r["acc"] for r in rs) / len(rs)  # noqa: E731
    assert mean(per_run) == pytest.approx(80.0) and mean(per_setting) == pytest.approx(70.0)


def test_report_shows_both_picks_and_the_chosen_c():
    text = _report_single_multi(_runner_rows(), TABLES["emmc-table5"])
    assert "| 1000 | paper: C per setting | 60.00 | 0.00 | 2^1 |" in text
    assert "| 1000 | paper: C per run | 70.00 |" in text
    assert "C from 3 values" in text  # the number of label-picked settings
    assert "71.72" in text  # the published multi-output cell
    # the L = 1000 table reads the same published numbers
    assert "71.72" in _report_single_multi(_runner_rows(), TABLES["emmc-table5-l1000"])


def test_seeds_are_those_of_the_former_custom_loops():
    # Table 5: one seed per (L, run), shared by both outputs, every C and both node types
    jobs = expand_jobs(TABLES["emmc-table5"], quick=True, seed=7)
    for job in jobs:
        assert job.seed == derive_seed(7, "emmc-table5", job.params["n_hidden"], job.run)
    assert len({(j.params["n_hidden"], j.run) for j in jobs}) == len({j.seed for j in jobs})
    # Table 4 (both variants): one seed per pair and repetition, shared by all six schemes
    for name in ("emmc-table4", "emmc-table4-sigmoid"):
        for job in expand_jobs(TABLES[name], tiny=True, seed=7):
            assert job.dataset == "optdigits:0,1"
            assert job.seed == derive_seed(7, "emmc-table4", 0, 1, job.run)
    for job in expand_jobs(TABLES["emmc-table3"], quick=True, seed=7):
        assert job.seed == derive_seed(7, "emmc-table3", job.run)
    for job in expand_jobs(TABLES["emmc-table9"], quick=True, seed=7):
        assert job.seed == derive_seed(7, "emmc-table9", job.dataset, job.run)


@pytest.mark.parametrize("init", ["random", "k-means", "k-means-elm"])
def test_emmc_starts_from_exactly_the_labels_of_its_scheme(init):
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(0, 1, (30, 4)), rng.normal(3, 1, (30, 4))])
    alone = StartThenEMMC(init, random_state=5).fit(X)
    then = StartThenEMMC(init, C=2.0**-6, random_state=5).fit(X)
    np.testing.assert_array_equal(then.estimator_.init, alone.labels_)
    assert then.estimator_.n_hidden == len(X) and then.n_iter_ == then.estimator_.n_iter_
    np.testing.assert_array_equal(then.labels_, then.estimator_.labels_)


def test_table5_start_is_converged_kmeans_in_the_layer_emmc_fits():
    # Tables 5-6 start multiclass EMMC (L given, multi-output) from k-means run to
    # convergence in the very hidden layer EMMC then fits, as Table 4 does
    from sklearn.cluster import KMeans

    from papers.emmc import _emmc_space_seed

    rng = np.random.RandomState(1)
    X = np.vstack([rng.normal(c, 0.5, (25, 3)) for c in (0.0, 3.0, 6.0)])
    kw = dict(n_clusters=3, n_hidden=15, output="multi", random_state=4)
    alone = StartThenEMMC("k-means-elm", **kw).fit(X)
    then = StartThenEMMC("k-means-elm", C=1.0, **kw).fit(X)
    emmc = then.estimator_
    H = emmc.feature_map_.transform(X)
    assert H.shape == (75, 15) and emmc.output == "multi" and emmc.n_clusters == 3
    from marginclust import ELMFeatures

    H0 = ELMFeatures(n_hidden=15, activation="gaussian",
                     random_state=_emmc_space_seed(4)).fit_transform(X)
    np.testing.assert_allclose(H, H0)
    km = KMeans(3, n_init=10, random_state=4).fit(H0)
    np.testing.assert_array_equal(alone.labels_, km.labels_)
    np.testing.assert_array_equal(emmc.init, alone.labels_)


def test_table5_paper_rows_use_the_converged_start_and_letter_as_distributed():
    for name in ("emmc-table5", "emmc-table5-l1000", "emmc-table5-l1000-minmax"):
        table = TABLES[name]
        jobs = expand_jobs(table, quick=True, seed=0)
        paper = [j for j in jobs if j.params.get("activation") == "gaussian"]
        assert paper and all(j.method == "emmc-from-start" for j in paper)
        assert all(j.params["init"] == "k-means-elm" for j in paper)
        assert table.preprocessing == ("minmax" if name.endswith("minmax") else "raw")


def test_reachability_slmc_table_runs_only_slmc_cases():
    table = TABLES["reachability-slmc"]
    assert set(table.methods) == {"slmc-glass", "slmc-pendigits39", "slmc-segmentation"}


def test_table4_report_picks_c_per_pair_and_once_for_all_pairs():
    from papers.emmc import PAPER_C, report_table4

    # error %: pair 0,1 is best at C=1 (10 vs 30), pair 0,2 at C=2 (20 vs 36);
    # over both pairs C=1 (mean 23) beats C=2 (mean 25)
    errors = {("optdigits:0,1", 1.0): 10.0, ("optdigits:0,1", 2.0): 30.0,
              ("optdigits:0,2", 1.0): 36.0, ("optdigits:0,2", 2.0): 20.0,
              ("optdigits:0,1", PAPER_C): 50.0, ("optdigits:0,2", PAPER_C): 50.0}
    rows = [
        dict(dataset=ds, method="emmc-from-start", run=0, fit_time=1.0, n_iter=2, status="ok",
             ca_hungarian=1 - e / 100, params=json.dumps({"init": "k-means", "C": C}))
        for (ds, C), e in errors.items()
    ] + [
        dict(dataset=ds, method="emmc-start", run=0, fit_time=0.5, n_iter=None, status="ok",
             ca_hungarian=0.9, params=json.dumps({"init": "k-means"}))
        for ds in ("optdigits:0,1", "optdigits:0,2")
    ]
    text = report_table4(rows, TABLES["emmc-table4"])
    assert "| Standard KM + EMMC | per pair, best of 2 | 15.00 |" in text
    assert "| Standard KM + EMMC | one for all pairs, best of 2: 1 | 23.00 |" in text
    assert "| Standard KM + EMMC | 500 | 50.00 |" in text
    assert "| Standard KM | - | 10.00 |" in text and "2 pairs x 1 repetitions" in text


def test_a_failed_fit_is_named_under_the_report_not_averaged():
    from papers.emmc import report_table3

    ok = dict(dataset="optdigits:3,9", method="emmc", run=0, fit_time=1.0, n_iter=2,
              status="ok", error=None, ca_hungarian=0.9, params=json.dumps({"C": 1.0}))
    failed = {**ok, "run": 1, "status": "failed", "ca_hungarian": None,
              "error": "ValueError: boom"}
    text = report_table3([ok, failed], TABLES["emmc-table3"])
    assert "| EMMC | ours | - | - | - | - | - | 10.00 | - |" in text
    assert "Fits without a result: 1 (ValueError: boom)." in text


def test_an_unknown_start_scheme_is_a_clear_error():
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match="init must be one of"):
        StartThenEMMC("kmeans++", n_clusters=2).fit(X)


def _three_blobs():
    rng = np.random.RandomState(1)
    return np.vstack([rng.normal(c, 0.5, (25, 3)) for c in (0.0, 3.0, 6.0)])


def test_a_reused_start_is_the_fresh_start_and_its_time_is_charged(monkeypatch):
    from papers import emmc as module

    monkeypatch.setattr(module, "_START_CACHE", module.OrderedDict())
    X = _three_blobs()
    kw = dict(n_clusters=3, n_hidden=15, output="multi", random_state=4)
    first = StartThenEMMC("k-means-elm", C=1.0, **kw).fit(X)
    assert first.reused_time_ == 0.0 and first.start_time_ > 0.0
    # another C of the same run reuses the start and is charged its seconds
    second = StartThenEMMC("k-means-elm", C=4.0, **kw).fit(X)
    assert second.reused_time_ == first.start_time_ == second.start_time_
    np.testing.assert_array_equal(second.estimator_.init, first.estimator_.init)
    # and it is the start a fresh computation gives
    module._START_CACHE.clear()
    fresh = StartThenEMMC("k-means-elm", C=4.0, **kw).fit(X)
    assert fresh.reused_time_ == 0.0
    np.testing.assert_array_equal(fresh.estimator_.init, second.estimator_.init)
    np.testing.assert_array_equal(fresh.labels_, second.labels_)
    # other data, seed or layer size: another start
    for other in (dict(kw, random_state=5), dict(kw, n_hidden=16)):
        assert StartThenEMMC("k-means-elm", C=1.0, **other).fit(X).reused_time_ == 0.0
    assert StartThenEMMC("k-means-elm", C=1.0, **kw).fit(X + 1.0).reused_time_ == 0.0


def test_random_and_unseeded_starts_are_not_cached(monkeypatch):
    from papers import emmc as module

    monkeypatch.setattr(module, "_START_CACHE", module.OrderedDict())
    X = _three_blobs()
    for _ in range(2):
        assert StartThenEMMC("random", n_clusters=3, random_state=0).fit(X).reused_time_ == 0.0
        assert StartThenEMMC("k-means", n_clusters=3).fit(X).reused_time_ == 0.0
    assert not module._START_CACHE


def test_the_start_cache_is_bounded(monkeypatch):
    from papers import emmc as module

    monkeypatch.setattr(module, "_START_CACHE", module.OrderedDict())
    monkeypatch.setattr(module, "_START_CACHE_SIZE", 2)
    X = _three_blobs()
    for seed in range(4):
        StartThenEMMC("k-means", n_clusters=3, random_state=seed).fit(X)
    assert [key[2] for key in module._START_CACHE] == [2, 3]


def test_the_runner_charges_a_reused_start_to_the_fit_time():
    from marginclust.bench._runner import fit_and_score

    class Reusing:
        def fit(self, X, y=None):
            self.labels_ = np.zeros(len(X), dtype=int)
            self.reused_time_ = 100.0
            return self

    row, _ = fit_and_score(Reusing, np.zeros((4, 2)), np.zeros(4, dtype=int))
    assert 100.0 <= row["fit_time"] < 101.0


def test_each_timed_repeat_is_charged_its_own_reused_start():
    # repeat 1 computes its start (no reuse), repeat 2 reuses one computed elsewhere: the
    # fastest standalone fit is the first, not the second's fit plus the first's saving
    import time

    from marginclust.bench._runner import fit_and_score

    made = []

    class Sometimes:
        def __init__(self):
            made.append(self)
            self.first = len(made) == 1

        def fit(self, X, y=None):
            if self.first:
                time.sleep(0.02)
            self.labels_ = np.zeros(len(X), dtype=int)
            self.reused_time_ = 0.0 if self.first else 100.0
            return self

    row, _ = fit_and_score(Sometimes, np.zeros((4, 2)), np.zeros(4, dtype=int), repeats=2)
    assert len(made) == 2 and 0.02 <= row["fit_time"] < 1.0


def test_usps_l1000_row_has_the_papers_runs_start_and_published_cells():
    table = TABLES["emmc-table6-l1000"]
    assert table.n_runs == 20 and table.datasets == ["usps"]
    jobs = expand_jobs(table, quick=False, seed=0)
    paper = [j for j in jobs if j.params.get("activation") == "gaussian"]
    assert {j.params["n_hidden"] for j in jobs} == {1000}
    assert all(j.method == "emmc-from-start" and j.params["init"] == "k-means-elm"
               for j in paper)
    assert len(paper) == 20 * 2 * 21
    # one seed per run: the 42 fits of a run share their start
    assert len({j.seed for j in paper}) == 20
    assert table.published[("usps", "emmc[n_hidden=1000]", "ca_hungarian")] == 0.9447


def test_tables_7_8_10_run_the_papers_protocol_beside_the_old_default():
    # Sec. 5.3: single output, radial-basis nodes, C from the 21 powers 2^-10..2^10, the
    # k-means-in-ELM-space start, Table 2's L and balance, 20 runs
    for name in ("emmc-table7", "emmc-table8", "emmc-table10"):
        jobs = expand_jobs(TABLES[name], seed=7)
        paper = [j for j in jobs if j.method == "emmc-from-start"]
        assert {(j.params["output"], j.params["activation"], j.params["init"])
                for j in paper} == {("single", "gaussian", "k-means-elm")}
        assert sorted({j.params["C"] for j in paper}) == [2.0**k for k in range(-10, 11)]
        assert {j.run for j in paper} == set(range(20))
        if name != "emmc-table7":
            assert {j.params["n_hidden"] for j in paper if j.dataset == "usps"} == {1000}
        # one start per run: every C of a run shares the seed
        assert len({(j.dataset, j.run) for j in paper}) == len({j.seed for j in paper})
        # the label-free default keeps its former seeds and setting
        default = [j for j in jobs if j.method == "emmc"]
        assert {j.params["C"] for j in default} == {500.0}
        for j in default:
            assert j.seed == derive_seed(7, j.dataset, "emmc", j.run)
    t7 = expand_jobs(TABLES["emmc-table7"], seed=7)
    assert {j.run for j in t7 if j.method == "itersvr"} == set(range(5))
    assert {j.params["n_hidden"] for j in t7
            if j.dataset == "letter:A,B" and j.method != "itersvr"} == {300}
    assert {j.params["balance"] for j in t7 if j.dataset == "ionosphere"} == {0.15}


def test_acc_ri_report_picks_one_c_per_data_set_and_shows_the_default():
    rows = [
        dict(dataset="optdigits:0,6,8,9", method="emmc-from-start", run=r["run"], status="ok",
             fit_time=1.0, n_iter=3, ca_hungarian=r["acc"] / 100, rand=r["acc"] / 200,
             params=json.dumps({"C": r["C"], "output": "single"}))
        for r in _rows() if r["output"] == "multi"
    ] + [
        dict(dataset="optdigits:0,6,8,9", method="emmc", run=run, status="ok", fit_time=1.0,
             n_iter=3, ca_hungarian=acc, rand=0.25, params=json.dumps({"C": 500.0}))
        for run, acc in ((0, 0.5), (1, 0.7))
    ]
    text = _report_acc_ri(rows, TABLES["emmc-table8"])
    # C = 2 has the best mean (70); per run 80 and 80; default mean 60; published 96.25
    assert "| Digits0689 | 70.00 | 0.35 | 2^1 | 80.00 | 60.00 | 0.25 | " in text
    assert "96.25/0.97" in text
    assert "among 3 values" in text  # the number of label-picked settings


def test_tables_7_8_10_read_letter_as_distributed_and_scale_the_rest():
    from marginclust.bench._runner import _per_dataset

    for name in ("emmc-table7", "emmc-table8", "emmc-table10"):
        table = TABLES[name]
        for d in table.datasets:
            want = "raw" if d.startswith("letter:") else "minmax"
            assert _per_dataset(table.preprocessing, d, "raw") == want, (name, d)


def test_table_10_refits_exactly_the_emmc_fits_of_tables_7_and_8():
    # same data set, method, setting and seed: Table 10's EMMC cells are Tables 7 and 8's
    def fits(name):
        return {(j.dataset, j.method, j.params_json, j.run, j.seed)
                for j in expand_jobs(TABLES[name], seed=3) if j.method.startswith("emmc")}

    assert fits("emmc-table10") == fits("emmc-table7") | fits("emmc-table8")

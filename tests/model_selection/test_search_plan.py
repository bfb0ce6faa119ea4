"""StabilitySearch as a user plans it: plan and estimate first, progress, budget 'auto',
resuming from a cache, the defaults as incumbent, chance-level and collapsed outcomes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from marginclust import PKM, FuzzyCMeans
from marginclust.exceptions import ConvergenceWarning
from marginclust.model_selection import StabilitySearch, plan_search
from marginclust.model_selection._halving import AUTO_BUDGET, AUTO_MIN_ROW_FITS

from ._helpers import CollapsibleKMeans, CountingKMeans, RandomLabels, blobs


def test_verbose_prints_plan_estimate_progress_and_pick(capsys):
    X = blobs(3, seed=1)
    search = StabilitySearch(FuzzyCMeans(random_state=0), {"n_clusters": [2, 3, 4]},
                             n_pairs=2, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    lines = err.splitlines()
    # the plan comes before any fit: settings, rows, splits, fits, cost
    assert lines[0].startswith("StabilitySearch: 3 settings (3 of the grid) on all 150 rows")
    assert "stability over 2 half splits" in lines[0] and "at most 15 fits" in lines[0]
    assert search.n_fits_planned_ == 15 and search.plan_ in lines[0]
    # then the estimate from the first fit, then "setting i/N, fit j/M, ... ETA"
    assert lines[1].startswith("StabilitySearch: first fit ") and "should take about" in err
    assert any(line.startswith("StabilitySearch: setting 1/3, fit 1/15") and "ETA" in line
               for line in lines)
    assert "picked n_clusters=3 (" in lines[-1]
    assert "\r" not in err  # not a terminal: whole lines, never rewritten in place


def test_budget_auto_plans_within_about_ten_plain_fits():
    # large data: the plan uses a subsample and/or halving, within 9 fits on all rows
    plan = plan_search(10, 3498, fits_per_setting=6.0, budget=AUTO_BUDGET - 1, min_rows=400)
    assert plan.within_budget and plan.cost <= AUTO_BUDGET - 1 + 1e-9
    assert plan.n_rows < 3498 and min(r.n_rows for r in plan.schedule) >= 400
    big = plan_search(10, 100_000, fits_per_setting=6.0, budget=9.0, min_rows=400)
    assert big.within_budget and len(big.schedule) > 1 and big.cost <= 9.0 + 1e-9
    # the search itself: small data are searched on every row (AUTO_MIN_ROW_FITS)
    X = blobs(3, n_per=50, seed=2)
    small = StabilitySearch(KMeans(n_init=1), {"n_clusters": [2, 3, 4]}, budget="auto",
                            random_state=0).fit(X)
    assert small.n_search_rows_ == 150 and len(small.schedule_) == 1
    assert 3 * 6 * 150 <= AUTO_MIN_ROW_FITS
    assert small.best_params_ == {"n_clusters": 3}


def test_budget_auto_subsamples_large_data_and_says_so():
    X = blobs(3, n_per=2000, seed=3)
    search = StabilitySearch(KMeans(n_init=1), {"n_clusters": [2, 3, 4, 5]}, budget="auto",
                             random_state=0).fit(X)
    assert search.n_search_rows_ < X.shape[0]
    assert f"a subsample of {search.n_search_rows_:,} of 6,000 rows" in search.plan_
    assert search.cost_ * search.n_search_rows_ / X.shape[0] <= AUTO_BUDGET - 1 + 1e-9
    assert search.best_params_ == {"n_clusters": 3}
    assert search.labels_.shape == (6000,)


def test_resume_after_an_interruption_gives_the_same_result(tmp_path):
    """Ctrl-C during the third setting; the rerun with the same memory fits only what
    was not finished and ends where an uninterrupted search ends."""
    X = blobs(3, n_per=40, seed=4)
    grid = {"n_clusters": [2, 3, 4, 5]}
    kw = {"n_pairs": 2, "random_state": 0}
    fits_per_setting = 1 + 2 * 2
    CountingKMeans.fits, CountingKMeans.stop_after = 0, None
    reference = StabilitySearch(CountingKMeans(), grid, **kw).fit(X)
    total = CountingKMeans.fits
    CountingKMeans.fits, CountingKMeans.stop_after = 0, 2 * fits_per_setting + 3
    with pytest.raises(KeyboardInterrupt):
        StabilitySearch(CountingKMeans(), grid, memory=str(tmp_path), **kw).fit(X)
    CountingKMeans.fits, CountingKMeans.stop_after = 0, None
    resumed = StabilitySearch(CountingKMeans(), grid, memory=str(tmp_path), **kw).fit(X)
    # two finished settings were read back: their fits were not repeated
    assert CountingKMeans.fits == total - 2 * fits_per_setting
    assert resumed.best_params_ == reference.best_params_ == {"n_clusters": 3}
    np.testing.assert_array_equal(resumed.labels_, reference.labels_)
    for key in ("score", "degenerate", "n_clusters_found", "rank", "n_fits"):
        np.testing.assert_array_equal(np.asarray(resumed.results_[key], dtype=float),
                                      np.asarray(reference.results_[key], dtype=float))
    # a third run reads everything: only the refit on all rows is fitted
    CountingKMeans.fits = 0
    StabilitySearch(CountingKMeans(), grid, memory=str(tmp_path), **kw).fit(X)
    assert CountingKMeans.fits == 1


def test_memory_takes_a_joblib_memory_and_warns_without_an_integer_seed(tmp_path):
    from joblib import Memory

    X = blobs(2, n_per=30, seed=5)
    StabilitySearch(KMeans(n_init=1), {"n_clusters": [2, 3]}, n_pairs=1, random_state=0,
                    memory=Memory(tmp_path, verbose=0)).fit(X)
    with pytest.warns(UserWarning, match="integer random_state"):
        StabilitySearch(KMeans(n_init=1), {"n_clusters": [2, 3]}, n_pairs=1,
                        memory=str(tmp_path)).fit(X)


@pytest.mark.parametrize("seed", range(6))
def test_pkm_on_wine_picks_three_clusters_whatever_the_search_seed(seed):
    X = StandardScaler().fit_transform(load_wine().data)
    search = StabilitySearch(PKM(random_state=0), {"n_clusters": [2, 3, 4, 5, 6]},
                             random_state=seed).fit(X)
    assert search.best_params_ == {"n_clusters": 3}
    assert search.n_clusters_ == 3


@pytest.mark.parametrize(
    ("estimator", "grid", "seed"),
    [(FuzzyCMeans(3, random_state=0), {"m": [1.2, 1.5, 3.0]}, 0),
     (FuzzyCMeans(random_state=0), {"n_clusters": [2, 3, 4], "m": [1.3, 3.0]}, 1),
     (PKM(random_state=0), {"init": ["k-means++-soft"], "n_clusters": [3, 4]}, 2)],
)
def test_the_pick_is_never_rated_below_the_defaults(estimator, grid, seed):
    """The defaults are always a candidate, and the pick is the defaults or a setting
    its own score rates above them (at the same number of clusters)."""
    X = blobs(3, n_per=60, seed=seed, std=1.6)
    search = StabilitySearch(estimator, grid, n_pairs=3, random_state=seed).fit(X)
    res = search.results_
    k = search.n_clusters_
    defaults = [i for i, p in enumerate(res["params"])
                if res["is_default"][i] and p.get("n_clusters", estimator.n_clusters) == k]
    assert len(defaults) == 1
    d = defaults[0]
    assert search.best_index_ == d or res["degenerate"][d] or (
        res["score"][search.best_index_] > res["score"][d])


def test_defaults_are_added_once_per_number_of_clusters():
    X = blobs(3, n_per=30, seed=6)
    search = StabilitySearch(FuzzyCMeans(m=2.0), {"n_clusters": [2, 3], "m": [1.5]},
                             n_pairs=1, random_state=0).fit(X)
    assert search.results_["params"] == [{"m": 1.5, "n_clusters": 2}, {"m": 1.5, "n_clusters": 3},
                                         {"n_clusters": 2}, {"n_clusters": 3}]
    assert search.results_["is_default"] == [False, False, True, True]
    off = StabilitySearch(FuzzyCMeans(), {"m": [1.5]}, n_pairs=1, include_defaults=False,
                          random_state=0).fit(X)
    assert off.results_["params"] == [{"m": 1.5}]


def test_no_setting_more_stable_than_chance_warns():
    X = np.random.RandomState(0).normal(size=(400, 2))
    with pytest.warns(ConvergenceWarning, match="no setting is more stable than chance.*"
                                                "may not hold any of 2, 3 clusters"):
        search = StabilitySearch(RandomLabels(), {"n_clusters": [2, 3]}, random_state=0,
                                 tie_break=None).fit(X)
    assert max(search.results_["score"]) < search.tol
    assert search.labels_.shape == (400,)  # the pick is kept


def test_collapse_on_the_search_rows_but_not_on_all_rows_is_not_collapsed():
    """A setting whose search fits collapse is dropped; when all do, the least degenerate
    is refitted on all rows and collapsed_ says so (one outcome to test for)."""
    X = blobs(3, seed=7)
    search = StabilitySearch(CollapsibleKMeans(3), {"collapse": [True]}, n_pairs=1,
                             include_defaults=False, random_state=0)
    with pytest.warns(ConvergenceWarning, match="least degenerate"):
        search.fit(X)
    assert search.collapsed_ and hasattr(search, "labels_")
    assert np.isnan(search.best_score_)


def test_subsets_keep_the_low_rank_mode_of_the_fit_on_all_rows(monkeypatch):
    """Halves that fall under the exact-kernel limit are fitted in the low-rank mode the
    refit on all rows uses (not in a slower exact mode); small ones stay exact."""
    from marginclust import SLMC, WOCSVMClustering
    from marginclust.estimators import _kernel_model
    from marginclust.model_selection import _evaluate
    from marginclust.model_selection._grid import subset_params

    assert subset_params(SLMC(), 1500, 3498) == {"n_components": 500}
    assert subset_params(SLMC(), 900, 3498) == {}  # exact is no dearer up to 1,000 rows
    assert subset_params(SLMC(n_components=None), 1500, 3498) == {}
    assert subset_params(SLMC(), 1500, 1800) == {}  # the full fit is exact too
    assert subset_params(WOCSVMClustering(), 3000, 8000) == {"n_components": 300}
    monkeypatch.setattr(_kernel_model, "EXACT_MAX_SAMPLES", 100)
    monkeypatch.setattr(_kernel_model, "AUTO_COMPONENTS", 20)
    seen = []
    real = _evaluate.fit_setting

    def spy(estimator, params, X):
        seen.append((X.shape[0], params.get("n_components")))
        return real(estimator, params, X)

    monkeypatch.setattr(_evaluate, "fit_setting", spy)
    X = blobs(2, n_per=150, seed=8)
    StabilitySearch(SLMC(2, random_state=0), {"lam": [10.0]}, n_pairs=1,
                    random_state=0).fit(X)
    assert sorted(seen) == [(150, 20), (150, 20), (300, None)]


def test_budget_auto_spends_fewer_splits_before_fewer_rows_but_keeps_three():
    """pendigits' shape (3,498 rows, 10 clusters, 10 settings): five splits would leave
    524 search rows; the plan keeps three splits (a median that ignores one failed split)
    on more rows, within about nine fits on all rows."""
    from marginclust import SLMC

    search = StabilitySearch(SLMC(10), budget="auto")
    m, schedule, within, budget, n_pairs = search._plan(3498, 10, True, 10, None)
    assert within and n_pairs == 3 and m > 524
    assert len(schedule) == 1 and m * 10 * (1 + n_pairs) / 3498 <= budget + 1e-9
    small = StabilitySearch(SLMC(3), budget="auto")._plan(1000, 10, True, 3, None)
    assert small[4] == 5  # room enough: every split the user asked for


def test_at_chance_level_the_defaults_are_kept():
    """No setting more stable than chance is no evidence against the defaults."""
    X = np.random.RandomState(1).normal(size=(400, 2))
    with pytest.warns(ConvergenceWarning, match="more stable than chance.*the defaults are kept"):
        search = StabilitySearch(RandomLabels(3), {"random_state": [1, 2]}, random_state=0,
                                 tie_break=None).fit(X)
    assert search.best_params_ == {} and search.results_["is_default"][search.best_index_]


def test_verbose_lines_round_settings_and_count_in_words(capsys):
    from marginclust.model_selection._search import _shown

    assert _shown({"gamma": 1.2499999999999984, "lam": 100.0}) == "gamma=1.25, lam=100"
    assert _shown({"kernel": "rbf"}) == "kernel=rbf" and _shown({}) == "the defaults"
    X = blobs(3, n_per=40, seed=4)
    StabilitySearch(FuzzyCMeans(n_clusters=3, m=2.0), {"m": [1.5000000000000002]},
                    include_defaults=False, n_pairs=3, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert "1 setting (1 of the grid)" in err and "1 settings" not in err
    assert "picked m=1.5 (" in err and "1.5000000000000002" not in err

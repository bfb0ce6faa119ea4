"""StabilitySearch: label-free, reproducible, finds K, drops collapse, budgets, rescales."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans

from marginclust import FuzzyCMeans
from marginclust.exceptions import ConvergenceWarning
from marginclust.model_selection import StabilitySearch, halving_schedule

from ._helpers import (
    CollapsibleKMeans,
    ExplodingLabels,
    GridKMeans,
    SumLossKMeans,
    blobs,
)

FCM_GRID = {"n_clusters": [2, 3, 4], "m": [1.5, 2.0]}


def _search(**kw):
    params = {"n_pairs": 3, "random_state": 0}
    params.update(kw)
    # m=2.0: a default inside FCM_GRID (FuzzyCMeans' own, m="auto", would add its rows)
    est = params.pop("estimator", FuzzyCMeans(m=2.0))
    grid = params.pop("param_grid", FCM_GRID)
    return StabilitySearch(est, grid, **params)


def _same_results(a, b, rtol=0.0):
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.labels_, b.labels_)
    for key in ("score", "tie_break_score", "degenerate", "n_clusters_found", "rank", "n_rows"):
        np.testing.assert_allclose(np.asarray(a.results_[key], dtype=float),
                                   np.asarray(b.results_[key], dtype=float), rtol=rtol)


@pytest.mark.parametrize("scoring", ["stability", "silhouette", "auto"])
def test_identical_with_or_without_y(scoring):
    X, y = blobs(3, seed=0, return_y=True)
    _same_results(_search(scoring=scoring).fit(X), _search(scoring=scoring).fit(X, y))
    _same_results(_search(scoring=scoring).fit(X), _search(scoring=scoring).fit(X, y[::-1]))


def test_y_is_never_read():
    X = blobs(3, seed=1)
    search = _search().fit(X, ExplodingLabels())
    assert search.best_params_["n_clusters"] == 3
    assert np.array_equal(search.fit_predict(X, ExplodingLabels()), search.labels_)


def test_reproducible_with_random_state():
    X = blobs(3, seed=2, std=1.5)
    _same_results(_search(random_state=7).fit(X), _search(random_state=7).fit(X))


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_recovers_number_of_clusters(k):
    X = blobs(k, n_per=40, seed=10 + k)
    search = _search(estimator=KMeans(n_init=3), param_grid={"n_clusters": [2, 3, 4, 5, 6]})
    search.fit(X)
    assert search.best_params_ == {"n_clusters": k}
    assert search.n_clusters_found_ == k


@pytest.mark.parametrize("k", [3, 4])
def test_recovers_number_of_clusters_with_fcm(k):
    X = blobs(k, n_per=40, seed=20 + k)
    search = _search(param_grid={"n_clusters": [2, 3, 4, 5]}).fit(X)
    assert search.best_params_ == {"n_clusters": k}


def test_degenerate_settings_dropped_before_scoring():
    X = blobs(3, seed=3)
    search = _search(estimator=CollapsibleKMeans(3),
                     param_grid={"collapse": [True, False], "n_clusters": [3]}).fit(X)
    res = search.results_
    assert res["degenerate"] == [True, False]
    assert np.isnan(res["score"][0])  # never scored
    assert res["n_fits"][0] == 1  # one fit showed the collapse; no pairs were spent
    assert res["n_clusters_found"][0] == 1
    assert search.best_params_ == {"collapse": False, "n_clusters": 3}
    assert res["rank"] == [2, 1]


def test_every_setting_collapsed_warns_and_keeps_the_least_degenerate():
    X = blobs(3, seed=4)
    search = _search(estimator=CollapsibleKMeans(3, collapse=True),
                     param_grid={"n_clusters": [2, 3]})
    with pytest.warns(ConvergenceWarning, match="Every setting .* collapsed.*collapsed_ is True"):
        search.fit(X)
    assert search.collapsed_ and all(search.results_["degenerate"])
    # one clear outcome: labels_ exist (one cluster found of the two asked: the least
    # degenerate share), predict works, nothing raises AttributeError
    assert search.best_params_ == {"n_clusters": 2}
    assert search.labels_.shape == (X.shape[0],) and search.n_clusters_found_ == 1
    np.testing.assert_array_equal(search.predict(X), search.labels_)
    assert search.results_["reason"][0] == "1 of 2 clusters non-empty"


def test_not_collapsed_when_a_setting_survives():
    search = _search(estimator=CollapsibleKMeans(3), param_grid={"collapse": [True, False]})
    assert not search.fit(blobs(3, seed=4)).collapsed_


def test_results_table_and_attributes():
    X = blobs(3, seed=5)
    search = _search().fit(X)
    res = search.results_
    n = 6
    assert all(len(v) == n for v in res.values())
    assert sorted(res["rank"]) == list(range(1, n + 1))
    best = res["rank"].index(1)
    assert search.best_index_ == best and search.best_params_ == res["params"][best]
    assert search.best_score_ == res["score"][best]
    assert all(s > 0 for s in res["seconds"]) and all(f == 7 for f in res["n_fits"])
    np.testing.assert_array_equal(search.labels_, search.predict(X))
    U = search.predict_proba(X)
    np.testing.assert_allclose(U.sum(axis=1), 1.0)
    assert search.grid_source_ == "given"
    assert search.cost_ == pytest.approx(n * (1 + 3))


def test_predict_proba_only_when_the_estimator_has_it():
    assert hasattr(StabilitySearch(FuzzyCMeans()), "predict_proba")
    assert not hasattr(StabilitySearch(KMeans()), "predict_proba")
    X = blobs(2, seed=6)
    search = _search(estimator=KMeans(n_init=2), param_grid={"n_clusters": [2, 3]}).fit(X)
    assert not hasattr(search, "predict_proba")


def test_invariant_to_uniform_rescaling_for_a_scale_free_estimator():
    X = blobs(3, seed=7, std=1.2)
    ref = _search().fit(X)
    for c in (1e-3, 1e3):
        _same_results(ref, _search().fit(X * c), rtol=1e-12)  # rounding of the scaling


def test_grid_from_the_estimator_hook_and_defaults_fallback():
    X = blobs(3, seed=8)
    search = _search(estimator=GridKMeans(), param_grid=None).fit(X)
    assert search.grid_source_ == "estimator"
    assert [p["n_clusters"] for p in search.results_["params"]] == [2, 3, 4]
    assert search.best_params_ == {"n_clusters": 3}
    plain = _search(estimator=CollapsibleKMeans(3), param_grid=None).fit(X)
    assert plain.grid_source_ == "defaults" and plain.results_["params"] == [{}]


def test_n_scaled_parameters_rescaled_for_every_fit():
    X = blobs(3, n_per=100, seed=9)
    SumLossKMeans.fits.clear()
    search = _search(estimator=SumLossKMeans(3), param_grid={"C": [3.0]}, subsample=100,
                     n_pairs=2, include_defaults=False).fit(X)
    # values are meant for all 300 rows: the 100 search rows use C*100/300, their
    # halves C*50/300, and the refit on all rows C itself
    seen = set(SumLossKMeans.fits)
    assert seen == {(1.0, 100), (0.5, 50), (3.0, 300)}
    assert search.best_params_ == {"C": 3.0}
    assert search.best_estimator_.C == 3.0
    assert search.labels_.shape == (300,)


def test_the_defaults_refitted_are_the_plain_fit():
    """On a subsample, the defaults' n-scaled value is not rescaled for the refit."""
    X = blobs(3, n_per=100, seed=9)
    search = _search(estimator=SumLossKMeans(3, C=2.0, random_state=0),
                     param_grid={"C": [2.0]}, subsample=100, n_pairs=2).fit(X)
    assert search.results_["is_default"] == [True]
    plain = SumLossKMeans(3, C=2.0, random_state=0).fit(X)
    assert search.best_estimator_.C == 2.0
    np.testing.assert_array_equal(search.labels_, plain.labels_)


def test_budget_uses_successive_halving():
    X = blobs(3, n_per=400, seed=11)
    grid = {"n_clusters": [2, 3, 4, 5]}
    full = _search(estimator=KMeans(n_init=2), param_grid=grid).fit(X)
    # all rows fixed as the search rows: the budget (14 fits for the search, 1 for the
    # refit) chooses only the schedule; exhaustive would cost 4 x (1 + 3 pairs) = 16
    halved = _search(estimator=KMeans(n_init=2), param_grid=grid, budget=15,
                     subsample=1200).fit(X)
    assert len(halved.schedule_) > 1 and len(full.schedule_) == 1
    # cost in fits on all rows: 4 settings x (1 + 3 pairs) on a third, then 2 on all rows
    assert halved.cost_ == pytest.approx(4 * 4 / 3 + 2 * 4) and full.cost_ == 4 * 4
    assert [tuple(r) for r in halved.schedule_] == [(4, 400), (2, 1200)]
    assert halved.best_params_ == full.best_params_ == {"n_clusters": 3}
    # eliminated settings stop at the first rung
    assert sorted(halved.results_["iter"]) == [0, 0, 1, 1]


@pytest.mark.parametrize("n_per, budget", [(300, 0.5), (300, 3), (1500, 2), (1500, 5),
                                           (1500, 9), (4000, 5)])
def test_a_budget_is_fits_on_all_rows_and_below_10_never_costs_more_than_auto(n_per, budget):
    # one unit for a number and "auto": the whole search, refit included, in fits on
    # all rows; the rows are subsampled for a number as for "auto"
    X = blobs(3, n_per=n_per, seed=5)
    grid = {"n_clusters": [2, 3, 4]}
    auto = _search(estimator=KMeans(n_init=1), param_grid=grid, budget="auto").fit(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        small = _search(estimator=KMeans(n_init=1), param_grid=grid, budget=budget).fit(X)
    assert small.cost_ <= auto.cost_ * (1 + 1e-9)
    over = [w for w in caught if "below the cost of the smallest search plan" in str(w.message)]
    if f"budget {budget:g} allows" in small.plan_:  # the search and the refit fit in it
        assert small.cost_ + 1 <= budget * (1 + 1e-9) and not over
    else:
        assert f"over budget {budget:g}," in small.plan_ and over
    assert small.n_search_rows_ <= auto.n_search_rows_


def test_halving_never_shrinks_below_the_rows_k_clusters_need():
    """A budget that would start halving on 223 of 2,000 rows (where every setting of a
    6-cluster grid looks degenerate) starts on at least 2 x 20 x 6 rows instead."""
    X = blobs(6, n_per=334, seed=3)[:2000]
    with pytest.warns(UserWarning, match="no rung may have fewer than 240 rows"):
        search = _search(estimator=KMeans(n_init=1), param_grid={"n_clusters": [4, 5, 6]},
                         budget=4, subsample=2000).fit(X)
    assert min(r.n_rows for r in search.schedule_) >= 240
    assert search.best_params_ == {"n_clusters": 6}


def test_budget_too_small_warns():
    X = blobs(3, n_per=30, seed=12)
    with pytest.warns(UserWarning, match="below the cost of the smallest search plan"):
        search = _search(estimator=KMeans(n_init=1), param_grid={"n_clusters": [2, 3]},
                         budget=1).fit(X)
    assert "over budget 1," in search.plan_


def test_halving_schedule_cost_model():
    schedule, ok = halving_schedule(27, 2700, fits_per_setting=2.0, budget=30)
    assert ok
    # exhaustive costs 54 fits, one halving 27*2/3 + 9*2 = 36, two 3 * 6 = 18
    assert [r.n_candidates for r in schedule] == [27, 9, 3]
    assert [r.n_rows for r in schedule] == [300, 900, 2700]
    assert halving_schedule(27, 2700, fits_per_setting=2.0, budget=54)[0] == [(27, 2700)]


@pytest.mark.parametrize("scoring", ["silhouette", "calinski_harabasz", "xie_beni"])
def test_geometric_scorings(scoring):
    X = blobs(4, n_per=40, seed=13)
    search = _search(scoring=scoring, param_grid={"n_clusters": [2, 3, 4, 5]}).fit(X)
    assert search.best_params_ == {"n_clusters": 4}
    assert all(n == 1 for n in search.results_["n_fits"])


def test_verbose_prints_progress(capsys):
    _search(verbose=1, param_grid={"n_clusters": [2, 3]}).fit(blobs(3, seed=14))
    err = capsys.readouterr().err
    assert "rung 1" in err and "picked" in err


def test_quiet_by_default(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _search(param_grid={"n_clusters": [2, 3]}).fit(blobs(3, seed=15))
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"scoring": "accuracy"}, "scoring must be"),
        ({"tie_break": "stability"}, "tie_break must be"),
        ({"n_pairs": 0}, "n_pairs must be"),
        ({"subsample": 1.5}, "subsample must be"),
        ({"factor": 1}, "factor must be"),
        ({"budget": -1}, "budget must be"),
        ({"param_grid": {"nope": [1]}}, "has no parameter"),
    ],
)
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        _search(**kw).fit(blobs(2, seed=16))


def test_pipeline_takes_its_last_steps_grid_on_transformed_rows():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = blobs(3, seed=17) * [1.0, 1e4]
    search = _search(estimator=make_pipeline(StandardScaler(), GridKMeans()),
                     param_grid=None).fit(X)
    assert search.grid_source_ == "estimator"
    assert search.best_params_ == {"gridkmeans__n_clusters": 3}
    assert search.n_clusters_found_ == 3


def test_a_half_that_cannot_be_fitted_is_a_failure_not_a_number():
    """KMeans(n_clusters=13) fits the 24 rows but not a half of 12: its splits fail."""
    X = blobs(2, n_per=12, seed=18)
    search = _search(estimator=KMeans(n_init=1), param_grid={"n_clusters": [2, 13]},
                     n_pairs=2, tie_break=None).fit(X)
    res = search.results_
    assert res["score"][0] > 0.9 and res["n_failed_pairs"][0] == 0
    assert res["error"] == [None, None]
    assert res["degenerate"][1] and np.isnan(res["score"][1])
    assert res["n_failed_pairs"][1] == 2 and all(np.isnan(res["pair_scores"][1]))
    assert res["reason"][1].startswith("every half failed")
    assert search.best_params_ == {"n_clusters": 2}


def test_results_record_every_geometric_criterion():
    """Each kept setting's CH, silhouette and Xie-Beni (standardised space, fit on the
    search rows) are in results_ whatever the scoring; a geometric scoring's score is its
    own column; dropped settings have NaN."""
    from marginclust.model_selection import (
        calinski_harabasz_scorer,
        silhouette_scorer,
        xie_beni_scorer,
    )

    X = blobs(3, seed=19)
    for scoring in ("stability", "silhouette"):
        res = _search(estimator=FuzzyCMeans(random_state=0), scoring=scoring).fit(X).results_
        for i, params in enumerate(res["params"]):
            if res["degenerate"][i]:
                assert np.isnan(res["silhouette"][i])
                continue
            est = FuzzyCMeans(random_state=0).set_params(**params).fit(X)
            for name, scorer in (("calinski_harabasz", calinski_harabasz_scorer),
                                 ("silhouette", silhouette_scorer),
                                 ("xie_beni", xie_beni_scorer)):
                assert res[name][i] == pytest.approx(scorer(est, X), rel=1e-9)
        if scoring == "silhouette":
            np.testing.assert_array_equal(res["score"], res["silhouette"])


def test_auto_scoring_is_stability_across_k_and_calinski_harabasz_at_fixed_k():
    X = blobs(3, seed=20)
    across = _search(scoring="auto").fit(X)
    assert across.scoring_ == "stability" and across.best_params_["n_clusters"] == 3
    assert all(f == 7 for f in across.results_["n_fits"])
    fixed = _search(scoring="auto", param_grid={"n_clusters": [3], "m": [1.5, 2.0, 2.5]}).fit(X)
    assert fixed.scoring_ == "calinski_harabasz"
    assert all(f == 1 for f in fixed.results_["n_fits"])
    np.testing.assert_array_equal(fixed.results_["score"], fixed.results_["calinski_harabasz"])
    ch = np.asarray(fixed.results_["calinski_harabasz"])
    # the best CH, or the defaults (m=2.0) when they tie with it within tol
    assert fixed.best_index_ == int(np.argmax(ch)) or (
        fixed.results_["params"][fixed.best_index_] == {"m": 2.0, "n_clusters": 3}
        and ch[fixed.best_index_] >= ch.max() - fixed.tol)
    # a Pipeline's prefixed n_clusters counts too
    from marginclust.model_selection._search import _varies_n_clusters

    assert _varies_n_clusters([{"est__n_clusters": 2}, {"est__n_clusters": 3}])
    assert not _varies_n_clusters([{"est__n_clusters": 2, "C": 1}, {"est__n_clusters": 2}])


def test_collapse_advice_is_read_from_the_instance():
    # an estimator may word its advice by its parameters (a property on the class)
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from marginclust import FuzzyCMeans, WOCSVMClustering
    from marginclust.model_selection._search import collapse_advice

    est = WOCSVMClustering(decision_scale="relative")
    assert collapse_advice(est) == est._collapse_advice
    assert isinstance(collapse_advice(est), str) and collapse_advice(est)
    assert collapse_advice(make_pipeline(StandardScaler(), FuzzyCMeans())) == \
        FuzzyCMeans._collapse_advice


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_settings_on_workers_give_the_sequential_search(backend):
    import joblib

    X = blobs()
    sequential = _search().fit(X)
    with joblib.parallel_config(backend=backend):
        parallel = _search(n_jobs=2).fit(X)
    _same_results(sequential, parallel)

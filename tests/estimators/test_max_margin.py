"""MaxMarginClustering: shapes of any kind, K chosen by the margin, prediction, no label leak."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import NearestNeighbors

from marginclust import MaxMarginClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.starts import _candidates, partition_margin

BATTERY = Path(
    os.environ.get("MARGINCLUST_BATTERY")
    or Path(__file__).resolve().parents[3] / "shared" / "battery"
)


def _battery(key: str) -> np.ndarray:
    """Points of a battery set with the framework's 'original' preprocessing."""
    path = BATTERY / f"{key}.data.gz"
    if not path.is_file():
        pytest.skip(f"battery set {key} not found under {BATTERY}")
    X = np.loadtxt(path, ndmin=2)
    X = X[:, X.std(axis=0) > 0] - X.mean(axis=0)
    return X / X.std()


@pytest.mark.parametrize(
    "make",
    [
        lambda: make_circles(500, factor=0.4, noise=0.05, random_state=0),
        lambda: make_moons(500, noise=0.06, random_state=0),
        lambda: make_blobs(400, centers=[[0, 0], [10, 0], [0, 10]], random_state=0),
    ],
    ids=["circles", "moons", "blobs"],
)
def test_recovers_shapes_of_any_kind(make):
    X, y = make()
    est = MaxMarginClustering(n_clusters=len(np.unique(y)), random_state=0).fit(X)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    assert est.score_ == max(c.score for c in est.candidates_)


@pytest.mark.parametrize("k", [3, 5, 6])
def test_auto_finds_the_number_of_separated_blobs(k):
    centers = 12.0 * np.column_stack([np.arange(k) % 3, np.arange(k) // 3])
    X, y = make_blobs(60 * k, centers=centers, random_state=k)
    est = MaxMarginClustering(n_clusters="auto", max_clusters=8, random_state=0).fit(X)
    assert est.n_clusters_ == k
    assert adjusted_rand_score(y, est.labels_) == 1.0
    assert {c.n_clusters for c in est.candidates_} == set(range(2, 9))


def test_auto_finds_two_rings():
    X, y = make_circles(600, factor=0.3, noise=0.04, random_state=1)
    est = MaxMarginClustering(n_clusters="auto", max_clusters=6, random_state=0).fit(X)
    assert est.n_clusters_ == 2 and adjusted_rand_score(y, est.labels_) == 1.0


def test_deterministic_with_random_state():
    X, _ = make_moons(300, noise=0.1, random_state=2)
    a = MaxMarginClustering(random_state=5).fit(X)
    b = MaxMarginClustering(random_state=5).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert [c.score for c in a.candidates_] == [c.score for c in b.candidates_]
    np.testing.assert_array_equal(a.predict(X[:50] + 0.01), b.predict(X[:50] + 0.01))


def test_labels_never_seen():
    X, y = make_blobs(200, centers=3, cluster_std=2.5, random_state=3)
    ref = MaxMarginClustering(n_clusters=3, random_state=0).fit(X).labels_
    for given in (y, np.random.RandomState(0).permutation(y), np.zeros_like(y)):
        est = MaxMarginClustering(n_clusters=3, random_state=0).fit(X, given)
        np.testing.assert_array_equal(est.labels_, ref)
        np.testing.assert_array_equal(MaxMarginClustering(n_clusters=3, random_state=0)
                                      .fit_predict(X, given), ref)


@pytest.mark.parametrize(
    ("key", "k"),
    [("fcps/lsun", 3), ("fcps/wingnut", 2), ("graves/ring", 2), ("wut/smile", 6),
     ("wut/x3", 4)],
)
def test_predict_held_back_points_like_their_nearest_training_points(key, k):
    X = _battery(key)
    rng = np.random.RandomState(0)
    held = rng.rand(X.shape[0]) < 0.2
    est = MaxMarginClustering(n_clusters=k, random_state=0).fit(X[~held])
    nearest = NearestNeighbors(n_neighbors=1).fit(X[~held]).kneighbors(X[held])[1][:, 0]
    agree = np.mean(est.predict(X[held]) == est.labels_[nearest])
    assert agree >= 0.95, f"{key}: {agree:.3f}"


def test_subsample_extends_labels_by_the_classifier():
    X, y = make_blobs(900, centers=[[0, 0], [8, 0], [0, 8]], random_state=4)
    est = MaxMarginClustering(n_clusters=3, max_samples=200, random_state=0).fit(X)
    assert est.sample_indices_.shape == (200,)
    # fitted to 200 rows, the candidates are ranked on every row (max_vote_samples)
    assert sorted(sum(c.cluster_sizes) for c in est.candidates_) == [900] * 5
    fewer = MaxMarginClustering(n_clusters=3, max_samples=200, max_vote_samples=500,
                                random_state=0).fit(X)
    assert sorted(sum(c.cluster_sizes) for c in fewer.candidates_) == [500] * 5
    assert adjusted_rand_score(y, est.labels_) == 1.0
    moved = np.flatnonzero(est.predict(X) != est.labels_)
    np.testing.assert_array_equal(moved, est.classifier_moved_)


def test_the_sample_grows_to_sixty_rows_a_cluster_past_fifty_clusters():
    # max_samples="auto": 3,000 fitted rows up to K = 50, then 60 a cluster (at most
    # 10,000); an integer max_samples is a hard bound
    centres = np.array([[i, j] for i in range(8) for j in range(8)], dtype=float)[:60] * 10
    X, _ = make_blobs(4000, centers=centres, random_state=0)
    est = MaxMarginClustering(60, candidates=["k-means"], random_state=0).fit(X)
    assert est.max_samples_ == 3600 and est.sample_indices_.shape == (3600,)
    assert est.n_clusters_found_ == 60
    fixed = MaxMarginClustering(60, candidates=["k-means"], max_samples=3000,
                                random_state=0).fit(X)
    assert fixed.max_samples_ == 3000 and fixed.sample_indices_.shape == (3000,)
    assert MaxMarginClustering(5, random_state=0).fit(X[:500]).max_samples_ == 3000
    with pytest.warns(ConvergenceWarning, match="one cluster"):  # 200 rows of 60 blobs
        auto = MaxMarginClustering("auto", max_clusters=2, random_state=0).fit(X[:200])
    assert auto.max_samples_ == 3000
    with pytest.raises(ValueError, match="max_samples must be 'auto' or an integer"):
        MaxMarginClustering(max_samples="all").fit(X)


def test_the_vote_ranks_candidates_on_more_rows_than_they_are_fitted_to():
    # fitted to 200 rows, each candidate labels the other rows by their nearest fitted
    # row, and its margin is the vote among all 900 (literal oracles: a brute-force
    # nearest fitted row, and partition_margin of the chosen partition on every row)
    X, _ = make_moons(900, noise=0.08, random_state=3)
    est = MaxMarginClustering(n_clusters=2, max_samples=200, random_state=0).fit(X)
    fitted = est.sample_indices_
    d2 = ((X[:, None, :] - X[None, fitted, :]) ** 2).sum(-1)
    nearest = fitted[np.argmin(d2, axis=1)]
    np.testing.assert_array_equal(est.labels_, est.labels_[nearest])
    # among 900 rows the vote asks 7 * 900 / 200 neighbours: the reach of 7 among 200
    assert abs(est.score_ - partition_margin(X, est.labels_, 2,
                                             n_neighbors=round(7 * 900 / 200))) < 1e-12
    # the classifier learns the fitted rows only, so predict may differ elsewhere
    moved = np.flatnonzero(est.predict(X) != est.labels_)
    np.testing.assert_array_equal(moved, est.classifier_moved_)


def test_max_vote_samples_changes_nothing_when_every_row_is_fitted():
    X, _ = make_moons(300, noise=0.08, random_state=3)
    fits = [MaxMarginClustering(n_clusters=2, random_state=0, max_vote_samples=v).fit(X)
            for v in (10, 300, 10_000)]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.labels_, fits[0].labels_)
        assert other.k_scores_ == fits[0].k_scores_


def test_max_vote_samples_below_max_samples_is_the_fitted_rows_vote():
    X, _ = make_moons(900, noise=0.08, random_state=3)
    est = MaxMarginClustering(n_clusters=2, max_samples=200, max_vote_samples=50,
                              random_state=0).fit(X)
    assert sorted(sum(c.cluster_sizes) for c in est.candidates_) == [200] * 5
    with pytest.raises(ValueError, match="max_vote_samples"):
        MaxMarginClustering(max_vote_samples=5).fit(X)


def test_memory_resumes_the_candidates(tmp_path, monkeypatch):
    X, _ = make_moons(200, noise=0.05, random_state=0)
    first = MaxMarginClustering(memory=str(tmp_path), random_state=0).fit(X)

    def refuse(*args, **kwargs):
        raise AssertionError("the candidate was refitted instead of read from the cache")

    # the cached function is keyed on its code: a replaced generator is still read back
    monkeypatch.setitem(_candidates.GENERATORS, "genie", refuse)
    second = MaxMarginClustering(memory=joblib.Memory(str(tmp_path), verbose=0),
                                 random_state=0).fit(X)
    np.testing.assert_array_equal(first.labels_, second.labels_)
    assert [c.seconds for c in first.candidates_] == [c.seconds for c in second.candidates_]


def test_candidates_record_name_score_sizes_seconds():
    X, _ = make_blobs(150, centers=2, random_state=0)
    est = MaxMarginClustering(random_state=0).fit(X)
    assert [c.name for c in est.candidates_] == ["genie", "gmm", "spectral", "k-means", "ward"]
    for c in est.candidates_:
        assert c.n_clusters == 2 and sum(c.cluster_sizes) == 150
        assert -1.0 <= c.score <= 1.0 and c.seconds >= 0 and c.error == ""


def test_custom_candidates():
    X, y = make_blobs(200, centers=[[0, 0], [10, 0], [0, 10]], random_state=1)
    est = MaxMarginClustering(
        n_clusters=3, candidates=[("genie", {"gini_threshold": 0.5}), KMeans(n_init=3)],
        random_state=0,
    ).fit(X)
    assert [c.name for c in est.candidates_] == ["genie(gini_threshold=0.5)", "KMeans"]
    assert adjusted_rand_score(y, est.labels_) == 1.0


def test_predict_proba_only_when_calibrated():
    X, _ = make_moons(200, noise=0.05, random_state=0)
    assert not hasattr(MaxMarginClustering().fit(X), "predict_proba")
    est = MaxMarginClustering(probability=True, random_state=0).fit(X)
    P = est.predict_proba(X)
    assert P.shape == (200, 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.mean(P.argmax(axis=1) == est.labels_) > 0.99


@pytest.mark.parametrize(("n", "d", "k"), [(300, 2, 4), (2000, 2, 2), (500, 5, 3)])
def test_data_without_clusters_warn_that_no_candidate_is_separated(n, d, k):
    X = np.random.RandomState(0).randn(n, d)
    with pytest.warns(ConvergenceWarning, match="clearly separated.*n_clusters"):
        est = MaxMarginClustering(n_clusters=k, random_state=0).fit(X)
    assert est.separation_ < 0.5


def test_separated_data_do_not_warn():
    X, _ = make_circles(2000, factor=0.4, noise=0.04, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = MaxMarginClustering(random_state=0).fit(X)
    # no point has a neighbour in the other ring: nothing to test, fully separated
    assert est.separation_ == 1.0 and np.isnan(est.null_score_)
    assert [(row.n_clusters, row.separated) for row in est.k_scores_] == [(2, True)]


def test_too_few_distinct_points_are_refused_and_auto_stops_at_them():
    X = np.repeat([[0.0, 0.0], [5.0, 5.0]], 20, axis=0)
    with pytest.raises(ValueError, match="X has only 2 distinct rows; n_clusters=3"):
        MaxMarginClustering(n_clusters=3, candidates=["k-means"], random_state=0).fit(X)
    # auto tries K = 2 only; two distinct points (each a point of weight 20) cannot show
    # a boundary, and repeating rows changes nothing: one cluster, and the warning says why
    with pytest.warns(ConvergenceWarning, match="With 2 distinct points no boundary"):
        est = MaxMarginClustering(n_clusters="auto", candidates=["k-means"],
                                  random_state=0).fit(X)
    assert [row.n_clusters for row in est.k_scores_] == [1, 2]
    assert est.n_clusters_ == 1 and np.all(est.labels_ == 0)


def test_one_cluster():
    X, _ = make_blobs(50, centers=2, random_state=0)
    est = MaxMarginClustering(n_clusters=1).fit(X)
    assert np.all(est.labels_ == 0) and np.all(est.predict(X) == 0)


def test_a_failing_candidate_is_left_out():
    class Broken(KMeans):
        def fit_predict(self, X, y=None, sample_weight=None):
            raise RuntimeError("broken on purpose")

    X, _ = make_blobs(100, centers=[[0, 0], [10, 0]], random_state=0)
    with pytest.warns(UserWarning, match="Broken failed"):
        est = MaxMarginClustering(candidates=[Broken(), "k-means"], random_state=0).fit(X)
    assert est.best_candidate_ == "k-means"
    assert "broken on purpose" in est.candidates_[-1].error


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_clusters": "two"}, "n_clusters"),
        ({"n_clusters": 0}, "n_clusters"),
        ({"n_neighbors": 1}, "n_neighbors"),
        ({"n_neighbors": 2.5}, "n_neighbors"),
        ({"max_clusters": 1, "n_clusters": "auto"}, "max_clusters"),
        ({"max_samples": 5}, "max_samples"),
        ({"C": 0.0}, "C must be"),
        ({"C": np.inf}, "C must be"),
        ({"probability": "yes"}, "probability"),
        ({"candidates": "all"}, "candidates"),
        ({"candidates": []}, "candidates"),
        ({"candidates": ["genie", "nope"]}, "Unknown candidate 'nope'"),
        ({"candidates": [("genie", 0.3)]}, r"\(name, dict\)"),
        ({"candidates": [object()]}, "fit_predict"),
        ({"n_clusters": 40, "max_samples": 30}, "max_samples"),
        ({"scale": "minmax"}, "scale must be one of"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, match):
    X, _ = make_blobs(60, centers=2, random_state=0)
    with pytest.raises(ValueError, match=match):
        MaxMarginClustering(**params).fit(X)


def test_invariant_to_translation_and_uniform_scale():
    X, _ = make_moons(200, noise=0.08, random_state=3)
    base = MaxMarginClustering(random_state=0).fit(X).labels_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for Y in (X * 1e-5, X * 1e5 + 3e4, X + 1e9):
            assert adjusted_rand_score(base, MaxMarginClustering(random_state=0)
                                       .fit(Y).labels_) == 1.0


def _units(X: np.ndarray) -> np.ndarray:
    """The same points with the second column in a unit 1,000 times smaller."""
    return X * [1.0, 1000.0]


def test_columns_in_different_units_are_standardised_by_default():
    X, y = make_blobs(400, centers=[[0, 0], [6, 0], [0, 6]], random_state=0)
    given = MaxMarginClustering(3, scale="standard", random_state=0).fit(X)
    auto = MaxMarginClustering(3, random_state=0).fit(_units(X))
    assert auto.scale_ == "standard"
    assert adjusted_rand_score(y, auto.labels_) > 0.95
    # the two frames agree up to round-off (X / sd against 1000 X / (1000 sd)): the
    # same partition, and new rows mapped through the same per-column frame
    assert adjusted_rand_score(given.labels_, auto.labels_) > 0.99
    assert np.mean(auto.predict(_units(X)) == given.predict(X)) > 0.99
    kept = MaxMarginClustering(3, scale="none", random_state=0).fit(_units(X))
    # left in their units, the wide column decides: two blobs side by side merge
    assert kept.scale_ == "none" and adjusted_rand_score(y, kept.labels_) < 0.8


def test_shapes_in_one_unit_are_not_rescaled_by_default():
    """A thin strip's aspect ratio is not a difference of units: "auto" leaves it."""
    X, _ = make_moons(300, noise=0.05, random_state=0)
    est = MaxMarginClustering(2, random_state=0).fit(X * [20.0, 1.0])
    assert est.scale_ == "none"
    base = MaxMarginClustering(2, scale="none", random_state=0).fit(X * [20.0, 1.0])
    np.testing.assert_array_equal(est.labels_, base.labels_)


@pytest.mark.parametrize("scale", ["standard", "robust"])
def test_column_scaling_is_invariant_to_each_columns_unit(scale):
    X, _ = make_blobs(300, centers=3, n_features=3, random_state=1)
    a = MaxMarginClustering(3, scale=scale, random_state=0).fit(X)
    b = MaxMarginClustering(3, scale=scale, random_state=0).fit(X * [1e-3, 1.0, 1e4] + 5.0)
    assert adjusted_rand_score(a.labels_, b.labels_) > 0.99  # frames equal up to round-off


def test_repeated_rows_scale_as_integer_weights():
    """Copies of a row are one point of their summed weight, in the scaling too: the
    same weighted computation either way, so the labels are the same."""
    rng = np.random.RandomState(0)
    X, _ = make_blobs(200, centers=3, random_state=2)
    X = _units(X)
    r = rng.randint(1, 4, X.shape[0])
    weighted = MaxMarginClustering(3, scale="robust", random_state=0).fit(X, sample_weight=r)
    many = MaxMarginClustering(3, scale="robust", random_state=0).fit(np.repeat(X, r, axis=0))
    assert weighted.scale_ == many.scale_ == "robust"
    np.testing.assert_array_equal(np.repeat(weighted.labels_, r), many.labels_)

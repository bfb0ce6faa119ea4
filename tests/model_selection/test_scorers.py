"""Label-free scorers: definitions checked by hand, worst score on collapse, sklearn searches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, ShuffleSplit

from marginclust import FuzzyCMeans
from marginclust.model_selection import (
    LABEL_FREE_SCORERS,
    calinski_harabasz_scorer,
    get_label_free_scorer,
    hungarian_disagreement,
    normalized_instability,
    reference_space,
    silhouette_scorer,
    stability_scorer,
    xie_beni_scorer,
)
from marginclust.model_selection._scorers import WORST_SCORE

from ._helpers import CollapsibleKMeans, ExplodingLabels, blobs

ALL = sorted(LABEL_FREE_SCORERS)


def _brute_disagreement(a, b):
    """Literal oracle: try every relabelling of b."""
    a, b = np.asarray(a), np.asarray(b)
    labels = np.unique(np.concatenate([a, b]))
    best = 1.0
    for perm in itertools.permutations(labels):
        mapping = dict(zip(labels, perm, strict=True))
        best = min(best, float(np.mean(a != np.array([mapping[v] for v in b]))))
    return best


def test_hungarian_disagreement_matches_brute_force():
    rng = np.random.RandomState(0)
    for _ in range(20):
        k = rng.randint(2, 5)
        a, b = rng.randint(0, k, 30), rng.randint(0, k, 30)
        assert hungarian_disagreement(a, b) == pytest.approx(_brute_disagreement(a, b))


def test_normalized_instability_scale():
    rng = np.random.RandomState(1)
    a = np.repeat(np.arange(3), 100)
    assert normalized_instability(a, (a + 1) % 3) == 0.0
    # unrelated labellings are about as unstable as random ones
    assert normalized_instability(a, rng.permutation(a)) == pytest.approx(1.0, abs=0.1)
    # a 95/5 split that disagrees on the small cluster is not "stable"
    big = np.r_[np.zeros(95, int), np.ones(5, int)]
    other = np.r_[np.ones(5, int), np.zeros(95, int)]
    assert hungarian_disagreement(big, other) == pytest.approx(0.10)
    assert normalized_instability(big, other) > 0.9


def test_reference_space_standardises():
    X = np.random.RandomState(0).randn(50, 3) * [1, 100, 1e-3] + 1e6
    Z = reference_space(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-6)
    np.testing.assert_allclose(Z.std(axis=0), 1)


class _ScaledView:
    """A fitted KMeans seen through a per-feature rescaling of its input."""

    def __init__(self, km, scale):
        self.km, self.scale = km, scale
        self.labels_ = km.labels_

    def get_params(self, deep=True):
        return {"n_clusters": self.km.n_clusters}

    def predict(self, X):
        return self.km.predict(np.asarray(X) / self.scale)


@pytest.mark.parametrize("name", ["silhouette", "calinski_harabasz", "xie_beni"])
def test_geometric_scorers_are_computed_in_the_standardised_space(name):
    """The same labels on per-feature rescaled data give the same score."""
    X = blobs(3, seed=2)
    km = KMeans(3, n_init=3, random_state=0).fit(X)
    scale = np.array([1e-3, 1e3])
    scorer = get_label_free_scorer(name)
    assert scorer(km, X) == pytest.approx(scorer(_ScaledView(km, scale), X * scale), rel=1e-6)


@pytest.mark.parametrize("name", ALL)
def test_scorers_invariant_to_uniform_rescaling(name):
    X = blobs(3, seed=2)
    half = len(X) // 2
    scorer = get_label_free_scorer(name)
    values = []
    for c in (1e-3, 1.0, 1e3):
        est = KMeans(3, n_init=3, random_state=0).fit(X[:half] * c)
        values.append(scorer(est, X[half:] * c))
    assert values[0] == pytest.approx(values[1], rel=1e-6)
    assert values[2] == pytest.approx(values[1], rel=1e-6)


def test_geometric_scorers_equal_sklearn_in_reference_space():
    from sklearn.metrics import calinski_harabasz_score, silhouette_score

    X = blobs(3, seed=4) * [1.0, 50.0]
    est = KMeans(3, n_init=3, random_state=0).fit(X)
    Z = reference_space(X)
    assert silhouette_scorer(est, X) == pytest.approx(silhouette_score(Z, est.labels_))
    assert calinski_harabasz_scorer(est, X) == pytest.approx(
        calinski_harabasz_score(Z, est.labels_))
    # Xie-Beni with one-hot memberships: within-SS / (n * min squared centre distance)
    centers = np.array([Z[est.labels_ == j].mean(axis=0) for j in range(3)])
    within = sum(((Z[est.labels_ == j] - centers[j]) ** 2).sum() for j in range(3))
    d2 = min(((centers[i] - centers[j]) ** 2).sum() for i in range(3) for j in range(i))
    assert xie_beni_scorer(est, X) == pytest.approx(-within / (len(X) * d2))


def test_stability_separates_good_and_bad_k():
    X = blobs(3, seed=5)
    half = np.random.RandomState(0).permutation(len(X))
    a, b = X[half[:75]], X[half[75:]]
    good = stability_scorer(KMeans(3, n_init=3, random_state=0).fit(a), b)
    bad = stability_scorer(KMeans(7, n_init=1, random_state=0).fit(a), b)
    assert good == pytest.approx(1.0)
    assert bad < good - 0.2


@pytest.mark.parametrize("name", ALL)
def test_degenerate_fit_gets_worst_score(name):
    X = blobs(3, seed=6)
    est = CollapsibleKMeans(3, collapse=True, random_state=0).fit(X)
    assert get_label_free_scorer(name)(est, X) == WORST_SCORE[name]


@pytest.mark.parametrize("name", ALL)
def test_scorers_never_read_y(name):
    X = blobs(2, seed=7)
    est = FuzzyCMeans(2, random_state=0).fit(X[::2])
    scorer = get_label_free_scorer(name)
    assert scorer(est, X[1::2], ExplodingLabels()) == scorer(est, X[1::2])


def test_unknown_scorer_name():
    with pytest.raises(ValueError, match="scoring must be one of"):
        get_label_free_scorer("accuracy")


@pytest.mark.parametrize("name", ALL)
def test_scorers_in_grid_search_cv(name):
    X = blobs(3, seed=8)
    gs = GridSearchCV(
        FuzzyCMeans(random_state=0), {"n_clusters": [2, 3, 4]},
        scoring=get_label_free_scorer(name),
        cv=ShuffleSplit(n_splits=3, test_size=0.5, random_state=0),
    ).fit(X)
    assert np.all(np.isfinite(gs.cv_results_["mean_test_score"]))
    assert gs.best_params_ == {"n_clusters": 3}


def test_collapsed_setting_in_grid_search_does_not_crash():
    X = blobs(3, seed=9)
    gs = GridSearchCV(
        CollapsibleKMeans(3, random_state=0), {"collapse": [True, False]},
        scoring=silhouette_scorer, cv=ShuffleSplit(n_splits=2, test_size=0.5, random_state=0),
    ).fit(X)
    assert gs.cv_results_["mean_test_score"][0] == -1.0
    assert gs.best_params_ == {"collapse": False}


@pytest.mark.parametrize("name", ["stability", "calinski_harabasz"])
def test_scorers_in_halving_grid_search_cv(name):
    X = blobs(3, n_per=80, seed=10)
    hs = HalvingGridSearchCV(
        KMeans(n_init=2, random_state=0), {"n_clusters": [2, 3, 4, 5, 6, 7]},
        scoring=get_label_free_scorer(name), resource="n_samples", min_resources=60,
        factor=2, cv=ShuffleSplit(n_splits=3, test_size=0.5, random_state=0),
        random_state=0,
    ).fit(X)
    assert hs.n_iterations_ >= 2
    assert hs.best_params_ == {"n_clusters": 3}

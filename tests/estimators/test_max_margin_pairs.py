"""MaxMarginClustering with must-link / cannot-link pairs."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_circles

from marginclust import BMMC, MaxMarginClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.starts._selection import Candidate, _consistent


def _pairs_from(labels, n_pairs, seed):
    rng = np.random.RandomState(seed)
    uv = rng.randint(labels.size, size=(4 * n_pairs, 2))
    uv = uv[uv[:, 0] != uv[:, 1]][:n_pairs]
    same = labels[uv[:, 0]] == labels[uv[:, 1]]
    return uv[same], uv[~same]


def _kept(labels, ml, cl):
    return all(labels[u] == labels[v] for u, v in ml) and all(
        labels[u] != labels[v] for u, v in cl
    )


def test_pairs_kept_on_separated_blobs():
    X, y = make_blobs(300, 2, centers=3, cluster_std=0.5, random_state=0)
    ml, cl = _pairs_from(y, 40, 0)
    est = MaxMarginClustering(3, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    assert _kept(est.labels_, ml, cl)
    assert min(c.violated_pairs for c in est.candidates_) == 0


def test_pairs_against_the_structure_are_kept_on_their_rows():
    """The pairs are facts about their rows: a must-link across two separated blobs and a
    cannot-link inside one hold in ``labels_`` (the classifier may disagree there)."""
    X, y = make_blobs(200, 2, centers=2, cluster_std=0.4, random_state=1)
    a = np.flatnonzero(y == 0)
    b = np.flatnonzero(y == 1)
    ml = [(a[0], b[0])]
    cl = [(a[1], a[2])]
    est = MaxMarginClustering(2, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    L = est.labels_
    assert _kept(L, ml, cl)
    # everything else stays with its blob
    rest = np.setdiff1d(np.arange(200), [a[0], b[0], a[1], a[2]])
    assert len(set(L[rest][y[rest] == 0])) == 1 and len(set(L[rest][y[rest] == 1])) == 1


def test_pairs_flip_the_choice_between_two_candidates():
    """On two rings the margin prefers Genie's rings to a k-means split; pairs drawn from
    the k-means split (which Genie breaks) make the k-means candidate the choice."""
    X, _ = make_circles(300, factor=0.4, noise=0.04, random_state=0)
    km = KMeans(2, n_init=10, random_state=0)
    cands = ["genie", km]
    plain = MaxMarginClustering(2, candidates=cands, random_state=0).fit(X)
    assert plain.best_candidate_ == "genie"
    split = km.fit_predict(X)
    ml, cl = _pairs_from(split, 30, 1)
    with pytest.warns(ConvergenceWarning, match="clearly separated"):  # a split of rings
        est = MaxMarginClustering(2, candidates=cands, random_state=0).fit(
            X, must_link=ml, cannot_link=cl
        )
    by_name = {c.name: c for c in est.candidates_}
    assert by_name["KMeans"].violated_pairs == 0 < by_name["genie"].violated_pairs
    assert by_name["genie"].score > by_name["KMeans"].score  # the margin alone: Genie
    assert est.best_candidate_ == "KMeans"
    assert _kept(est.labels_, ml, cl)


def test_one_standard_error_rule_on_violations():
    def cand(v, score):
        return (Candidate("c", 2, score, (1, 1), 0.0, "", v), None, None)

    judged = [cand(0, 0.5), cand(1, 0.9), cand(3, 0.95)]
    # 20 pairs, none broken by the best: tolerance sqrt(20 p (1 - p)), p = 1/22, below 1
    assert [c.violated_pairs for c, _, _ in _consistent(judged, 20)] == [0]
    # 500 pairs, 50 broken by the best: tolerance about 6.7 pairs
    judged = [cand(50, 0.5), cand(56, 0.9), cand(58, 0.95)]
    assert [c.violated_pairs for c, _, _ in _consistent(judged, 500)] == [50, 56]
    assert _consistent(judged, 0) == judged  # no pairs: every candidate


def test_pair_rows_are_among_the_fitted_rows():
    X, y = make_blobs(400, 2, centers=3, cluster_std=0.5, random_state=2)
    ml, cl = _pairs_from(y, 30, 2)
    est = MaxMarginClustering(3, max_samples=60, random_state=0).fit(
        X, must_link=ml, cannot_link=cl
    )
    rows = np.unique(np.concatenate([np.ravel(ml), np.ravel(cl)]))
    assert np.isin(rows, est.sample_indices_).all()
    assert est.sample_indices_.size == 60
    assert _kept(est.labels_, ml, cl)


def test_pairs_are_deterministic():
    X, y = make_blobs(200, 2, centers=3, cluster_std=1.5, random_state=3)
    ml, cl = _pairs_from(y, 50, 3)
    a = MaxMarginClustering(3, random_state=5).fit(X, must_link=ml, cannot_link=cl)
    b = MaxMarginClustering(3, random_state=5).fit(X, must_link=ml, cannot_link=cl)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert [(c.name, c.violated_pairs) for c in a.candidates_] == [
        (c.name, c.violated_pairs) for c in b.candidates_
    ]


@pytest.mark.parametrize(
    "ml, cl, k",
    [
        ([(0, 40)], None, 3),  # out of range
        ([(1, 1)], None, 3),  # a row linked to itself
        ([(0, 1.5)], None, 3),  # not an index
        ([(0, 1), (1, 2)], [(0, 2)], 3),  # a cannot-link inside a must-link chain
        (None, [(0, 1), (1, 2), (2, 0)], 2),  # an odd cycle of cannot-links, two clusters
        ([(0, 1, 2)], None, 3),  # not pairs
    ],
)
def test_bad_pairs_raise_the_same_error_as_bmmc(ml, cl, k):
    X, _ = make_blobs(40, 2, centers=3, random_state=0)
    with pytest.raises(ValueError) as ours:
        MaxMarginClustering(k, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    with pytest.raises(ValueError) as bmmc:
        BMMC(k, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    assert str(ours.value) == str(bmmc.value)


def test_auto_k_keeps_the_pairs():
    X, y = make_blobs(240, 2, centers=3, cluster_std=0.5, random_state=4)
    ml, cl = _pairs_from(y, 30, 4)
    est = MaxMarginClustering("auto", max_clusters=5, random_state=0).fit(
        X, must_link=ml, cannot_link=cl
    )
    assert est.n_clusters_ == 3
    assert _kept(est.labels_, ml, cl)

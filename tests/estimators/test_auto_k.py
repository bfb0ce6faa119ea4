"""MaxMarginClustering's choice of K against data without clusters, and its sample weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.datasets import make_blobs, make_moons

from marginclust import MaxMarginClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import class_balanced_mean, vote_margins
from marginclust.starts import partition_margin
from marginclust.starts._references import structureless_reference
from marginclust.starts._separation import CLEAR_SEPARATION, pair_separations
from marginclust.starts._valley import VALLEY


def _blobs(n=600, centers=3, seed=0):
    rng = np.random.RandomState(seed)
    C = rng.uniform(-10, 10, (centers, 2))
    while np.min(np.sqrt(((C[:, None] - C[None]) ** 2).sum(-1)) + 1e9 * np.eye(centers)) < 6:
        C = rng.uniform(-10, 10, (centers, 2))
    return make_blobs(n, 2, centers=C, random_state=seed)


# ------------------------------------------------------------------ the K rule
@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
@pytest.mark.parametrize("d", [2, 5])
def test_data_without_clusters_are_one_cluster(kind, d):
    rng = np.random.RandomState(d)
    X = rng.uniform(size=(500, d)) if kind == "uniform" else rng.randn(500, d)
    with pytest.warns(ConvergenceWarning, match="found one cluster"):
        est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 1 and est.n_clusters_found_ == 1
    assert np.all(est.labels_ == 0) and np.all(est.predict(X[:20]) == 0)
    assert est.classifier_ is None
    assert [row.n_clusters for row in est.k_scores_] == list(range(1, 11))
    assert not any(row.separated for row in est.k_scores_[1:])


def test_separated_blobs_are_counted_without_a_warning():
    X, y = _blobs(centers=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 4
    row = next(r for r in est.k_scores_ if r.n_clusters == 4)
    assert row.separated and est.separation_ == row.separation >= CLEAR_SEPARATION


def test_the_rule_keeps_the_largest_clearly_separated_k():
    X, _ = _blobs(centers=3, seed=1)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    clear = [row.n_clusters for row in est.k_scores_ if row.separated]
    assert clear and est.n_clusters_ == max(clear)


def _grid_blobs(k: int, d: int, per: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    # centres on the corners of a scaled hypercube grid: every pair 10 sd apart or more
    corners = np.array([[(i >> j) & 1 for j in range(d)] for i in range(2 ** d)])[:k]
    return make_blobs(k * per, d, centers=10.0 * corners, random_state=seed)


def test_more_separated_clusters_than_the_first_range_are_all_found():
    """With max_clusters="auto" the range grows while every boundary stays clear."""
    X, y = _grid_blobs(12, 4, 25)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 12
    assert len(np.unique(y * 100 + est.labels_)) == 12  # the blobs themselves
    ks = [row.n_clusters for row in est.k_scores_]
    assert max(ks) > 12 and ks == sorted(ks)
    # K already judged keep their rows when the range grows
    bounded = MaxMarginClustering(n_clusters="auto", max_clusters=10, random_state=0).fit(X)
    assert bounded.n_clusters_ == 10 and max(r.n_clusters for r in bounded.k_scores_) == 10
    np.testing.assert_equal([tuple(r) for r in bounded.k_scores_],
                            [tuple(r) for r in est.k_scores_ if r.n_clusters <= 10])


def test_the_range_grows_only_past_a_clear_k_at_its_end():
    # three clusters: K = 9 and 10 are far from clear, so only 2..10 are tried
    X, _ = _blobs(centers=3, seed=1)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert max(r.n_clusters for r in est.k_scores_) == 10


class _RowOfBlobs(ClusterMixin, BaseEstimator):
    """Twelve blobs in a row along the first column, consecutive ones grouped into K.

    For K <= 12 every boundary lies in a gap between blobs, except at K = 10, where one
    blob is halved across the second column instead; past 12, blobs are halved.
    """

    def __init__(self, n_clusters=2):
        self.n_clusters = n_clusters

    def fit(self, X, y=None):
        x, k = X[:, 0], self.n_clusters
        gaps = np.argsort(np.diff(np.sort(x)))[-11:]  # the 11 gaps between the blobs
        blob = np.searchsorted(np.sort(np.sort(x)[gaps]), x)
        labels = blob * (9 if k == 10 else min(k, 12)) // 12
        for j in range(1 if k == 10 else max(k - 12, 0)):
            half = (blob == 11 - j) & (X[:, 1] > np.median(X[blob == 11 - j, 1]))
            labels[half] = labels.max() + 1
        self.labels_ = labels
        return self


def test_the_range_grows_past_one_unclear_largest_k():
    """As the choice passes one unclear K, so does the range: K = 10 unclear, 9 clear."""
    X, y = make_blobs(12 * 60, 2, centers=[[20.0 * i, 0.0] for i in range(12)],
                      random_state=0)
    est = MaxMarginClustering(n_clusters="auto", candidates=[_RowOfBlobs()],
                              random_state=0).fit(X)
    clear = {row.n_clusters: row.separated for row in est.k_scores_}
    assert clear[9] and not clear[10] and clear[12] and not clear[13]
    assert est.n_clusters_ == 12 and max(clear) == 15
    assert len(np.unique(y * 100 + est.labels_)) == 12  # the blobs themselves


def test_k_scores_are_the_separations_of_each_k():
    X, _ = _blobs(centers=3, seed=2)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    Z = (X - est._mean) * est._scale
    graph = NeighborGraph.from_data(Z, 7)
    row = next(r for r in est.k_scores_ if r.n_clusters == est.n_clusters_)
    tests = pair_separations(Z, est.labels_, est.n_clusters_, graph.indices,
                             seed=0)  # another seed: the references differ, the data's not
    assert row.score == pytest.approx(partition_margin(Z, est.labels_, est.n_clusters_))
    assert row.valley == pytest.approx(min(t.valley for t in tests))


def test_an_empty_cluster_has_no_boundary_to_judge():
    """A partition that leaves a cluster empty (a generator may) is judged on the others."""
    X, y = _blobs(300, 2, seed=1)
    graph = NeighborGraph.from_data(X, 7)
    tests = pair_separations(X, y, 3, graph.indices, seed=0)  # cluster 2 is empty
    assert [t.clusters for t in tests] == [(0, 1)]
    assert tests[0].clear


def test_clusters_without_a_neighbour_across_are_clear_unmeasured():
    """Only touching pairs are measured: the others are clear (separation 1, no valley)."""
    rng = np.random.RandomState(0)
    Z = np.concatenate([rng.randn(100, 2) + c for c in ([0, 0], [30, 0], [0, 30], [30, 30])])
    labels = np.repeat([0, 1, 2, 3], 100)
    labels[:100][Z[:100, 0] > 0] = 4  # blob 0 cut in two: the one touching pair
    graph = NeighborGraph.from_data(Z, 7)
    tests = pair_separations(Z, labels, 5, graph.indices, seed=0)
    assert len(tests) == 10 and tests[0].clusters == (0, 4)
    assert np.isfinite(tests[0].score) and not tests[0].clear  # a cut through a blob
    for t in tests[1:]:
        assert np.isnan(t.score) and t.separation == 1.0 and t.valley == np.inf and t.clear
    # the touching pair's test is that of its union alone (the same first draws)
    union = labels % 4 == 0
    (alone,) = pair_separations(Z[union], (labels[union] == 4).astype(np.intp), 2,
                                NeighborGraph.from_data(Z[union], 7).indices, seed=0)
    assert alone.score == tests[0].score and alone.separation == tests[0].separation


def test_k_given_on_structureless_data_warns_with_the_same_reference():
    X = np.random.RandomState(0).uniform(size=(600, 2))
    with pytest.warns(ConvergenceWarning, match="clearly separated"):
        est = MaxMarginClustering(n_clusters=3, random_state=0).fit(X)
    assert [r.n_clusters for r in est.k_scores_] == [3]
    assert not est.k_scores_[0].separated
    assert est.separation_ < CLEAR_SEPARATION or est.k_scores_[0].valley < VALLEY


def test_one_column_tail_cut_is_not_taken_for_a_cluster():
    """Three groups on a line: a cut in a sparse tail has no valley, the groups' gaps do."""
    rng = np.random.RandomState(0)
    x = np.concatenate([rng.randn(150), rng.randn(150) + 6, rng.randn(150) + 12])
    y = np.repeat([0, 1, 2], 150)
    X = x[:, None]
    est = MaxMarginClustering(n_clusters=3, random_state=0).fit(X)
    truth = pair_separations(X / X.std(), y, 3, NeighborGraph.from_data(X, 7).indices)
    assert all(t.clear for t in truth)
    assert est.k_scores_[0].separated
    from sklearn.metrics import adjusted_rand_score
    assert adjusted_rand_score(y, est.labels_) > 0.95
    auto = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert auto.n_clusters_ == 3


def test_a_ring_is_one_cluster_and_two_rings_two():
    """A cut across a ring leaves few mixed neighbours, but no valley of density."""
    t = np.linspace(0, 2 * np.pi, 600, endpoint=False)
    rng = np.random.RandomState(0)
    ring = np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.03, (600, 2))
    one = MaxMarginClustering(n_clusters="auto", random_state=0)
    with pytest.warns(ConvergenceWarning, match="found one cluster"):
        one.fit(ring)
    assert one.n_clusters_ == 1
    two = MaxMarginClustering(n_clusters="auto", random_state=0).fit(
        np.r_[ring, 0.4 * ring[::2]])
    assert two.n_clusters_ == 2


@pytest.mark.parametrize(("n", "noise", "seed"), [(200, 0.08, 3), (500, 0.06, 0)])
def test_two_moons_are_two(n, noise, seed):
    X, y = make_moons(n, noise=noise, random_state=seed)
    est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 2


# ------------------------------------------------------------ the references
def test_structureless_references_keep_size_mean_and_spread():
    rng = np.random.RandomState(0)
    Z = rng.randn(4000, 3) @ np.array([[3.0, 0, 0], [1.0, 1.0, 0], [0, 0, 0.5]]) + 2.0
    G = structureless_reference(Z, "gaussian", np.random.RandomState(1))
    assert G.shape == Z.shape
    np.testing.assert_allclose(G.mean(axis=0), Z.mean(axis=0), atol=0.15)
    np.testing.assert_allclose(np.cov(G.T), np.cov(Z.T), rtol=0.1, atol=0.05)
    # the box: uniform over the data's range on each principal axis
    B = structureless_reference(Z, "box", np.random.RandomState(1))
    centred = Z - Z.mean(axis=0)
    axes = np.linalg.svd(centred, full_matrices=False)[2]
    data, box = centred @ axes.T, (B - Z.mean(axis=0)) @ axes.T
    assert B.shape == Z.shape
    assert np.all(box.min(axis=0) >= data.min(axis=0) - 1e-9)
    assert np.all(box.max(axis=0) <= data.max(axis=0) + 1e-9)
    np.testing.assert_allclose(np.ptp(box, axis=0), np.ptp(data, axis=0), rtol=0.01)


def test_pair_separation_is_the_share_of_the_reference_boundary_avoided():
    rng = np.random.RandomState(3)
    Z = np.r_[rng.randn(200, 2), rng.randn(200, 2) + [3.0, 0.0]]
    labels = (Z[:, 0] > 1.5).astype(np.intp)
    graph = NeighborGraph.from_data(Z, 7)
    (t,) = pair_separations(Z, labels, 2, graph.indices, seed=0)
    assert t.score == pytest.approx(partition_margin(Z, labels, 2))
    assert t.separation == pytest.approx((t.score - t.reference) / (1 - t.reference))
    assert t.error >= 0
    beyond = t.score - t.reference >= t.multiplier * t.error
    separated = t.separation >= CLEAR_SEPARATION or t.modes >= VALLEY
    assert t.clear == (beyond and (t.gaussians or (separated and t.valley >= VALLEY)))


# -------------------------------------------------------------- weights, copies
def test_weighted_vote_by_hand():
    labels = np.array([0, 0, 1, 1])
    neighbors = np.array([[1, 2], [0, 2], [3, 0], [2, 1]])
    w = np.array([1.0, 3.0, 2.0, 1.0])
    m = vote_margins(labels, neighbors, 2, w)
    # point 0: own 3 (point 1), other 2 (point 2), total 5
    np.testing.assert_allclose(m, [(3 - 2) / 5, (1 - 2) / 3, (1 - 1) / 2, (2 - 3) / 5])
    # the cluster means are weighted by the points' own weights
    expected = ((1 * m[0] + 3 * m[1]) / 4 + (2 * m[2] + 1 * m[3]) / 3) / 2
    assert class_balanced_mean(m, labels, 2, weights=w) == pytest.approx(expected)
    np.testing.assert_array_equal(vote_margins(labels, neighbors, 2, np.ones(4)),
                                  vote_margins(labels, neighbors, 2))


@pytest.mark.parametrize("repeats", [2, 3, 5])
def test_repeating_every_row_changes_nothing(repeats):
    X, _ = _blobs(n=300, centers=3, seed=4)
    once = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    many = MaxMarginClustering(n_clusters="auto", random_state=0).fit(
        np.repeat(X, repeats, axis=0))
    assert many.n_clusters_ == once.n_clusters_
    np.testing.assert_array_equal(many.labels_[::repeats], once.labels_)
    assert [r[:2] for r in many.k_scores_] == [r[:2] for r in once.k_scores_]
    tiled = MaxMarginClustering(n_clusters="auto", random_state=0).fit(np.tile(X, (repeats, 1)))
    np.testing.assert_array_equal(tiled.labels_[:len(X)], once.labels_)


def test_integer_weights_are_repeated_rows():
    X, _ = _blobs(n=240, centers=3, seed=5)
    w = np.random.RandomState(0).randint(1, 4, len(X))
    weighted = MaxMarginClustering(n_clusters=3, random_state=0).fit(X, sample_weight=w)
    repeated = MaxMarginClustering(n_clusters=3, random_state=0).fit(np.repeat(X, w, axis=0))
    np.testing.assert_array_equal(np.repeat(weighted.labels_, w), repeated.labels_)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


def test_rows_of_weight_zero_are_left_out_and_labelled_by_the_classifier():
    X, _ = _blobs(n=300, centers=3, seed=6)
    w = np.ones(len(X))
    w[::7] = 0.0
    est = MaxMarginClustering(n_clusters=3, random_state=0).fit(X, sample_weight=w)
    without = MaxMarginClustering(n_clusters=3, random_state=0).fit(X[w > 0])
    np.testing.assert_array_equal(est.labels_[w > 0], without.labels_)
    np.testing.assert_array_equal(est.labels_[w == 0], est.predict(X[w == 0]))


@pytest.mark.parametrize(("weights", "match"), [
    (-np.ones(50), "negative|non-negative"),
    (np.r_[np.nan, np.ones(49)], "finite|NaN"),
    (np.ones(49), "shape|length|samples"),
    (np.zeros(50), "zero|positive"),
])
def test_bad_sample_weight_is_a_clear_error(weights, match):
    X, _ = _blobs(n=50, centers=2, seed=7)
    with pytest.raises(ValueError, match=match):
        MaxMarginClustering(random_state=0).fit(X, sample_weight=weights)


def test_pairs_on_copies():
    X = np.r_[_blobs(n=60, centers=2, seed=8)[0], _blobs(n=60, centers=2, seed=8)[0]]
    with pytest.raises(ValueError, match="identical rows"):
        MaxMarginClustering(random_state=0).fit(X, cannot_link=[[0, 60]])
    est = MaxMarginClustering(random_state=0).fit(X, must_link=[[0, 60], [0, 1]])
    assert est.labels_[0] == est.labels_[60] == est.labels_[1]


def test_auto_is_deterministic():
    X, _ = _blobs(n=300, centers=3, seed=9)
    a = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    b = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    # the same seeds, the same operations: every row equal (NaN where no pair was tested)
    np.testing.assert_array_equal(np.array(a.k_scores_, dtype=float),
                                  np.array(b.k_scores_, dtype=float))


# ------------------------------------------------------------- sparse, score
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_is_the_dense_fit(fmt):
    import scipy.sparse as sp

    X, _ = _blobs(n=200, centers=3, seed=10)
    X = np.where(np.abs(X) < 2.0, 0.0, X)  # some zeros to store sparsely
    dense = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    sparse = MaxMarginClustering(n_clusters="auto", random_state=0).fit(
        sp.csr_matrix(X).asformat(fmt))
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))
    soft = MaxMarginClustering(n_clusters=3, probability=True, random_state=0)
    P = soft.fit(sp.csr_matrix(X).asformat(fmt)).predict_proba(sp.csr_matrix(X))
    np.testing.assert_allclose(P, soft.predict_proba(X))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_score_is_the_voting_margin_of_the_predicted_partition():
    X, _ = _blobs(n=300, centers=3, seed=11)
    est = MaxMarginClustering(n_clusters=3, random_state=0).fit(X)
    Z = (X - est._mean) * est._scale
    assert est.score(X) == pytest.approx(partition_margin(Z, est.predict(X), 3))
    assert -1.0 <= est.score(X) <= 1.0
    # the working frame: the same score at another scale and offset
    assert est.score(X) == pytest.approx(
        MaxMarginClustering(n_clusters=3, random_state=0).fit(X * 1e4 + 7).score(X * 1e4 + 7))
    small = MaxMarginClustering(n_clusters=3, max_samples=100, random_state=0).fit(X)
    assert -1.0 <= small.score(X) <= 1.0  # on a seeded subset of 100 rows
    with pytest.raises(ValueError, match="at least two rows"):
        est.score(X[:1])

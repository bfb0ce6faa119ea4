"""Label-based metrics: hand-worked values, scikit-learn agreement, properties."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from marginclust.metrics import (
    adjusted_rand_index,
    clustering_accuracy,
    normalized_mutual_info,
    rand_index,
    v_measure,
)

LABEL_METRICS = [clustering_accuracy, rand_index, adjusted_rand_index, normalized_mutual_info,
                 v_measure]


# ------------------------------------------------------------- hand-worked
def test_accuracy_hand_worked_hungarian_vs_majority():
    # classes 0,0,0,1,1,1 ; clusters a,a,b,b,b,c
    # contingency: class0 -> a:2 b:1 ; class1 -> b:2 c:1
    y = [0, 0, 0, 1, 1, 1]
    lab = ["a", "a", "b", "b", "b", "c"]
    # majority: a->0 (2), b->1 (2), c->1 (1) => 5/6
    assert clustering_accuracy(y, lab, mapping="majority") == pytest.approx(5 / 6)
    # one-to-one: a->0 (2) + b->1 (2) = 4/6 (c unmatched)
    assert clustering_accuracy(y, lab, mapping="hungarian") == pytest.approx(4 / 6)


def test_accuracy_more_classes_than_clusters():
    y = [0, 0, 1, 1, 2, 2]
    lab = [0, 0, 0, 0, 1, 1]
    assert clustering_accuracy(y, lab) == pytest.approx(4 / 6)
    assert clustering_accuracy(y, lab, mapping="majority") == pytest.approx(4 / 6)


def test_accuracy_singletons_majority_is_one():
    y = [0, 1, 0, 1, 1]
    assert clustering_accuracy(y, np.arange(5), mapping="majority") == 1.0
    assert clustering_accuracy(y, np.arange(5), mapping="hungarian") == pytest.approx(2 / 5)


def test_rand_index_hand_worked():
    # y = [0,0,1,1], lab = [0,0,0,1]: 6 pairs.
    # pairs (0,1) same/same agree, (2,3) same/diff disagree, (0,2),(1,2) diff/same disagree,
    # (0,3),(1,3) diff/diff agree => 3/6
    assert rand_index([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(0.5)


def test_ari_hand_worked():
    # same example: index = sum C(nij,2) = C(2,2)=1 ; a = 1+1 = 2 ; b = C(3,2)=3 ; total 6
    # expected = 2*3/6 = 1 ; max = 2.5 ; ari = (1-1)/(2.5-1) = 0
    assert adjusted_rand_index([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(0.0)


def test_nmi_hand_worked():
    # independent partitions: MI = 0
    y = [0, 0, 1, 1]
    lab = [0, 1, 0, 1]
    assert normalized_mutual_info(y, lab) == pytest.approx(0.0)
    # y=[0,0,1,1], lab=[0,0,0,1]: H(y)=ln2, H(l)=-(3/4 ln 3/4 + 1/4 ln 1/4),
    # MI = H(y) - H(y|l) = ln2 - 3/4 * H(2/3,1/3)
    hy = np.log(2)
    hl = -(0.75 * np.log(0.75) + 0.25 * np.log(0.25))
    hcond = -(2 / 3 * np.log(2 / 3) + 1 / 3 * np.log(1 / 3))
    mi = hy - 0.75 * hcond
    got = normalized_mutual_info([0, 0, 1, 1], [0, 0, 0, 1], average_method="geometric")
    assert got == pytest.approx(mi / np.sqrt(hy * hl))


# ---------------------------------------------------- scikit-learn agreement
@pytest.mark.parametrize("seed", range(5))
def test_against_sklearn(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(5, 200)
    y = rng.randint(0, rng.randint(1, 6), size=n)
    lab = rng.randint(0, rng.randint(1, 8), size=n)
    assert rand_index(y, lab) == pytest.approx(skm.rand_score(y, lab))
    assert adjusted_rand_index(y, lab) == pytest.approx(skm.adjusted_rand_score(y, lab))
    for avg in ("arithmetic", "geometric", "min", "max"):
        assert normalized_mutual_info(y, lab, average_method=avg) == pytest.approx(
            skm.normalized_mutual_info_score(y, lab, average_method=avg), abs=1e-12
        )
    for beta in (0.5, 1.0, 2.0):
        assert v_measure(y, lab, beta=beta) == pytest.approx(
            skm.v_measure_score(y, lab, beta=beta), abs=1e-12
        )


def test_degenerate_cases_match_sklearn():
    for y, lab in [([0, 0, 0], [1, 1, 1]), ([0, 1, 2], [0, 1, 2]), ([0, 0, 1], [2, 2, 2]),
                   ([0, 1, 2], [0, 0, 0]), ([3], [4])]:
        assert rand_index(y, lab) == pytest.approx(skm.rand_score(y, lab))
        assert adjusted_rand_index(y, lab) == pytest.approx(skm.adjusted_rand_score(y, lab))
        assert normalized_mutual_info(y, lab) == pytest.approx(
            skm.normalized_mutual_info_score(y, lab))
        assert v_measure(y, lab) == pytest.approx(skm.v_measure_score(y, lab))


def test_hungarian_matches_brute_force():
    from itertools import permutations

    rng = np.random.RandomState(0)
    for _ in range(10):
        y = rng.randint(0, 4, size=30)
        lab = rng.randint(0, 4, size=30)
        best = max(np.mean(np.asarray(p)[lab] == y) for p in permutations(range(4)))
        assert clustering_accuracy(y, lab) == pytest.approx(best)


# -------------------------------------------------------------- properties
@pytest.mark.parametrize("metric", LABEL_METRICS)
def test_perfect_match_is_one_and_permutation_invariant(metric):
    rng = np.random.RandomState(1)
    y = rng.randint(0, 4, size=50)
    perm = np.array([2, 0, 3, 1])
    assert metric(y, perm[y]) == pytest.approx(1.0)
    lab = rng.randint(0, 3, size=50)
    relabel = np.array([7, -1, 4])
    assert metric(y, relabel[lab]) == pytest.approx(metric(y, lab))


@pytest.mark.parametrize("metric", [clustering_accuracy, rand_index, normalized_mutual_info,
                                    v_measure])
def test_bounds(metric):
    rng = np.random.RandomState(2)
    for _ in range(20):
        y = rng.randint(0, 3, size=40)
        lab = rng.randint(0, 5, size=40)
        assert 0.0 <= metric(y, lab) <= 1.0


@pytest.mark.parametrize("metric", [rand_index, adjusted_rand_index, normalized_mutual_info])
def test_symmetric(metric):
    rng = np.random.RandomState(3)
    y = rng.randint(0, 3, size=40)
    lab = rng.randint(0, 5, size=40)
    assert metric(y, lab) == pytest.approx(metric(lab, y))


def test_string_labels_accepted():
    assert clustering_accuracy(["a", "a", "b"], [5, 5, 6]) == 1.0


@pytest.mark.parametrize("metric", LABEL_METRICS)
def test_bad_input(metric):
    with pytest.raises(ValueError, match="same length"):
        metric([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="empty"):
        metric([], [])
    with pytest.raises(ValueError, match="1-D"):
        metric([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="NaN"):
        metric([0.0, np.nan], [0, 1])


def test_bad_options():
    with pytest.raises(ValueError, match="mapping"):
        clustering_accuracy([0, 1], [0, 1], mapping="best")
    with pytest.raises(ValueError, match="average_method"):
        normalized_mutual_info([0, 1], [0, 1], average_method="median")
    with pytest.raises(ValueError, match="beta"):
        v_measure([0, 1], [0, 1], beta=0)


# ------------------------------------------------- normalised clustering accuracy
def _nca_brute_force(y, lab):
    """Literal definition: every injection of classes into (padded) clusters."""
    import itertools

    classes, clusters = np.unique(y), np.unique(lab)
    k = classes.size
    cols = list(clusters) + [None] * max(0, k - clusters.size)
    best = -np.inf
    for perm in itertools.permutations(range(len(cols)), k):
        recall = [
            0.0 if cols[j] is None else np.mean(lab[y == c] == cols[j])
            for c, j in zip(classes, perm)
        ]
        best = max(best, (sum(recall) - 1) / (k - 1))
    return best


def test_nca_hand_worked():
    from marginclust.metrics import normalized_clustering_accuracy as nca

    # class sizes 4 and 2; one cluster holding everything: recalls 1 and 0 -> (1 - 1)/1
    assert nca([0, 0, 0, 0, 1, 1], [0] * 6) == 0.0
    # recalls 3/4 and 1/2: (1.25 - 1) / 1
    assert nca([0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 0]) == pytest.approx(0.25)
    # a perfect partition scores 1 whatever the class sizes and label values
    assert nca(["a", "a", "b", "c", "c", "c"], [7, 7, 2, 5, 5, 5]) == 1.0
    with pytest.raises(ValueError, match="at least two classes"):
        nca([1, 1, 1], [0, 1, 2])


@pytest.mark.parametrize("seed", range(6))
def test_nca_matches_literal_definition(seed):
    from marginclust.metrics import normalized_clustering_accuracy as nca

    rng = np.random.RandomState(seed)
    y = rng.randint(3, size=40)
    lab = rng.randint(2 + seed % 3, size=40)  # fewer, as many and more clusters
    assert nca(y, lab) == pytest.approx(_nca_brute_force(y, lab), abs=1e-12)


def test_nca_is_class_balanced_unlike_accuracy():
    from marginclust.metrics import normalized_clustering_accuracy as nca

    # a 95/5 reference: merging everything has accuracy .95 but NCA 0
    y = np.r_[np.zeros(95), np.ones(5)]
    assert clustering_accuracy(y, np.zeros(100)) == pytest.approx(0.95)
    assert nca(y, np.zeros(100)) == 0.0

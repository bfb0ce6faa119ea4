"""The margin classifier's block prediction against LIBSVM's own and its float64 evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons
from sklearn.svm import SVC

from marginclust import MaxMarginClustering
from marginclust.starts import _vote
from marginclust.starts._vote import _MAX_VOTE_CLASSES, classify
from marginclust.utils._blocks import BLOCK_ROWS


@pytest.mark.parametrize("centers", [2, 3, 6])
def test_the_one_against_one_vote_is_libsvms(centers):
    X, y = make_blobs(600, 3, centers=centers, cluster_std=2.0, random_state=centers)
    labels = np.array([3, 7, 11, 20, 21, 40])[y]  # classes that are not 0 .. K-1
    clf = SVC(C=10.0, gamma=0.3).fit(X[:300], labels[:300])
    # more rows than one block, so block edges are crossed
    Z = np.random.RandomState(0).uniform(X.min(0) - 1, X.max(0) + 1, (BLOCK_ROWS + 517, 3))
    decisions = clf.decision_function(Z)
    # no decision value within round-off of 0: the vote cannot flip by rounding
    assert np.min(np.abs(decisions)) > 1e-9
    np.testing.assert_array_equal(classify(clf, Z), clf.predict(Z))
    assert classify(clf, Z[:0]).shape == (0,)


def test_a_single_row_and_a_far_row():
    X, y = make_blobs(200, 2, centers=2, random_state=0)
    clf = SVC(gamma=1.0).fit(X, y)
    # every kernel value 0: the intercepts decide (the second row overflows float32)
    far = np.array([[1e3, -1e3], [1e39, -1e39]])
    np.testing.assert_array_equal(classify(clf, far), clf.predict(far))
    np.testing.assert_array_equal(classify(clf, X[:1]), clf.predict(X[:1]))


def test_rows_beyond_float32_are_rechecked_however_wide_the_kernel():
    X, y = make_blobs(200, 2, centers=2, random_state=0)
    clf = SVC(gamma=1e-30).fit(X, y)  # D stays below 1/2 for any float32 row
    Z = np.array([[1e20, -1e20], [1.0, 2.0]])
    _, bound = _vote._decisions32(_vote._Vote.of(clf), Z)
    assert np.isposinf(bound[0]).all() and np.isfinite(bound[1]).all()
    np.testing.assert_array_equal(classify(clf, Z), clf.predict(Z))


def _many_classes(k, gamma):
    X, y = make_blobs(12 * k, 2, centers=k, center_box=(-4 * k ** 0.5, 4 * k ** 0.5),
                      random_state=k)
    clf = SVC(C=10.0, gamma=gamma).fit(X, 2 * y + 5)  # classes that are not 0 .. K-1
    rng = np.random.RandomState(0)
    Z = np.r_[rng.uniform(X.min(0) - 1, X.max(0) + 1, (3 * 700, 2)), [[1e3, -1e3]]]
    # no decision value within round-off of 0: the vote cannot flip by rounding
    assert np.min(np.abs(clf.decision_function(Z))) > 1e-9
    return clf, Z


@pytest.mark.parametrize(("k", "gamma"), [(40, 1.0), (120, 0.5)])
def test_many_classes_vote_only_near_classes_and_is_libsvms(k, gamma, rows_passed):
    # a kernel narrow against the classes' spacing: a few classes near each row
    clf, Z = _many_classes(k, gamma)
    assert clf.classes_.size > _MAX_VOTE_CLASSES
    expected = clf.predict(Z)
    asked = rows_passed(SVC, "predict")
    np.testing.assert_array_equal(classify(clf, Z), expected)
    # LIBSVM sees only the rows within a far class's bound of a tie: few of them
    assert sum(asked) < 0.05 * Z.shape[0]
    # far=0: every class whose kernel values do not all underflow is near; far=0.3:
    # more far classes, hundreds of pairs with a small intercept computed for every
    # row, and rows near a far class's tie sent to LIBSVM: the same labels
    np.testing.assert_array_equal(_vote._many_class_labels(clf, Z, far=0.0), expected)
    del asked[:]
    np.testing.assert_array_equal(_vote._many_class_labels(clf, Z, far=0.3), expected)
    assert 0 < sum(asked) < Z.shape[0]


def test_beyond_the_pruned_votes_tables_libsvm_labels(monkeypatch, rows_passed):
    clf, Z = _many_classes(40, 1.0)
    monkeypatch.setattr(_vote, "_MAX_PRUNED_CLASSES", 39)  # its K x K tables not kept
    expected = clf.predict(Z)
    asked = rows_passed(SVC, "predict")
    np.testing.assert_array_equal(classify(clf, Z), expected)
    assert sum(asked) == Z.shape[0]
    assert classify(clf, Z[:0]).shape == (0,)


def test_many_classes_with_a_wide_kernel_are_labelled_by_libsvm(rows_passed):
    clf, Z = _many_classes(40, 0.01)  # about 80 % of the classes near a row
    expected = clf.predict(Z)
    asked = rows_passed(SVC, "predict")
    np.testing.assert_array_equal(classify(clf, Z), expected)
    assert sum(asked) == Z.shape[0]
    assert classify(clf, Z[:0]).shape == (0,)


def test_float32_exp_is_as_accurate_as_the_decision_bound_assumes():
    x = np.concatenate([np.linspace(_vote._EXP_FLOOR, 0.0, 1_000_001, dtype=np.float32),
                        np.random.RandomState(0).uniform(_vote._EXP_FLOOR, 0.0, 1_000_000)
                        .astype(np.float32)])
    exact = np.exp(x.astype(np.float64))
    assert np.max(np.abs(np.exp(x) - exact) / exact) <= _vote._EXP_ERROR


@pytest.mark.parametrize("centers", [2, 4])
def test_float32_decisions_lie_within_their_bound(centers):
    X, y = make_blobs(500, 3, centers=centers, cluster_std=1.5, random_state=centers)
    clf = SVC(C=10.0, gamma=0.5).fit(X, y)
    vote = _vote._Vote.of(clf)
    rng = np.random.RandomState(1)
    Z = np.vstack([rng.uniform(X.min(0) - 2, X.max(0) + 2, (3000, 3)), X,
                   [[1e4, 0.0, 0.0], [1e39, 0.0, 0.0]]])
    decision, bound = _vote._decisions32(vote, Z)
    exact = _vote._decisions64(vote, Z)
    # an infinite bound claims nothing (the last row's float32 decisions are NaN)
    assert np.all((np.abs(decision - exact) <= bound) | np.isposinf(bound))
    # the bound is derived for the rows near the data, and certifies most of them
    assert np.all(np.isfinite(bound[:-2]))
    assert np.mean(np.all(np.abs(decision) > bound, axis=1)) > 0.9


def _ties(vote, a, b, steps=80):
    """Rows on the segments from ``a`` to ``b`` where pair 0's float64 decision changes
    sign (bisection, to the last bit)."""
    lo, hi = a.copy(), b.copy()
    s_lo = _vote._decisions64(vote, lo)[:, 0] > 0
    for _ in range(steps):
        mid = (lo + hi) / 2
        s_mid = _vote._decisions64(vote, mid)[:, 0] > 0
        same = s_mid == s_lo
        lo[same], hi[~same] = mid[same], mid[~same]
    return lo


@pytest.mark.parametrize("centers", [2, 3])
def test_rows_at_a_tie_are_labelled_by_the_float64_evaluation(centers, rows_passed):
    X, y = make_blobs(400, 2, centers=centers, cluster_std=2.0, random_state=3)
    clf = SVC(C=10.0, gamma=0.5).fit(X, y)
    vote = _vote._Vote.of(clf)
    a, b = X[y == 0][:25], X[y == 1][:25]
    exact_a, exact_b = _vote._decisions64(vote, a)[:, 0], _vote._decisions64(vote, b)[:, 0]
    keep = (exact_a > 0) != (exact_b > 0)
    Z = _ties(vote, a[keep], b[keep])
    assert Z.shape[0] >= 5
    exact = _vote._decisions64(vote, Z)
    assert np.max(np.abs(exact[:, 0])) < 1e-9  # pair 0 (classes 0 and 1) at a tie
    decision, bound = _vote._decisions32(vote, Z)
    assert np.all(np.isfinite(bound))  # the rows lie where the bound is derived,
    assert np.all(np.abs(decision[:, 0]) <= bound[:, 0])  # and float32 cannot decide them
    rechecked = rows_passed(_vote, "_decisions64")
    labels = classify(clf, Z)
    assert rechecked == [Z.shape[0]]
    # the same operations on the same rows: the float64 evaluation's labels, bit for bit
    winners = _vote._winners(exact > 0.0, vote.pairs, vote.n_classes)
    np.testing.assert_array_equal(labels, clf.classes_[winners])


def test_the_estimators_classifier_labels_as_the_float64_evaluation():
    X, _ = make_moons(3000, noise=0.05, random_state=0)
    est = MaxMarginClustering(2, random_state=0).fit(X)
    clf = est.classifier_
    vote = _vote._Vote.of(clf)
    Z = est._to_frame(make_moons(20_000, noise=0.05, random_state=1)[0])
    exact = _vote._decisions64(vote, Z)
    assert np.min(np.abs(exact)) > 1e-9  # no rounding can flip a float64 decision
    expected = clf.classes_[_vote._winners(exact > 0.0, vote.pairs, vote.n_classes)]
    np.testing.assert_array_equal(classify(clf, Z), expected)
    np.testing.assert_array_equal(est.predict(make_moons(20_000, noise=0.05, random_state=1)[0]),
                                  expected)

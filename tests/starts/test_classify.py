"""The margin classifier's block prediction against LIBSVM's own."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from marginclust.starts._margin_search import _MAX_VOTE_CLASSES, classify
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
    far = np.array([[1e3, -1e3]])  # every kernel value 0: the intercepts decide
    np.testing.assert_array_equal(classify(clf, far), clf.predict(far))
    np.testing.assert_array_equal(classify(clf, X[:1]), clf.predict(X[:1]))


def test_many_classes_are_labelled_by_libsvm_itself():
    X, y = make_blobs(40 * 12, 2, centers=40, cluster_std=0.3, random_state=0)
    clf = SVC(C=10.0, gamma=1.0).fit(X, y)
    assert clf.classes_.size > _MAX_VOTE_CLASSES
    np.testing.assert_array_equal(classify(clf, X), clf.predict(X))

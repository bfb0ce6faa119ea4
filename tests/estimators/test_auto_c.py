"""C="auto" of BMMC and CPMMC: one fit per tried C, the partition of larger voting margin kept."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_blobs
from sklearn.preprocessing import StandardScaler

from marginclust import BMMC, CPMMC
from marginclust.estimators._linear_mmc import AUTO_C
from marginclust.exceptions import ConvergenceWarning
from marginclust.metrics import clustering_accuracy
from marginclust.starts import partition_margin
from marginclust.utils._blocks import sample_row_indices

ESTIMATORS = [BMMC, CPMMC]


def _iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _fixed(cls, X, k, c, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(k, C=c, random_state=0, **params).fit(X)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("data", ["iris", "blobs"])
def test_auto_keeps_the_fit_of_larger_voting_margin(cls, data):
    """Each tried C is the fit at that C (same seeds, same operations: bitwise), scored
    by the voting margin of its labels; the kept one has the larger score, C=10 on a tie."""
    if data == "iris":
        X, _ = _iris()
        k = 3
    else:
        X, _ = make_blobs(400, 3, centers=4, cluster_std=0.5, random_state=0)
        k = 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = cls(k, random_state=0).fit(X)
    fits = {c: _fixed(cls, X, k, c) for c in AUTO_C}
    scores = {c: partition_margin(X, f.labels_, k) for c, f in fits.items()}
    assert auto.C_scores_ == scores
    best = max(AUTO_C, key=lambda c: (scores[c], c == AUTO_C[0]))
    assert auto.C_ == best
    kept = fits[best]
    np.testing.assert_array_equal(auto.labels_, kept.labels_)
    np.testing.assert_array_equal(auto.coef_, kept.coef_)
    assert auto.objective_ == kept.objective_
    assert auto.C == "auto"  # the parameter is stored unchanged
    # score() is the objective at the kept C
    np.testing.assert_allclose(auto.score(X), kept.score(X), rtol=0, atol=0)


def test_auto_chooses_each_value_on_its_data():
    """Not a fixed C: four separated blobs keep C=10 (at C=1 two of them merge),
    standardised iris takes C=1, whose partition keeps setosa apart better."""
    X, y = make_blobs(1000, 3, centers=4, cluster_std=0.5, random_state=0)
    blobs = BMMC(4, random_state=0).fit(X)
    assert blobs.C_ == 10.0 and clustering_accuracy(y, blobs.labels_) >= 0.99
    assert clustering_accuracy(y, _fixed(BMMC, X, 4, 1.0).labels_) < 0.9
    X, _ = _iris()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iris = BMMC(3, random_state=0).fit(X)
    assert iris.C_ == 1.0
    assert iris.C_scores_[1.0] > iris.C_scores_[10.0]


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_auto_judges_a_sample_beyond_two_thousand_rows(cls):
    """Above 2,000 rows the partitions are judged on the rows sample_row_indices draws."""
    X, _ = make_blobs(2600, 2, centers=3, cluster_std=1.5, random_state=1)
    auto = cls(3, random_state=0).fit(X)
    idx = sample_row_indices(X.shape[0], 2000, np.random.RandomState(0))
    for c in AUTO_C:
        f = _fixed(cls, X, 3, c)
        assert auto.C_scores_[c] == partition_margin(X[idx], f.labels_[idx], 3)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_auto_with_pairs_fits_once_at_ten(cls):
    """The judge knows nothing of must-link / cannot-link pairs: with them, C=10."""
    X, _ = _iris()
    ml, cl = [[0, 1], [60, 61]], [[0, 60]]
    auto = cls(3, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    ten = cls(3, C=10.0, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    assert auto.C_ == 10.0 and not hasattr(auto, "C_scores_")
    np.testing.assert_array_equal(auto.labels_, ten.labels_)
    # a refit without the judge leaves no scores of a former fit behind
    refit = cls(3, random_state=0).fit(X)
    assert set(refit.C_scores_) == set(AUTO_C)
    refit.fit(X, must_link=ml, cannot_link=cl)
    assert not hasattr(refit, "C_scores_")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_auto_with_one_cluster_fits_once_at_ten(cls):
    """One cluster: nothing to judge, one fit (the trivial partition) at C=10."""
    X, _ = _iris()
    est = cls(1).fit(X)
    assert est.C_ == 10.0 and not hasattr(est, "C_scores_")
    assert est.n_clusters_found_ == 1 and not est.labels_.any()


@pytest.mark.parametrize("cls, stop", [(BMMC, "max_iter"), (CPMMC, "cccp_max_iter")])
def test_auto_reports_only_the_kept_fits_warnings(cls, stop):
    """Every fit stops at one CCCP iteration here; the user hears it once, from the kept fit."""
    X, _ = _iris()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = cls(3, random_state=0, **{stop: 1}).fit(X)
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    with warnings.catch_warnings(record=True) as alone:
        warnings.simplefilter("always")
        cls(3, C=auto.C_, random_state=0, **{stop: 1}).fit(X)
    assert [str(w.message) for w in conv] == [
        str(w.message) for w in alone if issubclass(w.category, ConvergenceWarning)
    ]
    assert conv  # the premise: the kept fit warns


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("bad", ["Auto", "scale", -1.0, 0.0, np.inf, np.nan, True, [1.0]])
def test_bad_C_is_a_clear_error(cls, bad):
    X, _ = _iris()
    with pytest.raises(ValueError, match="C must be"):
        cls(3, C=bad).fit(X)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_auto_is_deterministic_and_predicts_out_of_sample(cls):
    X, y = make_blobs(600, 3, centers=4, cluster_std=0.5, random_state=2)
    a = cls(4, random_state=3).fit(X[:500])
    b = cls(4, random_state=3).fit(X[:500])
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.C_scores_ == b.C_scores_
    # held-out rows of the same blobs: the fitted clusters, up to the numbering
    assert clustering_accuracy(y[500:], a.predict(X[500:])) >= 0.99


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_auto_keeps_the_fit_that_ended_when_the_other_empties_a_cluster(cls, monkeypatch):
    """A C whose every restart empties a cluster (EmptyClusterError) is left out; when
    every C does, the error reaches the user."""
    from marginclust.exceptions import EmptyClusterError

    X, _ = _iris()
    fit_one = cls._fit_one

    def failing_at(bad):
        def patched(self, context, random_state):
            if self.C in bad:  # the clone fitted at each C
                raise EmptyClusterError("a cluster emptied")
            return fit_one(self, context, random_state)
        return patched

    monkeypatch.setattr(cls, "_fit_one", failing_at({1.0}))
    est = cls(3, random_state=0).fit(X)
    assert est.C_ == 10.0 and list(est.C_scores_) == [10.0]
    np.testing.assert_array_equal(est.labels_, _fixed(cls, X, 3, 10.0).labels_)
    monkeypatch.setattr(cls, "_fit_one", failing_at(set(AUTO_C)))
    with pytest.raises(EmptyClusterError, match="Every restart"):
        cls(3, random_state=0).fit(X)

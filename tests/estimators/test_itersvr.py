"""IterSVR / IterSVM baselines: recovery, balance, objective bookkeeping, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import rbf_kernel

from marginclust import IterSVM, IterSVR
from marginclust.exceptions import ConvergenceWarning


def _two_blobs(n=80, seed=0, sizes=None):
    return make_blobs(
        n_samples=sizes or n, centers=[[-4, 0], [4, 0]], cluster_std=1.0, random_state=seed
    )


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("init", ["k-means", "random"])
def test_recovers_two_blobs(global_random_seed, cls, kernel, init):
    X, y = _two_blobs(seed=global_random_seed)
    est = cls(kernel=kernel, C=1.0, init=init, random_state=global_random_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    if init == "k-means" or cls is IterSVR:
        assert adjusted_rand_score(y, est.labels_) == 1.0
    counts = np.bincount(est.labels_, minlength=2)
    assert abs(counts[0] - counts[1]) <= est.balance_
    np.testing.assert_array_equal(est.predict(X) == 1, est.decision_function(X) > 0)


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_balance_holds_on_imbalanced_data(cls):
    X, _ = _two_blobs(sizes=[70, 30])
    est = cls(C=1.0, balance=0.1, random_state=0).fit(X)
    counts = np.bincount(est.labels_, minlength=2)
    assert est.balance_ == 10 and abs(counts[0] - counts[1]) <= 10


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_objective_matches_primal_value(cls):
    """objective_ = 1/2 ||w||^2 + C * loss, with ||w||^2 recomputed from the kernel."""
    X, _ = _two_blobs(n=60, seed=1)
    est = cls(C=2.0, gamma=0.3, random_state=0).fit(X)
    m = est.model_
    a = m.dual_coef_.ravel()
    # the model sees X centred and divided by x_scale_: gamma 0.3 in X's units
    assert m.gamma == pytest.approx(0.3 * est.x_scale_**2)
    sv = X[m.support_]
    w2 = a @ rbf_kernel(sv, sv, gamma=0.3) @ a
    y = np.where(est.labels_ == 1, 1.0, -1.0)
    f = est.decision_function(X)
    loss = (
        np.maximum(np.abs(f - y) - est.epsilon, 0).sum()
        if cls is IterSVR
        else np.maximum(1 - y * f, 0).sum()
    )
    assert est.converged_
    assert est.objective_ == pytest.approx(0.5 * w2 + 2.0 * loss, rel=1e-6)


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_determinism(cls):
    X, _ = _two_blobs(n=60, seed=2)
    X = X + np.random.RandomState(0).randn(*X.shape) * 2
    a = cls(random_state=3, init="random").fit(X)
    b = cls(random_state=3, init="random").fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.n_iter_ == b.n_iter_


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_single_class_init_is_repaired(cls):
    X, y = _two_blobs(n=40)
    est = cls(init=np.zeros(40, dtype=int), random_state=0).fit(X)
    assert np.unique(est.labels_).size == 2


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_clusters": 3}, "binary"),
        ({"balance": 0}, "cannot be met"),  # 41 samples
        ({"balance": 2.0}, "balance"),
        ({"kernel": "poly"}, "kernel"),
        ({"C": -1.0}, "C must"),
        ({"init": "kmeans-elm"}, "init"),
        ({"init": np.full(41, 2)}, "init"),
        ({"max_iter": 0}, "max_iter"),
    ],
)
def test_bad_parameters(cls, params, match):
    X = np.random.RandomState(0).randn(41, 2)
    with pytest.raises(ValueError, match=match):
        cls(**params).fit(X)


def test_bad_epsilon():
    with pytest.raises(ValueError, match="epsilon"):
        IterSVR(epsilon=-0.1).fit(np.random.RandomState(0).randn(10, 2))


# ------------------------------------------------------------------ pinned cases
def _issue_blobs():
    """The pinned example of the property suite."""
    return make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0)


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("transform", ["offset", "1e-3", "1e3", "small", "large"])
@pytest.mark.timeout(60)
def test_offsets_and_scales_give_the_labels_of_X(cls, kernel, transform):
    """X + 1e10 used to fail in libsvm ("dual coefficients ... not finite"), linear IterSVM
    hung on X * 1e150; the models now see X centred and divided by one global scale."""
    X, _ = _issue_blobs()
    Xt = {
        "offset": X + 1e10,
        "1e-3": X * 1e-3,
        "1e3": X * 1e3,
        "small": X * 1e-150,
        "large": X * 1e150,
    }[transform]
    ref = cls(kernel=kernel, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(kernel=kernel, random_state=0).fit(Xt)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_array_equal(est.predict(Xt), ref.predict(X))
    assert np.all(np.isfinite(est.objective_history_))


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_set_params_refit_on_other_data(cls):
    """IterSVM(C=1e-3) refit on other data failed with "number of classes has to
    be greater than one" (the relabelling put every sample on one side): the repair now
    never leaves a cluster empty."""
    X, _ = _issue_blobs()
    est = cls(random_state=0).fit(X)
    other = np.random.RandomState(1).randn(30, 3)
    for params in [{"C": 1e-3}, {"balance": 1.0}, {"C": 1e-3, "balance": 1.0}]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.set_params(**params).fit(other)
        assert np.bincount(est.labels_, minlength=2).min() >= 1


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_balance_moved_names_the_rows_predict_disagrees_on(cls):
    """labels_ are balanced, predict applies the sign rule; balance_moved_ says where."""
    X, _ = _two_blobs(sizes=[70, 30])
    est = cls(C=1.0, balance=0.03, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    moved = np.flatnonzero(est.predict(X) != est.labels_)
    assert moved.size > 0
    np.testing.assert_array_equal(est.balance_moved_, moved)


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_init_alias_and_verbose(cls, capsys):
    X, _ = _issue_blobs()
    a = cls(init="k-means", random_state=0).fit(X)
    with pytest.warns(FutureWarning, match="k-means"):
        b = cls(init="kmeans", random_state=0).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert capsys.readouterr().err == ""
    cls(verbose=1, random_state=0).fit(X)
    assert f"{cls.__name__} iteration 1: objective" in capsys.readouterr().err


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_infeasible_start_is_repaired_before_the_history(cls):
    X, _ = _issue_blobs()
    init = np.zeros(40, dtype=int)
    init[:3] = 1
    est = cls(init=init, random_state=0).fit(X)
    np.testing.assert_array_equal(est.init_labels_, init)
    assert abs(np.diff(np.bincount(est.labels_))[0]) <= est.balance_


@pytest.mark.parametrize("cls", [IterSVR, IterSVM])
def test_score_is_minus_the_objective_when_nothing_moved(cls):
    X, _ = _issue_blobs()
    est = cls(random_state=0).fit(X)
    assert est.balance_moved_.size == 0 and est.converged_
    assert est.score(X) == pytest.approx(-est.objective_, rel=1e-8)

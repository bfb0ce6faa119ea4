"""PKM estimator: API, K-means fixed point, solvers, initialisations, bad input, determinism."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from marginclust.estimators._pkm import PKM
from marginclust.exceptions import ConvergenceWarning
from marginclust.objectives._pkm import PKMObjective, kkt_violation


@pytest.fixture
def blobs(global_random_seed):
    centers = [[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]]
    return make_blobs(
        n_samples=90, centers=centers, cluster_std=1.0, random_state=global_random_seed
    )


@pytest.mark.parametrize("solver", ["block", "fmsagp", "msagp", "agp"])
def test_fitted_attributes_and_kmeans_fixed_point(blobs, solver):
    X, y = blobs
    # the faithful solvers from a soft start (from the default hard start they may have
    # nothing to do), the block solver from its default hard start (Lloyd steps)
    init = "k-means++" if solver == "block" else "k-means++-soft"
    est = PKM(3, solver=solver, step=0.1, init=init, random_state=0).fit(X)
    P, C = est.memberships_, est.cluster_centers_
    assert est.converged_
    assert P.shape == (90, 3) and C.shape == (3, 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert set(np.unique(P)) <= {0.0, 1.0}  # a converged PKM point is a hard partition
    np.testing.assert_allclose(C, (P.T @ X) / P.sum(axis=0)[:, None], rtol=1e-10)
    # ... in which every point sits in its nearest centre: a K-means fixed point.
    D = ((X[:, None, :] - C[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(est.labels_, np.argmin(D, axis=1))
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.objective_ == pytest.approx(float(np.min(D, axis=1).sum()), rel=1e-10)
    assert est.objective_history_.shape == (est.n_iter_,)
    assert np.all(np.diff(est.objective_history_) <= 1e-12 * est.objective_history_[0])
    obj = PKMObjective(X)
    assert kkt_violation(P, obj.grad(P)) <= 1e-9 * obj.scale
    assert isinstance(est.n_released_, int) and est.n_released_ >= 0


def test_faithful_iteration_count_and_agreement():
    # From a soft start, MSAGP and FMSAGP give the same run: n (K - 1) + released steps.
    X, _ = make_blobs(n_samples=60, centers=3, cluster_std=2.0, random_state=1)
    a = PKM(3, solver="msagp", init="dirichlet", random_state=3).fit(X)
    b = PKM(3, solver="fmsagp", init="dirichlet", random_state=3).fit(X)
    assert a.n_iter_ == b.n_iter_ == 60 * 2 + a.n_released_
    np.testing.assert_allclose(a.memberships_, b.memberships_, atol=1e-12)


def test_predict_proba_is_one_hot_nearest_centre(blobs):
    X, _ = blobs
    est = PKM(3, random_state=0).fit(X)
    rng = np.random.RandomState(0)
    Xn = rng.uniform(X.min(0), X.max(0), size=(25, 2))
    U = est.predict_proba(Xn)
    lab = est.predict(Xn)
    assert U.shape == (25, 3)
    np.testing.assert_array_equal(U.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(U, axis=1), lab)
    assert set(np.unique(U)) <= {0.0, 1.0}
    D = ((Xn[:, None, :] - est.cluster_centers_[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(lab, np.argmin(D, axis=1))


def test_matches_lloyd_from_the_same_hard_start(blobs):
    # From a hard start the block solver's iterations are Lloyd's steps.
    X, _ = blobs
    km = KMeans(3, n_init=1, random_state=5).fit(X)
    init = np.eye(3)[KMeans(3, n_init=1, max_iter=1, random_state=5).fit(X).labels_]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = PKM(3, init=init).fit(X)
    assert adjusted_rand_score(km.labels_, est.labels_) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "init", ["k-means++", "k-means++-soft", "dirichlet", "uniform-perturbed"]
)
def test_initialisations_and_determinism(blobs, init):
    X, _ = blobs
    a = PKM(3, init=init, n_init=2, random_state=11).fit(X)
    b = PKM(3, init=init, n_init=2, random_state=11).fit(X)
    np.testing.assert_array_equal(a.memberships_, b.memberships_)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.n_iter_ == b.n_iter_ and a.objective_ == b.objective_


def test_n_init_keeps_lowest_objective():
    # The first restart of n_init=6 is the only restart of n_init=1 (same seed stream).
    X, _ = make_blobs(n_samples=120, centers=6, cluster_std=1.5, random_state=0)
    single = PKM(6, init="dirichlet", n_init=1, random_state=0).fit(X)
    best = PKM(6, init="dirichlet", n_init=6, random_state=0).fit(X)
    assert best.objective_ <= single.objective_


def test_array_init_is_used(blobs):
    X, y = blobs
    init = np.eye(3)[y] * 0.9 + 0.1 / 3
    est = PKM(3, init=init, solver="msagp").fit(X)
    assert est.converged_ and est.n_iter_ >= 90 * 2  # soft start: n (K - 1) hits at least
    assert adjusted_rand_score(y, est.labels_) > 0.9


def test_float32_and_one_cluster(blobs):
    X, _ = blobs
    est = PKM(3, random_state=0).fit(X.astype(np.float32))
    assert est.cluster_centers_.dtype == np.float32
    assert est.memberships_.shape == (90, 3)
    one = PKM(1).fit(X)
    # the first assignment to the seed counts as an iteration, as in KMeans
    assert one.n_iter_ == 1 and np.all(one.labels_ == 0)
    np.testing.assert_allclose(one.cluster_centers_[0], X.mean(axis=0))


def test_max_iter_warns_with_advice(blobs):
    X, _ = blobs
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        est = PKM(
            3, solver="msagp", init="k-means++-soft", max_iter=5, random_state=0
        ).fit(X)
    assert est.n_iter_ == 5 and not est.converged_
    with pytest.warns(ConvergenceWarning, match="solver='block'"):
        PKM(3, solver="msagp", init="k-means++-soft", max_iter=5, random_state=0).fit(X)


def test_faithful_solver_warns_on_large_data():
    rng = np.random.RandomState(0)
    X = rng.randn(2500, 2)
    with pytest.warns(UserWarning, match="solver='block'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            PKM(2, solver="msagp", max_iter=2, random_state=0).fit(X)


def test_default_max_iter_scales_with_n_and_k(blobs):
    X, _ = blobs
    for solver, expected in [("block", 300), ("msagp", 10 * 90 * 3), ("agp", 500 * 90 * 3)]:
        est = PKM(3, solver=solver, random_state=0).fit(X)
        assert est._max_iter == expected


@pytest.mark.parametrize(
    "params, match",
    [
        ({"solver": "newton"}, "solver must be one of"),
        ({"step": 0.0}, "step must be > 0"),
        ({"step": "big"}, "step must be a real number"),
        ({"tol": -1.0}, "tol must be >= 0"),
        ({"max_iter": 0}, "max_iter must be a positive integer"),
        ({"max_iter": 2.5}, "max_iter must be a positive integer"),
        ({"init": "random"}, "init must be one of|init must be"),
        ({"init": np.ones((5, 3)) / 3}, "shape"),
        ({"init": np.tile([1.0, 0.0, 0.0], (90, 1))}, "zero total membership"),
        ({"n_init": 0}, "n_init must be a positive integer"),
        ({"n_clusters": 200}, "larger than n_samples"),
    ],
)
def test_bad_parameters(blobs, params, match):
    X, _ = blobs
    with pytest.raises(ValueError, match=match):
        PKM(**{"n_clusters": 3, **params}).fit(X)


def test_bad_data():
    with pytest.raises(ValueError, match="NaN|infinity"):
        PKM(2).fit(np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, 4.0]]))
    with pytest.raises(ValueError, match="identical"):
        PKM(2).fit(np.ones((10, 3)))
    with pytest.raises(ValueError):
        PKM(2).fit(np.array([[1.0, 2.0]]))


def test_predict_wrong_features(blobs):
    X, _ = blobs
    est = PKM(3, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((3, 5)))


def test_default_equals_kmeans_from_the_same_seeds():
    # The default (hard k-means++ start, Lloyd steps) is K-means from the same seeds.
    from sklearn.cluster import kmeans_plusplus
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    X = StandardScaler().fit_transform(load_iris().data)
    for seed in range(3):
        C0, _ = kmeans_plusplus(X, 3, random_state=seed)
        km = KMeans(3, init=C0, n_init=1, tol=0, algorithm="lloyd").fit(X)
        est = PKM(3, init=C0).fit(X)
        np.testing.assert_array_equal(est.labels_, km.labels_)
        assert est.objective_ == pytest.approx(km.inertia_, rel=1e-9)
        np.testing.assert_allclose(est.cluster_centers_, km.cluster_centers_, rtol=1e-9)


def test_soft_init_alias_warns():
    X, _ = make_blobs(30, 2, centers=2, random_state=0)
    with pytest.warns(FutureWarning, match="k-means\\+\\+-soft"):
        PKM(2, init="kmeans++-soft", random_state=0).fit(X)


def test_transform_score_and_relocation_attribute(blobs):
    X, _ = blobs
    est = PKM(3, random_state=0).fit(X)
    T = est.transform(X)
    D = np.sqrt(((X[:, None, :] - est.cluster_centers_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(T, D, rtol=1e-9, atol=1e-9)
    assert est.score(X) == pytest.approx(-est.objective_, rel=1e-9)
    assert isinstance(est.n_relocated_, int)


# X of the property suite's pinned cases
_X16 = make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0)[0]


@pytest.mark.parametrize("transform", ["offset", "tiny", "huge"])
def test_offset_and_extreme_scales_give_the_same_partition(transform):
    # regression: X + 1e9 (predict differed on 42% of rows), X * 1e-150 (NaN with
    # converged_=True), X * 1e200 (overflow warnings).
    ref = PKM(2, random_state=0).fit(_X16)
    Xt = {"offset": _X16 + 1e9, "tiny": _X16 * 1e-150, "huge": _X16 * 1e200}[transform]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if transform == "huge":  # the sum of squares (~1e400) cannot be reported
            with pytest.raises(ValueError, match="Rescale your features"):
                PKM(2, random_state=0).fit(Xt)
            return
        est = PKM(2, random_state=0).fit(Xt)
        assert np.all(np.isfinite(est.memberships_)) and np.all(np.isfinite(est.cluster_centers_))
        assert np.isfinite(est.objective_)
        assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
        np.testing.assert_array_equal(est.predict(Xt), est.labels_)


@pytest.mark.parametrize("init", ["dirichlet", "uniform-perturbed"])
def test_soft_start_that_empties_a_cluster_is_recovered(init):
    # pinned property case: the block solver from a soft start emptied a cluster on three
    # well-separated blobs (EmptyClusterError on every restart). Now the memberships are
    # hardened to the nearest live centre and Lloyd steps re-seed the empty cluster.
    X, _ = make_blobs(32, 2, centers=3, cluster_std=0.6, random_state=62501)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = PKM(3, init=init, random_state=0).fit(X)
    assert est.n_clusters_found_ == 3
    assert np.all(np.isfinite(est.cluster_centers_))
    h = est.objective_history_
    assert np.all(np.diff(h) <= 1e-12 * h[0])

"""FuzzyCMeans and KernelFuzzyCMeans: objective math, oracle, monotonicity, API."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from marginclust import FuzzyCMeans, KernelFuzzyCMeans
from marginclust.exceptions import ConvergenceWarning
from marginclust.objectives._fcm import (
    fcm_objective,
    kernel_distances,
    memberships_from_distances,
    squared_distances,
)
from tests._crosspath import fcm_memberships_rtol


def _g(sigma):
    """gamma of an RBF width sigma."""
    return 1.0 / (2.0 * sigma**2)


def _blobs(seed=0, n=60, d=3, k=3):
    rng = np.random.RandomState(seed)
    centers = rng.randn(k, d) * 4
    y = rng.randint(0, k, size=n)
    return centers[y] + rng.randn(n, d), y


# ------------------------------------------------------------------ oracle
def _literal_fcm(X, V, m, n_iter, sigma=None, w=None):
    """Slow, literal (kernel) FCM with explicit loops (Bezdek; Zhang & Chen KFCM)."""
    n, k = X.shape[0], V.shape[0]
    w = np.ones(n) if w is None else w
    V = V.astype(float).copy()

    def dist(i, j):
        d2 = float(np.sum((X[i] - V[j]) ** 2))
        return d2 if sigma is None else 2.0 * (1.0 - np.exp(-d2 / (2 * sigma**2)))

    def memberships():
        U = np.zeros((n, k))
        for i in range(n):
            for j in range(k):
                U[i, j] = 1.0 / sum(
                    (dist(i, j) / dist(i, r)) ** (1.0 / (m - 1)) for r in range(k)
                )
        return U

    U = memberships()
    for _ in range(n_iter):
        newV = np.zeros_like(V)
        for j in range(k):
            num = np.zeros(X.shape[1])
            den = 0.0
            for i in range(n):
                a = w[i] * U[i, j] ** m
                if sigma is not None:
                    a *= np.exp(-np.sum((X[i] - V[j]) ** 2) / (2 * sigma**2))
                num += a * X[i]
                den += a
            newV[j] = num / den
        V = newV
        U = memberships()
    return U, V


@pytest.mark.parametrize("m", [1.5, 2.0, 3.0])
@pytest.mark.parametrize("sigma", [None, 2.0])
def test_agrees_with_literal_oracle(m, sigma):
    X, _ = _blobs(1, n=25, d=2, k=3)
    V0 = X[[0, 5, 10]] + 0.01
    Est = FuzzyCMeans if sigma is None else KernelFuzzyCMeans
    params = {} if sigma is None else {"gamma": _g(sigma)}
    est = Est(3, m=m, init=V0, max_iter=7, tol=0.0, **params)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est.fit(X)
    U_ref, V_ref = _literal_fcm(X, V0, m, 7, sigma=sigma)
    # 7 smooth steps, each within the rounding of its distances (below 1e-12 relative
    # here, tests/_crosspath.py) of the literal loop's; far inside 1e-9
    np.testing.assert_allclose(est.cluster_centers_, V_ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(est.memberships_, U_ref, rtol=1e-9, atol=1e-12)
    assert est.n_iter_ == 7 and not est.converged_


# ------------------------------------------------------------ math checks
def test_membership_step_is_the_constrained_minimiser():
    rng = np.random.RandomState(0)
    D = rng.rand(10, 4) * 5
    for m in (1.3, 2.0, 4.0):
        U = memberships_from_distances(D, m)
        np.testing.assert_allclose(U.sum(axis=1), 1.0)
        J = fcm_objective(D, U, m)
        for _ in range(200):
            P = np.abs(U + 0.05 * rng.randn(*U.shape))
            P /= P.sum(axis=1, keepdims=True)
            assert fcm_objective(D, P, m) >= J - 1e-12
        # KKT: m u^(m-1) D is equal across clusters within a row (the multiplier)
        g = m * U ** (m - 1) * D
        np.testing.assert_allclose(g, g[:, :1].repeat(4, axis=1), rtol=1e-9)


def test_centre_step_zeroes_the_gradient():
    X, _ = _blobs(2, n=30)
    rng = np.random.RandomState(0)
    U = rng.dirichlet(np.ones(3), size=30)
    w = rng.rand(30) + 0.5
    m = 2.0
    est = FuzzyCMeans(3, m=m, init=U, max_iter=1, tol=1.0).fit(X, sample_weight=w)
    # est did one centre step from U; recompute that step and check dJ/dV = 0 there
    Wm = w[:, None] * U**m
    V = (Wm.T @ X) / Wm.sum(axis=0)[:, None]

    def J(v):
        return fcm_objective(squared_distances(X, v.reshape(3, -1)), U, m, w)

    eps = 1e-6
    grad = np.array([(J(V.ravel() + eps * e) - J(V.ravel() - eps * e)) / (2 * eps)
                     for e in np.eye(V.size)])
    assert np.max(np.abs(grad)) < 1e-5 * max(1.0, J(V.ravel()))
    np.testing.assert_allclose(est.cluster_centers_, V, rtol=1e-10)


def test_kernel_centre_step_does_not_increase_objective():
    rng = np.random.RandomState(3)
    X = rng.randn(40, 2) * 2
    for trial in range(20):
        U = rng.dirichlet(np.ones(3), size=40)
        V = rng.randn(3, 2)
        sigma = [0.3, 1.0, 5.0][trial % 3]
        J0 = fcm_objective(kernel_distances(squared_distances(X, V), sigma), U, 2.0)
        K = np.exp(-squared_distances(X, V) / (2 * sigma**2))
        A = U**2 * K
        V1 = (A.T @ X) / A.sum(axis=0)[:, None]
        J1 = fcm_objective(kernel_distances(squared_distances(X, V1), sigma), U, 2.0)
        assert J1 <= J0 + 1e-12


def test_zero_distance_rows_are_crisp_and_finite():
    D = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        U = memberships_from_distances(D, 2.0)
    np.testing.assert_allclose(U[0], [1, 0, 0])
    np.testing.assert_allclose(U[1], [0.5, 0.5, 0])
    assert np.all(np.isfinite(U))
    # a fit whose initial centres sit exactly on samples
    X, _ = _blobs(4, n=30)
    est = FuzzyCMeans(3, init=X[[0, 1, 2]].copy(), random_state=0).fit(X)
    assert np.all(np.isfinite(est.memberships_))


@pytest.mark.parametrize("m", [1.05, 1.3, 2.0, 5.0, 20.0])
def test_extreme_fuzzifiers_stay_finite(m):
    X, _ = _blobs(5, n=50)
    X[0] *= 1e3
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = FuzzyCMeans(3, m=m, random_state=0, max_iter=50, tol=1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X)
    assert np.all(np.isfinite(est.memberships_)) and np.all(np.isfinite(est.cluster_centers_))
    np.testing.assert_allclose(est.memberships_.sum(axis=1), 1.0)


# ----------------------------------------------------------- monotonicity
@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
@pytest.mark.parametrize("m", [1.2, 2.0, 3.5])
def test_objective_history_non_increasing(Est, m, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(80, 4) + rng.randint(0, 3, size=(80, 1)) * 2.0
    est = Est(4, m=m, random_state=global_random_seed, tol=1e-8, max_iter=500).fit(X)
    h = est.objective_history_
    assert h.size >= 2
    assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]))
    assert est.objective_ == h[-1]


def test_kernel_fcm_small_sigma_monotone_and_finite():
    X, _ = _blobs(6, n=60)
    est = KernelFuzzyCMeans(3, gamma=_g(0.05), random_state=0, max_iter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    assert np.all(np.isfinite(est.cluster_centers_))
    assert np.all(np.diff(est.objective_history_) <= 1e-10 * est.objective_history_[:-1])


# --------------------------------------------------------------------- API
@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_fit_labels_equal_predict_and_proba(Est):
    X, _ = _blobs(7)
    est = Est(3, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, est.predict(X))
    # the same centres through other row blocks: distances expanded in another summation
    # order, each membership within the bound this rounding allows (tests/_crosspath.py)
    rtol = fcm_memberships_rtol(X, est.cluster_centers_, getattr(est, "m_", est.m))
    np.testing.assert_allclose(est.predict_proba(X), est.memberships_, rtol=rtol)
    np.testing.assert_array_equal(est.labels_, np.argmax(est.memberships_, axis=1))
    np.testing.assert_array_equal(est.fit_predict(X), est.labels_)
    assert est.memberships_.shape == (60, 3) and est.cluster_centers_.shape == (3, 3)


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_sample_weight_equals_repeated_rows(Est):
    X, _ = _blobs(8, n=30)
    w = np.random.RandomState(0).randint(0, 4, size=30)
    V0 = X[[0, 1, 2]] + 0.1
    params = {} if Est is FuzzyCMeans else {"gamma": _g(3.0)}
    a = Est(3, init=V0, tol=1e-10, max_iter=1000, **params).fit(X, sample_weight=w)
    Xr = np.repeat(X, w, axis=0)
    b = Est(3, init=V0, tol=1e-10, max_iter=1000, **params).fit(Xr)
    # weighted and repeated sums round differently (n eps); the smooth iterations follow
    # each other to rounding and both stop within a membership change of 1e-10 of the
    # same fixed point (one extra step could move a centre by less than that)
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)
    np.testing.assert_allclose(a.predict_proba(Xr), b.memberships_, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_deterministic_under_random_state(Est):
    X, _ = _blobs(9)
    a = Est(3, random_state=5, n_init=3).fit(X)
    b = Est(3, random_state=5, n_init=3).fit(X)
    np.testing.assert_array_equal(a.memberships_, b.memberships_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_float32_preserved(Est):
    X, _ = _blobs(10)
    est = Est(3, random_state=0).fit(X.astype(np.float32))
    assert est.memberships_.dtype == np.float32
    assert est.cluster_centers_.dtype == np.float32
    assert est.predict_proba(X.astype(np.float32)).dtype == np.float32
    ref = Est(3, random_state=0).fit(X)
    np.testing.assert_allclose(est.cluster_centers_, ref.cluster_centers_, rtol=1e-3, atol=1e-3)


def test_init_memberships_and_random():
    X, y = _blobs(11)
    U0 = np.eye(3)[y] * 0.8 + 0.2 / 3
    est = FuzzyCMeans(3, init=U0).fit(X)
    assert est.converged_
    from marginclust.metrics import adjusted_rand_index

    assert adjusted_rand_index(y, est.labels_) == pytest.approx(1.0)
    r = FuzzyCMeans(3, init="random", random_state=0).fit(X)
    assert np.unique(r.labels_).size == 3


def test_n_init_keeps_lowest_objective():
    X, _ = _blobs(12, n=80, k=5)
    singles = [FuzzyCMeans(5, random_state=s, init="random").fit(X).objective_ for s in range(4)]
    best = FuzzyCMeans(5, n_init=6, random_state=0, init="random").fit(X).objective_
    assert best <= max(singles) + 1e-9


def test_iris_sanity():
    from sklearn.datasets import load_iris

    from marginclust.metrics import clustering_accuracy

    X, y = load_iris(return_X_y=True)
    est = FuzzyCMeans(3, random_state=0).fit(X)
    # FCM (m=2) on raw iris is well known to reach about 0.89 accuracy
    assert clustering_accuracy(y, est.labels_, mapping="majority") > 0.85


def test_kernel_sigma_default_is_mean_pairwise_distance():
    from scipy.spatial.distance import pdist

    X, _ = _blobs(13)
    est = KernelFuzzyCMeans(3, random_state=0).fit(X)
    assert est.sigma_ == pytest.approx(np.mean(pdist(X)))
    assert est.gamma_ == pytest.approx(_g(np.mean(pdist(X))))
    assert KernelFuzzyCMeans(3, gamma=0.7, random_state=0).fit(X).gamma_ == 0.7
    assert KernelFuzzyCMeans(3, gamma=_g(0.7), random_state=0).fit(X).sigma_ == pytest.approx(0.7)
    with pytest.raises(TypeError, match="sigma"):  # the width is given as gamma
        KernelFuzzyCMeans(3, sigma=0.7)


def test_convergence_warning():
    X, _ = _blobs(14)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        FuzzyCMeans(3, max_iter=2, tol=0, random_state=0).fit(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"m": 1.0}, "m"),
        ({"m": -2}, "m"),
        ({"m": "2"}, "m"),
        ({"tol": -1}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"init": "kmeans"}, "init"),
        ({"init": np.zeros((2, 2))}, "init"),
        ({"n_init": 0}, "n_init"),
        ({"n_clusters": 100}, "n_clusters"),
    ],
)
def test_bad_params(params, match):
    X, _ = _blobs(15)
    with pytest.raises(ValueError, match=match):
        FuzzyCMeans(**{"n_clusters": 3, **params}).fit(X)


def test_bad_init_memberships_and_sigma_and_weights():
    X, _ = _blobs(16)
    with pytest.raises(ValueError, match="sum to 1"):
        FuzzyCMeans(3, init=np.full((60, 3), 0.5)).fit(X)
    with pytest.raises(ValueError, match="gamma"):
        KernelFuzzyCMeans(3, gamma=0.0).fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        FuzzyCMeans(3).fit(X, sample_weight=-np.ones(60))
    with pytest.raises(ValueError, match="sample_weight"):
        FuzzyCMeans(3).fit(X, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match="zero"):
        FuzzyCMeans(3).fit(X, sample_weight=np.zeros(60))


@pytest.mark.parametrize("bad", [np.array([[np.nan, 1.0], [1, 2], [3, 4]]),
                                 np.array([[np.inf, 1.0], [1, 2], [3, 4]]),
                                 np.ones((5, 2))])
def test_bad_data(bad):
    with pytest.raises(ValueError):
        FuzzyCMeans(2).fit(bad)


def test_predict_wrong_features():
    X, _ = _blobs(17)
    est = FuzzyCMeans(3, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


def test_closed_form_cost_and_extreme_scales():
    rng = np.random.RandomState(21)
    for m in (1.1, 2.0, 3.0):
        D = rng.rand(20, 4) * 10
        D[0, 1] = 0.0
        U, cost = memberships_from_distances(D, m, return_cost=True)
        assert np.sum(cost) == pytest.approx(fcm_objective(D, U, m), rel=1e-12)
    # distances spanning 600 orders of magnitude: no overflow, no warning
    D = np.array([[1e-300, 1e300, 1.0], [1e300, 1e301, 1e302]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        U = memberships_from_distances(D, 1.05)
    assert np.all(np.isfinite(U))
    np.testing.assert_allclose(U.sum(axis=1), 1.0)
    assert U[0, 0] == pytest.approx(1.0)


def test_transposed_layout_matches_row_layout():
    rng = np.random.RandomState(22)
    X = rng.randn(30, 3)
    V = rng.randn(4, 3)
    D = squared_distances(X, V)
    np.testing.assert_allclose(squared_distances(X, V, transposed=True), D.T, atol=1e-12)
    D[3, 2] = 0.0
    U, c = memberships_from_distances(D, 1.7, return_cost=True)
    UT, cT = memberships_from_distances(np.ascontiguousarray(D.T), 1.7, return_cost=True,
                                        transposed=True)
    np.testing.assert_allclose(UT, U.T, rtol=1e-13)
    np.testing.assert_allclose(cT, c, rtol=1e-13)


# --------------------------------------------------- offset and scale
_X16 = __import__("sklearn.datasets", fromlist=["make_blobs"]).make_blobs(
    40, 3, centers=2, cluster_std=0.6, random_state=0
)[0]


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
@pytest.mark.parametrize("transform", ["offset", "tiny", "huge"])
def test_offset_and_extreme_scales_give_the_same_memberships(Est, transform):
    # FuzzyCMeans(2).fit(X + 1e9) gave ARI 0; X * 1e200 gave NaN with converged_=True.
    ref = Est(2, random_state=0).fit(_X16)
    Xt = {"offset": _X16 + 1e9, "tiny": _X16 * 1e-150, "huge": _X16 * 1e200}[transform]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if transform == "huge" and Est is FuzzyCMeans:  # J_m ~ 1e400: refused, with advice
            with pytest.raises(ValueError, match="Rescale your features"):
                Est(2, random_state=0).fit(Xt)
            return
        est = Est(2, random_state=0).fit(Xt)
        np.testing.assert_allclose(est.memberships_, ref.memberships_, atol=1e-6)
        np.testing.assert_array_equal(est.predict(Xt), est.labels_)
        np.testing.assert_allclose(est.predict_proba(Xt), est.memberships_, atol=1e-6)
    assert np.isfinite(est.objective_)


def test_kernel_fcm_refit_after_set_params_on_data_with_vanishing_sigma0():
    # regression: a refit after set_params on data whose mean pairwise distance is 0 in
    # float64 (here it underflows: distances ~1e-170 squared) was refused with an
    # unhelpful message. sigma0 is now computed in the rescaled frame: it fits.
    est = KernelFuzzyCMeans(2, random_state=0).fit(_X16)
    ref_labels = est.labels_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.set_params(m=2.0).fit(_X16 * 1e-170)
    np.testing.assert_array_equal(est.labels_, ref_labels)
    # truly coincident samples are refused with advice, before gamma is computed
    with pytest.raises(ValueError, match="identical"):
        est.fit(np.ones((10, 2)))


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_transform_is_memberships_and_score_is_minus_objective(Est):
    X, _ = _blobs(3)
    est = Est(3, random_state=0, tol=1e-10, max_iter=1000).fit(X)
    np.testing.assert_allclose(est.transform(X), est.predict_proba(X))
    assert est.score(X) == pytest.approx(-est.objective_, rel=1e-6)
    assert Est().n_clusters == 2


def test_one_pass_solver_float32_and_alias():
    X, _ = _blobs(4, n=500)
    a = FuzzyCMeans(3, random_state=0).fit(X)
    b = FuzzyCMeans(3, random_state=0).fit(X.astype(np.float32))
    assert b.memberships_.dtype == np.float32
    np.testing.assert_allclose(a.memberships_, b.memberships_, atol=1e-3)
    with pytest.warns(FutureWarning, match="k-means\\+\\+"):
        FuzzyCMeans(3, init="kmeans++", random_state=0).fit(X)


def test_solver_two_threads_same_memberships():
    from marginclust.objectives._fcm import FuzzyProblem
    from marginclust.solvers._fuzzy import fuzzy_alternation

    rng = np.random.RandomState(0)
    X = rng.randn(40000, 3) + rng.randint(0, 3, size=(40000, 1)) * 3.0
    X -= X.mean(axis=0)
    w = np.ones(40000)
    a = fuzzy_alternation(X, w, FuzzyProblem(2.0), centres=X[:3].copy(), max_iter=20)
    b = fuzzy_alternation(X, w, FuzzyProblem(2.0), centres=X[:3].copy(), max_iter=20,
                          n_threads=2)
    np.testing.assert_allclose(a.x[0], b.x[0], atol=1e-10)
    assert a.n_iter == b.n_iter

"""KernelKMeans (RBF, centres in data space): oracle, monotonicity, peers, API."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans

from marginclust import KernelKMeans
from marginclust.exceptions import ConvergenceWarning


def _blobs(seed=0, n=60, d=2, k=3):
    rng = np.random.RandomState(seed)
    centers = rng.randn(k, d) * 4
    y = rng.randint(0, k, size=n)
    return centers[y] + rng.randn(n, d), y


def _g(sigma):
    """gamma of an RBF width sigma."""
    return 1.0 / (2.0 * sigma**2)


def _literal(X, V, sigma, n_iter):
    """Literal loop: nearest-centre labels, kernel-weighted member means."""
    V = V.astype(float).copy()
    labels = np.array([np.argmin([np.sum((x - v) ** 2) for v in V]) for x in X])
    for _ in range(n_iter):
        for k in range(V.shape[0]):
            members = X[labels == k]
            a = np.exp(-np.sum((members - V[k]) ** 2, axis=1) / (2 * sigma**2))
            V[k] = (a[:, None] * members).sum(axis=0) / a.sum()
        labels = np.array([np.argmin([np.sum((x - v) ** 2) for v in V]) for x in X])
    return labels, V


@pytest.mark.parametrize("sigma", [0.7, 2.0, 10.0])
def test_agrees_with_literal_oracle(sigma):
    X, _ = _blobs(1, n=40)
    V0 = X[[0, 1, 2]].copy()
    est = KernelKMeans(3, gamma=_g(sigma), init=V0, max_iter=5, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        est.fit(X)
    lab, V = _literal(X, V0, sigma, 5)
    # the same 5 steps up to rounding: nearest-centre choices on continuous data are
    # ties within rounding with probability ~1e-13 each; the kernel-weighted means of
    # the same members then differ by n eps
    np.testing.assert_allclose(est.cluster_centers_, V, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(est.labels_, lab)


def test_wide_kernel_equals_lloyd_kmeans():
    X, _ = _blobs(2, n=100, k=4)
    V0 = X[[0, 10, 20, 30]].copy()
    ours = KernelKMeans(4, gamma=_g(1e5), init=V0, tol=1e-12, max_iter=100).fit(X)
    ref = KMeans(4, init=V0, n_init=1, algorithm="lloyd", tol=0, max_iter=100).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-6)


def test_objective_history_non_increasing(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = rng.randn(120, 3) + rng.randint(0, 4, size=(120, 1)) * 1.5
    for gamma in (_g(0.5), _g(1.0), "sigma0"):
        est = KernelKMeans(4, gamma=gamma, random_state=global_random_seed, tol=0,
                           max_iter=300)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X)
        h = est.objective_history_
        assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]))
        # objective equals its definition at the final state
        D2 = ((X[:, None, :] - est.cluster_centers_[None]) ** 2).sum(-1)
        J = np.sum(2 * (1 - np.exp(-D2[np.arange(120), est.labels_] / (2 * est.sigma_**2))))
        assert est.objective_ == pytest.approx(J, rel=1e-10)


def test_empty_cluster_is_relocated():
    X, _ = _blobs(3, n=60)
    V0 = np.vstack([X[[0, 1]], [[1e3, 1e3]]])  # third centre far from everything
    est = KernelKMeans(3, gamma=_g(2.0), init=V0).fit(X)
    assert np.unique(est.labels_).size == 3
    assert np.all(np.diff(est.objective_history_) <= 1e-10 * est.objective_history_[:-1])


def test_sample_weight_equals_repeated_rows():
    X, _ = _blobs(4, n=30)
    w = np.random.RandomState(1).randint(0, 4, size=30)
    V0 = X[[0, 1, 2]] + 0.1
    a = KernelKMeans(3, gamma=_g(2.0), init=V0, tol=1e-9, max_iter=500).fit(X, sample_weight=w)
    Xr = np.repeat(X, w, axis=0)
    b = KernelKMeans(3, gamma=_g(2.0), init=V0, tol=1e-9, max_iter=500).fit(Xr)
    # weighted and repeated sums round differently (n eps); both runs take the same steps
    # (no assignment or stopping decision is within rounding of its threshold) and the
    # centres, smooth in the sums, agree to rounding, far inside 1e-9
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-9)
    np.testing.assert_array_equal(a.predict(Xr), b.labels_)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)


def test_api_predict_determinism_float32():
    X, _ = _blobs(5)
    a = KernelKMeans(3, random_state=3, n_init=3).fit(X)
    b = KernelKMeans(3, random_state=3, n_init=3).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.labels_, a.predict(X))
    f = KernelKMeans(3, random_state=3).fit(X.astype(np.float32))
    assert f.cluster_centers_.dtype == np.float32
    assert not hasattr(a, "predict_proba")


def test_outlier_robust_centres():
    # one far outlier drags the K-means mean but barely moves the kernel centre
    rng = np.random.RandomState(6)
    X = np.vstack([rng.randn(50, 2), rng.randn(50, 2) + [8, 0], [[4, 40]]])
    V0 = np.array([[0.0, 0.0], [8.0, 0.0]])
    km = KernelKMeans(2, gamma=_g(2.0), init=V0).fit(X)
    lloyd = KMeans(2, init=V0, n_init=1).fit(X)
    shift_kernel = np.abs(km.cluster_centers_[:, 1]).max()
    shift_mean = np.abs(lloyd.cluster_centers_[:, 1]).max()
    assert shift_kernel < shift_mean


@pytest.mark.parametrize(
    "params, match",
    [({"gamma": -1.0}, "gamma"), ({"init": np.zeros((60, 3))}, "init"),
     ({"max_iter": 0}, "max_iter"), ({"tol": -1e-3}, "tol"), ({"init": "x"}, "init")],
)
def test_bad_params(params, match):
    X, _ = _blobs(7)
    with pytest.raises(ValueError, match=match):
        KernelKMeans(**{"n_clusters": 3, **params}).fit(X)


_X16 = __import__("sklearn.datasets", fromlist=["make_blobs"]).make_blobs(
    40, 3, centers=2, cluster_std=0.6, random_state=0
)[0]


@pytest.mark.parametrize("transform", ["offset", "tiny", "huge"])
def test_offset_and_extreme_scales_give_the_same_partition(transform):
    # regression: KernelKMeans put X + 1e9 in one cluster; X * 1e200 gave NaN.
    import warnings

    from sklearn.metrics import adjusted_rand_score

    ref = KernelKMeans(2, random_state=0).fit(_X16)
    Xt = {"offset": _X16 + 1e9, "tiny": _X16 * 1e-150, "huge": _X16 * 1e200}[transform]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = KernelKMeans(2, random_state=0).fit(Xt)
        assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
        np.testing.assert_array_equal(est.predict(Xt), est.labels_)
    assert est.objective_ == pytest.approx(ref.objective_, rel=1e-6)


def test_transform_score_and_width():
    X = _X16
    est = KernelKMeans(2, random_state=0).fit(X)
    T = est.transform(X)
    assert T.shape == (40, 2)
    np.testing.assert_array_equal(T.argmin(axis=1), est.labels_)
    assert est.score(X) == pytest.approx(-est.objective_, rel=1e-9)
    assert KernelKMeans(2, gamma=_g(2.0), random_state=0).fit(X).sigma_ == pytest.approx(2.0)
    with pytest.raises(TypeError, match="sigma"):  # the width is given as gamma
        KernelKMeans(2, sigma=2.0)


@pytest.mark.parametrize("name", ["KernelKMeans", "KernelFuzzyCMeans"])
def test_weights_near_overflow_keep_the_partition(name):
    # weights times 2**1000 count as rows repeated that often: the default width's mean
    # pairwise distance tends to its value at w times (1 - 1 / sum w), so gamma_ (the
    # inverse square of a width proportional to it) grows by (1 - 1 / sum w) ** -2, and
    # two blobs 10 sd apart keep their partition; no product of weights overflows
    import marginclust

    cls = getattr(marginclust, name)
    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(150, 2), rng.randn(150, 2) + [10.0, 0.0]]
    w = rng.randint(1, 4, 300).astype(np.float64)
    a = cls(n_clusters=2, random_state=0).fit(X, sample_weight=w)
    with np.errstate(over="raise", invalid="raise"):
        b = cls(n_clusters=2, random_state=0).fit(X, sample_weight=w * 2.0 ** 1000)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.gamma_ == pytest.approx(a.gamma_ * (1.0 - 1.0 / w.sum()) ** -2, rel=1e-9)

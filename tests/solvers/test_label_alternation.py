"""LabelAlternation: the shared relabel / repair / cycle-detection loop, on toy problems."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.solvers import LabelAlternation, kmeans_labels


class OneDimMeans:
    """k-means in one dimension with an optional minimum cluster size (a toy constraint).

    ``fit_labels``: the cluster means; ``assign``: nearest mean; ``repair``: move the
    points closest to the smallest cluster's mean until it has ``min_size`` points.
    """

    def __init__(self, x, min_size=1):
        self.x, self.min_size, self.fits = x, min_size, 0

    def fit_labels(self, t):
        self.fits += 1
        return np.array([self.x[t == k].mean() if np.any(t == k) else 0.0 for k in (0, 1)])

    def objective(self, mu, t):
        return float(np.sum((self.x - mu[t]) ** 2))

    def assign(self, mu):
        return np.argmin(np.abs(self.x[:, None] - mu), axis=1)

    def repair(self, t, mu):
        t = t.copy()
        for k in (0, 1):
            while np.sum(t == k) < self.min_size:
                others = np.flatnonzero(t != k)
                t[others[np.argmin(np.abs(self.x[others] - mu[k]))]] = k
        return t

    def is_feasible(self, t):
        return bool(np.bincount(t, minlength=2).min() >= self.min_size)


def test_converges_to_a_fixed_point_with_monotone_objective():
    rng = np.random.RandomState(0)
    x = np.r_[rng.randn(30) - 3, rng.randn(30) + 3]
    res = LabelAlternation(max_iter=50).solve(OneDimMeans(x), rng.randint(2, size=60))
    assert res.converged and res.info["stop_reason"] == "converged"
    h = res.objective_history
    assert np.all(np.diff(h) <= 1e-12)
    assert sorted(np.bincount(res.x).tolist()) == [30, 30]
    prob = OneDimMeans(x)
    mu = prob.fit_labels(res.x)
    np.testing.assert_array_equal(prob.assign(mu), res.x)
    assert res.objective == pytest.approx(prob.objective(mu, res.x))


def test_infeasible_start_is_repaired_and_not_recorded():
    x = np.r_[np.zeros(10), np.ones(10) * 5]
    prob = OneDimMeans(x, min_size=8)
    t0 = np.zeros(20, dtype=int)
    t0[:2] = 1  # cluster 1 has 2 < 8 points
    res = LabelAlternation().solve(prob, t0)
    assert res.info["start_repaired"]
    assert prob.is_feasible(res.info["start_labels"])
    # the first recorded value is at a feasible labelling
    mu = prob.fit_labels(res.info["start_labels"])
    assert res.objective_history[0] == pytest.approx(prob.objective(mu, res.info["start_labels"]))


def test_cycle_is_detected():
    class Flip(OneDimMeans):
        def assign(self, mu):
            self.i = getattr(self, "i", 0) + 1
            return np.arange(self.x.size) % 2 if self.i % 2 else (np.arange(self.x.size) + 1) % 2

    x = np.arange(10.0)
    res = LabelAlternation(max_iter=50).solve(Flip(x), (np.arange(10) + 1) % 2)
    assert res.info["stop_reason"] == "cycle" and not res.converged
    assert res.n_iter <= 3 and "earlier labeling" in res.message


def test_max_iter_and_callback_stop():
    rng = np.random.RandomState(1)
    x = rng.randn(50)
    t0 = rng.randint(2, size=50)
    res = LabelAlternation(max_iter=1).solve(OneDimMeans(x), t0)
    assert res.n_iter == 1 and res.info["stop_reason"] == "max_iter" and "max_iter" in res.message
    np.testing.assert_array_equal(res.x, t0)  # the labels the last model was fitted to
    res = LabelAlternation(max_iter=50).solve(OneDimMeans(x), t0, callback=lambda it, v: True)
    assert res.info["stop_reason"] == "callback" and res.n_iter == 1


def test_tol_counts_changed_labels():
    rng = np.random.RandomState(2)
    x = rng.randn(100)
    res = LabelAlternation(tol=1.0).solve(OneDimMeans(x), rng.randint(2, size=100))
    assert res.converged and res.n_iter == 1


def test_missing_capability_is_a_readable_error():
    class Incomplete:
        def fit_labels(self, t):
            return None

    with pytest.raises(TypeError, match="objective"):
        LabelAlternation().solve(Incomplete(), np.zeros(3, dtype=int))


def test_verbose_lines(capsys):
    x = np.r_[np.zeros(5), np.ones(5)]
    LabelAlternation(verbose=1, name="Toy").solve(OneDimMeans(x), np.arange(10) % 2)
    assert "Toy iteration 1: objective" in capsys.readouterr().err


def test_kmeans_labels_subsample_seeding_and_large_n():
    rng = np.random.RandomState(0)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    y = rng.randint(3, size=3000)
    X = centres[y] + rng.randn(3000, 2)
    from sklearn.metrics import adjusted_rand_score

    lab = kmeans_labels(X, 3, np.random.RandomState(0), seed_rows=200)
    assert adjusted_rand_score(y, lab) > 0.99
    lab = kmeans_labels(X, 3, np.random.RandomState(0), seed_rows=200, max_rows=500, block_rows=100)
    assert adjusted_rand_score(y, lab) > 0.99
    a = kmeans_labels(X, 3, np.random.RandomState(5))
    b = kmeans_labels(X, 3, np.random.RandomState(5))
    np.testing.assert_array_equal(a, b)


def test_seeding_projection_dims_and_partition_means():
    import scipy.sparse as sp

    from marginclust.solvers._label_alternation import _partition_means, seeding_dims

    # ceil(ln(K / eps) / eps^2), eps = 0.15: grows like log K, independent of n and d
    assert [seeding_dims(k) for k in (2, 10, 50)] == [116, 187, 259]
    rng = np.random.RandomState(0)
    Z = rng.randn(30, 4)
    lab = rng.randint(3, size=30)
    ref = np.array([Z[lab == j].mean(axis=0) for j in range(3)])
    np.testing.assert_allclose(_partition_means(Z, lab, 3), ref)
    np.testing.assert_allclose(_partition_means(sp.csr_matrix(Z), lab, 3), ref)
    assert _partition_means(Z.astype(np.float32), lab, 3).dtype == np.float32


@pytest.mark.parametrize("sparse", [False, True])
def test_kmeans_labels_projected_seeding_finds_the_partition(sparse):
    """Seeding on a random projection (d = 400 > 116 dims) finds what the full features find."""
    import scipy.sparse as sp
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.RandomState(1)
    k, n, d = 4, 2600, 400
    centres = rng.randn(k, d) * 0.6
    y = rng.randint(k, size=n)
    X = centres[y] + rng.randn(n, d)
    Xin = sp.csr_matrix(X) if sparse else X
    proj = kmeans_labels(Xin, k, np.random.RandomState(0))
    full = kmeans_labels(Xin, k, np.random.RandomState(0), seed_dims=None)
    assert adjusted_rand_score(y, full) > 0.99
    assert adjusted_rand_score(full, proj) > 0.99

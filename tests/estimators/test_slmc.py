"""SLMC estimator: monotone objective, exact vs low-rank, Proposition 1, API and bad input."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from marginclust.estimators import _kernel_model as kernel_model
from marginclust.estimators._slmc import SLMC
from marginclust.exceptions import ConvergenceWarning
from marginclust.objectives._slmc import objective, u_step


def _blobs(rng, n_per=20, K=3, d=2, spread=0.6):
    centers = rng.randn(K, d) * 3
    X = np.vstack([c + spread * rng.randn(n_per, d) for c in centers])
    y = np.repeat(np.arange(K), n_per)
    return X, y


def _rbf(X, Y, gamma):
    return np.exp(-gamma * cdist(X, Y, "sqeuclidean"))


def _separated_blobs(rng, n_per=20, spread=0.6):
    """Three blobs with centres on a circle of radius 4 (about 11 spreads apart), so a
    good partition exists for every seed."""
    ang = 2 * np.pi * np.arange(3) / 3
    centers = 4.0 * np.c_[np.cos(ang), np.sin(ang)]
    X = np.vstack([c + spread * rng.randn(n_per, 2) for c in centers])
    return X, np.repeat(np.arange(3), n_per)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("m,lam", [(1.5, 0.5), (2.0, 1.0), (3.0, 10.0)])
@pytest.mark.parametrize("n_components", [None, 15])
def test_objective_never_increases(rng, kernel, m, lam, n_components):
    X = rng.randn(40, 3)  # structureless data: the hardest case for monotonicity
    est = SLMC(
        3, kernel=kernel, m=m, lam=lam, init="random", n_components=n_components,
        tol=0.0, tol_memberships=0.0, max_iter=25, random_state=rng.randint(1000),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # may hit max_iter or collapse
        est.fit(X)
    h = est.objective_history_
    assert h.size >= 5
    assert np.all(np.diff(h) <= 1e-10 * np.abs(h[:-1]))


def test_final_objective_matches_attributes(rng):
    X, _ = _blobs(rng)
    est = SLMC(3, lam=2.0, gamma="scale", init="k-means", random_state=0).fit(X)
    Kmat = _rbf(X, X, est.gamma_)
    J = objective(Kmat, est.dual_coef_, est.memberships_, 2.0, 2.0)
    assert J == pytest.approx(est.objective_, rel=1e-9)
    np.testing.assert_allclose(est.decision_values_, Kmat @ est.dual_coef_, atol=1e-10)


def test_linear_low_rank_equals_exact(rng):
    X, _ = _blobs(rng, d=4)
    U0 = rng.dirichlet(np.ones(3), size=X.shape[0])
    kw = dict(kernel="linear", lam=1.5, init=U0, max_iter=30, random_state=0)
    exact = SLMC(3, **kw).fit(X)
    # linear features [x, 1] are exact; the exact W-step solves the same system as the
    # exact kernel's alpha-step (the CG step agrees to its tolerance: test_slmc_pcg.py)
    low = SLMC(3, n_components=2, w_step="exact", **kw).fit(X)
    # n x n kernel algebra and 5 features round differently (n eps relative); the smooth
    # SLMC path barely amplifies it (a relative 1e-12 change of X moved the memberships by
    # at most 5e-12 over 40 seeds, with the same stopping iteration), far below 1e-8
    np.testing.assert_allclose(low.objective_history_, exact.objective_history_, rtol=1e-8)
    np.testing.assert_allclose(low.memberships_, exact.memberships_, atol=1e-8)
    np.testing.assert_allclose(low.decision_function(X[:7]), exact.decision_function(X[:7]),
                               atol=1e-8)


def test_full_rank_nystroem_equals_exact(rng):
    X, _ = _blobs(rng, n_per=10)
    U0 = rng.dirichlet(np.ones(3), size=X.shape[0])
    kw = dict(lam=2.0, gamma="scale", init=U0, max_iter=15, random_state=0)
    exact = SLMC(3, **kw).fit(X)
    low = SLMC(3, n_components=X.shape[0], **kw).fit(X)  # every sample a landmark
    assert low.feature_map_.n_output_features_ > 0.8 * X.shape[0]
    np.testing.assert_allclose(low.objective_history_, exact.objective_history_, rtol=1e-5)
    np.testing.assert_allclose(low.memberships_, exact.memberships_, atol=1e-5)
    np.testing.assert_array_equal(low.labels_, exact.labels_)


def test_proposition1_and_out_of_sample(rng):
    X, _ = _blobs(rng)
    est = SLMC(3, lam=5.0, gamma="scale", init="k-means", random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, np.argmax(est.memberships_, axis=1))
    np.testing.assert_array_equal(est.labels_, np.argmax(est.decision_values_, axis=1))
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    Xnew = rng.randn(25, 2) * 3
    F = est.decision_function(Xnew)
    assert F.shape == (25, 3)
    P = est.predict_proba(Xnew)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P, u_step(F, 2.0))
    np.testing.assert_array_equal(est.predict(Xnew), np.argmax(P, axis=1))
    # f(x_new) = alpha k(X, x_new)
    np.testing.assert_allclose(F, _rbf(Xnew, X, est.gamma_) @ est.dual_coef_, atol=1e-10)


def test_separates_blobs_and_low_rank_close(rng):
    from sklearn.metrics import adjusted_rand_score

    X, y = _separated_blobs(rng, n_per=30)
    exact = SLMC(3, lam=5.0, gamma="scale", init="k-means", random_state=1).fit(X)
    low = SLMC(3, lam=5.0, gamma="scale", init="k-means", n_components=40,
               random_state=1).fit(X)
    rff = SLMC(3, lam=5.0, gamma="scale", init="k-means", n_components=200, low_rank="rff",
               random_state=1).fit(X)
    assert adjusted_rand_score(y, exact.labels_) > 0.9
    assert adjusted_rand_score(exact.labels_, low.labels_) > 0.9
    assert adjusted_rand_score(exact.labels_, rff.labels_) > 0.9


def test_precomputed_and_callable_kernels_match_rbf(rng):
    # The kernels agree to rounding; from a start near the true partition no update is
    # near a tie (a near-uniform start could break its symmetry either way), so the
    # smooth SLMC iterations end at the same point up to amplified rounding.
    X, y = _separated_blobs(rng, n_per=10)
    U0 = 0.5 * np.eye(3)[y] + 0.5 * rng.dirichlet(np.ones(3), size=X.shape[0])
    ref = SLMC(3, gamma=1.3, lam=2.0, init=U0).fit(X)
    pre = SLMC(3, kernel="precomputed", lam=2.0, init=U0).fit(_rbf(X, X, 1.3))
    cal = SLMC(3, kernel=lambda A, B: _rbf(A, B, 1.3), lam=2.0, init=U0).fit(X)
    for est in (pre, cal):
        np.testing.assert_allclose(est.memberships_, ref.memberships_, atol=1e-10)
    Xn = rng.randn(5, 2)
    np.testing.assert_allclose(pre.decision_function(_rbf(Xn, X, 1.3)), ref.decision_function(Xn),
                               atol=1e-10)


def test_determinism_and_restarts(rng):
    X, _ = _blobs(rng)
    kw = dict(lam=5.0, gamma="scale", init="random", n_init=3, random_state=7)
    a = SLMC(3, **kw).fit(X)
    b = SLMC(3, **kw).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.memberships_, b.memberships_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)
    # the seed reaches the start: one step from two random starts differs (a full fit
    # may forget its start and end at the same point, so it is not compared)
    one = {**kw, "n_init": 1, "max_iter": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        c7 = SLMC(3, **one).fit(X)
        c8 = SLMC(3, **{**one, "random_state": 8}).fit(X)
    assert np.abs(c7.memberships_ - c8.memberships_).max() > 0.01


def test_stopping_rule_does_not_stop_on_near_uniform_init(rng):
    # FCM at m=2 in high dimension gives memberships within 1e-5 of 1/K: J barely moves
    # in the first sweeps. The rule on U and J with min_iter must not stop there.
    X, y = _blobs(rng, n_per=30, K=2, d=5)
    U0 = 0.5 + 1e-6 * np.where(y == 0, 1.0, -1.0)[:, None] * np.array([[1.0, -1.0]])
    est = SLMC(2, lam=5.0, gamma="scale", init=U0, tol=1e-5, random_state=0).fit(X)
    assert est.converged_
    assert est.n_iter_ >= est.min_iter
    assert np.abs(est.memberships_ - 0.5).max() > 0.3


def test_max_iter_warns(rng):
    X, _ = _blobs(rng)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = SLMC(3, init="k-means", max_iter=2, random_state=0).fit(X)
    assert not est.converged_ and est.n_iter_ == 2


def test_collapse_is_detected_and_warned(rng):
    X, _ = _blobs(rng)
    # a very wide kernel and strong regularisation collapse every point into one cluster
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        est = SLMC(3, lam=0.01, gamma=1e-5, init="random", random_state=0).fit(X)
    assert np.unique(est.labels_).size < 3


def test_reseeding_stops_when_it_would_repeat_itself(rng, monkeypatch):
    # a total collapse: the split re-seed parts the one cluster, the next sweep merges it
    # again, and a second re-seed would split it the same way (up to numbering), so the
    # run from the first re-seed is continued to its end instead: three runs, one re-seed
    from marginclust.solvers._alternating import AlternatingMinimizer

    X, _ = _blobs(rng)
    runs = []
    solve = AlternatingMinimizer.solve

    def counted(self, problem, x0, **kw):
        runs.append(self.max_iter)
        return solve(self, problem, x0, **kw)

    monkeypatch.setattr(AlternatingMinimizer, "solve", counted)
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        est = SLMC(3, lam=0.01, gamma=1e-5, init="random", random_state=0).fit(X)
    assert est.n_clusters_found_ < 3
    assert est.n_reseeds_ == 1 and len(runs) == 3


@pytest.mark.parametrize("n_components", [None, 20])
def test_reseeds_share_the_sweep_budget(rng, monkeypatch, n_components):
    # every run after a re-seed gets the sweeps the earlier runs left of max_iter
    from marginclust.solvers._alternating import AlternatingMinimizer

    X, _ = _blobs(rng)
    runs = []
    solve = AlternatingMinimizer.solve

    def counted(self, problem, x0, **kw):
        res = solve(self, problem, x0, **kw)
        runs.append((self.max_iter, res.n_iter))
        return res

    monkeypatch.setattr(AlternatingMinimizer, "solve", counted)
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        SLMC(3, lam=0.01, gamma=1e-5, init="random", max_iter=40, n_components=n_components,
             random_state=0).fit(X)
    assert len(runs) >= 2
    used = 0
    for max_iter, n_iter in runs:
        assert max_iter == 40 - used
        used += n_iter
    assert used <= 40


def test_collapse_advice_names_the_start_and_the_reseeds(rng):
    """The warning says which start ran, when the alternation emptied clusters and
    what each re-seed found; standardising is advised only when the column spreads
    differ (measured, not assumed)."""
    X, _ = _blobs(rng)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # standardised: spreads within a factor 1
    for data, standardise in ((X, False), (X * [1.0, 50.0], True)):
        with pytest.warns(ConvergenceWarning, match="non-empty clusters") as rec:
            est = SLMC(3, lam=0.01, gamma=1e-5, init="random", random_state=0).fit(data)
        text = " ".join(str(w.message) for w in rec)
        assert "Tried: the start init='random' (3 of 3 clusters); the alternation from " \
               "it emptied clusters after 1 sweeps (1 left)" in text
        assert f"then {est.n_reseeds_} re-seed(s)" in text
        assert re.search(r"\(\d+ sweeps of max_iter=300\)", text)
        assert ("Standardise the features (their column" in text) is standardise
        assert ("already on one scale" in text) is not standardise


def test_verbose_announces_the_start_and_the_reseeds(rng, capsys):
    X, _ = _blobs(rng)
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        SLMC(3, lam=0.01, gamma=1e-5, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert re.search(r"SLMC start \(init='max-margin'\): the margin search for 3 clusters "
                     r"on 60 sample rows", err)
    assert re.search(r"SLMC start \(init='max-margin'\): [0-9.]+ s", err)
    assert re.search(r"SLMC alternation from the start: \d+ sweeps( \(stopped: a cluster "
                     r"emptied\))?, \d of 3 clusters", err)
    assert re.search(r"SLMC re-seed 1 of at most 3 at sweep \d+ of 300 \(\d emptied "
                     r"clusters, each given half of the cluster of the largest spread", err)
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        SLMC(3, lam=0.01, gamma=1e-5, random_state=0).fit(X)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "params,match",
    [
        ({"lam": 0.0}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"m": 1.0}, "must be > 1"),
        ({"kernel": "poly"}, "kernel"),
        ({"init": "kmeans+++"}, "init"),
        ({"gamma": -1.0}, "gamma"),
        ({"gamma": "median"}, "gamma"),
        ({"n_components": "full"}, "n_components"),
        ({"dtype": "int8"}, "dtype"),
        ({"init": np.ones((3, 3)) / 3}, "shape"),
        ({"n_components": 0}, "n_components"),
        ({"low_rank": "svd"}, "low_rank"),
        ({"max_iter": 0}, "max_iter"),
        ({"n_init": 0}, "n_init"),
    ],
)
def test_bad_parameters(rng, params, match):
    X, _ = _blobs(rng)
    with pytest.raises(ValueError, match=match):
        SLMC(3, **params).fit(X)


def test_bad_data(rng):
    X, _ = _blobs(rng)
    with pytest.raises(ValueError):
        SLMC(3).fit(np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, X))
    with pytest.raises(ValueError, match="n_clusters"):
        SLMC(100).fit(X)
    with pytest.raises(ValueError, match="square"):
        SLMC(3, kernel="precomputed").fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        SLMC(3, kernel="precomputed", n_components=5).fit(_rbf(X, X, 1.0))
    est = SLMC(3, lam=5.0, gamma="scale", init="k-means", random_state=0).fit(X)
    with pytest.raises(ValueError):
        est.predict(X[:, :1])


def test_exact_mode_refuses_too_large_data(rng):
    from marginclust import config_context
    from marginclust.exceptions import MemoryLimitError

    X, _ = _blobs(rng)
    with config_context(max_memory=1000), pytest.raises(MemoryLimitError, match="n_components"):
        SLMC(3, n_components=None).fit(X)
    low = SLMC(3, n_components=10, init="k-means", max_iter=3, random_state=0)
    with config_context(max_memory="2MB"), pytest.warns(ConvergenceWarning):
        low.fit(X)  # low-rank mode still runs


def test_fcm_initialisations(rng):
    X, y = _blobs(rng)
    for init in ("fcm", "fcm-sharp"):
        est = SLMC(3, lam=5.0, gamma="scale", init=init, random_state=0).fit(X)
        assert np.unique(est.labels_).size == 3


def test_float32_input(rng):
    X, _ = _blobs(rng)
    a = SLMC(3, lam=5.0, gamma="scale", init="k-means", random_state=0)
    a.fit(X.astype(np.float32))
    # memberships come back in the input dtype (the kernel algebra runs in float64)
    assert a.memberships_.dtype == np.float32
    proba = a.predict_proba(X.astype(np.float32))
    assert proba.dtype == np.float32 and np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    # low rank: float32 data (or dtype="float32") give float32 features, same clustering
    # (on separated blobs no label is near a tie)
    Xs, _ = _separated_blobs(rng)
    kw = dict(lam=5.0, init="k-means", n_components=30, random_state=0)
    lo64 = SLMC(3, **kw).fit(Xs)
    lo32 = SLMC(3, **kw).fit(Xs.astype(np.float32))
    asked = SLMC(3, dtype="float32", **kw).fit(Xs)
    assert lo64.feature_map_.transform(Xs).dtype == np.float64
    assert lo32.feature_map_.transform(Xs.astype(np.float32)).dtype == np.float32
    assert asked.feature_map_.transform(Xs).dtype == np.float32
    np.testing.assert_array_equal(lo32.labels_, lo64.labels_)
    # Nystroem features k(x, Z) V S^(-1/2) from float32 kernel values: the rounding eps32
    # is amplified by up to sqrt(cond) of the kept landmark Gram (its column norms are
    # 1/sqrt(s)), and J is quadratic in the features
    norms = np.linalg.norm(lo32.feature_map_.normalization_, axis=0)
    rtol = 2 * (norms.max() / norms.min()) * np.finfo(np.float32).eps
    np.testing.assert_allclose(lo32.objective_, lo64.objective_, rtol=rtol)
    np.testing.assert_array_equal(asked.predict(Xs), asked.labels_)


def test_plot_memberships_smoke(rng, tmp_path):
    pytest.importorskip("matplotlib")
    from marginclust.plotting._slmc import membership_colors, plot_slmc_cluster_numbers

    X, _ = _blobs(rng, n_per=10)
    colors = membership_colors(np.eye(3)[[0, 1, 2]], palette=np.eye(3))
    np.testing.assert_array_equal(colors, np.eye(3))
    fig = plot_slmc_cluster_numbers(X, ks=(2, 3), lam=5.0, gamma="scale", init="k-means")
    fig.savefig(tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 0


def test_harness_settings_and_standardized_wrapper(rng):
    from papers.slmc_methods import (
        PAPER_SETTINGS,
        make_slmc,
        parse_setting,
    )

    assert len(PAPER_SETTINGS) == 30
    assert parse_setting("rbf lam=5 sigma=0.5x")["lam"] == 5.0
    X, _ = _blobs(rng)
    est = make_slmc(n_clusters=3, random_state=0, setting="linear lam=0.1", init="k-means")
    assert est.kernel == "linear" and est.lam == 0.1
    wrapped = make_slmc(n_clusters=3, random_state=0, standardize=True, init="k-means").fit(X)
    Z = (X - X.mean(0)) / X.std(0)
    direct = SLMC(3, init="k-means", random_state=0).fit(Z)
    np.testing.assert_array_equal(wrapped.labels_, direct.labels_)
    np.testing.assert_array_equal(wrapped.predict(X), direct.predict(Z))


def test_alternating_driver_needs_both_criteria_and_min_iter():
    from marginclust.solvers._alternating import AlternatingMinimizer

    class Toy:  # objective frozen at 1.0 while the iterate keeps moving by 1/t
        def step(self, x):
            return x + 1, 1.0

        @staticmethod
        def change(old, new):
            return 1.0 / new

    res = AlternatingMinimizer(tol=1e-5, tol_x=0.1, min_iter=3, max_iter=50).solve(Toy(), 0)
    assert res.converged and res.n_iter == 10  # J flat from sweep 2, but x moves until 1/10
    res = AlternatingMinimizer(tol=1e-5, tol_x=10.0, min_iter=7, max_iter=50).solve(Toy(), 0)
    assert res.converged and res.n_iter == 7
    res = AlternatingMinimizer(max_iter=20).solve(Toy(), 0, callback=lambda it, v: it == 4)
    assert not res.converged and res.n_iter == 4 and "callback" in res.message


# ---------------------------------------------------------------- pinned cases
def _pinned_blobs():
    from sklearn.datasets import make_blobs

    X, y = make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0)
    return X, y


def _mixed(X):
    Z = X.copy()
    Z[:, 0] *= 1e-8
    Z[:, 1] *= 1e8
    return Z


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("n_components", [None, 10])
@pytest.mark.parametrize("case", ["offset", "mixed"])
def test_hostile_inputs_no_linalg_error(kernel, n_components, case):
    # regression: X + 1e10 and mixed 1e-8 / 1e8 columns raised LinAlgError
    from sklearn.metrics import adjusted_rand_score

    X, y = _pinned_blobs()
    Z = X + 1e10 if case == "offset" else _mixed(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = SLMC(2, kernel=kernel, n_components=n_components, random_state=0).fit(Z)
    assert np.all(np.isfinite(est.memberships_))
    np.testing.assert_array_equal(est.predict(Z), est.labels_)
    if case == "offset" and kernel == "rbf":  # centring: the offset changes nothing
        ref = SLMC(2, kernel=kernel, n_components=n_components, random_state=0).fit(X)
        assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0


def test_linear_kernel_overflowing_scale_is_a_clear_error():
    # regression: X * 1e150 with a linear kernel raised LinAlgError
    X, _ = _pinned_blobs()
    for n_components in (None, 5):
        with pytest.raises(ValueError, match="Rescale your features"):
            SLMC(2, kernel="linear", n_components=n_components).fit(X * 1e150)
    with pytest.raises(ValueError, match="Rescale your features"):
        SLMC(2).fit(X * 1e160)


@pytest.mark.parametrize("name", ["SLMC", "IterativeLSSVM"])
def test_linear_kernel_vanishing_scale_is_a_clear_error(name):
    # X * 1e-100: the linear kernel x^T y + 1 was all ones and the partition noise
    import marginclust

    X, _ = _pinned_blobs()
    cls = getattr(marginclust, name)
    for n_components in (None, 5):
        with pytest.raises(ValueError, match="keep fewer than 4 digits"):
            cls(2, kernel="linear", n_components=n_components).fit(X * 1e-100)
    # the constant still keeps most of the digits of data 1e-5 in size
    assert cls(2, kernel="linear", random_state=0).fit(X * 1e-5).labels_.shape == (len(X),)


@pytest.mark.parametrize("factor", [1e-3, 1e3, 1e-150, 1e150])
def test_defaults_are_scale_invariant(factor):
    X, y = _pinned_blobs()
    ref = SLMC(2, random_state=0).fit(X)
    est = SLMC(2, random_state=0).fit(X * factor)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_convergence_warning_names_real_parameters():
    # regression: the warning named tol_x, which is not an SLMC parameter
    X, _ = _pinned_blobs()
    with pytest.warns(ConvergenceWarning, match="tol_memberships") as rec:
        SLMC(2, init="random", max_iter=1, min_iter=1, random_state=0).fit(X)
    assert not any("tol_x" in str(w.message) for w in rec)


def test_verbose_prints_sweeps_to_stderr(capsys):
    X, _ = _pinned_blobs()
    SLMC(2, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert "SLMC sweep 1: objective" in err


def test_auto_switches_to_low_rank_above_documented_size(monkeypatch, capsys):
    X, _ = _pinned_blobs()
    monkeypatch.setattr(kernel_model, "EXACT_MAX_SAMPLES", 30)
    monkeypatch.setattr(kernel_model, "AUTO_COMPONENTS", 12)
    est = SLMC(2, random_state=0, verbose=1).fit(X)
    assert est.n_components_ == 12 and est.dual_coef_ is None
    assert "n_components='auto'" in capsys.readouterr().err
    assert SLMC(2, random_state=0).fit(X[:30]).n_components_ is None
    assert SLMC(2, n_components=None, random_state=0).fit(X).n_components_ is None


def test_removed_width_parameters_are_not_in_the_signature():
    """sigma and sigma_scale (deprecated for gamma) are gone: the signature shows only
    parameters that work, and passing one is a TypeError naming it."""
    import inspect

    X, _ = _pinned_blobs()
    params = inspect.signature(SLMC).parameters
    assert "sigma" not in params and "sigma_scale" not in params
    assert all(p.default != "deprecated" for p in params.values())
    with pytest.raises(TypeError, match="sigma"):
        SLMC(2, sigma=1.5)
    with pytest.warns(FutureWarning, match="init"):
        SLMC(2, init="kmeans", random_state=0).fit(X)


@pytest.mark.parametrize("init", ["k-means++", "k-means", "fcm", "fcm-sharp"])
def test_every_data_init_separates_blobs(init):
    from sklearn.metrics import adjusted_rand_score

    X, y = _pinned_blobs()
    est = SLMC(2, init=init, random_state=0).fit(X)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    # init="random" (Dirichlet rows) is data-blind: at lam=10 the ridge step can fit a
    # random partition, a poor local minimum (J 26-45 here against 3.46 for the blobs);
    # it is kept as an option, not a recommendation (see test_objective_never_increases).


@pytest.mark.parametrize("n_components", [None, 15])
def test_score_is_minus_objective_and_transform_is_memberships(n_components):
    X, _ = _pinned_blobs()
    est = SLMC(2, n_components=n_components, random_state=0, tol=0, tol_memberships=0,
               max_iter=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    assert est.score(X) == pytest.approx(-est.objective_, rel=1e-8)
    np.testing.assert_allclose(est.transform(X), est.predict_proba(X))
    np.testing.assert_allclose(est.transform(X), est.memberships_, atol=1e-8)


def test_label_free_grid_is_small_label_free_and_scale_relative():
    X, _ = _pinned_blobs()
    grid = SLMC(2)._label_free_grid(X)
    n_settings = int(np.prod([len(v) for v in grid.values()]))
    assert 1 < n_settings <= 12
    g1 = SLMC(2)._label_free_grid(X * 10.0)["gamma"]
    np.testing.assert_allclose(np.array(g1) * 100.0, grid["gamma"])
    # lam keeps its value on the subsets a search fits (see the lam parameter)
    assert "lam" not in SLMC._n_scaled_params


def test_low_rank_defaults_keep_ten_separated_blobs():
    """10 blobs in 20-D above the exact-kernel size (rank-500 Nystroem features): the
    defaults find all ten (the former defaults merged two at 1e5 rows)."""
    from sklearn.datasets import make_blobs

    from marginclust.metrics import clustering_accuracy

    X, y = make_blobs(5000, 20, centers=10, cluster_std=2.0, random_state=0)
    est = SLMC(10, random_state=0).fit(X)
    assert est.feature_map_ is not None and clustering_accuracy(y, est.labels_) >= 0.99


def test_final_assignment_evaluates_the_scores_once(rows_passed):
    # memberships_ and labels_ come from one evaluation of the decision values (a
    # pass that maps every row anew in the low-rank mode) and equal predict_proba and
    # predict on the training rows exactly
    from sklearn.datasets import make_blobs

    from marginclust.utils._blocks import RowBlocks

    X, _ = make_blobs(600, 3, centers=3, random_state=0)
    est = SLMC(3, n_components=50, random_state=0).fit(X)
    calls = rows_passed(SLMC, "_decision_values")
    labels = est._final_assignment(RowBlocks(X))
    assert calls == [600]
    np.testing.assert_array_equal(labels, est.predict(X))
    np.testing.assert_array_equal(est.memberships_, est.predict_proba(X))
    np.testing.assert_array_equal(est.labels_, labels)


def test_max_iter_warning_names_the_whole_budget(rng):
    # the run after a re-seed has only the sweeps left: the warning names max_iter itself
    X, _ = _blobs(rng)
    with pytest.warns(ConvergenceWarning) as rec:
        est = SLMC(3, lam=0.01, gamma=1e-5, init="random", max_iter=4, min_iter=1,
                   random_state=0).fit(X)
    text = " ".join(str(w.message) for w in rec)
    assert est.n_reseeds_ >= 1 and not est.converged_
    assert "stopped after max_iter=4 sweeps (" in text and "re-seed(s)" in text

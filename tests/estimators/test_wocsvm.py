"""WOCSVMClustering: E-step, f_LL bookkeeping, annealing, inits, bad input, determinism."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from marginclust.estimators._wocsvm import WOCSVMClustering
from marginclust.exceptions import ConvergenceWarning
from marginclust.objectives._wocsvm import WOCSVMObjective, e_step
from marginclust.solvers._em import FixedPointEM, annealing_schedule
from marginclust.solvers._weighted_ocsvm import fit_linear_weighted_ocsvm, fit_weighted_ocsvm


@pytest.fixture
def blobs():
    X, y = make_blobs(n_samples=60, centers=3, cluster_std=0.6, random_state=1)
    return X, y


def test_e_step_rows_on_simplex_and_finite_for_extreme_scores(rng):
    S = rng.randn(50, 4) * 1e6
    S[0] = [1e308, -1e308, 0.0, 5.0]
    S[1] = -1e300
    S[2, 3] = -np.inf  # removed cluster
    log_gamma = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    Z, f = e_step(S, log_gamma)
    assert np.all(np.isfinite(Z)) and np.all(Z >= 0)
    assert_allclose(Z.sum(axis=1), 1.0)
    assert Z[2, 3] == 0.0
    assert np.isfinite(f)
    # moderate scores: matches the direct formula of eqs. (14) and (16)
    S = rng.randn(20, 3)
    g = np.array([0.2, 0.3, 0.5])
    Z, f = e_step(S, np.log(g))
    num = g * np.exp(S)
    assert_allclose(Z, num / num.sum(axis=1, keepdims=True))
    assert_allclose(f, np.log(num.sum(axis=1)).sum())
    assert_allclose(f, logsumexp(S + np.log(g), axis=1).sum())


def test_sigma_limits_of_e_step(rng):
    """Sec. 3.3: sigma -> inf gives z_i = gamma; sigma -> 0 gives a hard argmax."""
    S = rng.randn(30, 3)
    g = np.array([0.2, 0.3, 0.5])
    Z_big, _ = e_step(S / 1e9, np.log(g))
    assert_allclose(Z_big, np.tile(g, (30, 1)), atol=1e-8)
    Z_small, _ = e_step(S / 1e-9, np.log(g))
    assert_array_equal(np.argmax(Z_small, axis=1), np.argmax(S, axis=1))
    assert_allclose(Z_small.max(axis=1), 1.0)


@pytest.mark.parametrize("form", ["scholkopf", "tax-duin"])
def test_fit_records_f_ll_each_iteration(blobs, form):
    X, y = blobs
    # Tax & Duin distances lie in [0, 2] for the RBF kernel: sigma must be well below 1
    sigma = 1.0 if form == "scholkopf" else 0.05
    # the paper's scale and start (the defaults before 0.2)
    m = WOCSVMClustering(3, form=form, gamma=0.05, nu=0.9, temperature=sigma,
                         decision_scale="libsvm", init="gmm", random_state=0).fit(X)
    assert m.objective_history_.shape == (m.n_iter_ + 1,)
    # the last entry is f_LL recomputed from the fitted state (eq. 16)
    f = m.score(X) * X.shape[0]
    assert_allclose(m.objective_history_[-1], f, rtol=1e-9)
    assert_allclose(m.objective_, -f, rtol=1e-9)
    assert_allclose(m.memberships_.sum(axis=1), 1.0)
    assert_allclose(m.weights_.sum(), 1.0)
    assert_allclose(m.predict_proba(X), m.memberships_, atol=1e-10)
    assert_array_equal(m.predict(X), m.labels_)
    assert adjusted_rand_score(y, m.labels_) > 0.9


def test_annealing_runs_every_level_and_ends_near_sigma_min(blobs):
    X, y = blobs
    m = WOCSVMClustering(
        3, gamma=0.05, nu=0.9, annealing=True, temperature_max=2.0, temperature_min=0.5, decay=0.7,
        decision_scale="libsvm", random_state=0, init="random-weights",
    ).fit(X)
    levels = annealing_schedule(2.0, 0.5, 0.7)
    assert_allclose(np.unique(m.temperature_history_)[::-1], levels)
    assert m.temperature_ == levels[-1]
    assert np.all(np.diff(m.temperature_history_) <= 0)
    assert adjusted_rand_score(y, m.labels_) > 0.9


@pytest.mark.parametrize("init", ["gmm", "random-weights", "random-points"])
def test_inits_and_determinism(blobs, init):
    X, _ = blobs
    a = WOCSVMClustering(3, gamma=0.05, init=init, random_state=3).fit(X)
    b = WOCSVMClustering(3, gamma=0.05, init=init, random_state=3).fit(X)
    assert_array_equal(a.labels_, b.labels_)
    assert_allclose(a.memberships_, b.memberships_)
    assert_allclose(a.objective_history_, b.objective_history_)


def test_array_init(blobs):
    X, y = blobs
    U = np.eye(3)[y] * 0.9 + 0.1 / 3
    m = WOCSVMClustering(3, gamma=0.05, init=U).fit(X)
    assert adjusted_rand_score(y, m.labels_) > 0.9
    with pytest.raises(ValueError, match="shape"):
        WOCSVMClustering(3, init=U[:, :2]).fit(X)


def test_normalized_decision_scale_collapses(blobs):
    """The normalised d(x) of eq. (6) is O(1/n) apart: at sigma=1 the E-step is almost uniform."""
    X, _ = blobs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = WOCSVMClustering(3, gamma=0.05, nu=0.9, temperature=1.0, decision_scale="normalized",
                             random_state=0)
        m.fit(X)
    assert m.memberships_.max() - m.memberships_.min() < 0.2
    native = WOCSVMClustering(3, gamma=0.05, nu=0.9, temperature=1.0, decision_scale="libsvm",
                              random_state=0).fit(X)
    assert native.memberships_.max() > 0.99


@pytest.mark.filterwarnings("ignore:.*did not converge:sklearn.exceptions.ConvergenceWarning")
def test_absorbed_cluster_reported():
    # two tight blobs and four clusters at a very large sigma: clusters merge
    X, _ = make_blobs(n_samples=40, centers=2, cluster_std=0.3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="non-empty clusters"):
        m = WOCSVMClustering(4, gamma=0.05, nu=0.9, temperature=50.0, random_state=0).fit(X)
    assert len(m.absorbed_clusters_) >= 1


def test_oscillation_detected_and_named():
    """A synthetic 2-cycle objective: the driver stops and names the oscillation."""

    class Flip:
        def m_step(self, Z, prev):
            return Z

        def e_step(self, params, sigma):
            Z = params[:, ::-1].copy()
            return Z, float(Z[0, 0])

    Z0 = np.array([[1.0, 0.0], [0.0, 1.0]])
    res = FixedPointEM([1.0], tol=1e-6, max_iter=50, n_samples=2).solve(Flip(), Z0)
    assert not res.converged
    assert "oscillates between two values" in res.message
    assert res.n_iter < 50


@pytest.mark.filterwarnings("ignore:.*non-empty clusters:sklearn.exceptions.ConvergenceWarning")
def test_not_converged_warns(blobs):
    X, _ = blobs
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        WOCSVMClustering(3, gamma=0.05, max_iter=1, tol=1e-12, init="random-weights",
                         random_state=0).fit(X)


def test_zero_and_tiny_weights_init(blobs):
    """Hard 0/1 initial weights (zero weights dropped) and tiny weights give the same fit."""
    X, y = blobs
    U = np.eye(3)[y]
    a = WOCSVMClustering(3, gamma=0.05, init=U, random_state=0).fit(X)
    assert adjusted_rand_score(y, a.labels_) > 0.9
    m = WOCSVMObjective(X, 3, fit_machine=fit_weighted_ocsvm,
                        fit_linear_machine=fit_linear_weighted_ocsvm, gamma=0.05, nu=0.9,
                        svm_tol=1e-9)
    Us = 0.8 * U + 0.2 * np.random.RandomState(0).dirichlet(np.ones(3), size=60)
    p1 = m.m_step(Us, None)
    p2 = m.m_step(Us * 1e-6, None)  # tiny, but above the removal threshold
    # the membership mass changes gamma_k, not the normalised machines
    for m1, m2 in zip(p1.models, p2.models):
        assert_allclose(m1.decision_function(X), m2.decision_function(X), atol=1e-6)


@pytest.mark.filterwarnings("ignore:.*non-empty clusters:sklearn.exceptions.ConvergenceWarning")
def test_tax_duin_infeasible_C_is_repaired_with_warning(blobs):
    X, _ = blobs
    with pytest.warns(UserWarning, match="infeasible"):
        WOCSVMClustering(3, form="tax-duin", gamma=0.05, C=1e-4, random_state=0).fit(X)


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(form="svdd"), "form"),
        (dict(kernel="sigmoid"), "kernel"),
        (dict(nu=0.0), "nu"),
        (dict(nu=1.5), "nu"),
        (dict(temperature=-1.0), "temperature"),
        (dict(annealing=True, decay=1.5), "decay"),
        (dict(annealing=True, temperature_max=0.1, temperature_min=1.0), "larger"),
        (dict(init="kmeans"), "init"),
        (dict(gamma="wide"), "gamma"),
        (dict(gamma=-2.0), "gamma"),
        (dict(decision_scale="x"), "decision_scale"),
        (dict(bound="n", nu=0.9), "bound='n'"),
        (dict(max_iter=0), "max_iter"),
        (dict(C=-1.0), "C"),
    ],
)
def test_bad_params(blobs, params, match):
    X, _ = blobs
    with pytest.raises(ValueError, match=match):
        WOCSVMClustering(3, **params).fit(X)


@pytest.mark.parametrize(
    "X,match",
    [
        (np.array([[0.0, np.nan], [1.0, 2.0], [3.0, 1.0]]), "NaN"),
        (np.ones((5, 2)), "identical"),
        (np.zeros((1, 2)), "sample"),
    ],
)
def test_bad_input(X, match):
    with pytest.raises(ValueError, match=match):
        WOCSVMClustering(2).fit(X)


def test_too_many_clusters():
    X = np.random.RandomState(0).randn(4, 2)
    with pytest.raises(ValueError, match="n_clusters"):
        WOCSVMClustering(5).fit(X)


@pytest.mark.filterwarnings("ignore:.*non-empty clusters:sklearn.exceptions.ConvergenceWarning")
def test_removed_cluster_predicts_finite(blobs):
    """A cluster with no membership mass is removed (weight 0) and predict_proba stays finite."""
    X, y = blobs
    U = np.zeros((60, 3))
    U[np.arange(60), np.minimum(y, 1)] = 1.0  # cluster 2 has no mass at all
    m = WOCSVMClustering(3, gamma=0.05, init=U).fit(X)
    assert m.models_[2] is None and m.weights_[2] == 0.0
    assert 2 in m.absorbed_clusters_
    P = m.predict_proba(X[:7] + 0.1)
    assert np.all(np.isfinite(P)) and np.all(P[:, 2] == 0.0)
    assert_allclose(P.sum(axis=1), 1.0)


# ----------------------------------------------------------------------------
# Hostile-input cases found by the property-based run, pinned on
# X = make_blobs(40, 3, centers=2, cluster_std=0.6, random_state=0).
# ----------------------------------------------------------------------------
@pytest.fixture
def blobs2():
    return make_blobs(n_samples=40, n_features=3, centers=2, cluster_std=0.6, random_state=0)


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e-4, 1e-3, 1.0, 1e3, 1e150, 1e300])
def test_default_fit_is_scale_free(blobs2, scale):
    """GMM init on centred, unit-peak data (X * 1e-4 gave ARI 0.02, X * 1e-150 one cluster;
    X * 1e-300 raised ZeroDivisionError: the scale's square underflowed)."""
    X, y = blobs2
    ref = WOCSVMClustering(2, random_state=0).fit(X)
    m = WOCSVMClustering(2, random_state=0).fit(X * scale)
    assert adjusted_rand_score(y, m.labels_) == 1.0
    assert_array_equal(m.labels_, ref.labels_)
    assert_allclose(m.memberships_, ref.memberships_, atol=1e-6)
    if 1e-150 <= scale <= 1e150:  # the width in the user's units is a float64
        assert_allclose(m.gamma_ * scale**2, ref.gamma_, rtol=1e-9)
    else:  # ~1e600 or ~1e-600: what the float64 rounds it to
        assert m.gamma_ == (np.inf if scale < 1 else 0.0)


@pytest.mark.parametrize("offset", [1e9, -1e9])
def test_large_common_offset_is_centred(blobs2, offset):
    X, y = blobs2
    ref = WOCSVMClustering(2, random_state=0).fit(X)
    m = WOCSVMClustering(2, random_state=0).fit(X + offset)
    assert_array_equal(m.labels_, ref.labels_)
    assert_array_equal(m.predict(X + offset), ref.labels_)


@pytest.mark.parametrize("params", [{}, {"n_components": 20}, {"kernel": "linear"},
                                    {"form": "tax-duin"}, {"annealing": True, "decay": 0.7}])
def test_predict_proba_on_training_data_equals_memberships(blobs2, params):
    """It differed by 7e-4: the E-step and predict_proba now share one scoring path."""
    X, _ = blobs2
    m = WOCSVMClustering(2, random_state=0, **params).fit(X)
    assert_allclose(m.predict_proba(X), m.memberships_, atol=1e-12)
    assert_allclose(m.transform(X), m.memberships_, atol=1e-12)
    assert_array_equal(m.predict(X), m.labels_)
    assert_allclose(m.score(X) * X.shape[0], -m.objective_, rtol=1e-10)


def test_unbounded_annealing_schedule_is_refused(blobs2):
    """decay = 1 - 1e-9 asked for ~4e9 levels and raised MemoryError."""
    X, _ = blobs2
    with pytest.raises(ValueError, match="levels"):
        WOCSVMClustering(2, annealing=True, decay=1 - 1e-9).fit(X)


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_linear_kernel_mixed_column_scales_is_bounded(blobs2):
    """Columns at 1e-8 and 1e8 hung LIBSVM; the linear kernel is now solved in the primal."""
    X, y = blobs2
    Xm = X * np.array([1e-8, 1e8, 1.0])
    m = WOCSVMClustering(2, kernel="linear", max_iter=10, random_state=0).fit(Xm)
    assert m.labels_.shape == (40,)
    assert np.all(np.isfinite(m.memberships_))


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_linear_kernel_extreme_scales(blobs2, scale):
    """X * 1e150 raised LIBSVM's 'dual coefficients ... not finite'; the linear kernel is scaled."""
    X, _ = blobs2
    ref = WOCSVMClustering(2, kernel="linear", random_state=0).fit(X)
    m = WOCSVMClustering(2, kernel="linear", random_state=0).fit(X * scale)
    assert_array_equal(m.labels_, ref.labels_)


def test_linear_kernel_offset_gives_clear_error(blobs2):
    X, _ = blobs2
    with pytest.raises(ValueError, match="Centre the features"):
        WOCSVMClustering(2, kernel="linear").fit(X + 1e12)


def test_overflowing_data_gives_clear_error(blobs2):
    X, _ = blobs2
    with pytest.raises(ValueError, match="[Rr]escale"):
        WOCSVMClustering(2).fit(X * 1e307)


def test_removed_sigma_names_are_a_type_error():
    """sigma, sigma_max, sigma_min (renamed temperature*) are gone from the signature."""
    for name in ("sigma", "sigma_max", "sigma_min"):
        with pytest.raises(TypeError, match=name):
            WOCSVMClustering(2, **{name: 0.5})


def test_verbose_prints_iterations(blobs2, capsys):
    X, _ = blobs2
    WOCSVMClustering(2, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert "iteration 1" in err and "f_LL" in err
    assert "WOC-SVM start (init='max-margin'): " in err and err.index("start") < err.index(
        "iteration 1")


def test_label_free_grid_is_small_and_scale_relative(blobs2):
    X, _ = blobs2
    grid = WOCSVMClustering(2)._label_free_grid(X)
    grid_big = WOCSVMClustering(2)._label_free_grid(X * 1e3)
    assert np.prod([len(v) for v in grid.values()]) <= 12
    assert_allclose(np.array(grid["gamma"]) * 1e-6, grid_big["gamma"], rtol=1e-9)
    assert "temperature" in WOCSVMClustering._n_scaled_params


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_label_free_grid_beyond_the_float_range_is_a_clear_error(blobs2, scale):
    # the fit works in rescaled units; the grid's widths in the data's units would be
    # inf or 0 (about 1e400 / 1e-400)
    X, _ = blobs2
    WOCSVMClustering(2, random_state=0).fit(X * scale)
    with pytest.raises(ValueError, match="beyond the float range"):
        WOCSVMClustering(2)._label_free_grid(X * scale)


def test_readme_example_standardised_wine_does_not_collapse():
    """The defaults keep three clusters on standardised wine, near the labels."""
    from sklearn.datasets import load_wine
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), WOCSVMClustering(n_clusters=3, random_state=0))
    labels = pipe.fit_predict(X)
    assert len(np.unique(labels)) == 3
    # the max-margin start at K = 3 is the best-scoring candidate whose boundaries are
    # all clear (ARI .74 on its own, .88 for the best-scoring one, which is not clear)
    assert adjusted_rand_score(y, labels) > 0.7


def _machines():
    from marginclust.solvers._weighted_ocsvm import (
        fit_linear_weighted_ocsvm,
        fit_weighted_ocsvm,
    )

    return {"fit_machine": fit_weighted_ocsvm, "fit_linear_machine": fit_linear_weighted_ocsvm}


_MACHINES = _machines()


def _two_rings(n_inner=500, n_outer=200, seed=0):
    """A dense inner ring inside a sparse outer one (3x the length, fewer points)."""
    rng = np.random.RandomState(seed)
    t = rng.uniform(0, 2 * np.pi, n_inner + n_outer)
    r = np.r_[np.ones(n_inner), 3 * np.ones(n_outer)] + 0.05 * rng.randn(n_inner + n_outer)
    return np.c_[r * np.cos(t), r * np.sin(t)], np.repeat([0, 1], [n_inner, n_outer])


@pytest.mark.parametrize("form", ["scholkopf", "tax-duin"])
def test_relative_scores_divide_either_scale_by_the_machines_offset(form):
    from marginclust.feature_maps._one_class import prepare_one_class_data
    from marginclust.objectives._wocsvm import WOCSVMObjective

    X, y = _two_rings()
    data = prepare_one_class_data(X, kernel="rbf", gamma="local", n_components=None,
                                  random_state=np.random.RandomState(0))
    scores = {}
    for scale in ("relative", "libsvm", "normalized"):
        obj = WOCSVMObjective(data.X, 2, form=form, nu=0.3, gamma=data.gamma, K=data.K,
                              decision_scale=scale, **_MACHINES)
        params = obj.m_step(np.eye(2)[y], None)
        scores[scale] = obj.score(params)
    rho = np.array([m.rho for m in params.models])
    native = np.array([m.native_scale for m in params.models])
    if form == "scholkopf":  # d / rho: the same from LIBSVM's values and eq. (6)
        assert_allclose(scores["relative"], scores["normalized"] / rho, rtol=1e-10)
        assert_allclose(scores["relative"], scores["libsvm"] / (native * rho), rtol=1e-10)
        far = obj.score(params, data.transform(np.array([[50.0, 50.0]])))
        assert_allclose(far, -rho[None, :])  # eq. (6) far from every support vector: -rho
        obj.decision_scale = "relative"
        assert_allclose(obj.score(params, data.transform(np.array([[50.0, 50.0]]))), -1.0)
    else:  # (R^2 - d^2) / R^2
        assert_allclose(scores["relative"], (scores["normalized"] + rho) / rho, rtol=1e-10)


def test_relative_scale_keeps_a_dense_cluster_that_libsvm_scale_erodes():
    # with offsets as the unit, the border of the dense inner ring is not nearer, in
    # score, to the sparse outer ring than to its own machine
    from marginclust.feature_maps._one_class import prepare_one_class_data
    from marginclust.objectives._wocsvm import WOCSVMObjective

    X, y = _two_rings()
    data = prepare_one_class_data(X, kernel="rbf", gamma="local", n_components=None,
                                  random_state=np.random.RandomState(0))
    kept = {}
    for scale, nu, temperature in (("relative", 0.3, 0.05), ("libsvm", 0.9, 1.0)):
        obj = WOCSVMObjective(data.X, 2, nu=nu, gamma=data.gamma, K=data.K,
                              decision_scale=scale, **_MACHINES)
        Z, _ = obj.e_step(obj.m_step(np.eye(2)[y], None), temperature)
        kept[scale] = float(np.mean(Z.argmax(axis=1) == y))
    assert kept["relative"] == 1.0
    assert kept["libsvm"] < 0.8  # 0.734 measured: a quarter of the points moved


def test_auto_annealing_schedule_follows_the_decision_scale():
    X, y = make_blobs(n_samples=60, centers=3, random_state=1)
    X = StandardScaler().fit_transform(X)
    est = WOCSVMClustering(3, annealing=True, decay=0.7, random_state=0).fit(X)
    # relative scores: from 4 x temperature down to temperature
    np.testing.assert_allclose(est.temperature_history_.max(), 4 * est.temperature, rtol=1e-12)
    assert est.temperature_ <= 0.05 / 0.7 and adjusted_rand_score(y, est.labels_) > 0.9
    paper = WOCSVMClustering(3, annealing=True, decay=0.7, decision_scale="libsvm",
                             gamma="sigma0", nu=0.9, init="gmm", max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        paper.fit(X)
    np.testing.assert_allclose(paper.temperature_history_.max(), 5.0, rtol=1e-12)
    assert paper.temperature_ <= 0.1 / 0.7


def test_collapse_advice_follows_the_decision_scale():
    """On the relative scale the warning does not advise annealing or a wider kernel.

    At the defaults both merge clusters more often (annealing: 36 of 44 battery fits
    collapsed, ``gamma="scale"``: 18, the defaults: none); the LIBSVM scale keeps the
    paper's advice. The warning of a collapsed fit carries the advice of its scale.
    """
    merge = "annealing=True and a wider kernel (a lower gamma) merge"
    relative = WOCSVMClustering()._collapse_advice
    assert merge in relative and "init='k-means'" in relative
    assert "gamma='sigma0'" not in relative
    libsvm = WOCSVMClustering(decision_scale="libsvm")._collapse_advice
    assert "annealing=True, or more n_init" in libsvm
    X, _ = make_blobs(n_samples=300, centers=3, random_state=0)
    X = StandardScaler().fit_transform(X)
    with pytest.warns(ConvergenceWarning, match="collapsed") as record:
        est = WOCSVMClustering(3, annealing=True, random_state=0).fit(X)
    assert est.n_clusters_found_ < 3  # what the advice warns of, on three clear blobs
    assert any(merge in str(w.message) for w in record)
    # the warning names the start, and the standardised data are not sent to be standardised
    named = "Tried: the start init='max-margin'. The features are already on one scale"
    assert any(named in str(w.message) for w in record)
    assert not any("Standardise the features" in str(w.message) for w in record)
    plain = WOCSVMClustering(3, random_state=0).fit(X)
    assert plain.n_clusters_found_ == 3


def test_fit_maps_the_training_rows_once_and_keeps_no_features(blobs2, rows_passed):
    """The final assignment reuses the fit's features: one Nystroem pass over the rows."""
    from sklearn.kernel_approximation import Nystroem

    X, _ = blobs2
    calls = rows_passed(Nystroem, "transform")
    m = WOCSVMClustering(2, n_components=20, random_state=0).fit(X)
    assert calls == [X.shape[0]]
    assert not hasattr(m, "_train_features")
    assert_allclose(m.predict_proba(X), m.memberships_, atol=1e-12)
    assert calls == [X.shape[0]] * 2

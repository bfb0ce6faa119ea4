"""Weighted one-class SVMs (both forms) against a literal QP solve, and their conventions."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.svm import OneClassSVM

from marginclust.exceptions import InfeasibleProblemError
from marginclust.objectives._weighted_ocsvm import kernel_diag, kernel_matrix
from marginclust.solvers._em import annealing_schedule
from marginclust.solvers._weighted_ocsvm import fit_linear_weighted_ocsvm, fit_weighted_ocsvm
from tests._oracles.wocsvm_qp import (
    scholkopf_objective,
    scholkopf_qp,
    tax_duin_objective,
    tax_duin_qp,
)

KP = dict(gamma=0.5, degree=2, coef0=1.0)


def _data(seed, n=25, d=2):
    rng = np.random.RandomState(seed)
    return rng.randn(n, d), rng.uniform(0.05, 1.0, size=n)


def _full_alpha(model, n):
    a = np.zeros(n)
    a[model.support] = model.alpha
    return a


@pytest.mark.parametrize("bound,nu", [("sum", 0.3), ("sum", 0.95), ("n", 0.3)])
def test_scholkopf_matches_qp(global_random_seed, bound, nu):
    X, w = _data(global_random_seed)
    K = kernel_matrix(X, X, kernel="rbf", gamma=0.5)
    m = fit_weighted_ocsvm(X, w, nu=nu, bound=bound, gamma=0.5, tol=1e-9)
    a_qp, rho_qp = scholkopf_qp(K, w, nu, bound=bound)
    a = _full_alpha(m, len(w))
    # same optimal value, same feature-space solution K a, same offset
    assert_allclose(scholkopf_objective(K, a), scholkopf_objective(K, a_qp), rtol=1e-7)
    assert_allclose(K @ a, K @ a_qp, atol=1e-6)
    assert_allclose(m.rho, rho_qp, atol=1e-5)
    # constraints of eq. (11)
    ub = w / (nu * (len(w) if bound == "n" else w.sum()))
    assert_allclose(a.sum(), 1.0, rtol=1e-12)
    assert np.all(a >= 0) and np.all(a <= ub * (1 + 1e-9))
    # the decision function is eq. (6)
    assert_allclose(m.decision_function(X), K @ a - m.rho, atol=1e-10)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("C", [None, 0.15])
def test_tax_duin_matches_qp(global_random_seed, kernel, C):
    X, w = _data(global_random_seed)
    K = kernel_matrix(X, X, kernel=kernel, **KP)
    m = fit_weighted_ocsvm(X, w, form="tax-duin", C=C, nu=0.5, kernel=kernel, tol=1e-9, **KP)
    C_eff = 1.0 / (0.5 * w.sum()) if C is None else C
    a_qp = tax_duin_qp(K, w, C_eff)
    a = _full_alpha(m, len(w))
    assert_allclose(tax_duin_objective(K, a), tax_duin_objective(K, a_qp), rtol=1e-7, atol=1e-9)
    assert_allclose(K @ a, K @ a_qp, atol=1e-6)
    assert np.all(a <= C_eff * w * (1 + 1e-9)) and np.isclose(a.sum(), 1.0)
    # eq. (3): squared distance to the centre, checked against explicit kernel algebra
    d2 = np.diag(K) - 2 * K @ a + a @ K @ a
    assert_allclose(m.squared_distance(X), np.maximum(d2, 0), atol=1e-8)
    assert_allclose(kernel_diag(X, kernel=kernel, **KP), np.diag(K), rtol=1e-12)


def test_libsvm_scaling_conventions():
    """OneClassSVM(sample_weight=w) solves min 1/2 b'Kb, 0<=b<=w, sum b = nu sum w."""
    X, w = _data(3)
    nu = 0.4
    svm = OneClassSVM(kernel="rbf", gamma=0.5, nu=nu, tol=1e-10).fit(X, sample_weight=w)
    b = svm.dual_coef_.ravel()
    assert_allclose(b.sum(), nu * w.sum(), rtol=1e-8)
    assert np.all(b <= w[svm.support_] * (1 + 1e-9))
    m = fit_weighted_ocsvm(X, w, nu=nu, gamma=0.5, tol=1e-10)
    # LIBSVM's decision value = (nu sum w) * normalised d(x): the native scale
    assert_allclose(m.native_scale, nu * w.sum())
    assert_allclose(svm.decision_function(X), m.native_scale * m.decision_function(X), atol=1e-6)


def test_weights_scale_invariance_tiny_weights():
    """LIBSVM's absolute tolerance: tiny weights must give the same normalised machine."""
    X, w = _data(4)
    m1 = fit_weighted_ocsvm(X, w, nu=0.5, gamma=0.5, tol=1e-9)
    m2 = fit_weighted_ocsvm(X, w * 1e-9, nu=0.5, gamma=0.5, tol=1e-9)
    assert_allclose(m1.decision_function(X), m2.decision_function(X), atol=1e-7)
    # without the rescaling LIBSVM stops at once on tiny weights: show the trap exists
    raw = OneClassSVM(kernel="rbf", gamma=0.5, nu=0.5, tol=1e-3).fit(X, sample_weight=w * 1e-9)
    b = raw.dual_coef_.ravel() / raw.dual_coef_.sum()
    Kb = kernel_matrix(X, X[raw.support_], gamma=0.5) @ b
    K = kernel_matrix(X, X, gamma=0.5)
    a = _full_alpha(m1, len(w))
    assert scholkopf_objective(K, a) < float(b @ Kb[raw.support_]) - 1e-6


@pytest.mark.parametrize("form", ["scholkopf", "tax-duin"])
def test_zero_weights_are_dropped_and_indices_map_back(form):
    X, w = _data(5, n=20)
    w[[0, 3, 4, 11]] = 0.0
    m = fit_weighted_ocsvm(X, w, form=form, nu=0.5, gamma=0.5, tol=1e-9)
    assert not np.intersect1d(m.support, [0, 3, 4, 11]).size
    assert_allclose(m.support_vectors, X[m.support])
    keep = w > 0
    m_sub = fit_weighted_ocsvm(X[keep], w[keep], form=form, nu=0.5, gamma=0.5, tol=1e-9)
    assert_allclose(m.decision_function(X), m_sub.decision_function(X), atol=1e-8)
    # against the QP with the zero weights kept (their alpha is forced to 0)
    K = kernel_matrix(X, X, gamma=0.5)
    if form == "scholkopf":
        a_qp, _ = scholkopf_qp(K, w, 0.5, bound="sum")
    else:
        a_qp = tax_duin_qp(K, w, 1.0 / (0.5 * w.sum()))
    assert_allclose(K @ _full_alpha(m, 20), K @ a_qp, atol=1e-6)


def test_single_positive_weight():
    X, _ = _data(6, n=10)
    w = np.zeros(10)
    w[7] = 0.3
    m = fit_weighted_ocsvm(X, w, nu=0.5, gamma=0.5)
    assert_allclose(m.alpha, [1.0])
    assert m.support.tolist() == [7]
    assert_allclose(m.decision_function(X[7:8]), [0.0], atol=1e-12)


def test_infeasible_weights():
    X, w = _data(7, n=20)
    with pytest.raises(InfeasibleProblemError, match="all weights are zero|All weights"):
        fit_weighted_ocsvm(X, np.zeros(20))
    # eq. (11) literal: sum w < nu n
    with pytest.raises(InfeasibleProblemError, match="infeasible"):
        fit_weighted_ocsvm(X, np.full(20, 0.1), nu=0.5, bound="n")
    # eq. (10): C sum w < 1
    with pytest.raises(InfeasibleProblemError, match="Increase C"):
        fit_weighted_ocsvm(X, np.full(20, 0.1), form="tax-duin", C=0.1)
    # at the feasibility boundary every alpha sits at its bound: alpha = w / sum w
    m = fit_weighted_ocsvm(X, w, form="tax-duin", C=1.0 / w.sum(), tol=1e-9)
    assert_allclose(_full_alpha(m, 20), w / w.sum(), atol=1e-9)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(w=-np.ones(5)), "non-negative"),
        (dict(w=np.ones(4)), "shape"),
        (dict(w=np.array([1, np.nan, 1, 1, 1.0])), "finite"),
        (dict(w=np.ones(5), nu=1.5), "nu"),
        (dict(w=np.ones(5), form="svdd"), "form"),
        (dict(w=np.ones(5), kernel="sigmoid"), "kernel"),
        (dict(w=np.ones(5), bound="x"), "bound"),
    ],
)
def test_bad_input(kwargs, match):
    X = np.random.RandomState(0).randn(5, 2)
    w = kwargs.pop("w")
    with pytest.raises(ValueError, match=match):
        fit_weighted_ocsvm(X, w, **kwargs)


@pytest.mark.parametrize("solver", [fit_weighted_ocsvm, fit_linear_weighted_ocsvm])
@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(form="tax-duin", C=-1.0), ValueError, "C must be a positive finite"),
        (dict(form="tax-duin", C=np.nan), ValueError, "C must be a positive finite"),
        (dict(form="tax-duin", C=0.1), InfeasibleProblemError, "Increase C"),
        (dict(nu=0.5, bound="n", scale=0.1), InfeasibleProblemError, "Eq. \\(11\\)"),
        (dict(nu=0.0), ValueError, "nu must be in"),
        (dict(form="svdd"), ValueError, "form must be one of"),
    ],
)
def test_kernel_and_linear_solvers_refuse_the_same_bounds(solver, kwargs, error, match):
    """Both solvers resolve the box bounds of eqs. (10)/(11) in one place."""
    X = np.random.RandomState(0).randn(20, 2)
    kwargs = dict(kwargs)
    w = np.full(20, kwargs.pop("scale", 0.1 if kwargs.get("C") == 0.1 else 1.0))
    with pytest.raises(error, match=match):
        solver(X, w, **kwargs)


def test_annealing_schedule():
    s = annealing_schedule(5.0, 0.1, 0.95)
    assert s[0] == 5.0 and np.all(s > 0.1) and s[-1] * 0.95 <= 0.1
    assert_allclose(s[1:] / s[:-1], 0.95)
    assert len(s) == 77  # 5 * 0.95**76 = 0.101 > 0.1 >= 5 * 0.95**77
    with pytest.raises(ValueError, match="decay"):
        annealing_schedule(5.0, 0.1, 1.0)
    with pytest.raises(ValueError, match="larger"):
        annealing_schedule(0.1, 5.0, 0.5)


@pytest.mark.parametrize("form,kernel", [("scholkopf", "rbf"), ("tax-duin", "rbf"),
                                         ("tax-duin", "poly")])
def test_precomputed_kernel_path_agrees(form, kernel):
    X, w = _data(8)
    w[[1, 5]] = 0.0
    K = kernel_matrix(X, X, kernel=kernel, **KP)
    kw = dict(form=form, nu=0.6, kernel=kernel, tol=1e-9, **KP)
    a = fit_weighted_ocsvm(X, w, **kw)
    b = fit_weighted_ocsvm(X, w, K=K, **kw)
    # LIBSVM's own kernel values and K round differently, so the SMO paths may part. The
    # optimum is strictly complementary on these data (every zero or capped multiplier has
    # a gradient slack above 0.013, every free one is 0.007 inside its box: measured), far
    # beyond LIBSVM's tol = 1e-9, so both runs end on the same support and free set, where
    # the decision values move linearly with the KKT residual.
    assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-7)
    assert_array_equal_sorted = np.array_equal(np.sort(a.support), np.sort(b.support))
    assert assert_array_equal_sorted


@pytest.mark.parametrize("form", ["scholkopf", "tax-duin"])
def test_precomputed_kernel_with_dropped_rows_is_libsvm_on_the_kept_block(form):
    """With a kernel given, the rows dropped for a weight below ``zero_tol`` are handed to
    LIBSVM with weight 0 instead of being cut out of a copy of the kernel: LIBSVM removes
    them itself and reads each kept row's own column, so it solves the same problem on
    the same values in the same order as on the kept block: the same result, bit for bit."""
    X, w = _data(9, n=60)
    w[[2, 7, 30, 31]] = 1e-15  # below zero_tol * max(w)
    K = kernel_matrix(X, X, **KP)
    m = fit_weighted_ocsvm(X, w, form=form, nu=0.4, K=K, zero_tol=1e-12, **KP)
    keep = np.flatnonzero(w > 1e-12 * w.max())
    total = float(w[keep].sum())
    if form == "scholkopf":
        nu, wk = 0.4, w[keep]
    else:  # C = 1 / (nu sum w): LIBSVM weights C w_i, nu' = 1 / (C sum w)
        C = 1.0 / (0.4 * total)
        nu, wk = min(1.0, 1.0 / (C * total)), C * w[keep]
    svm = OneClassSVM(kernel="precomputed", nu=nu, tol=1e-3).fit(
        K[np.ix_(keep, keep)], sample_weight=wk * (wk.size / wk.sum()))
    b = svm.dual_coef_.ravel()
    assert np.array_equal(m.support, keep[svm.support_])
    assert np.array_equal(m.alpha, b / b.sum())
    if form == "scholkopf":
        assert m.rho == svm.offset_[0] / b.sum()

"""The fused per-block FCM kernel against the textbook formulas, and blocking invariance.

``fcm_block`` computes, in place and without powers over the K x c block, what
the literal alternation computes with ``u ** m``; these tests pin each output of
a block (memberships, centre sums, cost, largest change) to the direct formulas,
and the blocked solver to the one-block solver (the estimator tests pin the
one-block solver to a literal loop oracle).
"""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.objectives._fcm import FuzzyProblem, membership_floor, memberships_into
from marginclust.solvers._fuzzy import (
    BlockScratch,
    fcm_block,
    fcm_chunk_rows,
    fuzzy_alternation,
    reduce_fcm_partials,
)
from tests._crosspath import fcm_memberships_rtol


def _direct(Xb, V, m, gamma, w, prev):
    """Textbook per-block quantities (float64, explicit powers)."""
    X64, V64 = Xb.astype(np.float64), V.astype(np.float64)
    D2 = ((X64[None, :, :] - V64[:, None, :]) ** 2).sum(axis=2)  # K x c
    if gamma is None:
        D, Kv = D2, np.ones_like(D2)
    else:
        Kv = np.exp(-gamma * D2)
        D = 2.0 * (1.0 - Kv)
    R = D ** (-1.0 / (m - 1.0))
    U = R / R.sum(axis=0)
    W = (U**m) * Kv * w[None, :]
    J = float(((U**m) * D).sum(axis=0) @ w)
    shift = float(np.abs(U - prev).max()) if prev is not None else 0.0
    return U, W @ X64, W.sum(axis=1), J, shift


@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-10), (np.float32, 2e-4)])
@pytest.mark.parametrize("m", [1.5, 2.0, 2.5, 3.0])
@pytest.mark.parametrize("gamma", [None, 0.3])
@pytest.mark.parametrize("weighted", [False, True])
def test_block_equals_textbook_formulas(dtype, rtol, m, gamma, weighted):
    rng = np.random.RandomState(0)
    k, c, d = 4, 37, 3
    Xb = rng.randn(c, d).astype(dtype)
    V = rng.randn(k, d).astype(dtype)
    w = rng.rand(c).astype(dtype) + 0.5 if weighted else np.ones(c, dtype)
    prev = rng.dirichlet(np.ones(k), size=c).T.astype(dtype)
    out = np.empty((k, c), dtype)
    scratch = BlockScratch(k, c + 5, dtype)  # longer than the block: views are used
    S, tot, J, shift, counts = fcm_block(
        Xb,
        np.einsum("ij,ij->i", Xb, Xb),
        w if weighted else None,
        V * dtype(-2.0),
        np.einsum("ij,ij->i", V, V),
        FuzzyProblem(m),
        gamma,
        membership_floor(dtype, k, m),
        out,
        prev,
        scratch=scratch,
    )
    U_ref, S_ref, tot_ref, J_ref, shift_ref = _direct(Xb, V, m, gamma, w.astype(float), prev)
    assert out.dtype == dtype and S.dtype == dtype and tot.dtype == dtype
    np.testing.assert_allclose(out, U_ref, rtol=rtol, atol=rtol * 1e-3)
    np.testing.assert_allclose(S, S_ref, rtol=rtol, atol=rtol * np.abs(S_ref).max())
    np.testing.assert_allclose(tot, tot_ref, rtol=rtol)
    assert J == pytest.approx(J_ref, rel=rtol)
    assert shift == pytest.approx(shift_ref, rel=rtol, abs=1e-6 if dtype == np.float32 else 0)
    np.testing.assert_array_equal(counts, np.bincount(U_ref.argmax(axis=0), minlength=k))
    # without scratch (the dask path) and without counts (the in-memory path): same partials
    out2 = np.empty_like(out)
    args = (Xb, np.einsum("ij,ij->i", Xb, Xb), w if weighted else None, V * dtype(-2.0),
            np.einsum("ij,ij->i", V, V), FuzzyProblem(m), gamma, membership_floor(dtype, k, m),
            out2, prev)
    S2, tot2, J2, shift2, none = fcm_block(*args, with_counts=False)
    assert none is None and J2 == J and shift2 == shift
    np.testing.assert_array_equal(out2, out)
    np.testing.assert_array_equal(S2, S)
    assert reduce_fcm_partials([(S, tot, J, shift, None)], k, d)[4] is None


@pytest.mark.parametrize("m", [1.5, 2.0, 3.0])
def test_block_safe_path_on_a_sample_at_a_centre(m):
    """A row exactly at a centre: crisp membership there (to rounding), finite sums."""
    rng = np.random.RandomState(1)
    Xb = rng.randn(20, 2)
    V = np.vstack([Xb[3], rng.randn(2, 2)])
    out = np.empty((3, 20))
    S, tot, J, shift, _ = fcm_block(
        Xb, np.einsum("ij,ij->i", Xb, Xb), None, -2.0 * V, np.einsum("ij,ij->i", V, V),
        FuzzyProblem(m), None, membership_floor(np.float64, 3, m), out, None,
    )
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(S)) and np.isfinite(J)
    np.testing.assert_allclose(out.sum(axis=0), 1.0)
    # The expanded distance ||x||^2 - 2 x.v + ||v||^2 at v = x is 0 only to rounding:
    # |d_0| <= eps_d = 8 eps ||x||^2 (exactly 0 where x.x and x.v round alike, e.g. on
    # BLAS kernels without FMA; about 1e-16 with FMA). Row 3 then puts at most
    # delta = sum_j (eps_d / d_j)^(1/(m-1)) outside centre 0 (2e-8 for m = 3), which
    # moves S_0 by at most m delta |x_3| and tot_0 by at most m delta.
    x3 = Xb[3]
    eps_d = 8 * np.finfo(float).eps * (x3 @ x3)
    delta = np.sum((eps_d / ((V[1:] - x3) ** 2).sum(axis=1)) ** (1.0 / (m - 1.0)))
    assert 1.0 - delta <= out[0, 3] <= 1.0 + 1e-15 and shift == 0.0
    keep = np.arange(20) != 3
    _, S_ref, tot_ref, J_ref, _ = _direct(Xb[keep], V, m, None, np.ones(19), None)
    np.testing.assert_allclose(S, S_ref + x3[None, :] * (np.arange(3) == 0)[:, None],
                               atol=m * delta * np.abs(x3).max())
    np.testing.assert_allclose(tot, tot_ref + (np.arange(3) == 0), atol=m * delta)
    assert J == pytest.approx(J_ref, rel=1e-10)  # row 3's cost is below eps_d


@pytest.mark.parametrize("m", [1.5, 2.0, 3.0, 1.7])
def test_memberships_into_exact_exponent_forms(m):
    """``p = 2`` and ``p = 1/2`` use reciprocal/square/sqrt: same values as the power."""
    rng = np.random.RandomState(2)
    D = rng.rand(4, 50) * 3 + 0.01
    out = np.empty_like(D)
    cost = memberships_into(D, m, out)
    R = D ** (-1.0 / (m - 1.0))
    np.testing.assert_allclose(out, R / R.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(cost, ((out**m) * D).sum(axis=0), rtol=1e-12)


@pytest.mark.parametrize("gamma", [None, 0.5])
@pytest.mark.parametrize("m", [2.0, 2.5])
def test_blocked_solver_equals_one_block(gamma, m):
    """Short blocks (and a short last block) give the iterates of one block."""
    rng = np.random.RandomState(3)
    X = rng.randn(203, 3) + rng.randint(0, 3, size=(203, 1)) * 2.0
    X -= X.mean(axis=0)
    w = rng.rand(203) + 0.5
    V0 = X[[0, 50, 100]] + 0.01
    kw = dict(centres=V0, gamma=gamma, tol=0.0, max_iter=9)
    one = fuzzy_alternation(X, w, FuzzyProblem(m), chunk_rows=203, **kw)
    many = fuzzy_alternation(X, w, FuzzyProblem(m), chunk_rows=16, **kw)
    # Other blocks sum the centres in another order and BLAS may round the expanded
    # distances otherwise: each pass's memberships move by at most the distances'
    # rounding bound (tests/_crosspath.py, under 6e-13 here); a pass amplifies an earlier
    # difference at most 3 times (2.2 measured by perturbing the start), so 9 passes
    # stay within 9 x 3 times that bound.
    rtol = 27 * fcm_memberships_rtol(X, one.x[1], m)
    np.testing.assert_allclose(many.x[0], one.x[0], rtol=rtol, atol=1e-14)
    np.testing.assert_allclose(many.x[1], one.x[1], rtol=rtol, atol=rtol * np.abs(X).max())
    np.testing.assert_allclose(many.objective_history, one.objective_history, rtol=rtol)
    # the largest membership change of the last pass: a difference of memberships
    assert many.stop_crit == pytest.approx(one.stop_crit, rel=0, abs=2 * rtol)


def test_chunk_rows_even_and_bounded():
    for n, k, d, b in [(10, 2, 2, 8), (20000, 5, 10, 8), (10**6, 5, 10, 4), (10**6, 50, 300, 8)]:
        rows = fcm_chunk_rows(d, b, k, n)
        n_blocks = -(-n // rows)
        assert 1 <= rows <= 32768 and n_blocks * rows - n < n_blocks
    assert fcm_chunk_rows(2, 8, 2, 10) == 10  # small data: one block
    assert 2048 <= fcm_chunk_rows(300, 8, 50) < fcm_chunk_rows(10, 4, 5) <= 32768


@pytest.mark.parametrize("tol", [0.0, 1e-3])
@pytest.mark.parametrize("gamma", [None, 0.5])
def test_partial_change_measure_keeps_iterates_stop_and_stop_crit(tol, gamma, monkeypatch):
    """Blocks after one whose change exceeds tol skip the difference; nothing else changes.

    The reference measures every block of every pass (a callback makes every pass
    exact); the fast run must stop at the same iteration with the same final
    change, memberships, centres and objectives, and must have skipped blocks.
    """
    import marginclust.solvers._fuzzy as fz

    rng = np.random.RandomState(5)
    X = rng.randn(400, 3) + rng.randint(0, 3, size=(400, 1)) * 2.5
    X -= X.mean(axis=0)
    w = np.ones(400)
    V0 = X[[0, 150, 300]] + 0.01
    kw = dict(centres=V0, gamma=gamma, tol=tol, max_iter=40, chunk_rows=50)
    ref = fuzzy_alternation(X, w, FuzzyProblem(2.0), callback=lambda it, J: None, **kw)
    measured = []
    block = fz.fcm_block

    def counting(*args, **kwargs):
        measured.append(args[9] is not None)
        return block(*args, **kwargs)

    monkeypatch.setattr(fz, "fcm_block", counting)
    fast = fuzzy_alternation(X, w, FuzzyProblem(2.0), **kw)
    assert fast.n_iter == ref.n_iter and fast.converged == ref.converged
    assert fast.stop_crit == ref.stop_crit  # the final pass is measured in full
    np.testing.assert_array_equal(fast.x[0], ref.x[0])
    np.testing.assert_array_equal(fast.x[1], ref.x[1])
    np.testing.assert_array_equal(fast.objective_history, ref.objective_history)
    assert 0 < sum(measured) < len(measured) - 8  # the first pass has nothing to compare


@pytest.mark.parametrize("m", [2.0, 2.5, 60.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_centres_from_memberships_equal_log_space(m, dtype):
    """The first centre step from given memberships, without logarithms, equals the
    log-space weighted means. Cluster 1's largest membership has weight 0 and the
    others are 2e-8 of it, so with m = 60 every weight ``w (u / max u)^m``
    underflows and that cluster takes the log-space path."""
    from marginclust.solvers._fuzzy import _log_space_centres, _membership_centres

    rng = np.random.RandomState(6)
    X = rng.randn(300, 4).astype(dtype)
    U = rng.dirichlet(np.ones(3), size=300)
    U[:, 1] = 1e-8
    U[7, 1] = 0.5
    U /= U.sum(axis=1, keepdims=True)
    Ut = np.ascontiguousarray(U.T, dtype=dtype)
    w = (rng.rand(300) + 0.5).astype(dtype)
    w[7] = 0.0
    xsq = np.einsum("ij,ij->i", X, X)
    got = _membership_centres(X, xsq, Ut, w, FuzzyProblem(m))
    ref = _log_space_centres(X, xsq, Ut, w, FuzzyProblem(m), np.zeros((3, 4), dtype), None)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref, rtol=1e-10 if dtype == np.float64 else 1e-4,
                               atol=1e-12 if dtype == np.float64 else 1e-5)

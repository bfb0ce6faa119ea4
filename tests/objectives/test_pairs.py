"""The pair margin: its two-cluster form, its subgradient, CCCP majorisation, closure."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from marginclust.objectives._constraints import (
    check_two_clusters,
    closed_pairs,
    make_pairs,
)
from marginclust.objectives._mmc import MMCObjective
from marginclust.objectives._pairs import (
    assign_in_order,
    best_allowed,
    honour_pairs,
    linearised_pair_margin,
    pair_margin_loss,
    paper_pair_loss,
    two_outputs,
)


def _brute_force(Fu, Fv, z):
    """``max(0, 1 + max_forbidden S - max_allowed S)`` by listing every joint label."""
    k = Fu.shape[1]
    out = []
    for fu, fv, zz in zip(Fu, Fv, z):
        allowed, forbidden = [], []
        for p, q in itertools.product(range(k), range(k)):
            ok = (p == q) if zz > 0 else (p != q)
            (allowed if ok else forbidden).append(fu[p] + fv[q])
        out.append(max(0.0, 1.0 + max(forbidden) - max(allowed)))
    return np.array(out)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_pair_margin_is_the_joint_label_margin(k, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    Fu, Fv = rng.randn(40, k), rng.randn(40, k)
    z = np.where(rng.rand(40) < 0.5, 1.0, -1.0)
    np.testing.assert_allclose(pair_margin_loss(Fu, Fv, z), _brute_force(Fu, Fv, z))
    # a per-row shift of the scores changes nothing
    shifted = pair_margin_loss(Fu + rng.randn(40, 1), Fv + rng.randn(40, 1), z)
    np.testing.assert_allclose(shifted, pair_margin_loss(Fu, Fv, z), atol=1e-12)


def test_two_clusters_reduce_to_a_hinge_on_the_papers_term(global_random_seed):
    """K = 2, binary score f: the pair margin is ``max(0, 1 + (|f_u - z f_v| - |f_u + z f_v|)/2)``
    (the paper's term for the pair's own link minus the opposite link's), and the paper's
    term is that difference plus the shrinkage ``max(|f_u|, |f_v|)``."""
    rng = np.random.RandomState(global_random_seed)
    fu, fv = 2 * rng.randn(200), 2 * rng.randn(200)
    z = np.where(rng.rand(200) < 0.5, 1.0, -1.0)
    ours = pair_margin_loss(two_outputs(fu), two_outputs(fv), z)
    paper = paper_pair_loss(fu[:, None], fv[:, None], z)[0]
    mirror = paper_pair_loss(fu[:, None], fv[:, None], -z)[0]
    np.testing.assert_allclose(paper, np.abs(fu - z * fv))
    delta = 0.5 * (paper - mirror)  # best forbidden minus best allowed joint score
    np.testing.assert_allclose(ours, np.maximum(0.0, 1.0 + delta), atol=1e-12)
    np.testing.assert_allclose(paper, delta + np.maximum(np.abs(fu), np.abs(fv)), atol=1e-12)
    # a hinge on the weaker row: satisfied with margin iff both rows are on the required
    # sides with |f| >= 1
    weaker = z * np.sign(fu * fv) * np.minimum(np.abs(fu), np.abs(fv))
    np.testing.assert_allclose(ours, np.maximum(0.0, 1.0 - weaker), atol=1e-12)


def test_two_output_model_is_the_binary_one_at_half_the_objective(global_random_seed):
    """With pairs, the multiclass k=2 objective at (-w/2, w/2) is half the binary one at w."""
    rng = np.random.RandomState(global_random_seed)
    n = 30
    X = rng.randn(n, 3)
    pairs = make_pairs([[0, 1], [4, 9]], [[0, n - 1], [2, 5]], n)
    binary = MMCObjective(X, 2, 1.5, 0.2, C_pairs=0.7, pairs=pairs)
    multi = MMCObjective(X, 2, 1.5, 0.2, C_pairs=0.7, pairs=pairs, multiclass=True)
    for _ in range(5):
        w, t = rng.randn(1, 3), 0.3 * rng.randn(1)
        xm = (np.vstack([-w / 2, w / 2]), np.array([-t[0] / 2, t[0] / 2]))
        assert multi.value(xm) == pytest.approx(binary.value((w, t)) / 2, rel=1e-12)
        assert multi.pair_value(xm) == pytest.approx(binary.pair_value((w, t)) / 2, rel=1e-12)


def test_paper_cannot_link_is_smallest_at_zero_and_ours_is_not():
    """The paper's cannot-link term vanishes at f = 0; the pair margin is 1 there and 0
    for a pair confidently in two clusters, which the paper's term charges."""
    z = np.array([-1.0])
    zero = np.zeros((1, 3))
    apart_u, apart_v = np.array([[2.0, -1.0, -1.0]]), np.array([[-1.0, 2.0, -1.0]])
    assert paper_pair_loss(zero, zero, z)[0][0] == 0.0
    assert paper_pair_loss(apart_u, apart_v, z)[0][0] > 0.0
    assert pair_margin_loss(zero, zero, z)[0] == 1.0
    assert pair_margin_loss(apart_u, apart_v, z)[0] == 0.0
    together = pair_margin_loss(apart_u, apart_u, z)[0]
    assert together > 1.0


@pytest.mark.parametrize("k", [2, 3, 4])
def test_linearised_pair_margin_majorises_touches_and_has_the_right_gradient(
    k, global_random_seed
):
    rng = np.random.RandomState(global_random_seed)
    m = 25
    z = np.where(rng.rand(m) < 0.5, 1.0, -1.0)
    Fu0, Fv0 = rng.randn(m, k), rng.randn(m, k)
    _, p, q = best_allowed(Fu0, Fv0, z)
    lin0 = linearised_pair_margin(Fu0, Fv0, z, p, q)[0]
    np.testing.assert_allclose(lin0, pair_margin_loss(Fu0, Fv0, z), atol=1e-12)  # touches
    for _ in range(10):
        Fu, Fv = rng.randn(m, k), rng.randn(m, k)
        loss, Gu, Gv = linearised_pair_margin(Fu, Fv, z, p, q)
        assert np.all(loss >= pair_margin_loss(Fu, Fv, z) - 1e-12)  # majorises
        # the gradient by central finite differences (piecewise linear: exact off the kinks)
        eps = 1e-7
        Du, Dv = rng.randn(m, k), rng.randn(m, k)
        plus = linearised_pair_margin(Fu + eps * Du, Fv + eps * Dv, z, p, q)[0]
        minus = linearised_pair_margin(Fu - eps * Du, Fv - eps * Dv, z, p, q)[0]
        fd = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(fd, (Gu * Du).sum(axis=1) + (Gv * Dv).sum(axis=1), atol=1e-6)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("kind", ["margin", "paper"])
def test_pair_plane_gradient_in_the_weights(k, kind, global_random_seed):
    """The pair term's plane (through the gathered rows, centred and scaled) against
    finite differences of its risk in (W, t)."""
    rng = np.random.RandomState(global_random_seed)
    n = 40
    X = 3.0 * rng.randn(n, 4) + 5.0
    pairs = make_pairs([[0, 1], [2, 3], [1, 7]], [[0, n - 1], [5, 9], [3, 11]], n)
    obj = MMCObjective(X, k, 1.0, 0.2, C_pairs=2.0, pairs=pairs, pair_loss=kind)
    pt = obj.pair_term
    x0 = (rng.randn(obj.q, 4), 0.1 * rng.randn(obj.q))
    assign = pt.assignment(pt.scores(*x0))
    for _ in range(5):
        W, t = rng.randn(obj.q, 4), 0.2 * rng.randn(obj.q)
        risk, gW, gt = pt.plane(W, t, assign)
        assert risk == pytest.approx(pt.risk(W, t, assign))
        eps = 1e-7
        DW, Dt = rng.randn(*W.shape), rng.randn(*t.shape)
        fd = pt.risk(W + eps * DW, t + eps * Dt, assign)
        fd -= pt.risk(W - eps * DW, t - eps * Dt, assign)
        assert fd / (2 * eps) == pytest.approx(np.vdot(gW, DW) + gt @ Dt, rel=1e-5, abs=1e-7)


def test_offset_hinges_reproduce_the_pair_risk_in_t(global_random_seed):
    """Binary polish: the pairs' hinges in t equal their surrogate risk up to a constant."""
    rng = np.random.RandomState(global_random_seed)
    n = 30
    X = rng.randn(n, 3)
    pairs = make_pairs([[0, 1], [2, 3]], [[0, n - 1], [4, 5], [6, 7]], n)
    for kind in ("margin", "paper"):
        obj = MMCObjective(X, 2, 1.0, 0.2, C_pairs=1.0, pairs=pairs, pair_loss=kind)
        pt = obj.pair_term
        W = rng.randn(1, 3)
        assign = pt.assignment(pt.scores(W, rng.randn(1)))
        a, b, w = pt.offset_hinges(W, assign)
        ts = np.linspace(-3, 3, 61)
        hinge = [np.sum(w * np.maximum(0.0, a + b * t)) for t in ts]
        risk = [pt.risk(W, np.array([t]), assign) for t in ts]
        diff = np.asarray(risk) - np.asarray(hinge)
        np.testing.assert_allclose(diff, diff[0], atol=1e-10)


# ------------------------------------------------------------------ closure
def test_transitive_closure_and_implied_cannot_links():
    ml = [[0, 1], [1, 2], [5, 6]]
    cl = [[2, 5], [7, 0]]
    pairs = make_pairs(ml, cl, 10)
    c = pairs.closure
    comp = dict(zip(c.rows.tolist(), c.component.tolist()))
    assert comp[0] == comp[1] == comp[2] and comp[5] == comp[6] and comp[0] != comp[5]
    assert c.n_components == 3  # {0, 1, 2}, {5, 6}, {7}
    implied = {tuple(sorted((comp[a], comp[b]))) for a, b in cl}
    assert {tuple(r) for r in c.cannot.tolist()} == implied
    # the objective's pairs: stars and one cannot-link per pair of components; a labelling
    # satisfies them exactly when it satisfies the closure (every implied pair)
    X = np.arange(20.0).reshape(10, 2)
    red = closed_pairs(pairs, X)
    assert red.size <= pairs.size
    members = {0: [0, 1, 2], 1: [5, 6], 2: [7]}
    rng = np.random.RandomState(0)
    for _ in range(200):
        L = rng.randint(3, size=10)
        ok_red = all((L[u] == L[v]) == (z > 0) for u, v, z in zip(red.u, red.v, red.z))
        ml_all = all(L[a] == L[b] for g in members.values() for a in g for b in g)
        cl_all = all(
            L[a] != L[b]
            for ca, cb in ((comp[2], comp[5]), (comp[7], comp[0]))
            for a in c.rows[c.component == ca]
            for b in c.rows[c.component == cb]
        )
        assert ok_red == (ml_all and cl_all)


def test_contradictory_and_bad_pairs_give_clear_errors():
    with pytest.raises(ValueError, match=r"contradictory.*cannot_link \(0, 3\).*0 - 1 - 2 - 3"):
        make_pairs([[0, 1], [1, 2], [2, 3]], [[0, 3]], 5)
    with pytest.raises(ValueError, match="outside"):
        make_pairs([[0, 9]], None, 5)
    with pytest.raises(ValueError, match="outside"):
        make_pairs(None, [[-1, 2]], 5)
    with pytest.raises(ValueError, match="itself"):
        make_pairs([[2, 2]], None, 5)
    with pytest.raises(ValueError, match="shape"):
        make_pairs([0, 1, 2], None, 5)
    with pytest.raises(ValueError, match="integer"):
        make_pairs([[0.5, 1.0]], None, 5)
    # two clusters: an odd cycle of cannot-links (between must-link components)
    odd = make_pairs([[0, 1]], [[1, 2], [2, 3], [3, 0]], 5)
    with pytest.raises(ValueError, match="n_clusters=2"):
        check_two_clusters(odd.closure)
    check_two_clusters(make_pairs([[0, 1]], [[1, 2], [2, 3]], 5).closure)


def test_honour_pairs_keeps_must_links_and_repairs_cannot_links():
    # components 0 = {rows 0, 1}, 1 = {row 2}, 2 = {row 3}; cannot-links 0-1 and 1-2
    F = np.array([[3.0, 0.0, 0.0], [-1.0, 1.5, 0.0], [2.0, 0.0, 1.9], [2.0, 1.0, 0.0]])
    comp = np.array([0, 0, 1, 2])
    cannot = np.array([[0, 1], [1, 2]])
    L = honour_pairs(F, comp, cannot)
    assert L[0] == L[1] == 0  # summed scores (2, 1.5, 0): the best shared cluster
    assert L[2] != L[0] and L[2] != L[3]


def test_assign_in_order_places_components_where_one_move_cannot():
    """Every cannot-link of three groups of three (a complete tripartite graph) from
    scores that mix the groups: moving one end of a broken cannot-link finds no free
    cluster, placing the rows in turn (most confident first) separates the groups."""
    truth = np.repeat([0, 1, 2], 3)
    cannot = np.array([(a, b) for a in range(9) for b in range(a + 1, 9) if truth[a] != truth[b]])
    rng = np.random.RandomState(0)
    F = rng.rand(9, 3)
    F[np.arange(9), (truth + np.arange(9)) % 3] += 1.0  # each group spread over the clusters
    comp = np.arange(9)
    broken = [int(np.sum(L[cannot[:, 0]] == L[cannot[:, 1]]))
              for L in (honour_pairs(F, comp, cannot), assign_in_order(F, comp, cannot))]
    assert broken[0] > 0 and broken[1] == 0
    L = assign_in_order(F, comp, cannot)
    assert all(len(set(L[truth == g])) == 1 for g in range(3))
    # must-link components move as one: the summed score decides
    L = assign_in_order(np.array([[2.0, 0.0], [0.0, 1.0], [0.0, 3.0]]), np.array([0, 0, 1]),
                        np.array([[0, 1]]))
    assert L[0] == L[1] == 0 and L[2] == 1


def test_binary_form_equals_the_general_one_on_two_outputs(global_random_seed):
    """The binary fast form makes the same choices (ties included) and the same sums as
    the general function on the outputs (-f/2, f/2): equal to the last bit."""
    from marginclust.objectives._pairs import (
        binary_linearised_pair_margin,
        linearised_pair_margin,
        two_outputs,
    )

    rng = np.random.RandomState(global_random_seed)
    m = 400
    # scores with exact ties: zeros, equal pairs and opposite pairs among them
    fu = rng.choice([0.0, 0.5, -0.5, 1.0], size=m) * rng.choice([1.0, rng.rand()], size=m)
    fv = np.where(rng.rand(m) < 0.3, fu, np.where(rng.rand(m) < 0.3, -fu, rng.randn(m)))
    z = rng.choice([-1.0, 1.0], size=m)
    p, q = rng.randint(2, size=m), rng.randint(2, size=m)
    loss, gu, gv = binary_linearised_pair_margin(fu, fv, z, p, q)
    L, Gu, Gv = linearised_pair_margin(two_outputs(fu), two_outputs(fv), z, p, q)
    np.testing.assert_array_equal(loss, L)
    np.testing.assert_array_equal(gu, 0.5 * (Gu[:, 1] - Gu[:, 0]))
    np.testing.assert_array_equal(gv, 0.5 * (Gv[:, 1] - Gv[:, 0]))


def test_cheap_share_is_the_pairs_distinct_rows_over_all_rows():
    """The refinement target's share: distinct rows the pair part reads over the data's rows
    (0 without pairs, at most 1)."""
    from marginclust.objectives._constraints import make_pairs
    from marginclust.objectives._mmc import MMCObjective

    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    ml, cl = [[0, 1], [1, 2], [5, 6]], [[0, 7], [9, 6]]
    obj = MMCObjective(X, 3, 1.0, 0.1, C_pairs=1.0, pairs=make_pairs(ml, cl, 40))
    sub = obj.surrogate(rng.randint(3, size=40))
    assert sub.cheap_share == len({0, 1, 2, 5, 6, 7, 9}) / 40
    assert MMCObjective(X, 3, 1.0, 0.1).surrogate(rng.randint(3, size=40)).cheap_share == 0.0
    every = [[i, i + 1] for i in range(0, 40, 2)]
    full = MMCObjective(X, 2, 1.0, 0.1, C_pairs=1.0, pairs=make_pairs(every, None, 40))
    assert full.surrogate(rng.randint(2, size=40)).cheap_share == 1.0

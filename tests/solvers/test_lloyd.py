"""Chunked Lloyd solver: same iterates as the literal oracle, monotone, relocation, dtype."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust.solvers._lloyd import lloyd
from tests._oracles.pkm_dense import literal_lloyd


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("chunk_rows", [7, None])
def test_same_iterates_as_literal_lloyd(seed, chunk_rows):
    # Same iterates up to rounding: every assignment on the oracle's path clears its tie
    # (or the move threshold) by more than 1e-4 max ||x||^2 (measured for these seeds),
    # far above the rounding of an expanded distance (1e-15 of it), so the labels are the
    # oracle's; centres and J are then sums of the same terms in another order, within
    # n eps of each other.
    rng = np.random.RandomState(seed)
    X = rng.randn(120, 3) + rng.randint(0, 3, size=(120, 1))  # overlapping groups: many steps
    X -= X.mean(axis=0)
    C0 = X[rng.choice(120, size=4, replace=False)]
    thr = 1e-9 * float((X**2).sum(axis=1).mean())
    lab_ref, C_ref, hist_ref, n_ref = literal_lloyd(X, C0, thr)
    res = lloyd(X, C0, thr=thr, chunk_rows=chunk_rows)
    labels, C = res.x
    assert res.converged and res.n_iter == n_ref > 2
    np.testing.assert_array_equal(labels, lab_ref)
    np.testing.assert_allclose(C, C_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.objective_history, hist_ref, rtol=1e-10)
    assert res.objective == pytest.approx(hist_ref[-1], rel=1e-10)
    assert np.all(np.diff(res.objective_history) <= 0)


def test_start_from_labels_matches_start_from_their_centres():
    X, y = make_blobs(200, 4, centers=3, cluster_std=3.0, random_state=0)
    X -= X.mean(axis=0)
    lab0 = np.random.RandomState(0).randint(3, size=200)
    C0 = np.array([X[lab0 == j].mean(axis=0) for j in range(3)])
    a = lloyd(X, np.zeros((3, 4)), labels=lab0)
    b = lloyd(X, C0)
    np.testing.assert_array_equal(a.x[0], b.x[0])
    assert a.objective == pytest.approx(b.objective, rel=1e-12)


def test_empty_cluster_is_reseeded_with_the_farthest_point():
    X, _ = make_blobs(60, 2, centers=2, cluster_std=1.0, random_state=0)
    X -= X.mean(axis=0)
    C0 = np.vstack([X[:2], [[1e3, 1e3]]])  # the third seed attracts no point
    res = lloyd(X, C0)
    labels, C = res.x
    assert res.info["n_relocated"] >= 1
    assert np.bincount(labels, minlength=3).min() >= 1
    assert np.all(np.isfinite(C))
    assert np.all(np.diff(res.objective_history) <= 1e-12 * res.objective_history[0])


def test_float32_kept_and_agrees_with_float64():
    X, _ = make_blobs(500, 5, centers=4, cluster_std=1.0, random_state=3)
    X -= X.mean(axis=0)
    C0 = X[[0, 100, 200, 300]]
    a = lloyd(X, C0)
    b = lloyd(X.astype(np.float32), C0)
    # every assignment on the path has a margin above 3e-4 max ||x||^2, over 1e3 times
    # the float32 rounding of a distance: the same labels
    np.testing.assert_array_equal(a.x[0], b.x[0])
    # J = ||X||^2 - sum_j ||S_j||^2 / m_j with S_j summed in float32: a relative error r
    # of the sums moves J by about 2 r (||X||^2 / J) J (cond = ||X||^2 / J = 23 here); the
    # rounding error of a sum of at most n float32 terms stays below sqrt(n) eps32 with
    # high probability (Higham & Mary 2019), 2.7e-6 for n = 500.
    cond = float((X**2).sum()) / a.objective
    assert b.objective == pytest.approx(a.objective, rel=2 * cond * np.sqrt(500) * 2.0**-23)


def test_max_iter_stops_without_convergence():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 2)
    res = lloyd(X, X[:5], max_iter=1)
    assert res.n_iter == 1 and not res.converged and "max_iter=1" in res.message


def test_two_threads_give_the_same_partition():
    X, _ = make_blobs(40000, 3, centers=5, cluster_std=3.0, random_state=0)
    X -= X.mean(axis=0)
    C0 = X[:5].copy()
    a = lloyd(X, C0, n_threads=1)
    b = lloyd(X, C0, n_threads=2)
    np.testing.assert_array_equal(a.x[0], b.x[0])
    assert a.n_iter == b.n_iter
    assert b.objective == pytest.approx(a.objective, rel=1e-10)


def _literal_split(X, labels, empty, max_steps=20):
    """The split re-seed written out: the cluster of largest sum of squares, two-means
    from its mean and its farthest row, the far half to the empty cluster."""
    lab = labels.copy()
    sse = np.array([((X[lab == c] - X[lab == c].mean(axis=0)) ** 2).sum()
                    if np.count_nonzero(lab == c) > 1 else 0.0 for c in range(lab.max() + 2)])
    c = int(np.argmax(sse))
    idx = np.flatnonzero(lab == c)
    mean = X[idx].mean(axis=0)
    far = idx[np.argmax(((X[idx] - mean) ** 2).sum(axis=1))]
    centres = np.vstack([mean, X[far]])
    for _ in range(max_steps):
        d = ((X[idx, None, :] - centres[None]) ** 2).sum(-1)
        new = np.where(d[:, 1] < d[:, 0], empty, c)
        moved = np.count_nonzero(new != lab[idx])
        lab[idx] = new
        centres = np.vstack([X[idx][new == c].mean(axis=0), X[idx][new == empty].mean(axis=0)])
        if moved == 0:
            break
    return lab, c


@pytest.mark.parametrize("block_rows", [17, 1000])
def test_split_reseed_fills_an_empty_cluster_with_half_of_the_widest(block_rows):
    from marginclust.solvers._lloyd import split_reseeded_start
    from marginclust.utils._blocks import RowBlocks

    # four blobs 10 spreads apart: the split parts the two merged ones exactly
    X, y = make_blobs(300, 3, centers=10.0 * np.vstack([np.zeros(3), np.eye(3)]),
                      cluster_std=1.0, random_state=0)
    X -= X.mean(axis=0)
    labels = np.where(y == 3, 0, y)  # two blobs merged in cluster 0; cluster 3 empty
    rows = RowBlocks(X, block_rows=block_rows)
    U, splits = split_reseeded_start(rows, rows.split(labels), 4)
    got = np.argmax(U, axis=1)
    want, c = _literal_split(X, labels, 3)
    assert c == 0 and splits == [(3, 0, int(np.count_nonzero(want == 3)))]
    np.testing.assert_array_equal(U.sum(axis=1), 1.0)
    # the rows of the other clusters keep their labels; the merged blobs are parted
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(y[got == 3])) in ({0}, {3})


def test_split_reseed_leaves_clusters_of_identical_rows():
    from marginclust.solvers._lloyd import split_reseeded_start
    from marginclust.utils._blocks import RowBlocks

    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0]]), 10, axis=0)
    rows = RowBlocks(X)
    U, splits = split_reseeded_start(rows, rows.split(np.repeat([0, 1], 10)), 3)
    assert splits == []
    np.testing.assert_array_equal(np.argmax(U, axis=1), np.repeat([0, 1], 10))

"""The generated suites of ``benchmarks/bench_auto_k.py``: what each case holds."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def bench(load_benchmark):
    return load_benchmark("bench_auto_k")


def test_the_small_suite_holds_few_points_without_clusters_and_blobs_far_apart(bench):
    cases = list(bench.cases("small", None, 3000))
    null = [c for c in cases if c.ks == [1]]
    blobs = [c for c in cases if c.ks != [1]]
    assert (len(null), len(blobs)) == (240, 180)
    assert {c.X.shape[0] for c in null} == {20, 30, 60, 100}
    assert {c.X.shape[1] for c in null} == {1, 2, 5}
    for case in blobs:
        y = case.refs[0]
        assert case.ks == [int(y.max())] and case.X.shape[0] in (30, 60, 100)
        centres = np.array([case.X[y == k].mean(axis=0) for k in np.unique(y)])
        # drawn at least 8 sd apart; the sample means move by about sd / sqrt(size)
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
        assert gaps[np.triu_indices(len(centres), 1)].min() > 5.0


def test_the_separated_centres_keep_their_distance(bench):
    C = bench.separated_centres(5, 2, np.random.RandomState(0), 8.0)
    gaps = np.linalg.norm(C[:, None] - C[None], axis=-1)[np.triu_indices(5, 1)]
    assert gaps.min() >= 8.0 and np.all(np.abs(C) <= 10.0)


def test_the_curves_are_one_cluster_of_the_stated_shapes(bench):
    cases = list(bench.cases("curves", None, 3000))
    assert len(cases) == 120 and all(c.ks == [1] for c in cases)
    ring = bench._curve("ring2", 2000, 0)
    radius = np.linalg.norm(ring, axis=1)
    assert abs(np.median(radius) - 1.0) < 0.01 and abs(np.std(radius) - 0.065) < 0.005
    assert bench._curve("ring3", 10, 0).shape == (10, 3)
    with pytest.raises(ValueError, match="unknown curve"):
        bench._curve("spiral", 10, 0)


def test_an_unknown_suite_is_refused(bench):
    with pytest.raises(ValueError, match="unknown suite"):
        list(bench.cases("smal", None, 3000))

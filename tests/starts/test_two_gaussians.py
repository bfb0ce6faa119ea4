"""Two Gaussians too close for a valley the sample can show: the mixture's own test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from marginclust import MaxMarginClustering
from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.starts._gaussian_pair import two_gaussians
from marginclust.starts._separation import pair_separations
from marginclust.starts._valley import VALLEY


def _gaussians(apart, seed, n=300, d=2):
    rng = np.random.RandomState(seed)
    shift = np.zeros(d)
    shift[0] = apart
    Z = np.r_[rng.randn(n, d), rng.randn(n, d) + shift]
    return Z, (Z[:, 0] > apart / 2).astype(np.intp)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("d", [2, 3])
def test_two_gaussians_three_sd_apart_are_two(seed, d):
    Z, split = _gaussians(3.0, seed, d=d)
    assert two_gaussians(Z, split, None)


@pytest.mark.parametrize("seed", range(4))
def test_one_gaussian_cut_in_two_is_not(seed):
    Z = np.random.RandomState(seed).randn(600, 2)
    assert not two_gaussians(Z, (Z[:, 0] > 0).astype(np.intp), None)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n, d", [(200, 2), (1000, 2), (1000, 3)])
def test_uniform_data_cut_in_two_are_not(seed, n, d):
    Z = np.random.RandomState(seed).uniform(size=(n, d)) * np.arange(1, d + 1)
    assert not two_gaussians(Z, (Z[:, -1] > np.median(Z[:, -1])).astype(np.intp), None)


@pytest.mark.parametrize("seed", range(4))
def test_a_moon_cut_in_two_is_not(seed):
    rng = np.random.RandomState(seed)
    angle = rng.uniform(0.0, np.pi, 500)
    Z = np.c_[np.cos(angle), np.sin(angle)] + 0.1 * rng.randn(500, 2)
    assert not two_gaussians(Z, (Z[:, 0] > 0).astype(np.intp), None)


def test_copies_count_once():
    Z, split = _gaussians(3.0, 0)
    for seed in range(3):
        Zs, ss = _gaussians(2.0 + seed, seed)
        once = two_gaussians(Zs, ss, None)
        assert two_gaussians(Zs, ss, np.full(Zs.shape[0], 3.0)) is once
    assert two_gaussians(Z, split, np.full(Z.shape[0], 2.0))


def test_too_few_points_or_one_column_are_not_judged():
    Z, split = _gaussians(3.0, 0, n=15)
    assert not two_gaussians(Z, split, None)
    Z, split = _gaussians(6.0, 0, d=1)
    assert not two_gaussians(Z, split, None)


def test_the_mixture_stands_in_for_a_valley_the_sample_cannot_show():
    Z, split = _gaussians(3.0, 2)
    graph = NeighborGraph.from_data(Z, 7)
    (pair,) = pair_separations(Z, split, 2, graph.indices)
    assert pair.valley < VALLEY  # the density's valley alone would merge them
    assert pair.gaussians and pair.clear


def test_three_blobs_with_two_three_sd_apart_are_three_clusters():
    rng = np.random.RandomState(0)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 9.0]])
    X = np.concatenate([rng.randn(300, 2) + c for c in centres])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = MaxMarginClustering(n_clusters="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 3


@pytest.mark.parametrize("seed", range(4))
def test_two_pieces_of_an_arc_are_not(seed):
    # a half circle in three pieces of about 80 points: across the line between two
    # pieces' means an arc is nearly straight, but along it each piece ends (its far tail
    # is flat)
    rng = np.random.RandomState(seed)
    angle = rng.uniform(0.0, np.pi, 250)
    Z = np.c_[np.cos(angle), np.sin(angle)] + 0.06 * rng.randn(250, 2)
    piece = np.minimum((angle / (np.pi / 3)).astype(np.intp), 2)
    pair = piece < 2
    assert not two_gaussians(Z[pair], piece[pair], None)

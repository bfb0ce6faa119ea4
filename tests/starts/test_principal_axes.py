"""Weighted principal axes: the cut, the references and the box of a weighted union.

A point's weight counts in the union's shape as it does in the vote: the
principal-axis cut (the neck's and the halves' of a cluster), the structureless
references and the box's likelihood all take the weighted mean and covariance.
"""

import numpy as np
import pytest

from marginclust.starts._gaussian_pair import _box_bic
from marginclust.starts._references import principal_axes, principal_split, structureless_reference


def _data(seed=0, m=300):
    rng = np.random.RandomState(seed)
    Z = rng.randn(m, 3) @ np.array([[3.0, 0.0, 0.0], [1.0, 1.5, 0.0], [0.0, 0.0, 0.5]])
    return Z + [2.0, -1.0, 0.5]


def _same_partition(a, b):
    return np.array_equal(a, b) or np.array_equal(a, 1 - b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_axes_are_those_of_numpys_weighted_covariance(seed):
    Z = _data(seed)
    w = np.random.RandomState(seed + 10).uniform(0.2, 3.0, Z.shape[0])
    mean, centred, sd, vt = principal_axes(Z, w)
    cov = np.cov(Z.T, aweights=w)
    values, vectors = np.linalg.eigh(cov)
    order = np.argsort(values)[::-1]
    # eigen-decomposition and SVD agree to a few units of rounding in the covariance's
    # scale (its eigenvalues here are apart by more than a tenth of the largest)
    scale = float(values.max())
    # numpy's weighted mean of weights over their largest: a sum of 300 terms of
    # magnitude at most max |Z| agrees to a few hundred units of rounding of it
    np.testing.assert_allclose(mean, np.average(Z, axis=0, weights=w), rtol=0,
                               atol=300 * np.finfo(float).eps * np.abs(Z).max())
    np.testing.assert_array_equal(centred, Z - mean)
    np.testing.assert_allclose(sd ** 2, values[order], rtol=0, atol=1e-10 * scale)
    for axis, vector in zip(vt, vectors[:, order].T):
        assert abs(float(axis @ vector)) == pytest.approx(1.0, abs=1e-10)


def test_unweighted_axes_use_the_sample_covariance():
    Z = _data(3)
    mean, _, sd, vt = principal_axes(Z, None)
    values = np.sort(np.linalg.eigvalsh(np.cov(Z.T)))[::-1]
    np.testing.assert_array_equal(mean, Z.mean(axis=0))
    np.testing.assert_allclose(sd ** 2, values, rtol=1e-10)
    # equal weights, whatever their value, are no weights
    for value in (1.0, 0.3, 7.0):
        m2, _, sd2, vt2 = principal_axes(Z, np.full(Z.shape[0], value))
        np.testing.assert_allclose(m2, mean, rtol=0, atol=1e-12 * np.abs(Z).max())
        np.testing.assert_allclose(sd2, sd, rtol=1e-10)
        np.testing.assert_allclose(np.abs(np.sum(vt2 * vt, axis=1)), 1.0, atol=1e-10)


def test_weighted_cut_is_the_cut_of_the_repeated_rows():
    # a long cloud with heavy points at one end: the weighted mean moves towards them
    rng = np.random.RandomState(4)
    Z = rng.randn(200, 2) * [4.0, 1.0]
    w = np.where(Z[:, 0] > 2.0, 5, 1)
    weighted = principal_split(Z, w.astype(np.float64))
    repeated = principal_split(np.repeat(Z, w, axis=0))
    first = np.r_[0, np.cumsum(w)[:-1]]
    # no point lies near either hyperplane, so the partitions cannot differ by rounding
    _, centred, _, vt = principal_axes(Z, w.astype(np.float64))
    assert np.min(np.abs(centred @ vt[0])) > 1e-6
    assert _same_partition(weighted, repeated[first])
    # and the weights matter: unweighted, the cut is elsewhere
    assert not _same_partition(weighted, principal_split(Z))


def test_weighted_gaussian_reference_has_the_weighted_mean_and_covariance():
    Z = _data(5, m=20000)
    w = np.where(Z[:, 0] > 2.0, 4.0, 1.0)
    G = structureless_reference(Z, "gaussian", np.random.RandomState(1), w)
    assert G.shape == Z.shape
    mean = np.average(Z, axis=0, weights=w)
    cov = np.cov(Z.T, aweights=w)
    values, vectors = np.linalg.eigh(cov)
    m = Z.shape[0]
    # on each axis the sample mean errs by sd / sqrt(m), the sample variance by a
    # relative sqrt(2 / m) (Gaussian draws): five of each
    along = (G.mean(axis=0) - mean) @ vectors
    assert np.all(np.abs(along) <= 5 * np.sqrt(values / m))
    spread = np.einsum("ij,jk,ki->i", vectors.T, np.cov(G.T), vectors)
    np.testing.assert_allclose(spread, values, rtol=5 * np.sqrt(2.0 / m))
    # the unweighted reference has the other mean: the weights reach the draws
    U = structureless_reference(Z, "gaussian", np.random.RandomState(1))
    assert abs(float(U.mean(axis=0)[0] - mean[0])) > 20 * np.sqrt(values.max() / m)


def test_weighted_box_spans_the_data_on_the_weighted_axes():
    Z = _data(6, m=5000)
    w = np.where(Z[:, 1] > 0.0, 3.0, 1.0)
    B = structureless_reference(Z, "box", np.random.RandomState(2), w)
    mean, centred, _, vt = principal_axes(Z, w)
    data, box = centred @ vt.T, (B - mean) @ vt.T
    tol = 1e-9 * np.abs(data).max()
    assert np.all(box.min(axis=0) >= data.min(axis=0) - tol)
    assert np.all(box.max(axis=0) <= data.max(axis=0) + tol)
    # 5,000 uniform draws on each axis reach within a relative 0.01 of both ends with
    # probability 1 - 2 (0.99) ** 5000 per axis
    np.testing.assert_allclose(np.ptp(box, axis=0), np.ptp(data, axis=0), rtol=0.01)


def test_box_bic_on_the_weighted_axes_by_hand():
    Z = _data(7)
    w = np.random.RandomState(8).uniform(0.5, 2.0, Z.shape[0])
    total = float(w.sum())
    values, vectors = np.linalg.eigh(np.cov(Z.T, aweights=w))
    P = (Z - np.average(Z, axis=0, weights=w)) @ vectors
    expected = 2.0 * total * np.sum(np.log(np.ptp(P, axis=0))) + 2 * 3 * np.log(total)
    assert _box_bic(Z, total, w) == pytest.approx(expected, rel=1e-9)
    # the scale of the weights does not move the axes
    assert _box_bic(Z, total, 10.0 * w) == pytest.approx(expected, rel=1e-9)

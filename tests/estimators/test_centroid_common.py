"""Shared properties of the centre-based estimators: scale-free defaults, label-free grids."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from marginclust import PKM, FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans

ESTIMATORS = [PKM, FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans]


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("factor", [1e-3, 1e3])
def test_defaults_are_scale_free(Est, factor):
    X, _ = make_blobs(150, 4, centers=3, cluster_std=2.5, random_state=1)
    ref = Est(3, random_state=0).fit(X)
    other = Est(3, random_state=0).fit(X * factor)
    np.testing.assert_array_equal(other.labels_, ref.labels_)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_label_free_grid_is_small_and_fits(Est):
    X, _ = make_blobs(60, 3, centers=2, random_state=0)
    grid = Est(2)._label_free_grid(X)
    n_settings = int(np.prod([len(v) for v in grid.values()]))
    assert 1 <= n_settings <= 12
    for name, values in grid.items():
        for value in values:
            est = Est(2, random_state=0).set_params(**{name: value}).fit(X)
            assert est.n_clusters_found_ == 2


def test_kernel_grid_scales_with_the_data():
    X, _ = make_blobs(60, 3, centers=2, random_state=0)
    g1 = KernelKMeans(2)._label_free_grid(X)["gamma"]
    g2 = KernelKMeans(2)._label_free_grid(X * 10.0)["gamma"]
    np.testing.assert_allclose(np.array(g1) / 100.0, g2, rtol=1e-10)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_collapse_advice_names_own_parameters(Est):
    from marginclust.base import BaseClusterer

    advice = Est._collapse_advice
    assert advice != BaseClusterer._collapse_advice
    params = Est().get_params()
    assert any(p in advice for p in params)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_verbose_prints_to_stderr(Est, capsys):
    X, _ = make_blobs(60, 3, centers=2, random_state=0)
    Est(2, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert Est.__name__ in err and "objective" in err
    Est(2, random_state=0).fit(X)
    assert capsys.readouterr().err == ""

"""The estimators a start or a candidate fits, registered by the estimators' package."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_moons

from marginclust import EMMC, SLMC, FuzzyCMeans, KernelKMeans
from marginclust.starts._candidates import fit_candidate
from marginclust.starts._library import fcm_memberships, library_clusterer
from marginclust.starts._spectral import first_appearance_order


def test_the_estimators_package_registers_the_classes_the_starts_fit():
    for cls in (EMMC, FuzzyCMeans, KernelKMeans, SLMC):
        assert library_clusterer(cls.__name__) is cls


def test_an_unregistered_name_says_what_to_import():
    with pytest.raises(LookupError, match="marginclust.estimators"):
        library_clusterer("NoSuchClusterer")


def test_a_library_candidate_is_that_estimator_at_its_stated_parameters():
    Z = make_moons(120, noise=0.05, random_state=0)[0]
    width = 0.3
    labels, _ = fit_candidate("kernel-k-means", Z, (2,), 7, width)
    km = KernelKMeans(n_clusters=2, gamma=1.0 / (2.0 * width * width), init="k-means++",
                      n_init=10, random_state=7).fit(Z)
    np.testing.assert_array_equal(labels[2], first_appearance_order(km.labels_))


def test_the_fcm_start_is_one_fuzzy_c_means_fit():
    X = make_moons(80, noise=0.05, random_state=1)[0]
    U = fcm_memberships(X, 2, 1.5, np.random.RandomState(3))
    ref = FuzzyCMeans(n_clusters=2, m=1.5, n_init=1, random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(U, ref.fit(X).memberships_.astype(np.float64))

"""The margin search as a start: MaxMarginClustering's pick at its defaults, without it."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from sklearn.datasets import make_blobs

from marginclust import MaxMarginClustering
from marginclust.starts import _margin_start, margin_search_labels
from marginclust.starts._spectral import first_appearance_order


def test_the_start_runs_the_search_at_the_estimators_defaults():
    defaults = {name: p.default for name, p in
                inspect.signature(MaxMarginClustering).parameters.items()}
    assert defaults["n_neighbors"] == _margin_start._N_NEIGHBORS
    assert defaults["max_samples"] == "auto"  # resolved by the same fitted_sample_size
    assert defaults["C"] == _margin_start._C
    assert defaults["candidates"] == "auto"


def test_beyond_max_samples_and_with_repeated_rows_the_start_is_the_estimators_labels():
    # above max_samples the margin classifier labels the rows the search did not fit;
    # repeated rows are one point: both paths of the estimator, without the estimator
    X, _ = make_blobs(3200, 2, centers=3, random_state=4)
    X = np.r_[X, X[:40]]
    start = margin_search_labels(X, 3, np.random.RandomState(5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = MaxMarginClustering(3, random_state=np.random.RandomState(5)).fit(X)
    np.testing.assert_array_equal(start, first_appearance_order(est.labels_))


def test_the_fitted_sample_keeps_sixty_rows_a_cluster_past_fifty():
    from marginclust.starts._margin_search import fitted_sample_size

    assert [fitted_sample_size("auto", k) for k in (2, 50, 51, 100, 166, 167, 1000)] == [
        3000, 3000, 3060, 6000, 9960, 10_000, 10_000]
    assert fitted_sample_size("auto", None) == 3000  # K not known in advance
    assert fitted_sample_size(500, 1000) == 500  # an integer is a hard bound

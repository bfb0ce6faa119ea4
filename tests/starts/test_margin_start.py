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
    assert defaults["max_samples"] == _margin_start._MAX_SAMPLES
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

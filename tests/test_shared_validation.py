"""Messages every estimator gives through the shared validation (base.py, utils):
too few distinct rows for n_clusters, and the row and column of a missing, infinite or
non-numeric entry."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import marginclust
from marginclust._registry import clusterer_names
from marginclust.utils import count_distinct_rows, describe_bad_values

CLUSTERERS = clusterer_names()


def _make(name, k):
    cls = getattr(marginclust, name)
    return cls(n_clusters=k)


def _k(name):
    return 2 if getattr(getattr(marginclust, name), "_max_clusters", None) == 2 else 8


@pytest.mark.parametrize("name", CLUSTERERS)
def test_too_few_distinct_rows_is_named_by_every_estimator(name):
    k = _k(name)
    distinct = k - 1  # 7 distinct rows for 8 clusters, 1 for a binary method
    base = np.arange(distinct, dtype=float)[:, None] * [1.0, -2.0]
    X = np.repeat(base, 4, axis=0)
    with pytest.raises(ValueError, match=f"X has only {distinct} distinct row.*; "
                                         f"n_clusters={k} needs at least {k}"):
        _make(name, k).fit(X)


@pytest.mark.parametrize("name", CLUSTERERS)
def test_missing_values_in_a_dataframe_are_located_by_every_estimator(name):
    df = pd.DataFrame({"a": [0.0, 0.1, 3.0, 3.1, 0.2, 3.2], "b": [0.0, 0.2, 3.0, 2.9, 0.1, 3.0]})
    df = df.astype("Float64")
    df.loc[4, "b"] = pd.NA
    with pytest.raises(ValueError, match=r"X contains NaN \(a missing value\) at row 4, "
                                         r"column 'b'; drop or impute"):
        _make(name, 2).fit(df)


@pytest.mark.parametrize("name", CLUSTERERS)
def test_categorical_and_text_columns_are_named_by_every_estimator(name):
    df = pd.DataFrame({"a": [0.0, 0.1, 3.0, 3.1], "colour": pd.Categorical(list("rgrg"))})
    with pytest.raises(ValueError, match=r"categorical column\(s\) \['colour'\]; encode"):
        _make(name, 2).fit(df)
    text = np.array([[0.0, "x"], [0.1, "y"], [3.0, "x"], [3.1, "y"]], dtype=object)
    with pytest.raises(ValueError, match="X holds 'x' at row 0, column 1, not a number"):
        _make(name, 2).fit(text)


def test_predict_names_the_bad_entry_too():
    X = np.array([[0.0, 0.0], [0.1, 0.1], [3.0, 3.0], [3.1, 3.1]])
    est = marginclust.FuzzyCMeans(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X contains inf at row 1, column 0"):
        est.predict(np.array([[0.0, 0.0], [np.inf, 1.0]]))


def test_count_distinct_rows_stops_at_the_limit_and_handles_sparse():
    from scipy import sparse

    X = np.repeat(np.eye(3), 5, axis=0)
    assert count_distinct_rows(X, 10) == 3 and count_distinct_rows(X, 2) == 2
    assert count_distinct_rows(sparse.csr_matrix(X), 10) == 3
    assert count_distinct_rows(np.arange(2000.0)[:, None], 5) == 5


def test_describe_bad_values_is_none_for_clean_data():
    assert describe_bad_values(np.ones((3, 2))) is None
    assert describe_bad_values(pd.DataFrame({"a": [1, 2]})) is None

"""scikit-learn's clients on every public estimator, and sample weights as repeated rows.

What a user's code does with an estimator beyond ``check_estimator``: a pipeline
with ``set_output(transform="pandas")``, ``clone``, a pickle round trip,
``GridSearchCV`` with a scorer that calls ``predict``, and a DataFrame whose columns
come back reordered or renamed at predict. The estimators are those of
``tests/test_common.py`` (the registry and the meta-estimators), fitted on three
well-separated blobs. Then sample weights: an integer weight acts as that many
copies of the row in every rule of the fit (FuzzyCMeans' ``m="auto"``, the
``gamma="sigma0"`` width, the stopping rules), so only the random start separates a
weighted fit from the fit on repeated rows, which is the reason the registry gives
for scikit-learn's sample-weight check.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score, make_scorer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle
from sklearn.utils.validation import check_is_fitted

from marginclust import FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans
from marginclust.estimators._fcm import auto_fuzzifier
from tests.test_common import all_instances

pd = pytest.importorskip("pandas")

ESTIMATORS = all_instances()
METHODS = ("predict", "predict_proba", "transform")


def _inner(est):
    """The estimator whose clusters a meta-estimator fits."""
    return getattr(est, "estimator", est)


def _setup(est):
    """``est`` for the blobs: 3 clusters (2 for binary methods), random_state 0."""
    binary = getattr(type(_inner(est)), "_max_clusters", None) == 2
    params = {}
    for key in est.get_params():
        if key.endswith("random_state"):
            params[key] = 0
        elif key.endswith("n_clusters"):
            params[key] = 2 if binary else 3
    return clone(est).set_params(**params), binary


def _blobs(binary=False):
    k = 2 if binary else 3
    rng = np.random.RandomState(0)
    centres = 6.0 * np.eye(4)[:k]
    y = np.repeat(np.arange(k), 30)
    X = centres[y] + rng.randn(y.size, 4)
    X, y = shuffle(X, y, random_state=0)
    return pd.DataFrame(X, columns=["w", "x", "y", "z"]), y


def _methods(est):
    return [m for m in METHODS if hasattr(est, m)]


ids = [type(e).__name__ + ("" if _inner(e) is e else f"-{type(_inner(e)).__name__}")
       for e in ESTIMATORS]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_pipeline_with_pandas_output(estimator):
    est, binary = _setup(estimator)
    X, _ = _blobs(binary)
    pipe = make_pipeline(StandardScaler(), est).set_output(transform="pandas")
    pipe.fit(X)
    Z = StandardScaler().fit_transform(X.to_numpy())
    alone = clone(est).fit(Z)
    if hasattr(est, "transform"):
        out = pipe.transform(X)
        assert isinstance(out, pd.DataFrame)
        assert list(out.columns) == list(pipe[-1].get_feature_names_out())
        assert out.index.equals(X.index)
        # the same fit on the array: the values of the DataFrame, another memory layout
        np.testing.assert_allclose(out.to_numpy(), alone.transform(Z), rtol=1e-7, atol=1e-9)
        fitted = clone(est).set_output(transform="pandas").fit_transform(X)
        assert isinstance(fitted, pd.DataFrame) and fitted.shape[1] == out.shape[1]
    if hasattr(est, "predict"):
        labels = pipe.predict(X)
        assert labels.shape == (len(X),) and labels.dtype.kind == "i"
        assert adjusted_rand_score(labels, alone.predict(Z)) == pytest.approx(1.0)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_clone_and_pickle_round_trip(estimator):
    est, binary = _setup(estimator)
    X, _ = _blobs(binary)
    fitted = clone(est).fit(X)
    copy = clone(fitted)
    assert repr(copy.get_params()) == repr(est.get_params())
    with pytest.raises(NotFittedError):
        check_is_fitted(copy)
    restored = pickle.loads(pickle.dumps(fitted))
    for method in _methods(fitted):
        # the same model and data: the same operations in the same order
        np.testing.assert_array_equal(getattr(restored, method)(X), getattr(fitted, method)(X))


def _search(est, binary):
    """A grid over what the estimator has: the cluster count (not for binary methods)
    and the seed; ELMFeatures (no predict) through a KMeans step."""
    if not hasattr(est, "predict"):
        pipe = make_pipeline(est, KMeans(3, n_init=2, random_state=0))
        return pipe, {"elmfeatures__n_hidden": [10, 20]}
    grid = {key: [0, 1] for key in est.get_params() if key.endswith("random_state")}
    params = est.get_params()
    if not binary:
        # StabilitySearch chooses n_clusters itself: its seed is searched only
        keys = ["n_clusters"] if "n_clusters" in params else (
            [] if "param_grid" in params else ["estimator__n_clusters"])
        grid.update({key: [2, 3] for key in keys})
    return est, grid


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_grid_search_with_a_predict_scorer(estimator):
    est, binary = _setup(estimator)
    X, y = _blobs(binary)
    model, grid = _search(est, binary)
    assert grid, "nothing to search"
    search = GridSearchCV(model, grid, scoring=make_scorer(adjusted_rand_score), cv=2,
                          error_score="raise").fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    best = search.best_estimator_
    assert search.score(X, y) == adjusted_rand_score(y, best.predict(X))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=ids)
def test_dataframe_columns_reordered_or_renamed_at_predict(estimator):
    est, binary = _setup(estimator)
    X, _ = _blobs(binary)
    fitted = clone(est).fit(X)
    methods = _methods(fitted)
    assert methods
    for method in methods:
        getattr(fitted, method)(X)  # the columns of fit
        with pytest.raises(ValueError, match="Feature names must be in the same order"):
            getattr(fitted, method)(X[["z", "y", "x", "w"]])
        with pytest.raises(ValueError, match="Feature names unseen at fit time"):
            getattr(fitted, method)(X.rename(columns={"w": "v"}))


TRANSFORMERS = [(e, i) for e, i in zip(ESTIMATORS, ids, strict=True) if hasattr(e, "transform")]


@pytest.mark.parametrize(
    "estimator", [e for e, _ in TRANSFORMERS], ids=[i for _, i in TRANSFORMERS]
)
def test_float32_kept_exactly_where_the_tags_say(estimator):
    est, binary = _setup(estimator)
    X, _ = _blobs(binary)
    X32 = X.to_numpy(dtype=np.float32)
    kept = clone(est).fit(X32).transform(X32).dtype == np.float32
    declared = "float32" in est.__sklearn_tags__().transformer_tags.preserves_dtype
    assert kept == declared


# ---------------------------------------------------------------- sample weights
def _check_data():
    """The data and weights of scikit-learn's sample-weight check: 15 points in 30
    dimensions, integer weights 0-4 (zeros included), the weighted rows shuffled."""
    rng = np.random.RandomState(42)
    X = rng.rand(15, 30)
    rng.randint(0, 3, size=15)  # the check's y: keeps its draw of the weights
    w = rng.randint(0, 5, size=15)
    Xw, ww = shuffle(X, w, random_state=0)
    return X, np.repeat(X, w, axis=0), Xw, ww


KERNEL_OR_FUZZY = [FuzzyCMeans, KernelFuzzyCMeans, KernelKMeans]


@pytest.mark.parametrize("Est", KERNEL_OR_FUZZY)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("tol", [1e-4, 1e-10])
def test_weighted_fit_equals_repeated_rows_from_one_start(Est, k, tol):
    X, Xr, Xw, ww = _check_data()
    V0 = X[[0, 3, 5][:k]] * 0.9 + 0.05  # one start for both: the only random step fixed
    a = Est(k, init=V0, tol=tol, max_iter=3000).fit(Xr)
    b = Est(k, init=V0, tol=tol, max_iter=3000).fit(Xw, sample_weight=ww)
    # the default rules see the same data: m="auto" counts the weights (FCM), the
    # sigma0 width is the mean over the repeated rows' pairs (kernel methods)
    if Est is FuzzyCMeans:
        assert a.m_ == b.m_ == auto_fuzzifier(ww.sum(), X.shape[1])
    else:
        assert b.gamma_ == pytest.approx(a.gamma_, rel=1e-12)
    # the stopping rules read only rows of positive weight: both runs take the same
    # steps (sums of the same terms grouped otherwise, n eps apart) and stop together,
    # so they agree to rounding whatever tol is
    assert a.n_iter_ == b.n_iter_
    np.testing.assert_allclose(b.cluster_centers_, a.cluster_centers_, rtol=1e-9, atol=1e-12)
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-9)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))
    if hasattr(a, "predict_proba"):
        np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), atol=1e-9)


def test_auto_fuzzifier_counts_the_weights():
    X, Xr, Xw, ww = _check_data()
    b = FuzzyCMeans(2, random_state=0).fit(Xw, sample_weight=ww)
    assert b.m_ == auto_fuzzifier(ww.sum(), 30) == FuzzyCMeans(2, random_state=0).fit(Xr).m_
    # in 30 dimensions the formula depends on n: rows would give another fuzzifier
    assert b.m_ != pytest.approx(auto_fuzzifier(15, 30), rel=1e-3)
    # unit weights are the unweighted fit, bitwise
    np.testing.assert_array_equal(
        FuzzyCMeans(2, random_state=0).fit(X, sample_weight=np.ones(15)).memberships_,
        FuzzyCMeans(2, random_state=0).fit(X).memberships_)


@pytest.mark.parametrize("Est", [FuzzyCMeans, KernelFuzzyCMeans])
def test_check_failure_is_only_the_start(Est):
    # scikit-learn's check at random_state=0: the weighted rows shuffled, the k-means++
    # draws differ; both fits reach the same fixed point, clusters numbered otherwise
    X, Xr, Xw, ww = _check_data()
    a = Est(random_state=0, tol=1e-10, max_iter=3000).fit(Xr)
    b = Est(random_state=0, tol=1e-10, max_iter=3000).fit(Xw, sample_weight=ww)
    Pa, Pb = a.predict_proba(X), b.predict_proba(X)
    best = min(np.abs(Pa - Pb[:, perm]).max() for perm in ([0, 1], [1, 0]))
    assert best < 1e-7

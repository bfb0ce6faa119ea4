"""``DaskClusterer``: fit a marginclust estimator on a dask array, pass by pass.

The estimator's own ``fit`` runs on :class:`~marginclust.dask.DaskRows`, the
row-block backend over the dask array's chunks: its restart, written once
against the row-block interface, makes every pass over X through the backend
(one graph execution per pass), and its fitted attributes are exactly those of
an in-memory fit, with the per-row ones (``labels_``, ``memberships_``) lazy.
In-memory data (NumPy, pandas) are fitted and predicted by the estimator itself,
so the wrapper works in scikit-learn's pipelines, searches and checks too.
"""

from __future__ import annotations

from typing import Any, ClassVar

import dask.array as da
import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin, clone
from sklearn.utils import get_tags
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from marginclust._registry import ESTIMATORS, estimator_class

from ..base import fits_out_of_core
from ..utils import Constraint, Rule, check_parameters
from ._backend import DaskRows
from ._ops import check_dask_array

__all__ = ["DaskClusterer", "supported_estimators"]


def supported_estimators() -> list[str]:
    """Names of the estimator classes ``DaskClusterer`` can fit.

    Returns
    -------
    names : list of str
        The registered clusterers whose restarts run on a row-block backend
        (:func:`marginclust.base.fits_out_of_core`), sorted.

    Examples
    --------
    >>> "FuzzyCMeans" in supported_estimators()
    True
    """
    return sorted(
        spec.name for spec in ESTIMATORS
        if spec.clusterer and fits_out_of_core(estimator_class(spec.name))
    )


class _OutOfCoreEstimator(Rule):
    """``estimator``: an instance of a class that fits out of core (see supported_estimators)."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if not fits_out_of_core(value):
            raise TypeError(
                f"DaskClusterer cannot fit {name}={type(value).__name__}() on a dask array: "
                "its solver needs all of X at once (an n x n kernel, a QP or libsvm). "
                f"Supported: {', '.join(supported_estimators())}. Restarts and parameter "
                "searches of any estimator can still run in parallel on a dask cluster "
                "through joblib's dask backend (with joblib.parallel_backend('dask'): ...) "
                "on in-memory data."
            )
        return value

    def _invalid(self) -> tuple[Any, ...]:
        """An estimator whose solver needs all of X, and a string."""
        from sklearn.cluster import KMeans

        return (KMeans(), "FuzzyCMeans")


def _is_lazy(X: Any) -> bool:
    """A dask collection (array or DataFrame): the out-of-core path."""
    return type(X).__module__.split(".")[0] == "dask" or hasattr(X, "__dask_graph__")


def _estimator_has(method: str) -> Any:
    """``available_if`` test: the wrapped estimator (fitted one if any) has ``method``."""

    def check(self: Any) -> bool:
        return hasattr(getattr(self, "estimator_", self.estimator), method)

    return check


def _block_predict(Xb: np.ndarray, est: Any) -> np.ndarray:
    return np.asarray(est.predict(Xb), dtype=np.intp)


def _block_method(Xb: np.ndarray, est: Any, method: str) -> np.ndarray:
    return np.asarray(getattr(est, method)(Xb))


class DaskClusterer(TransformerMixin, ClusterMixin, BaseEstimator):
    """Fit a marginclust clusterer on a dask array, one graph execution per iteration.

    The fitted model attributes (``cluster_centers_``, ``objective_history_``,
    ``n_iter_``, ``converged_``, ...) are NumPy arrays and numbers under the same
    names as after the estimator's own ``fit``; ``labels_`` (and ``memberships_``
    for soft methods) are lazy dask arrays with the row chunks of X. X is never
    gathered: the estimator's ``fit`` runs on :class:`DaskRows`, whose passes map
    the in-memory block functions over the chunks and bring back only per-chunk
    sums (centre sums and weights: O(n_clusters x n_features) per chunk).

    Works with any dask scheduler (synchronous, threads, processes or an active
    ``distributed.Client``). In-memory data (a NumPy array, a pandas DataFrame) are
    fitted by the estimator itself and every result is then NumPy, so the wrapper
    can stand in a scikit-learn pipeline or search (a DataFrame's column names are
    checked at predict, as by the estimator). ``transform`` (and ``set_output``)
    exist when the estimator has ``transform``.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted marginclust estimator of a supported class (see
        :func:`marginclust.dask.supported_estimators`); it is cloned at fit.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted clone (usable on NumPy data).
    labels_ : dask array of shape (n_samples,)
        Lazy labels of the training rows.
    memberships_ : dask array of shape (n_samples, n_clusters)
        Lazy memberships (soft methods only).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of a (pandas) DataFrame seen in ``fit`` (only then); a
        DataFrame whose columns differ in name or order at ``predict`` is refused.

    Other fitted attributes are those of the estimator (NumPy).

    Notes
    -----
    The initialisation (``init="k-means++"`` or ``"random"``) is drawn from a
    uniform sample of rows fetched blockwise (k-means++ on a sample, as dask-ml
    documents); when X has no more rows than the sample, the sample is all of X
    and the start is the in-memory one. Under the synchronous scheduler, with
    row chunks equal to the in-memory solver's blocks, the fit is bitwise equal
    to the in-memory fit; otherwise it differs by the rounding of sums grouped
    differently.

    The lazy ``labels_`` / ``memberships_`` are the estimator's final
    assignment step mapped over the chunks of X (the estimator's ``predict``):
    graphs over X that a pickled model carries (some attributes, e.g. EMMC's
    ``init_labels_``, are graphs over the labels the workers kept: futures of
    the client that fitted). Under ``distributed``, compute what you need
    before the client closes.

    :class:`~marginclust.MaxMarginClustering` runs its search in memory on a
    sample of ``max(max_samples_, max_vote_samples)`` rows drawn across the
    chunks (its ``fit`` of those
    rows: see its notes), and its lazy ``labels_`` keep that fit's labels on the
    sampled rows and are the margin classifier's elsewhere.

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> import numpy as np
    >>> from marginclust import FuzzyCMeans
    >>> from marginclust.dask import DaskClusterer
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(50, 2), rng.randn(50, 2) + 6.0])
    >>> X_dask = da.from_array(X, chunks=(25, 2))
    >>> with dask.config.set(scheduler="synchronous"):
    ...     model = DaskClusterer(FuzzyCMeans(n_clusters=2, random_state=0)).fit(X_dask)
    ...     labels = model.labels_.compute()
    >>> model.cluster_centers_.shape, type(model.cluster_centers_).__name__
    ((2, 2), 'ndarray')
    >>> bool((labels[:50] == labels[0]).all() and (labels[50:] != labels[0]).all())
    True
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "estimator": _OutOfCoreEstimator()}

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> DaskClusterer:
        """Fit the wrapped estimator to the dask array ``X``.

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Float data chunked by rows (a column-chunked array is rechunked to
            one column chunk; integer data become float64). In-memory data are
            fitted by the estimator itself.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params
            Passed to the fitter as to the estimator's ``fit`` (e.g.
            ``sample_weight`` as a dask array with the row chunks of X).

        Returns
        -------
        self : DaskClusterer
            The fitted wrapper.
        """
        check_parameters(self, self._parameter_constraints)
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("_"):
                delattr(self, name)
        est = clone(self.estimator)
        if _is_lazy(X):
            X = check_dask_array(X, estimator=self._name(est))
            est.fit(DaskRows(X), **fit_params)
        else:  # in memory: the estimator's own fit (its validation, its feature names)
            est.fit(X, **fit_params)
        if hasattr(est, "set_output"):
            # the estimator hands arrays to the wrapper, whose own set_output wraps them
            est.set_output(transform="default")
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_") and not name.endswith("__"):
                setattr(self, name, value)
        self.estimator_ = est
        return self

    @staticmethod
    def _name(est: Any) -> str:
        return f"DaskClusterer({type(est).__name__})"

    def _check_X(self, X: Any) -> da.Array:
        """A dask array checked against fit (after a DataFrame fit, scikit-learn's warning
        that it has no column names), then its width."""
        check_is_fitted(self, "estimator_")
        _check_feature_names(self, X, reset=False)
        X = check_dask_array(X, estimator=self._name(self.estimator_))
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted with "
                f"{self.n_features_in_} features."
            )
        return X

    def _in_memory(self, X: Any, method: str) -> Any:
        """``method`` of the fitted estimator on in-memory ``X`` (NumPy result; the
        estimator checks the columns against its fit, a DataFrame's names included)."""
        check_is_fitted(self, "estimator_")
        return getattr(self.estimator_, method)(X)

    def predict(self, X: Any) -> Any:
        """Lazy labels of ``X`` (the fitted estimator's ``predict`` mapped over row blocks).

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Rows to label, chunked by rows like the training array.

        Returns
        -------
        labels : dask array of shape (n_samples,), int
            Cluster of each row, computed when asked (an ndarray for in-memory ``X``).
        """
        if not _is_lazy(X):
            return np.asarray(self._in_memory(X, "predict"), dtype=np.intp)
        X = self._check_X(X)
        return X.map_blocks(
            _block_predict, self.estimator_, dtype=np.intp, drop_axis=1, chunks=(X.chunks[0],)
        )

    def _map(self, X: Any, method: str) -> Any:
        if not _is_lazy(X):
            return self._in_memory(X, method)
        if method == "transform" and _get_output_config("transform", self)["dense"] != "default":
            raise ValueError(
                "set_output(transform=...) containers are for in-memory data; the transform "
                "of a dask array is a lazy dask array. Use set_output(transform='default') "
                "and convert the result (e.g. dask.dataframe.from_dask_array)."
            )
        X = self._check_X(X)
        if not hasattr(self.estimator_, method):
            raise AttributeError(f"{type(self.estimator_).__name__} has no {method}.")
        # Not every model has centres (SLMC, EMMC): the fitted cluster count (the one
        # chosen, for a model that chooses it: MaxMarginClustering's n_clusters_).
        k = int(getattr(self.estimator_, "n_clusters_", self.estimator_.n_clusters))
        return X.map_blocks(
            _block_method, self.estimator_, method, dtype=X.dtype, chunks=(X.chunks[0], (k,))
        )

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        """Lazy memberships of ``X`` (``predict_proba`` of the fitted estimator, blockwise).

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Rows to label, chunked by rows like the training array.

        Returns
        -------
        memberships : dask array of shape (n_samples, n_clusters)
            Rows on the simplex, computed when asked (an ndarray for in-memory ``X``).
        """
        return self._map(X, "predict_proba")

    def transform(self, X: Any) -> Any:
        """Lazy ``transform`` of the fitted estimator, blockwise.

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Rows to transform, chunked by rows like the training array.

        Returns
        -------
        Xt : dask array of shape (n_samples, n_clusters)
            The estimator's ``transform`` of each row, computed when asked (an
            ndarray, or the ``set_output`` container, for in-memory ``X``).
        """
        return self._map(X, "transform")

    def fit_predict(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit, then return the lazy ``labels_``.

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Float data chunked by rows, as for :meth:`fit`.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params
            As for :meth:`fit`.

        Returns
        -------
        labels : dask array of shape (n_samples,)
            The lazy ``labels_`` of the fit (an ndarray for in-memory ``X``).
        """
        return self.fit(X, **fit_params).labels_

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit, then ``transform`` the training data.

        Parameters
        ----------
        X : dask array or array-like of shape (n_samples, n_features)
            Float data, as for :meth:`fit`.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params
            As for :meth:`fit`.

        Returns
        -------
        Xt : dask array or ndarray of shape (n_samples, n_clusters)
            The fitted estimator's ``transform`` of ``X``.
        """
        return self.fit(X, **fit_params).transform(X)

    def get_feature_names_out(self, input_features: Any = None) -> Any:
        """Names of the ``transform`` columns: the fitted estimator's.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Only checked against the names seen in ``fit``.

        Returns
        -------
        names : ndarray of str objects
            One name per column of ``transform`` (e.g. ``fuzzycmeans0``).
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.get_feature_names_out(input_features)

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        # the wrapper has no random_state: its fits repeat when the estimator's does
        seed = self.estimator.get_params().get("random_state", 0)
        tags.non_deterministic = inner.non_deterministic or seed is None
        tags.input_tags.sparse = inner.input_tags.sparse
        if hasattr(self.estimator, "transform"):
            if inner.transformer_tags is not None:
                tags.transformer_tags.preserves_dtype = list(inner.transformer_tags.preserves_dtype)
        else:
            tags.transformer_tags = None
        return tags


# ``transform``, ``fit_transform`` and ``get_feature_names_out`` (hence ``set_output``)
# exist only when the wrapped estimator has ``transform`` (EMMC has not). Applied after
# the class body: ``TransformerMixin`` wraps the plain methods for ``set_output`` when
# the class is created, and would turn a descriptor into an always-present function.
for _method in ("transform", "fit_transform", "get_feature_names_out"):
    setattr(DaskClusterer, _method,
            available_if(_estimator_has("transform"))(getattr(DaskClusterer, _method)))
del _method

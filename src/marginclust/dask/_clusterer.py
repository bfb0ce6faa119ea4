"""``DaskClusterer``: fit a marginclust estimator on a dask array, pass by pass.

A fitter per supported estimator class is registered with :func:`register`. The
fitter runs the same solver loop as the in-memory ``fit``, with the per-block
partial sums of each iteration computed by dask (one graph execution per pass
over X), and sets the estimator's fitted attributes exactly as ``fit`` would.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._ops import check_dask_array

__all__ = ["DaskClusterer", "check_fit_data", "register", "supported_estimators"]

Fitter = Callable[..., dict[str, da.Array]]
_FITTERS: dict[type, Fitter] = {}
# modules that register fitters; imported on first use (a missing one is skipped)
_FITTER_MODULES = ("_fcm", "_pkm", "_emmc", "_linear_mmc", "_slmc")
_loaded = False


def register(estimator_class: type) -> Callable[[Fitter], Fitter]:
    """Register ``fit_<method>(est, X, **fit_params) -> {"labels_": ..., ...}`` for a class.

    The fitter gets an unfitted clone ``est`` and a validated row-chunked dask
    array ``X``; it sets the fitted numpy attributes on ``est`` as ``est.fit``
    would and returns the lazy ones (``labels_``, and ``memberships_`` for soft
    methods). Registration is by exact class (a subclass, e.g. a kernel
    variant, needs its own fitter).

    Parameters
    ----------
    estimator_class : type
        The marginclust estimator class the decorated fitter fits.

    Returns
    -------
    decorator : callable
        Registers the fitter and returns it unchanged.
    """

    def deco(fn: Fitter) -> Fitter:
        _FITTERS[estimator_class] = fn
        return fn

    return deco


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for mod in _FITTER_MODULES:
        name = f"{__package__}.{mod}"
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    _loaded = True


def supported_estimators() -> list[str]:
    """Names of the estimator classes ``DaskClusterer`` can fit.

    Returns
    -------
    names : list of str
        Class names, sorted (e.g. ``"FuzzyCMeans"``).
    """
    _load()
    return sorted(c.__name__ for c in _FITTERS)


def _fitter(estimator: Any) -> Fitter:
    _load()
    fn = _FITTERS.get(type(estimator))
    if fn is None:
        raise TypeError(
            f"DaskClusterer cannot fit {type(estimator).__name__} on a dask array: its "
            "solver needs all of X at once (an n x n kernel, a QP or libsvm). Supported: "
            f"{', '.join(supported_estimators())}. Restarts and parameter searches of any "
            "estimator can still run in parallel on a dask cluster through joblib's dask "
            "backend (with joblib.parallel_backend('dask'): ...) on in-memory data."
        )
    return fn


def _check_size(est: Any, shape: tuple[int, ...]) -> None:
    """At least 2 rows and 1 feature, checked from the shape before any pass over X."""
    n, d = shape
    if n < 2:
        raise ValueError(
            f"Found array with {n} sample(s) (shape={tuple(shape)}) while a minimum of 2 is "
            f"required by {type(est).__name__}."
        )
    if d < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape={tuple(shape)}).")


def check_fit_data(est: Any, X: da.Array) -> None:
    """What ``validate_data`` and the base checks do in memory, on the shape of a dask X.

    Sets ``n_features_in_``, then runs the estimator's ``_check_fit_setup``
    (``n_clusters`` against the data and ``_check_params``), which needs only
    ``X.shape``. Values (finiteness, constancy) are checked by the fitter's
    first pass (:func:`marginclust.dask._frame.dask_frame`)."""
    _check_size(est, X.shape)
    est.n_features_in_ = X.shape[1]
    est._check_fit_setup(X)


def _block_predict(Xb: np.ndarray, est: Any) -> np.ndarray:
    return np.asarray(est.predict(Xb), dtype=np.intp)


def _block_method(Xb: np.ndarray, est: Any, method: str) -> np.ndarray:
    return np.asarray(getattr(est, method)(Xb))


class DaskClusterer(ClusterMixin, BaseEstimator):
    """Fit a marginclust clusterer on a dask array, one graph execution per iteration.

    The fitted model attributes (``cluster_centers_``, ``objective_history_``,
    ``n_iter_``, ``converged_``, ...) are NumPy arrays and numbers under the same
    names as after the estimator's own ``fit``; ``labels_`` (and ``memberships_``
    for soft methods) are lazy dask arrays with the row chunks of X. X is never
    gathered: each iteration maps the in-memory solver's block function over the
    row blocks and brings back only per-block sums (centre sums and weights:
    O(n_clusters x n_features) per block).

    Works with any dask scheduler (synchronous, threads, processes or an active
    ``distributed.Client``).

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

    The lazy ``labels_`` / ``memberships_`` are graphs over X (and, for PKM,
    over the labels the workers kept: futures of the client that fitted). A
    pickled model carries those graphs; under ``distributed``, compute what you
    need before the client closes, or pickle ``estimator_`` (all NumPy apart
    from the same lazy attributes) after replacing them.

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

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> DaskClusterer:
        """Fit the wrapped estimator to the dask array ``X``.

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Float data chunked by rows (a column-chunked array is rechunked to
            one column chunk; integer data become float64).
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
        fitter = _fitter(self.estimator)
        X = check_dask_array(X, estimator=f"DaskClusterer({type(self.estimator).__name__})")
        est = clone(self.estimator)
        # every fitter's first pass reduces over rows: refuse empty data before it
        _check_size(est, X.shape)
        lazy = fitter(est, X, **fit_params)
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("_"):
                delattr(self, name)
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_") and not name.endswith("__"):
                setattr(self, name, value)
        for name, value in lazy.items():
            setattr(self, name, value)
        self.estimator_ = est
        return self

    def _check_X(self, X: Any) -> da.Array:
        check_is_fitted(self, "estimator_")
        X = check_dask_array(X, estimator=f"DaskClusterer({type(self.estimator_).__name__})")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted with "
                f"{self.n_features_in_} features."
            )
        return X

    def predict(self, X: Any) -> da.Array:
        """Lazy labels of ``X`` (the fitted estimator's ``predict`` mapped over row blocks).

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Rows to label, chunked by rows like the training array.

        Returns
        -------
        labels : dask array of shape (n_samples,), int
            Cluster of each row, computed when asked.
        """
        X = self._check_X(X)
        return X.map_blocks(
            _block_predict, self.estimator_, dtype=np.intp, drop_axis=1, chunks=(X.chunks[0],)
        )

    def _map(self, X: Any, method: str) -> da.Array:
        X = self._check_X(X)
        if not hasattr(self.estimator_, method):
            raise AttributeError(f"{type(self.estimator_).__name__} has no {method}.")
        # Not every model has centres (SLMC, EMMC): the fitted cluster count.
        k = int(self.estimator_._n_clusters)
        return X.map_blocks(
            _block_method, self.estimator_, method, dtype=X.dtype, chunks=(X.chunks[0], (k,))
        )

    def predict_proba(self, X: Any) -> da.Array:
        """Lazy memberships of ``X`` (``predict_proba`` of the fitted estimator, blockwise).

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Rows to label, chunked by rows like the training array.

        Returns
        -------
        memberships : dask array of shape (n_samples, n_clusters)
            Rows on the simplex, computed when asked.
        """
        return self._map(X, "predict_proba")

    def transform(self, X: Any) -> da.Array:
        """Lazy ``transform`` of the fitted estimator, blockwise.

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Rows to transform, chunked by rows like the training array.

        Returns
        -------
        Xt : dask array of shape (n_samples, n_clusters)
            The estimator's ``transform`` of each row, computed when asked.
        """
        return self._map(X, "transform")

    def fit_predict(self, X: Any, y: Any = None, **fit_params: Any) -> da.Array:
        """Fit, then return the lazy ``labels_``.

        Parameters
        ----------
        X : dask array of shape (n_samples, n_features)
            Float data chunked by rows, as for :meth:`fit`.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params
            As for :meth:`fit`.

        Returns
        -------
        labels : dask array of shape (n_samples,)
            The lazy ``labels_`` of the fit.
        """
        return self.fit(X, **fit_params).labels_

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags

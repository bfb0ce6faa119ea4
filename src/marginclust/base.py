"""Base classes shared by every marginclust clusterer.

:class:`BaseClusterer` is a template: ``fit`` validates the data once, checks
``n_clusters``, draws one seed per restart from ``random_state``, calls the
subclass's single-restart :meth:`BaseClusterer._fit_one`, keeps the best
non-degenerate restart, copies its fitted attributes onto the estimator and
warns when it did not converge. Subclasses implement ``_fit_one`` (returning a
:class:`~marginclust.solvers.SolverResult` whose ``x`` is a dict of fitted
attributes) and ``_predict_memberships`` or ``_predict``.

Parameters are validated once per fit against the estimator's declarative
table ``_parameter_constraints`` (``parameter -> constraint`` for every
constructor parameter, see :func:`marginclust.utils.check_parameters`), as
scikit-learn's ``_parameter_constraints``: each value, then what it needs of the
data (an ``init`` array's shape, ``n_clusters <= n_samples``);
:meth:`BaseClusterer._setup_on_data` then resolves what the data decide (an
``"auto"`` value) and refuses a fit the data cannot take (memory).

Work done once per fit (kernel matrices, centring, validated pairs, sigma0)
belongs in :meth:`BaseClusterer._prepare`, whose returned context is handed to
every restart: ``_fit_one(context, random_state)``. Restarts run through
:class:`joblib.Parallel`: sequential by default, in parallel under
``joblib.parallel_config(n_jobs=...)``, bitwise the same fit (seeds drawn first).

The contract of every clusterer is enforced here, after the best restart is
kept (:meth:`BaseClusterer._finish_fit`), not by each estimator:

- ``labels_`` lie in ``[0, n_clusters_found_)``: when a fit leaves clusters
  empty, the non-empty ones are numbered first (the estimator's cluster-indexed
  attributes are permuted by :meth:`BaseClusterer._permute_clusters`);
- ``predict(X_train)`` equals ``labels_``: a final assignment step sets
  ``labels_`` to the model's own rule on the training data, as scikit-learn's
  KMeans does after its last centre update; an estimator whose labels obey a
  constraint the rule does not (a class-balance repair, a floor on the cluster
  sizes, must-link / cannot-link pairs, the partition a classifier was trained
  on) names instead, in ``_moved_attribute``, the fitted attribute that lists
  the rows where the two differ, and this step fills it (an estimator with more
  than one such constraint splits the rows among its attributes,
  :meth:`BaseClusterer._set_moved`; a restart whose constraint moved nothing it
  could see, e.g. out of core, sets ``labels_ = None`` and gets the final
  assignment step);
- ``predict_proba(X_train)`` equals ``memberships_``: the same step sets
  ``memberships_`` to the model's memberships of the training data (the
  solver's last memberships up to rounding), unless the estimator keeps its
  solver's iterate (``_memberships_from_model = False``, e.g. PKM, whose
  memberships are hard at a KKT point).

The step costs one prediction pass over the training data (as KMeans' final
assignment).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np
import numpy.typing as npt
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.utils import Tags, check_random_state
from sklearn.utils.validation import _check_feature_names, check_is_fitted, validate_data

from .exceptions import ConvergenceWarning, EmptyClusterError
from .solvers import SolverResult
from .utils import (
    Constraint,
    Degeneracy,
    NClusters,
    check_distinct_rows,
    check_max_iter,
    check_not_constant,
    check_parameters,
    degeneracy,
    describe_bad_values,
    min_cluster_size,
    report,
    spawn_seeds,
)
from .utils._blocks import RowBlockBackend, backend_for, out_of_core

__all__ = [
    "BaseClusterer",
    "ClusterTransformerMixin",
    "SoftClusterMixin",
    "fits_out_of_core",
    "one_cluster_result",
]


def fits_out_of_core(estimator: Any) -> bool:
    """Whether an estimator (or class) fits a row-block backend such as the dask one.

    Such an estimator's ``fit`` also takes a row-block backend instead of an array
    (:class:`marginclust.dask.DaskRows`, which :class:`marginclust.dask.DaskClusterer`
    builds): every pass of its restarts goes through the backend's block methods,
    or, for MaxMarginClustering, a sample of rows is drawn through it and every row
    is labelled block by block.

    Parameters
    ----------
    estimator : estimator instance or class
        The estimator (its class decides).

    Returns
    -------
    bool
        Whether its fit runs on a row-block backend (a mode may still need
        memory, e.g. SLMC's exact kernel: its ``fit`` then says so).

    Examples
    --------
    >>> from marginclust import FuzzyCMeans, IterSVR
    >>> fits_out_of_core(FuzzyCMeans), fits_out_of_core(IterSVR)
    (True, False)
    """
    return bool(getattr(estimator, "_out_of_core", False))


def one_cluster_result(
    n_samples: int, attributes: dict[str, Any], *, objective: float = 0.0, n_iter: int = 1
) -> SolverResult:
    """The restart result of ``n_clusters=1``: every sample in cluster 0, nothing iterated.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    attributes : dict
        The estimator's other fitted attributes of this partition (its model).
    objective : float, default=0.0
        The objective of that model.
    n_iter : int, default=1
        Iterations to report.

    Returns
    -------
    result : SolverResult
        Converged, with ``labels_`` all zero and the objective as its one history entry.
    """
    x = {"labels_": np.zeros(n_samples, dtype=np.intp), **attributes}
    return SolverResult(x=x, objective=objective, objective_history=np.array([objective]),
                        n_iter=n_iter, converged=True)


def _refuse_lazy(X: Any, name: str) -> None:
    """Refuse a dask array: computing it silently could exhaust memory."""
    if type(X).__module__.split(".")[0] == "dask":
        raise TypeError(
            f"{name} got a dask {type(X).__name__}; an in-memory estimator would compute "
            f"it whole. Wrap the estimator: marginclust.dask.DaskClusterer({name}(...))"
            ".fit(X) fits it pass by pass on the dask array (FuzzyCMeans, PKM and the "
            "other classes listed by marginclust.dask.supported_estimators()); or pass a "
            "NumPy array (X.compute() if it fits in memory)."
        )


def _nonempty_first(sizes: npt.NDArray[np.intp]) -> npt.NDArray[np.intp] | None:
    """The renumbering that puts the non-empty clusters first (None: they already are)."""
    sizes = np.asarray(sizes)
    order = np.concatenate([np.flatnonzero(sizes), np.flatnonzero(sizes == 0)])
    return None if np.array_equal(order, np.arange(sizes.size)) else order


def _take_from(labels: Any, inverse: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    return inverse[np.asarray(labels)]


def _row_argmax(P: Any) -> npt.NDArray[np.intp]:
    return np.asarray(np.argmax(P, axis=1), dtype=np.intp)


def _renumbered(labels: Any, inverse: npt.NDArray[np.intp]) -> Any:
    """``inverse[labels]`` (blockwise for lazy labels)."""
    if hasattr(labels, "map_blocks"):
        return labels.map_blocks(_take_from, inverse, dtype=np.intp)
    return inverse[np.asarray(labels)]


def _sizes_degeneracy(sizes: npt.NDArray[np.intp], n_clusters: int) -> Degeneracy:
    sizes = np.asarray(sizes, dtype=np.intp)
    n_found = int(np.count_nonzero(sizes))
    threshold = min_cluster_size(int(sizes.sum()), n_clusters)
    bad = n_found < n_clusters or bool(np.any(sizes[sizes > 0] < threshold))
    return Degeneracy(n_found, sizes, threshold, bad)


def _validate(estimator: Any, X: Any, **kwargs: Any) -> Any:
    """scikit-learn's ``validate_data``, with the row and column of a missing, infinite or
    non-numeric entry (and a DataFrame's categorical columns) named in the error.

    At predict (``reset=False``) a DataFrame's column names are checked first:
    renamed or reordered columns get scikit-learn's error, not one about the values
    (renamed columns read back from a DataFrame are missing values)."""
    if not kwargs.get("reset", True) and hasattr(X, "columns"):
        with warnings.catch_warnings():  # its warnings come once, from validate_data below
            warnings.simplefilter("ignore", UserWarning)
            _check_feature_names(estimator, X, reset=False)
    if hasattr(X, "dtypes") and hasattr(X, "columns"):
        message = describe_bad_values(X) if any(
            str(t) == "category" for t in X.dtypes) else None
        if message:
            raise ValueError(message)
    try:
        return validate_data(estimator, X, **kwargs)
    except ValueError as exc:
        message = describe_bad_values(X)
        if message is None:
            raise
        raise ValueError(message) from exc


def _result_degeneracy(res: SolverResult, n_clusters: int) -> Degeneracy:
    """Degeneracy of a restart's labels (or of ``res.info["cluster_sizes"]`` if given)."""
    sizes = res.info.get("cluster_sizes") if res.info else None
    if sizes is None:
        return degeneracy(res.x["labels_"], n_clusters)
    sizes = np.asarray(sizes, dtype=np.intp)
    n_found = int(np.count_nonzero(sizes))
    threshold = min_cluster_size(int(sizes.sum()), n_clusters)
    bad = n_found < n_clusters or bool(np.any(sizes[sizes > 0] < threshold))
    return Degeneracy(n_found, sizes, threshold, bad)


def _run_restart(
    fit_one: Any, context: Any, seed: int, parent_pid: int
) -> tuple[SolverResult | EmptyClusterError, list[warnings.WarningMessage]]:
    """One restart, run by :class:`joblib.Parallel`: its result (or its empty-cluster
    error) and, in a worker process, the warnings it raised (re-issued by the parent;
    threads and the sequential backend warn directly)."""
    if os.getpid() == parent_pid:
        try:
            return fit_one(context, np.random.RandomState(seed)), []
        except EmptyClusterError as exc:
            return exc, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res: SolverResult | EmptyClusterError = fit_one(context, np.random.RandomState(seed))
        except EmptyClusterError as exc:
            res = exc
    return res, list(caught)


class BaseClusterer(ClusterMixin, BaseEstimator):
    """Template for marginclust clusterers (validation, restarts, best-of, warnings).

    Class attributes a subclass may override:

    - ``_parameter_constraints``: ``parameter -> constraint`` for every constructor
      parameter (e.g. ``{"n_clusters": NClusters(1), "tol": Positive(strict=False),
      "max_iter": MaxIter()}``), checked in table order, then checked against the
      data (:func:`~marginclust.utils.check_parameters`), before :meth:`_setup_on_data`.
    - ``_accept_sparse``: sparse formats accepted (``False`` or e.g. ``("csr",)``).
    - ``_dtypes``: accepted float dtypes, first one the default.
    - ``_min_clusters`` / ``_max_clusters``: admissible ``n_clusters`` range, read
      from the table's :class:`~marginclust.utils.NClusters` (``_max_clusters = 2``
      for binary-only methods).
    - ``_require_non_constant``: reject data whose samples are all identical.
    - ``_collapse_advice``: what to change when the fit collapses, in this
      method's own parameters (printed in the ``ConvergenceWarning``);
      ``_fit_collapse_advice()`` may add what the fit tried.
    - ``_n_scaled_params``: hyperparameters that scale with the number of samples.
    - ``_parallel_restarts``: restarts may run on joblib workers (``False`` when
      ``_fit_one`` writes to ``self`` or to the shared context).

    Subclasses implement :meth:`_fit_one` and either :meth:`_predict_memberships`
    (soft methods) or :meth:`_predict`.
    """

    _parameter_constraints: ClassVar[Mapping[str, Constraint]] = {}
    _accept_sparse: ClassVar[bool | tuple[str, ...]] = False
    _dtypes: ClassVar[tuple[type, ...]] = (np.float64, np.float32)
    _min_clusters: ClassVar[int] = 2
    _max_clusters: ClassVar[int | None] = None
    _require_non_constant: ClassVar[bool] = True
    _collapse_advice: ClassVar[str] = "Try more n_init, another init or other parameters."
    # Hyperparameters whose meaning is a sum over samples (so a value tuned on a
    # subsample of m rows is multiplied by n / m when refitting on n rows).
    _n_scaled_params: ClassVar[tuple[str, ...]] = ()
    # Restarts share nothing mutable (``_fit_one`` reads the context and ``self``,
    # writes neither), so joblib may run them in parallel.
    _parallel_restarts: ClassVar[bool] = True
    # The restarts run on any row-block backend (:class:`~marginclust.utils._blocks.RowBlocks`
    # in memory, :mod:`marginclust.dask` out of core): see :func:`fits_out_of_core`.
    _out_of_core: ClassVar[bool] = False
    # The fitted attribute listing the training rows whose ``labels_`` differ from
    # ``predict(X_train)`` (labels held to a constraint the prediction rule does not
    # see, e.g. ``"balance_moved_"``, ``"size_moved_"``); None: ``labels_`` is
    # ``predict(X_train)``.
    _moved_attribute: ClassVar[str | None] = None
    # Cluster-indexed fitted attributes and their cluster axis, permuted together
    # when empty clusters are numbered last (see :meth:`_permute_clusters`).
    _cluster_axes: ClassVar[Mapping[str, int]] = {}
    # Soft methods: the final step sets memberships_ = the model's memberships of the
    # training data (predict_proba(X_train)); False keeps the solver's own.
    _memberships_from_model: ClassVar[bool] = True
    # Fitted attributes holding cluster indices (renumbered with the clusters).
    _cluster_index_attributes: ClassVar[tuple[str, ...]] = ()
    # ``transform`` of float32 data is float32 (declared in the transformer tags as
    # ``preserves_dtype``; scikit-learn's checks hold the estimator to it).
    _preserves_float32: ClassVar[bool] = False

    # Fitted attributes every clusterer sets (declared for type checkers only).
    labels_: npt.NDArray[np.intp]
    objective_: float
    objective_history_: npt.NDArray[np.float64]
    n_iter_: int
    converged_: bool

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rule = cls.__dict__.get("_parameter_constraints", {}).get("n_clusters")
        if isinstance(rule, NClusters):  # the table is the one home of the range
            cls._min_clusters, cls._max_clusters = rule.minimum, rule.maximum

    # ------------------------------------------------------------------ hooks
    def _setup_on_data(self, X: Any) -> None:
        """Settings the data resolve and limits of this fit on these data.

        Runs after the parameter table and its data checks: resolves what a
        parameter leaves to the data (``m="auto"``, a default iteration limit, a
        count from a fraction of ``n_samples``) and refuses a fit the data cannot
        take (memory, what an out-of-core backend cannot do, a combination of
        parameters the data's size rules out).
        """

    def _prepare(self, X: Any, **fit_params: Any) -> Any:
        """Once-per-fit work shared by all restarts; return a context for ``_fit_one``.

        The default context is the validated ``X`` itself; estimators that take
        fit parameters (pairs, weights) or precompute anything override this.
        """
        if fit_params:
            raise TypeError(
                f"{type(self).__name__}.fit got unexpected parameters {sorted(fit_params)}."
            )
        return X

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        """Run one restart from the ``_prepare`` context; return its result."""
        raise NotImplementedError

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """Candidate settings around this method's label-free heuristics.

        Used by :mod:`marginclust.model_selection` when no ``param_grid`` is
        given. Values may be computed from ``X`` (e.g. multiples of a data-relative
        kernel width) but never from labels. Empty means "the defaults only".
        """
        return {}

    def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]:
        """Memberships of validated ``X`` (n_samples x n_clusters, rows on the simplex)."""
        raise NotImplementedError(f"{type(self).__name__} does not define memberships.")

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        """Labels of validated ``X``; by default the argmax of the memberships."""
        return np.argmax(self._predict_memberships(X), axis=1)

    # ------------------------------------------------------------- machinery
    def _validate_fit_data(self, X: Any) -> Any:
        if out_of_core(X) and isinstance(X, RowBlockBackend):  # (a lazy array: refused below)
            return self._validate_row_backend(X)
        _refuse_lazy(X, type(self).__name__)
        X = _validate(
            self,
            X,
            reset=True,
            accept_sparse=self._accept_sparse,
            dtype=list(self._dtypes),
            ensure_min_samples=2,
        )
        return X

    def _validate_row_backend(self, rows: Any) -> Any:
        """An out-of-core row-block backend (:mod:`marginclust.dask`): checked in one pass."""
        name = type(self).__name__
        if not self._out_of_core:
            raise TypeError(
                f"{name} cannot fit out of core: its solver needs all of X at once (an n x n "
                "kernel, a QP or libsvm). Restarts and parameter searches can still run in "
                "parallel on a dask cluster through joblib's dask backend on in-memory data."
            )
        rows = rows.validate(name=name, dtypes=self._dtypes, accept_sparse=self._accept_sparse,
                             require_non_constant=self._require_non_constant)
        for attr in ("feature_names_in_",):
            if hasattr(self, attr):
                delattr(self, attr)
        self.n_features_in_ = rows.shape[1]
        return rows

    def _validate_predict_data(self, X: Any) -> Any:
        check_is_fitted(self)
        _refuse_lazy(X, type(self).__name__)
        return _validate(
            self, X, reset=False, accept_sparse=self._accept_sparse, dtype=list(self._dtypes)
        )

    def _n_restarts(self) -> int:
        # (the parameter tables declare n_init; a subclass without one is checked here)
        return check_max_iter(getattr(self, "n_init", 1), "n_init")

    def _fit(self, X: Any, **fit_params: Any) -> BaseClusterer:
        """Validate, run the restarts, keep the best, set the fitted attributes."""
        X = self._validate_fit_data(X)
        self._check_fit_setup(X)
        if not out_of_core(X):  # an out-of-core backend checked its columns' ranges
            check_distinct_rows(X, self._n_clusters)
            if self._require_non_constant:
                check_not_constant(X)
        context = self._prepare(X, **fit_params)
        self._fit_restarts(context)
        del context  # kernel matrices and caches of the fit: free before the last pass
        return self._finish_fit(X)

    def _permute_clusters(self, order: npt.NDArray[np.intp]) -> None:
        """Renumber the clusters: new cluster ``j`` is the fitted cluster ``order[j]``.

        Permutes every attribute of ``_cluster_axes`` along its cluster axis; an
        estimator whose model is indexed otherwise (a list of machines, a sign)
        overrides this. ``labels_`` is renumbered by the caller.
        """
        for name, axis in self._cluster_axes.items():
            value = getattr(self, name, None)
            if value is None:
                continue
            if isinstance(value, list):
                setattr(self, name, [value[int(j)] for j in order])
            else:
                # np.take also takes a lazy (dask) array lazily
                setattr(self, name, np.take(value, order, axis=axis))
        inverse = np.empty(order.size, dtype=np.intp)
        inverse[order] = np.arange(order.size)
        for name in self._cluster_index_attributes:
            value = getattr(self, name, None)
            if value is not None:
                setattr(self, name, sorted(int(inverse[j]) for j in value))

    def _finish_fit(self, X: Any, predicted: Any = None) -> BaseClusterer:
        """The contract of every clusterer (module docstring): the final assignment step
        (or the ``_moved_attribute`` rows), clusters numbered non-empty first,
        ``n_clusters_found_``.

        ``X`` is the validated training data or a row-block backend (whose per-row
        results, ``labels_`` and ``memberships_``, may then be lazy). ``predicted``:
        ``predict(X)``, when the fit has computed it already (with a
        ``_moved_attribute`` only; it saves the prediction pass).
        """
        rows = backend_for(X)
        k = self._n_clusters
        if self._moved_attribute is None or getattr(self, "labels_", None) is None:
            # (a restart whose constraint left every row to the rule sets labels_ = None)
            labels = self._final_assignment(rows)
            sizes = rows.bincount(labels, k)
            # a rule that ties between clusters resolves to the lower index, which a
            # renumbering can change, but it never picks an empty cluster: one
            # renumbering and a new assignment make the labels compact
            for _ in range(2):
                order = _nonempty_first(sizes)
                if order is None:
                    break
                self._permute_clusters(order)
                labels = self._final_assignment(rows)
                sizes = rows.bincount(labels, k)
            self.labels_ = labels
            if self._moved_attribute is not None:
                self._set_moved(np.zeros(0, dtype=np.intp))
        else:
            sizes = rows.bincount(self.labels_, k)
            order = _nonempty_first(sizes)
            if order is not None:
                self._permute_clusters(order)
                inverse = np.empty(k, dtype=np.intp)
                inverse[order] = np.arange(k)
                self.labels_ = _renumbered(self.labels_, inverse)
                sizes = sizes[order]
            pred = self._final_assignment(rows) if predicted is None else predicted
            self._set_moved(rows.flatnonzero(pred != self.labels_))
        if not hasattr(self.labels_, "__dask_graph__"):
            self.labels_ = np.asarray(self.labels_, dtype=np.intp)
        self._warn_if_degenerate(_sizes_degeneracy(np.asarray(sizes), k))
        return self

    def _set_moved(self, moved: npt.NDArray[np.intp]) -> None:
        """Record the training rows where ``labels_`` differs from ``predict``.

        ``moved`` (sorted row numbers) goes to ``_moved_attribute``; an estimator
        whose labels obey more than one constraint overrides this to split the
        rows among its attributes (their union is ``moved``).
        """
        assert self._moved_attribute is not None
        setattr(self, self._moved_attribute, np.asarray(moved, dtype=np.intp))

    def _labels_of(self, X: Any) -> npt.NDArray[np.intp]:
        return np.asarray(self._predict(X), dtype=np.intp)

    def _final_assignment(self, rows: Any) -> Any:
        """``predict(X_train)``; soft methods also set ``memberships_`` from the model."""
        if not (isinstance(self, SoftClusterMixin) and self._memberships_from_model):
            return rows.map_rows(self._labels_of, dtype=np.intp)
        both = getattr(self, "_memberships_and_labels", None)
        if both is not None and not out_of_core(rows):
            # one pass for both: the labels are predict's own argmax of the same scores
            # (two row-aligned outputs at once: in memory only)
            self.memberships_, labels = both(rows.X)
            return np.asarray(labels, dtype=np.intp)
        P = rows.map_rows(self._predict_memberships, tail=(self._n_clusters,))
        self.memberships_ = P
        if type(self)._predict is BaseClusterer._predict:  # the argmax of P: no second pass
            if hasattr(P, "map_blocks"):  # lazy: blockwise (a graph plain pickle can carry)
                return P.map_blocks(_row_argmax, drop_axis=1, dtype=np.intp)
            return _row_argmax(P)
        return rows.map_rows(self._labels_of, dtype=np.intp)

    def _check_fit_setup(self, X: Any) -> None:
        """Check the parameter table (``n_clusters`` first), its data checks, then
        :meth:`_setup_on_data`.

        ``X`` needs only ``shape`` (a lazy array is fine).
        """
        rule = self._parameter_constraints.get(
            "n_clusters", NClusters(self._min_clusters, self._max_clusters))
        self._n_clusters = int(cast(Any, rule(self.n_clusters, "n_clusters")))
        check_parameters(self, {"n_clusters": rule, **self._parameter_constraints}, X,
                         self._n_clusters)
        self._setup_on_data(X)

    def _fit_restarts(self, context: Any) -> BaseClusterer:
        """Run the restarts from ``context``, keep the best, set the fitted attributes.

        Each restart is :meth:`_fit_one`. A result whose ``info`` holds
        ``"cluster_sizes"`` is judged by those sizes (its ``labels_`` may be lazy
        and are then left as they are). The caller runs :meth:`_finish_fit`
        (which sets ``n_clusters_found_`` and warns about degenerate labels).
        """
        parallel_ok = self._parallel_restarts
        fit_one = self._fit_one
        rng = check_random_state(getattr(self, "random_state", None))
        verbose = getattr(self, "verbose", 0)
        n_restarts = self._n_restarts()
        # seeds drawn up front: the same restarts whoever runs them
        seeds = spawn_seeds(rng, n_restarts)
        best: SolverResult | None = None
        best_degenerate = True
        last_error: EmptyClusterError | None = None

        def keep(restart: int, res: SolverResult | EmptyClusterError) -> None:
            nonlocal best, best_degenerate, last_error
            if isinstance(res, EmptyClusterError):
                last_error = res
                report(verbose, "%s restart %d/%d: %s", cls_name, restart + 1, n_restarts, res)
                return
            degenerate = _result_degeneracy(res, self._n_clusters).degenerate
            report(
                verbose,
                "%s restart %d/%d: objective %.6g after %d iterations%s",
                cls_name,
                restart + 1,
                n_restarts,
                res.objective,
                res.n_iter,
                " (degenerate)" if degenerate else "",
            )
            if (
                best is None
                or (best_degenerate and not degenerate)
                or (degenerate == best_degenerate and res.objective < best.objective)
            ):
                best, best_degenerate = res, degenerate

        cls_name = type(self).__name__
        if parallel_ok and n_restarts > 1 and effective_n_jobs(None) > 1:
            # joblib.parallel_config(n_jobs=...) asked for workers; results come back
            # in restart order, so the best restart is the sequential loop's
            outcomes = Parallel()(
                delayed(_run_restart)(fit_one, context, int(seed), os.getpid()) for seed in seeds
            )
            for restart, (res, caught) in enumerate(outcomes):
                for w in caught:  # warnings of a worker process, re-issued here
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
                keep(restart, res)
        else:
            for restart, seed in enumerate(seeds):
                try:
                    res = fit_one(context, np.random.RandomState(seed))
                except EmptyClusterError as exc:
                    res = exc
                keep(restart, res)
        if best is None:
            raise EmptyClusterError(
                f"Every restart of {type(self).__name__} ended with an empty cluster "
                f"({last_error}). Try another random_state, more n_init or other parameters."
            )
        for name, value in best.x.items():
            setattr(self, name, value)
        labels = getattr(self, "labels_", None)  # set by the restart, or by _finish_fit
        if labels is not None and not hasattr(labels, "__dask_graph__"):
            self.labels_ = np.asarray(labels, dtype=np.intp)
        self.objective_ = float(best.objective)
        self.objective_history_ = np.asarray(best.objective_history, dtype=np.float64)
        self.n_iter_ = int(best.n_iter)
        self.converged_ = bool(best.converged)
        if not best.converged:
            msg = best.message or (
                f"{type(self).__name__} stopped at max_iter={getattr(self, 'max_iter', '?')} "
                "before meeting its tolerance; increase max_iter or tol."
            )
            warnings.warn(msg, ConvergenceWarning, stacklevel=3)
        return self

    def _fit_collapse_advice(self) -> str:
        """The advice of this fit's collapse warning: ``_collapse_advice`` unless an
        estimator names what the fit tried (its start, its re-seeds, the data's scale)."""
        return str(self._collapse_advice)

    def _warn_if_degenerate(self, deg: Degeneracy | None = None) -> None:
        """Set ``n_clusters_found_`` and warn when the fitted labels are degenerate."""
        if deg is None:
            deg = degeneracy(self.labels_, self._n_clusters)
        self.n_clusters_found_ = deg.n_found
        if deg.n_found < self._n_clusters:
            warnings.warn(
                f"{type(self).__name__} found only {deg.n_found} non-empty clusters of "
                f"n_clusters={self._n_clusters} (a collapsed solution). "
                f"{self._fit_collapse_advice()}",
                ConvergenceWarning,
                stacklevel=4,
            )
        elif deg.degenerate:
            small = int(np.min(deg.sizes))
            warnings.warn(
                f"{type(self).__name__} returned a cluster of {small} sample(s) (below the "
                f"minimum of {deg.min_size} for {int(np.sum(deg.sizes))} samples): an outlier "
                f"taken as a cluster. {self._fit_collapse_advice()}",
                ConvergenceWarning,
                stacklevel=4,
            )

    # ----------------------------------------------------------- public API
    def fit(self, X: Any, y: Any = None) -> BaseClusterer:
        """Fit the clustering to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; a SciPy sparse matrix only for estimators that accept
            one (their ``__sklearn_tags__().input_tags.sparse``: BMMC, CPMMC, EMMC,
            IterSVR, IterSVM).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X)

    def predict(self, X: Any) -> npt.NDArray[np.intp]:
        """Assign each sample of ``X`` to a cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (sparse only where the estimator accepts it for ``fit``).

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster index of each sample, in ``0 .. n_clusters - 1``.
        """
        X = self._validate_predict_data(X)
        return np.asarray(self._predict(X), dtype=np.intp)

    def __sklearn_tags__(self) -> Tags:  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        if hasattr(self, "transform") and tags.transformer_tags is None:
            # distances to centres or memberships, as KMeans.transform: a transformer too
            from sklearn.utils import TransformerTags

            tags.transformer_tags = TransformerTags()
        return tags


class SoftClusterMixin:
    """Adds ``predict_proba`` (memberships of new samples) to a :class:`BaseClusterer`."""

    if TYPE_CHECKING:  # provided by BaseClusterer, which every user of the mixin derives from

        def _validate_predict_data(self, X: Any) -> Any: ...

        def _predict_memberships(self, X: Any) -> npt.NDArray[np.floating]: ...

    def predict_proba(self, X: Any) -> npt.NDArray[np.floating]:
        """Memberships of each sample of ``X`` in each cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data (sparse only where the estimator accepts it for ``fit``).

        Returns
        -------
        memberships : ndarray of shape (n_samples, n_clusters)
            Non-negative rows that sum to one.
        """
        X = self._validate_predict_data(X)
        return self._predict_memberships(X)


class ClusterTransformerMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin):
    """Makes a :class:`BaseClusterer` with ``transform`` a scikit-learn transformer.

    ``transform`` gives one column per cluster (memberships, distances or scores
    of each cluster), named ``<class name in lower case><cluster index>`` by
    ``get_feature_names_out`` (as scikit-learn's KMeans). With
    ``get_feature_names_out`` defined, scikit-learn's ``set_output`` wraps
    ``transform`` and ``fit_transform`` (``set_output(transform="pandas")`` gives a
    DataFrame with those column names). Listed before :class:`BaseClusterer` in
    the bases.
    """

    _preserves_float32: ClassVar[bool]  # declared by BaseClusterer

    def __sklearn_tags__(self) -> Tags:  # noqa: D105
        tags = super().__sklearn_tags__()
        if self._preserves_float32:  # after TransformerMixin's tags (they reset it)
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @property
    def _n_features_out(self) -> int:
        """Columns of ``transform``: the fitted number of clusters (unfitted: no attribute)."""
        n_clusters = getattr(self, "_n_clusters", None)
        if n_clusters is None or not hasattr(self, "labels_"):
            raise AttributeError("_n_features_out is set by fit")
        return int(n_clusters)

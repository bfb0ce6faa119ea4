"""Input checks shared by every estimator (assumed to run once, in ``fit``)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = [
    "AnyValue",
    "Boolean",
    "CacheLocation",
    "Check",
    "Constraint",
    "Degeneracy",
    "Estimator",
    "Fuzzifier",
    "Init",
    "IntegerAtLeast",
    "IsCallable",
    "MaxIter",
    "NClusters",
    "NJobs",
    "OneOf",
    "Or",
    "Positive",
    "PositiveFinite",
    "Rule",
    "Seed",
    "UnitInterval",
    "Verbose",
    "check_distinct_rows",
    "check_finite_scale",
    "check_label_init",
    "check_max_iter",
    "check_memberships",
    "check_n_clusters",
    "check_not_constant",
    "check_parameters",
    "check_pairs",
    "check_positive",
    "check_positive_finite",
    "check_sample_weight",
    "check_sample_weight_form",
    "check_sample_weight_values",
    "check_unit_interval",
    "count_distinct_rows",
    "degeneracy",
    "describe_bad_values",
    "invalid_examples",
    "label_init",
    "membership_init",
    "min_cluster_size",
    "resolve_alias",
]


def check_n_clusters(n_clusters: object, n_samples: int, *, min_clusters: int = 2) -> int:
    """Validate ``n_clusters`` against the number of samples.

    Parameters
    ----------
    n_clusters : int
        Requested number of clusters.
    n_samples : int
        Number of samples in the data.
    min_clusters : int, default=2
        Smallest admissible value.

    Returns
    -------
    n_clusters : int
        The validated value as a Python int.

    Raises
    ------
    ValueError
        If ``n_clusters`` is not an integer, is below ``min_clusters`` or exceeds
        ``n_samples``.
    """
    rule = NClusters(min_clusters)
    value = rule(n_clusters, "n_clusters")
    rule.check_samples(value, "n_clusters", n_samples)
    return value


def check_positive(value: object, name: str, *, strict: bool = True) -> float:
    """Check that a scalar parameter is a (strictly) positive finite number.

    A positive integer (a count, an iteration limit) is :func:`check_max_iter`'s.

    Parameters
    ----------
    value : object
        The parameter value.
    name : str
        The parameter name, used in the error message.
    strict : bool, default=True
        Require ``value > 0`` rather than ``value >= 0``.

    Returns
    -------
    value : float
        The validated value.

    Raises
    ------
    ValueError
        If the value is not a number, not finite or not positive.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r}.")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if (strict and number <= 0) or (not strict and number < 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return number


def check_label_init(
    init: object, n_samples: int, n_clusters: int, inits: tuple[str, ...] = ()
) -> npt.NDArray[np.intp] | None:
    """Validate an ``init`` that is either a method name or an array of initial labels.

    Parameters
    ----------
    init : str or array-like of shape (n_samples,)
        A name from ``inits``, or one integer label in ``0..n_clusters - 1`` per sample.
    n_samples : int
        Number of samples.
    n_clusters : int
        Number of clusters.
    inits : tuple of str, default=()
        Accepted names.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype intp, or None
        The labels; None when ``init`` is a name.

    Raises
    ------
    ValueError
        On an unknown name, a wrong shape or dtype, or labels out of range.
    """
    if isinstance(init, str):
        if init not in inits:
            raise ValueError(
                f"init must be one of {inits} or an array of n_samples labels; got {init!r}."
            )
        return None
    labels = np.asarray(init)
    if labels.shape != (n_samples,) or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(
            f"init as labels must be an integer array of shape (n_samples,) = ({n_samples},); "
            f"got dtype {labels.dtype} and shape {labels.shape}."
        )
    if labels.min() < 0 or labels.max() >= n_clusters:
        raise ValueError(f"init labels must lie in 0..{n_clusters - 1} (n_clusters={n_clusters}).")
    return labels.astype(np.intp)


def check_max_iter(value: object, name: str = "max_iter") -> int:
    """Check that an iteration limit is a positive integer (``bool`` is rejected).

    Parameters
    ----------
    value : object
        The parameter value.
    name : str, default="max_iter"
        The parameter name, used in the error message.

    Returns
    -------
    value : int
        The validated value.

    Raises
    ------
    ValueError
        If the value is not an integer or is below 1.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def check_positive_finite(value: object, name: str) -> float:
    """Check that a scalar parameter is a real number with ``0 < value < inf``.

    Unlike :func:`check_positive`, one message covers every failure.

    Parameters
    ----------
    value : object
        The parameter value.
    name : str
        The parameter name, used in the error message.

    Returns
    -------
    value : float
        The validated value.

    Raises
    ------
    ValueError
        If the value is not a real number, not finite or not positive.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
    return float(value)


def check_unit_interval(value: object, name: str) -> float:
    """Check that a scalar parameter (a tolerance, a width) is a real number in ``[0, 1)``.

    Parameters
    ----------
    value : object
        The parameter value.
    name : str
        The parameter name, used in the error message.

    Returns
    -------
    value : float
        The validated value.

    Raises
    ------
    ValueError
        If the value is not a real number in ``[0, 1)``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < 1:
        raise ValueError(f"{name} must be a number in [0, 1); got {value!r}.")
    return float(value)


def check_not_constant(X: npt.ArrayLike | sp.spmatrix) -> None:
    """Raise when every sample is identical, so there is nothing to cluster.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data.

    Raises
    ------
    ValueError
        If every feature is constant.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        spread = (X.max(axis=0) - X.min(axis=0)).toarray().ravel()
    else:
        X = np.asarray(X)
        spread = np.ptp(X, axis=0)
    if X.shape[0] > 1 and np.all(spread == 0):
        raise ValueError(
            "All samples are identical (every feature is constant), so there is nothing "
            "to cluster. Check the data: a column-wise constant matrix cannot be split."
        )


def check_memberships(
    U: npt.ArrayLike, n_samples: int, n_clusters: int, *, name: str = "init"
) -> npt.NDArray[np.float64]:
    """Validate a user-supplied membership matrix (samples are rows).

    Parameters
    ----------
    U : array-like of shape (n_samples, n_clusters)
        Memberships; rows must be non-negative and sum to one.
    n_samples : int
        Expected number of rows.
    n_clusters : int
        Expected number of columns.
    name : str, default="init"
        Parameter name for messages.

    Returns
    -------
    U : ndarray of shape (n_samples, n_clusters)
        A float64 copy with rows renormalised to sum exactly to one.

    Raises
    ------
    ValueError
        On a wrong shape, negative or non-finite entries, or rows that do not sum to 1.
    """
    U = np.array(U, dtype=np.float64)
    if U.shape != (n_samples, n_clusters):
        raise ValueError(
            f"{name} must have shape (n_samples, n_clusters) = ({n_samples}, {n_clusters}); "
            f"got {U.shape}."
        )
    if not np.all(np.isfinite(U)) or np.any(U < 0):
        raise ValueError(f"{name} must contain finite, non-negative memberships.")
    sums = U.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        raise ValueError(
            f"Each row of {name} must sum to 1 (memberships on the simplex); the worst row "
            f"sums to {sums[np.argmax(np.abs(sums - 1))]:.6g}."
        )
    return U / sums[:, None]


def check_pairs(pairs: npt.ArrayLike | None, n_samples: int, name: str) -> npt.NDArray[np.intp]:
    """Validate must-link / cannot-link pairs.

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2) or None
        Index pairs into the rows of ``X``.
    n_samples : int
        Number of samples.
    name : str
        Parameter name for messages.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), dtype intp
        Empty (0, 2) when ``pairs`` is None.

    Raises
    ------
    ValueError
        If the shape is wrong, indices are not integers, are out of range or
        a pair links a sample to itself.
    """
    if pairs is None:
        return np.empty((0, 2), dtype=np.intp)
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n_pairs, 2); got {arr.shape}.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must hold integer sample indices; got dtype {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= n_samples:
        raise ValueError(
            f"{name} holds indices outside [0, {n_samples - 1}] (n_samples={n_samples})."
        )
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError(f"{name} links a sample to itself; remove those pairs.")
    return arr.astype(np.intp)


def resolve_alias(
    value: Any, name: str, allowed: tuple[str, ...], aliases: Mapping[str, str] | None = None
) -> Any:
    """Return the canonical spelling of a string option; warn on a deprecated alias.

    The one vocabulary of marginclust (``init="k-means++"``, ``"k-means"``,
    ``"random"``, ...) is enforced here; old spellings keep working for one
    release with a ``FutureWarning`` that names the new one. Non-strings (arrays,
    callables) are returned unchanged for the caller to validate.

    Parameters
    ----------
    value : object
        The user's value.
    name : str
        Parameter name, for messages.
    allowed : tuple of str
        Canonical spellings.
    aliases : mapping of str to str, optional
        Deprecated spelling -> canonical spelling.

    Returns
    -------
    value : object
        The canonical spelling, or ``value`` itself when it is not a string.

    Raises
    ------
    ValueError
        If ``value`` is a string that is neither canonical nor a known alias.

    Examples
    --------
    >>> from marginclust.utils import resolve_alias
    >>> resolve_alias("k-means++", "init", ("k-means++", "random"))
    'k-means++'
    """
    if not isinstance(value, str):
        return value
    if value in allowed:
        return value
    if aliases and value in aliases:
        new = aliases[value]
        warnings.warn(
            f"{name}={value!r} is deprecated and will be removed in 0.3; use {name}={new!r}.",
            FutureWarning,
            stacklevel=3,
        )
        return new
    raise ValueError(f"{name} must be one of {list(allowed)} or an array; got {value!r}.")


def check_finite_scale(X: Any, name: str = "X") -> None:
    """Reject data whose centred squared norms overflow or underflow to zero.

    Squared distances are what every method here computes; if they are not
    finite (features near 1e154 or beyond) or all vanish although the rows
    differ (features near 1e-154), any result would be silently wrong.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Validated data.
    name : str, default="X"
        Name for messages.

    Raises
    ------
    ValueError
        With the advice to rescale the features.
    """
    if sp.issparse(X):
        data = X.data
        # max |x|^2 * n_features bounds every squared norm.
        peak = float(np.max(np.abs(data))) if data.size else 0.0
        with np.errstate(over="ignore"):
            sq = peak * peak * X.shape[1]
        if not np.isfinite(sq):
            raise ValueError(
                f"{name} has values up to {peak:.3g}: squared distances overflow. "
                "Rescale your features (e.g. sklearn.preprocessing.MaxAbsScaler)."
            )
        return
    Xc = np.asarray(X)
    # column extremes in the input dtype, differences in float64: no copy of X
    spread = Xc.max(axis=0).astype(np.float64) - Xc.min(axis=0).astype(np.float64)
    peak = float(spread.max()) if spread.size else 0.0
    with np.errstate(over="ignore", under="ignore"):
        sq = peak * peak * Xc.shape[1]
    if not np.isfinite(sq):
        raise ValueError(
            f"{name} has feature ranges up to {peak:.3g}: squared distances overflow. "
            "Rescale your features (e.g. sklearn.preprocessing.StandardScaler)."
        )
    if peak > 0 and sq < np.finfo(np.float64).tiny * 1e4:
        raise ValueError(
            f"{name} has feature ranges of at most {peak:.3g}: squared distances underflow "
            "to zero. Rescale your features (e.g. sklearn.preprocessing.StandardScaler)."
        )


def min_cluster_size(n_samples: int, n_clusters: int) -> int:
    """The documented smallest cluster that is not degenerate.

    One sample when the data are too few to ask more (``n_samples < 5 *
    n_clusters``), else two: a one-point cluster in a data set with room for
    more is an outlier swallowed as a cluster, not a partition.

    Parameters
    ----------
    n_samples : int
        Number of samples.
    n_clusters : int
        Number of clusters asked for.

    Returns
    -------
    size : int
        1 or 2.
    """
    return 1 if n_samples < 5 * n_clusters else 2


class Degeneracy(NamedTuple):
    """Cluster-size summary of a labelling (see :func:`degeneracy`).

    Parameters
    ----------
    n_found : int
        Number of non-empty clusters.
    sizes : ndarray of shape (n_clusters,)
        Number of samples in each cluster.
    min_size : int
        The smallest size that is not degenerate (:func:`min_cluster_size`).
    degenerate : bool
        Fewer non-empty clusters than asked, or one below ``min_size``.
    """

    n_found: int
    sizes: npt.NDArray[np.intp]
    min_size: int
    degenerate: bool


def degeneracy(labels: npt.ArrayLike, n_clusters: int) -> Degeneracy:
    """Count non-empty clusters and flag a degenerate (collapsed) labelling.

    A labelling is degenerate when fewer than ``n_clusters`` clusters are
    non-empty, or one is smaller than :func:`min_cluster_size`.

    Parameters
    ----------
    labels : array-like of int, shape (n_samples,)
        Cluster labels in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters asked for.

    Returns
    -------
    Degeneracy
        ``n_found``, ``sizes`` (length ``n_clusters``), the ``min_size`` threshold
        and ``degenerate``.

    Examples
    --------
    >>> from marginclust.utils import degeneracy
    >>> degeneracy([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 2).degenerate
    True
    """
    lab = np.asarray(labels, dtype=np.intp).ravel()
    sizes = np.bincount(lab, minlength=n_clusters).astype(np.intp)
    n_found = int(np.count_nonzero(sizes))
    threshold = min_cluster_size(lab.size, n_clusters)
    degenerate = n_found < n_clusters or bool(np.any(sizes[sizes > 0] < threshold))
    return Degeneracy(n_found, sizes, threshold, degenerate)


def check_sample_weight(sample_weight: Any, X: np.ndarray) -> np.ndarray:
    """Validate ``sample_weight`` as a non-negative finite 1-D array in the dtype of ``X``.

    Parameters
    ----------
    sample_weight : float, array-like of shape (n_samples,) or None
        None gives unit weights; a number is used for every sample.
    X : ndarray of shape (n_samples, n_features)
        The validated data.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,)
        The weights, in the dtype of ``X``.

    Raises
    ------
    ValueError
        If the weights are not numeric, of another length, negative, not finite,
        all zero, or sum past the largest number of the dtype of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import check_sample_weight
    >>> check_sample_weight(None, np.zeros((3, 2)))
    array([1., 1., 1.])
    """
    n = X.shape[0]
    if sample_weight is None:
        return np.ones(n, dtype=X.dtype)
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        sw = np.full(n, float(sample_weight), dtype=X.dtype)
    else:
        sw = np.asarray(sample_weight)
        check_sample_weight_form(sw, n)
        sw = sw.astype(X.dtype)
    finite_non_negative = bool(np.all(np.isfinite(sw))) and not bool(np.any(sw < 0))
    with np.errstate(over="ignore"):
        total = np.sum(sw) if finite_non_negative else 0.0
    check_sample_weight_values(finite_non_negative, bool(np.any(sw > 0)),
                               bool(np.isfinite(total)))
    return sw


def check_sample_weight_form(sample_weight: Any, n_samples: int) -> None:
    """Check that weights are numeric with shape ``(n_samples,)``.

    Needs only ``dtype`` and ``shape``, so a lazy (dask) array is checked
    without computing it.

    Parameters
    ----------
    sample_weight : array
        The weights (NumPy or dask).
    n_samples : int
        Number of samples.

    Raises
    ------
    ValueError
        If the dtype is not numeric or the shape is not ``(n_samples,)``.
    """
    if sample_weight.dtype.kind not in "fiub":
        raise ValueError(f"sample_weight must be numeric; got dtype {sample_weight.dtype}.")
    if sample_weight.shape != (n_samples,):
        raise ValueError(
            f"sample_weight must have shape (n_samples,) = ({n_samples},); "
            f"got {sample_weight.shape}."
        )


def check_sample_weight_values(
    finite_non_negative: bool, any_positive: bool, finite_total: bool = True,
) -> None:
    """Raise the error of weights that are not finite and non-negative, all zero, or too large.

    The facts are passed in, so that a pass over lazy weights can gather them.

    Parameters
    ----------
    finite_non_negative : bool
        Every weight is finite and ``>= 0``.
    any_positive : bool
        Some weight is ``> 0``.
    finite_total : bool, default=True
        The weights' sum is finite in their dtype (the fits divide by it: a sum
        past the dtype's largest number is ``inf``, and every share 0).

    Raises
    ------
    ValueError
        If any fact is false.
    """
    if not finite_non_negative:
        raise ValueError("sample_weight must be finite and non-negative.")
    if not any_positive:
        raise ValueError(
            "sample_weight is all zero: at least one weight must be positive (zero-weight "
            "samples are ignored by the fit)."
        )
    if not finite_total:
        raise ValueError(
            "sample_weight sums past the largest number of the data's dtype; divide the "
            "weights by a constant (only their ratios matter to the partition)."
        )


# ---------------------------------------------------------------------------
# Declarative parameter constraints: each estimator lists ``parameter -> constraint``
# for every constructor parameter in its ``_parameter_constraints`` table, which
# ``BaseClusterer`` checks once per fit with :func:`check_parameters` (as
# scikit-learn's ``_parameter_constraints``). A constraint is called as
# ``constraint(value, name)`` and raises ValueError with a message that names the
# parameter; a :class:`Rule` may also check what the value needs of the data
# (``check_data``) and names values it refuses (``invalid_examples``).
# ---------------------------------------------------------------------------
Constraint = Callable[[Any, str], object]


class Rule:
    """Base of the constraint classes: a value check, a data check and refused values.

    ``rule(value, name)`` checks what the value decides alone and returns it;
    :meth:`check_data` checks what it needs of the data a fit received (an
    ``init`` array's shape, ``n_clusters <= n_samples``); :meth:`invalid_examples`
    lists values the rule refuses, so that a test can hold every table to it.
    """

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        return value

    def check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        """Check ``value`` against the data a fit received.

        Parameters
        ----------
        value : object
            The parameter's value (its value check has passed).
        name : str
            The parameter's name, for messages.
        X : object with ``shape``
            The data (validated, or a row-block backend): only its ``shape`` is read.
        n_clusters : int or None
            The estimator's number of clusters when it is an integer.

        Raises
        ------
        ValueError
            If the value does not suit the data.
        """
        self._check_data(value, name, X, n_clusters)

    def invalid_examples(self) -> tuple[Any, ...]:
        """Values this rule refuses (by value, or on data of any shape).

        Returns
        -------
        values : tuple
            Values that make a fit raise an error naming the parameter.
        """
        return self._invalid()

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        """Nothing to check against the data by default."""

    def _invalid(self) -> tuple[Any, ...]:
        return ()


def invalid_examples(constraint: Constraint) -> tuple[Any, ...]:
    """Values a constraint refuses (none for a bare function or :class:`AnyValue`).

    Parameters
    ----------
    constraint : callable
        A table's constraint.

    Returns
    -------
    values : tuple
        Its :meth:`Rule.invalid_examples`.

    Examples
    --------
    >>> from marginclust.utils import MaxIter, invalid_examples
    >>> 0 in invalid_examples(MaxIter())
    True
    """
    examples = getattr(constraint, "invalid_examples", None)
    return tuple(examples()) if examples is not None else ()


def check_parameters(
    estimator: Any,
    constraints: Mapping[str, Constraint],
    X: Any = None,
    n_clusters: int | None = None,
) -> None:
    """Check an estimator's parameters against a table of constraints, in table order.

    Every value is checked first; then, given the data ``X``, what each value
    needs of it (:meth:`Rule.check_data`).

    Parameters
    ----------
    estimator : object
        The estimator; ``getattr(estimator, name)`` is each parameter's value.
    constraints : mapping of str to callable
        ``parameter name -> constraint``, each called as ``constraint(value, name)``.
    X : object with ``shape``, default=None
        The data a fit received (validated, or a row-block backend); None checks
        the values only.
    n_clusters : int or None, default=None
        The number of clusters of the fit, for the data checks (None: not fixed).

    Raises
    ------
    ValueError
        At the first parameter that breaks its constraint (TypeError where a
        constraint says so).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from marginclust.utils import MaxIter, Positive, check_parameters
    >>> table = {"tol": Positive(strict=False), "max_iter": MaxIter()}
    >>> check_parameters(SimpleNamespace(tol=1e-4, max_iter=100), table)
    >>> check_parameters(SimpleNamespace(tol=1e-4, max_iter=0), table)
    Traceback (most recent call last):
    ...
    ValueError: max_iter must be a positive integer; got 0.
    """
    for name, constraint in constraints.items():
        constraint(getattr(estimator, name), name)
    if X is None:
        return
    for name, constraint in constraints.items():
        check_data = getattr(constraint, "check_data", None)
        if check_data is not None:
            check_data(getattr(estimator, name), name, X, n_clusters)


@dataclass(frozen=True)
class Positive(Rule):
    """A finite real ``> 0`` (``>= 0`` unless ``strict``); integers: :class:`MaxIter`.

    Parameters
    ----------
    strict : bool, default=True
        Require ``value > 0`` rather than ``value >= 0``.
    """

    strict: bool = True

    def __call__(self, value: Any, name: str) -> float:
        """Check ``value`` (see :func:`check_positive`); return it."""
        return check_positive(value, name, strict=self.strict)

    def _invalid(self) -> tuple[Any, ...]:
        """A string, a negative number, infinity (and 0 when strict)."""
        return ("1", -1.0, np.inf) + ((0.0,) if self.strict else ())


@dataclass(frozen=True)
class PositiveFinite(Rule):
    """A real ``0 < value < inf``, one message for every failure (:func:`check_positive_finite`)."""

    def __call__(self, value: Any, name: str) -> float:
        """Check ``value``; return it as a float."""
        return check_positive_finite(value, name)

    def _invalid(self) -> tuple[Any, ...]:
        """A string, 0, a negative number, infinity."""
        return ("1", 0.0, -1.0, np.inf)


@dataclass(frozen=True)
class UnitInterval(Rule):
    """A real in ``[0, 1)`` (:func:`check_unit_interval`)."""

    def __call__(self, value: Any, name: str) -> float:
        """Check ``value``; return it as a float."""
        return check_unit_interval(value, name)

    def _invalid(self) -> tuple[Any, ...]:
        """A string, a negative number, 1."""
        return ("0.5", -0.1, 1.0)


@dataclass(frozen=True)
class MaxIter(Rule):
    """A positive integer, ``bool`` rejected (:func:`check_max_iter`).

    An iteration limit, a number of restarts, of components or of hidden nodes.
    """

    def __call__(self, value: Any, name: str) -> int:
        """Check ``value``; return it as an int."""
        return check_max_iter(value, name)

    def _invalid(self) -> tuple[Any, ...]:
        """0, a fraction, a string, a bool."""
        return (0, 1.5, "10", True)


@dataclass(frozen=True)
class IntegerAtLeast(Rule):
    """An integer ``>= minimum`` (``bool`` rejected).

    Parameters
    ----------
    minimum : int
        The smallest admissible value.
    """

    minimum: int

    def __call__(self, value: Any, name: str) -> int:
        """Check ``value``; return it as an int."""
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or (
                value < self.minimum):
            raise ValueError(f"{name} must be an integer >= {self.minimum}; got {value!r}.")
        return int(value)

    def _invalid(self) -> tuple[Any, ...]:
        """One below the minimum, a fraction, a string."""
        return (self.minimum - 1, self.minimum + 0.5, "10")


@dataclass(frozen=True)
class NClusters(Rule):
    """A number of clusters: an integer in ``[minimum, maximum]``, at most ``n_samples``.

    ``maximum`` is 2 for a binary method; the data check refuses more clusters
    than samples.

    Parameters
    ----------
    minimum : int, default=2
        The smallest admissible value.
    maximum : int or None, default=None
        The largest (2 for a binary method).
    """

    minimum: int = 2
    maximum: int | None = None

    def __call__(self, value: Any, name: str) -> int:
        """Check ``value``; return it as an int."""
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(
                f"{name} must be an integer >= {self.minimum}; got {value!r} "
                f"of type {type(value).__name__}."
            )
        value = int(value)
        if value < self.minimum:
            raise ValueError(f"{name} must be >= {self.minimum}; got {value}.")
        if self.maximum is not None and value > self.maximum:
            bound = "" if self.minimum == self.maximum else "at most "
            raise ValueError(
                f"{name} must be {bound}{self.maximum}: the method is binary; got {name}={value}."
            )
        return value

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        """At most one cluster per sample."""
        self.check_samples(value, name, X.shape[0])

    @staticmethod
    def check_samples(value: int, name: str, n_samples: int) -> None:
        """Refuse more clusters than samples.

        Parameters
        ----------
        value : int
            The number of clusters.
        name : str
            The parameter's name, for messages.
        n_samples : int
            The number of samples.

        Raises
        ------
        ValueError
            If ``value > n_samples``.
        """
        if value > n_samples:
            raise ValueError(
                f"{name}={value} is larger than n_samples={n_samples}: a clustering "
                f"needs at least one sample per cluster. Pass more samples or set "
                f"{name} <= {n_samples}."
            )

    def _invalid(self) -> tuple[Any, ...]:
        """One below the minimum (one above the maximum), a fraction, a string, a bool."""
        above = () if self.maximum is None else (self.maximum + 1,)
        return (self.minimum - 1, *above, 2.5, "3", True)


@dataclass(frozen=True)
class Fuzzifier(Rule):
    """A fuzzifier ``m``: a finite real ``> 1``."""

    def __call__(self, value: Any, name: str) -> float:
        """Check ``value``; return it as a float."""
        m = check_positive(value, name)
        if m <= 1:
            raise ValueError(f"{name} (the fuzzifier) must be > 1; got {value!r}.")
        return m

    def _invalid(self) -> tuple[Any, ...]:
        """1, a number below 1, a string."""
        return (1.0, 0.5, "2")


@dataclass(frozen=True)
class Boolean(Rule):
    """``True`` or ``False`` (NumPy booleans too; ``0`` and ``1`` are not booleans)."""

    def __call__(self, value: Any, name: str) -> bool:
        """Check ``value``; return it as a bool."""
        if not isinstance(value, bool | np.bool_):
            raise ValueError(f"{name} must be True or False; got {value!r}.")
        return bool(value)

    def _invalid(self) -> tuple[Any, ...]:
        """0 and a string."""
        return (0, "yes")


@dataclass(frozen=True)
class Seed(Rule):
    """``random_state``: None, an int in ``[0, 2**32 - 1]`` or a RandomState.

    What :func:`sklearn.utils.check_random_state` takes (``bool`` rejected).
    """

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if value is None or isinstance(value, np.random.RandomState):
            return value
        if not isinstance(value, bool) and isinstance(value, numbers.Integral) and (
                0 <= int(value) <= np.iinfo(np.uint32).max):
            return value
        raise ValueError(
            f"{name} must be None, an int in [0, 2**32 - 1] or a numpy.random.RandomState; "
            f"got {value!r}."
        )

    def _invalid(self) -> tuple[Any, ...]:
        """A negative int, a fraction, a string."""
        return (-1, 0.5, "0")


@dataclass(frozen=True)
class Verbose(Rule):
    """``verbose``: an integer ``>= 0`` (0 is silent) or a bool."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if isinstance(value, bool | np.bool_) or (
                isinstance(value, numbers.Integral) and int(value) >= 0):
            return value
        raise ValueError(f"{name} must be an integer >= 0 or a bool; got {value!r}.")

    def _invalid(self) -> tuple[Any, ...]:
        """A negative int, a fraction, a string."""
        return (-1, 0.5, "1")


@dataclass(frozen=True)
class AnyValue(Rule):
    """A parameter that takes any value by design (nothing to refuse).

    Parameters
    ----------
    why : str
        What the parameter is and why any value is admissible (documentation).
    """

    why: str


@dataclass(frozen=True)
class Check(Rule):
    """A rule of one family of estimators, written as a function ``check(value, name)``.

    Parameters
    ----------
    check : callable
        Raises ValueError (naming ``name``) on a refused value.
    invalid : tuple, default=()
        Values it refuses.
    """

    check: Callable[[Any, str], object]
    invalid: tuple[Any, ...] = ()

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        self.check(value, name)
        return value

    def _invalid(self) -> tuple[Any, ...]:
        """The ``invalid`` values."""
        return self.invalid


@dataclass(frozen=True)
class IsCallable(Rule):
    """A callable (a kernel function, a scorer).

    Parameters
    ----------
    message : str
        The error, formatted with ``name`` and ``value``.
    """

    message: str = "{name} must be callable; got {value!r}."

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if not callable(value):
            raise ValueError(self.message.format(name=name, value=value))
        return value

    def _invalid(self) -> tuple[Any, ...]:
        """A number."""
        return (1.0,)


@dataclass(frozen=True)
class Estimator(Rule):
    """An unfitted scikit-learn estimator (``get_params`` and ``fit``), cloned by its user."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if isinstance(value, type) or not (hasattr(value, "get_params")
                                           and hasattr(value, "fit")):
            raise TypeError(
                f"{name} must be an estimator instance (with get_params and fit); "
                f"got {value!r}."
            )
        return value

    def _invalid(self) -> tuple[Any, ...]:
        """A string and a number."""
        return ("KMeans", 3)


@dataclass(frozen=True)
class CacheLocation(Rule):
    """``memory``: None, a directory path or an object with joblib.Memory's ``cache``."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if value is None or isinstance(value, str) or hasattr(value, "cache"):
            return value
        raise ValueError(
            f"{name} must be None, a directory (str) or a joblib.Memory; got {value!r}."
        )

    def _invalid(self) -> tuple[Any, ...]:
        """A number."""
        return (3,)


@dataclass(frozen=True)
class NJobs(Rule):
    """``n_jobs``: None or a non-zero integer (joblib's: ``-1`` is every core)."""

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if value is None or (not isinstance(value, bool) and isinstance(value, numbers.Integral)
                             and value != 0):
            return value
        raise ValueError(f"{name} must be None or a non-zero integer; got {value!r}.")

    def _invalid(self) -> tuple[Any, ...]:
        """0, a fraction, a string."""
        return (0, 1.5, "2")


@dataclass(frozen=True)
class Init(Rule):
    """``init``: a start's name (or an old spelling of one), or an array the data decide.

    Old spellings pass here silently; the fit resolves them with
    :func:`resolve_alias`, which warns.

    Parameters
    ----------
    names : tuple of str
        The starts' names.
    array : callable or None, default=None
        ``array(value, name, X, n_clusters)``, the check of an array on the
        data; None: arrays are refused.
    what : str, default="an array"
        The arrays ``array`` accepts, for messages (``"an array of labels"``).
    aliases : tuple of str, default=()
        Old spellings of names.
    """

    names: tuple[str, ...]
    array: Callable[[Any, str, Any, int | None], object] | None = None
    what: str = "an array"
    aliases: tuple[str, ...] = ()

    def __call__(self, value: Any, name: str) -> Any:
        """Check a name; an array is checked on the data."""
        if isinstance(value, str):
            if value in self.names or value in self.aliases:
                return value
            raise ValueError(
                f"{name} must be one of {list(self.names)} or {self.what}; got {value!r}."
            )
        if self.array is None:
            raise ValueError(f"{name} must be one of {list(self.names)}; got {value!r}.")
        return value

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        """Check an array against the data's shape."""
        if self.array is not None and not isinstance(value, str):
            self.array(value, name, X, n_clusters)

    def _invalid(self) -> tuple[Any, ...]:
        """An unknown name and an array of no admissible shape (3-D)."""
        return ("no-such-start", np.zeros((1, 1, 1), dtype=np.intp))


def label_init(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """The data check of an ``init`` of labels (:func:`check_label_init`), for :class:`Init`.

    Parameters
    ----------
    value : array-like of shape (n_samples,)
        The labels.
    name : str
        The parameter's name (the messages say ``init``).
    X : object with ``shape``
        The data.
    n_clusters : int
        The number of clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import label_init
    >>> label_init([0, 1, 1], "init", np.zeros((3, 2)), 2)
    """
    check_label_init(value, X.shape[0], int(n_clusters or 0))


def membership_init(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """The data check of an ``init`` of memberships (:func:`check_memberships`).

    For :class:`Init`; a lazy (dask) array, row-aligned with ``X``, is not read.

    Parameters
    ----------
    value : array-like of shape (n_samples, n_clusters)
        The memberships.
    name : str
        The parameter's name.
    X : object with ``shape``
        The data.
    n_clusters : int
        The number of clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import membership_init
    >>> membership_init([[1.0, 0.0], [0.5, 0.5]], "init", np.zeros((2, 3)), 2)
    """
    if not hasattr(value, "__dask_graph__"):
        check_memberships(value, X.shape[0], int(n_clusters or 0), name=name)


@dataclass(frozen=True)
class OneOf(Rule):
    """One of a fixed set of values (names, ``None``), compared with ``==``.

    Parameters
    ----------
    options : tuple
        The admissible values.
    message : str or None, default=None
        The error, formatted with ``name``, ``value`` and ``options``; by default
        ``"{name} must be one of {options}; got {value!r}."``.
    """

    options: tuple[Any, ...]
    message: str | None = None

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if not any(_same_option(value, option) for option in self.options):
            message = self.message or "{name} must be one of {options}; got {value!r}."
            raise ValueError(message.format(name=name, value=value, options=self.options))
        return value

    def _invalid(self) -> tuple[Any, ...]:
        """A name that is not an option."""
        return ("no-such-option",)


@dataclass(frozen=True)
class Or(Rule):
    """One of ``options`` (names, ``None``), or else a value that ``other`` accepts.

    A string (or ``None``) that is not an option is refused with ``message``; any
    other value is checked by ``other``.

    Parameters
    ----------
    options : tuple
        Admissible names (and ``None``).
    other : callable
        The constraint of every other value, e.g. :class:`Positive`.
    message : str or None, default=None
        The error for an unknown name, formatted with ``name``, ``value`` and
        ``options``; by default ``"{name} must be one of {options} or a number;
        got {value!r}."``.
    """

    options: tuple[Any, ...]
    other: Constraint
    message: str | None = None

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        if any(_same_option(value, option) for option in self.options):
            return value
        if value is None or isinstance(value, str):
            message = self.message or "{name} must be one of {options} or a number; got {value!r}."
            raise ValueError(message.format(name=name, value=value, options=self.options))
        return self.other(value, name)

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        """``other``'s data check of a value that is not an option."""
        check_data = getattr(self.other, "check_data", None)
        if check_data is not None and not any(
                _same_option(value, option) for option in self.options):
            check_data(value, name, X, n_clusters)

    def _invalid(self) -> tuple[Any, ...]:
        """A name that is not an option, and what ``other`` refuses."""
        return ("no-such-option",) + tuple(
            v for v in invalid_examples(self.other)
            if not any(_same_option(v, option) for option in self.options)
        )


def _same_option(value: Any, option: Any) -> bool:
    """``value`` is ``option``: equal and of the same kind (``1`` is not ``True``)."""
    if option is None or value is None:
        return value is option
    if isinstance(option, str) or isinstance(value, str):
        return isinstance(value, str) and isinstance(option, str) and value == option
    if isinstance(option, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(option, bool) and value == option
    try:
        return bool(value == option)
    except (TypeError, ValueError):  # arrays: not an option
        return False


def _dense_rows(X: Any, lo: int, hi: int) -> np.ndarray:
    block = X[lo:hi]
    return np.asarray(block.toarray() if sp.issparse(block) else block)


def count_distinct_rows(X: Any, limit: int) -> int:
    """The number of distinct rows of ``X``, counted up to ``limit``.

    Rows are scanned in order and compared with the distinct ones found so far,
    so data whose first ``limit`` rows differ cost ``O(limit^2 d)``; only data
    with few distinct rows are scanned to the end (``O(n limit d)``).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data.
    limit : int
        Stop counting at this many.

    Returns
    -------
    count : int
        ``min(number of distinct rows, limit)``.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import count_distinct_rows
    >>> count_distinct_rows(np.array([[0, 1], [0, 1], [2, 3]]), limit=10)
    2
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)  # row slices (COO and DIA have none)
    n = X.shape[0]
    found: list[np.ndarray] = []
    block = 256
    for lo in range(0, n, block):
        B = _dense_rows(X, lo, min(n, lo + block))
        if found:
            R = np.vstack(found)
            seen = np.zeros(B.shape[0], dtype=bool)
            for r in R:  # at most ``limit`` rows: a loop of vectorised comparisons
                seen |= np.all(B == r, axis=1)
            B = B[~seen]
        for row in B:
            if not any(np.array_equal(row, f) for f in found):
                found.append(row)
                if len(found) >= limit:
                    return limit
    return len(found)


class DistinctRows(NamedTuple):
    """Distinct rows of ``X`` with their weights (see :func:`distinct_rows`)."""

    first: npt.NDArray[np.intp]
    inverse: npt.NDArray[np.intp]
    weights: npt.NDArray[np.float64]


def distinct_rows(X: np.ndarray, sample_weight: np.ndarray | None = None) -> DistinctRows:
    """The distinct rows of dense ``X``, in order of first appearance, with summed weights.

    A row repeated ``r`` times is one point of weight ``r`` (times its weight):
    a method that judges points by their neighbours, where a row's copies would
    be its own nearest neighbours, sees the same points however often each row
    is repeated. ``-0.0`` and ``0.0`` are one value.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated, finite, dense data.
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Non-negative weight of each row (None: one each).

    Returns
    -------
    rows : DistinctRows
        ``first``: the first row of each distinct value, ascending (``X[first]``
        are the distinct rows); ``inverse``: for every row of ``X``, the position
        of its value in ``first``; ``weights``: each distinct row's summed weight.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import distinct_rows
    >>> X = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [-0.0, 0.0]])
    >>> d = distinct_rows(X)
    >>> d.first.tolist(), d.inverse.tolist(), d.weights.tolist()
    ([0, 1], [0, 1, 0, 1], [2.0, 2.0])
    """
    A = np.ascontiguousarray(X) + 0.0  # -0.0 + 0.0 is +0.0: one value, one byte pattern
    n = A.shape[0]
    keys = A.view(np.dtype((np.void, A.dtype.itemsize * A.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    inverse = rank[np.asarray(inverse).ravel()].astype(np.intp)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    weights = np.bincount(inverse, weights=w, minlength=order.size).astype(np.float64)
    return DistinctRows(first[order].astype(np.intp), inverse, weights)


def check_distinct_rows(X: Any, n_clusters: int, name: str = "X") -> None:
    """Refuse ``n_clusters`` larger than the number of distinct rows of ``X``.

    Identical rows fall in one cluster, so ``K`` clusters need ``K`` distinct
    rows; without this check a method collapses and gives advice about its own
    parameters, or returns clusters of copies of the same point.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data a fit received, after validation.
    n_clusters : int
        Number of clusters asked for.
    name : str, default="X"
        Name used in the message.

    Raises
    ------
    ValueError
        ``"X has only N distinct rows; n_clusters=K needs at least K ..."``.
    """
    found = count_distinct_rows(X, n_clusters)
    if found < n_clusters:
        rows = "row (all samples are identical)" if found == 1 else "rows"
        raise ValueError(
            f"{name} has only {found} distinct {rows}; n_clusters={n_clusters} needs at least "
            f"{n_clusters}. Ask for at most {found} clusters, or check the data (its "
            f"{X.shape[0]} rows repeat {found} value{'s' if found > 1 else ''})."
        )


def _is_frame(X: Any) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def _cell_problem(value: Any) -> str | None:
    """``"NaN"``, ``"inf"``, ``"text"`` or None (a finite number) for one cell."""
    if value is None:
        return "NaN"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "NaN" if type(value).__name__ in ("NAType", "NaTType") else "text"
    if np.isnan(number):
        return "NaN"
    if not np.isfinite(number):
        return "inf"
    return None


def describe_bad_values(X: Any, name: str = "X") -> str | None:
    """One sentence naming the first missing, infinite or non-numeric entry of ``X``.

    Rows and columns are counted from 0; a pandas DataFrame's columns are named
    and its categorical or text columns are named together. None when ``X``
    has no such entry (the caller's own error then stands).

    Parameters
    ----------
    X : array-like, DataFrame or sparse matrix
        The data as the user passed it.
    name : str, default="X"
        Name used in the message.

    Returns
    -------
    message : str or None
        The sentence, with what to do.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.utils import describe_bad_values
    >>> describe_bad_values(np.array([[0.0, 1.0], [2.0, np.nan]]))[:45]
    'X contains NaN (a missing value) at row 1, co'
    """
    advice = {
        "NaN": "drop or impute the missing values first (e.g. sklearn.impute.SimpleImputer)",
        "inf": "replace or drop the infinite values first",
        "text": "encode text or categorical columns first (e.g. "
                "sklearn.preprocessing.OneHotEncoder) or drop them: the features must be "
                "numbers",
    }
    if _is_frame(X):
        kinds = {str(c): str(t) for c, t in zip(X.columns, X.dtypes, strict=True)}
        categorical = [c for c, t in kinds.items() if t == "category"]
        if categorical:
            return (f"{name} has categorical column(s) {categorical}; {advice['text']}.")
        columns = list(X.columns)
        values = X.to_numpy(dtype=object)
    elif sp.issparse(X):
        coo = sp.coo_matrix(X)
        bad = ~np.isfinite(coo.data) if coo.data.dtype.kind in "fc" else None
        if bad is None or not bad.any():
            return None
        k = int(np.argmax(bad))
        kind = "NaN" if np.isnan(coo.data[k]) else "inf"
        what = "NaN (a missing value)" if kind == "NaN" else "inf"
        return (f"{name} contains {what} at row {int(coo.row[k])}, column {int(coo.col[k])}; "
                f"{advice[kind]}.")
    else:
        try:
            values = np.asarray(X)
        except Exception:  # noqa: BLE001 - not array-like: the caller's error stands
            return None
        if values.ndim != 2:
            return None
        columns = list(range(values.shape[1]))
        if values.dtype.kind in "fc":
            bad = ~np.isfinite(values)
            if not bad.any():
                return None
            i, j = (int(v) for v in np.argwhere(bad)[0])
            kind = "NaN" if np.isnan(values[i, j]) else "inf"
            what = "NaN (a missing value)" if kind == "NaN" else "inf"
            return f"{name} contains {what} at row {i}, column {j}; {advice[kind]}."
        if values.dtype.kind in "iub":
            return None
        values = values.astype(object)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            problem = _cell_problem(value)
            if problem is None:
                continue
            col = repr(columns[j]) if _is_frame(X) else str(columns[j])
            if problem == "text":
                return (f"{name} holds {value!r} at row {i}, column {col}, not a number; "
                        f"{advice['text']}.")
            what = "NaN (a missing value)" if problem == "NaN" else "inf"
            return f"{name} contains {what} at row {i}, column {col}; {advice[problem]}."
    return None

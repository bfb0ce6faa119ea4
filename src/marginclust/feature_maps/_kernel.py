"""RBF kernel helpers shared by every kernel method.

The public vocabulary is scikit-learn's: ``k(x, y) = exp(-gamma ||x - y||^2)``
with ``gamma`` a positive float or a data-relative rule resolved once per fit by
:func:`resolve_gamma`: ``"scale"`` (scikit-learn's ``1 / (n_features * X.var())``)
``"sigma0"`` (the papers' reference width, ``sigma = sigma0`` the mean pairwise
distance, i.e. ``gamma = 1 / (2 sigma0^2)``) or ``"local"`` (the distances between
neighbours: ``1 / s^2`` with ``s`` the median distance to the 7th nearest
neighbour, :func:`marginclust.feature_maps.neighbor_scale`). The papers' ``sigma``
is ``gamma = 1 / (2 sigma^2)``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.spatial.distance import pdist
from sklearn.utils import check_random_state

from ..utils import Frame, Or, PositiveFinite, check_positive
from ..utils._blocks import RowBlockBackend, out_of_core, sample_row_indices

__all__ = [
    "GAMMA_CONSTRAINT",
    "GAMMA_RULES",
    "kernel_gamma_grid",
    "mean_pairwise_distance",
    "resolve_frame_gamma",
    "resolve_gamma",
]

GAMMA_RULES = ("scale", "sigma0", "local")
#: The RBF width ``gamma`` of the estimators' parameter tables: a rule or a positive float.
GAMMA_CONSTRAINT = Or(GAMMA_RULES, PositiveFinite(),
                      "{name} must be a positive float or one of {options}; got {value!r}.")


def resolve_gamma(
    gamma: object,
    X: npt.ArrayLike,
    *,
    random_state: int | np.random.RandomState | None = None,
    sample_weight: npt.ArrayLike | None = None,
) -> float:
    """The RBF ``gamma`` to use on ``X``: a positive float, or a data-relative rule.

    Every rule scales as ``1 / scale(X)^2``, so a fit at a rule is unchanged
    when ``X`` is multiplied by a constant. A rule is measured on ``X * 2**-e``
    when the spread of ``X`` is beyond ``2**±256`` (about 1e±77), an exact
    rescaling undone on the result, so that squared distances neither overflow
    nor underflow: the result is the rule's at any finite scale of ``X``, or a
    ValueError when that width itself is beyond float64's normal range (data
    near 1e-154 or 1e154 and beyond; a fit there works in rescaled units, e.g.
    :func:`resolve_frame_gamma`).

    Parameters
    ----------
    gamma : float or {"scale", "sigma0", "local"}
        A positive float is returned unchanged. ``"scale"``:
        ``1 / (n_features * X.var())`` as in scikit-learn's SVC. ``"sigma0"``:
        ``1 / (2 sigma0^2)`` with ``sigma0`` the mean pairwise distance
        (:func:`mean_pairwise_distance`, on at most 2,000 rows). ``"local"``:
        ``1 / s^2`` with ``s`` the median distance of a point to its 7th nearest
        neighbour (:func:`marginclust.feature_maps.neighbor_scale`, on at most
        2,000 rows), the width of Zelnik-Manor & Perona's locally scaled
        affinity: it follows the gaps between neighbouring points, not the
        extent of the whole data set.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Training data.
    random_state : int, RandomState instance or None, default=None
        Seeds the row sample of ``"sigma0"`` and ``"local"`` on large data.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights of ``"sigma0"`` (an integer weight counts as repeated rows;
        see :func:`mean_pairwise_distance`); the other rules ignore them.

    Returns
    -------
    gamma : float
        The RBF width, positive and finite.

    Raises
    ------
    ValueError
        For an unknown rule, a non-positive float, data with no spread (the
        rule is undefined; pass a float), or a rule's width beyond the float range.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps import resolve_gamma
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0]])
    >>> round(resolve_gamma("scale", X), 6), round(resolve_gamma("sigma0", X), 6)
    (0.5, 0.0625)
    >>> resolve_gamma("local", np.arange(10.0)[:, None])  # median 7th-neighbour distance 5
    0.04
    """
    # out of core the rules run by passes (a dask array given here directly is read
    # through NumPy's calls, as in memory)
    if isinstance(gamma, str) and isinstance(X, RowBlockBackend) and out_of_core(X):
        return _row_backend_gamma(gamma, X, random_state)
    if isinstance(gamma, str) and gamma in GAMMA_RULES:
        # Every rule is 1 / (a squared length of X): squares of data near 1e-154 or 1e154
        # and beyond underflow or overflow. The rule runs on X * 2**-e (exact, the
        # peak near 1) and the result is scaled back by 2**-2e, exact too: the same
        # width bit for bit where the squares fit, the true one where they do not.
        e = _spread_exponent(X, flat=gamma == "scale")
        if abs(e) > _EXPONENT_MARGIN:
            g = _resolve_rule(gamma, _ldexp_data(X, -e), random_state, sample_weight)
            with np.errstate(over="ignore", under="ignore"):
                out = float(np.ldexp(g, -2 * e))
            if not (np.finfo(np.float64).tiny <= out < np.inf):  # (subnormal: no digits)
                raise ValueError(
                    f"gamma={gamma!r} on these data is about 2**{-2 * e} (their spread is "
                    f"about 2**{e}): beyond the float range. Rescale your features "
                    "(e.g. sklearn.preprocessing.StandardScaler)."
                )
            return out
    if isinstance(gamma, str):
        return _resolve_rule(gamma, X, random_state, sample_weight)
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise ValueError(f"gamma must be a positive float or one of {GAMMA_RULES}; got {gamma!r}.")
    if not np.isfinite(float(gamma)) or gamma <= 0:
        raise ValueError(f"gamma must be positive and finite; got {gamma!r}.")
    return float(gamma)


# A rule runs on the data as given while their spread is within 2**±256 (about 1e±77):
# squared distances summed over rows and features stay far inside float64.
_EXPONENT_MARGIN = 256


def _spread_exponent(X: Any, *, flat: bool = False) -> int:
    """``e`` with the spread of X in ``[2**(e-1), 2**e)``, the spread being its largest
    column range (its range over all entries when ``flat``: the ``"scale"`` rule's
    variance is that of all entries), within a factor 2 of the largest centred
    ``|entry|``. Sparse X: twice its largest stored ``|value|`` (its zeros are entries).
    Column extremes only: no temporary of the size of X. 0 for data with no spread or
    non-finite entries (left to the rule's own checks).
    """
    if sp.issparse(X):
        data = np.asarray(X.data)
        peak = 2.0 * float(np.max(np.abs(data))) if data.size else 0.0
    else:
        Xd = np.asarray(X)
        if Xd.size == 0:
            return 0
        hi = Xd.max(axis=None if flat else 0).astype(np.float64)
        lo = Xd.min(axis=None if flat else 0).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            peak = float(np.max(hi - lo))
            if peak == np.inf:  # the range overflowed: bound it by the extremes
                peak = 2.0 * float(max(np.max(np.abs(hi)), np.max(np.abs(lo))))
    if not (0.0 < peak < np.inf):
        return 0
    return int(np.frexp(peak)[1])


def _ldexp_data(X: Any, e: int) -> Any:
    """``X * 2**e`` (a float64 copy; sparse: its stored values)."""
    if sp.issparse(X):
        Xs = sp.csr_matrix(X, dtype=np.float64, copy=True)
        Xs.data = np.ldexp(Xs.data, e)
        return Xs
    return np.ldexp(np.asarray(X, dtype=np.float64), e)


def _resolve_rule(gamma: str, X: Any, random_state: Any, sample_weight: Any = None) -> float:
    """A data-relative rule (see :func:`resolve_gamma`) on in-memory ``X``."""
    if gamma == "scale":
        if sp.issparse(X):
            Xs = sp.csr_matrix(X, dtype=np.float64)
            mean = Xs.mean()
            var = float(Xs.multiply(Xs).mean() - mean * mean)
        else:
            var = float(np.asarray(X, dtype=np.float64).var())
        n_features = np.shape(X)[1]
        if not np.isfinite(var) or var <= 0:
            raise ValueError(
                'gamma="scale" is undefined for data with zero variance; pass a float.'
            )
        return 1.0 / (n_features * var)
    if gamma == "sigma0":
        Xd = X.toarray() if sp.issparse(X) else X
        sigma0 = mean_pairwise_distance(Xd, random_state=random_state,
                                        sample_weight=sample_weight)
        if sigma0 <= 0:
            raise ValueError(
                'gamma="sigma0" is undefined when all samples coincide; pass a float.'
            )
        return 1.0 / (2.0 * sigma0 * sigma0)
    if gamma == "local":
        from ._graph import MAX_SAMPLES, neighbor_scale

        Xl: Any = X
        if sp.issparse(Xl):  # the sampled rows, dense
            n = Xl.shape[0]
            rows = np.arange(n)
            if n > MAX_SAMPLES:
                rows = np.sort(check_random_state(random_state).choice(
                    n, MAX_SAMPLES, replace=False))
            Xl = Xl[rows].toarray()
        try:
            scale = neighbor_scale(Xl, random_state=random_state)
        except ValueError:
            raise ValueError(
                'gamma="local" is undefined when all samples coincide; pass a float.'
            ) from None
        return 1.0 / (scale * scale)
    raise ValueError(f"gamma must be a positive float or one of {GAMMA_RULES}; got {gamma!r}.")


def _sum_and_squares(Xb: Any) -> tuple[float, float]:
    Xd = np.asarray(Xb, dtype=np.float64)
    return float(Xd.sum()), float(np.einsum("ij,ij->", Xd, Xd))


def _row_backend_gamma(gamma: str, rows: Any, random_state: Any) -> float:
    """A width rule on an out-of-core row-block backend (one pass, or one gather).

    ``"scale"``: the variance from in-order block sums of ``x`` and ``x^2``;
    ``"sigma0"``: the mean pairwise distance of at most 2,000 rows drawn by
    :func:`~marginclust.utils._blocks.sample_row_indices` (all rows, as in
    memory, when there are no more); ``"local"``: the neighbour scale of the
    2,000 rows the in-memory rule draws (one gather).
    """
    n, d = rows.shape
    if gamma == "scale":
        tot = sq = 0.0
        for s, q in rows.partials(_sum_and_squares):
            tot += s
            sq += q
        size = n * d
        var = sq / size - (tot / size) ** 2
        if not np.isfinite(var) or var <= 0:
            raise ValueError(
                'gamma="scale" is undefined for data with zero variance; pass a float.'
            )
        return 1.0 / (d * var)
    if gamma == "sigma0":
        seed = random_state if isinstance(random_state, numbers.Integral) else 0
        idx = sample_row_indices(n, 2000, np.random.RandomState(int(seed)))
        return resolve_gamma("sigma0", np.asarray(rows.take(idx), dtype=np.float64),
                             random_state=random_state)
    if gamma == "local":  # the 2,000 rows neighbor_scale draws in memory, gathered
        rs = check_random_state(random_state)
        idx = sample_row_indices(n, 2000, rs)
        sample = rows.take(idx)
        sample = sample.toarray() if hasattr(sample, "toarray") else sample
        return resolve_gamma("local", np.asarray(sample, dtype=np.float64), random_state=rs)
    raise ValueError(f"gamma must be a positive float or one of {GAMMA_RULES}; got {gamma!r}.")


def mean_pairwise_distance(
    X: npt.ArrayLike,
    *,
    max_samples: int = 2000,
    random_state: int | np.random.RandomState | None = None,
    sample_weight: npt.ArrayLike | None = None,
) -> float:
    """Mean Euclidean distance over all pairs of distinct samples (the sigma0 heuristic).

    With ``sample_weight`` the mean is that of the data with each row repeated
    ``w_i`` times: ``sum_{i<j} w_i w_j d_ij / (W (W - 1) / 2)``, ``W = sum w``
    (the copies of a row are pairs at distance 0), so an integer weight acts as
    repeating the row; it needs ``W > 1``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (dense).
    max_samples : int, default=2000
        With more samples than this, the mean is estimated on ``max_samples`` rows
        drawn without replacement (``max_samples (max_samples - 1) / 2`` pairs, never
        an n x n matrix). At or below it the mean is exact.
    random_state : int, RandomState instance or None, default=None
        Seed for the subsample (used only when ``n_samples > max_samples``).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights (None: every row once). On a subsample the
        formula is applied to the sampled rows and their weights.

    Returns
    -------
    sigma0 : float
        Mean pairwise distance; 0 when all (sampled) rows coincide.

    Raises
    ------
    ValueError
        With fewer than 2 samples, non-finite values, a bad ``max_samples``, or
        weights whose (sampled) total is at most 1.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if X.shape[0] < 2:
        raise ValueError(
            f"The mean pairwise distance needs at least 2 samples; got {X.shape[0]}."
        )
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf.")
    if (
        isinstance(max_samples, bool)
        or not isinstance(max_samples, numbers.Integral)
        or max_samples < 2
    ):
        raise ValueError(f"max_samples must be an integer >= 2; got {max_samples!r}.")
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if X.shape[0] > max_samples:
        rng = check_random_state(random_state)
        rows = rng.choice(X.shape[0], size=int(max_samples), replace=False)
        X = X[rows]
        w = None if w is None else w[rows]
    e = _spread_exponent(X)
    if abs(e) > _EXPONENT_MARGIN:
        # squared differences of data near 1e-154 or 1e154 and beyond leave float64:
        # measure in units of 2**e (exact both ways)
        with np.errstate(over="ignore"):
            return float(np.ldexp(_weighted_mean_distance(np.ldexp(X, -e), w), e))
    return _weighted_mean_distance(X, w)


def _weighted_mean_distance(X: Any, w: Any) -> float:
    """Mean pairwise distance, a row of weight ``r`` counted as ``r`` rows."""
    if w is None or bool(np.all(w == 1.0)):
        return float(np.mean(pdist(X)))
    top = float(w.max())
    scaled = w / top if top > 0 else w
    # the total weight as top * sum(w / top): it may exceed float64 (inf), its shares not
    total = top * float(scaled.sum())
    if not total > 1.0:
        raise ValueError(
            "The weighted mean pairwise distance counts a weight as repeated rows and needs "
            f"a total weight above 1; got {total:.6g}. Pass weights that count rows (e.g. "
            "multiplied by n_samples) or a float gamma."
        )
    i, j = np.triu_indices(X.shape[0], 1)  # pdist's order of the pairs
    # sum_{i<j} w_i w_j d_ij / (T (T - 1) / 2) with the weights as shares of T: the
    # products of weights near 1e154 and beyond would overflow
    share = scaled / float(scaled.sum())
    return float(np.dot(share[i] * share[j], pdist(X)) / ((1.0 - 1.0 / total) / 2.0))


def kernel_gamma_grid(X: Any, random_state: Any = None) -> list[float]:
    """``gamma`` at the default ``"sigma0"`` times 1/4 .. 4 (widths sigma0 * 2 .. sigma0 / 2).

    The label-free search grid of the RBF centroid methods (kernel FCM, kernel K-means).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense data (centred before sigma0 is measured).
    random_state : int, RandomState instance or None, default=None
        An integer seeds the sigma0 subsample; anything else uses seed 0.

    Returns
    -------
    grid : list of float
        Five ``gamma`` values, increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps import kernel_gamma_grid
    >>> len(kernel_gamma_grid(np.random.RandomState(0).rand(20, 2)))
    5
    """
    Xv = np.asarray(X, dtype=np.float64)
    rs = int(random_state) if isinstance(random_state, numbers.Integral) else 0
    g = resolve_gamma("sigma0", Xv - Xv.mean(axis=0), random_state=rs)
    return [g * f for f in (0.25, 0.5, 1.0, 2.0, 4.0)]


def resolve_frame_gamma(
    est: Any, frame: Frame, sample_weight: npt.ArrayLike | None = None
) -> tuple[float, float]:
    """``(gamma in data units, gamma in the working frame)`` of a kernel estimator.

    A float ``gamma`` is in the units of X; the rules ``"sigma0"`` and ``"scale"``
    are computed on the centred working frame (exact for data with a large offset)
    and converted back.

    Parameters
    ----------
    est : estimator
        An estimator with the parameters ``gamma`` and ``random_state``.
    frame : Frame
        The estimator's working frame of the data (:func:`marginclust.utils.centred_frame`).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights of the ``"sigma0"`` rule (an integer weight counts as repeated rows).

    Returns
    -------
    gamma : float
        The width in the units of X.
    gamma_frame : float
        The same width in the working frame (``gamma / frame.scale**2``).

    Raises
    ------
    ValueError
        If ``gamma`` is not a positive float, ``"sigma0"`` or ``"scale"``, or the
        rule is undefined on the data.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from marginclust.feature_maps import resolve_frame_gamma
    >>> from marginclust.utils import centred_frame
    >>> est = SimpleNamespace(gamma=0.5, random_state=0)
    >>> resolve_frame_gamma(est, centred_frame(np.eye(3)))
    (0.5, 0.5)
    """
    gamma = est.gamma
    rs = int(est.random_state) if isinstance(est.random_state, numbers.Integral) else 0
    s = frame.scale
    if isinstance(gamma, str):
        if gamma not in GAMMA_RULES:
            raise ValueError(
                f"gamma must be a positive float or one of {GAMMA_RULES}; got {gamma!r}."
            )
        try:
            g_frame = resolve_gamma(gamma, frame.Z, random_state=rs, sample_weight=sample_weight)
        except ValueError as exc:
            raise ValueError(
                f"{type(est).__name__}: {exc} (gamma={gamma!r} is computed from the data "
                "at every fit, also after set_params.)"
            ) from None
        with np.errstate(over="ignore", under="ignore"):
            return float(g_frame * s * s), float(g_frame)
    g = float(check_positive(gamma, "gamma"))
    with np.errstate(over="ignore", under="ignore"):
        return g, float(g / s / s)

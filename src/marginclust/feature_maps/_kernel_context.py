"""Once-per-fit kernel state of the kernel estimators (SLMC, IterativeLSSVM).

:func:`build_kernel_context` centres the data, builds the exact kernel matrix or
a fitted low-rank feature map and its training features, and returns a
read-only :class:`KernelContext` that every restart shares;
:func:`kernel_decision_values` evaluates a fitted linear model in that kernel on
new data; :func:`kernel_matrix` is the kernel itself.

- **Centring.** ``kernel="rbf"`` and ``kernel="linear"`` work on ``X - mean``
  (the training mean, also subtracted for new data). The RBF kernel is
  translation invariant, so nothing changes except that squared distances of
  data with a large common offset (timestamps near 1.7e9) no longer cancel
  catastrophically; the linear kernel becomes ``(x - mu)^T (y - mu) + 1``, so
  the implicit threshold is regularised around the data's centre, not the
  origin.
- **dtype.** Low-rank features are float32 when ``X`` is float32 or
  ``dtype="float32"``; the exact kernel matrix is always float64 (its Cholesky
  factorisation needs the precision).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..utils._blocks import backend_for, column_mean, out_of_core
from ._low_rank import LowRankKernelMap, linear_kernel_with_bias, rbf_kernel_gamma

__all__ = ["KernelContext", "build_kernel_context", "kernel_decision_values", "kernel_matrix"]

# Linear kernel values are squared norms; the solves square them again, so keep them
# far below the float64 overflow threshold (1.8e308).
_LINEAR_MAX_SQNORM = 1e100
# ... and far enough above float64's rounding of the constant 1 in x^T y + 1 (1.1e-16)
# for the kernel to keep at least 4 digits of the data: below, the constant hides them
# (at X * 1e-100 the kernel matrix is exactly all ones) and any partition would be noise.
_LINEAR_MIN_SQNORM = 1e-12


@dataclass
class KernelContext:
    """Once-per-fit kernel state (see the module docstring).

    Attributes
    ----------
    X : ndarray
        The data the inits run on: centred ``X`` (rbf / linear), ``X`` as given
        (callable kernel) or the kernel matrix (precomputed).
    mean : ndarray or None
        Training mean subtracted before the kernel (rbf / linear).
    gamma : float or None
        Resolved RBF ``gamma``.
    Kmat : ndarray of shape (n, n) or None
        Exact kernel matrix (exact mode).
    Phi : ndarray of shape (n, L) or None
        Features of the training data (low-rank mode).
    fmap : LowRankKernelMap or None
        The fitted feature map (low-rank mode).
    n_components : int or None
        Rank actually used (None: exact).
    """

    X: Any
    mean: Any
    gamma: float | None
    Kmat: Any = None
    Phi: Any = None
    fmap: Any = None
    n_components: int | None = None


def kernel_matrix(kernel: Any, X: Any, Y: Any, gamma: float | None) -> npt.NDArray[np.float64]:
    """Kernel between (centred) ``X`` and the (centred) training data ``Y`` (float64).

    ``kernel``: ``"precomputed"`` (``X`` is the kernel), ``"linear"`` (with a bias
    feature), ``"rbf"`` (``exp(-gamma ||x - y||^2)``) or a callable ``kernel(X, Y)``.
    """
    if kernel == "precomputed":
        return np.asarray(X, dtype=np.float64)
    if kernel == "linear":
        return linear_kernel_with_bias(X, Y)
    if callable(kernel):
        fn: Callable[..., Any] = kernel
        K = np.asarray(fn(X, Y), dtype=np.float64)
        if K.shape != (X.shape[0], Y.shape[0]):
            raise ValueError(
                f"The kernel callable returned shape {K.shape}; expected "
                f"{(X.shape[0], Y.shape[0])}."
            )
        return K
    return np.asarray(rbf_kernel_gamma(X, Y, float(gamma), dtype=np.float64))  # type: ignore[arg-type]


def build_kernel_context(
    X: Any,
    kernel: Any,
    resolve_width: Callable[[Any], float | None],
    n_components: int | None,
    *,
    low_rank: str = "nystroem",
    dtype: Any = None,
    seed: int = 0,
    stream: bool = False,
) -> KernelContext:
    """Centre, resolve the width, build the kernel matrix or the features, once per fit.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data (the kernel matrix for ``kernel="precomputed"``).
    kernel : str or callable
        See :func:`kernel_matrix`.
    resolve_width : callable
        ``resolve_width(X_centred)`` returns the RBF ``gamma`` (None for other kernels).
    n_components : int or None
        Rank of the low-rank map; None builds the exact n x n kernel matrix.
    low_rank : {"nystroem", "rff"}, default="nystroem"
        Low-rank map.
    dtype : str, dtype or None, default=None
        dtype of the low-rank features.
    seed : int, default=0
        Seed of the low-rank map.
    stream : bool, default=False
        Low-rank mode: no ``Phi`` (the caller computes the features block by
        block from ``X``, e.g. :class:`~marginclust.objectives._slmc.SLMCRowProblem`).
        An out-of-core ``X`` (a row-block backend) is always streamed: the mean,
        the width and the landmarks come from its passes, ``X`` of the context
        is the backend of the centred rows.

    Returns
    -------
    context : KernelContext
        Read-only state for every restart.
    """
    if kernel == "precomputed":
        K = np.asarray(X, dtype=np.float64)
        return KernelContext(X=K, mean=None, gamma=None, Kmat=K)
    if out_of_core(X):  # mean, width and landmarks by passes; never a matrix of X
        return _row_backend_context(backend_for(X), kernel, resolve_width, int(n_components or 0),
                                    low_rank, dtype, seed)
    mean = None
    Xw = X
    if kernel in ("rbf", "linear"):
        mean = column_mean(X)  # block sums in block order (as a Dask pass)
        Xw = X - mean.astype(X.dtype)
    gamma = resolve_width(Xw)
    if kernel == "linear":
        sq = float(np.max(np.einsum("ij,ij->i", Xw, Xw, dtype=np.float64)))
        _check_linear_norms(sq)
        dtype = _linear_dtype(dtype, Xw.dtype, sq)
    if n_components is None:
        Xf = np.asarray(Xw, dtype=np.float64)
        K = kernel_matrix(kernel, Xf, Xf, gamma)
        return KernelContext(X=Xw, mean=mean, gamma=gamma, Kmat=K)
    fmap = LowRankKernelMap(
        kernel=kernel,
        gamma=gamma if gamma is not None else 1.0,
        n_components=int(n_components),
        method=low_rank,
        dtype=dtype,
        random_state=seed,
    ).fit(Xw)
    L = int(n_components)
    if stream:
        return KernelContext(X=Xw, mean=mean, gamma=gamma, fmap=fmap, n_components=L)
    return KernelContext(
        X=Xw, mean=mean, gamma=gamma, Phi=fmap.transform(Xw), fmap=fmap, n_components=L
    )


def _check_linear_norms(sq: float) -> None:
    """Refuse centred rows whose largest squared norm ``sq`` would overflow the linear
    kernel's products, or vanish beside its constant 1 (the kernel ``x^T y + 1`` is in
    the data's own units: it is not scale-free, and at these extremes it has no answer)."""
    if not sq < _LINEAR_MAX_SQNORM:
        raise ValueError(
            f"With kernel='linear', squared norms of the centred rows reach {sq:.3g}: the "
            "kernel's products would overflow. Rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    if sq < _LINEAR_MIN_SQNORM:
        raise ValueError(
            f"With kernel='linear', squared norms of the centred rows are at most {sq:.3g}: "
            "beside the kernel's constant 1 (x^T y + 1) they keep fewer than 4 digits, so "
            "the fit cannot see the data. Rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )


def _linear_dtype(dtype: Any, x_dtype: Any, sq: float) -> Any:
    """The linear features' dtype: float64 when float32 products of these norms (``sq``,
    the largest squared norm) would leave float32's range (the model's own numbers)."""
    if dtype is None and np.dtype(x_dtype) == np.float32 and not sq < 1e25:
        return "float64"
    return dtype


def _centred_rows(Xb: Any, mean: Any) -> Any:
    Xb = np.asarray(Xb)
    return Xb - mean.astype(Xb.dtype)


def _max_sq_norm(Xb: Any) -> float:
    Xb = np.asarray(Xb)
    return float(np.max(np.einsum("ij,ij->i", Xb, Xb, dtype=np.float64), initial=0.0))


def _row_backend_context(
    rows: Any, kernel: Any, resolve_width: Callable[[Any], float | None], n_components: int,
    low_rank: str, dtype: Any, seed: int,
) -> KernelContext:
    """The low-rank kernel context of an out-of-core X: the same mean, width and landmarks.

    The mean is the backend's in-order block sums; the width rule runs on the
    centred rows' passes; the Nystroem landmarks are the rows the in-memory map
    draws (:meth:`LowRankKernelMap._fit_rows`), gathered in one pass.
    """
    n, d = rows.shape
    mean = None
    Xw = rows
    if kernel in ("rbf", "linear"):
        mean = rows.column_sums() / n
        Xw = rows.derive(_centred_rows, mean, dtype=rows.dtype)
    gamma = resolve_width(Xw)
    if kernel == "linear":
        sq = max(Xw.partials(_max_sq_norm), default=0.0)
        _check_linear_norms(sq)
        dtype = _linear_dtype(dtype, Xw.dtype, sq)
    fmap = LowRankKernelMap(
        kernel=kernel,
        gamma=gamma if gamma is not None else 1.0,
        n_components=n_components,
        method=low_rank,
        dtype=dtype,
        random_state=seed,
    )
    fmap._fit_rows((n, d), lambda idx: np.asarray(Xw.take(idx), dtype=np.float64))
    return KernelContext(X=Xw, mean=mean, gamma=gamma, fmap=fmap, n_components=n_components)


def kernel_decision_values(
    X: Any,
    kernel: Any,
    *,
    mean: Any,
    gamma: float | None,
    feature_map: Any = None,
    coef: Any = None,
    X_fit: Any = None,
    dual_coef: Any = None,
) -> npt.NDArray[np.float64]:
    """Outputs of a fitted kernel model on validated ``X``.

    Low-rank mode (``feature_map`` given): ``phi(x - mean) coef`` block by block;
    exact mode: ``k(x - mean, X_fit) dual_coef``.
    """
    if mean is not None:
        X = X - mean.astype(X.dtype)
    if feature_map is not None:
        out = np.empty((X.shape[0],) + np.shape(coef)[1:], dtype=np.float64)
        W = np.asarray(coef)
        for start, block in feature_map.transform_blocks(X):
            out[start : start + block.shape[0]] = block @ W.astype(block.dtype, copy=False)
        return out
    Y = None if X_fit is None else np.asarray(X_fit, dtype=np.float64)
    return kernel_matrix(kernel, np.asarray(X, dtype=np.float64), Y, gamma) @ dual_coef

"""Low-rank explicit feature maps of a kernel, in marginclust's ``gamma`` convention.

``k(x, y) = exp(-gamma ||x - y||^2)`` is approximated by ``phi(x)^T phi(y)``
with ``phi`` of dimension at most ``n_components``:

- Nystroem (Williams & Seeger 2001): ``phi(x) = k(x, Z) V S^{-1/2}`` for ``L``
  landmarks ``Z`` drawn from the data and ``K_ZZ = V S V^T`` (eigenvalues below a
  relative cut-off dropped). With every sample a landmark the map is exact on the
  training set. Works for any kernel function, including a user callable.
- Random Fourier features (Rahimi & Recht 2007): ``phi(x) = sqrt(2/L) cos(x W + b)``
  with ``W ~ N(0, 2 gamma)``, ``b ~ U[0, 2 pi)``; RBF kernel only.
- ``kernel="linear"``: the exact map ``phi(x) = [x, 1]`` (the linear kernel with
  the paper's implicit threshold, ``k(x, y) = x^T y + 1``).

Features are computed in row blocks so no n x L temporary beyond the output is
formed, in the dtype of the map (``dtype=None`` follows the input: float32 data
give float32 features, half the memory and about twice the speed of float64).
Squared distances are expanded as ``||x||^2 - 2 x.z + ||z||^2``; callers centre
the data first (translation-invariant kernels), so a large common offset cannot
cancel catastrophically.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import eigh
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._blocks import BLOCK_ROWS, sample_row_indices

__all__ = ["FEATURE_CACHE_BYTES", "LowRankKernelMap", "linear_kernel_with_bias",
           "rbf_kernel_gamma"]

_EIG_CUTOFF = 1e-12
_DTYPES = {None: None, "float32": np.float32, "float64": np.float64,
           np.float32: np.float32, np.float64: np.float64}


def check_dtype(dtype: Any) -> Any:
    """``None``, ``np.float32`` or ``np.float64`` from a user's ``dtype`` value."""
    try:
        return _DTYPES[dtype]
    except (KeyError, TypeError):
        pass
    try:
        dt = np.dtype(dtype).type
    except TypeError:
        dt = None
    if dt in (np.float32, np.float64):
        return dt
    raise ValueError(f"dtype must be None, 'float32' or 'float64'; got {dtype!r}.")


def linear_kernel_with_bias(X: npt.ArrayLike, Y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``k(x, y) = x^T y + 1``: the linear kernel on inputs augmented with a constant 1.

    Parameters
    ----------
    X : ndarray of shape (n_x, d)
    Y : ndarray of shape (n_y, d)

    Returns
    -------
    K : ndarray of shape (n_x, n_y)
    """
    K = np.asarray(X, dtype=np.float64) @ np.asarray(Y, dtype=np.float64).T
    K += 1.0
    return K


def rbf_kernel_gamma(
    X: npt.ArrayLike, Y: npt.ArrayLike, gamma: float, dtype: Any = None
) -> npt.NDArray[np.floating]:
    """``exp(-gamma ||x - y||^2)`` between the rows of ``X`` and ``Y``.

    Parameters
    ----------
    X : ndarray of shape (n_x, d)
    Y : ndarray of shape (n_y, d)
    gamma : float
        Positive width parameter.
    dtype : {None, np.float32, np.float64}, default=None
        Computation and output dtype; None is float32 when both inputs are
        float32, else float64.

    Returns
    -------
    K : ndarray of shape (n_x, n_y)
    """
    X = np.asarray(X)
    Y = np.asarray(Y)
    if dtype is None:
        dtype = np.float32 if (X.dtype == np.float32 and Y.dtype == np.float32) else np.float64
    if np.dtype(dtype).itemsize <= 4 and not 1e-25 < float(gamma) < 1e25:
        # float32 distances of data at an extreme scale leave the range (a gamma of 1e60
        # does not even fit): take them in the units of the kernel, x sqrt(gamma)
        root = np.sqrt(float(gamma))
        X = np.asarray(X, dtype=np.float64) * root
        Y = np.asarray(Y, dtype=np.float64) * root
        gamma = 1.0
    X = np.asarray(X).astype(dtype, copy=False)
    Y = np.asarray(Y).astype(dtype, copy=False)
    D2 = X @ Y.T
    D2 *= -2.0
    D2 += np.einsum("ij,ij->i", X, X)[:, None]
    D2 += np.einsum("ij,ij->i", Y, Y)[None, :]
    np.maximum(D2, 0.0, out=D2)
    D2 *= -float(gamma)
    return np.exp(D2, out=D2)


class LowRankKernelMap(TransformerMixin, BaseEstimator):
    """Explicit low-rank features whose inner products approximate a kernel.

    Parameters
    ----------
    kernel : {"rbf", "linear"} or callable, default="rbf"
        ``"rbf"``: ``exp(-gamma ||x - y||^2)``; ``"linear"``: exact
        features ``[x, 1]`` (``n_components`` and ``method`` are ignored); a
        callable ``kernel(X, Y) -> (n_x, n_y)`` array (Nystroem only).
    gamma : float, default=1.0
        RBF width parameter.
    n_components : int, default=100
        Rank ``L`` (number of landmarks or random features). Nystroem uses
        ``min(L, n_samples)`` landmarks.
    method : {"nystroem", "rff"}, default="nystroem"
        Nystroem landmarks or random Fourier features.
    dtype : {None, "float32", "float64"}, default=None
        dtype of the features; None follows the input of ``transform``.
    random_state : int, RandomState instance or None, default=None
        Draws the landmarks or the random frequencies.

    Attributes
    ----------
    components_ : ndarray of shape (n_landmarks, n_features)
        Nystroem landmarks.
    normalization_ : ndarray of shape (n_landmarks, n_output)
        Nystroem map ``V S^{-1/2}``.
    random_weights_ : ndarray of shape (n_features, n_components)
        RFF frequencies.
    random_offset_ : ndarray of shape (n_components,)
        RFF phases.
    n_output_features_ : int
        Dimension of the output.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps._low_rank import LowRankKernelMap
    >>> X = np.random.RandomState(0).randn(50, 3)
    >>> LowRankKernelMap(gamma=0.5, n_components=10, random_state=0).fit_transform(X).shape
    (50, 10)
    """

    def __init__(
        self,
        kernel: str | Callable[..., Any] = "rbf",
        *,
        gamma: float = 1.0,
        n_components: int = 100,
        method: str = "nystroem",
        dtype: Any = None,
        random_state: Any = None,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.method = method
        self.dtype = dtype
        self.random_state = random_state

    def _kernel_func(self, dtype: Any) -> Callable[[Any, Any], npt.NDArray[np.floating]]:
        if callable(self.kernel):
            kernel = self.kernel
            return lambda A, B: np.asarray(kernel(A, B), dtype=dtype)
        gamma = float(self.gamma)
        return lambda A, B: rbf_kernel_gamma(A, B, gamma, dtype=dtype)

    def fit(self, X: Any, y: Any = None) -> LowRankKernelMap:
        """Draw the landmarks or random features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, dtype=[np.float64, np.float32])
        return self._fit_rows(X.shape, lambda idx: np.asarray(X[idx], dtype=np.float64))

    def _fit_rows(self, shape: tuple[int, int], gather: Callable[[Any], Any]) -> LowRankKernelMap:
        """Fit from the data's shape and a row gatherer ``gather(sorted_idx) -> float64 rows``.

        The data are touched only through ``gather`` (the Nystroem landmarks), so
        an out-of-core caller (:mod:`marginclust.dask`) fits the same map from
        the same rows.
        """
        self.n_features_in_ = int(shape[1])
        if not (callable(self.kernel) or self.kernel in ("rbf", "linear")):
            raise ValueError(
                f"kernel must be 'rbf', 'linear' or a callable; got {self.kernel!r}."
            )
        if self.method not in ("nystroem", "rff"):
            raise ValueError(f"method must be 'nystroem' or 'rff'; got {self.method!r}.")
        if (
            isinstance(self.n_components, bool)
            or not isinstance(self.n_components, int | np.integer)
            or self.n_components < 1
        ):
            raise ValueError(f"n_components must be a positive integer; got {self.n_components!r}.")
        if self.kernel == "rbf" and not (np.isfinite(self.gamma) and self.gamma > 0):
            raise ValueError(f"gamma must be a positive finite number; got {self.gamma!r}.")
        check_dtype(self.dtype)
        rng = check_random_state(self.random_state)
        n, d = int(shape[0]), int(shape[1])
        if self.kernel == "linear":
            self.n_output_features_ = d + 1
            return self
        if self.method == "rff":
            if callable(self.kernel):
                raise ValueError(
                    "Random Fourier features exist for the RBF kernel only; use "
                    "method='nystroem' with a callable kernel."
                )
            L = int(self.n_components)
            self.random_weights_ = rng.normal(scale=np.sqrt(2.0 * float(self.gamma)), size=(d, L))
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, size=L)
            self.n_output_features_ = L
            return self
        idx = self._landmark_indices(n, rng)
        return self._fit_landmarks(np.asarray(gather(idx), dtype=np.float64), idx)

    def _landmark_indices(self, n: int, rng: np.random.RandomState) -> npt.NDArray[np.intp]:
        """Sorted row numbers of the Nystroem landmarks: ``min(n_components, n)`` rows.

        Drawn by :func:`marginclust.utils._blocks.sample_row_indices` (O(L)
        memory; the draw of the Dask path's blockwise sampler, so both use the
        same landmarks).
        """
        return sample_row_indices(n, min(int(self.n_components), n), rng)

    def _fit_landmarks(self, Z: npt.NDArray[np.float64], idx: Any) -> LowRankKernelMap:
        """Finish a Nystroem fit from the landmark rows ``Z`` (float64)."""
        Kzz = self._kernel_func(np.float64)(Z, Z)
        Kzz = 0.5 * (Kzz + Kzz.T)
        s, V = eigh(Kzz)
        keep = s > _EIG_CUTOFF * max(float(s[-1]), 0.0)
        if not np.any(keep):
            raise ValueError("The kernel matrix of the landmarks is zero; check kernel and gamma.")
        self.components_ = Z
        self.component_indices_ = idx
        self.normalization_ = V[:, keep] / np.sqrt(s[keep])[None, :]
        self.n_output_features_ = int(keep.sum())
        return self

    def _out_dtype(self, X: Any) -> Any:
        dt = check_dtype(self.dtype)
        if dt is None:
            dt = np.float32 if X.dtype == np.float32 else np.float64
        return dt

    def transform_blocks(
        self, X: Any, block_rows: int | None = None
    ) -> Iterator[tuple[int, npt.NDArray[np.floating]]]:
        """Yield ``(start, Phi[start:start + b])`` over row blocks of validated ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Data already validated (float32 or float64).
        block_rows : int, optional
            Rows per block (default 8,192).

        Yields
        ------
        start : int
        Phi_block : ndarray of shape (b, n_output_features_)
        """
        check_is_fitted(self, "n_output_features_")
        dt = self._out_dtype(X)
        n = X.shape[0]
        b = int(block_rows or BLOCK_ROWS)
        if self.kernel == "linear":
            for start in range(0, n, b):
                block = np.asarray(X[start : start + b], dtype=dt)
                yield start, np.hstack([block, np.ones((block.shape[0], 1), dtype=dt)])
            return
        if self.method == "rff":
            Wr = self.random_weights_.astype(dt, copy=False)
            off = self.random_offset_.astype(dt, copy=False)
            c = dt(np.sqrt(2.0 / self.n_output_features_))
            for start in range(0, n, b):
                proj = np.asarray(X[start : start + b], dtype=dt) @ Wr
                proj += off
                np.cos(proj, out=proj)
                proj *= c
                yield start, proj
            return
        kfun = self._kernel_func(dt)
        Z = self.components_.astype(dt, copy=False)
        N = self.normalization_.astype(dt, copy=False)
        for start in range(0, n, b):
            yield start, kfun(np.asarray(X[start : start + b], dtype=dt), Z) @ N

    def transform(self, X: Any) -> npt.NDArray[np.floating]:
        """Map ``X`` to the low-rank feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        Phi : ndarray of shape (n_samples, n_output_features_)
            float32 when ``dtype="float32"`` or (``dtype=None``) ``X`` is float32.
        """
        check_is_fitted(self, "n_output_features_")
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        out = np.empty((X.shape[0], self.n_output_features_), dtype=self._out_dtype(X))
        for start, block in self.transform_blocks(X):
            out[start : start + block.shape[0]] = block
        return out


#: Largest size (bytes) of the training features ``Phi`` that a low-rank fit keeps in
#: memory (in its row blocks' states); above it every pass recomputes them block by
#: block (one kernel
#: evaluation and one ``b x L x L`` product per block and pass, but O(block_rows * L)
#: memory instead of O(n L)).
FEATURE_CACHE_BYTES = 2**30



"""Low-rank explicit feature maps of a kernel, in marginclust's ``sigma`` convention.

``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))`` is approximated by ``phi(x)^T phi(y)``
with ``phi`` of dimension at most ``n_components``:

- Nystroem (Williams & Seeger 2001): ``phi(x) = k(x, Z) V S^{-1/2}`` for ``L``
  landmarks ``Z`` drawn from the data and ``K_ZZ = V S V^T`` (eigenvalues below a
  relative cut-off dropped). With every sample a landmark the map is exact on the
  training set. Works for any kernel function, including a user callable.
- Random Fourier features (Rahimi & Recht 2007): ``phi(x) = sqrt(2/L) cos(x W + b)``
  with ``W ~ N(0, sigma^-2)``, ``b ~ U[0, 2 pi)``; RBF kernel only.
- ``kernel="linear"``: the exact map ``phi(x) = [x, 1]`` (the linear kernel with
  the paper's implicit threshold, ``k(x, y) = x^T y + 1``).

Features are computed in row blocks so no n x L temporary beyond the output is formed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.linalg import eigh
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._kernel import rbf_kernel_sigma

__all__ = ["LowRankKernelMap", "linear_kernel_with_bias"]

_BLOCK_ROWS = 8192
_EIG_CUTOFF = 1e-12


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


class LowRankKernelMap(TransformerMixin, BaseEstimator):
    """Explicit low-rank features whose inner products approximate a kernel.

    Parameters
    ----------
    kernel : {"rbf", "linear"} or callable, default="rbf"
        ``"rbf"``: Gaussian kernel of width ``sigma``; ``"linear"``: exact
        features ``[x, 1]`` (``n_components`` and ``method`` are ignored); a
        callable ``kernel(X, Y) -> (n_x, n_y)`` array (Nystroem only).
    sigma : float, default=1.0
        RBF width in ``exp(-||x - y||^2 / (2 sigma^2))``.
    n_components : int, default=100
        Rank ``L`` (number of landmarks or random features). Nystroem uses
        ``min(L, n_samples)`` landmarks.
    method : {"nystroem", "rff"}, default="nystroem"
        Nystroem landmarks or random Fourier features.
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
    """

    def __init__(
        self,
        kernel: str | Callable[..., Any] = "rbf",
        *,
        sigma: float = 1.0,
        n_components: int = 100,
        method: str = "nystroem",
        random_state: Any = None,
    ) -> None:
        self.kernel = kernel
        self.sigma = sigma
        self.n_components = n_components
        self.method = method
        self.random_state = random_state

    def _kernel_func(self) -> Callable[[Any, Any], npt.NDArray[np.float64]]:
        if callable(self.kernel):
            return lambda A, B: np.asarray(self.kernel(A, B), dtype=np.float64)
        sigma = float(self.sigma)
        return lambda A, B: rbf_kernel_sigma(A, B, sigma)

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
        if self.kernel == "rbf" and not (np.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be a positive finite number; got {self.sigma!r}.")
        rng = check_random_state(self.random_state)
        n, d = X.shape
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
            self.random_weights_ = rng.normal(scale=1.0 / float(self.sigma), size=(d, L))
            self.random_offset_ = rng.uniform(0.0, 2.0 * np.pi, size=L)
            self.n_output_features_ = L
            return self
        L = min(int(self.n_components), n)
        idx = np.sort(rng.choice(n, size=L, replace=False)) if L < n else np.arange(n)
        Z = np.asarray(X[idx], dtype=np.float64)
        Kzz = self._kernel_func()(Z, Z)
        Kzz = 0.5 * (Kzz + Kzz.T)
        s, V = eigh(Kzz)
        keep = s > _EIG_CUTOFF * max(float(s[-1]), 0.0)
        if not np.any(keep):
            raise ValueError("The kernel matrix of the landmarks is zero; check kernel and sigma.")
        self.components_ = Z
        self.component_indices_ = idx
        self.normalization_ = V[:, keep] / np.sqrt(s[keep])[None, :]
        self.n_output_features_ = int(keep.sum())
        return self

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Map ``X`` to the low-rank feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        Phi : ndarray of shape (n_samples, n_output_features_)
        """
        check_is_fitted(self, "n_output_features_")
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        if self.kernel == "linear":
            return np.hstack([X, np.ones((n, 1))])
        out = np.empty((n, self.n_output_features_), dtype=np.float64)
        kfun = self._kernel_func()
        for start in range(0, n, _BLOCK_ROWS):
            block = X[start : start + _BLOCK_ROWS]
            if self.method == "rff":
                proj = block @ self.random_weights_
                proj += self.random_offset_
                np.cos(proj, out=proj)
                proj *= np.sqrt(2.0 / self.n_output_features_)
                out[start : start + block.shape[0]] = proj
            else:
                out[start : start + block.shape[0]] = kfun(block, self.components_) @ (
                    self.normalization_
                )
        return out

"""Once-per-fit data of the one-class SVM clusterers (WOC-SVM, OC-SVM hard clustering).

The data are centred and scaled once per fit, the kernel width is resolved in
those units, and the machines are given either the kernel matrix (exact fits on
few samples) or explicit features on which they are linear (a Nystroem map, or
the scaled data for the linear kernel); :class:`OneClassData` maps new samples
the same way.

The scale is a power of two, ``2**e`` with the largest centred entry in
``[2**(e-1), 2**e)`` (the working frame of :func:`marginclust.utils.centred_frame`,
kept as its exponent), applied with ``ldexp``: exact at any finite scale
(subnormal entries included), so ``X`` and ``2**k X`` give the same scaled data
bit for bit, and ``c X`` the same up to the rounding of the input. Everything the
machines compute (width rule, kernel, decision values) is in those units, whose
squares stay far inside the float range whatever the scale of ``X``; only the
width in the user's units, ``gamma * 2**(-2 e)``, leaves the float range for data
near 1e-154 or 1e154 and beyond (it is then ``inf`` or ``0``, what the exact value
rounds to; nothing computes with it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..objectives._weighted_ocsvm import kernel_matrix
from ..objectives._wocsvm import _CACHE_MAX_SAMPLES
from ..utils._memory import check_memory
from ._kernel import resolve_gamma

__all__ = ["AUTO_COMPONENTS", "EXACT_MAX_SAMPLES", "OneClassData", "prepare_one_class_data"]

# n_components="auto" switches to a Nystroem map above this many samples
EXACT_MAX_SAMPLES = _CACHE_MAX_SAMPLES
AUTO_COMPONENTS = 300


@dataclass
class OneClassData:
    """Training data in the units the machines see, and how to map new data there.

    ``X`` is ``(X_user - shift) * 2**-exponent`` (times ``sqrt(gamma)`` for the linear
    kernel, whose ``gamma`` is then already in the data), the power of two bringing
    the largest entry of ``X_user - shift`` into [1/2, 1): RBF and polynomial machines
    see centred data of peak near 1, so fits are the same for ``X``, ``c X`` and
    ``X + t`` (the RBF kernel is translation-invariant; the linear kernel is not,
    so it is only scaled). ``gamma`` is the kernel coefficient in those units;
    ``gamma_user = gamma * 2**(-2 exponent)`` is the same kernel in the user's units
    (``inf`` or ``0`` where that leaves the float range; only reported).
    ``features`` are explicit features (Nystroem map or the scaled data for the
    linear kernel) when the machines are linear in them, else None; ``K`` the
    kernel matrix of an exact fit on few samples.
    """

    X: npt.NDArray[np.float64]
    shift: npt.NDArray[np.float64]
    exponent: int
    kernel: str
    gamma: float
    gamma_user: float
    features: npt.NDArray[np.float64] | None = None
    feature_map: Any = None
    K: npt.NDArray[np.float64] | None = None

    def for_prediction(self) -> OneClassData:
        """A copy with only what :meth:`transform` needs (no training rows, kernel or
        features): what a fitted estimator keeps, so that it pickles small."""
        return OneClassData(np.empty((0, self.X.shape[1])), self.shift, self.exponent,
                            self.kernel, self.gamma, self.gamma_user,
                            feature_map=self.feature_map)

    def transform(self, X: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
        """Map new (validated) samples to what the machines score."""
        Z = np.ldexp(np.asarray(X, dtype=np.float64) - self.shift, -self.exponent)
        if self.feature_map is not None:
            return np.asarray(self.feature_map.transform(Z), dtype=np.float64)
        if self.kernel == "linear":
            return Z * np.sqrt(self.gamma)
        return Z


def _ldexp(x: float, e: int) -> float:
    """``x * 2**e``, exact, or ``inf`` / ``0`` where that leaves the float range (never
    through an intermediate power of the scale that does)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(x, e))


def prepare_one_class_data(
    X: npt.NDArray[np.floating],
    *,
    kernel: str,
    gamma: Any,
    n_components: Any,
    random_state: Any,
    cache_kernel: bool = True,
    name: str = "A one-class fit",
) -> OneClassData:
    """Centre and scale ``X`` once per fit, resolve ``gamma``, build features or the kernel.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated training data.
    kernel : {"rbf", "linear", "poly"}
        Kernel.
    gamma : float or {"scale", "sigma0"}
        Kernel coefficient in the user's units, or a data-relative rule
        (:func:`marginclust.feature_maps.resolve_gamma`).
    n_components : int, "auto" or None
        Nystroem components (low rank), "auto" (exact up to 5,000 samples, else
        300 components) or None (exact). Ignored by the linear kernel: on the
        scaled data it runs LIBSVM on the precomputed kernel up to 5,000
        samples and the primal solver (linear in n) above.
    random_state : RandomState
        Seeds the Nystroem landmarks and the ``sigma0`` row sample.
    cache_kernel : bool, default=True
        Build the n x n kernel matrix for exact fits on at most 5,000 samples (and
        check that the exact kernel fits in memory; False: only the width is wanted).
    name : str, default="A one-class fit"
        How a refusal for lack of memory names the fit.

    Returns
    -------
    data : OneClassData
    """
    from sklearn.kernel_approximation import Nystroem

    X = np.asarray(X, dtype=np.float64)
    shift, peak = _shift_and_peak(X, kernel)
    # the power of two 2**e with peak in [2**(e-1), 2**e) (the working frame's, by
    # exponent: 2**-e itself is not representable for peaks near the float maximum
    # or below the smallest normal); ldexp is exact where a division by peak rounds
    e = int(np.frexp(peak)[1])
    Z = np.ldexp(X - shift, -e)
    g, gamma_user = _scaled_gamma(gamma, X, Z, e, random_state)
    data = OneClassData(Z, shift, e, kernel, float(g), float(gamma_user))
    n = X.shape[0]
    if kernel == "linear":
        F = Z * np.sqrt(g)  # O(1) values: LIBSVM's absolute tolerances are meaningful
        if cache_kernel and n <= _CACHE_MAX_SAMPLES:
            data.X = F
            data.K = kernel_matrix(F, F, kernel="linear")
        else:  # linear in n: the machines are solved in the primal on these features
            data.features = F
        return data
    if isinstance(n_components, str):  # "auto" (the estimators check the value)
        n_components = None if n <= EXACT_MAX_SAMPLES else AUTO_COMPONENTS
    _check_fit_memory(n, X.size, n_components, cache_kernel, name)
    if n_components is not None:
        nys = Nystroem(
            kernel=kernel,
            gamma=g,
            degree=3,
            coef0=0.0,
            n_components=min(int(n_components), n),
            random_state=random_state,
        )
        data.features = np.asarray(nys.fit_transform(Z), dtype=np.float64)
        data.feature_map = nys
        return data
    if cache_kernel and n <= _CACHE_MAX_SAMPLES:
        data.K = kernel_matrix(Z, Z, kernel=kernel, gamma=g)
    return data


def _shift_and_peak(
    X: npt.NDArray[np.floating], kernel: str
) -> tuple[npt.NDArray[np.float64], float]:
    """``(shift, largest |X - shift|)``: the column means (zero for the linear kernel).

    Refuses data whose mean or range overflows, identical samples and, for the
    linear kernel, a common offset that dwarfs the spread.
    """
    with np.errstate(over="ignore"):
        finite_mean = bool(np.all(np.isfinite(X.mean(axis=0))))
    if not finite_mean:
        raise ValueError(
            "X has values so large that their mean overflows; rescale your features "
            "(e.g. sklearn.preprocessing.StandardScaler)."
        )
    if kernel == "linear":
        shift = np.zeros(X.shape[1])
        peak = float(np.max(np.abs(X)))
        spread = float(np.max(X.max(axis=0) - X.min(axis=0)))
        if spread <= 1e-9 * peak:
            raise ValueError(
                f"X has a common offset (values up to {peak:.3g}) that dwarfs its spread "
                f"({spread:.3g}); the linear one-class SVM separates the data from the origin, "
                "so it cannot see the clusters. Centre the features (e.g. StandardScaler) or "
                "use kernel='rbf', which is translation-invariant."
            )
    else:
        shift = X.mean(axis=0)
        with np.errstate(over="ignore"):  # an overflowing spread is refused below
            peak = float(np.max(np.abs(X - shift)))
    if peak <= 0:
        raise ValueError("X has no spread to scale by; its samples are all identical.")
    if not np.isfinite(peak):  # X - shift beyond the float range
        raise ValueError(
            "X has a feature range that overflows. Rescale your features "
            "(e.g. sklearn.preprocessing.StandardScaler)."
        )
    return shift, peak


def _scaled_gamma(gamma: Any, X: npt.NDArray[np.floating], Z: npt.NDArray[np.float64], e: int,
                  random_state: Any) -> tuple[float, float]:
    """``(gamma in the units of Z = (X - shift) * 2**-e, gamma in the user's units)``."""
    if isinstance(gamma, str) and gamma == "auto":
        warnings.warn(
            "gamma='auto' (1 / n_features) depends on the units of X and is deprecated; "
            "use gamma='scale' (the default) or a float.",
            FutureWarning,
            stacklevel=5,  # 4 from prepare_one_class_data, one call further down
        )
        gamma_user = 1.0 / X.shape[1]
        g = _ldexp(gamma_user, 2 * e)
    elif isinstance(gamma, str):
        # the rule on the scaled data: a width of order 1 in these units at any scale
        g = resolve_gamma(gamma, Z, random_state=random_state)
        gamma_user = _ldexp(g, -2 * e)
    else:
        gamma_user = resolve_gamma(gamma, Z)
        g = _ldexp(gamma_user, 2 * e)
    if not (np.isfinite(g) and g > 0):
        raise ValueError(
            f"gamma={gamma!r} is {g:.3g} in units of the data's spread: the kernel would "
            "overflow or be constant. Rescale your features or use gamma='scale'."
        )
    return g, gamma_user


def _check_fit_memory(n: int, size: int, n_components: int | None, cache_kernel: bool,
                      name: str) -> None:
    """Refuse a fit whose kernel or Nystroem features would not fit in memory."""
    if n_components is None and cache_kernel:  # (without: the caller wants the width only)
        # the kernel (cached, or of each cluster's members), LIBSVM's copy and the
        # decision values: measured 1.9 n^2 float64 at n = 3000
        check_memory(8.0 * (2.5 * n * n + 3 * size), f"{name} with the exact kernel on "
                     f"n_samples={n}", "use n_components=300 (a Nystroem map) or a subsample")
    elif n_components is not None:
        L = min(int(n_components), n)
        check_memory(8.0 * (3 * n * L + 3 * L * L + 3 * size),
                     f"{name} with n_components={L} on n_samples={n}",
                     "use fewer n_components or a subsample")

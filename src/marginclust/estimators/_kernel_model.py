"""Kernel parameters shared by SLMC and IterativeLSSVM: constraints, mode, per-fit context.

The context itself (centring, kernel matrix or low-rank features) is built by
:func:`marginclust.feature_maps._kernel_context.build_kernel_context`; restarts
only read it.

- **Mode.** ``n_components="auto"`` keeps the exact n x n kernel up to
  :data:`EXACT_MAX_SAMPLES` rows and switches to a rank-:data:`AUTO_COMPONENTS`
  Nystroem map above (linear kernel: its exact ``d + 1`` features), printing
  the choice when ``verbose > 0``; ``n_components_`` records it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..feature_maps import resolve_gamma
from ..feature_maps._kernel import GAMMA_CONSTRAINT
from ..feature_maps._kernel_context import (
    KernelContext,
    build_kernel_context,
    kernel_decision_values,
)
from ..feature_maps._low_rank import check_dtype
from ..utils import (
    Check,
    Constraint,
    IsCallable,
    MaxIter,
    OneOf,
    Or,
    Rule,
    Seed,
    Verbose,
    check_finite_scale,
    invalid_examples,
    report,
)
from ..utils._blocks import BLOCK_ROWS, out_of_core
from ..utils._memory import check_memory

__all__ = ["AUTO_COMPONENTS", "EXACT_MAX_SAMPLES", "KERNEL_CONSTRAINTS", "N_COMPONENTS",
           "KernelContext", "KernelModelMixin", "kernel_fit_memory"]

KERNELS = ("rbf", "linear", "precomputed")


def _dtype(value: Any, name: str) -> None:
    """``None``, ``"float32"`` or ``"float64"`` (:func:`check_dtype`)."""
    check_dtype(value)


#: ``n_components``: None (the exact kernel), ``"auto"`` or a rank.
N_COMPONENTS: Constraint = Or(("auto", None), MaxIter(),
                              "{name} must be 'auto', None or a positive integer; got {value!r}.")
_KERNEL_MESSAGE = f"{{name}} must be one of {KERNELS} or a callable kernel(X, Y); got {{value!r}}."


@dataclass(frozen=True)
class _Kernel(Rule):
    """``kernel``: a name of ``KERNELS`` or a callable ``kernel(X, Y)``; with
    ``"precomputed"``, X is the square kernel matrix of the training data."""

    names: Constraint = Or(KERNELS, IsCallable(_KERNEL_MESSAGE), _KERNEL_MESSAGE)

    def __call__(self, value: Any, name: str) -> Any:
        """Check ``value``; return it."""
        return self.names(value, name)

    def _check_data(self, value: Any, name: str, X: Any, n_clusters: int | None) -> None:
        if isinstance(value, str) and value == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With {name}='precomputed', X must be the square (n_samples, n_samples) "
                f"kernel matrix of the training data; got shape {X.shape}."
            )

    def _invalid(self) -> tuple[Any, ...]:
        return invalid_examples(self.names)


# The kernel parameters' part of the estimators' ``_parameter_constraints``.
KERNEL_CONSTRAINTS: dict[str, Constraint] = {
    "kernel": _Kernel(),
    "gamma": GAMMA_CONSTRAINT,
    "n_components": N_COMPONENTS,
    "low_rank": OneOf(("nystroem", "rff"), "low_rank must be 'nystroem' or 'rff'; got {value!r}."),
    "dtype": Check(_dtype, invalid=("float16",)),
    "random_state": Seed(),
    "verbose": Verbose(),
}
#: Largest n for which ``n_components="auto"`` keeps the exact kernel. Above it one
#: exact sweep costs a Cholesky factorisation of an n x n matrix (about 0.5 s at
#: n = 3,500 on one core, and up to ``max_iter`` sweeps); the rank-500 map costs
#: O(n 500^2) per sweep and kept the clustering accuracy on pendigits (3,498 rows).
EXACT_MAX_SAMPLES = 2000
#: Rank of the Nystroem map that ``n_components="auto"`` uses above EXACT_MAX_SAMPLES.
AUTO_COMPONENTS = 500
# Peak memory of a fit, in float64 n x n matrices (exact mode) and n x L / L x L ones
# (low rank). Measured (RSS high-water mark of a fit in a fresh process, n = 3000): SLMC
# holds the kernel, the W-step's matrix and its factor's backup (3.0 n^2); IterativeLSSVM
# one more (4.1 n^2); the low-rank modes the features and their block products.
_EXACT_COPIES = 3


def kernel_fit_memory(n: int, d: int, L: int | None, copies: int) -> float:
    """Estimated peak bytes of an exact (``L`` None) or rank-``L`` kernel fit on n x d data.

    Exact: ``copies`` n x n float64 matrices and two copies of X. Low rank: the
    features (n x L, cached), their block products and the L x L systems.
    """
    if L is None:
        return 8.0 * (copies * n * n + 2 * n * d)
    return 8.0 * (2 * n * L + 3 * min(n, BLOCK_ROWS) * L + 4 * L * L + 2 * n * d)


class KernelModelMixin:
    """Kernel parameters, validation, per-fit context and decision values.

    Expects the attributes ``kernel``, ``gamma``, ``n_components``, ``low_rank``,
    ``dtype``, ``random_state`` and ``verbose``.
    """

    kernel: Any
    gamma: Any
    n_components: Any
    low_rank: Any
    dtype: Any
    random_state: Any
    verbose: Any
    coef_: Any
    dual_coef_: Any

    @property
    def sigma_(self) -> float | None:
        """RBF width ``sigma = 1 / sqrt(2 gamma_)`` (read-only, from the fitted ``gamma_``)."""
        if "gamma_" not in self.__dict__:
            raise AttributeError("sigma_ is set by fit (it is derived from gamma_).")
        gamma = self.__dict__["gamma_"]
        return None if gamma is None else float(1.0 / np.sqrt(2.0 * gamma))

    def _check_kernel_params(self, X: Any) -> None:
        """What the kernel parameters need of the data (their table is checked already)."""
        kernel = self.kernel
        n = X.shape[0]
        if kernel == "precomputed":  # (the table checked that X is square)
            if self.n_components not in (None, "auto"):
                raise ValueError(
                    "n_components (low-rank mode) needs the data, not a precomputed kernel; "
                    "pass kernel='rbf' or a callable, or n_components=None."
                )
        elif kernel in ("rbf", "linear"):
            check_finite_scale(X)
        L = self._resolved_components(n)
        if out_of_core(X):
            return  # out of core: memory per chunk
        name = type(self).__name__
        copies = int(getattr(self, "_exact_copies", _EXACT_COPIES))
        nbytes = kernel_fit_memory(n, X.shape[1], L, copies)
        if L is None:
            check_memory(nbytes, f"Exact {name} on n_samples={n}",
                         "use the low-rank mode, e.g. n_components=500 (O(n_samples x "
                         "n_components) memory), or a subsample")
        else:
            check_memory(nbytes, f"{name} with n_components={L} on n_samples={n}",
                         "use fewer n_components or a subsample")

    def _resolved_components(self, n: int) -> int | None:
        """The rank to use on ``n`` rows (None: exact kernel); validates ``n_components``."""
        L = self.n_components
        if L is None:
            return None
        if isinstance(L, str):  # "auto" (the parameter table checked the value)
            if self.kernel == "precomputed" or n <= EXACT_MAX_SAMPLES:
                return None
            return AUTO_COMPONENTS
        return int(L)

    def _subset_fit_params(self, n_fit: int, n_total: int) -> dict[str, Any]:
        """Keep the low-rank mode of a fit on ``n_total`` rows on a subset of ``n_fit`` rows.

        Model selection fits halves and subsamples; with ``n_components="auto"``
        those below the exact-kernel limit would switch to the exact kernel (a
        different model, and slower per sweep than the low-rank map the refit on
        all rows uses). Small subsets keep the exact kernel: up to twice
        ``AUTO_COMPONENTS`` rows an exact sweep (a Cholesky factorisation,
        n^3 / 3 flops) costs no more than a low-rank one (n L^2 + L^3).
        """
        if self.n_components != "auto" or self.kernel == "precomputed":
            return {}
        if n_total <= EXACT_MAX_SAMPLES or n_fit <= 2 * AUTO_COMPONENTS:
            return {}
        return {"n_components": AUTO_COMPONENTS}

    def _resolve_width(self, X: Any) -> float | None:
        """``gamma`` of the RBF kernel on (centred) ``X``; None for other kernels."""
        if self.kernel != "rbf":
            return None
        # sigma0 on a fixed row sample: the width never depends on the restart
        return resolve_gamma(self.gamma, X, random_state=0)

    def _prepare_kernel(self, X: Any, *, stream: bool = False) -> KernelContext:
        """Centre, resolve ``gamma``, build the kernel matrix or the features, once per fit.

        ``stream=True`` (low-rank mode): instead of the n x L matrix ``Phi``,
        the context holds no ``Phi``: the restart computes the features block by
        block (kept in memory only when they fit in ``FEATURE_CACHE_BYTES``).
        """
        n = X.shape[0]
        L = self._resolved_components(n)
        if self.n_components == "auto" and L is not None:
            report(self.verbose, "%s: n_samples=%d > %d, so the kernel is approximated by a "
                   "rank-%d %s map (n_components='auto'); pass n_components=None for the "
                   "exact kernel.", type(self).__name__, n, EXACT_MAX_SAMPLES, L,
                   "linear" if self.kernel == "linear" else self.low_rank)
        elif L is None and n > EXACT_MAX_SAMPLES:
            report(self.verbose, "%s: exact kernel on n_samples=%d: one %d x %d Cholesky "
                   "factorisation per sweep; n_components=500 is much faster.",
                   type(self).__name__, n, n, n)
        from sklearn.utils import check_random_state

        seed = 0 if L is None else check_random_state(self.random_state).randint(
            np.iinfo(np.int32).max
        )
        return build_kernel_context(
            X, self.kernel, self._resolve_width, L, low_rank=self.low_rank, dtype=self.dtype,
            seed=int(seed), stream=stream,
        )

    def _fitted_model(self, ctx: KernelContext, coef: Any) -> dict[str, Any]:
        """Fitted attributes that :meth:`_decision_values` needs."""
        x: dict[str, Any] = {"gamma_": ctx.gamma, "mean_": ctx.mean,
                             "n_components_": ctx.n_components,
                             "dual_coef_": None, "X_fit_": None, "coef_": None,
                             "feature_map_": None}
        if ctx.Kmat is not None:  # exact mode (low rank: Phi or features)
            x["dual_coef_"] = coef
            if self.kernel != "precomputed":
                x["X_fit_"] = ctx.X
        else:
            x["coef_"] = coef
            x["feature_map_"] = ctx.fmap
        return x

    def _decision_values(self, X: Any) -> npt.NDArray[np.float64]:
        return kernel_decision_values(
            X, self.kernel, mean=getattr(self, "mean_", None), gamma=getattr(self, "gamma_", None),
            feature_map=getattr(self, "feature_map_", None), coef=getattr(self, "coef_", None),
            X_fit=getattr(self, "X_fit_", None), dual_coef=getattr(self, "dual_coef_", None),
        )

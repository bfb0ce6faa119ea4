"""Generated data: small blob problems drawn by hypothesis, and the input transforms."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

__all__ = [
    "Case",
    "cases",
    "tiny_cases",
    "TRANSFORMS",
    "EXTREMES",
    "EXTREMES32",
    "SCALES",
    "make_data",
    "representable",
]


@dataclass(frozen=True)
class Case:
    """A blob problem: ``make_blobs(n, d, centers=k, cluster_std=std, random_state=seed)``."""

    seed: int
    n: int
    d: int
    k: int
    std: float

    def __str__(self) -> str:  # short ids in failure messages
        return f"Case(seed={self.seed}, n={self.n}, d={self.d}, k={self.k}, std={self.std})"


def cases(max_clusters: int = 3) -> st.SearchStrategy[Case]:
    """Small problems (n <= 60) with 2..max_clusters blobs."""
    return st.builds(
        Case,
        seed=st.integers(0, 2**16),
        n=st.integers(20, 60),
        d=st.integers(2, 5),
        k=st.integers(2, max(2, min(3, max_clusters))),
        std=st.sampled_from([0.3, 0.6, 1.0]),
    )


def tiny_cases() -> st.SearchStrategy[Case]:
    """Very small problems (2 to 9 rows) with 1..3 blobs, ``n_clusters=1`` included."""
    return st.builds(
        Case,
        seed=st.integers(0, 2**16),
        n=st.integers(2, 9),
        d=st.integers(2, 4),
        k=st.integers(1, 3),
        std=st.sampled_from([0.3, 1.0]),
    )


def _mixed(X: np.ndarray) -> np.ndarray:
    scale = np.where(np.arange(X.shape[1]) % 2 == 0, 1e-8, 1e8)
    return X * scale


# name -> function of X (float64); the extreme but finite inputs the suite tries.
EXTREMES = {
    "x1e-150": lambda X: X * 1e-150,
    "x1e150": lambda X: X * 1e150,
    "x1e200": lambda X: X * 1e200,
    "plus1e9": lambda X: X + 1e9,
    "plus1e10": lambda X: X + 1e10,
    "mixed1e-8_1e8": _mixed,
}
# extreme but finite float32 inputs (representable in float32; the float64 path
# accepts them)
EXTREMES32 = {
    "x1e-30": lambda X: X * 1e-30,
    "x1e30": lambda X: X * 1e30,
    "plus1e4": lambda X: X + 1e4,
    "mixed1e-15_1e15": lambda X: X * np.where(np.arange(X.shape[1]) % 2 == 0, 1e-15, 1e15),
}


def _times(factor: float):
    return lambda X: X * factor


# name -> factor: the uniform rescalings of the "scales" category, from near the
# smallest to near the largest normal float64 (float32 holds only x1 of them: it spans
# about 1e-38..3e38, see representable)
SCALES = {
    "x1e-300": 1e-300,
    "x1e-200": 1e-200,
    "x1e-100": 1e-100,
    "identity": 1.0,
    "x1e100": 1e100,
    "x1e200": 1e200,
    "x1e300": 1e300,
}
TRANSFORMS = {
    **{name: _times(f) for name, f in SCALES.items() if f != 1.0},
    **EXTREMES32,
    "identity": lambda X: X,
    "x1e-6": lambda X: X * 1e-6,
    "x1e6": lambda X: X * 1e6,
    **EXTREMES,
}


def representable(case: Case, transform: str, dtype: type) -> bool:
    """Whether ``case`` after ``transform`` is finite, normal data in ``dtype``.

    Outside the dtype's normal range the cast itself breaks the data (``inf`` above
    it, zeros or subnormals losing every digit below): that is other input (the
    bad-input tests cover ``inf`` and constant X), not the rescaled problem.
    """
    X, _ = make_data(case, transform)
    info = np.finfo(dtype)
    mags = np.abs(X[X != 0])
    return bool(mags.size == 0 or (mags.min() >= info.tiny and mags.max() <= info.max))


def make_data(
    case: Case, transform: str = "identity", dtype: type = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` for ``case`` after ``transform``, as a C-contiguous array of ``dtype``."""
    X, y = make_blobs(
        n_samples=case.n,
        n_features=case.d,
        centers=case.k,
        cluster_std=case.std,
        random_state=case.seed,
    )
    X = TRANSFORMS[transform](X.astype(np.float64))
    return np.ascontiguousarray(X, dtype=dtype), y

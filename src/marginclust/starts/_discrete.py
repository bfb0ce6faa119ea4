"""Discrete columns read as bins by the margin's judge.

A column with few distinct values is a discrete measurement (a yes/no answer, a
grade, a count of a few): its values are bins, and the empty space between two
levels is the lattice of the measurement, not a valley of the data's density.
In a table that mixes such columns with continuous ones the nearest-neighbour
vote would take every level gap for a perfect boundary: standardised, a binary
column with a share ``p`` of ones puts its two levels ``1 / sqrt(p (1 - p))``
standard deviations apart, wider than the neighbour distances of the
continuous columns, so a partition along one yes/no column scores as perfectly
separated (a small group of one answer beats the split of the classes). The
judge therefore reads each discrete value as its bin: before the vote's
neighbours are found, each value is spread uniformly over its bin (half the gap
to each neighbouring level; the end levels as wide as their one gap), so a
level gap weighs like a continuous stretch of the level's own density. Where
every column is discrete there is nothing continuous to compare with: the
lattice is all there is to see, and nothing is spread.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["MAX_LEVELS", "discrete_columns", "spread_over_bins"]

#: A column with at most this many distinct values (and at least two) is discrete.
#: Yes/no answers, grades and small counts have 2 to 10; a continuous measurement
#: of a few hundred rows has as many values as rows, up to rounding.
MAX_LEVELS = 10


def discrete_columns(Z: npt.NDArray[np.floating]) -> npt.NDArray[np.intp]:
    """The discrete columns of a mixed table (none when no column is continuous).

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The points.

    Returns
    -------
    columns : ndarray of int
        The columns with 2 to :data:`MAX_LEVELS` distinct values, when at least
        one other column has more; else empty.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> Z = np.c_[rng.randn(100), rng.randint(0, 2, 100), np.ones(100)]
    >>> discrete_columns(Z), discrete_columns(Z[:, 1:])
    (array([1]), array([], dtype=int64))
    """
    levels = np.array([np.unique(Z[:, j]).size for j in range(Z.shape[1])])
    discrete = (levels >= 2) & (levels <= MAX_LEVELS)
    if not np.any(levels > MAX_LEVELS):
        return np.flatnonzero(np.zeros_like(discrete))
    return np.flatnonzero(discrete)


def spread_over_bins(
    Z: npt.NDArray[np.float64], columns: npt.NDArray[np.intp], rng: np.random.RandomState,
) -> npt.NDArray[np.float64]:
    """A copy of ``Z`` with each value of ``columns`` drawn uniformly over its bin.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The points.
    columns : ndarray of int
        Discrete columns (:func:`discrete_columns`).
    rng : numpy.random.RandomState
        The draws.

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
        A new array; the other columns unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.c_[np.linspace(0, 1, 6), [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]]
    >>> S = spread_over_bins(Z, np.array([1]), np.random.RandomState(0))
    >>> bool(np.all(S[:3, 1] >= -1) and np.all(S[:3, 1] <= 1) and np.all(S[3:, 1] >= 1))
    True
    """
    out = np.array(Z, dtype=np.float64)
    for j in columns:
        levels = np.unique(out[:, j])
        gaps = np.diff(levels)
        below = np.r_[gaps[0], gaps] / 2.0
        above = np.r_[gaps, gaps[-1]] / 2.0
        at = np.searchsorted(levels, out[:, j])
        out[:, j] += rng.uniform(-below[at], above[at])
    return out

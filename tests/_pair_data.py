"""Random data with must-link / cannot-link pairs for the pair-term solver tests."""

from __future__ import annotations

import numpy as np

from marginclust.objectives._constraints import make_pairs
from marginclust.objectives._mmc import MMCObjective


def pair_objective(k, seed, n=300, n_draws=80):
    """Two shifted Gaussian halves, random pairs labelled by the halves, random labels.

    Returns ``(objective, labels, rng)``: an :class:`MMCObjective` with ``C=10``,
    balance 0.1 and ``C_pairs=1``, the random labels of a first subproblem, and the
    generator (for further draws).
    """
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4)
    X[: n // 2, 0] += 2.0
    y = np.arange(n) < n // 2
    uv = rng.randint(n, size=(n_draws, 2))
    uv = uv[uv[:, 0] != uv[:, 1]]
    same = y[uv[:, 0]] == y[uv[:, 1]]
    obj = MMCObjective(X, k, 10.0, 0.1, C_pairs=1.0, pairs=make_pairs(uv[same], uv[~same], n))
    return obj, rng.randint(k, size=n), rng

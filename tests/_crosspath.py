"""What two computations of the same minimiser can be asked to agree on.

Two runs that differ only in floating-point summation order (sparse vs dense
products, another BLAS kernel, other row blocks) may take different paths: an
iterative solver's iterates hang on discrete choices (which vertex of a degenerate
face a QP returns, which planes count as idle, a sign or an argmax) that rounding
can flip. Two things do not depend on the path, and cross-path tests compare them:

- the stopping rule's guarantee about the end point. A run that stops with
  ``J - lower <= gap`` (``lower`` a lower bound of the minimum ``J*``) ends with
  ``J* <= J <= J* + gap``, so two runs agree to ``max(gap_a, gap_b)``. An objective
  ``1/2 ||W||^2 + (a function convex in W and t)`` is 1-strongly convex in ``W``:
  ``J(W, t) - J* >= 1/2 ||W - W*||^2``, so ``||W - W*|| <= sqrt(2 gap)`` and two runs
  agree to ``sqrt(2 gap_a) + sqrt(2 gap_b)``;
- the discrete outcome (labels) on data far from every tie: :func:`separated_sparse_blobs`.
"""

from __future__ import annotations

import numpy as np


def separated_sparse_blobs(k, seed, n=90, d=5):
    """Blobs with centres 12 standard deviations apart, made sparse by zeroing small entries.

    No point lies near a decision boundary of the clusters, so signs, argmax and
    working sets cannot part between two summation orders; returns ``(X, y)``.
    """
    rng = np.random.RandomState(seed)
    y = np.arange(n) % k
    X = 12.0 * np.eye(k, d)[y] + rng.randn(n, d)
    X[np.abs(X) < 1.5] = 0.0
    return X, y


def assert_same_minimiser(J_a, W_a, gap_a, J_b, W_b, gap_b):
    """Two end points of one strongly convex problem, each within its stopping gap."""
    assert abs(J_a - J_b) <= max(gap_a, gap_b), (J_a, J_b, gap_a, gap_b)
    dist = float(np.linalg.norm(np.asarray(W_a) - np.asarray(W_b)))
    assert dist <= np.sqrt(2 * gap_a) + np.sqrt(2 * gap_b), (dist, gap_a, gap_b)


def bundle_gap(J, tol):
    """The absolute gap of a bundle run that stopped at relative ``tol`` with value ``J``.

    It stops when ``J_best - lower <= tol J_best``; ``J`` (after the exact offset
    polish, which never increases it) is at least ``J* >= (1 - tol) J_best``.
    """
    return tol * abs(J) / (1.0 - tol)

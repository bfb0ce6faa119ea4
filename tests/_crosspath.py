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

Where no path is involved (one formula evaluated in two summation orders), the
tolerance is the rounding bound of that formula: :func:`expanded_distance_rtol`,
:func:`fcm_memberships_rtol`, :func:`feature_rounding_bound`.
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


def expanded_distance_rtol(X, V):
    """Relative rounding bound of squared distances expanded as ``||x||^2 - 2 x.v + ||v||^2``.

    Each of the three terms is within a few eps of ``||x||^2 + ||v||^2`` (a dot
    product of d terms, in whatever order a BLAS kernel sums it), so the distance
    ``d`` is within ``8 eps (||x||^2 + ||v||^2)`` of its exact value, a relative
    error that grows as ``d`` shrinks. Returns the largest over all pairs.
    """
    X, V = np.asarray(X, dtype=np.float64), np.asarray(V, dtype=np.float64)
    xx, vv = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", V, V)
    d = ((X[:, None, :] - V[None, :, :]) ** 2).sum(axis=2)
    return float(np.max(8 * np.finfo(np.float64).eps * (xx[:, None] + vv[None, :]) / d))


def fcm_memberships_rtol(X, V, m):
    """Relative bound on FCM memberships ``1 / sum_j (D_k / D_j)^(1/(m-1))`` computed from
    distances each within relative ``delta`` (:func:`expanded_distance_rtol`): each
    ratio moves by at most ``2 delta``, its power by ``2 delta / (m - 1)``, and so does
    the membership. A kernel distance ``2 (1 - exp(-g d))`` has at most the relative
    error of ``d``. (1% on top for the second-order terms.)
    """
    return 2.0 * expanded_distance_rtol(X, V) / (m - 1.0) * 1.01


def feature_rounding_bound(fmap, X, eps):
    """Largest rounding error of a feature computed with unit roundoff ``eps``.

    Nystroem k(x, Z) N: the expanded distance is within 8 eps (||x||^2 + ||z||^2), so each
    kernel value within gamma times that, and N (norm 1/sqrt(s_min)) and the product add at
    most L eps |k| |N|. Random Fourier sqrt(2/L) cos(x W + b): cos moves at most as much as
    its argument, within (d + 2) eps (|x| |W| + |b|), plus its own rounding.
    """
    if fmap.method == "nystroem":
        N, Z = fmap.normalization_, fmap.components_
        eps_k = 8 * eps * fmap.gamma * ((X**2).sum(axis=1).max() + (Z**2).sum(axis=1).max())
        return (np.sqrt(len(Z)) * eps_k * np.linalg.norm(N, 2)
                + len(Z) * eps * np.abs(N).sum(axis=0).max())
    arg = np.abs(X) @ np.abs(fmap.random_weights_) + np.abs(fmap.random_offset_)
    c = np.sqrt(2.0 / fmap.n_output_features_)
    return c * eps * ((X.shape[1] + 2) * arg.max() + 2)

"""Whether a split of two clusters is a mixture of two Gaussians, by the mixture's own test.

Where a boundary beats the structureless reference but its valley is too
shallow for the sample to show (two Gaussians a few standard deviations apart),
:mod:`marginclust.starts._separation` asks the Gaussian mixture instead
(:func:`two_gaussians`; that module's docstring states the test and why).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.stats import norm

from ..objectives._gaussian_mixture import (
    bic,
    effective_size,
    m_step,
    moment_scores,
    tail_kurtosis_score,
)
from ..solvers._gaussian_em import gaussian_mixture_em
from ._references import principal_axes

__all__ = ["two_gaussians"]

# Two Gaussians: the mixture's responsibilities must give the split's labels to this share
# of the weight, each component must hold this many effective points (D'Agostino's
# kurtosis test asks for 20), and its moments must pass at this family-wise confidence.
_GAUSSIAN_AGREEMENT = 0.9
_MIN_GAUSSIAN = 20
_GAUSSIAN_CONFIDENCE = 0.95


def two_gaussians(
    Zu: npt.NDArray[np.float64], split: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64] | None,
) -> bool:
    """Whether a two-cluster split is a mixture of two Gaussians, by the mixture's test (module).

    Two full-covariance Gaussians fitted by EM from the split must have a lower
    BIC than one and than the uniform principal-axes box, give (by their
    responsibilities) the split's labels to at least ``_GAUSSIAN_AGREEMENT`` of
    the weight, and each be Gaussian by the skewness and kurtosis on its
    principal axes across the line between the means and by the kurtosis of
    its tail along the line away from the other. Weights are rescaled to sum
    to Kish's effective number of points, so repeating every row changes nothing.
    """
    n, d = Zu.shape
    if d < 2:
        return False  # no direction across the line between the means
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / float(w.max())  # a scale-free start: no sum below can underflow
    w = w * (effective_size(w) / float(w.sum()))  # sums to Kish's effective number
    smallest = max(float(_MIN_GAUSSIAN), d * (d + 3) / 2.0)
    if min(effective_size(w[split == c]) for c in (0, 1)) < smallest:
        return False  # too few points for a full covariance and its moments
    spread = float(np.mean(np.average((Zu - np.average(Zu, axis=0, weights=w)) ** 2,
                                      axis=0, weights=w)))
    if not spread > 0:
        return False
    reg = 1e-6 * spread  # scikit-learn's reg_covar, relative to the data's scale
    try:
        two = gaussian_mixture_em(Zu, split, w, reg=reg)
        one = gaussian_mixture_em(Zu, np.zeros(n, dtype=np.intp), w, reg=reg)
    except np.linalg.LinAlgError:
        return False  # a covariance without a Cholesky factor: not two Gaussians
    total = float(w.sum())
    criterion = bic(two.log_likelihood, 2, d, total)
    if not criterion < bic(one.log_likelihood, 1, d, total):
        return False
    if not criterion < _box_bic(Zu, total, None if weights is None else w):
        return False  # no better than structureless uniform data
    resp = two.responsibilities
    if float(w @ (resp.argmax(axis=1) == split)) < _GAUSSIAN_AGREEMENT * total:
        return False  # the mixture's boundary is not the split's
    # two-sided, shared among the skewness and kurtosis of each axis across the line of
    # both components and the kurtosis of their two far tails
    z = float(norm.isf((1.0 - _GAUSSIAN_CONFIDENCE) / 2.0 / (4 * (d - 1) + 2)))
    own = m_step(Zu, resp, w, 0.0)  # each component's own mean and covariance
    # the moments across the line between the means: along it the components overlap
    # and their responsibilities shape them
    line = own.means[1] - own.means[0]
    if not float(line @ line) > 0:
        return False  # one mean: no line, not two clusters
    across = np.linalg.svd(np.eye(d) - np.outer(line, line) / float(line @ line))[0][:, :d - 1]
    P = Zu @ across
    for c in (0, 1):
        u = w * resp[:, c]
        if effective_size(u) < _MIN_GAUSSIAN:
            return False
        skewness, kurtosis = moment_scores(P, own.means[c] @ across,
                                           across.T @ own.covariances[c] @ across, u)
        if max(float(np.max(np.abs(skewness))), float(np.max(np.abs(kurtosis)))) > z:
            return False
        # along the line, the tail away from the other component, which that one does
        # not reach: a Gaussian's half, where a piece of an arc or of a uniform stretch
        # ends (flat)
        depth = (Zu - own.means[c]) @ (own.means[c] - own.means[1 - c])
        far = depth > 0
        if effective_size(u[far]) < _MIN_GAUSSIAN:
            return False
        if abs(tail_kurtosis_score(depth[far], u[far])) > z:
            return False
    return True


def _box_bic(
    Z: npt.NDArray[np.float64], total: float, weights: npt.NDArray[np.float64] | None = None,
) -> float:
    """BIC of the uniform density on the principal-axes box of ``Z`` (the box reference).

    The box is the range on each (weighted) principal axis (the
    maximum-likelihood box for those axes), ``2 d`` parameters; ``total`` is the
    weight of the points. A zero range gives ``inf`` (no density to compare).
    """
    _, centred, _, vt = principal_axes(Z, weights)
    P = centred @ vt.T
    ranges = P.max(axis=0) - P.min(axis=0)
    if not np.all(ranges > 0):
        return float("inf")
    log_likelihood = -total * float(np.sum(np.log(ranges)))
    return -2.0 * log_likelihood + 2 * Z.shape[1] * float(np.log(total))

"""EM for a weighted mixture of full-covariance Gaussians, started from a partition.

The loop over :mod:`marginclust.objectives._gaussian_mixture`'s steps
(Dempster, Laird & Rubin 1977): an M-step from the partition's hard
responsibilities, then E- and M-steps until the weighted log-likelihood
gains no more than ``tol`` per unit of weight. EM never lowers the
log-likelihood, and the history it returns shows it. scikit-learn's
``GaussianMixture`` takes no sample weights; this loop does, so that a point
of weight ``r`` counts as ``r`` identical rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..objectives._gaussian_mixture import MixtureParams, e_step, m_step

__all__ = ["MixtureFit", "gaussian_mixture_em"]


class MixtureFit(NamedTuple):
    """The end of :func:`gaussian_mixture_em`."""

    params: MixtureParams
    responsibilities: npt.NDArray[np.float64]
    log_likelihood: float
    history: list[float]
    converged: bool


def gaussian_mixture_em(
    X: npt.NDArray[np.float64], labels: npt.NDArray[np.intp],
    weights: npt.NDArray[np.float64] | None = None, *, reg: float = 1e-6,
    tol: float = 1e-6, max_iter: int = 200,
) -> MixtureFit:
    """A mixture of ``labels.max() + 1`` full-covariance Gaussians, by EM from ``labels``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The points.
    labels : ndarray of shape (n_samples,)
        The starting partition, in ``0 .. K - 1``, every component with at least
        one point of positive weight.
    weights : ndarray of shape (n_samples,) or None, default=None
        Weight of each point (None: 1 each).
    reg : float, default=1e-6
        Added to the diagonal of every covariance (as scikit-learn's
        ``reg_covar``; scale it to the data).
    tol : float, default=1e-6
        Stop when the log-likelihood gains at most ``tol`` times the total weight.
    max_iter : int, default=200
        E-steps at most.

    Returns
    -------
    MixtureFit
        The parameters, the responsibilities, the log-likelihood, its history
        (one value per E-step) and whether it converged.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(200, 2), rng.randn(200, 2) + [6.0, 0.0]]
    >>> fit = gaussian_mixture_em(X, (X[:, 0] > 3.0).astype(np.intp))
    >>> [round(m) for m in fit.params.means[:, 0]], fit.converged
    ([0, 6], True)
    """
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    k = int(labels.max()) + 1
    resp = np.zeros((X.shape[0], k))
    resp[np.arange(X.shape[0]), labels] = 1.0
    params = m_step(X, resp, w, reg)
    history: list[float] = []
    converged = False
    for _ in range(max_iter):
        resp, log_likelihood = e_step(X, params, w)
        history.append(log_likelihood)
        if len(history) > 1 and history[-1] - history[-2] <= tol * float(w.sum()):
            converged = True
            break
        params = m_step(X, resp, w, reg)
    return MixtureFit(params, resp, history[-1], history, converged)

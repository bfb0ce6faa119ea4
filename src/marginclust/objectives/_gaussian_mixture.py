"""A weighted mixture of full-covariance Gaussians: densities, EM steps, BIC and moments.

The maths behind the Gaussian mixture's own test of two clusters (the loop
is :func:`marginclust.solvers._gaussian_em.gaussian_mixture_em`). Each point
``x_i`` has a weight ``w_i`` (a point of weight ``r`` stands for ``r``
identical rows); the weighted log-likelihood is
``L = sum_i w_i log sum_c pi_c N(x_i | mu_c, S_c)``. The M-step is the
weighted mean and covariance of each component under the responsibilities
``r_ic`` (``N_c = sum_i w_i r_ic``, ``pi_c = N_c / sum_i w_i``), plus ``reg``
on the diagonal, as scikit-learn's ``reg_covar``; the E-step is Bayes' rule.

BIC is ``-2 L + p log n`` with ``p = K d + K d (d + 1) / 2 + K - 1`` free
parameters (Schwarz 1978).

The moments say whether a component is Gaussian: its points, on its own
principal axes and weighted by their responsibilities, have a skewness and a
kurtosis on each axis, turned into normal scores under normality by
D'Agostino's and Anscombe & Glynn's transformations (D'Agostino, Belanger &
D'Agostino 1990), with ``n`` the component's effective number of points
(Kish). Prior validation of the inputs is assumed throughout this module.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, solve_triangular
from scipy.special import logsumexp

__all__ = [
    "MixtureParams",
    "bic",
    "e_step",
    "effective_size",
    "m_step",
    "n_parameters",
    "tail_kurtosis_score",
    "moment_scores",
]


class MixtureParams(NamedTuple):
    """Proportions ``(K,)``, means ``(K, d)`` and covariances ``(K, d, d)`` of a mixture."""

    proportions: npt.NDArray[np.float64]
    means: npt.NDArray[np.float64]
    covariances: npt.NDArray[np.float64]


def effective_size(weights: npt.NDArray[np.float64]) -> float:
    """Kish's effective number of points, ``(sum w)^2 / sum w^2`` (0 for no weight).

    Examples
    --------
    >>> import numpy as np
    >>> effective_size(np.full(10, 3.0)), effective_size(np.array([1.0, 0.0]))
    (10.0, 1.0)
    """
    w = np.asarray(weights, dtype=np.float64)
    top = float(np.max(w)) if w.size else 0.0
    if not top > 0:
        return 0.0
    w = w / top  # the ratio is scale-free; squares of weights far below one underflow
    total = float(np.sum(w))
    return total * total / float(np.sum(np.square(w)))


def m_step(
    X: npt.NDArray[np.float64], resp: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64], reg: float,
) -> MixtureParams:
    """The weighted means, covariances (plus ``reg`` on the diagonal) and proportions.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [10.0], [12.0]])
    >>> resp = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> p = m_step(X, resp, np.ones(4), 0.0)
    >>> p.means.ravel().tolist(), p.covariances.ravel().tolist(), p.proportions.tolist()
    ([1.0, 11.0], [1.0, 1.0], [0.5, 0.5])
    """
    wr = resp * weights[:, None]
    counts = wr.sum(axis=0)
    means = (wr.T @ X) / counts[:, None]
    d = X.shape[1]
    covariances = np.empty((resp.shape[1], d, d))
    for c in range(resp.shape[1]):
        D = X - means[c]
        covariances[c] = (D * wr[:, c:c + 1]).T @ D / counts[c]
        covariances[c].flat[:: d + 1] += reg
    return MixtureParams(counts / counts.sum(), means, covariances)


def _log_densities(X: npt.NDArray[np.float64], params: MixtureParams) -> npt.NDArray[np.float64]:
    """``log pi_c + log N(x_i | mu_c, S_c)`` for every point and component, ``(n, K)``."""
    n, d = X.shape
    out = np.empty((n, params.means.shape[0]))
    for c, (pi, mean, cov) in enumerate(zip(*params)):
        chol, _ = cho_factor(cov, lower=True)
        Y = solve_triangular(chol, (X - mean).T, lower=True)
        log_det = 2.0 * float(np.sum(np.log(np.diag(chol))))
        out[:, c] = (np.log(pi) - 0.5 * (d * np.log(2.0 * np.pi) + log_det)
                     - 0.5 * np.einsum("ij,ij->j", Y, Y))
    return out


def e_step(
    X: npt.NDArray[np.float64], params: MixtureParams, weights: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], float]:
    """The responsibilities ``(n, K)`` and the weighted log-likelihood ``L``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((1, 1))
    >>> one = MixtureParams(np.ones(1), np.zeros((1, 1)), np.ones((1, 1, 1)))
    >>> resp, L = e_step(X, one, np.ones(1))
    >>> resp.tolist(), bool(np.isclose(L, -0.5 * np.log(2 * np.pi)))
    ([[1.0]], True)
    """
    log = _log_densities(X, params)
    total = logsumexp(log, axis=1)
    return np.exp(log - total[:, None]), float(weights @ total)


def n_parameters(n_components: int, n_features: int) -> int:
    """Free parameters of a full-covariance mixture: means, covariances, proportions.

    Examples
    --------
    >>> n_parameters(1, 2), n_parameters(2, 2)
    (5, 11)
    """
    d = n_features
    return n_components * (d + d * (d + 1) // 2) + n_components - 1


def bic(log_likelihood: float, n_components: int, n_features: int, n: float) -> float:
    """Schwarz's criterion ``-2 L + p log n`` (lower is better).

    Examples
    --------
    >>> round(bic(-100.0, 1, 2, np.e ** 2), 6)
    210.0
    """
    return -2.0 * log_likelihood + n_parameters(n_components, n_features) * float(np.log(n))


def moment_scores(
    X: npt.NDArray[np.float64], mean: npt.NDArray[np.float64],
    covariance: npt.NDArray[np.float64], weights: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Normal scores of the skewness and the kurtosis on each principal axis.

    ``X`` is whitened by ``mean`` and ``covariance`` (the component's own fit,
    so each axis has unit weighted variance); the moments are weighted by
    ``weights``, and ``n`` is Kish's effective number of the weights. Each
    moment is turned into a standard normal score under normality by
    D'Agostino's transformation of the skewness (1970) and Anscombe & Glynn's
    of the kurtosis (1983), the transformations of scipy's ``skewtest`` and
    ``kurtosistest``, which take no weights (the module).

    Returns
    -------
    skewness, kurtosis : ndarray of shape (n_features,)
        Their normal scores (negative kurtosis scores: flatter than a Gaussian).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import kurtosistest, skewtest
    >>> X = np.random.RandomState(0).randn(500, 2)
    >>> s, k = moment_scores(X, X.mean(0), np.cov(X.T, bias=True), np.ones(500))
    >>> Y = (X - X.mean(0)) @ np.linalg.eigh(np.cov(X.T, bias=True))[1]
    >>> bool(np.allclose(s, skewtest(Y).statistic) and np.allclose(k, kurtosistest(Y).statistic))
    True
    """
    values, vectors = np.linalg.eigh(covariance)
    Y = (X - mean) @ vectors
    total = float(np.sum(weights))
    m2 = (weights @ Y**2) / total
    tiny = np.finfo(np.float64).tiny
    g1 = (weights @ Y**3) / total / np.maximum(m2, tiny) ** 1.5
    b2 = (weights @ Y**4) / total / np.maximum(m2, tiny) ** 2
    n = effective_size(weights)
    return _skewness_score(g1, n), _kurtosis_score(b2, n)


def tail_kurtosis_score(depth: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]) -> float:
    """Normal score of the kurtosis of a Gaussian's tail beyond its mean.

    ``depth`` are the distances past the mean along one direction (all
    positive); reflected about the mean they are a symmetric sample whose
    kurtosis is ``sum w d^4 / sum w / (sum w d^2 / sum w)^2``, 3 for a
    Gaussian's half. It is scored as :func:`moment_scores` scores a kurtosis,
    with ``n`` Kish's effective number of the weights (the reflected copies are
    not counted: they add no information). A tail that ends (the half of a
    uniform stretch, of an arc) scores far below 0.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> bool(abs(tail_kurtosis_score(np.abs(rng.randn(400)), np.ones(400))) < 2.5)
    True
    >>> bool(tail_kurtosis_score(rng.uniform(size=400), np.ones(400)) < -5)
    True
    """
    total = float(np.sum(weights))
    m2 = float(weights @ depth**2) / total
    m4 = float(weights @ depth**4) / total
    b2 = np.array([m4 / max(m2, np.finfo(np.float64).tiny) ** 2])
    return float(_kurtosis_score(b2, effective_size(weights))[0])


def _skewness_score(g1: npt.NDArray[np.float64], n: float) -> npt.NDArray[np.float64]:
    """D'Agostino's (1970) normal score of a sample skewness ``g1`` of ``n`` points."""
    y = g1 * np.sqrt((n + 1.0) * (n + 3.0) / (6.0 * (n - 2.0)))
    beta2 = (3.0 * (n * n + 27.0 * n - 70.0) * (n + 1.0) * (n + 3.0)
             / ((n - 2.0) * (n + 5.0) * (n + 7.0) * (n + 9.0)))
    w2 = -1.0 + np.sqrt(2.0 * (beta2 - 1.0))
    delta = 1.0 / np.sqrt(0.5 * np.log(w2))
    alpha = np.sqrt(2.0 / (w2 - 1.0))
    return np.asarray(delta * np.arcsinh(y / alpha), dtype=np.float64)


def _kurtosis_score(b2: npt.NDArray[np.float64], n: float) -> npt.NDArray[np.float64]:
    """Anscombe & Glynn's (1983) normal score of a sample kurtosis ``b2`` of ``n`` points."""
    mean_b2 = 3.0 * (n - 1.0) / (n + 1.0)
    var_b2 = 24.0 * n * (n - 2.0) * (n - 3.0) / ((n + 1.0) ** 2 * (n + 3.0) * (n + 5.0))
    x = (b2 - mean_b2) / np.sqrt(var_b2)
    root_beta1 = (6.0 * (n * n - 5.0 * n + 2.0) / ((n + 7.0) * (n + 9.0))
                  * np.sqrt(6.0 * (n + 3.0) * (n + 5.0) / (n * (n - 2.0) * (n - 3.0))))
    a = 6.0 + 8.0 / root_beta1 * (2.0 / root_beta1 + np.sqrt(1.0 + 4.0 / root_beta1**2))
    denominator = 1.0 + x * np.sqrt(2.0 / (a - 4.0))
    term = np.sign(denominator) * np.cbrt((1.0 - 2.0 / a) / np.abs(denominator))
    return np.asarray((1.0 - 2.0 / (9.0 * a) - term) / np.sqrt(2.0 / (9.0 * a)),
                      dtype=np.float64)

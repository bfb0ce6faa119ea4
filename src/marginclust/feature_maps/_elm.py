"""ELM random hidden layer as a scikit-learn transformer.

An extreme learning machine (ELM) maps an input ``x`` to the hidden-layer row
``h(x) = [G(a_1, b_1, x), ..., G(a_L, b_L, x)]`` whose node parameters are drawn
at random and never trained (Huang et al. 2006; Zhang et al. 2013, eq. 7):

- sigmoid nodes: ``G(a, b, x) = 1 / (1 + exp(-(a . x + b)))``;
- Gaussian nodes: ``G(a, b, x) = exp(-b ||x - a||^2)``.

The ELM theory allows any continuous distribution for ``(a, b)``, but the scale
matters in practice: with raw weights of unit size, ``a . x`` on features of
size ~100 (or on 256 pixels) saturates every sigmoid at 0 or 1, and Gaussian
nodes with unit width around random centres are ~0 everywhere. A saturated H
has (nearly) binary or constant columns, which makes every downstream ridge fit
either trivial or interpolating. We therefore scale the draw by the data
(documented in :class:`ELMFeatures`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import Tags, check_random_state
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._blocks import BLOCK_ROWS, backend_for, column_mean, out_of_core, row_slices
from ..utils._validation import (
    Constraint,
    MaxIter,
    OneOf,
    PositiveFinite,
    Seed,
    check_parameters,
)

__all__ = ["ELM_CONSTRAINTS", "ELMFeatures", "location_scale"]

_ACTIVATIONS = ("sigmoid", "gaussian")
# ELMFeatures' parameter table (EMMC's hidden layer has the same parameters).
ELM_CONSTRAINTS: dict[str, Constraint] = {
    "n_hidden": MaxIter(),
    "activation": OneOf(_ACTIVATIONS),
    "weight_scale": PositiveFinite(),
}


class ELMFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Random ELM hidden layer ``h(x)`` (sigmoid or Gaussian nodes).

    Data-aware scaling (what ``fit`` learns from ``X``): the feature means
    ``mu`` and one *global* scale ``s``, the root-mean-square of the feature
    standard deviations (a single scale keeps the geometry of the data; scale
    heterogeneous features beforehand, e.g. with ``MinMaxScaler``, if that is
    what you want). The nodes are evaluated on the standardised input
    ``(x - mu) / s`` (computed without overflow for any finite ``X``), so a large
    common offset (``X + 1e9``) or an extreme scale (``X * 1e-150``, ``X * 1e200``)
    gives the same layer as ``X``.

    - ``activation="sigmoid"``: ``h_l(x) = sigmoid(a_l . x + b_l)`` with
      ``a_l = weight_scale * w_l / (s sqrt(d))``, ``w_l ~ N(0, I_d)``, and
      ``b_l = -a_l . mu + weight_scale * u_l``, ``u_l ~ U(-1, 1)``. So the
      pre-activation ``a_l . (x - mu) + weight_scale * u_l`` has a spread of about
      ``weight_scale`` on the training data: the nodes work in the non-linear but
      non-saturated range of the sigmoid for ``weight_scale`` around 1.
    - ``activation="gaussian"``: ``h_l(x) = exp(-b_l ||x - a_l||^2)`` with centres
      ``a_l = x_j + s * 0.1 * z_l`` (a random training sample ``x_j`` jittered by
      ``z_l ~ N(0, I_d)``, so the centres are a continuous random draw that lies
      where the data are), and ``b_l = 1 / (weight_scale^2 * m2)`` where ``m2`` is
      the median squared distance between (up to 1000) training samples and the
      centres: a typical node value is ``exp(-1 / weight_scale^2)``.

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L (output features).
    activation : {"sigmoid", "gaussian"}, default="sigmoid"
        Node type.
    weight_scale : float, default=1.0
        Multiplier of the data-aware scale above (larger: more non-linear,
        sharper nodes; too large saturates sigmoid nodes).
    random_state : int, RandomState instance or None, default=None
        Seed of the random node parameters.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features_in_,)
        Feature means ``mu``.
    scale_ : float
        The global scale ``s``.
    weights_ : ndarray of shape (n_features_in_, n_hidden)
        Node parameters acting on the standardised input ``z = (x - mu) / s``:
        input weights ``a_l s`` as columns (sigmoid) or centres ``(a_l - mu) / s``
        (Gaussian).
    biases_ : ndarray of shape (n_hidden,)
        Biases ``weight_scale * u_l`` (sigmoid) or widths ``b_l s^2`` (Gaussian),
        again for the standardised input.
    n_features_in_ : int
        Number of input features.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Input feature names, when ``X`` has string column names.

    References
    ----------
    G.-B. Huang, Q.-Y. Zhu and C.-K. Siew, "Extreme learning machine: theory and
    applications", Neurocomputing 70, 2006; Q. Zhang, S. Xia, Y. Liu and J. Zhang,
    "Extreme maximum margin clustering", IEICE Trans. Inf. & Syst. E96-D(8), 2013
    (eq. 7).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import ELMFeatures
    >>> X = np.random.RandomState(0).rand(20, 3)
    >>> ELMFeatures(n_hidden=5, random_state=0).fit_transform(X).shape
    (20, 5)
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ELM_CONSTRAINTS, "random_state": Seed()}

    def __init__(
        self,
        n_hidden: int = 100,
        *,
        activation: str = "sigmoid",
        weight_scale: float = 1.0,
        random_state: Any = None,
    ) -> None:
        self.n_hidden = n_hidden
        self.activation = activation
        self.weight_scale = weight_scale
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None) -> ELMFeatures:
        """Draw the random hidden nodes, scaled to the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (used for the scale of the draw only).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted transformer.
        """
        check_parameters(self, self._parameter_constraints)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32])
        return self._draw(X, *location_scale(X), check_random_state(self.random_state))

    def _draw(
        self, X: Any, mu: npt.NDArray[np.float64], s: float, rng: np.random.RandomState
    ) -> ELMFeatures:
        """Draw the nodes for validated ``X`` of known location ``mu`` and scale ``s``."""
        n, d = X.shape
        L = int(self.n_hidden)
        ws = float(self.weight_scale)
        self.n_features_in_ = d
        if self.activation == "sigmoid":
            W = rng.standard_normal((d, L)) * (ws / np.sqrt(d))
            b = ws * rng.uniform(-1.0, 1.0, size=L)
        else:
            idx = rng.randint(n, size=L)
            centres = self._standardise(X[idx], mu, s, np.float64)
            W = (centres + 0.1 * rng.standard_normal((L, d))).T.copy()
            sub = rng.choice(n, size=min(n, 1000), replace=False)
            d2 = _sq_dists(self._standardise(X[sub], mu, s, np.float64), W)
            m2 = float(np.median(d2))
            if not np.isfinite(m2) or m2 <= 0:
                m2 = float(np.mean(d2)) if np.mean(d2) > 0 else 1.0
            b = np.full(L, 1.0 / (ws**2 * m2))
        self.mean_ = mu
        self.scale_ = s
        self.weights_ = np.ascontiguousarray(W, dtype=np.float64)
        self.biases_ = np.asarray(b, dtype=np.float64)
        return self

    @staticmethod
    def _standardise(X: Any, mu: npt.NDArray[np.float64], s: float, dtype: Any) -> Any:
        """``(X - mu) / s`` as a dense array of ``dtype`` (sparse rows are densified)."""
        if sp.issparse(X):
            X = X.toarray()
        Z = np.asarray(X, dtype=np.float64) - mu
        Z *= 1.0 / s
        return Z.astype(dtype, copy=False)

    def _transform(self, X: Any, dtype: Any = np.float64) -> Any:
        """Hidden-layer outputs of validated ``X`` (no input validation), in ``dtype``.

        The input is standardised first, so a large common offset or an extreme
        scale costs no precision (and float32 works for any finite ``X``).
        Sparse ``X`` is not densified: the centring is folded into the biases.
        """
        W = self.weights_.astype(dtype, copy=False)
        b = self.biases_.astype(dtype, copy=False)
        mu, s = self.mean_, self.scale_
        if sp.issparse(X):
            Xs = (X * (1.0 / s)).astype(dtype)
            if self.activation == "sigmoid":
                shift = ((mu / s) @ self.weights_).astype(dtype)
                return elm_hidden(Xs, W, b - shift, self.activation)
            return elm_hidden(Xs, (self.weights_ + (mu / s)[:, None]).astype(dtype), b, "gaussian")
        return elm_hidden(self._standardise(X, mu, s, dtype), W, b, self.activation)

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Map ``X`` to the hidden layer ``H`` (n_samples x n_hidden).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        H : ndarray of shape (n_samples, n_hidden)
            Hidden-layer outputs, in (0, 1] for both node types.
        """
        check_is_fitted(self)
        X = validate_data(
            self, X, reset=False, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32]
        )
        return self._transform(X)

    @property
    def _n_features_out(self) -> int:
        """Columns of ``transform`` (``get_feature_names_out``: ``elmfeatures0`` ...)."""
        if not hasattr(self, "weights_"):
            raise AttributeError("_n_features_out is set by fit")
        return int(self.weights_.shape[1])

    def __sklearn_tags__(self) -> Tags:  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def location_scale(X: Any, block_rows: int = BLOCK_ROWS) -> tuple[npt.NDArray[np.float64], float]:
    """Feature means and the root-mean-square feature spread of ``X``, free of overflow.

    The spread is accumulated on ``(X - mu) / c`` with ``c`` the largest absolute
    centred value per block, so data near the float64 limits (1e-300, 1e300)
    give a finite, positive scale. Constant data give scale 1. ELM hidden layers
    (:class:`ELMFeatures`, EMMC, IterSVR/IterSVM) draw their nodes in these units.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data (sparse accepted).
    block_rows : int, default=BLOCK_ROWS
        Rows per block of the dense passes (by default the row block of every
        in-memory pass).

    Returns
    -------
    mean : ndarray of shape (n_features,)
        Feature means (float64).
    scale : float
        Root-mean-square centred value over all entries; 1 for constant data.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.feature_maps import location_scale
    >>> location_scale(np.array([[0.0, 2.0], [2.0, 4.0]]))
    (array([1., 3.]), 1.0)
    """
    n, d = X.shape
    if out_of_core(X):  # dense chunks, by passes (no rescue of overflowing sums)
        return _row_backend_location_scale(backend_for(X))
    if sp.issparse(X):
        peak = float(np.max(np.abs(X.data))) if X.nnz else 0.0
        if peak == 0.0:
            return np.zeros(d), 1.0
        mu, var = mean_variance_axis((X * (1.0 / peak)).tocsr(), axis=0)
        s = peak * float(np.sqrt(np.mean(var)))
        mu = np.asarray(mu, dtype=np.float64) * peak
        return mu, (s if np.isfinite(s) and s > 0 else 1.0)
    # block sums in block order: the regrouping a Dask pass over matching chunks uses
    mu = column_mean(X, block_rows)
    if not np.all(np.isfinite(mu)):  # sums beyond 1e308: average the scaled values
        peak = float(np.max(np.abs(X)))
        mu = np.mean(np.asarray(X, dtype=np.float64) / peak, axis=0) * peak
    peak = 0.0
    for start in range(0, n, block_rows):
        block = np.abs(np.asarray(X[start : start + block_rows], dtype=np.float64) - mu)
        peak = max(peak, float(np.max(block)))
    if not np.isfinite(peak) or peak == 0.0:
        return mu, 1.0
    ss = 0.0
    for start in range(0, n, block_rows):
        block = (np.asarray(X[start : start + block_rows], dtype=np.float64) - mu) / peak
        ss += float(np.einsum("ij,ij->", block, block))
    s = peak * float(np.sqrt(ss / (n * d)))
    return mu, (s if np.isfinite(s) and s > 0 else 1.0)


def _peak_block(Xb: Any, mu: npt.NDArray[np.float64]) -> float:
    return max(
        (float(np.max(np.abs(np.asarray(Xb[sl], dtype=np.float64) - mu)))
         for sl in row_slices(Xb.shape[0], BLOCK_ROWS)),
        default=0.0,
    )


def _ss_block(Xb: Any, mu: npt.NDArray[np.float64], peak: float) -> float:
    total = 0.0
    for sl in row_slices(Xb.shape[0], BLOCK_ROWS):
        block = (np.asarray(Xb[sl], dtype=np.float64) - mu) / peak
        total += float(np.einsum("ij,ij->", block, block))
    return total


def _row_backend_location_scale(rows: Any) -> tuple[npt.NDArray[np.float64], float]:
    """:func:`location_scale` of an out-of-core dense X: the same block sums, by passes.

    The mean is the backend's in-order column sums; the largest centred value
    and the scaled sum of squares take one pass each (a chunk is cut into the
    in-memory blocks, so chunks of ``BLOCK_ROWS`` rows give the in-memory numbers).
    """
    n, d = rows.shape
    mu = rows.column_sums() / n
    if not np.all(np.isfinite(mu)):
        raise ValueError(
            "The column sums of X overflow float64; rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    peak = max(rows.partials(_peak_block, mu), default=0.0)
    if not np.isfinite(peak) or peak == 0.0:
        return mu, 1.0
    ss = 0.0
    for part in rows.partials(_ss_block, mu, peak):
        ss += part
    s = peak * float(np.sqrt(ss / (n * d)))
    return mu, (s if np.isfinite(s) and s > 0 else 1.0)


def elm_hidden(X: Any, weights: Any, biases: Any, activation: str) -> Any:
    """Hidden layer ``h(X)`` for given node parameters (no validation).

    The result has the dtype of ``weights`` for dense ``X`` cast to it; pass
    float32 parameters and data for a twice faster, float32 layer.
    """
    if activation == "sigmoid":
        Z = X @ weights
        Z += biases
        return expit(Z, out=Z)
    D2 = _sq_dists(X, weights)
    D2 *= -biases
    return np.exp(D2, out=D2)


def _sq_dists(X: Any, C: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Squared Euclidean distances between rows of ``X`` and columns of ``C`` (clipped at 0)."""
    if sp.issparse(X):
        xx = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        XC = np.asarray(X @ C)
    else:
        X = np.asarray(X, dtype=C.dtype)
        xx = np.einsum("ij,ij->i", X, X)
        XC = X @ C
    cc = np.einsum("ij,ij->j", C, C)
    D2 = XC
    D2 *= -2.0
    D2 += xx[:, None]
    D2 += cc[None, :]
    np.maximum(D2, 0.0, out=D2)
    return D2

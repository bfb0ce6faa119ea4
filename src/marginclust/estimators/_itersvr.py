"""IterSVR and IterSVM: alternating maximum margin clustering (Zhang, Tsang & Kwok 2007/2009).

The model is :mod:`marginclust.objectives._supervised_labels`, the loop
:class:`marginclust.solvers.LabelAlternation`; the supervised fits are
scikit-learn's ``SVR`` / ``LinearSVR`` and ``SVC`` / ``LinearSVC``.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR

from ..base import BaseClusterer, one_cluster_result
from ..feature_maps import location_scale, resolve_gamma
from ..objectives._elm_ridge import resolve_balance_count
from ..objectives._supervised_labels import (
    SupervisedLabelProblem,
    epsilon_insensitive_loss,
    hinge_loss,
    svm_weight_norm_sq,
)
from ..solvers import LabelAlternation, SolverResult
from ..solvers._label_alternation import start_labels
from ..utils import (
    Init,
    MaxIter,
    NClusters,
    OneOf,
    Or,
    PositiveFinite,
    Seed,
    UnitInterval,
    Verbose,
    check_label_init,
    resolve_alias,
)
from ._balance import SIZE_SPREAD_BALANCE

__all__ = ["IterSVM", "IterSVR"]

_INITS = ("k-means", "random")
_INIT_ALIASES = {"kmeans": "k-means"}
_CENTRE_OFFSET = 1e3  # the linear kernel: centre dense X whose offset is this many spreads


def _binary_labels(value: Any, name: str, X: Any, n_clusters: int | None) -> None:
    """An array ``init``: labels 0 or 1 (binary, also when n_clusters=1)."""
    check_label_init(value, X.shape[0], 2)


class _IterBase(BaseClusterer):
    """Shared parameters and prediction of IterSVR / IterSVM (binary)."""

    # labels_ meet the class balance; predict applies the sign rule alone
    _moved_attribute: ClassVar[str | None] = "balance_moved_"
    _accept_sparse: ClassVar[tuple[str, ...]] = ("csr",)
    _regression: ClassVar[bool] = True
    _collapse_advice: ClassVar[str] = "Lower the balance (e.g. 0.03), raise C or use another init."
    # the models see (X - mean) / scale (dense X), for both kernels
    _translation_invariant: ClassVar[bool] = True
    # C multiplies a sum of losses over the samples.
    _n_scaled_params: ClassVar[tuple[str, ...]] = ("C",)
    _parameter_constraints = {
        # binary; n_clusters=1: the trivial one-cluster partition
        "n_clusters": NClusters(1, 2),
        "kernel": OneOf(("linear", "rbf"), "kernel must be 'linear' or 'rbf'; got {value!r}."),
        "C": PositiveFinite(),
        "max_iter": MaxIter(),
        "balance": SIZE_SPREAD_BALANCE,
        "gamma": Or(
            ("scale", "sigma0", "auto"), PositiveFinite(),
            "gamma must be a positive float, 'scale' or 'sigma0'; got {value!r}.",
        ),
        "init": Init(_INITS, _binary_labels, "an array of labels", aliases=tuple(_INIT_ALIASES)),
        "verbose": Verbose(),
        "random_state": Seed(),
    }

    def _setup_on_data(self, X: Any) -> None:
        n = X.shape[0]
        m = self._n_clusters
        self._balance = resolve_balance_count(self.balance, n, m)  # feasible: the table checked
        self._init = resolve_alias(self.init, "init", _INITS, _INIT_ALIASES)

    def _prepare(self, X: Any, **fit_params: Any) -> dict[str, Any]:
        """Once per fit: scale X by one global factor (and centre it, see below), resolve gamma.

        The RBF model with a data-relative gamma is invariant to a translation and a
        uniform rescaling of X, so this changes no result in exact arithmetic; it
        keeps libsvm / liblinear finite on data with a large offset (X + 1e10) or an
        extreme scale (X * 1e150). Sparse X is never centred (its zeros stay zeros),
        so the dense copy of the same data gets the same frame unless centring is
        needed: the RBF kernel's is translation-free (dense X is centred, the width
        rules read the centred spread either way); the linear model's penalised
        intercept is not, so dense X is centred for the linear kernel only when its
        offset dwarfs its spread (``|mean| > 1000 x`` the spread: liblinear's
        precision), where sparse X cannot be.
        """
        mu, s = location_scale(X)
        d = X.shape[1]
        linear = self.kernel == "linear"
        if sp.issparse(X):
            mu = np.zeros(d)
            Xs = (X * (1.0 / s)).tocsr()
        elif linear and not float(np.max(np.abs(mu), initial=0.0)) > _CENTRE_OFFSET * s:
            mu = np.zeros(d)
            Xs = np.asarray(X, dtype=np.float64) / s
        else:
            Xs = (np.asarray(X, dtype=np.float64) - mu) / s
        g = self.gamma
        if isinstance(g, str) and g == "auto":
            gamma = s * s / d
        elif isinstance(g, str) and g == "scale":
            # X / s has unit mean squared centred value: the centred variance is 1
            gamma = 1.0 / d
        elif isinstance(g, str):  # "sigma0": pairwise distances, translation-free
            gamma = resolve_gamma(g, Xs, random_state=getattr(self, "random_state", None))
        else:
            gamma = float(g) * s * s
        self._gamma = gamma
        return {"X": Xs, "mean": mu, "scale": s, "gamma": gamma}

    def _make_model(self, random_state: np.random.RandomState) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        raise NotImplementedError  # pragma: no cover

    def _fit_one(self, context: Any, random_state: np.random.RandomState) -> SolverResult:
        """One restart from the context of :meth:`_prepare` (the base's contract)."""
        X = context["X"]
        n = X.shape[0]
        common = {"x_mean_": context["mean"], "x_scale_": context["scale"]}
        if self._n_clusters == 1:
            return _trivial_result(n, self._balance, common)
        labels0 = start_labels(self._init, X, 2, random_state)
        solver = LabelAlternation(
            max_iter=int(self.max_iter),
            verbose=int(self.verbose),
            name=type(self).__name__,
        )
        problem = SupervisedLabelProblem(
            X, self._make_model, self._regression, self._loss, float(self.C), self._balance,
            self.kernel == "linear", random_state,
        )
        res = solver.solve(problem, labels0)
        model, f = res.info["model"]
        labels = res.x
        message = res.message
        if res.info["stop_reason"] == "cycle":
            message += " Try another C or init."
        x = {
            "labels_": labels,
            "model_": model,
            "balance_": self._balance,
            "stop_reason_": res.info["stop_reason"],
            "init_labels_": labels0,
            "_w_sq": svm_weight_norm_sq(model, f, self.kernel == "linear"),
            **common,
        }
        return replace(res, x=x, message=message, info={})

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """C on a log grid and the RBF width around gamma='scale'."""
        grid: dict[str, list[Any]] = {"C": [0.1, 1.0, 10.0]}
        if self.kernel == "rbf":
            g = resolve_gamma("scale", X)
            grid["gamma"] = [g / 4, g, 4 * g]
        return grid

    def _standardise(self, X: Any) -> Any:
        if sp.issparse(X):
            return (X * (1.0 / self.x_scale_)).tocsr()
        return (np.asarray(X, dtype=np.float64) - self.x_mean_) / self.x_scale_

    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Output of the last supervised fit; positive means cluster 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        f : ndarray of shape (n_samples,)
            Decision values; the sign gives the cluster.
        """
        X = self._validate_predict_data(X)
        return self._decision(X)

    def _decision(self, X: Any) -> npt.NDArray[np.float64]:
        m = self.model_
        if m is None:  # n_clusters=1
            return np.full(X.shape[0], -1.0)
        Xs = self._standardise(X)
        out = m.predict(Xs) if self._regression else m.decision_function(Xs)
        return np.asarray(out, dtype=np.float64).ravel()

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return (self._decision(X) > 0).astype(np.intp)

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the objective on ``X``: ``-(1/2 ||w||^2 + C * loss(f(x), sign f(x)))``.

        Each sample takes the label of :meth:`predict` (no balance constraint for
        new data). Higher is better.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            Minus the objective; higher is better.
        """
        X = self._validate_predict_data(X)
        f = self._decision(X)
        if self.model_ is None:
            return 0.0
        t = np.where(f > 0, 1.0, -1.0)
        return -(0.5 * self._w_sq + float(self.C) * self._loss(f, t))


def _trivial_result(n: int, balance: int, common: dict[str, Any]) -> SolverResult:
    """The one-cluster partition (``n_clusters=1``): nothing to fit."""
    return one_cluster_result(n, {
        "model_": None,
        "balance_": balance,
        "stop_reason_": "converged",
        "init_labels_": np.zeros(n, dtype=np.intp),
        "_w_sq": 0.0,
        **common,
    })


# Rows above which IterSVR's exact RBF SVR at epsilon=0 says what it will cost.
_SLOW_SVR_ROWS = 20_000


class IterSVR(_IterBase):
    """Iterative support vector regression clustering, IterSVR (Zhang, Tsang & Kwok 2007).

    Binary maximum margin clustering by alternation: fit an SVR to the labels
    ``+-1``, relabel by the sign of its output, repair the class balance
    ``|N_+ - N_-| <= l`` by moving the least confident samples, repeat until the
    labels stop changing.

    Parameters
    ----------
    n_clusters : int, default=2
        Must be 2 (a binary method); 1 gives the trivial one-cluster partition.
    kernel : {"linear", "rbf"}, default="rbf"
        ``"linear"`` uses ``LinearSVR``, ``"rbf"`` uses ``SVR``.
    C : float, default=1.0
        SVR trade-off.
    epsilon : float, default=0.0
        Width of the insensitive zone; 0 gives the Laplacian loss of Zhang et al.
    gamma : float or {"scale", "sigma0"}, default="scale"
        RBF width, ``k(x, y) = exp(-gamma ||x - y||^2)`` in the units of ``X``
        (see :func:`marginclust.feature_maps.resolve_gamma`; ``"auto"``, scikit-learn's
        ``1 / n_features``, is still accepted).
    balance : float or int, default=0.03
        Class balance ``l``: a fraction of n_samples or an absolute count (see
        :class:`marginclust.EMMC`).
    init : {"k-means", "random"} or array-like, default="k-means"
        Initial labels: one k-means run on X, uniform random labels, or given
        labels 0/1 (``"kmeans"`` is a deprecated alias of ``"k-means"``).
    max_iter : int, default=50
        Maximum number of alternations.
    verbose : int, default=0
        ``verbose > 0`` prints one line per iteration to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed of the initialisation (and of ``LinearSVR``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster (0 or 1) of each training sample.
    model_ : SVR or LinearSVR
        The last fitted regressor.
    balance_ : int
        Resolved balance ``l``.
    balance_moved_ : ndarray of int
        Training rows whose ``labels_`` differ from ``predict(X_train)``: the rows the
        class-balance repair moved against the sign of the final model's output.
        ``fit_predict`` returns ``labels_`` (balanced); ``predict`` applies the sign
        rule alone, as for any new sample.
    x_mean_ : ndarray of shape (n_features_in_,)
        Feature means subtracted before the supervised fits (zeros for sparse X, and
        for the linear kernel unless the offset dwarfs the spread).
    x_scale_ : float
        The global scale X is divided by (the root-mean-square feature spread), so
        the models see centred data of unit spread: ``C`` and the defaults mean the
        same for any offset and any uniform rescaling of X, and libsvm stays finite
        on ``X + 1e10`` or ``X * 1e150``.
    stop_reason_ : {"converged", "cycle", "max_iter"}
        Why the alternation stopped (:class:`marginclust.solvers.LabelAlternation`).
    init_labels_ : ndarray of shape (n_samples,)
        Initial labels (an initialisation that violates the balance is first
        repaired by the outputs of a fit to it).
    objective_ : float
        ``1/2 ||w||^2 + C sum_i max(0, |f_i - y_i| - epsilon)`` of the last fit.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective of every fit, from the first labelling that meets the balance.
    n_iter_ : int
        Number of fits.
    converged_ : bool
        Whether the labels stopped changing.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.

    References
    ----------
    K. Zhang, I. W. Tsang and J. T. Kwok, "Maximum margin clustering made
    practical", ICML 2007; IEEE Trans. Neural Networks 20(4), 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import IterSVR
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> IterSVR(random_state=0).fit(X).labels_[[0, -1]].tolist() in ([0, 1], [1, 0])
    True
    """

    _regression = True

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str = "rbf",
        C: float = 1.0,
        epsilon: float = 0.0,
        gamma: Any = "scale",
        balance: float | int = 0.03,
        init: Any = "k-means",
        max_iter: int = 50,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.gamma = gamma
        self.balance = balance
        self.init = init
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state

    _parameter_constraints = {**_IterBase._parameter_constraints, "epsilon": UnitInterval()}

    def _setup_on_data(self, X: Any) -> None:
        super()._setup_on_data(X)
        n = X.shape[0]
        if self.kernel == "rbf" and self.epsilon == 0 and n > _SLOW_SVR_ROWS:
            # measured on one core (make_blobs, 10 columns): 7 s at 5,000 rows, 35 s at
            # 10,000, 164 s at 20,000 for one fit; with epsilon=0.1, 0.02 s at 5,000
            warnings.warn(
                f"IterSVR(kernel='rbf', epsilon=0) fits LIBSVM's SVR on all {n:,} rows at "
                "each alternation, and with epsilon=0 nearly every row is a support "
                "vector: one fit grows about as n^2 (measured 35 s at 10,000 rows, "
                f"about {35.0 * (n / 1e4) ** 2 / 60:,.0f} min extrapolated at {n:,}). "
                "kernel='linear', epsilon=0.1 or a sample of the rows is much faster.",
                UserWarning, stacklevel=5,
            )

    def _make_model(self, random_state: np.random.RandomState) -> Any:
        if self.kernel == "linear":
            return LinearSVR(
                C=self.C,
                epsilon=self.epsilon,
                random_state=random_state.randint(2**31 - 1),
                max_iter=10000,
                dual="auto",
            )
        return SVR(kernel="rbf", C=self.C, epsilon=self.epsilon, gamma=self._gamma)

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        return epsilon_insensitive_loss(f, y, float(self.epsilon))


class IterSVM(_IterBase):
    """Iterative SVM clustering, IterSVM (hinge-loss baseline of Zhang, Tsang & Kwok).

    As :class:`IterSVR` but with a hinge-loss SVM (``SVC`` / ``LinearSVC``) fitted
    to the labels; the relabelling uses the sign of its decision function with
    the same balance repair.

    Parameters
    ----------
    n_clusters : int, default=2
        Must be 2 (a binary method); 1 gives the trivial one-cluster partition.
    kernel : {"linear", "rbf"}, default="rbf"
        ``"linear"`` uses ``LinearSVC``, ``"rbf"`` uses ``SVC``.
    C : float, default=1.0
        SVM trade-off.
    gamma : float or {"scale", "sigma0"}, default="scale"
        RBF width (see :class:`IterSVR`).
    balance : float or int, default=0.03
        Class balance ``l`` (see :class:`IterSVR`).
    init : {"k-means", "random"} or array-like, default="k-means"
        Initial labels: one k-means run on X, uniform random labels, or given
        labels 0/1 (``"kmeans"`` is a deprecated alias of ``"k-means"``).
    max_iter : int, default=50
        Maximum number of alternations.
    verbose : int, default=0
        ``verbose > 0`` prints one line per iteration to stderr.
    random_state : int, RandomState instance or None, default=None
        Seed of the initialisation (and of ``LinearSVC``).

    Attributes
    ----------
    model_ : SVC or LinearSVC
        The last fitted classifier.
    objective_ : float
        ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f_i)`` of the last fit.
    labels_, balance_, balance_moved_, x_mean_, x_scale_, stop_reason_, init_labels_, \
objective_history_, n_iter_, converged_, n_features_in_, feature_names_in_
        As in :class:`IterSVR`.

    References
    ----------
    K. Zhang, I. W. Tsang and J. T. Kwok, "Maximum margin clustering made
    practical", ICML 2007 (the hinge-loss variant it argues against); Q. Zhang,
    S. Xia, Y. Liu and J. Zhang, "Extreme maximum margin clustering", IEICE
    Trans. Inf. & Syst. E96-D(8), 2013, Table 3.

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust import IterSVM
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> est = IterSVM(random_state=0).fit(X)
    >>> sorted(np.bincount(est.labels_).tolist()), est.balance_moved_.size
    ([20, 20], 0)
    """

    _regression = False

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        kernel: str = "rbf",
        C: float = 1.0,
        gamma: Any = "scale",
        balance: float | int = 0.03,
        init: Any = "k-means",
        max_iter: int = 50,
        verbose: int = 0,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.balance = balance
        self.init = init
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state

    def _make_model(self, random_state: np.random.RandomState) -> Any:
        if self.kernel == "linear":
            return LinearSVC(C=self.C, random_state=random_state.randint(2**31 - 1), max_iter=10000)
        return SVC(kernel="rbf", C=self.C, gamma=self._gamma)

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        return hinge_loss(f, y)

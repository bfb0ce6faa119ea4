"""IterSVR and IterSVM: alternating maximum margin clustering (Zhang, Tsang & Kwok 2007/2009).

Both alternate a supervised fit on the current labels ``y`` in {-1, +1} with a
relabelling ``y_i = sign(f(x_i))`` under the class balance constraint
``|sum_i y_i| <= l`` (the least confident samples of the larger class are moved,
which is the same as moving the threshold; see
:func:`marginclust.objectives._elm_ridge.repair_balance`). IterSVR fits a
support vector *regression* of the labels (the Laplacian loss ``|y - f|`` with the
default ``epsilon=0``, as in Zhang et al.), IterSVM a hinge-loss SVM, which tends
to reproduce its own labels and stop early (the premature convergence the EMMC
paper's Table 3 shows). The supervised fits are scikit-learn's ``SVR`` /
``LinearSVR`` and ``SVC`` / ``LinearSVC``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR

from ..base import BaseClusterer
from ..objectives._elm_ridge import repair_balance
from ..solvers import SolverResult
from ..utils import check_label_init, check_max_iter, check_positive_finite, check_unit_interval
from ._emmc import initial_labels, resolve_balance

__all__ = ["IterSVM", "IterSVR"]

_INITS = ("kmeans", "random")


class _IterBase(BaseClusterer):
    """Shared loop of IterSVR / IterSVM (binary)."""

    _max_clusters: ClassVar[int] = 2
    _min_clusters: ClassVar[int] = 1  # n_clusters=1: the trivial one-cluster partition
    _accept_sparse: ClassVar[tuple[str, ...]] = ("csr",)
    _regression: ClassVar[bool] = True

    def _check_params(self, X: Any) -> None:
        n = X.shape[0]
        m = self._n_clusters
        if self.kernel not in ("linear", "rbf"):
            raise ValueError(f"kernel must be 'linear' or 'rbf'; got {self.kernel!r}.")
        check_positive_finite(self.C, "C")
        check_max_iter(self.max_iter)
        self._balance = resolve_balance(self.balance, n, m)
        check_label_init(self.init, n, 2, _INITS)  # binary: labels 0 or 1 (also when m = 1)

    def _make_model(self, random_state: np.random.RandomState) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        raise NotImplementedError  # pragma: no cover

    def _w_norm_sq(self, model: Any, f: npt.NDArray[np.float64]) -> float:
        """``||w||^2`` of the fitted model; kernel case via ``a^T K a = a^T (f_SV - b)``."""
        if self.kernel == "linear":
            return float(np.sum(np.asarray(model.coef_) ** 2))
        a = model.dual_coef_
        a = (a.toarray() if hasattr(a, "toarray") else np.asarray(a)).ravel()
        b = float(np.asarray(model.intercept_).ravel()[0])
        return float(a @ (f[model.support_] - b))

    def _fit_one(self, X: Any, random_state: np.random.RandomState, **_: Any) -> SolverResult:
        n = X.shape[0]
        if self._n_clusters == 1:
            return _trivial_result(n, self._balance)
        labels = initial_labels(self.init, X, 2, None, random_state)
        if np.unique(labels).size < 2:
            labels, _ = repair_balance(labels, np.zeros(n), 2, self._balance, "binary")
        init_labels = labels
        seen = {labels.tobytes()}
        history: list[float] = []
        converged = False
        stop_reason = "max_iter"
        model = None
        for it in range(1, int(self.max_iter) + 1):  # noqa: B007 (used after the loop)
            y = np.where(labels == 1, 1.0, -1.0)
            model = self._make_model(random_state)
            model.fit(X, y if self._regression else labels)
            f = np.asarray(
                model.predict(X) if self._regression else model.decision_function(X),
                dtype=np.float64,
            ).ravel()
            history.append(0.5 * self._w_norm_sq(model, f) + float(self.C) * self._loss(f, y))
            new = (f > 0).astype(np.intp)
            new, _ = repair_balance(new, f, 2, self._balance, "binary")
            if np.array_equal(new, labels):
                converged, stop_reason = True, "converged"
                break
            key = new.tobytes()
            if key in seen:
                stop_reason = "cycle"
                break
            seen.add(key)
            labels = new
        message = ""
        if stop_reason == "cycle":
            message = (
                f"{type(self).__name__}'s relabelling returned to an earlier labeling (a "
                f"cycle); stopped after {it} iterations. Try another C or init."
            )
        x = {
            "labels_": labels,
            "model_": model,
            "balance_": self._balance,
            "stop_reason_": stop_reason,
            "init_labels_": init_labels,
        }
        return SolverResult(
            x=x,
            objective=history[-1],
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            message=message,
        )

    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Output of the last supervised fit; positive means cluster 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        f : ndarray of shape (n_samples,)
        """
        X = self._validate_predict_data(X)
        return self._decision(X)

    def _decision(self, X: Any) -> npt.NDArray[np.float64]:
        m = self.model_
        if m is None:  # n_clusters=1
            return np.full(X.shape[0], -1.0)
        out = m.predict(X) if self._regression else m.decision_function(X)
        return np.asarray(out, dtype=np.float64).ravel()

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return (self._decision(X) > 0).astype(np.intp)


def _trivial_result(n: int, balance: int) -> SolverResult:
    """The one-cluster partition (``n_clusters=1``): nothing to fit."""
    x = {
        "labels_": np.zeros(n, dtype=np.intp),
        "model_": None,
        "balance_": balance,
        "stop_reason_": "converged",
        "init_labels_": np.zeros(n, dtype=np.intp),
    }
    return SolverResult(x=x, objective=0.0, objective_history=np.zeros(1), n_iter=1, converged=True)


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
    gamma : {"scale", "auto"} or float, default="scale"
        RBF width (as in ``SVR``).
    balance : float or int, default=0.03
        Class balance ``l``: a fraction of n_samples or an absolute count (see
        :class:`marginclust.EMMC`).
    init : {"kmeans", "random"} or array-like, default="kmeans"
        Initial labels.
    max_iter : int, default=50
        Maximum number of alternations.
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
    stop_reason_ : {"converged", "cycle", "max_iter"}
        Why the alternation stopped.
    init_labels_ : ndarray of shape (n_samples,)
        Initial labels.
    objective_ : float
        ``1/2 ||w||^2 + C sum_i max(0, |f_i - y_i| - epsilon)`` of the last fit.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective of every fit.
    n_iter_ : int
        Number of fits.
    converged_ : bool
        Whether the labels stopped changing.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.

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
        init: Any = "kmeans",
        max_iter: int = 50,
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
        self.random_state = random_state

    def _check_params(self, X: Any) -> None:
        super()._check_params(X)
        check_unit_interval(self.epsilon, "epsilon")

    def _make_model(self, random_state: np.random.RandomState) -> Any:
        if self.kernel == "linear":
            return LinearSVR(
                C=self.C,
                epsilon=self.epsilon,
                random_state=random_state.randint(2**31 - 1),
                max_iter=10000,
                dual="auto",
            )
        return SVR(kernel="rbf", C=self.C, epsilon=self.epsilon, gamma=self.gamma)

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        return float(np.sum(np.maximum(np.abs(f - y) - self.epsilon, 0.0)))


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
    gamma : {"scale", "auto"} or float, default="scale"
        RBF width (as in ``SVC``).
    balance : float or int, default=0.03
        Class balance ``l`` (see :class:`IterSVR`).
    init : {"kmeans", "random"} or array-like, default="kmeans"
        Initial labels.
    max_iter : int, default=50
        Maximum number of alternations.
    random_state : int, RandomState instance or None, default=None
        Seed of the initialisation (and of ``LinearSVC``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster (0 or 1) of each training sample.
    model_ : SVC or LinearSVC
        The last fitted classifier.
    balance_ : int
        Resolved balance ``l``.
    stop_reason_ : {"converged", "cycle", "max_iter"}
        Why the alternation stopped.
    init_labels_ : ndarray of shape (n_samples,)
        Initial labels.
    objective_ : float
        ``1/2 ||w||^2 + C sum_i max(0, 1 - y_i f_i)`` of the last fit.
    objective_history_ : ndarray of shape (n_iter_,)
        Objective of every fit.
    n_iter_ : int
        Number of fits.
    converged_ : bool
        Whether the labels stopped changing.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.
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
        init: Any = "kmeans",
        max_iter: int = 50,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.balance = balance
        self.init = init
        self.max_iter = max_iter
        self.random_state = random_state

    def _make_model(self, random_state: np.random.RandomState) -> Any:
        if self.kernel == "linear":
            return LinearSVC(C=self.C, random_state=random_state.randint(2**31 - 1), max_iter=10000)
        return SVC(kernel="rbf", C=self.C, gamma=self.gamma)

    def _loss(self, f: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
        return float(np.sum(np.maximum(1.0 - y * f, 0.0)))

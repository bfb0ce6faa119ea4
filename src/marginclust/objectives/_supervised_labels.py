"""Maths of IterSVR / IterSVM (Zhang, Tsang & Kwok 2007/2009): a supervised fit as the model step.

Labels ``y`` in {-1, +1} under the binary class balance ``|sum_i y_i| <= l``; the
model step fits a supervised machine ``f`` to ``y`` (an SVR for the Laplacian /
epsilon-insensitive loss, an SVM for the hinge loss); the label step is
``y_i = sign f(x_i)`` followed by the balance repair of
:func:`~._elm_ridge.repair_balance` (exact for both losses: the cost of moving a
sample grows with its output's distance to the boundary). The objective is
``1/2 ||w||^2 + C sum_i loss(f_i, y_i)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ._elm_ridge import is_balanced, repair_balance

__all__ = [
    "SupervisedLabelProblem",
    "epsilon_insensitive_loss",
    "hinge_loss",
    "svm_weight_norm_sq",
]

Array = npt.NDArray[np.float64]


def epsilon_insensitive_loss(f: Array, y: Array, epsilon: float) -> float:
    """``sum_i max(0, |f_i - y_i| - epsilon)`` (the Laplacian loss at ``epsilon = 0``)."""
    return float(np.sum(np.maximum(np.abs(f - y) - epsilon, 0.0)))


def hinge_loss(f: Array, y: Array) -> float:
    """``sum_i max(0, 1 - y_i f_i)``."""
    return float(np.sum(np.maximum(1.0 - y * f, 0.0)))


def svm_weight_norm_sq(model: Any, f: Array, linear: bool) -> float:
    """``||w||^2`` of a fitted scikit-learn SVM / SVR with training outputs ``f``.

    Linear machines: ``||coef_||^2``; kernel machines: ``a^T K a = a^T (f_SV - b)``.
    """
    if linear:
        return float(np.sum(np.asarray(model.coef_) ** 2))
    a = model.dual_coef_
    a = (a.toarray() if hasattr(a, "toarray") else np.asarray(a)).ravel()
    b = float(np.asarray(model.intercept_).ravel()[0])
    return float(a @ (f[model.support_] - b))


class SupervisedLabelProblem:
    """Binary label alternation with a supervised machine, for
    :class:`marginclust.solvers.LabelAlternation`.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Training data as the machine sees it.
    make_model : callable
        ``make_model(random_state)`` returns an unfitted scikit-learn estimator.
    regression : bool
        Fit ``+-1`` targets and use ``predict`` (SVR), or fit 0/1 classes and use
        ``decision_function`` (SVM).
    loss : callable
        ``loss(f, y)``, summed over the samples.
    C : float
        Weight of the loss.
    balance : int
        Largest allowed ``|N_+ - N_-|``.
    linear : bool
        Linear machine (``coef_``) or kernel machine (``dual_coef_``).
    random_state : RandomState
        Passed to ``make_model`` at every fit.
    """

    def __init__(
        self,
        X: Any,
        make_model: Callable[[np.random.RandomState], Any],
        regression: bool,
        loss: Callable[[Array, Array], float],
        C: float,
        balance: int,
        linear: bool,
        random_state: np.random.RandomState,
    ) -> None:
        self.X, self.make_model, self.regression = X, make_model, regression
        self.loss, self.C, self.balance, self.linear = loss, C, balance, linear
        self.random_state = random_state
        self.n = X.shape[0]

    def fit_labels(self, labels: npt.NDArray[np.intp]) -> tuple[Any, Array]:
        """Fit the machine to the labels; its outputs on the training data."""
        if np.unique(labels).size < 2:
            # a one-class start: no model to fit; the repair then splits it by index
            return None, np.zeros(self.n)
        y = np.where(labels == 1, 1.0, -1.0)
        model = self.make_model(self.random_state)
        model.fit(self.X, y if self.regression else labels)
        out = model.predict(self.X) if self.regression else model.decision_function(self.X)
        return model, np.asarray(out, dtype=np.float64).ravel()

    def weight_norm_sq(self, model: Any, f: Array) -> float:
        """``||w||^2`` of a fitted machine (see :func:`svm_weight_norm_sq`)."""
        return svm_weight_norm_sq(model, f, self.linear)

    def objective(self, model: tuple[Any, Array], labels: Any) -> float:
        """``1/2 ||w||^2 + C * loss(f, y)``."""
        m, f = model
        y = np.where(labels == 1, 1.0, -1.0)
        return 0.5 * self.weight_norm_sq(m, f) + self.C * self.loss(f, y)

    def assign(self, model: tuple[Any, Array]) -> npt.NDArray[np.intp]:
        """The sign rule: label 1 where ``f > 0``."""
        return (model[1] > 0).astype(np.intp)

    def repair(self, labels: Any, model: tuple[Any, Array]) -> Any:
        """The binary balance repair by the outputs."""
        return repair_balance(labels, model[1], 2, self.balance, "binary")[0]

    def is_feasible(self, labels: Any) -> bool:
        """Whether the labels meet the balance."""
        return is_balanced(labels, 2, self.balance)

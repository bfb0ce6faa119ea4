"""Shared parts of the linear maximum margin clusterers (BMMC, CPMMC).

One home for what both estimators do the same way: the once-per-fit context
(validated pairs, the data wrapper with its mean and scale, the objective), the
fitted attributes of a solved linear model, and the prediction side
(``decision_function``, ``predict``, ``transform``, ``score``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..base import BaseClusterer, ClusterTransformerMixin, one_cluster_result
from ..exceptions import EmptyClusterError
from ..objectives._constraints import (
    PairSet,
    closed_pairs,
    make_pairs,
    resolve_balance,
)
from ..objectives._mmc import LinearData, MMCObjective, true_margin_loss
from ..objectives._mmc_scores import labels_from_scores, linear_scores
from ..objectives._pairs import PAIR_LOSSES, honour_pairs, two_outputs
from ..solvers._result import SolverResult
from ..starts._kmeans import kmeans_start_states
from ..starts._linear import initial_labels
from ..starts._margin_search import partition_margin
from ..starts._margin_start import margin_search_start
from ..utils import (
    Check,
    Constraint,
    Init,
    MaxIter,
    OneOf,
    Or,
    PositiveFinite,
    Seed,
    Verbose,
    check_finite_scale,
    check_label_init,
    label_init,
    resolve_alias,
)
from ..utils._blocks import backend_for, out_of_core
from ..utils._reporting import report
from ._balance import MEAN_OUTPUT_BALANCE

__all__ = [
    "AUTO_C",
    "INITS",
    "INIT_ALIASES",
    "MMC_CONSTRAINTS",
    "LinearMMCBase",
    "MMCContext",
    "labels_from_scores",
    "linear_result",
    "linear_scores",
    "one_cluster_model",
]

INITS = ("auto", "k-means", "pca", "max-margin")
INIT_ALIASES = {"kmeans": "k-means"}
QPS = ("auto", "active-set", "ipm", "clarabel")

# C="auto": the values fitted, in order of preference on a tie of the judge. 10 keeps
# well-separated clusters apart (at 1 the weight norm outweighs the margin and two of
# four separated blobs merge); 1 is the papers' default, whose partition is often the
# better separated one on real data (measured: benchmarks/results/defaults_battery.md).
AUTO_C = (10.0, 1.0)
# Rows on which the partitions of C="auto" are judged (exact neighbours: a few thousand).
_JUDGE_ROWS = 2000



# The parameters BMMC and CPMMC share, last in their tables.
def _size_floor(value: Any, name: str) -> Any:
    """``"auto"``, a float in [0, 1] (a fraction of ``n / n_clusters``) or an int >= 0."""
    message = f"{name} must be 'auto', a float in [0, 1] or an int >= 0; got {value!r}."
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(message)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(message)
    if not np.isfinite(value) or value < 0 or (
        isinstance(value, float | np.floating) and value > 1.0
    ):
        raise ValueError(message)
    return value


MMC_CONSTRAINTS: dict[str, Constraint] = {
    "C": Or(("auto",), PositiveFinite(), "C must be 'auto' or a positive float; got {value!r}."),
    "balance": MEAN_OUTPUT_BALANCE,
    "min_cluster_size": Check(_size_floor, invalid=("half", -1, 1.5)),
    "qp": OneOf(QPS, "qp must be 'auto', 'active-set', 'ipm' or 'clarabel'; got {value!r}."),
    "init": Init(INITS, label_init, "an array of labels", aliases=tuple(INIT_ALIASES)),
    "pair_loss": OneOf(PAIR_LOSSES, "pair_loss must be 'margin' or 'paper'; got {value!r}."),
    "n_init": MaxIter(),
    "random_state": Seed(),
    "verbose": Verbose(),
}


@dataclass
class _JudgeSample:
    """C="auto": the ``random_state`` the judged rows are drawn from, and the rows
    (drawn once, by the first fit's ``_prepare``, after its parameter checks:
    ``(rows, their indices)``)."""

    random_state: Any
    sample: Any = None


@dataclass
class MMCContext:
    """Once-per-fit state shared by the restarts of a linear MMC fit."""

    X: Any
    init: Any
    pairs: PairSet
    objective: MMCObjective | None  # None for n_clusters=1


def one_cluster_model(X: Any, extra: dict[str, Any]) -> SolverResult:
    """The one-cluster partition (``n_clusters=1``): ``w = 0, b = -1``, nothing to fit."""
    model = {"coef_": np.zeros((1, X.shape[1])), "intercept_": np.array([-1.0]),
             "data_scale_": 1.0, "_pair_rows": np.zeros(0, dtype=np.intp), **extra}
    return one_cluster_result(X.shape[0], model, n_iter=0)


def linear_result(
    obj: MMCObjective, res: SolverResult, extra: dict[str, Any], message: str
) -> SolverResult:
    """Fitted attributes of a solved linear MMC in the data's units, and the cluster sizes.

    The solver's ``W`` acts on ``(x - xbar) / scale``; ``coef_ = W / scale`` and
    ``intercept_ = t - coef_ xbar``. In memory the labels are the argmax of the
    training scores, except on the rows the floor on the cluster sizes moved
    (``size_moved_``: the labelling the objective was minimised over) and on the
    rows of must-link / cannot-link pairs, whose labels keep every must-link and
    repair cannot-links (:func:`~marginclust.objectives._pairs.honour_pairs`: a
    must-link component takes its best shared cluster; ``pairs_moved_``). The base
    class lists the rows where they differ from ``predict``. Out of core (no floor,
    no pairs) ``labels_`` is the final assignment step of the base class and the
    sizes come from one blockwise pass. ``extra`` holds the solver's own fitted
    attributes; ``message`` is used only when the solver did not converge.
    """
    W, t = res.x
    t = obj.balance.normalise(t)
    data = obj.data
    coef = W / data.scale
    b = t - coef @ data.xbar
    info: dict[str, Any] = {}
    labels: Any = None  # out of core: the base class's final assignment step
    pair_rows = np.zeros(0, dtype=np.intp)
    if not out_of_core(data.blocks):  # the scores of every row at once: the pairs' labels
        labels = labels_from_scores(linear_scores(data.X, coef, b))
        if obj.multiclass and obj.min_size > 0:
            labels = obj.labels(res.x)  # the labelling the objective was minimised over
        closure = obj.pairs.closure if obj.pairs is not None else None
        if closure is not None:  # the pairs are facts about these rows: their labels keep them
            F = linear_scores(data.X[closure.rows], coef, b)
            F = two_outputs(F) if F.ndim == 1 else F
            labels[closure.rows] = honour_pairs(F, closure.component, closure.cannot)
            pair_rows = np.asarray(closure.rows, dtype=np.intp)
    else:  # out-of-core backend: sizes from the last blockwise pass
        info["cluster_sizes"] = np.asarray(obj.cluster_sizes(res.x), dtype=np.intp)
    x = {
        "labels_": labels,
        "coef_": coef,
        "intercept_": b,
        "data_scale_": data.scale,
        "_pair_rows": pair_rows,
    }
    x.update(extra)
    return SolverResult(
        x=x,
        objective=res.objective,
        objective_history=res.objective_history,
        n_iter=res.n_iter,
        converged=res.converged,
        message="" if res.converged else message,
        info=info,
    )


class LinearMMCBase(ClusterTransformerMixin, BaseClusterer):
    """Validation, per-fit preparation and prediction shared by BMMC and CPMMC."""

    _accept_sparse: ClassVar[bool | tuple[str, ...]] = ("csr", "csc", "coo")
    _out_of_core: ClassVar[bool] = True  # without pairs every pass is a row-block pass
    # labels_ keep the floor on the cluster sizes (size_moved_) and the pairs
    # (pairs_moved_: rows of pairs); see _set_moved
    _moved_attribute: ClassVar[str | None] = "size_moved_"
    # Measured (glass, segmentation; raw and standardised; seeds 0, 1): C=10 finds
    # more non-empty clusters than C=1 in 3 of 4 cases, C=0.1 fewer; standardising
    # helps on glass. Re-seeding an emptied cluster and solving again did not help
    # (the cluster emptied again in every case), so no recovery is attempted.
    _collapse_advice: ClassVar[str] = (
        "This linear method has no kernel: keep min_cluster_size='auto' (a floor on the "
        "cluster sizes; in memory, multiclass), raise C (e.g. C=10; a small C lets an "
        "empty cluster save weight norm) or standardise the features "
        "(sklearn.preprocessing.StandardScaler), or ask for fewer clusters."
    )

    # C weighs the MEAN loss and balance (a float) is a fraction of n: nothing scales
    # with n (an int balance is absolute and would; the label-free grid uses floats).
    _n_scaled_params: ClassVar[tuple[str, ...]] = ()

    # fitted attributes
    coef_: Any
    intercept_: Any
    # attributes a subclass provides
    C: float | str
    balance: int | float
    min_cluster_size: Any
    init: Any
    qp: str
    pair_loss: str
    C_pairs: float

    def _min_size(self, obj: Any, labels0: Any, n: int) -> int:
        """The floor on the cluster sizes for this restart (0: the paper's model).

        Pairs turn it off: their rows' labels are set by the pairs, which may ask
        for a small cluster.
        """
        k = self._n_clusters
        if k <= 2 or obj.pairs is not None:
            return 0
        v = self.min_cluster_size
        if isinstance(v, str):  # "auto": half the smallest cluster of the start
            counts = np.bincount(np.asarray(labels0, dtype=np.intp), minlength=k)
            return int(np.ceil(0.5 * counts.min()))
        if isinstance(v, float | np.floating):
            return int(np.ceil(float(v) * n / k))
        return int(v)

    def _label_free_grid(self, X: Any) -> dict[str, list[Any]]:
        """C around the default (a mean loss in standardised units) and the balance bound.

        C and the balance are scale free (the data are divided by their root mean
        feature variance, the loss is a mean over samples, the balance a fraction
        of ``n``), so the grid does not depend on ``X``.
        """
        return {"C": [0.1, 1.0, 10.0, 100.0], "balance": [0.03, 0.1, 0.3]}

    def fit(
        self, X: Any, y: Any = None, *, must_link: Any = None, cannot_link: Any = None
    ) -> Any:
        """Fit the clustering to ``X``, optionally with pairwise constraints.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency by convention.
        must_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should share a cluster.
        cannot_link : array-like of shape (n_pairs, 2), default=None
            Index pairs that should be in different clusters.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, must_link=must_link, cannot_link=cannot_link)

    # ------------------------------------------------------------ C="auto"
    def _fit(self, X: Any, **fit_params: Any) -> Any:
        """One fit at the given ``C``; under ``C="auto"`` one clone per :data:`AUTO_C`, judged.

        The clones of ``C="auto"`` share everything but ``C`` (the seeds of their
        starts included: they share ``random_state`` itself), and the one whose
        ``labels_`` have the larger voting margin on a sample of rows
        (:func:`partition_margin`, the judge of :class:`~marginclust.MaxMarginClustering`)
        is kept: its fitted attributes are copied here and its warnings re-issued;
        the other's are dropped. With must-link / cannot-link pairs the judge, which
        knows nothing of them, is not used, and with one cluster there is nothing to
        judge: the one fit is at ``AUTO_C[0]``.
        """
        auto = isinstance(self.C, str) and self.C == "auto"
        if not auto:
            super()._fit(X, **fit_params)
            self.C_ = float(self.C)
            self.__dict__.pop("C_scores_", None)  # a former C="auto" fit's
            return self
        pairs = fit_params.get("must_link") is not None or fit_params.get(
            "cannot_link") is not None
        one = isinstance(self.n_clusters, Integral) and self.n_clusters == 1
        if pairs or one:
            self._adopt(*self._fit_at(AUTO_C[0], X, fit_params))
            self.C_ = AUTO_C[0]
            self.__dict__.pop("C_scores_", None)
            return self
        # one sample for every fit, drawn in the first fit's _prepare from this stream
        judge = _JudgeSample(getattr(self, "random_state", None))
        best: tuple[float, float, tuple[LinearMMCBase, set[str]], list[Any]] | None = None
        scores: dict[float, float] = {}
        error: EmptyClusterError | None = None
        for c in AUTO_C:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    est, unfitted = self._fit_at(c, X, {**fit_params, "judge": judge})
                except EmptyClusterError as exc:
                    error = exc
                    continue
            Xs, idx = judge.sample
            labels = np.asarray(est.labels_[idx], dtype=np.intp)  # lazy out of core
            score = partition_margin(Xs, labels, est._n_clusters)
            scores[c] = score
            report(getattr(self, "verbose", 0), "%s C=%g: voting margin %.4f",
                   type(self).__name__, c, score)
            if best is None or score > best[1]:
                best = (c, score, (est, unfitted), list(caught))
        if best is None:
            assert error is not None
            raise error
        c, _, fitted, caught = best
        self._adopt(*fitted)
        self.C_ = c
        self.C_scores_ = scores
        for w in caught:  # the kept fit's warnings only
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return self

    def _fit_at(
        self, c: float, X: Any, fit_params: dict[str, Any]
    ) -> tuple[LinearMMCBase, set[str]]:
        """A clone of this estimator with ``C=c`` (and this very ``random_state``, whose
        stream the fits share), fitted; and the names it had before its fit (its
        parameters and configuration)."""
        est = clone(self).set_params(C=c, random_state=self.random_state)
        unfitted = set(vars(est))
        BaseClusterer._fit(est, X, **fit_params)
        return est, unfitted

    def _adopt(self, est: LinearMMCBase, unfitted: set[str]) -> None:
        """Take the state ``est``'s fit set (fitted attributes, public and private), as a
        fit on this estimator would have set it (what else it holds is kept)."""
        for name, value in vars(est).items():
            if name not in unfitted:
                setattr(self, name, value)

    def _prepare(self, X: Any, **fit_params: Any) -> MMCContext:
        judge = fit_params.get("judge")
        if judge is not None and judge.sample is None:
            # C="auto": the rows every fit is judged on, drawn once
            # (COO has no rows to index: the sample's rows are taken from CSR)
            rows = backend_for(X.tocsr() if sp.issparse(X) and X.format == "coo" else X)
            judge.sample = rows.sample(_JUDGE_ROWS, check_random_state(judge.random_state))
        return self._make_context(
            X,
            fit_params.get("must_link"),
            fit_params.get("cannot_link"),
            C_pairs=float(self.C_pairs),
        )

    def _make_context(
        self,
        X: Any,
        must_link: Any = None,
        cannot_link: Any = None,
        C_pairs: float = 0.0,
        blocks: Any = None,
    ) -> MMCContext:
        """Once per fit: check the scale, validate pairs, build the data wrapper and objective.

        ``blocks``: the row-block backend of :class:`LinearData` (None: ``X`` itself
        when it is an out-of-core backend, else ``X`` in memory).
        """
        check_finite_scale(X)
        n = X.shape[0]
        pairs = make_pairs(must_link, cannot_link, n, self._n_clusters)  # whatever K is
        init = resolve_alias(self.init, "init", INITS, INIT_ALIASES)
        if out_of_core(X):  # what needs rows together is refused
            blocks = X
            name = type(self).__name__
            if pairs is not None and pairs.size:
                raise ValueError(
                    f"Out of core, {name} does not take must_link / cannot_link (the pair "
                    f"terms need the pairs' rows together); fit {name} in memory for "
                    "constrained clustering."
                )
            if isinstance(init, str) and init in ("pca", "max-margin"):
                raise ValueError(
                    f"Out of core, {name} starts from init='k-means' (on a sample) or given "
                    f"labels; init={init!r} is in-memory only."
                )
        if isinstance(init, str) and init == "max-margin" and sp.issparse(X):
            raise ValueError(
                "init='max-margin' needs dense X (the margin search's candidates do); "
                "got a sparse matrix. Use init='k-means' or pass X.toarray()."
            )
        if not isinstance(init, str):
            init = check_label_init(init, n, self._n_clusters)
        if self._n_clusters == 1:
            return MMCContext(X, init, pairs, None)
        data = LinearData(X, scale="auto", blocks=blocks)
        if X.dtype == np.float32 and data.sum_sq >= float(np.finfo(np.float32).max):
            raise ValueError(
                f"X (float32) has squared norms up to {data.sum_sq:.3g}, beyond float32's range "
                "(K-means would overflow). Rescale your features (e.g. "
                "sklearn.preprocessing.StandardScaler) or pass float64 data."
            )
        bound = resolve_balance(self.balance, n) / n
        if pairs.closure is not None:
            # the pairs fix the side of their r rows: each, at the margin (|f| = 1), may
            # move a mean score by 1/n, so the balance prior gives way by r / n
            bound += pairs.closure.rows.size / n
        obj = MMCObjective(
            X,
            self._n_clusters,
            float(self.C),
            bound,
            C_pairs=float(C_pairs),
            pairs=closed_pairs(pairs, X),
            data=data,
            pair_loss=self.pair_loss,
        )
        return MMCContext(X, init, pairs, obj)

    def _start(
        self, context: MMCContext, obj: MMCObjective, random_state: np.random.RandomState,
        pairs: Any = None,
    ) -> Any:
        """The start's labels: an array in memory, per-block labels out of core.

        Out of core a named init is k-means on a sample of rows (each block's
        labels its nearest centre, :func:`~marginclust.starts._kmeans.kmeans_start_states`).
        """
        blocks = obj.data.blocks
        if out_of_core(blocks):  # k-means on a sample, or the given labels split by block
            if isinstance(context.init, str):
                return kmeans_start_states(blocks, self._n_clusters, random_state)
            return blocks.split(np.asarray(context.init, dtype=np.intp))
        if isinstance(context.init, str) and context.init == "max-margin":
            return margin_search_start(np.asarray(context.X, dtype=np.float64),
                                       self._n_clusters, random_state)
        return initial_labels(
            context.X, self._n_clusters, context.init, random_state, obj.data, pairs
        )

    # ---------------------------------------------------------- prediction
    def decision_function(self, X: Any) -> npt.NDArray[np.float64]:
        """Scores ``f(x) = w.x + b`` (binary, shape (n,)) or ``W x + b`` (shape (n, n_clusters)).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_clusters)
            Signed distances to the separating hyperplane(s).
        """
        X = self._validate_predict_data(X)
        return linear_scores(X, self.coef_, self.intercept_)

    def transform(self, X: Any) -> npt.NDArray[np.float64]:
        """Decision values per cluster, shape (n_samples, n_clusters); the label is the argmax.

        Multiclass: ``W x + b``. Binary: ``(-f/2, f/2)`` (the two-output scores
        of the equivalent multiclass model, ``f = f_1 - f_0``). One cluster: zeros.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_clusters)
            One decision value per cluster.
        """
        F = self.decision_function(X)
        if self._n_clusters == 1:
            return np.zeros((F.shape[0], 1))
        if F.ndim == 1:
            return np.column_stack([-0.5 * F, 0.5 * F])
        return F

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the MMC objective on ``X`` at the fitted weights (higher is better).

        ``-(1/2 ||W||^2 + C * mean margin loss on X)`` with ``W`` in the
        standardised units of the fit (``coef_ * data_scale_``), the same
        objective as ``objective_`` without the pair term and the balance
        constraint.

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
        F = self.decision_function(X)
        if self._n_clusters == 1:
            return 0.0
        W = self.coef_ * self.data_scale_
        loss = true_margin_loss(F.reshape(F.shape[0], -1))
        return -float(0.5 * np.vdot(W, W) + self.C_ * loss)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        return labels_from_scores(linear_scores(X, self.coef_, self.intercept_))

    def _set_moved(self, moved: npt.NDArray[np.intp]) -> None:
        """Rows where ``labels_`` differs from ``predict``: on a pair's row the pairs
        moved it (``pairs_moved_``), elsewhere the floor on the cluster sizes
        (``size_moved_``)."""
        moved = np.asarray(moved, dtype=np.intp)
        on_pair = np.isin(moved, self._pair_rows)
        self.size_moved_ = moved[~on_pair]
        self.pairs_moved_ = moved[on_pair]

    def _permute_clusters(self, order: npt.NDArray[np.intp]) -> None:
        """One score per cluster: its rows; one score (``f >= 0``: cluster 1): its sign."""
        if self.coef_.shape[0] == order.size:
            self.coef_, self.intercept_ = self.coef_[order], self.intercept_[order]
        elif order[0] == 1:
            self.coef_, self.intercept_ = -self.coef_, -self.intercept_

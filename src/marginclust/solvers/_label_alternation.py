"""Label alternation: a supervised fit on the current labels, then an optimal relabelling.

Many hard clustering methods minimise ``J(t, theta)`` over discrete labels ``t``
(possibly under a constraint such as class balance) and model parameters
``theta`` by alternating the two exact block minimisations:

1. ``theta <- argmin_theta J(t, theta)``: a supervised fit to the labels
   (a ridge regression, an SVM, one one-class SVM per cluster, ...);
2. ``t <- argmin_{t feasible} J(t, theta)``: the unconstrained best label of
   every sample (``assign``) followed by a repair that makes the labelling
   feasible (``repair``; the identity when there is no constraint).

:class:`LabelAlternation` runs that loop until the labels stop changing (at most
``tol * n`` changes), a labelling comes back (a cycle: the repair of a greedy
multi-class constraint can oscillate), or ``max_iter`` fits. When both steps are
exact minimisers over the same feasible set, ``J`` evaluated after every fit is
non-increasing **provided the labels it starts from are feasible**: a start that
violates the constraint can have a lower ``J`` than any feasible labelling. The
solver therefore first repairs an infeasible start with the outputs of a fit to
it, and records ``objective_history`` from the first feasible labelling on.

The problem object provides (a solver never names an estimator):

- ``fit_labels(labels) -> model``: the supervised step;
- ``objective(model, labels) -> float``: ``J(labels, model)``;
- ``assign(model) -> labels``: the unconstrained relabelling;
- ``repair(labels, model) -> labels``: a feasible labelling close to ``labels``,
  ranked by the model's outputs;
- ``is_feasible(labels) -> bool``.

An out-of-core problem whose labels stay beside the data blocks passes opaque
label handles and adds ``n_samples``, ``count_changed(new, old) -> int`` and
``label_key(labels) -> hashable`` (the loop then never touches the labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..utils._blocks import BLOCK_ROWS, sample_row_indices
from ..utils._reporting import report
from ..utils._scaled_kmeans import ScaledKMeans, power_of_two_scale
from ._base import Callback, IterativeSolver
from ._result import SolverResult

__all__ = ["LabelAlternation", "kmeans_labels", "kmeans_on_sample", "seeding_dims"]

IntArray = npt.NDArray[np.intp]


@dataclass
class LabelAlternation(IterativeSolver):
    """Alternate ``fit_labels`` and ``repair(assign(.))`` until the labels settle.

    ``solve(problem, labels0, *, callback=None)`` runs from the initial labels
    (need not be feasible). Its result's ``x`` is the labels the final model
    was fitted to and ``info`` holds ``model`` (the last fit), ``stop_reason``
    (``"converged"``, ``"cycle"``, ``"max_iter"`` or ``"callback"``),
    ``start_labels`` (the first feasible labelling), ``start_repaired`` and
    ``n_changed`` (labels changed by the last relabelling).

    Parameters
    ----------
    max_iter : int, default=50
        Maximum number of supervised fits (the length of ``objective_history``).
    tol : float, default=0.0
        Stop (converged) when at most ``tol * n_samples`` labels change.
    verbose : int, default=0
        ``verbose > 0`` prints one line per iteration to stderr.
    name : str, default="Label alternation"
        How messages name the method.

    Examples
    --------
    A toy problem: labels are thresholds of a 1-d score, the "model" is the two
    class means (k-means in one dimension).

    >>> import numpy as np
    >>> from marginclust.solvers import LabelAlternation
    >>> x = np.array([0.0, 0.1, 0.2, 5.0, 5.1])
    >>> class Means:
    ...     def fit_labels(self, t):
    ...         return np.array([x[t == k].mean() for k in (0, 1)])
    ...     def objective(self, mu, t):
    ...         return float(np.sum((x - mu[t]) ** 2))
    ...     def assign(self, mu):
    ...         return np.argmin(np.abs(x[:, None] - mu), axis=1)
    ...     def repair(self, t, mu):
    ...         return t
    ...     def is_feasible(self, t):
    ...         return np.unique(t).size == 2
    >>> res = LabelAlternation().solve(Means(), np.array([0, 1, 0, 1, 0]))
    >>> res.x.tolist(), res.info["stop_reason"]
    ([0, 0, 0, 1, 1], 'converged')
    """

    max_iter: int = 50
    tol: float = 0.0
    verbose: int = 0
    name: str = "Label alternation"

    required: ClassVar[tuple[str | tuple[str, ...], ...]] = (
        "fit_labels",
        "objective",
        "assign",
        "repair",
        "is_feasible",
    )

    def _solve(
        self, problem: Any, labels0: IntArray, *, callback: Callback | None = None
    ) -> SolverResult:
        """Alternate from the initial labels ``labels0``.

        Parameters
        ----------
        problem : object
            Provides the five methods listed in the module docstring.
        labels0 : ndarray of shape (n_samples,)
            Initial labels (need not be feasible).
        callback : callable, optional
            ``callback(iteration, objective)``; returning True stops the run.

        Returns
        -------
        result : SolverResult
            ``x``: the labels the final model was fitted to; ``objective``:
            ``J`` at ``(x, model)``; ``info``: ``model`` (the last fit),
            ``stop_reason`` (``"converged"``, ``"cycle"``, ``"max_iter"`` or
            ``"callback"``), ``start_labels`` (the first feasible labelling),
            ``start_repaired`` (whether the start had to be repaired) and
            ``n_changed`` (labels changed by the last relabelling).
        """
        # Out-of-core problems (marginclust.dask) pass label handles: they count the
        # changes and key the labelings themselves (the hooks below); the loop is the same.
        handles = hasattr(problem, "count_changed")
        as_labels = (lambda t: t) if handles else (lambda t: np.asarray(t, dtype=np.intp))
        count_changed = (
            problem.count_changed if handles else lambda a, b: int(np.count_nonzero(a != b))
        )
        label_key = problem.label_key if handles else (lambda t: t.tobytes())
        labels = as_labels(labels0)
        n = problem.n_samples if handles else labels.size
        model = problem.fit_labels(labels)
        repaired = not problem.is_feasible(labels)
        if repaired:
            labels = as_labels(problem.repair(labels, model))
            model = problem.fit_labels(labels)
            report(self.verbose, "%s: initial labels repaired to meet the constraint", self.name)
        start = labels
        seen = {label_key(labels)}
        history: list[float] = []
        stop_reason = "max_iter"
        n_changed = n
        for it in range(1, int(self.max_iter) + 1):
            if it > 1:
                model = problem.fit_labels(labels)
            value = float(problem.objective(model, labels))
            history.append(value)
            new = as_labels(problem.repair(problem.assign(model), model))
            n_changed = int(count_changed(new, labels))
            report(
                self.verbose,
                "%s iteration %d: objective %.10g, %d labels changed",
                self.name,
                it,
                value,
                n_changed,
            )
            if n_changed <= self.tol * n:
                stop_reason = "converged"
                break
            if callback is not None and callback(it, value):
                stop_reason = "callback"
                break
            if it == int(self.max_iter):
                break
            key = label_key(new)
            if key in seen:
                stop_reason = "cycle"
                break
            seen.add(key)
            labels = new
        n_iter = len(history)
        return SolverResult(
            x=labels,
            objective=history[-1],
            objective_history=np.asarray(history, dtype=np.float64),
            n_iter=n_iter,
            converged=stop_reason == "converged",
            stop_crit=float(n_changed),
            message=self._message(stop_reason, n_iter, n_changed),
            info={
                "model": model,
                "stop_reason": stop_reason,
                "start_labels": start,
                "start_repaired": repaired,
                "n_changed": n_changed,
            },
        )

    def _message(self, stop_reason: str, n_iter: int, n_changed: int) -> str:
        """The text of the warning an estimator gives when the run did not converge."""
        if stop_reason == "cycle":
            return (
                f"{self.name}'s relabelling returned to an earlier labeling (the constraint "
                f"repair cycles); stopped after {n_iter} iterations."
            )
        if stop_reason == "max_iter":
            return (
                f"{self.name} stopped at max_iter={self.max_iter} with {n_changed} labels still "
                "changing; increase max_iter or tol."
            )
        if stop_reason == "callback":
            return f"{self.name} was stopped by the callback after {n_iter} iterations."
        return ""


_KMEANS_MAX_ROWS = 20000  # k-means starts fit on at most this many rows, then assign the rest


# eps of the seeding projection (see kmeans_labels)
_SEED_EPS = 0.15


def seeding_dims(n_clusters: int, eps: float = _SEED_EPS) -> int:
    """``ceil(ln(K / eps) / eps^2)``: dimensions keeping K-partition costs within 1 +- eps."""
    return int(np.ceil(np.log(max(n_clusters, 2) / eps) / eps**2))


def _partition_means(Z: Any, labels: IntArray, k: int) -> npt.NDArray[np.floating]:
    """Means of the rows of ``Z`` (dense or sparse) in each of ``k`` non-empty clusters."""
    import scipy.sparse as sp

    n = labels.shape[0]
    onehot = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    sums = onehot @ Z
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    counts = np.maximum(np.bincount(labels, minlength=k), 1)
    dt = Z.dtype if Z.dtype in (np.float32, np.float64) else np.float64
    return (sums / counts[:, None]).astype(dt, copy=False)


def kmeans_labels(
    X: Any,
    n_clusters: int,
    random_state: np.random.RandomState,
    *,
    transform: Any = None,
    n_init: int = 5,
    seed_rows: int = 2000,
    polish_iter: int = 10,
    max_rows: int = _KMEANS_MAX_ROWS,
    block_rows: int = BLOCK_ROWS,
    seed_dims: int | str | None = "auto",
) -> IntArray:
    """Initial labels from scikit-learn's k-means, cheap by design.

    The rows are drawn by the same rule as the out-of-core fitters
    (O(sample) memory, the draw the Dask path makes too). The best of ``n_init``
    k-means runs (k-means++ seeding) on a random subsample
    of ``max(seed_rows, 50 n_clusters)`` rows gives the centres; at most
    ``polish_iter`` Lloyd iterations on all rows (at most ``max_rows`` drawn at
    random, the rest assigned) polish them. On USPS's 9298 x 1000 hidden layer
    this costs less than one full k-means run and gives the start accuracy of ten
    (66.2-67.4 % over 5 seeds, mean 67.0; one run alone lands at 60.5 % for one
    seed in five; assigning without the polish gives 64.5-67.4 %; three seeding
    runs started seed 0 at 59.8 % in EMMC's own draw).

    The seeding runs only choose the basin; they run on a Gaussian random
    projection of the subsample to ``r`` dimensions when the features have more.
    A projection to ``r = O(log(K / eps) / eps^2)`` dimensions preserves the
    k-means cost of every partition into K clusters within ``1 +- eps``
    (Makarychev, Makarychev & Razenshteyn, STOC 2019), whatever the number of
    rows and features: the seeding's cost no longer grows with the feature
    dimension (e.g. an ELM layer's width). The chosen partition's centres are then
    the means of the subsample's rows in the full features, and the polish runs
    there. ``seed_dims="auto"`` takes ``r = ceil(ln(K / eps) / eps^2)`` with
    ``eps = 0.15`` (187 dimensions for K = 10, 116 for K = 2). On USPS's
    9298 x 1000 layer (EMMC, K = 10, seeds 0-3) the starts' k-means costs in the
    full layer were within 0.03 % of the unprojected seeding's, the start accuracy
    66.8 % vs 66.3 % on average, EMMC's final accuracy 68.4 % vs 67.9 % and its final
    objective no higher, for 0.42 s of init instead of 0.90 s (CPU). ``transform``
    (rows -> features, e.g. a random hidden layer) moves it to another space,
    computed block by block for the assignment.
    Duplicate points (fewer distinct points than clusters) do not leak
    scikit-learn's warning: the caller's own collapse check speaks for the result.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Validated data.
    n_clusters : int
        Number of clusters.
    random_state : RandomState
        Seeds the row samples and k-means.
    transform : callable, optional
        Maps a row block of ``X`` to the features k-means runs on.
    n_init : int, default=5
        Number of k-means runs on the seeding subsample.
    seed_rows : int, default=2000
        Size of the seeding subsample (at least 50 rows per cluster).
    polish_iter : int, default=10
        Lloyd iterations of the polishing run (a start need not be converged).
    max_rows : int, default=20000
        Rows the polishing run is fitted on.
    block_rows : int, default=BLOCK_ROWS
        Row-block size of the assignment when ``X`` has more than ``max_rows`` rows.
    seed_dims : int, "auto" or None, default="auto"
        Dimension of the random projection the seeding runs use (None: no
        projection; "auto": :func:`seeding_dims`); features of at most this
        dimension are not projected.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Cluster index of each sample.
    """
    n = X.shape[0]
    sub = None
    if n > max_rows:
        sub = sample_row_indices(n, max_rows, random_state)

    def feats(rows: Any) -> Any:
        return rows if transform is None else transform(rows)

    km = kmeans_on_sample(
        feats(X if sub is None else X[sub]),
        n_clusters,
        random_state,
        n_init=n_init,
        seed_rows=seed_rows,
        polish_iter=polish_iter,
        seed_dims=seed_dims,
    )
    if sub is None:
        return np.asarray(km.labels_, dtype=np.intp)
    out = np.empty(n, dtype=np.intp)
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)
        out[start:stop] = km.predict(feats(X[start:stop]))
    return out


def kmeans_on_sample(
    Z: Any,
    n_clusters: int,
    random_state: np.random.RandomState,
    *,
    n_init: int = 5,
    seed_rows: int = 2000,
    polish_iter: int = 10,
    seed_dims: int | str | None = "auto",
) -> Any:
    """The fitted k-means of :func:`kmeans_labels` on the (sampled) features ``Z``.

    Returned as a :class:`~marginclust.utils._scaled_kmeans.ScaledKMeans` (``labels_`` and
    ``predict`` in the units of ``Z``: float32 features at an extreme scale are
    clustered after an exact power-of-two rescaling).

    Best of ``n_init`` runs on ``max(seed_rows, 50 n_clusters)`` rows of ``Z``
    (on their random projection to ``seed_dims`` dimensions, see
    :func:`kmeans_labels`), polished by ``polish_iter`` Lloyd iterations on all of
    ``Z`` (or one plain run when ``Z`` is that small). Shared by the in-memory and
    the Dask paths.
    """
    import warnings

    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning

    scale = power_of_two_scale(Z)  # float32 at an extreme scale: k-means near 1
    if scale != 1.0:
        Z = Z * Z.dtype.type(scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        n_seed = max(seed_rows, 50 * n_clusters)
        if Z.shape[0] > n_seed:
            idx = np.sort(random_state.choice(Z.shape[0], size=n_seed, replace=False))
            Zs = Z[idx]
            r = seeding_dims(n_clusters) if seed_dims == "auto" else seed_dims
            seeds = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state)
            if r is not None and Zs.shape[1] > int(r):
                dt = Zs.dtype if Zs.dtype in (np.float32, np.float64) else np.float64
                proj = random_state.standard_normal((Zs.shape[1], int(r))).astype(dt)
                lab = seeds.fit(np.asarray(Zs @ proj)).labels_
                centres = _partition_means(Zs, lab, n_clusters)
            else:
                centres = seeds.fit(Zs).cluster_centers_
            km = KMeans(n_clusters=n_clusters, init=centres, n_init=1, max_iter=polish_iter)
            km.fit(Z)
        else:
            km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state).fit(Z)
    return ScaledKMeans(km, scale)


def start_labels(
    init: Any,
    X: Any,
    n_clusters: int,
    random_state: np.random.RandomState,
    features: Any = None,
) -> npt.NDArray[np.intp]:
    """Initial labels of a label alternation (``init`` validated by the caller).

    ``"random"``: uniform random labels; ``"k-means"``: :func:`kmeans_labels` on
    ``X``; any other method name (e.g. ``"k-means-elm"``): :func:`kmeans_labels`
    on ``features`` (the features of ``X``, or a callable mapping rows of ``X``
    to them, applied to the sampled rows only); an array: the given labels.
    :func:`kmeans_labels` runs the best of five k-means on a 2000-row subsample
    (on a random projection to ``O(log K)`` dimensions, which preserves every
    K-partition's k-means cost, so the seeding's cost does not grow with the
    feature width), polished by at most 10 Lloyd iterations on all rows (on
    USPS's 1000-node ELM layer: the start accuracy of ``KMeans(n_init=10)`` at
    about a twentieth of its cost).
    """
    n = X.shape[0]
    if not isinstance(init, str):
        return np.asarray(init, dtype=np.intp).copy()
    if init == "random":
        return random_state.randint(n_clusters, size=n).astype(np.intp)
    if init == "k-means":
        return kmeans_labels(X, n_clusters, random_state)
    if callable(features):
        return kmeans_labels(X, n_clusters, random_state, transform=features)
    return kmeans_labels(features, n_clusters, random_state)

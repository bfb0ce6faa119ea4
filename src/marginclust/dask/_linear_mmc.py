"""Dask fitters of BMMC and multiclass CPMMC (dense or CSR row chunks): row-block passes only.

The in-memory BMMC without pairwise constraints already runs every pass over X
as a block function plus an in-order reduction
(:mod:`marginclust.objectives._mmc_blocks`); here the same block functions run
on the dask row chunks (:class:`DaskRows`, a backend of
:class:`~marginclust.objectives._mmc.LinearData`). The labels of the current
CCCP linearisation stay beside their blocks (:func:`._ops.block_states`: on the
workers under ``distributed``); CCCP's "labels repeat" test is the sum of the
per-block counts of changed labels; the exact offset polish gathers, per block,
the slope of the risk at the lower end of the balance box and the breakpoints
inside the box (``|t| <= balance``: samples whose score lies within
``balance`` of the margin), then selects on the client; the labels of the fit
are lazy (``X.map_blocks``).

Graph executions (round trips) per fit, init given as labels:

- 2 for the data's mean and centred sum of squares (plus 1 for the column
  extremes of the shared scale check);
- per CCCP iteration: ``1 + n_inner_iter_[i]`` bundle planes (one pass each,
  at most: a step that stops on the gap takes none), 2 for the binary offset
  polish (candidates; the risks at the old and the new offset), 1 for the true
  objective, the new labels and the changed-label count;

so ``round trips <= 3 + sum(n_inner_iter_) + 4 n_iter_`` (binary;
``3 n_iter_`` multiclass), i.e. ``n_iter_ + c`` with ``c`` dominated by the
bundle steps: BMMC is latency-bound (each bundle step is a small round trip
carrying a ``d x q`` partial per block). ``init="k-means"`` (the default on
dense data) adds 2: one gather of a sample of ``max(10000, 100 k)`` rows
(:func:`._ops.sample_rows`; all rows when n is smaller, then the start is the
in-memory one) and one labelling pass. ``init="pca"`` and pairwise
constraints are in-memory only (ValueError).

Multiclass CPMMC (``n_clusters > 2``) runs the same way (CCCP with the 1-slack
cutting plane inside: one plane pass per generated constraint, no polish):
``round trips <= 3 + sum(n_inner_iter_) + 2 n_iter_``. Binary CPMMC keeps its
working set of constraint indicators (m per row) beside the chunks, as the
block states of :func:`~marginclust.objectives._mmc_blocks.cutting_plane_block`;
every pass is at a new iterate and gives the restricted value, the true loss,
the candidate constraint and the next QP's planes at once:
``round trips = 3 + 1 + sum(n_cccp_iter_) + 1`` (the last for the cluster
sizes), i.e. one per QP solved.

Chunks may be dense or ``scipy.sparse`` CSR (e.g. ``X.map_blocks(sp.csr_matrix)``):
the block functions use sparse products, the scale uses ``sum x^2 - n xbar.xbar``
as in memory, and the k-means sample is gathered as CSR (on CSR chunks
``init="auto"`` means k-means on the sample, where the in-memory fit would take
``"pca"``).

Bitwise equality with ``BMMC.fit`` under the synchronous scheduler holds with
row chunks of 8192 rows (the in-memory blocks; CSR chunks against the fit on
the CSR matrix) and labels given (or n <= the
k-means sample size); other chunks regroup the float sums (tolerance).
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ..estimators._bmmc import BMMC
from ..estimators._cpmmc import CPMMC
from ..estimators._linear_mmc import labels_from_scores, linear_scores, one_cluster_model
from ..solvers import SolverResult
from ._clusterer import check_fit_data, register
from ._common import ShapeProxy, column_stats
from ._ops import block_offsets, block_partials, block_states, init_sample_size, sample_rows

__all__ = ["DaskRows", "fit_bmmc", "fit_cpmmc"]


def _predict_block(Xb: Any, coef: Any, b: Any) -> npt.NDArray[np.intp]:
    return labels_from_scores(linear_scores(Xb if sp.issparse(Xb) else np.asarray(Xb), coef, b))


def _kmeans_block(Xb: Any, state: Any, km: KMeans) -> tuple[npt.NDArray[np.intp], None]:
    return np.asarray(km.predict(Xb if sp.issparse(Xb) else np.asarray(Xb)), dtype=np.intp), None


def _is_sparse(X: da.Array) -> bool:
    return sp.issparse(getattr(X, "_meta", None))


def _sparse_extremes_block(Xb: Any) -> npt.NDArray[np.float64]:
    Xb = sp.csr_matrix(Xb)
    return np.vstack([Xb.max(axis=0).toarray(), Xb.min(axis=0).toarray()])


def _sparse_take(Xb: Any, lohi: tuple[int, int], idx: Any) -> Any:
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    return sp.csr_matrix(Xb)[idx[a:b] - lo]


def _extremes(X: da.Array) -> npt.NDArray[Any]:
    """Column extremes ``[max; min]`` (the shared scale check's view of X), one pass."""
    if not _is_sparse(X):
        return column_stats(X)[0]
    parts = block_partials(X, _sparse_extremes_block)
    return np.vstack([np.max([p[0] for p in parts], axis=0), np.min([p[1] for p in parts], axis=0)])


def _sample(X: da.Array, size: int, random_state: np.random.RandomState) -> Any:
    """A uniform row sample (dense: :func:`._ops.sample_rows`; CSR chunks: the same draw)."""
    if not _is_sparse(X):
        return sample_rows(X, size, random_state)[0]
    n = X.shape[0]
    if size >= n:
        idx = np.arange(n)
    else:
        gen = np.random.default_rng(int(random_state.randint(np.iinfo(np.int32).max)))
        idx = np.sort(gen.choice(n, size=size, replace=False, shuffle=False)).astype(np.intp)
    return sp.vstack(block_partials(X, _sparse_take, idx, with_offsets=True), format="csr")


class DaskRows:
    """The dask row chunks of X as a :class:`~marginclust.objectives._mmc.LinearData` backend."""

    in_memory = False

    def __init__(self, X: da.Array) -> None:
        self.X = X
        self.sparse = _is_sparse(X)
        self.n = int(X.shape[0])
        self.offsets = block_offsets(X)

    def partials(self, fn: Any, *args: Any) -> list[Any]:
        """One graph execution: ``fn(X_b, *args)`` per chunk, in order."""
        return block_partials(self.X, fn, *args)

    def states(self, fn: Any, states: Any, *args: Any) -> tuple[list[Any], list[Any]]:
        """One graph execution with per-chunk state kept beside the chunk."""
        return block_states(self.X, fn, states, *args)

    def split(self, labels: npt.NDArray[np.intp]) -> list[npt.NDArray[np.intp]]:
        """Per-chunk pieces of given labels (the init array)."""
        o = self.offsets
        return [labels[o[i] : o[i + 1]] for i in range(len(o) - 1)]

    def gather(self, states: Any) -> Any:  # pragma: no cover - never called out of core
        raise TypeError("the labels of a dask fit are lazy; use labels_ (a dask array).")

    def lazy_labels(self, coef: Any, b: Any) -> da.Array:
        """Labels of the fitted hyperplanes, lazily per chunk."""
        return da.map_blocks(_predict_block, self.X, coef, b, dtype=np.intp, drop_axis=1)


def _fit_linear(est: Any, X: da.Array, fit_params: dict[str, Any], solve: Any) -> None:
    """Shared by BMMC and CPMMC: checks, context, restarts; ``solve(obj, first)`` fits."""
    name = type(est).__name__
    if fit_params.get("must_link") is not None or fit_params.get("cannot_link") is not None:
        raise ValueError(
            f"{name} on a dask array does not take must_link / cannot_link (the pair terms "
            f"need the pairs' rows together); fit {name} in memory for constrained clustering."
        )
    extremes = _extremes(X)
    proxy = ShapeProxy(X.shape, X.dtype, extremes)
    check_fit_data(est, proxy)  # type: ignore[arg-type]  # reads .shape (and extremes)
    if isinstance(est.init, str) and est.init == "pca":
        raise ValueError(
            f"{name} on a dask array starts from init='k-means' (on a sample) or given "
            "labels; init='pca' is in-memory only."
        )
    rows = DaskRows(X)
    context = est._make_context(proxy, blocks=rows)

    def fit_one(ctx: Any, random_state: np.random.RandomState) -> SolverResult:
        obj = ctx.objective
        if obj is None:  # n_clusters=1
            res = one_cluster_model(proxy, {"n_inner_iter_": np.zeros(0, dtype=np.intp)})
            x = dict(res.x)
            x["labels_"] = da.zeros((X.shape[0],), chunks=(X.chunks[0],), dtype=np.intp)
            return SolverResult(
                x=x,
                objective=res.objective,
                objective_history=res.objective_history,
                n_iter=res.n_iter,
                converged=True,
                info={"cluster_sizes": np.array([X.shape[0]])},
            )
        if isinstance(ctx.init, str):  # "auto" / "k-means": k-means on a sample of rows
            sample = _sample(X, init_sample_size(est._n_clusters), random_state)
            km = KMeans(n_clusters=est._n_clusters, n_init=1, random_state=random_state)
            km.fit(sample)
            states, _ = rows.states(_kmeans_block, None, km)
        else:
            states = rows.split(np.asarray(ctx.init, dtype=np.intp))
        return solve(obj, obj.surrogate_from_states(states, None))

    est._fit_restarts(context, fit_one)


@register(BMMC)
def fit_bmmc(est: BMMC, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit ``est`` on the dask array X; lazy ``labels_`` (see the module docstring)."""
    _fit_linear(est, X, fit_params, est._solve)
    return {"labels_": est.labels_}  # type: ignore[dict-item]  # lazy (dask) after this fitter


@register(CPMMC)
def fit_cpmmc(est: CPMMC, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit a CPMMC on the dask array X; lazy ``labels_``.

    Binary (``n_clusters=2``): the cutting-plane loop of
    :class:`~marginclust.solvers._cutting_plane.CuttingPlaneMMC`, whose working
    set of constraint indicators stays beside the chunks (one pass per QP).
    Multiclass: CCCP outside, constraint generation inside (the 1-slack cutting
    plane of :class:`~marginclust.solvers._cutting_plane.CuttingPlaneSVM`): each
    new constraint is one plane pass.
    """
    if est.n_clusters == 2:
        _fit_linear(est, X, fit_params, lambda obj, first: est._fit_binary(obj, first.states))
    else:
        _fit_linear(est, X, fit_params, est._fit_multiclass)
    return {"labels_": est.labels_}  # type: ignore[dict-item]  # lazy (dask) after this fitter

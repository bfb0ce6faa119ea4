"""Dask fitter of low-rank SLMC: the weighted normal equations summed over row blocks.

Low-rank SLMC (``n_components`` set) alternates the W-step
``(I + lam Phi^T D Phi) W = lam Phi^T U^m`` with the closed-form U-step
``U = u_step(Phi W)``. The memberships are a function of ``W`` row by row, so
nothing per sample has to persist between passes: pass ``t`` maps every row
block to its features ``Phi_b`` (the fitted Nystroem / random-Fourier map of the
centred block), recomputes ``U_t = u_step(Phi_b W_t)`` and returns

- ``Phi_b^T diag(lam d) Phi_b`` (L x L) and ``Phi_b^T U_t^m`` (L x K): the
  next W-step (:func:`marginclust.objectives._slmc.feature_normal_block`);
- the block's data term of ``J(W_t, U_t)`` and ``max |U_t - U_{t-1}|``
  (``U_{t-1}`` recomputed from ``W_{t-1}``): the stopping rule of
  :class:`~marginclust.solvers._alternating.AlternatingMinimizer`, which runs the
  loop exactly as in memory (:class:`DaskSLMCProblem` is its problem object).

One graph execution per sweep: communication per sweep is the L x K weights
out and, per block, one L x L + L x K partial back (8 (L^2 + LK) bytes).

Once per fit: one pass for the column extremes (the estimator's own scale
check) and the centring means; ``gamma="scale"`` one more pass (a variance);
``"sigma0"`` and ``"local"`` one gather of 2,000 rows (the rows the in-memory
rules sample);
one gather of the ``n_components`` Nystroem landmarks
(:func:`marginclust.dask._ops.sample_rows`, the rows the in-memory map draws:
same seed, same landmarks); one pass for the first W-step. So
``round trips = n_iter_ + 3`` (+1 with ``gamma="scale"``) plus the
initialisation's:

- an array (NumPy or dask, n x K memberships): none;
- ``"k-means++"``: k-means++ seeding on a sample of at most 20,000 rows (one
  gather; all rows when n <= 20,000, and then the seeding is the in-memory one);
- ``"k-means"``: a k-means run on the same sample, then the nearest centre
  (the in-memory fit runs on all rows: equal when n <= 20,000);
- ``"fcm"`` / ``"fcm-sharp"`` (default): the Dask fuzzy c-means fitter on the
  centred data (the same fit as in memory; its own ``n_iter_ + c`` passes);
- ``"spectral"``: the spectral start on a sample of at most 2,000 rows (one
  gather; the rows :func:`marginclust.feature_maps.spectral_labels` draws in
  memory for the same seed, so the same start), every other row taking the
  label of its nearest sample row in its block;
- ``"random"``: Dirichlet memberships drawn per row block from seeds spawned
  from ``random_state`` (no pass; NOT the in-memory draw, which is one stream
  over all n rows and cannot be split across blocks).

Bitwise equality with ``SLMC.fit`` under the synchronous scheduler holds when
every chunk boundary is a multiple of 8,192 rows (the in-memory block), for a
float ``gamma`` or ``"sigma0"`` / ``"local"`` on n <= 2,000, and an array,
``"spectral"`` (n <= 2,000), ``"k-means++"`` / ``"k-means"`` (n <= 20,000) or
``"fcm"`` init. ``gamma="scale"`` computes the
variance by block sums (relative difference ~1e-16, then not bitwise).
Not on this path: the exact kernel (an n x n matrix; set ``n_components``) and
``kernel="precomputed"``. The W-step is always the exact one (``w_step`` is not
read): one round trip per sweep, where conjugate gradients would need one per
iteration; so the fit equals ``SLMC(w_step="exact")``'s, and ``SLMC()``'s to
the CG tolerance.
Not bitwise: the re-seeding of collapsed clusters (as in memory, from the
worst-fitted rows; 2 more passes and a new alternation per re-seed), whose
cluster means are block sums.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.utils import check_random_state

import dask

from ..estimators._kernel_model import KernelContext
from ..estimators._slmc import _INIT_ALIASES, _INITS, _MAX_RESEEDS, _SHARP_M, SLMC
from ..feature_maps import resolve_gamma
from ..feature_maps._graph import MAX_SAMPLES, nearest_labels, spectral_sample_labels
from ..feature_maps._low_rank import LowRankKernelMap
from ..objectives._slmc import (
    feature_normal_block,
    feature_normal_reduce,
    feature_sweep_block,
    solve_feature_normal,
    u_step,
)
from ..solvers import SolverResult
from ..utils import check_memberships, resolve_alias
from ._clusterer import check_fit_data, register
from ._common import ShapeProxy, column_stats, sub_blocks
from ._ops import block_partials, sample_rows

__all__ = ["DaskSLMCProblem", "fit_slmc"]

_INIT_SAMPLE = 20000  # rows of the sample-based k-means / k-means++ initialisations


def _centred(Xb: Any, mean: Any) -> Any:
    Xb = np.asarray(Xb)
    return Xb if mean is None else Xb - mean.astype(Xb.dtype)


def _features(Xb: Any, mean: Any, fmap: LowRankKernelMap) -> list[Any]:
    """The features of one chunk, cut into the in-memory blocks (8192 rows)."""
    Xw = _centred(Xb, mean)
    return [
        next(fmap.transform_blocks(Xw[sl], block_rows=Xw.shape[0]))[1]
        for sl in sub_blocks(Xw.shape[0])
    ]


def _first_block(Xb: Any, U0b: Any, mean: Any, fmap: Any, lam: float, m: float) -> Any:
    U0b = np.asarray(U0b, dtype=np.float64)
    subs = zip(sub_blocks(U0b.shape[0]), _features(Xb, mean, fmap))
    return feature_normal_reduce(
        (feature_normal_block(Phi, U0b[sl], lam, m) for sl, Phi in subs),
        int(fmap.n_output_features_),
        U0b.shape[1],
    )


def _sweep_block(Xb: Any, *rest: Any) -> tuple[Any, Any, float, float, npt.NDArray[np.intp]]:
    """Pass t: U_t from W_t, its data term and move, and the next normal equations
    (summed over the chunk's 8192-row sub-blocks: one partial per chunk)."""
    if len(rest) == 7:  # the first sweep: U_{t-1} is the initialisation's block
        U0b, mean, fmap, W, W_prev, lam, m = rest
        U0b = np.asarray(U0b, dtype=np.float64)
    else:
        mean, fmap, W, W_prev, lam, m = rest
        U0b = None
    K = W.shape[1]
    L = int(fmap.n_output_features_)
    n_rows = np.asarray(Xb).shape[0]
    G = np.zeros((L, L), dtype=np.float64)
    R = np.zeros((L, K), dtype=np.float64)
    loss, move = 0.0, 0.0
    counts = np.zeros(K, dtype=np.intp)
    for sl, Phi in zip(sub_blocks(n_rows), _features(Xb, mean, fmap)):
        F, U, loss_b = feature_sweep_block(Phi, W, m)
        U_prev = U0b[sl] if U0b is not None else feature_sweep_block(Phi, W_prev, m)[1]
        if U.size:
            move = max(move, float(np.max(np.abs(U - U_prev))))
        G_b, R_b = feature_normal_block(Phi, U, lam, m)
        G += G_b
        R += R_b
        loss += loss_b
        counts += np.bincount(np.argmax(F, axis=1), minlength=K)
    return G, R, loss, move, counts


class DaskSLMCProblem:
    """Low-rank SLMC on a dask array as a problem of the alternating sweep driver.

    The driver is :class:`~marginclust.solvers._alternating.AlternatingMinimizer`.

    The state is ``(W_prev, G, R, move, counts)``: the last weights, the reduced
    normal equations of the next W-step (computed in the same pass as the
    objective of ``W_prev``), the last move and cluster sizes. :meth:`step`
    solves the W-step and runs ONE pass over X; the value is
    ``||W||^2 + lam * sum_b loss_b``, the sums in block order as in memory.
    """

    def __init__(
        self, X: da.Array, U0: da.Array, mean: Any, fmap: Any, lam: float, m: float
    ) -> None:
        self.X, self.U0, self.mean = X, U0, mean
        # the map (landmarks, L x L normalisation) enters each pass's graph once, not per task
        self.fmap = dask.delayed(fmap, pure=False)
        self.lam, self.m = float(lam), float(m)
        self.L = int(fmap.n_output_features_)
        self.K = int(U0.shape[1])
        self.n_passes = 0

    def initial_state(self) -> tuple[Any, ...]:
        parts = block_partials(
            self.X, _first_block, self.mean, self.fmap, self.lam, self.m, extra_blocks=[self.U0]
        )
        self.n_passes += 1
        G, R = feature_normal_reduce(parts, self.L, self.K)
        return (None, G, R, np.inf, None)

    def step(self, state: tuple[Any, ...]) -> tuple[tuple[Any, ...], float]:
        W_prev, G, R = state[0], state[1], state[2]
        W = solve_feature_normal(G, R, self.lam)
        if W_prev is None:
            parts = block_partials(
                self.X,
                _sweep_block,
                self.mean,
                self.fmap,
                W,
                None,
                self.lam,
                self.m,
                extra_blocks=[self.U0],
            )
        else:
            parts = block_partials(
                self.X, _sweep_block, self.mean, self.fmap, W, W_prev, self.lam, self.m
            )
        self.n_passes += 1
        flat = parts
        G1, R1 = feature_normal_reduce(((p[0], p[1]) for p in flat), self.L, self.K)
        loss = 0.0
        for p in flat:
            loss += p[2]
        move = max((p[3] for p in flat), default=0.0)
        counts = np.sum([p[4] for p in flat], axis=0)
        return (W, G1, R1, move, counts), float(np.sum(W * W)) + self.lam * loss

    @staticmethod
    def change(old: tuple[Any, ...], new: tuple[Any, ...]) -> float:
        """Largest membership change of the last sweep (computed in its pass)."""
        return float(new[3])


# ------------------------------------------------------------------ inits
def _nearest_onehot(Xb: Any, mean: Any, centres: Any, K: int) -> npt.NDArray[np.float64]:
    Xw = _centred(Xb, mean)
    d2 = ((Xw[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    return np.asarray(np.eye(K)[np.argmin(d2, axis=1)], dtype=np.float64)


def _nearest_sample_onehot(
    Xb: Any, mean: Any, sample: Any, labels: Any, K: int
) -> npt.NDArray[np.float64]:
    Xw = np.asarray(_centred(Xb, mean), dtype=np.float64)
    return np.asarray(np.eye(K)[nearest_labels(Xw, sample, labels)], dtype=np.float64)


def _km_onehot(Xb: Any, mean: Any, km: Any, K: int) -> npt.NDArray[np.float64]:
    return np.asarray(np.eye(K)[km.predict(_centred(Xb, mean))], dtype=np.float64)


def _random_block(Xb: Any, seeds: Any, K: int, block_id: Any = None) -> Any:
    rs = np.random.RandomState(int(seeds[block_id[0]]))
    return rs.dirichlet(np.ones(K), size=np.asarray(Xb).shape[0])


def _initial_memberships(
    est: SLMC,
    X: da.Array,
    mean: Any,
    init: Any,
    init_U: Any,
    m: float,
    random_state: np.random.RandomState,
) -> da.Array:
    """Lazy (n, K) initial memberships with the row chunks of X (see the module docstring)."""
    K = est._n_clusters
    n = X.shape[0]
    chunks = (X.chunks[0], (K,))
    if init_U is not None:
        if isinstance(init_U, da.Array):
            return init_U.astype(np.float64).rechunk(chunks)
        return da.from_array(np.asarray(init_U, dtype=np.float64), chunks=chunks)
    if K == 1:
        return da.ones((n, 1), chunks=chunks)
    if init == "random":
        seeds = random_state.randint(np.iinfo(np.int32).max, size=len(X.chunks[0]))
        return da.map_blocks(_random_block, X, seeds, K, chunks=chunks, dtype=np.float64)
    if init == "spectral":
        rows, _ = sample_rows(X, MAX_SAMPLES, random_state)
        Xs = np.asarray(_centred(rows, mean), dtype=np.float64)
        lab = spectral_sample_labels(Xs, K, random_state=random_state)
        if rows.shape[0] == n:  # every row: the in-memory start exactly
            return da.from_array(np.eye(K)[lab], chunks=chunks)
        return da.map_blocks(
            _nearest_sample_onehot, X, mean, Xs, lab, K, chunks=chunks, dtype=np.float64
        )
    if init in ("k-means", "k-means++"):
        rows, _ = sample_rows(X, _INIT_SAMPLE, random_state)
        Xs = _centred(rows, mean)
        if init == "k-means++":
            centres, _ = kmeans_plusplus(np.asarray(Xs), K, random_state=random_state)
            return da.map_blocks(
                _nearest_onehot, X, mean, centres, K, chunks=chunks, dtype=np.float64
            )
        km = KMeans(n_clusters=K, n_init=1, random_state=random_state).fit(Xs)
        if rows.shape[0] == n:  # every row: the in-memory start exactly
            return da.from_array(np.eye(K)[km.labels_], chunks=chunks)
        return da.map_blocks(_km_onehot, X, mean, km, K, chunks=chunks, dtype=np.float64)
    import warnings

    from ..estimators._fcm import FuzzyCMeans
    from ._clusterer import DaskClusterer

    Xw = X if mean is None else X - mean.astype(X.dtype)
    fm = m if init == "fcm" else _SHARP_M
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fcm = DaskClusterer(
            FuzzyCMeans(n_clusters=K, m=fm, n_init=1, random_state=random_state)
        ).fit(Xw)
    return fcm.memberships_.astype(np.float64).rechunk(chunks)


def _labels_block(Xb: Any, mean: Any, fmap: Any, W: Any, m: float) -> Any:
    return np.concatenate(
        [np.argmax(feature_sweep_block(Phi, W, m)[0], axis=1) for Phi in _features(Xb, mean, fmap)]
    )


def _cluster_sums_block(Xb: Any, mean: Any, fmap: Any, W: Any, m: float, K: int) -> Any:
    Xw = np.asarray(_centred(Xb, mean), dtype=np.float64)
    lab = _labels_block(Xb, mean, fmap, W, m)
    sums = np.zeros((K, Xw.shape[1]))
    np.add.at(sums, lab, Xw)
    return sums, np.bincount(lab, minlength=K)


def _worst_block(
    Xb: Any, lohi: Any, mean: Any, fmap: Any, W: Any, m: float, centres: Any, top: int
) -> Any:
    Xw = np.asarray(_centred(Xb, mean), dtype=np.float64)
    lab = _labels_block(Xb, mean, fmap, W, m)
    diff = Xw - centres[lab]
    dist = np.einsum("ij,ij->i", diff, diff)
    order = np.argsort(-dist, kind="stable")[:top]
    return dist[order], order + lohi[0], Xw[order]


def _reseeded_memberships(X: da.Array, kctx: KernelContext, W: Any, K: int, m: float) -> da.Array:
    """One-hot memberships with the empty clusters re-seeded at the worst-fitted rows.

    As :func:`marginclust.solvers._lloyd.reseed_memberships` (centres: cluster
    means in centred data space; each empty cluster, in turn, takes the row
    farthest from its centre), with one pass for the means and one for the
    ``#empty`` farthest rows of each block. The means are block sums (equal to
    rounding, not bitwise, to the in-memory means).
    """
    fmap = dask.delayed(kctx.fmap, pure=False)
    parts = block_partials(X, _cluster_sums_block, kctx.mean, fmap, W, m, K)
    sums = np.sum([p[0] for p in parts], axis=0)
    sizes = np.sum([p[1] for p in parts], axis=0)
    centers = np.zeros_like(sums)
    nonempty = np.flatnonzero(sizes)
    centers[nonempty] = sums[nonempty] / sizes[nonempty, None]
    empty = np.flatnonzero(sizes == 0)
    cand = block_partials(
        X, _worst_block, kctx.mean, fmap, W, m, centers, int(empty.size), with_offsets=True
    )
    dist = np.concatenate([c[0] for c in cand])
    idx = np.concatenate([c[1] for c in cand])
    rows = np.concatenate([c[2] for c in cand])
    order = np.lexsort((idx, -dist))  # largest distance first, ties to the lower row
    for k, j in zip(empty, order):
        centers[k] = rows[j]
    return da.map_blocks(
        _nearest_onehot, X, kctx.mean, centers, K, chunks=(X.chunks[0], (K,)), dtype=np.float64
    )


# ------------------------------------------------------------------ width
def _var_block(Xb: Any, mean: Any) -> tuple[float, float]:
    Xw = np.asarray(_centred(Xb, mean), dtype=np.float64)
    return float(Xw.sum()), float(np.einsum("ij,ij->", Xw, Xw))


def _resolve_width(est: SLMC, X: da.Array, mean: Any, proxy: ShapeProxy) -> float | None:
    """``gamma_`` as ``SLMC`` resolves it, from passes over X (see the module docstring)."""
    gamma = est.gamma
    if est.kernel != "rbf" or not isinstance(gamma, str):
        return est._resolve_width(proxy)  # a float gamma (or no width): X is not touched
    if gamma == "scale":
        parts = block_partials(X, _var_block, mean)
        tot = sq = 0.0
        for s, q in parts:
            tot += s
            sq += q
        size = X.shape[0] * X.shape[1]
        var = sq / size - (tot / size) ** 2
        if not np.isfinite(var) or var <= 0:
            raise ValueError(
                'gamma="scale" is undefined for data with zero variance; pass a float.'
            )
        return 1.0 / (X.shape[1] * var)
    # "sigma0", "local": from 2000 rows
    rows, _ = sample_rows(X, 2000, np.random.RandomState(0))
    return resolve_gamma(gamma, _centred(rows, mean), random_state=0)


# ------------------------------------------------------------------ fitter
@register(SLMC)
def fit_slmc(est: SLMC, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit low-rank ``est`` on the dask array X; lazy ``labels_`` and ``memberships_``.

    See the module docstring for the passes, the initialisations and when the
    fit is bitwise equal to ``SLMC.fit``.
    """
    n, d = X.shape
    extremes, col_mean = column_stats(X)
    proxy = ShapeProxy(X.shape, X.dtype, extremes)
    # the shared checks (n >= 2, n_clusters, _check_params) on X's shape; the
    # proxy shows value checks (check_finite_scale) X's column extremes
    check_fit_data(est, proxy)  # type: ignore[arg-type]  # reads .shape (and extremes)
    if est.kernel == "precomputed" or est._resolved_components(n) is None:
        raise ValueError(
            "SLMC on a dask array needs the low-rank mode (an exact kernel is an n x n "
            "matrix): set n_components (e.g. 500) and a kernel other than 'precomputed'."
        )
    L = int(est._resolved_components(n))  # type: ignore[arg-type]
    init = resolve_alias(est.init, "init", _INITS, _INIT_ALIASES)
    init_U = None
    if not isinstance(init, str):
        init_U = (
            init
            if isinstance(init, da.Array)
            else check_memberships(init, n, est._n_clusters, name="init")
        )
    mean = col_mean if est.kernel in ("rbf", "linear") else None
    gamma = _resolve_width(est, X, mean, proxy)
    seed = check_random_state(est.random_state).randint(np.iinfo(np.int32).max)
    fmap = LowRankKernelMap(
        kernel=est.kernel,
        gamma=gamma if gamma is not None else 1.0,
        n_components=L,
        method=est.low_rank,
        dtype=est.dtype,
        random_state=seed,
    )

    def gather(idx: Any) -> Any:
        return np.asarray(_centred(_gather_rows(X, idx), mean), dtype=np.float64)

    fmap._fit_rows((n, d), gather)
    kctx = KernelContext(X=None, mean=mean, gamma=gamma, fmap=fmap, n_components=L)
    context = {
        "X": X,
        "kctx": kctx,
        "init": init,
        "init_U": init_U,
        "lam": float(est.lam),
        "m": float(est.m),
    }

    def fit_one(ctx: dict[str, Any], random_state: np.random.RandomState) -> SolverResult:
        return _fit_one(est, ctx, random_state)

    est._fit_restarts(context, fit_one)
    return {"labels_": est.labels_, "memberships_": est.memberships_}


def _take_rows(Xb: Any, lohi: tuple[int, int], idx: Any) -> Any:
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    return np.asarray(Xb)[idx[a:b] - lo]


def _gather_rows(X: da.Array, idx: Any) -> Any:
    """Rows ``idx`` (sorted) of X, in one pass."""
    idx = np.asarray(idx, dtype=np.intp)
    return np.concatenate(block_partials(X, _take_rows, idx, with_offsets=True), axis=0)


def _outputs(Xb: Any, mean: Any, fmap: Any, W: Any, m: float, what: str, dtype: Any) -> Any:
    F = np.concatenate([feature_sweep_block(Phi, W, m)[0] for Phi in _features(Xb, mean, fmap)])
    if what == "F":
        return F
    if what == "labels":
        return np.argmax(F, axis=1)
    return u_step(F, m).astype(dtype, copy=False)


def _fit_one(est: SLMC, ctx: dict[str, Any], random_state: np.random.RandomState) -> SolverResult:
    X: da.Array = ctx["X"]
    kctx: KernelContext = ctx["kctx"]
    K = est._n_clusters
    U0 = _initial_memberships(est, X, kctx.mean, ctx["init"], ctx["init_U"], ctx["m"], random_state)
    problem = DaskSLMCProblem(X, U0, kctx.mean, kctx.fmap, ctx["lam"], ctx["m"])
    solver = est._alternating_solver()  # the in-memory fit's stopping rule
    res = solver.solve(problem, problem.initial_state())
    n_reseeds = 0
    for _ in range(_MAX_RESEEDS):
        found = int(np.count_nonzero(res.x[4]))
        if found == K:
            break
        # collapse: re-seed the emptied clusters from the worst-fitted points, as
        # SLMC.fit does (reseed_memberships), with two passes, and alternate again
        U1 = _reseeded_memberships(X, kctx, res.x[0], K, ctx["m"])
        problem1 = DaskSLMCProblem(X, U1, kctx.mean, kctx.fmap, ctx["lam"], ctx["m"])
        res1 = solver.solve(problem1, problem1.initial_state())
        problem.n_passes += problem1.n_passes + 2
        n_reseeds += 1
        if int(np.count_nonzero(res1.x[4])) <= found:
            break  # a second re-seed would start from the same labels: same result
        res = res1
    W, sizes = res.x[0], np.asarray(res.x[4], dtype=np.intp)
    if np.any(sizes == 0):  # collapsed: number the non-empty clusters first (as in memory)
        order = np.concatenate([np.flatnonzero(sizes), np.flatnonzero(sizes == 0)])
        W, sizes = W[:, order], sizes[order]
    m = ctx["m"]
    chunksK = (X.chunks[0], (K,))
    args = (kctx.mean, kctx.fmap, W, m)
    F = da.map_blocks(_outputs, X, *args, "F", np.float64, chunks=chunksK, dtype=np.float64)
    U = da.map_blocks(_outputs, X, *args, "U", X.dtype, chunks=chunksK, dtype=X.dtype)
    labels = da.map_blocks(
        _outputs, X, *args, "labels", None, chunks=(X.chunks[0],), drop_axis=1, dtype=np.intp
    )
    x: dict[str, Any] = {
        "labels_": labels,
        "memberships_": U,
        "decision_values_": F,
        "n_reseeds_": n_reseeds,
        "n_passes_": problem.n_passes,
    }
    x.update(est._fitted_model(kctx, W))
    return SolverResult(
        x=x,
        objective=res.objective,
        objective_history=res.objective_history,
        n_iter=res.n_iter,
        converged=res.converged,
        stop_crit=res.stop_crit,
        message=res.message,
        info={"cluster_sizes": sizes},
    )

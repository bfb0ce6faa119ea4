"""Dask fitter of EMMC (primal ridge): Gram and ``H^T T`` per row block, labels on the workers.

EMMC alternates a ridge fit of the output weights ``beta`` (one Cholesky factor
of ``I/C + H^T H``, fixed for the fit) with the optimal relabelling and the
class-balance repair. Here the loop is the in-memory one
(:class:`~marginclust.solvers.LabelAlternation`) driving
:class:`DaskELMRidgeProblem`, whose labels never leave the workers: each row
block keeps its labels (and the outputs ``F_b = H_b beta`` of the last fit)
beside the data (:func:`marginclust.dask._ops.block_states`), and the solver
sees label *handles*. The hidden layer ``H_b`` is recomputed from the fitted
feature map in every pass (float64 when the in-memory fit would cache ``H``,
i.e. ``n * n_hidden * 8 <= 1 GiB``, else float32 as its streamed path).

Passes (graph executions), per fit:

- 3 for the data's location and scale (column sums; the largest centred
  value; the centred sum of squares, as :class:`~marginclust.ELMFeatures`);
  +2 gathers with ``activation="gaussian"`` (centres and 1000 rows);
- the initialisation: ``"k-means-elm"`` / ``"k-means"``: one gather of a sample of
  at most 20,000 rows (all rows when n <= 20,000), the same rows and the same
  k-means as in memory (:func:`marginclust.solvers.kmeans_on_sample`); the
  labels of the other rows are computed in the Gram pass. ``"spectral"``: the
  spectral start on a gathered sample of at most 2,000 rows (the rows the
  in-memory start draws), the other rows taking the label of their nearest
  sample row in the Gram pass. ``"random"``: labels
  drawn per row block from seeds spawned from ``random_state`` (not the
  in-memory stream of n draws). An array: its blocks;
- 1 Gram pass: ``H_b^T H_b`` and ``H_b^T T_b`` per block (L x L + L x m);
- per iteration, 1 pass: outputs, objective, relabelling, cluster sizes and,
  speculatively, the change of ``H^T T`` and the number of changed labels;
  when the relabelling violates the balance, the repair adds one SELECTION
  pass per move of the paper's repair (each block returns its ``k`` cheapest
  candidates; two clusters need one move) and one commit pass. So
  ``round trips = n_iter_ + 4 + (repair passes)``, with ``c = 4`` (+2 Gaussian,
  +1 with a k-means init) when no repair happens; ``n_passes_`` says how many;
- 1 final pass for ``balance_moved_``.

Bitwise equality with ``EMMC.fit`` under the synchronous scheduler holds when
every chunk boundary is a multiple of 8,192 rows (the in-memory block) and the
init is ``"spectral"``, ``"k-means-elm"``, ``"k-means"`` or an array. Not on this path: the dual
solver (``n_hidden > n_samples``), sparse blocks.
"""

from __future__ import annotations

import hashlib
from typing import Any

import dask.array as da
import numpy as np
import numpy.typing as npt

import dask

from ..estimators._emmc import EMMC
from ..feature_maps._elm import ELMFeatures
from ..feature_maps._graph import MAX_SAMPLES, nearest_labels, spectral_sample_labels
from ..objectives._elm_ridge import (
    _switch_cost,
    _symmetrize,
    factor_ridge,
    gram_block,
    labels_to_targets,
    output_block,
    relabel,
    ridge_dof,
    ridge_primal,
    target_update_block,
)
from ..solvers import LabelAlternation, SolverResult
from ..solvers._label_alternation import kmeans_on_sample
from ._clusterer import check_fit_data, register
from ._common import ShapeProxy, column_stats, sub_blocks
from ._ops import _active_client, block_partials, sample_rows

__all__ = ["DaskELMRidgeProblem", "fit_emmc"]

_KMEANS_MAX_ROWS = 20000  # as marginclust.solvers.kmeans_labels


# ------------------------------------------------------------ location/scale
def _peak_block(Xb: Any, mu: Any) -> float:
    Xb = np.asarray(Xb)
    return max(
        (
            float(np.max(np.abs(np.asarray(Xb[sl], dtype=np.float64) - mu)))
            for sl in sub_blocks(Xb.shape[0])
        ),
        default=0.0,
    )


def _ss_block(Xb: Any, mu: Any, peak: float) -> float:
    Xb = np.asarray(Xb)
    total = 0.0
    for sl in sub_blocks(Xb.shape[0]):
        block = (np.asarray(Xb[sl], dtype=np.float64) - mu) / peak
        total += float(np.einsum("ij,ij->", block, block))
    return total


def _location_scale(X: da.Array, mu: npt.NDArray[np.float64]) -> float:
    """The ELM scale ``s`` as ``feature_maps._elm._location_scale`` (dense), 2 passes."""
    n, d = X.shape
    if not np.all(np.isfinite(mu)):
        raise ValueError(
            "The column sums of X overflow float64; rescale your features (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    peak = max(block_partials(X, _peak_block, mu), default=0.0)
    if not np.isfinite(peak) or peak == 0.0:
        return 1.0
    ss = 0.0
    for part in block_partials(X, _ss_block, mu, peak):
        ss += part
    s = peak * float(np.sqrt(ss / (n * d)))
    return s if np.isfinite(s) and s > 0 else 1.0


class _RowGatherer:
    """``X[idx]`` for the Gaussian node draw: one pass per indexing."""

    def __init__(self, X: da.Array) -> None:
        self.X = X
        self.shape = X.shape

    def __getitem__(self, idx: Any) -> npt.NDArray[Any]:
        idx = np.asarray(idx, dtype=np.intp)
        uniq = np.unique(idx)
        rows = np.concatenate(block_partials(self.X, _take_rows, uniq, with_offsets=True))
        return rows[np.searchsorted(uniq, idx)]


def _take_rows(Xb: Any, lohi: tuple[int, int], idx: Any) -> Any:
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    return np.asarray(Xb)[idx[a:b] - lo]


# ------------------------------------------------------------ block functions
def _hidden(fmap: ELMFeatures, rows: Any, dtype: Any) -> Any:
    return fmap._transform(rows, dtype=dtype)


def _init_labels_block(Xb: Any, lohi: Any, cfg: dict[str, Any]) -> npt.NDArray[np.intp]:
    kind = cfg["kind"]
    lo, hi = lohi
    if kind == "random":
        rs = np.random.RandomState(int(cfg["seeds"][cfg["block_of"][lo]]))
        return rs.randint(cfg["m"], size=hi - lo).astype(np.intp)
    if kind == "nearest":
        if hi <= lo:
            return np.zeros(0, dtype=np.intp)
        return nearest_labels(np.asarray(Xb, dtype=np.float64), cfg["sample"], cfg["labels"])
    km, feats = cfg["km"], cfg["feats"]
    Xb = np.asarray(Xb)
    return (
        np.concatenate(
            [np.asarray(km.predict(feats(Xb[sl])), dtype=np.intp) for sl in sub_blocks(hi - lo)]
        )
        if hi > lo
        else np.zeros(0, dtype=np.intp)
    )


def _gram_pass(Xb: Any, state: Any, lohi: Any, *rest: Any) -> Any:
    """Initial labels (version 0), ``H_b^T H_b``, ``H_b^T T0_b`` and sizes per sub-block."""
    extra, cfg = rest if len(rest) == 2 else (None, rest[0])
    Xb = np.asarray(Xb)
    t0 = (
        np.asarray(extra, dtype=np.intp).ravel()
        if extra is not None
        else _init_labels_block(Xb, lohi, cfg)
    )
    L = int(cfg["L"])
    G = np.zeros((L, L), order="F")
    HtT: Any = None
    for sl in sub_blocks(Xb.shape[0]):
        Hb = _hidden(cfg["fmap"], Xb[sl], cfg["hdtype"])
        T0 = labels_to_targets(t0[sl], cfg["m"], cfg["out"])
        G_b, HtT_b = gram_block(Hb, T0)
        assert HtT_b is not None  # targets were given
        G += G_b
        HtT = np.zeros(HtT_b.shape) + HtT_b if HtT is None else HtT + HtT_b
    parts = (G, HtT)
    counts = np.bincount(t0, minlength=cfg["m"])
    return {"v": {0: t0}, "F": None, "w": None}, (parts, counts)


def _delta_and_digest(
    Xb: Any, new: Any, old: Any, cfg: dict[str, Any], Hsub: list[Any] | None
) -> tuple[Any, int, bytes]:
    """Per sub-block change of ``H^T T`` from the rows whose label changed (as in memory)."""
    delta: Any = None
    n_changed = 0
    m, out = cfg["m"], cfg["out"]
    for i, sl in enumerate(sub_blocks(Xb.shape[0])):
        idx = np.flatnonzero(new[sl] != old[sl])
        n_changed += idx.size
        if not idx.size:
            continue
        if cfg["cached"]:
            Hrows = (Hsub[i] if Hsub is not None else _hidden(cfg["fmap"], Xb[sl], cfg["hdtype"]))[
                idx
            ]
        else:
            Hrows = _hidden(cfg["fmap"], Xb[sl][idx], cfg["hdtype"])
        d = target_update_block(
            Hrows,
            labels_to_targets(new[sl][idx], m, out),
            labels_to_targets(old[sl][idx], m, out),
        )
        # summed from float64 zeros: with one sub-block per chunk, exactly d
        delta = np.zeros(d.shape) + d if delta is None else delta + d
    return delta, n_changed, hashlib.blake2b(np.ascontiguousarray(new).tobytes()).digest()


def _output_pass(
    Xb: Any,
    state: Any,
    lohi: Any,
    beta: Any,
    ver: int,
    new_ver: int,
    keep: Any,
    cfg: dict[str, Any],
) -> Any:
    """Outputs of ``beta``, the loss at labels ``ver``, the relabelling ``new_ver`` and,
    speculatively (no repair), its change of ``H^T T`` against ``ver``."""
    Xb = np.asarray(Xb)
    t = state["v"][ver]
    m, out = cfg["m"], cfg["out"]
    Fs, Hs = [], []
    loss = 0.0
    for sl in sub_blocks(Xb.shape[0]):
        Hb = _hidden(cfg["fmap"], Xb[sl], cfg["hdtype"])
        F_b, loss_b = output_block(Hb, beta, labels_to_targets(t[sl], m, out))
        Fs.append(F_b)
        loss += loss_b
        Hs.append(Hb)
    F = np.concatenate(Fs) if Fs else np.zeros((0,) + beta.shape[1:], dtype=np.float64)
    a = relabel(F, m, out)
    delta, n_changed, digest = _delta_and_digest(Xb, a, t, cfg, Hs)
    versions = {k: v for k, v in state["v"].items() if k in keep}
    versions[new_ver] = a
    new_state = {"v": versions, "F": F, "w": None}
    return new_state, (loss, np.bincount(a, minlength=m), delta, n_changed, digest)


def _select_pass(
    Xb: Any,
    state: Any,
    lohi: Any,
    src: int,
    pq: int,
    chosen: Any,
    p: int,
    q: int,
    k: int,
    cfg: dict[str, Any],
) -> Any:
    """Apply the pending move to the working labels, return the ``k`` cheapest members of p."""
    lo, _ = lohi
    w = state["w"] if state["w"] is not None else state["v"][src].copy()
    if chosen is not None:
        a, b = np.searchsorted(chosen, [lo, lo + w.size])
        w[chosen[a:b] - lo] = pq
    members = np.flatnonzero(w == p)
    cost = _switch_cost(state["F"], members, p, q, cfg["out"])
    order = np.argsort(cost, kind="stable")[:k]
    new_state = dict(state)
    new_state["w"] = w
    return new_state, (cost[order], members[order] + lo)


def _commit_pass(
    Xb: Any,
    state: Any,
    lohi: Any,
    src: int,
    pq: int,
    chosen: Any,
    old: int,
    new_ver: int,
    keep: Any,
    cfg: dict[str, Any],
) -> Any:
    lo, _ = lohi
    Xb = np.asarray(Xb)
    w = state["w"] if state["w"] is not None else state["v"][src].copy()
    if chosen is not None:
        a, b = np.searchsorted(chosen, [lo, lo + w.size])
        w[chosen[a:b] - lo] = pq
    delta, n_changed, digest = _delta_and_digest(Xb, w, state["v"][old], cfg, None)
    versions = {k: v for k, v in state["v"].items() if k in keep}
    versions[new_ver] = w
    return {"v": versions, "F": state["F"], "w": None}, (
        np.bincount(w, minlength=cfg["m"]),
        delta,
        n_changed,
        digest,
    )


def _moved_block(state: Any, lohi: Any, ver: int, cfg: dict[str, Any]) -> Any:
    t = state["v"][ver]
    return np.flatnonzero(relabel(state["F"], cfg["m"], cfg["out"]) != t) + lohi[0]


def _labels_of(state: Any, ver: int) -> Any:
    return state["v"][ver]


# ------------------------------------------------------------ the problem
class DaskELMRidgeProblem:
    """EMMC's alternation on a dask array, for :class:`LabelAlternation` with label handles.

    A handle is an int naming a labelling kept, block by block, in the workers'
    states. ``fit_labels(h)`` solves the ridge system with ``H^T T(h)`` updated
    from the change reported by the pass that created ``h``; ``objective`` runs
    the output pass (once per fit, cached); ``assign`` names the relabelling
    that pass computed; ``repair`` runs the selection passes of the paper's
    repair (:func:`marginclust.objectives._elm_ridge.repair_balance`, same
    ranking, ties by row) and one commit pass.
    """

    def __init__(
        self, X: da.Array, cfg: dict[str, Any], C: float, l_max: int, init_extra: da.Array | None
    ) -> None:
        self.X, self.cfg, self.C, self.l_max = X, cfg, float(C), int(l_max)
        self.m, self.out = int(cfg["m"]), cfg["out"]
        self.n_samples = int(X.shape[0])
        self.n_passes = 0
        self.states, parts = _states_pass(X, _gram_pass, None, cfg, extra=init_extra)
        self.n_passes += 1
        L = int(cfg["L"])
        G = np.zeros((L, L), order="F")
        T_shape = (L,) if self.out == "binary" or self.out == "single" else (L, self.m)
        HtT0 = np.zeros(T_shape)
        counts = np.zeros(self.m, dtype=np.intp)
        for (G_b, HtT_b), c in parts:
            G += G_b
            if HtT_b is not None:
                HtT0 += HtT_b
            counts += c
        _symmetrize(G)
        self.factor = factor_ridge(G, self.C)
        self.dof = ridge_dof(self.factor, self.C)
        self.init_counts = counts
        # per version: cluster sizes, H^T T (once fitted), change vs its parent, digest
        self.counts: dict[int, Any] = {0: counts}
        self.HtT: dict[int, Any] = {0: HtT0}
        self.pending: dict[int, tuple[int, list[Any], int, bytes]] = {}
        self.fitted: int | None = None
        self._next = 1
        self._outputs: dict[int, tuple[Any, float, int]] = {}  # id(beta) -> (beta, loss, ver)
        self._keep: set[int] = {0}

    def _new_version(self) -> int:
        v = self._next
        self._next += 1
        return v

    def fit_labels(self, h: int) -> tuple[Any, int]:
        if h not in self.HtT:
            parent, deltas, _, _ = self.pending[h]
            HtT = self.HtT[parent].copy()
            for d in deltas:
                if d is not None:
                    HtT += d
            self.HtT[h] = HtT
        for v in list(self.HtT):
            if v not in (h, 0):
                del self.HtT[v]
        self.fitted = h
        self._keep = {0, h}
        beta = ridge_primal(self.factor, self.HtT[h])
        return beta, h

    def _run_outputs(self, model: tuple[Any, int]) -> tuple[float, int]:
        beta, ver = model
        key = id(beta)
        if key in self._outputs and self._outputs[key][0] is beta:
            return self._outputs[key][1], self._outputs[key][2]
        new_ver = self._new_version()
        self.states, parts = _states_pass(
            self.X, _output_pass, self.states, beta, ver, new_ver, frozenset(self._keep), self.cfg
        )
        self.n_passes += 1
        loss = 0.0
        counts = np.zeros(self.m, dtype=np.intp)
        deltas: list[Any] = []
        n_changed = 0
        digests = []
        for loss_b, c, d, nc, dg in parts:
            loss += loss_b
            counts += c
            deltas.append(d)
            n_changed += nc
            digests.append(dg)
        self.counts[new_ver] = counts
        self.pending[new_ver] = (ver, deltas, n_changed, b"".join(digests))
        self._keep.add(new_ver)
        self._outputs = {key: (beta, loss, new_ver)}
        return loss, new_ver

    def objective(self, model: tuple[Any, int], labels: int) -> float:
        beta = model[0]
        loss, _ = self._run_outputs(model)
        return 0.5 * float(np.sum(beta * beta)) + 0.5 * self.C * loss

    def assign(self, model: tuple[Any, int]) -> int:
        return self._run_outputs(model)[1]

    def repair(self, h: int, model: tuple[Any, int]) -> int:
        self._run_outputs(model)  # the outputs F rank the members
        counts = self.counts[h].copy()
        pending = None
        moved = False
        while True:
            p, q = int(np.argmax(counts)), int(np.argmin(counts))
            gap = int(counts[p] - counts[q])
            if gap <= self.l_max and counts[q] > 0:
                break
            k = max((gap - self.l_max + 1) // 2, 1)
            pq, ch = pending if pending is not None else (-1, None)
            self.states, parts = _states_pass(
                self.X, _select_pass, self.states, h, pq, ch, p, q, k, self.cfg
            )
            self.n_passes += 1
            costs = np.concatenate([c for c, _ in parts])
            idx = np.concatenate([i for _, i in parts])
            chosen = np.sort(idx[np.argsort(costs, kind="stable")[:k]])
            pending = (q, chosen)
            counts[p] -= k
            counts[q] += k
            moved = True
        if not moved:
            return h
        new_ver = self._new_version()
        old = self.fitted if self.fitted is not None else 0
        pq, ch = pending if pending is not None else (-1, None)
        self.states, parts = _states_pass(
            self.X,
            _commit_pass,
            self.states,
            h,
            pq,
            ch,
            old,
            new_ver,
            frozenset(self._keep | {new_ver}),
            self.cfg,
        )
        self.n_passes += 1
        deltas: list[Any] = []
        n_changed = 0
        digests = []
        for _, d, nc, dg in parts:
            deltas.append(d)
            n_changed += nc
            digests.append(dg)
        self.counts[new_ver] = counts
        self.pending[new_ver] = (old, deltas, n_changed, b"".join(digests))
        self._keep.add(new_ver)
        return new_ver

    def is_feasible(self, h: int) -> bool:
        c = self.counts[h]
        return bool(c.min() > 0 and c.max() - c.min() <= self.l_max)

    def count_changed(self, new: int, old: int) -> int:
        if new == old:
            return 0
        parent, _, n_changed, _ = self.pending[new]
        assert parent == old, "a change is known against the labels it was computed from"
        return n_changed

    def label_key(self, h: int) -> Any:
        if h == 0:
            return ("init",)
        return self.pending[h][3]

    # ------------------------------------------------------------ results
    def labels(self, h: int) -> da.Array:
        """Lazy labels of handle ``h`` (from the blocks' states)."""
        return _lazy_from_states(self.X, self.states, _labels_of, h)

    def moved(self, h: int) -> npt.NDArray[np.intp]:
        """Rows whose label ``h`` differs from the relabelling of the last outputs (one pass)."""
        self.n_passes += 1
        parts = _partials_from_states(self.X, self.states, _moved_block, h, self.cfg)
        return np.concatenate(parts).astype(np.intp) if parts else np.zeros(0, dtype=np.intp)


def _states_pass(
    X: da.Array, fn: Any, states: Any, *args: Any, extra: da.Array | None = None
) -> tuple[list[Any], list[Any]]:
    """One pass keeping per-block state: ``fn(X_b, state_b, (lo, hi), [extra_b], *args)``.

    As :func:`marginclust.dask._ops.block_states` (states stay on the workers
    under ``distributed``; only the partials are gathered), with the block's row
    range and an optional row-aligned extra block.
    """
    import operator

    from ._ops import _blocks, _shared, block_offsets

    xb = _blocks(X)
    off = block_offsets(X)
    # arrays and the config (feature map, k-means model) enter the graph once, not per task
    shared = [dask.delayed(a, pure=False) if isinstance(a, dict) else a for a in _shared(args)]
    extras = None if extra is None else list(extra.to_delayed().ravel())
    f = dask.delayed(fn, pure=False, nout=2)
    if states is None:
        states = [None] * len(xb)
    tasks = [
        f(blk, s, (off[b], off[b + 1]), *([] if extras is None else [extras[b]]), *shared)
        for b, (blk, s) in enumerate(zip(xb, states))
    ]
    client = _active_client()
    if client is None:
        out = dask.compute(*tasks)
        return [o[0] for o in out], [o[1] for o in out]
    futs = client.compute(tasks)
    parts = client.gather(client.map(operator.itemgetter(1), futs, pure=False))
    new_states = client.map(operator.itemgetter(0), futs, pure=False)
    return list(new_states), list(parts)


def _partials_from_states(X: da.Array, states: list[Any], fn: Any, *args: Any) -> list[Any]:
    from ._ops import block_offsets

    off = block_offsets(X)
    f = dask.delayed(fn, pure=False)
    tasks = [f(s, (off[b], off[b + 1]), *args) for b, s in enumerate(states)]
    client = _active_client()
    if client is None:
        return list(dask.compute(*tasks))
    return list(client.gather(client.compute(tasks)))


def _lazy_from_states(X: da.Array, states: list[Any], fn: Any, *args: Any) -> da.Array:
    f = dask.delayed(fn, pure=False)
    parts = [
        da.from_delayed(f(s, *args), shape=(c,), dtype=np.intp) for s, c in zip(states, X.chunks[0])
    ]
    return da.concatenate(parts) if parts else da.zeros((0,), dtype=np.intp)


# ------------------------------------------------------------ the fitter
@register(EMMC)
def fit_emmc(est: EMMC, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit ``est`` on the dask array X; lazy ``labels_`` (see the module docstring)."""
    n, d = X.shape
    extremes, mu = column_stats(X)
    proxy = ShapeProxy(X.shape, X.dtype, extremes)
    # the shared checks (n >= 2, n_clusters, _check_params) on X's shape; the
    # proxy shows value checks (check_finite_scale) X's column extremes
    check_fit_data(est, proxy)  # type: ignore[arg-type]  # reads .shape (and extremes)
    if int(est.n_hidden) > n:
        raise ValueError(
            f"EMMC on a dask array solves the primal (n_hidden x n_hidden) system; "
            f"n_hidden={est.n_hidden} > n_samples={n} needs the dual (n x n): fit in "
            "memory or use fewer hidden nodes."
        )
    s = _location_scale(X, mu)
    context = {"X": X, "mean": mu, "scale": s}

    def fit_one(ctx: dict[str, Any], random_state: np.random.RandomState) -> SolverResult:
        return _fit_one(est, ctx, random_state)

    est._fit_restarts(context, fit_one)
    return {"labels_": est.labels_}  # type: ignore[dict-item]  # lazy (dask) after this fitter


def _fit_one(
    est: EMMC, context: dict[str, Any], random_state: np.random.RandomState
) -> SolverResult:
    """One restart, as ``EMMC._fit_one`` (primal path) with the passes above."""
    X: da.Array = context["X"]
    n = X.shape[0]
    m = est._n_clusters
    L = int(est.n_hidden)
    out = est._output
    fmap = est._draw_features(_RowGatherer(X), context, random_state)
    chunks = X.chunks[0]
    if m == 1:
        zeros = da.zeros((n,), chunks=(chunks,), dtype=np.intp)
        x = {
            "labels_": zeros,
            "coef_": np.zeros(L),
            "feature_map_": fmap,
            "balance_": est._balance,
            "C_": est._C,
            "balance_moved_": np.zeros(0, np.intp),
            "output_": "binary",
            "solver_": "none",
            "stop_reason_": "converged",
            "init_fixed_point_": False,
            "init_labels_": zeros,
            "effective_dof_": 0.0,
        }
        return SolverResult(
            x=x,
            objective=0.0,
            objective_history=np.zeros(1),
            n_iter=1,
            converged=True,
            info={"cluster_sizes": np.array([n])},
        )
    cached = n * L * 8 <= est._max_cache_bytes
    hdtype = np.float64 if cached else est._stream_dtype
    cfg: dict[str, Any] = {
        "fmap": fmap,
        "hdtype": hdtype,
        "cached": cached,
        "m": m,
        "out": out,
        "L": L,
    }
    init = est._init
    init_extra = None
    if not isinstance(init, str):
        lab = init
        if isinstance(lab, da.Array):
            init_extra = lab.astype(np.intp).rechunk((chunks,))
        else:
            init_extra = da.from_array(np.asarray(lab, dtype=np.intp), chunks=(chunks,))
    elif init == "random":
        nb = len(chunks)
        block_of = {}
        start = 0
        for b, c in enumerate(chunks):
            block_of[start] = b
            start += c
        cfg.update(
            kind="random",
            seeds=random_state.randint(np.iinfo(np.int32).max, size=nb),
            block_of=block_of,
        )
    elif init == "spectral":
        rows, _ = sample_rows(X, MAX_SAMPLES, random_state)
        Xs = np.asarray(rows, dtype=np.float64)
        lab = spectral_sample_labels(Xs, m, random_state=random_state)
        if rows.shape[0] == n:  # every row: the in-memory start exactly
            init_extra = da.from_array(lab, chunks=(chunks,))
        else:
            cfg.update(kind="nearest", sample=Xs, labels=lab)
    else:  # k-means on a sample of rows, in the layer ("k-means-elm") or on X
        if init == "k-means-elm":
            if cached:

                def feats(rows: Any) -> Any:
                    return fmap._transform(rows).astype(np.float32)
            else:

                def feats(rows: Any) -> Any:
                    return fmap._transform(rows, dtype=np.float32)
        else:

            def feats(rows: Any) -> Any:
                return rows

        rows, _ = sample_rows(X, _KMEANS_MAX_ROWS, random_state)
        km = kmeans_on_sample(feats(np.asarray(rows)), m, random_state)
        if rows.shape[0] == n:  # every row: k-means' own labels, as in memory
            init_extra = da.from_array(np.asarray(km.labels_, dtype=np.intp), chunks=(chunks,))
        else:
            cfg.update(kind="kmeans", km=km, feats=feats)
    problem = DaskELMRidgeProblem(X, cfg, est._C, est._balance, init_extra)
    l_max = est._balance
    if isinstance(est.balance, str):  # "auto": the start's own size spread, floored
        c0 = problem.init_counts
        l_max = max(l_max, int(c0.max() - c0.min()))
    problem.l_max = l_max
    solver = LabelAlternation(
        max_iter=int(est.max_iter), tol=float(est.tol), verbose=int(est.verbose), name="EMMC"
    )
    res = solver.solve(problem, 0)  # type: ignore[arg-type]  # a label handle (see the hooks)
    h = res.x
    beta = res.info["model"][0]
    dof = problem.dof
    fixed_point, message = est._stop_outcome(res, dof, n)
    moved = problem.moved(h)
    x = {
        "labels_": problem.labels(h),
        "coef_": np.asarray(beta, dtype=np.float64),
        "feature_map_": fmap,
        "balance_": l_max,
        "C_": est._C,
        "balance_moved_": moved,
        "output_": out,
        "solver_": "primal",
        "stop_reason_": res.info["stop_reason"],
        "init_fixed_point_": fixed_point,
        "init_labels_": problem.labels(0),
        "effective_dof_": dof,
        "n_passes_": problem.n_passes,
    }
    return SolverResult(
        x=x,
        objective=res.objective,
        objective_history=res.objective_history,
        n_iter=res.n_iter,
        converged=res.converged,
        stop_crit=res.stop_crit,
        message=message,
        info={"cluster_sizes": problem.counts[h]},
    )

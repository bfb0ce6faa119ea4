"""FCM and PKM on dask arrays larger than a worker's memory.

A float32 array of ``--n`` rows x ``--d`` features (three Gaussian groups plus
unit noise) is generated lazily, block by block, from a fixed seed per block
(``numpy.random.default_rng(seed + block)``), so no process ever holds it: every
pass over X regenerates its blocks on the workers (as a real out-of-core data
set would be re-read from disk). It is clustered with
``DaskClusterer(FuzzyCMeans(3))`` and ``DaskClusterer(PKM(3))`` on a
``LocalCluster`` of ``--workers`` processes limited to ``--memory-limit`` each.

Reported per method:

- seconds per iteration (median over the solver's passes; each pass is timed
  around its one graph execution), beside the in-memory fit's seconds per
  iteration on ``--numpy-n`` rows of the same generator (the largest in-memory
  size; each in-memory pass is timed around its block loop), the dask seconds
  per iteration on those rows persisted in the workers' memory (the engine's
  own cost, like with like), and the time of one bare pass over the lazy X
  (``X.sum()``: generating the data, the floor of any pass over it);
- round trips: graph executions of the whole fit and per iteration;
- peak resident memory of each worker process (VmHWM of ``/proc/self/status``
  in the workers via ``client.run``, read after the lazy fit) against the
  memory limit, and of this process.

Both fits start from the same given (random) centres with ``tol=0`` (FCM) and stop at
``--iters`` iterations, so the per-iteration numbers compare like with like.

Usage::

    # a moderate run (0.75 GiB of data; 8 minutes on a loaded machine)
    python benchmarks/bench_dask.py --n 1e7 --chunk 1e6 --numpy-n 5e6 --iters 3
    # the issue's run: 1e8 x 20 float32 = 8 GB on 2 workers of 3 GiB (quiet machine)
    python benchmarks/bench_dask.py --n 1e8 --chunk 1e6 --numpy-n 2e7 --iters 5
    # EMMC and low-rank SLMC (benchmarks/bench_dask_models.py; raise --n until a
    # fit no longer finishes in 10 minutes)
    python benchmarks/bench_dask.py --methods emmc,slmc --n 20000000 --numpy-n 2000000

Results: ``benchmarks/results/dask.md``.

On paper: communication per iteration at 1e9 rows on 100 workers
-----------------------------------------------------------------
With K clusters, d features, blocks of ``c`` rows (``B = 1e9 / c`` blocks; e.g.
c = 2.5e6 float32 rows x 20 features = 200 MB per block, B = 400, 4 per worker):

- FCM: the client sends the centres (``-2V``, K x d, and ``||v||^2``, K; plus the
  previous centres for the convergence measure) once per iteration, referenced
  by every block task: 2 (K d + K) x 4 bytes = 504 bytes for K = 3, d = 20. Each
  block returns its partials: centre sums ``W^T X_b`` (K x d, dtype of X), the
  weights ``W^T 1`` (K float64), the objective and the membership change (two
  float64) and the crisp cluster sizes (K int64): 3*20*4 + 24 + 16 + 24 = 304
  bytes, about 1 kB pickled. Per iteration: B x 1 kB = 0.4 MB into the client,
  one round trip. Memberships never travel (recomputed blockwise; the lazy
  ``memberships_`` are computed only when asked).
- PKM (Lloyd): the same centres out (K x d + K); back per block the changes of
  the centre sums (K x d float64 = 480 bytes), of the counts (K float64) and the
  number of moves, or nothing when no point of the block moved: about 0.4 MB per
  iteration at most. The labels (8 bytes a row: 80 MB per worker at 1e9 / 100)
  stay on the workers between passes (futures), one round trip per pass. An
  emptied cluster costs one more pass (candidates: (K + empties) rows per block).
- The set-up: two frame passes (per block: d float64 column sums and extremes;
  then one float64 sum of squares) and one init sample per restart (1e4 rows x d
  gathered: 0.8 MB float32).

So bandwidth is no bound: 0.4 MB per iteration is milliseconds on any network.
Per iteration the bound is compute (reading X: 1e7 rows x 20 per worker, a few
GFLOP) and, for small blocks, the scheduler's per-task overhead (of order 1 ms
per task on the scheduler: B = 400 tasks cost about 0.4 s, so blocks should
hold at least ~1e6 rows) plus one client-scheduler round-trip latency. The
partials are reduced on the client in block order (what makes the synchronous
fit bitwise equal to the in-memory one); a tree reduction on the workers would
cut the client's inbound traffic to one partial, at the price of that order.
(BMMC's bundle steps, by contrast, are many small round trips per iteration:
latency-bound; see the dask-models section when added.)
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import time
import warnings
from typing import Any

import dask.array as da
import numpy as np
from threadpoolctl import threadpool_limits

from marginclust import PKM, FuzzyCMeans
from marginclust.dask import DaskClusterer, _ops
from marginclust.exceptions import ConvergenceWarning
from marginclust.utils import _blocks

K_TRUE = 3
SEED = 12345


def _centres(d: int) -> np.ndarray:
    return np.random.RandomState(SEED).randn(K_TRUE, d).astype(np.float32) * 1.5


def _gen_block(c: int, d: int, block: int) -> np.ndarray:
    rng = np.random.default_rng(SEED + block)
    X = rng.standard_normal((c, d), dtype=np.float32)
    X += _centres(d)[rng.integers(K_TRUE, size=c)]
    return X


def _gen_dask_block(block_id: Any = None, *, sizes: tuple[int, ...], d: int) -> np.ndarray:
    b = block_id[0]
    return _gen_block(sizes[b], d, b)


def lazy_data(n: int, d: int, chunk: int) -> da.Array:
    sizes = tuple([chunk] * (n // chunk) + ([n % chunk] if n % chunk else []))
    return da.map_blocks(
        functools.partial(_gen_dask_block, sizes=sizes, d=d),
        chunks=(sizes, (d,)),
        dtype=np.float32,
        meta=np.empty((0, 0), dtype=np.float32),
    )


def memory_data(n: int, d: int, chunk: int) -> np.ndarray:
    """The first n rows of the same generator, in memory."""
    out = np.empty((n, d), dtype=np.float32)
    for b, lo in enumerate(range(0, n, chunk)):
        c = min(chunk, n - lo)
        out[lo : lo + c] = _gen_block(c, d, b)
    return out


class PassTimer:
    """Time each graph execution of marginclust.dask and each in-memory block pass."""

    def __init__(self) -> None:
        self.records: list[tuple[str, float]] = []
        self._orig: dict[str, Any] = {}

    def __enter__(self) -> PassTimer:
        for mod, name in ((_ops, "block_partials"), (_ops, "block_states")):
            orig = getattr(mod, name)
            self._orig[name] = orig

            def wrapped(X: Any, fn: Any, *a: Any, _orig: Any = orig, **kw: Any) -> Any:
                t = time.perf_counter()
                out = _orig(X, fn, *a, **kw)
                self.records.append((getattr(fn, "__name__", "?"), time.perf_counter() - t))
                return out

            setattr(mod, name, wrapped)
        orig_map = _blocks.BlockRunner.map
        self._orig["map"] = orig_map

        def timed_map(runner: Any, fn: Any) -> Any:
            t = time.perf_counter()
            out = orig_map(runner, fn)
            self.records.append(("numpy-pass", time.perf_counter() - t))
            return out

        _blocks.BlockRunner.map = timed_map  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        _ops.block_partials = self._orig["block_partials"]
        _ops.block_states = self._orig["block_states"]
        _blocks.BlockRunner.map = self._orig["map"]  # type: ignore[method-assign]


# the solver passes (one per iteration) among the recorded ones
SOLVER_PASSES = {"_block", "_pass_block", "numpy-pass"}


def make(method: str, d: int, iters: int) -> Any:
    C0 = np.random.RandomState(SEED + 1).randn(K_TRUE, d)  # a given start for both paths
    if method == "fcm":
        return FuzzyCMeans(n_clusters=K_TRUE, init=C0, tol=0.0, max_iter=iters)
    return PKM(n_clusters=K_TRUE, init=C0, max_iter=iters)


def fit_timed(est: Any, X: Any) -> tuple[Any, float, list[tuple[str, float]]]:
    with PassTimer() as timer, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = time.perf_counter()
        model = est.fit(X)
        total = time.perf_counter() - t
    return model, total, timer.records


def per_iteration(records: list[tuple[str, float]]) -> tuple[float, int]:
    solver = [t for name, t in records if name in SOLVER_PASSES]
    return (float(np.median(solver[1:])) if len(solver) > 1 else float("nan")), len(records)


def _peak_rss_bytes() -> int:
    """Peak resident set of this process since it started (VmHWM; ru_maxrss as fallback).

    ``ru_maxrss`` is not used first: a spawned worker inherits its parent's high-water
    mark through fork + exec, VmHWM belongs to the process's own address space.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=float, default=1e8, help="rows of the lazy array")
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--chunk", type=float, default=1e6, help="rows per block")
    p.add_argument("--iters", type=int, default=5, help="iterations per fit (max_iter)")
    p.add_argument("--numpy-n", type=float, default=1e7, help="rows of the in-memory fit")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="3GiB")
    p.add_argument("--methods", default="fcm,pkm", help="any of fcm,pkm,emmc,slmc")
    args = p.parse_args()
    n, chunk, n_np, d = int(args.n), int(args.chunk), int(args.numpy_n), args.d
    from distributed import Client, LocalCluster

    print(f"# n={n} x d={d} float32 ({n * d * 4 / 2**30:.2f} GiB), blocks of {chunk} rows; "
          f"{args.workers} workers x {args.memory_limit}; {args.iters} iterations")
    rows = []
    for method in args.methods.split(","):
        if method in ("emmc", "slmc"):
            # dask-models' sections: benchmarks/bench_dask_models.py (its docstring has
            # the on-paper communication of EMMC, low-rank SLMC and BMMC)
            from bench_dask_models import run as run_model

            run_model(method, n, n_np, args.workers, args.memory_limit, chunk)
            continue
        # in memory: the same generator, the largest size held here; 2 BLAS-free threads
        Xn = memory_data(n_np, d, chunk)
        with threadpool_limits(limits=args.workers, user_api="blas"):
            ref, t_np, rec_np = fit_timed(make(method, d, args.iters), Xn)
        del Xn
        it_np, _ = per_iteration(rec_np)
        with LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=args.memory_limit,
        ) as cluster, Client(cluster) as client:
            X = lazy_data(n, d, chunk)
            t = time.perf_counter()
            float(X.sum().compute())
            t_pass = time.perf_counter() - t
            model, t_dask, rec = fit_timed(DaskClusterer(make(method, d, args.iters)), X)
            it_dask, trips = per_iteration(rec)
            peaks = client.run(_peak_rss_bytes)
            # the engine's own cost: the in-memory rows persisted in the workers' memory,
            # so a pass computes without regenerating X (like with like with numpy)
            Xp = lazy_data(n_np, d, chunk).persist()
            _, _, rec_p = fit_timed(DaskClusterer(make(method, d, args.iters)), Xp)
            it_persist, _ = per_iteration(rec_p)
            del Xp
        load = os.getloadavg()
        rows.append((method, model.n_iter_, trips, t_dask, it_dask, it_persist,
                     it_np, ref.n_iter_, t_pass, max(peaks.values()), load))
        print(f"\n## {method.upper()}  (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
        print(f"dask fit: {t_dask:.1f} s total, n_iter_={model.n_iter_}, "
              f"{trips} graph executions ({trips / max(model.n_iter_, 1):.2f} per iteration; "
              f"set-up {trips - model.n_iter_ - 1} + one per pass)")
        print(f"dask seconds per iteration at n={n}: {it_dask:.2f} "
              f"(one bare pass over X, X.sum(): {t_pass:.2f} s)")
        print(f"numpy seconds per iteration at n={n_np}: {it_np:.3f}; dask on the same rows "
              f"persisted in the workers: {it_persist:.3f} (ratio {it_persist / it_np:.2f}); "
              f"the lazy array's per-iteration time scaled to n={n_np}: {it_dask * n_np / n:.3f}")
        for addr, peak in sorted(peaks.items()):
            print(f"worker {addr}: peak RSS {peak / 2**30:.2f} GiB (limit {args.memory_limit})")
        print(f"this process: peak RSS {_peak_rss_bytes() / 2**30:.2f} GiB "
              "(includes the in-memory fit)")
        print("centres (dask fit):", np.round(model.cluster_centers_[:, :3], 3).tolist(), "...")
    print("\n| method | n_iter | graph executions | dask s/iter (lazy X) | dask s/iter "
          "(persisted numpy-n rows) | numpy s/iter (numpy-n rows) | X.sum() s "
          "| max worker peak GiB |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[4]:.2f} | {r[5]:.3f} | {r[6]:.3f} | {r[8]:.2f} "
              f"| {r[9] / 2**30:.2f} |")


if __name__ == "__main__":
    main()

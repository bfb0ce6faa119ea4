"""MaxMarginClustering on dask arrays: rows per second and peak memory per worker.

A float64 array of ``--n`` rows x 2 columns (three Gaussian blobs of unit spread,
centres 10 apart: make_blobs-like) is generated lazily, chunk by chunk, from a
fixed seed per chunk (``numpy.random.default_rng(SEED + chunk)``), so no process
ever holds it: every pass over X regenerates its chunks on the workers (as a real
out-of-core data set would be re-read from disk). It is fitted with
``DaskClusterer(MaxMarginClustering(n_clusters=3, random_state=0))`` on a fresh
``LocalCluster`` of ``--workers`` processes x 1 thread limited to
``--memory-limit`` each, and every row is labelled (the lazy ``labels_``
computed, reduced on the workers to its contingency table with the true blobs,
so that only 3 x 3 counts come back).

Stages, in seconds (each printed as it ends):

- ``bare pass``: ``X.sum()``, generating the data once (the floor of any pass);
- ``check pass``: the fit's check of X (finiteness, width, extremes);
- ``sample pass``: fetching the ``max_samples`` rows drawn across the chunks;
- ``search``: the candidates and the judge on the sample, in this process;
- ``classifier``: the margin classifier (an RBF SVC) trained on the sample;
- ``labelling``: the margin classifier's labels of every row, on the workers
  (``--label-rows m``: of the first ``m`` rows only, the time scaled by ``n / m``).

The two passes are timed around their graph executions, the classifier around
its training (the fit's own code, wrapped here only to read the clock); the
search is the rest of the fit. Rows per second: ``n`` over the fit plus the
labelling (the bare pass is not part of it). Memory: the peak resident set of
each worker process (VmHWM of ``/proc/self/status`` via ``client.run``; a fresh
cluster per size), the peak of the workers' summed process memory
(``distributed.diagnostics.MemorySampler``, every 0.5 s), and this process's
peak.

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_dask.py \\
        --n 1e6,1e7,1e8 --chunk 1e6 --workers 2 --memory-limit 8GB

Results: ``benchmarks/results/max-margin-dask.md``.
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
from scipy.optimize import linear_sum_assignment
from threadpoolctl import threadpool_info

from marginclust import MaxMarginClustering
from marginclust.dask import DaskClusterer
from marginclust.dask._backend import DaskRows
from marginclust.estimators import _max_margin

SEED = 2024
K = 3
CENTRES = np.array([[0.0, 0.0], [10.0, 0.0], [5.0, 8.66]])


def _gen(c: int, block: int, want: str) -> np.ndarray:
    rng = np.random.default_rng(SEED + block)
    y = rng.integers(K, size=c)  # drawn first: the true labels need no normals
    if want == "y":
        return y
    return CENTRES[y] + rng.standard_normal((c, 2))


def _block(block_id: Any = None, *, sizes: tuple[int, ...], want: str) -> np.ndarray:
    return _gen(sizes[block_id[0]], block_id[0], want)


def _sizes(n: int, chunk: int) -> tuple[int, ...]:
    return tuple([chunk] * (n // chunk) + ([n % chunk] if n % chunk else []))


def lazy_blobs(n: int, chunk: int) -> tuple[da.Array, da.Array]:
    """X (n x 2 float64) and its true labels, both generated per chunk on the workers."""
    sizes = _sizes(n, chunk)
    X = da.map_blocks(functools.partial(_block, sizes=sizes, want="X"), chunks=(sizes, (2,)),
                      dtype=np.float64, meta=np.empty((0, 0)))
    y = da.map_blocks(functools.partial(_block, sizes=sizes, want="y"), chunks=(sizes,),
                      dtype=np.int64, meta=np.empty(0, dtype=np.int64))
    return X, y


def _peak_rss_bytes() -> int:
    """Peak resident set of this process since it started (VmHWM; ru_maxrss as fallback)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class _Clock:
    """Seconds of each graph execution of the backend and of the classifier's training."""

    def __init__(self) -> None:
        self.passes: list[float] = []
        self.classifier = 0.0

    def __enter__(self) -> _Clock:
        self._compute = DaskRows._compute
        self._train = _max_margin.margin_classifier
        clock = self

        def compute(rows: Any, tasks: list[Any]) -> list[Any]:
            t = time.perf_counter()
            out = clock._compute(rows, tasks)
            clock.passes.append(time.perf_counter() - t)
            return out

        def train(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            out = clock._train(*a, **kw)
            clock.classifier += time.perf_counter() - t
            return out

        DaskRows._compute = compute  # type: ignore[method-assign]
        _max_margin.margin_classifier = train  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: Any) -> None:
        DaskRows._compute = self._compute  # type: ignore[method-assign]
        _max_margin.margin_classifier = self._train


def _stage(name: str, seconds: float) -> None:
    print(f"  {name:<12} {seconds:8.2f} s", flush=True)


def run(n: int, chunk: int, workers: int, memory_limit: str, max_samples: int,
        label_rows: int = 0) -> dict[str, Any]:
    from distributed import Client, LocalCluster
    from distributed.diagnostics import MemorySampler

    print(f"\n## n = {n:.0e} rows x 2 float64 ({n * 16 / 2**30:.2f} GiB), chunks of {chunk} rows, "
          f"{workers} workers x 1 thread, memory_limit {memory_limit}", flush=True)
    out: dict[str, Any] = {"n": n}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None,
                      memory_limit=memory_limit) as cluster, Client(cluster) as client:
        X, y = lazy_blobs(n, chunk)
        sampler = MemorySampler()
        with sampler.sample("run", interval=0.5):
            t = time.perf_counter()
            float(X.sum().compute())
            out["bare pass"] = time.perf_counter() - t
            _stage("bare pass", out["bare pass"])
            est = MaxMarginClustering(n_clusters=K, max_samples=max_samples, random_state=0)
            with _Clock() as clock, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                model = DaskClusterer(est).fit(X)
                fit = time.perf_counter() - t
            out["check pass"], out["sample pass"] = clock.passes
            out["classifier"] = clock.classifier
            out["search"] = fit - sum(clock.passes) - clock.classifier
            for name in ("check pass", "sample pass", "search", "classifier"):
                _stage(name, out[name])
            m = n if not label_rows or label_rows >= n else label_rows
            t = time.perf_counter()
            table = da.bincount(y[:m] * K + model.labels_[:m], minlength=K * K).compute()
            out["labelling"] = (time.perf_counter() - t) * n / m
            out["labelled"] = m
            _stage("labelling", out["labelling"])
            if m < n:
                print(f"  (labelling measured on the first {m} rows, {out['labelling'] * m / n:.1f}"
                      f" s, scaled to {n} rows: every row costs the same classifier evaluation)")
        peaks = client.run(_peak_rss_bytes)
        summed = sampler.samples["run"]
    counts = table.reshape(K, K)
    r, c = linear_sum_assignment(-counts)
    out["accuracy"] = counts[r, c].sum() / m
    out["fit"] = fit
    out["rows/s"] = n / (fit + out["labelling"])
    out["worker peaks"] = sorted(peaks.values())
    out["summed peak"] = max(v for _, v in summed) if summed else float("nan")
    out["client peak"] = _peak_rss_bytes()
    out["n_sample"] = model.sample_indices_.size
    out["n_support"] = int(model.classifier_.support_.size)
    out["load"] = os.getloadavg()
    print(f"  fit {fit:.2f} s + labelling {out['labelling']:.2f} s: {out['rows/s']:,.0f} rows/s;"
          f" accuracy {out['accuracy']:.4f}; sample {out['n_sample']} rows, "
          f"{out['n_support']} support vectors")
    print("  worker peak RSS: " + ", ".join(f"{p / 2**30:.2f} GiB" for p in out["worker peaks"])
          + f"; workers' summed process memory peak {out['summed peak'] / 2**30:.2f} GiB; "
          f"this process {out['client peak'] / 2**30:.2f} GiB; load average "
          + " ".join(f"{v:.1f}" for v in out["load"]), flush=True)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", default="1e6,1e7", help="comma-separated row counts")
    p.add_argument("--chunk", type=float, default=1e6, help="rows per chunk")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="8GB")
    p.add_argument("--max-samples", type=int, default=3000)
    p.add_argument("--label-rows", type=float, default=0,
                   help="label only the first rows and scale the time to n (0: every row)")
    args = p.parse_args()
    blas = [(i.get("internal_api"), i.get("num_threads")) for i in threadpool_info()]
    print(f"# MaxMarginClustering on dask; BLAS/OpenMP pools {blas}; OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS')}, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}")
    results = [run(int(float(n)), int(args.chunk), args.workers, args.memory_limit,
                   args.max_samples, int(args.label_rows)) for n in args.n.split(",")]
    print("\n| rows | bare pass s | check pass s | sample pass s | search s | classifier s "
          "| labelling s | fit + labelling s | rows/s | worker peak RSS GiB | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        peaks = " / ".join(f"{v / 2**30:.2f}" for v in r["worker peaks"])
        print(f"| {r['n']:.0e} | {r['bare pass']:.1f} | {r['check pass']:.1f} "
              f"| {r['sample pass']:.1f} | {r['search']:.2f} | {r['classifier']:.3f} "
              f"| {r['labelling']:.1f} | {r['fit'] + r['labelling']:.1f} | {r['rows/s']:,.0f} "
              f"| {peaks} | {r['accuracy']:.4f} |"
              + ("" if r["labelled"] == r["n"]
                 else f" (labelling: {r['labelled']:.0e} rows, scaled)"))


if __name__ == "__main__":
    main()

"""EMMC, low-rank SLMC and BMMC on dask arrays: seconds per iteration, round trips, worker memory.

Sections of the dask benchmark for the model fitters (``marginclust.dask._emmc``,
``_slmc``); ``benchmarks/bench_dask.py`` (FCM, PKM) can import :func:`main`.

Data: lazily generated Gaussian blobs (float32, 20 features, 2 clusters), each
chunk drawn from its own seed inside the worker, so X never exists anywhere
as a whole. Dask side: a ``LocalCluster`` of ``--workers`` processes limited to
``--memory-limit`` each; numpy side: the same estimator on the largest
in-memory size given by ``--numpy-rows`` (generated the same way). Printed:
seconds per iteration of both (fit seconds / ``n_iter_``), round trips per
iteration (``n_passes_`` / ``n_iter_``, graph executions of the solver loop; the
fixed once-per-fit passes are listed in the fitters' docstrings), the peak RSS
per worker (polled every 0.5 s) and ``os.getloadavg()``.

Commands (quiet machine; each size must finish in 10 minutes, raise ``--rows``
until it does not)::

    PYTHONPATH=src python benchmarks/bench_dask_models.py --method emmc --rows 20000000
    PYTHONPATH=src python benchmarks/bench_dask_models.py --method slmc --rows 20000000
    PYTHONPATH=src python benchmarks/bench_dask_models.py --method bmmc --rows 20000000
    PYTHONPATH=src python benchmarks/bench_dask_models.py --smoke   # 2e5 rows, seconds

On paper: communication per iteration at 1e9 rows on 100 workers
-----------------------------------------------------------------
Assume d = 20 float32 features (80 GB), chunks of 1e6 rows (1000 chunks, 10 per
worker), one pass = one graph execution of 1000 tasks (~0.3-1 s of scheduler
latency at ~0.3-1 ms per task).

- EMMC (L = 300 hidden nodes, binary: one output). Out per pass: ``beta``
  (L floats, 2.4 KB) and the feature map (W: d x L, 48 KB) once per graph. Back
  per chunk: loss, cluster sizes, the change of ``H^T T`` from the relabelled rows
  (L floats, 2.4 KB, or nothing when no label moved), the count of changed
  labels and a 32-byte digest of the new labels (cycle detection): about
  2.5 MB per iteration in total. Compute per worker per pass: ``H_b = h(X_b)``,
  1e7 rows x 20 x 300 x 2 = 1.2e11 flop plus 3e9 exponentials (tens of
  seconds). So an iteration is compute-bound; the labels (8 bytes/row, up to 3
  versions) and the outputs ``F`` (8 bytes/row) stay on the workers (~240 MB
  per worker). Once per fit: the Gram pass sends one L x L partial per chunk
  (720 KB x 1000 = 720 MB to the client, bandwidth-bound: seconds) and 3 passes
  for the ELM location/scale. The balance repair is the exception: each move of
  the paper's repair is one SELECTION pass returning up to ``min(k, members)``
  candidates (16 bytes each) per chunk, ``k`` the number of rows to move. After
  the first iterations ``k`` is small and a repair is latency-bound (two extra
  round trips of ~1 s each for two clusters, one per move plus a commit for more
  clusters); a badly unbalanced start can make the first repair ship O(n)
  candidates (16 GB at 1e9 rows: bandwidth-bound). A threshold bisection on
  the outputs (O(log n) count-only passes) would bound that; not done.
- Low-rank SLMC (L = 500 components, K = 10 clusters). Out per pass: ``W_t``
  and ``W_{t-1}`` (2 x L x K floats, 80 KB) and the Nystroem map (landmarks and
  the L x L normalisation, 2 MB) once per graph. Back per chunk: the weighted
  Gram ``Phi_b^T D Phi_b`` (L^2 floats, 2 MB), ``Phi_b^T U^m`` (40 KB), the data
  term, the move and the sizes: 2 GB per iteration into the client, i.e.
  bandwidth-bound at the client's link (about 2 s at 1 GB/s) and a sequential
  1000-term reduction (kept for bitwise equality with the in-memory order; a
  tree reduction on the workers would cut it to log depth). Compute per worker:
  the kernel block and ``Phi_b`` (1e7 x 500 x (20 + 500) x 2 = 5e12 flop) and its
  Gram (5e12 flop): minutes. Compute-bound overall; no per-row state persists
  (U is recomputed from W on the workers).
- BMMC (``marginclust.dask._linear_mmc``; multiclass CPMMC the same without
  the polish). Each bundle step is one pass whose messages are tiny: out ``W``
  (q x d floats) and ``t``; back per chunk a risk, ``X_b' Gc_b`` (d x q) and
  ``1' Gc_b`` (q): 1000 x 176 bytes for q = 1. The number of passes is large:
  ``1 + n_inner_iter_[i]`` planes (tens) per CCCP iteration, plus 2 for the
  exact offset polish and 1 for the true objective and the new labels (which
  stay on the workers: 8 bytes/row, 80 MB per worker). So BMMC is
  latency-bound: ~0.3-1 s of scheduling per step at this scale against ~0.1 s
  of compute (1e7 x 20 x 2 flop per worker per pass). The polish's candidate
  pass ships every breakpoint inside the balance box, i.e. the samples whose
  score lies within ``balance`` (0.1) of the margin: a fraction of n, 8 bytes
  each (bandwidth-bound when that fraction is large: 0.8 GB per 1e8 such
  samples). A histogram pass followed by a gather of the one bin holding the
  optimum would bound it by O(bins + n/bins); not done.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import warnings
from typing import Any

import numpy as np

_D = 20


def _blob_block(seed: int, rows: int, d: int = _D) -> np.ndarray:
    rng = np.random.RandomState(seed)
    centres = np.random.RandomState(12345).randn(2, d).astype(np.float32) * 1.5
    lab = rng.randint(2, size=rows)
    return (centres[lab] + rng.randn(rows, d).astype(np.float32)).astype(np.float32)


def lazy_blobs(n: int, chunk: int) -> Any:
    """An (n, 20) float32 dask array whose chunks are generated on the workers."""
    import dask.array as da

    import dask

    sizes = [min(chunk, n - s) for s in range(0, n, chunk)]
    parts = [
        da.from_delayed(dask.delayed(_blob_block)(i, r), shape=(r, _D), dtype=np.float32)
        for i, r in enumerate(sizes)
    ]
    return da.concatenate(parts)


def _estimator(method: str) -> Any:
    from marginclust import BMMC, EMMC, SLMC

    if method == "bmmc":
        # one C (C="auto" fits twice): the figures are passes and seconds of one fit
        return BMMC(C=10.0, max_iter=10, random_state=0)
    if method == "emmc":
        return EMMC(n_hidden=100, max_iter=10, random_state=0)
    return SLMC(n_components=100, gamma="scale", init="k-means++", max_iter=10, random_state=0)


def _count_bmmc_passes() -> list[int]:
    """Count the graph executions of BMMC's dask passes (DaskRows.states / partials)."""
    from marginclust.dask import _backend

    count = [0]
    rows = _backend.DaskRows
    for name in ("states", "partials"):
        orig = getattr(rows, name)

        def wrapped(self: Any, *a: Any, _orig: Any = orig, **k: Any) -> Any:
            count[0] += 1
            return _orig(self, *a, **k)

        setattr(rows, name, wrapped)
    return count


def _peak_rss(client: Any, stop: threading.Event, out: dict[str, int]) -> None:
    def rss() -> int:
        import psutil

        return int(psutil.Process().memory_info().rss)

    while not stop.is_set():
        try:
            for w, v in client.run(rss).items():
                out[w] = max(out.get(w, 0), v)
        except Exception:  # noqa: BLE001 - a worker restarting: keep polling
            pass
        stop.wait(0.5)


def run(
    method: str, rows: int, numpy_rows: int, workers: int, memory_limit: str, chunk: int
) -> None:
    from distributed import Client, LocalCluster

    from marginclust.dask import DaskClusterer

    warnings.simplefilter("ignore")
    print(f"# {method}: load {os.getloadavg()}", flush=True)
    Xn = _blob_block(0, numpy_rows)
    t = time.perf_counter()
    ref = _estimator(method).fit(Xn)
    t_np = (time.perf_counter() - t) / max(ref.n_iter_, 1)
    print(
        f"numpy  n={numpy_rows:>11,d}: {t_np:8.3f} s/iteration ({ref.n_iter_} iterations)",
        flush=True,
    )
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=memory_limit,
        ) as cluster,
        Client(cluster) as client,
    ):
        X = lazy_blobs(rows, chunk)
        peak: dict[str, int] = {}
        stop = threading.Event()
        poll = threading.Thread(target=_peak_rss, args=(client, stop, peak), daemon=True)
        poll.start()
        passes = _count_bmmc_passes() if method == "bmmc" else None
        t = time.perf_counter()
        dc = DaskClusterer(_estimator(method)).fit(X)
        elapsed = time.perf_counter() - t
        if passes is not None:  # BMMC's fitter keeps no n_passes_: counted here
            dc.n_passes_ = passes[0]
        stop.set()
        poll.join()
        it = max(dc.n_iter_, 1)
        print(
            f"dask   n={rows:>11,d}: {elapsed / it:8.3f} s/iteration ({dc.n_iter_} iterations, "
            f"{elapsed:.1f} s in all), round trips/iteration {dc.n_passes_ / it:.2f}, "
            f"peak RSS/worker {max(peak.values(), default=0) / 2**30:.2f} GiB "
            f"(limit {memory_limit}); load {os.getloadavg()}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--method", choices=("emmc", "slmc", "bmmc", "all"), default="all")
    p.add_argument("--rows", type=int, default=20_000_000)
    p.add_argument("--numpy-rows", type=int, default=2_000_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="3GiB")
    p.add_argument("--chunk", type=int, default=1 << 20)
    p.add_argument("--smoke", action="store_true", help="2e5 rows (a few seconds)")
    a = p.parse_args(argv)
    if a.smoke:
        a.rows, a.numpy_rows, a.chunk = 200_000, 200_000, 65536
    for m in ("emmc", "slmc", "bmmc") if a.method == "all" else (a.method,):
        run(m, a.rows, a.numpy_rows, a.workers, a.memory_limit, a.chunk)


if __name__ == "__main__":
    main(sys.argv[1:])

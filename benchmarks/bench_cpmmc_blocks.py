"""Binary CPMMC in memory: the row-block solver (one pass per QP) vs main's n x m solver.

Run (from a worktree, old solver extracted from a commit before the change):

    git show a819947~1:src/marginclust/solvers/_cutting_plane.py > /tmp/old_cp.py
    sed -i 's/^from \\._/from marginclust.solvers._/' /tmp/old_cp.py
    PYTHONPATH=src:/tmp OMP_NUM_THREADS=1 python benchmarks/bench_cpmmc_blocks.py

Interleaved (old, new, old, new ...), same data and start, one BLAS thread;
prints the median time ratio new/old, the peak of tracemalloc, and the load.
"""

from __future__ import annotations

import os
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from marginclust.objectives._mmc import LinearData, MMCObjective
from marginclust.solvers._cutting_plane import CuttingPlaneMMC


def main() -> None:
    import old_cp  # main's solver, see the module docstring

    rng = np.random.RandomState(0)
    n, d = 100_000, 20
    X = np.vstack([rng.randn(n // 2, d) + 1.0, rng.randn(n // 2, d) - 1.0])
    lab = (X[:, 0] > np.percentile(X[:, 0], 40)).astype(int)
    times: dict[str, list[float]] = {"old": [], "new": []}
    peaks: dict[str, int] = {}
    results = {}
    with threadpool_limits(1):
        for rep in range(3):
            for name, cls in (("old", old_cp.CuttingPlaneMMC), ("new", CuttingPlaneMMC)):
                obj = MMCObjective(None, 2, 10.0, 0.1, data=LinearData(X, "auto"))
                if rep == 0:
                    tracemalloc.start()
                t0 = time.perf_counter()
                r = cls().solve(obj, obj.zero(), signs0=2.0 * lab - 1)
                times[name].append(time.perf_counter() - t0)
                if rep == 0:
                    peaks[name] = tracemalloc.get_traced_memory()[1]
                    tracemalloc.stop()
                results[name] = r
    for name in ("old", "new"):
        r = results[name]
        print(
            f"{name}: median {np.median(times[name]):.3f}s objective {r.objective:.10g} "
            f"n_iter {r.n_iter} n_cccp {r.info['n_cccp_iter']} peak {peaks[name] / 1e6:.1f} MB"
        )
    print(f"ratio new/old {np.median(times['new']) / np.median(times['old']):.3f}")
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()

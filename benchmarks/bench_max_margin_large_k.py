"""MaxMarginClustering at many clusters: the fitted sample growing with K, beside a fixed one.

With ``max_samples="auto"`` the candidates are fitted to ``max(3000, 60 K)`` rows
(at most 10,000): up to ``K = 50`` the former 3,000, beyond that 60 rows a
cluster. This compares, K given, one BLAS thread, the two settings interleaved
per data set and seed in one process (same data and seeds):

- ``auto``: ``MaxMarginClustering(K, random_state=seed)`` (the default);
- ``3000``: the same with ``max_samples=3000`` (the former default);
- ``Genie``: genieclust's ``Genie(K)`` (benchmark-only peer, AGPL: skipped when not
  importable; deterministic, fitted once).

Data: sipu birch1 and birch2 (1e5 rows, K = 100; from ``--root``, Gagolewski's
benchmark framework, when given) and ``make_blobs`` of 1e5 rows with K = 100 and
200 in 2 and 10 dimensions (unit spread, centres uniform in a box whose side grows
as ``K ** (1 / d)``). NCA against the reference (the best over a set's
references), CPU seconds of one fit (``time.process_time``), median over the
seeds. The load average is printed at the start and the end. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_large_k.py \\
        --root /path/to/clustering-data-v1 --seeds 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from sklearn.datasets import make_blobs

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import load_set, preprocess  # noqa: E402
from _report import publish  # noqa: E402

FORMER = 3000


def data_sets(root: str | None, n: int) -> Iterator[tuple[str, np.ndarray, list[np.ndarray]]]:
    """``(name, X, references)``: the birch sets when ``root`` is given, then the blobs."""
    if root is not None:
        for key in ("sipu/birch1", "sipu/birch2"):
            ds = load_set(key, root=root)
            yield key, preprocess(ds.X), list(ds.references)
    for d, k in ((2, 100), (2, 200), (10, 100)):
        side = 5.0 * k ** (1.0 / d)
        X, y = make_blobs(n, d, centers=k, center_box=(-side, side), random_state=0)
        yield f"blobs {n:,} x {d}, K={k}", X, [y + 1]


def score(fit: Callable[[np.ndarray, int], np.ndarray], X: np.ndarray,
          refs: list[np.ndarray]) -> tuple[float, float]:
    """The best NCA over the references (noise, label 0, left out) and CPU seconds."""
    from marginclust.metrics import normalized_clustering_accuracy

    seconds, best, cache = 0.0, -1.0, {}
    for ref in refs:
        k = int(ref.max())
        if k not in cache:
            start = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cache[k] = np.asarray(fit(X, k))
            seconds += time.process_time() - start
        keep = ref > 0
        best = max(best, normalized_clustering_accuracy(ref[keep], cache[k][keep]))
    return best, seconds


def _mmc(seed: int, **params: object) -> Callable[[np.ndarray, int], np.ndarray]:
    from marginclust import MaxMarginClustering

    return lambda X, k: MaxMarginClustering(k, random_state=seed, **params).fit(X).labels_


def _genie() -> Callable[[np.ndarray, int], np.ndarray] | None:
    try:
        import genieclust
    except ImportError:
        return None
    return lambda X, k: np.asarray(genieclust.Genie(n_clusters=k).fit_predict(X))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None, help="a folder of battery folders (for birch)")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    genie = _genie()
    load = os.getloadavg()[0]
    lines = ["| data | auto NCA (per seed) | 3000 NCA (per seed) | auto mean | 3000 mean "
             "| Genie | auto s | 3000 s | Genie s |", "|---|---|---|---|---|---|---|---|---|"]
    for name, X, refs in data_sets(args.root, args.n):
        got: dict[str, list[tuple[float, float]]] = {"auto": [], "3000": []}
        for seed in range(args.seeds):  # interleaved per seed
            got["auto"].append(score(_mmc(seed), X, refs))
            got["3000"].append(score(_mmc(seed, max_samples=FORMER), X, refs))
        g = score(genie, X, refs) if genie is not None else (float("nan"),) * 2
        a, b = (np.array(got[m]) for m in ("auto", "3000"))
        lines.append(
            f"| {name} | {' / '.join(f'{v:.3f}' for v in a[:, 0])} | "
            f"{' / '.join(f'{v:.3f}' for v in b[:, 0])} | {a[:, 0].mean():.3f} | "
            f"{b[:, 0].mean():.3f} | {g[0]:.3f} | {np.median(a[:, 1]):.1f} | "
            f"{np.median(b[:, 1]):.1f} | {g[1]:.2f} |")
        print(lines[-1], flush=True)
    text = (f"`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/"
            f"bench_max_margin_large_k.py --seeds {args.seeds}` ({time.strftime('%Y-%m-%d')}; "
            f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end). "
            "K given; NCA; CPU seconds of one fit, median over the seeds.\n\n"
            + "\n".join(lines) + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""MaxMarginClustering at 1e6 rows: the block vote against LIBSVM's prediction, beside Genie.

The margin classifier labels every row beyond the fitted sample; this times whole
fits with the library's block evaluation of the one-against-one vote (matrix
products) and with LIBSVM's ``SVC.predict`` on the same blocks (the former
labelling), interleaved in one process, same data and seeds, with genieclust's
``Genie`` (benchmark-only peer, AGPL, skipped when absent) in the same rounds. CPU
seconds (``time.process_time``), median of ``--repeats``; the load average is
printed before and after. Run with one BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_classify.py
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs, make_moons
from sklearn.svm import SVC

import marginclust.estimators._max_margin as max_margin
from marginclust import MaxMarginClustering
from marginclust.utils._blocks import BLOCK_ROWS


def libsvm_classify(classifier: SVC, Z: np.ndarray) -> np.ndarray:
    """The former labelling: LIBSVM's prediction, a block of rows at a time."""
    parts = [classifier.predict(Z[lo:lo + BLOCK_ROWS]) for lo in range(0, Z.shape[0], BLOCK_ROWS)]
    return np.concatenate(parts).astype(np.intp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    try:
        import genieclust
    except ImportError:
        genieclust = None
    block_vote = max_margin.classify
    print("load", os.getloadavg(), "OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS"))
    data = {f"moons {args.n:.0e} x 2": make_moons(args.n, noise=0.05, random_state=0),
            f"blobs {args.n:.0e} x 10, K=5": make_blobs(args.n, 10, centers=5, random_state=0)}
    print("| data | LIBSVM predict | block vote | former / now | Genie | now / Genie | "
          "labels equal |")
    print("|---|---|---|---|---|---|---|")
    for name, (X, y) in data.items():
        k = len(np.unique(y))
        times: dict[str, list[float]] = {"libsvm": [], "block": [], "genie": []}
        labels = {}
        for _ in range(args.repeats):
            for which in times:
                if which == "genie" and genieclust is None:
                    continue
                start = time.process_time()
                if which == "genie":
                    genieclust.Genie(n_clusters=k).fit_predict(X)
                else:
                    max_margin.classify = libsvm_classify if which == "libsvm" else block_vote
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        labels[which] = MaxMarginClustering(k, random_state=0).fit(X).labels_
                times[which].append(time.process_time() - start)
        max_margin.classify = block_vote
        med = {w: float(np.median(v)) if v else float("nan") for w, v in times.items()}
        print(f"| {name} | {med['libsvm']:.2f} s | {med['block']:.2f} s | "
              f"{med['libsvm'] / med['block']:.2f}x | {med['genie']:.2f} s | "
              f"{med['block'] / med['genie']:.2f}x | "
              f"{np.array_equal(labels['libsvm'], labels['block'])} |", flush=True)
    print("load", os.getloadavg())


if __name__ == "__main__":
    main()

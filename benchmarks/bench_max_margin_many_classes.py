"""The margin classifier's labels above 32 classes: the near-class vote against LIBSVM's.

Above 32 classes :func:`marginclust.starts._vote.classify` labels rows by the
one-against-one vote of the classes near each row (``_many_class_labels``),
where it used to call LIBSVM's ``SVC.predict`` block by block. This fits
:class:`marginclust.MaxMarginClustering` once per data set (K given, seed 0, not
timed), then labels every row with its own margin classifier both ways,
interleaved in one process, CPU seconds (``time.process_time``), median of
``--repeats``, one BLAS thread; the labels are checked equal, and the mean number
of classes near a row (the vote's bound above its threshold, on 256 rows) is
printed beside. Data: ``make_blobs`` of ``--n`` rows with K = 40, 100 and 200 in
two dimensions and K = 100 in ten (unit spread, centres uniform in a box whose
side grows as ``K ** (1 / d)``), and sipu/birch1 when ``--root`` is given. The
load average is printed at the start and the end. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_max_margin_many_classes.py \\
        --root /path/to/clustering-data-v1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from sklearn.datasets import make_blobs

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import load_set, preprocess  # noqa: E402
from _report import publish  # noqa: E402


def data_sets(root: str | None, n: int) -> Iterator[tuple[str, np.ndarray, int]]:
    """``(name, X, K)``: the blobs, then sipu/birch1 when ``root`` is given."""
    for d, k in ((2, 40), (2, 100), (2, 200), (10, 100)):
        side = 5.0 * k ** (1.0 / d)
        X, _ = make_blobs(n, d, centers=k, center_box=(-side, side), random_state=0)
        yield f"blobs {n:,} x {d}, K={k}", X, k
    if root is not None:
        yield "sipu/birch1, K=100", preprocess(load_set("sipu/birch1", root=root).X), 100


def near_per_row(classifier: object, Z: np.ndarray) -> float:
    """Mean classes near a row (the vote's bound above its threshold), on 256 rows."""
    from marginclust.starts._vote import _FAR

    probe = Z[np.linspace(0, Z.shape[0] - 1, 256).astype(int)]
    starts = np.r_[0, np.cumsum(classifier.n_support_)]  # type: ignore[attr-defined]
    S = classifier.support_vectors_  # type: ignore[attr-defined]
    reach = np.abs(classifier._dual_coef_).max(axis=0)  # type: ignore[attr-defined]
    tau = _FAR * np.median(np.abs(classifier._intercept_))  # type: ignore[attr-defined]
    K = np.exp(-classifier._gamma * ((probe[:, None] - S[None]) ** 2).sum(-1))  # type: ignore[attr-defined]
    return float((np.add.reduceat(K * reach, starts[:-1], axis=1) > tau).sum(axis=1).mean())


def main(argv: list[str] | None = None) -> int:
    from marginclust import MaxMarginClustering
    from marginclust.starts._vote import classify
    from marginclust.utils._blocks import BLOCK_ROWS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None, help="a folder of battery folders (for birch1)")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    lines = ["| data | support vectors | classes near a row | LIBSVM predict | near-class vote "
             "| vote / LIBSVM | labels equal |", "|---|---|---|---|---|---|---|"]
    for name, X, k in data_sets(args.root, args.n):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = MaxMarginClustering(k, random_state=0).fit(X)
        clf = est.classifier_
        Z = np.ascontiguousarray((X - est._mean) * est._scale)
        seconds: dict[str, list[float]] = {"libsvm": [], "vote": []}
        same = True
        for _ in range(args.repeats):  # interleaved
            start = time.process_time()
            a = np.concatenate([clf.predict(Z[lo:lo + BLOCK_ROWS])
                                for lo in range(0, Z.shape[0], BLOCK_ROWS)])
            seconds["libsvm"].append(time.process_time() - start)
            start = time.process_time()
            b = classify(clf, Z)
            seconds["vote"].append(time.process_time() - start)
            same &= bool(np.array_equal(a, b))
        lib, vote = (float(np.median(seconds[m])) for m in ("libsvm", "vote"))
        lines.append(f"| {name} | {clf.support_vectors_.shape[0]:,} | "
                     f"{near_per_row(clf, Z):.1f} of {k} | {lib:.2f} s | {vote:.2f} s | "
                     f"{vote / lib:.2f}x | {same} |")
        print(lines[-1], flush=True)
    publish(f"`OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/"
            f"bench_max_margin_many_classes.py --n {args.n} --repeats {args.repeats}` "
            f"({time.strftime('%Y-%m-%d')}; load average {load:.2f} at the start, "
            f"{os.getloadavg()[0]:.2f} at the end). CPU seconds labelling every row with the "
            "fit's own classifier, median of the repeats.\n\n" + "\n".join(lines) + "\n",
            args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

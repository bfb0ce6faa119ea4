"""Study: which label-free judge picks the right candidate partition, and from which pool?

On a battery (default: the shared one, n <= 3000, "original" preprocessing, every
reference K), every candidate generator of :class:`~marginclust.MaxMarginClustering`
(and the library's own methods) is fitted once per K; labels then score each
candidate (NCA), and judges choose one per (set, K) without labels:

- the class-balanced out-of-fold voting margin of the k-NN rule for several k (the
  estimator's criterion, k = ``n_neighbors``);
- the class-balanced out-of-fold functional margin of an RBF SVC (5 folds, C = 1;
  per point the worst one-vs-one decision value towards its cluster, clipped to
  [-1, 1]) at scikit-learn's ``gamma="scale"`` and at the local width the
  estimator's classifier uses (twice the median distance to the 7th neighbour);
- the label oracle (the best candidate by NCA) and each candidate alone.

A data set's score is the best over its references, as in the framework. Fits are
cached (``--cache``), so the study reruns in seconds. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/max_margin_judges.py \\
        --out benchmarks/results/max-margin-judges.md
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from joblib import Memory

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _battery import list_sets, load_set, preprocess  # noqa: E402

from marginclust.feature_maps._neighbors import NeighborGraph  # noqa: E402
from marginclust.metrics import normalized_clustering_accuracy  # noqa: E402
from marginclust.objectives._margin import class_balanced_mean, vote_margins  # noqa: E402
from marginclust.starts._candidates import DEFAULT_POOL, fit_candidate  # noqa: E402

EXTRA = ("slmc", "kernel-k-means", "emmc")
VOTE_KS = (3, 5, 7, 10, 15, 20, 30)


def svc_margins(X: np.ndarray, labels: np.ndarray, gamma: float) -> np.ndarray:
    """Out-of-fold functional margin of an RBF SVC (5 folds), clipped to [-1, 1]."""
    from sklearn.svm import SVC

    n, k = labels.size, int(labels.max()) + 1
    folds = np.random.RandomState(0).permutation(n) % 5
    out = np.full(n, -1.0)
    for f in range(5):
        test, train = folds == f, folds != f
        classes = np.unique(labels[train])
        if classes.size < 2:
            continue
        svc = SVC(C=1.0, gamma=gamma, decision_function_shape="ovo").fit(X[train],
                                                                           labels[train])
        D = svc.decision_function(X[test]).reshape(test.sum(), -1)
        if classes.size == 2:
            D = -D  # binary: scikit-learn's positive side is classes_[1]
        worst = np.full((test.sum(), k), np.inf)
        p = 0
        for a in range(classes.size):
            for b in range(a + 1, classes.size):
                ca, cb = classes[a], classes[b]
                worst[:, ca] = np.minimum(worst[:, ca], D[:, p])
                worst[:, cb] = np.minimum(worst[:, cb], -D[:, p])
                p += 1
        own = labels[test]
        m = worst[np.arange(own.size), own]
        out[test] = np.where(np.isin(own, classes), np.clip(m, -1, 1), -1.0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=None)
    ap.add_argument("--batteries", default="fcps,graves,wut")
    ap.add_argument("--cache", default=str(HERE.parent / "bench-results" / "judges-cache"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    memory = Memory(args.cache, verbose=0)
    fit = memory.cache(fit_candidate)
    svc_cached = memory.cache(svc_margins)
    names = [*DEFAULT_POOL, *EXTRA]
    keys = list_sets(tuple(args.batteries.split(",")), root=args.root)
    # (set, reference) -> per candidate: NCA and label-free scores
    rows: list[dict] = []
    for key in keys:
        ds = load_set(key, root=args.root)
        X = preprocess(ds.X)
        graph = NeighborGraph.from_data(X, max(VOTE_KS))
        width = float(np.median(graph.local_scale(7)))
        scale = 1.0 / (X.shape[1] * X.var())
        ks = tuple(ds.ks())
        fits = {}
        for i, name in enumerate(names):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[name] = fit(name, X, ks, i, width)[0]
        for j, ref in enumerate(ds.references):
            k, keep = int(ref.max()), ref > 0
            for name in names:
                labels = fits[name][k]
                row = {"key": key, "ref": j, "name": name,
                       "nca": normalized_clustering_accuracy(ref[keep], labels[keep])}
                for v in VOTE_KS:
                    graph_v = graph.indices[:, :v]
                    row[f"vote{v}"] = class_balanced_mean(
                        vote_margins(labels, graph_v, k), labels, k)
                for tag, gamma in (("svc-scale", scale),
                                   ("svc-local", 1.0 / (2.0 * (2.0 * width) ** 2))):
                    row[tag] = class_balanced_mean(svc_cached(X, labels, gamma), labels, k)
                rows.append(row)
        print(key, flush=True)

    def pick(pool: list[str], judge: str) -> float:
        best: dict[str, float] = {}
        for key in keys:
            for j in {r["ref"] for r in rows if r["key"] == key}:
                cands = [r for r in rows if r["key"] == key and r["ref"] == j
                         and r["name"] in pool]
                chosen = max(cands, key=lambda r: r[judge])  # first in pool order on ties
                best[key] = max(best.get(key, -1.0), chosen["nca"])
        return float(np.mean(list(best.values())))

    judges = ["nca", *[f"vote{v}" for v in VOTE_KS], "svc-scale", "svc-local"]
    pools = {"default pool (5)": list(DEFAULT_POOL),
             "default + library methods (8)": names}
    lines = [
        "# Label-free judges of candidate partitions",
        "",
        f"`python benchmarks/max_margin_judges.py {' '.join(argv or sys.argv[1:])}`: "
        f"{len(keys)} data sets ({args.batteries}), n <= 3000, 'original' preprocessing, "
        "every reference K; mean NCA of the candidate each judge picks (a data set's score "
        "is the best over its references). `nca` is the label oracle.",
        "",
        "| pool | " + " | ".join(judges) + " |",
        "|---|" + "---|" * len(judges),
    ]
    for label, pool in pools.items():
        lines.append(f"| {label} | " + " | ".join(f"{pick(pool, j):.3f}" for j in judges) + " |")
    lines += ["", "Each candidate alone:", "", "| candidate | mean NCA |", "|---|---|"]
    for name in names:
        lines.append(f"| {name} | {pick([name], 'nca'):.3f} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

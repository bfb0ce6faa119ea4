"""EMMC Table 4's starts on raw pixels vs each pair min-max scaled.

Per-feature min-max scaling of a class subset is not a global affine map, so unlike a
rescaling of the whole set it can change the ELM hidden layer (it did on LetterABCD,
Table 5). This measures whether it matters on the 45 optdigits pairs: the error (%) of
standard k-means and of k-means in the ELM layer (Table 4's schemes, L = n, Gaussian
nodes, 10 k-means++ starts), per scaling, averaged over the pairs and runs.

Example (PYTHONPATH=src, MARGINCLUST_DATA set)::

    python benchmarks/emmc_table4_scaling.py --runs 2
"""

from __future__ import annotations

import argparse
import itertools
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    from threadpoolctl import threadpool_limits

    from marginclust.bench._runner import load_data
    from marginclust.metrics import clustering_accuracy
    from papers.emmc import StartThenEMMC

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2)
    args = p.parse_args(argv)
    print("| scaling | Standard KM error % | KM in ELM space error % |\n|---|---|---|")
    for how in ("minmax", "raw"):
        errors: dict[str, list[float]] = {"k-means": [], "k-means-elm": []}
        for a, b in itertools.combinations(range(10), 2):
            X, y, _ = load_data(f"optdigits:{a},{b}", how)
            for run in range(args.runs):
                for init, errs in errors.items():
                    with threadpool_limits(1):
                        labels = StartThenEMMC(init, random_state=100 * a + 10 * b + run).fit(X)
                    errs.append(100 * (1 - clustering_accuracy(y, labels.labels_)))
        km, elm = (float(np.mean(errors[k])) for k in ("k-means", "k-means-elm"))
        print(f"| {how} | {km:.2f} | {elm:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""MaxMarginClustering on measured tables beside GaussianMixture, label-free, K given.

Two collections, each table standardised per column (features in different units),
K = the number of classes, ``random_state=0``, scored by the normalised clustering
accuracy (NCA) against the classes:

- ``--uci``: the 18 shared UCI-like sets (``../shared/datasets``, at most 3,000 rows);
- ``--rdatasets DIR``: ten classification tables that are not in this repository,
  from a copy of the R datasets collection laid out as ``DIR/<package>/<item>.csv``
  (the layout of Vincent Arel-Bundock's Rdatasets, shipped for example inside the
  ``pydataset`` package's ``resources.tar.gz``), and ``--penguins CSV`` (the
  ``palmerpenguins`` package's ``penguins.csv``): the numeric columns a user would
  pass (``select_dtypes("number")``), rows with a missing value dropped.

Printed per table: its shape, K, the number of discrete columns (2 to 10 distinct
values), NCA of MaxMarginClustering and of ``GaussianMixture(K, random_state=0)``
(full covariances, scikit-learn's defaults). Run the former code by putting its
``src`` first on ``PYTHONPATH``. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/real_tables.py --uci
    python benchmarks/real_tables.py --rdatasets DIR/csv --penguins penguins.csv
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from marginclust import MaxMarginClustering  # noqa: E402
from marginclust.metrics import normalized_clustering_accuracy as nca  # noqa: E402

Table = tuple[np.ndarray, np.ndarray]


def _standardised(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    X = X[:, X.std(axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def uci_tables() -> dict[str, Callable[[], Table]]:
    from marginclust.datasets import list_datasets, load_dataset

    home = os.environ.get("MARGINCLUST_DATA") or str(HERE.parents[1] / "shared" / "datasets")
    out: dict[str, Callable[[], Table]] = {}
    for info in list_datasets(home):
        if info["where"] in ("sklearn", "synthetic") or info["n_samples"] > 3000:
            continue

        def load(name: str = info["name"]) -> Table:
            X, y = load_dataset(name, data_home=home)
            return _standardised(X), np.asarray(y)

        out[info["name"]] = load
    return out


def _csv(path: Path, label: str | None, drop: tuple[str, ...] = (),
         combine: tuple[str, ...] = ()) -> Table:
    import pandas as pd

    df = pd.read_csv(path)
    df = df.drop(columns=[c for c in df.columns
                          if c.startswith("Unnamed") or c == "rownames" or c in drop])
    if combine:
        y = df[list(combine)].astype(str).agg("-".join, axis=1)
        df = df.drop(columns=list(combine))
    else:
        y = df[label]
        df = df.drop(columns=[label])
    X = df.select_dtypes("number")
    ok = X.notna().all(axis=1) & y.notna()
    return _standardised(X[ok].to_numpy(float)), pd.factorize(y[ok])[0]


def heldout_tables(rdata: Path, penguins: Path | None) -> dict[str, Callable[[], Table]]:
    def pima() -> Table:
        # both halves standardised alike: the raw rows stacked, then standardised
        import pandas as pd

        df = pd.concat([pd.read_csv(rdata / "MASS/Pima.tr.csv"),
                        pd.read_csv(rdata / "MASS/Pima.te.csv")])
        X = df.drop(columns=[c for c in df.columns if c in ("rownames", "type")
                             or c.startswith("Unnamed")]).to_numpy(float)
        return _standardised(X), pd.factorize(df["type"])[0]

    out: dict[str, Callable[[], Table]] = {
        "MASS/Pima (tr + te)": pima,
        "MASS/crabs (sp)": lambda: _csv(rdata / "MASS/crabs.csv", "sp", drop=("index", "sex")),
        "MASS/crabs (sp x sex)": lambda: _csv(rdata / "MASS/crabs.csv", None, drop=("index",),
                                              combine=("sp", "sex")),
        "MASS/cats": lambda: _csv(rdata / "MASS/cats.csv", "Sex"),
        "MASS/Cars93 (Type)": lambda: _csv(rdata / "MASS/Cars93.csv", "Type"),
        "MASS/birthwt (low; bwt left out)": lambda: _csv(rdata / "MASS/birthwt.csv", "low",
                                                         drop=("bwt",)),
        "rpart/kyphosis": lambda: _csv(rdata / "rpart/kyphosis.csv", "Kyphosis"),
        "survival/pbc (status)": lambda: _csv(rdata / "survival/pbc.csv", "status",
                                              drop=("id", "time")),
        "psych/sat.act (gender)": lambda: _csv(rdata / "psych/sat.act.csv", "gender"),
    }
    if penguins is not None:
        out["palmerpenguins (species)"] = lambda: _csv(penguins, "species")
    return out


def run(tables: dict[str, Callable[[], Table]]) -> None:
    from sklearn.mixture import GaussianMixture

    print("| table | rows x columns | K | discrete columns | MaxMarginClustering | "
          "GaussianMixture |")
    print("|---|---|---|---|---|---|")
    sums = np.zeros(2)
    for name, load in tables.items():
        X, y = load()
        k = len(np.unique(y))
        discrete = sum(2 <= np.unique(X[:, j]).size <= 10 for j in range(X.shape[1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mmc = nca(y, MaxMarginClustering(k, random_state=0).fit(X).labels_)
            gmm = nca(y, GaussianMixture(k, random_state=0).fit(X).predict(X))
        sums += (mmc, gmm)
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {k} | {discrete} | {mmc:.3f} | "
              f"{gmm:.3f} |", flush=True)
    n = len(tables)
    print(f"| **mean ({n})** | | | | **{sums[0] / n:.3f}** | **{sums[1] / n:.3f}** |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uci", action="store_true", help="the shared UCI-like sets")
    ap.add_argument("--rdatasets", type=Path, default=None,
                    help="folder of R dataset CSVs (<package>/<item>.csv)")
    ap.add_argument("--penguins", type=Path, default=None, help="palmerpenguins' penguins.csv")
    args = ap.parse_args()
    if args.uci:
        run(uci_tables())
    if args.rdatasets is not None:
        run(heldout_tables(args.rdatasets, args.penguins))


if __name__ == "__main__":
    main()

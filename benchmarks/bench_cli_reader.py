"""The CLI's CSV reader beside ``np.loadtxt`` on the same file (one process, interleaved).

Each repeat times, in turn, ``np.loadtxt`` on the file, the CLI reader without a label
column and the CLI reader with ``label_column="label"``; the report gives the median of
the repeats and each reader's ratio to ``np.loadtxt``. The file is a bundled gzip data set
(``--name``) or a synthetic plain CSV of ``--rows`` x ``--cols`` (the last column an integer
class named ``label``, the others ``%.6g`` normal draws), written once to a temporary folder.

Run::

    OMP_NUM_THREADS=1 python benchmarks/bench_cli_reader.py --rows 200000 --cols 11
    OMP_NUM_THREADS=1 python benchmarks/bench_cli_reader.py --rows 1000000 --cols 4
    MARGINCLUST_DATA=../shared/datasets python benchmarks/bench_cli_reader.py --name mnist_5k
"""

from __future__ import annotations

import argparse
import gzip
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from marginclust.cli._csv import read_csv


def _synthetic(folder: str, rows: int, cols: int, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, cols - 1))
    y = rng.integers(0, 3, rows)
    path = os.path.join(folder, f"synthetic_{rows}x{cols}.csv")
    with open(path, "w") as f:
        f.write(",".join([*(f"f{j}" for j in range(cols - 1)), "label"]) + "\n")
        np.savetxt(f, np.column_stack([X, y]), delimiter=",",
                   fmt=["%.6g"] * (cols - 1) + ["%d"])
    return path


def _threads() -> str:
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    return ", ".join(f"{n}={os.environ.get(n, 'unset')}" for n in names)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", default=None, help="a bundled <name>.csv.gz in MARGINCLUST_DATA")
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--cols", type=int, default=11)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.name is None:
            path = _synthetic(folder, args.rows, args.cols)
        else:
            path = os.path.join(os.environ.get("MARGINCLUST_DATA", "../shared/datasets"),
                                f"{args.name}.csv.gz")

        def loadtxt() -> object:
            if path.endswith(".gz"):
                with gzip.open(path, "rt") as f:
                    return np.loadtxt(f, delimiter=",", skiprows=1)
            return np.loadtxt(path, delimiter=",", skiprows=1)

        readers: dict[str, Callable[[], object]] = {
            "np.loadtxt": loadtxt,
            "read_csv": lambda: read_csv(path),
            "read_csv label_column": lambda: read_csv(path, label_column="label"),
        }
        times: dict[str, list[float]] = {name: [] for name in readers}
        size = Path(path).stat().st_size / 1e6
        print(f"{path} ({size:.1f} MB); {_threads()}; load average before "
              f"{os.getloadavg()}")
        for _ in range(args.repeats):
            for name, fn in readers.items():
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
        base = float(np.median(times["np.loadtxt"]))
        for name, v in times.items():
            print(f"{name}: median {np.median(v):.3f} s over {args.repeats} "
                  f"(ratio {np.median(v) / base:.2f})")
        print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()

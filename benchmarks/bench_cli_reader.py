"""The CLI's CSV reader beside ``np.loadtxt`` on the same gzip file (one process, interleaved).

Run::

    MARGINCLUST_DATA=../shared/datasets python benchmarks/bench_cli_reader.py [--name mnist_5k]
"""

from __future__ import annotations

import argparse
import gzip
import os
import time

import numpy as np

from marginclust.cli._csv import read_csv


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", default="mnist_5k")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    path = os.path.join(os.environ.get("MARGINCLUST_DATA", "../shared/datasets"),
                        f"{args.name}.csv.gz")

    def ours() -> object:
        return read_csv(path, label_column="label")

    def loadtxt() -> object:
        with gzip.open(path, "rt") as f:
            return np.loadtxt(f, delimiter=",", skiprows=1)

    times: dict[str, list[float]] = {"marginclust read_csv": [], "np.loadtxt": []}
    print(f"{path}; load average before {os.getloadavg()}")
    for _ in range(args.repeats):
        for name, fn in (("marginclust read_csv", ours), ("np.loadtxt", loadtxt)):
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    for name, v in times.items():
        print(f"{name}: median {np.median(v):.3f} s over {args.repeats}")
    ratio = np.median(times["marginclust read_csv"]) / np.median(times["np.loadtxt"])
    print(f"ratio {ratio:.2f}; load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()

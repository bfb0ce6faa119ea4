"""The accuracy ceiling that EMMC's class balance constraint sets on each two-class set.

EMMC (Zhang et al. 2013, Sec. 4.1) enforces ``-l <= N+ - N- <= l`` at every iteration by
relabelling, with ``l`` from Table 2 (0.03 n or 0.15 n). On a set whose classes differ by
more than ``l`` rows, no labelling EMMC can return contains the true one, and the best
accuracy any of them can have is :func:`balance_cap`. A published number above it cannot
come from the stated method. Table 7's SatelliteC1-C2 (97.11 %) is such a number.

Example (PYTHONPATH=src, MARGINCLUST_DATA set; seconds)::

    python benchmarks/emmc_balance_cap.py
"""

from __future__ import annotations

import os
import sys

import numpy as np


def balance_cap(y: np.ndarray, balance: float) -> float:
    """The best accuracy of any two-cluster labelling with ``|N+ - N-| <= balance * n``.

    The larger cluster holds at most ``m = floor((n + l) / 2)`` rows; when the majority
    class is bigger, the best labelling fills it with majority rows and puts the rest, the
    whole minority class among them, in the other cluster: ``(m + N_min) / n``.

    Examples
    --------
    >>> balance_cap(np.array([0] * 70 + [1] * 30), 0.2)
    0.9
    """
    _, counts = np.unique(y, return_counts=True)
    if counts.size != 2 or not 0.0 <= balance <= 1.0:
        raise ValueError(f"balance_cap needs two classes and 0 <= balance <= 1; got "
                         f"{counts.size} classes and balance={balance}.")
    m = int(np.floor((y.size + balance * y.size) / 2 + 1e-9))
    return 1.0 if counts.max() <= m else float((m + counts.min()) / y.size)


def main() -> int:
    from marginclust.datasets import load_dataset
    from papers._common import values
    from papers.emmc import DATASETS, TWO_CLASS

    published = values("emmc-table7")
    print("| data | n | class sizes | l / n | cap | published EMMC |")
    print("|---|---|---|---|---|---|")
    for ds in TWO_CLASS:
        label, _, balance = DATASETS[ds]
        _, y = load_dataset(ds, data_home=os.environ.get("MARGINCLUST_DATA"))
        sizes = "/".join(str(c) for c in np.unique(y, return_counts=True)[1])
        pub = published.get((ds, "emmc", "ca_hungarian"))
        print(f"| {label} | {y.size} | {sizes} | {balance} | {balance_cap(y, balance):.4f} | "
              f"{'-' if pub is None else f'{pub:.4f}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

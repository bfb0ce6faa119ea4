"""
Accuracy against the number of must-link / cannot-link pairs
============================================================

The standard figure of semi-supervised clustering: pairs of rows are drawn at
random, labelled must-link or cannot-link from the reference partition, and each
method is scored (normalised clustering accuracy, NCA) at 0 to 500 pairs. BMMC
uses the pair margin (a margin on each pair's joint label); ``bmmc-paper`` is
BMMC with the paper's ``|f_u - z f_v|`` term; COP-KMeans (Wagstaff et al. 2001)
and PCKMeans (Basu, Banerjee & Mooney 2004) are the peers. The curves are the
means over data sets saved by ``benchmarks/bench_pairs.py`` (run it to add data
sets or draws; its report, ``benchmarks/results/pairs.md``, lists them).
"""

import csv
from pathlib import Path

import matplotlib.pyplot as plt

# the results saved beside the benchmark (this example runs in docs/examples)
path = Path("../../benchmarks/results/pairs_curves.csv")
rows = list(csv.DictReader(path.open()))

fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
for ax, variant, title in zip(
    axes, ["all", "cannot"], ["must- and cannot-links", "cannot-links only"]
):
    sel = [r for r in rows if r["variant"] == variant and r["subset"] == "all K"]
    for method in dict.fromkeys(r["method"] for r in sel):
        pts = sorted((int(r["budget"]), float(r["nca"])) for r in sel if r["method"] == method)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=method)
    n_sets = sel[0]["n_datasets"] if sel else "0"
    ax.set_title(f"{title} ({n_sets} data sets)")
    ax.set_xscale("symlog", linthresh=20)
    ax.set_xlabel("number of pairs")
axes[0].set_ylabel("mean NCA")
axes[1].legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()

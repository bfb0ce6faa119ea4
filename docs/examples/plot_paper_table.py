"""
A paper table: ours beside the published numbers
================================================

The benchmark harness keeps each paper's tables as data, in the repository's
``benchmarks/papers`` folder (beside the library, not installed with it). Here
K-means and fuzzy c-means are run on SLMC's synthetic four-Gaussian set (the
paper's Table 3, four clusters) under the paper's protocol, reduced to two runs
so that it takes seconds, and compared with the clustering accuracy the paper
prints. ``marginclust bench --table slmc-table3``, run from the repository's
root, runs the full table.
"""

import matplotlib.pyplot as plt
import numpy as np

from marginclust.bench import Table, format_report, get_table, load_benchmark, run_table

# the repository's benchmark folder (this example runs in docs/examples): its import
# registers the papers' tables
load_benchmark("../../benchmarks/papers")
paper = get_table("slmc-table3")
methods = ["kmeans", "fcm"]
table = Table(
    "gallery-slmc-table3", paper.title, paper.source, paper.datasets, methods,
    ["ca_majority"], n_runs=2, protocols=("paper",),
    published={k: v for k, v in paper.published.items() if k[1] in methods},
)
rows = run_table(table, progress=False)
print(format_report(rows, table, seed=0, layout="long").split("Shortfall")[0])

ours = [np.mean([r["ca_majority"] for r in rows if r["method"] == m]) for m in methods]
published = [table.published[(paper.datasets[0], m, "ca_majority")] for m in methods]
fig, ax = plt.subplots(figsize=(5, 3.2))
x = np.arange(len(methods))
ax.bar(x - 0.2, ours, width=0.4, label="ours (2 runs)")
ax.bar(x + 0.2, published, width=0.4, label="published (SLMC paper)")
ax.set_xticks(x, methods)
ax.set_ylim(0.5, 1.0)
ax.set_ylabel("clustering accuracy (majority)")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

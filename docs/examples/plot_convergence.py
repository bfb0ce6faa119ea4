"""
Convergence curves
==================

Every estimator records its objective per iteration in ``objective_history_``.
:func:`~marginclust.plotting.plot_convergence` scales each curve to [0, 1]; with
``x="fraction"`` a long run and a short run share the same width, and the legend
gives each run's iteration count.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from marginclust import PKM, SLMC, FuzzyCMeans, KernelFuzzyCMeans
from marginclust.plotting import plot_convergence

X = StandardScaler().fit_transform(load_wine().data)
histories = {}
for est in (FuzzyCMeans(3, random_state=0), KernelFuzzyCMeans(3, random_state=0),
            PKM(3, random_state=0), SLMC(3, random_state=0)):
    histories[type(est).__name__] = est.fit(X).objective_history_

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
plot_convergence(histories, ax=left, title="against the iteration")
plot_convergence(histories, ax=right, x="fraction", title="against the fraction of each run")
fig.tight_layout()
plt.show()

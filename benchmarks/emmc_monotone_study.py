"""How often EMMC's objective_history_ rises on random two-cluster problems.

Runs on whatever ``marginclust`` is importable, so it compares the code before and
after the feasible-start fix (the old init spellings are used; the new code accepts
them with a FutureWarning):

    python benchmarks/emmc_monotone_study.py                      # this checkout
    git archive 9e0b044 src | tar -x -C /tmp/old                  # before the fix
    PYTHONPATH=/tmp/old/src python benchmarks/emmc_monotone_study.py

Three generators of 200 problems each: the one of
``tests/estimators/test_emmc.py::test_binary_objective_history_monotone_on_many_random_problems``,
imbalanced blobs (the k-means start violates the balance), and a user-given
start with at most 20 % in one cluster.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.datasets import make_blobs

from marginclust import EMMC


def _rises(h: np.ndarray) -> bool:
    return bool(np.any(np.diff(h) > 1e-9 * np.abs(h[:-1]) + 1e-12))


def test_generator() -> int:
    rng = np.random.RandomState(0)
    rises = 0
    for trial in range(200):
        n = int(rng.randint(20, 60))
        X = rng.randn(n, int(rng.randint(1, 5))) * rng.choice([0.1, 1.0, 10.0])
        init = ["random", "kmeans", "kmeans-elm"][trial % 3]
        if trial % 4 == 0:
            init = (rng.rand(n) < 0.15).astype(int)
            init[0], init[1] = 0, 1
        est = EMMC(
            2,
            n_hidden=int(rng.randint(5, 30)),
            C=float(10.0 ** rng.uniform(-2, 3)),
            activation=["sigmoid", "gaussian"][trial % 2],
            output=["single", "multi"][(trial // 2) % 2],
            balance=float(rng.choice([0.03, 0.15])),
            init=init,
            max_iter=100,
            random_state=trial,
        ).fit(X)
        rises += _rises(est.objective_history_)
    return rises


def imbalanced_blobs() -> int:
    rises = 0
    for trial in range(200):
        rng = np.random.RandomState(trial)
        n1 = int(rng.randint(10, 40))
        n2 = int(rng.randint(3, n1))
        X, _ = make_blobs(
            [n1, n2],
            n_features=int(rng.randint(1, 4)),
            cluster_std=rng.uniform(0.2, 2),
            random_state=trial,
        )
        est = EMMC(
            2,
            n_hidden=int(rng.randint(3, 40)),
            C=float(10.0 ** rng.uniform(-2, 3)),
            balance=0.03,
            init=["random", "kmeans", "kmeans-elm"][trial % 3],
            activation=["sigmoid", "gaussian"][trial % 2],
            output=["single", "multi"][(trial // 2) % 2],
            random_state=trial,
        ).fit(X)
        rises += _rises(est.objective_history_)
    return rises


def one_sided_start() -> int:
    rises = 0
    for trial in range(200):
        rng = np.random.RandomState(trial)
        n = int(rng.randint(10, 60))
        X = rng.randn(n, int(rng.randint(1, 4)))
        init = np.zeros(n, dtype=int)
        init[: int(rng.randint(0, max(1, n // 5)))] = 1
        est = EMMC(
            2,
            n_hidden=int(rng.randint(3, 40)),
            C=float(10.0 ** rng.uniform(-2, 3)),
            balance=0.03,
            init=init,
            activation=["sigmoid", "gaussian"][trial % 2],
            output=["single", "multi"][(trial // 2) % 2],
            random_state=trial,
        ).fit(X)
        rises += _rises(est.objective_history_)
    return rises


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for name, fn in [
        ("test generator", test_generator),
        ("imbalanced blobs", imbalanced_blobs),
        ("one-sided start", one_sided_start),
    ]:
        print(f"{name:18s}: objective_history_ rises in {fn()} of 200 problems")

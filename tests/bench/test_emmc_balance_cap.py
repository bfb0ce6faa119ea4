"""benchmarks/emmc_balance_cap.py: the accuracy ceiling the balance constraint sets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from marginclust.metrics import clustering_accuracy


@pytest.mark.parametrize("n_pos, balance", [(6, 0.25), (7, 0.25), (5, 0.5), (8, 0.0), (9, 0.1)])
def test_balance_cap_is_the_best_accuracy_of_any_feasible_labelling(load_benchmark, n_pos,
                                                                    balance):
    mod = load_benchmark("emmc_balance_cap")
    y = np.array([1] * n_pos + [0] * (10 - n_pos))
    best = max(
        clustering_accuracy(y, np.array(t))
        for t in itertools.product([0, 1], repeat=y.size)
        if abs(2 * sum(t) - y.size) <= balance * y.size and 0 < sum(t) < y.size
    )
    assert mod.balance_cap(y, balance) == pytest.approx(best)


@pytest.mark.parametrize("y, balance", [(np.zeros(5), 0.1), (np.arange(6) % 3, 0.1),
                                        (np.arange(6) % 2, 1.5)])
def test_balance_cap_rejects_what_it_is_not_defined_for(load_benchmark, y, balance):
    mod = load_benchmark("emmc_balance_cap")
    with pytest.raises(ValueError, match="two classes"):
        mod.balance_cap(y, balance)

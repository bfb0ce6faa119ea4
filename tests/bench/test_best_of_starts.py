"""benchmarks/best_of_starts.py: the label-picked best over k random starts."""

from __future__ import annotations

import pytest


def test_best_over_k_starts_is_exact_at_the_ends_and_grows_with_k(load_benchmark):
    mod = load_benchmark("best_of_starts")
    # 4 starts x 2 settings; per start the grid best is .5, .6, .7, .9
    best = {0: 0.5, 1: 0.6, 2: 0.7, 3: 0.9}
    rows = [{"protocol": "paper", "params": {"C": C, "start": s}, "acc": v - (C == 2) * 0.1}
            for s, v in best.items() for C in (1, 2)]
    rows.append({"protocol": "default", "params": {"start": 9}, "acc": 1.0})  # not paper
    curve = mod.best_of_starts(rows, "acc", [1, 2, 4, 5], n_draws=4000)
    assert curve[1][0] == pytest.approx(0.675, abs=0.01)  # the mean of the four bests
    assert curve[4] == pytest.approx((0.9, 0.9, 0.9))  # every start: the overall best
    assert curve[1][0] < curve[2][0] < curve[4][0] and 5 not in curve

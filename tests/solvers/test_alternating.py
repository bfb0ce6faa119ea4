"""The stopping rule of the generic alternating driver."""

from __future__ import annotations

import numpy as np
import pytest

from marginclust.solvers._alternating import AlternatingMinimizer


class _Escaping:
    """Moves 1e-6, 4e-6, 1.6e-5, ... (leaving an unstable point), then shrinking ones.

    The objective changes by less than ``tol`` throughout, so only the moves decide.
    """

    moves = [1e-6 * 4.0**k for k in range(5)] + [1e-2, 1e-3, 1e-4, 1e-5]

    def step(self, state: int) -> tuple[int, float]:
        return state + 1, 1.0

    def change(self, old: int, new: int) -> float:
        return self.moves[min(old, len(self.moves) - 1)]


@pytest.mark.parametrize("guard", [False, True])
def test_growing_moves_do_not_stop_with_the_guard(guard):
    solver = AlternatingMinimizer(tol=1e-5, tol_x=1e-3, min_iter=1, max_iter=50,
                                  require_shrinking_move=guard)
    res = solver.solve(_Escaping(), 0)
    assert res.converged
    if guard:
        # sweeps 2-5 move by growing amounts below tol_x; sweep 6 moves 1e-2; sweep 7
        # (1e-3 <= tol_x, smaller than before) is the first that may stop
        assert res.n_iter == 7
        moves = np.array(_Escaping.moves[: res.n_iter])
        assert moves[-1] <= moves[-2]
    else:
        assert res.n_iter == 2  # the unguarded rule stops while the moves still grow

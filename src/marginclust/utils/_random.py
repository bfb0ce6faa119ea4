"""Random-state helpers: one RandomState per fit, seeds spawned per restart."""

from __future__ import annotations

import numpy as np

MAX_SEED = np.iinfo(np.int32).max


def spawn_seeds(random_state: np.random.RandomState, n: int) -> np.ndarray:
    """Draw ``n`` integer seeds from ``random_state`` (one per restart).

    Parameters
    ----------
    random_state : RandomState
        The generator created once per ``fit`` by ``check_random_state``.
    n : int
        Number of seeds.

    Returns
    -------
    seeds : ndarray of shape (n,)
        Integer seeds, one per restart.
    """
    return random_state.randint(MAX_SEED, size=n)

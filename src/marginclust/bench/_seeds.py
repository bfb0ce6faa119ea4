"""Seeds derived from (global seed, data set, method, repetition), as benchopt does."""

from __future__ import annotations

import hashlib

__all__ = ["derive_seed"]


def derive_seed(global_seed: int, *keys: object) -> int:
    """A deterministic 31-bit seed from a global seed and any identifying keys.

    Parameters
    ----------
    global_seed : int
        The run's ``--seed``.
    *keys : object
        Identifiers, e.g. ``(dataset, method, repetition)``; their ``str`` is hashed.

    Returns
    -------
    seed : int
        In ``[0, 2**31 - 1)``; stable across processes and Python versions.
    """
    text = "\x1f".join([str(int(global_seed)), *map(str, keys)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little") % (2**31 - 1)

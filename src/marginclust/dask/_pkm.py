"""Dask fitter of PKM (in progress)."""

from __future__ import annotations

from typing import Any

import dask.array as da

from ..estimators._pkm import PKM
from ._clusterer import register


@register(PKM)
def fit_pkm(est: PKM, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit ``est`` on the dask array X (not yet implemented)."""
    raise NotImplementedError("the dask fitter of PKM is being written")

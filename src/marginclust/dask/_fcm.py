"""Dask fitter of FuzzyCMeans (in progress)."""

from __future__ import annotations

from typing import Any

import dask.array as da

from ..estimators._fcm import FuzzyCMeans
from ._clusterer import register


@register(FuzzyCMeans)
def fit_fcm(est: FuzzyCMeans, X: da.Array, **fit_params: Any) -> dict[str, da.Array]:
    """Fit ``est`` on the dask array X (not yet implemented)."""
    raise NotImplementedError("the dask fitter of FuzzyCMeans is being written")

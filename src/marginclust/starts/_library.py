"""The library's own clusterers where a start or a candidate is one of them.

SLMC's FCM starts fit :class:`~marginclust.FuzzyCMeans`, and the candidates
``"slmc"``, ``"kernel-k-means"`` and ``"emmc"`` of
:class:`~marginclust.MaxMarginClustering` fit those estimators. The classes live
in the estimators' layer, above this one: it registers them here when it is
imported (:mod:`marginclust.estimators`), so that this layer names them without
importing them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["fcm_memberships", "library_clusterer", "register_clusterers"]

_CLASSES: dict[str, Any] = {}


def register_clusterers(*classes: Any) -> None:
    """Make estimator classes available to the starts by their class name.

    Parameters
    ----------
    *classes : type
        Estimator classes.

    Examples
    --------
    >>> from marginclust import SLMC
    >>> from marginclust.starts._library import library_clusterer
    >>> library_clusterer("SLMC") is SLMC
    True
    """
    for cls in classes:
        _CLASSES[cls.__name__] = cls


def library_clusterer(name: str) -> Any:
    """The registered estimator class called ``name`` (see :func:`register_clusterers`)."""
    try:
        return _CLASSES[name]
    except KeyError:
        raise LookupError(
            f"{name} is not registered with the starts: import marginclust.estimators "
            "(any estimator) first."
        ) from None


def fcm_memberships(
    X: Any, n_clusters: int, m: float, random_state: np.random.RandomState,
) -> npt.NDArray[np.float64]:
    """The memberships of one fuzzy c-means fit (its warnings silenced): the FCM start.

    Parameters
    ----------
    X : ndarray or row-block backend
        The rows the start is drawn on.
    n_clusters : int
        Number of clusters.
    m : float
        The fuzzifier.
    random_state : numpy.random.RandomState
        Seeds the fit.

    Returns
    -------
    memberships : ndarray of shape (n_samples, n_clusters)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fcm = library_clusterer("FuzzyCMeans")(
            n_clusters=n_clusters, m=m, n_init=1, random_state=random_state).fit(X)
    return fcm.memberships_.astype(np.float64)

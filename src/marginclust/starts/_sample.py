"""The spectral and margin-search starts of a row-block backend: a sample, then every row."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..feature_maps._graph import MAX_SAMPLES as START_SAMPLE_ROWS
from ._margin_start import margin_search_labels
from ._spectral import SampleLabels, spectral_sample_labels

__all__ = ["sample_start"]


def sample_start(
    rows: Any, n_clusters: int, random_state: np.random.RandomState, init: str,
) -> tuple[npt.NDArray[np.intp] | None, SampleLabels | None]:
    """The ``"spectral"`` or ``"max-margin"`` start on the rows' start sample.

    The sample is the one :func:`~marginclust.starts.spectral_labels` draws (at
    most 2,000 rows; in memory and out of core alike). When it holds every row
    its labels are the start; otherwise every other row takes the label of its
    nearest sample row, which the caller applies block by block.

    Parameters
    ----------
    rows : row-block backend
        :class:`~marginclust.utils._blocks.RowBlocks` or an out-of-core backend.
    n_clusters : int
        Number of clusters.
    random_state : numpy.random.RandomState
        Seeds the sample and the start.
    init : {"spectral", "max-margin"}
        :func:`~marginclust.starts._spectral.spectral_sample_labels` or
        :func:`~marginclust.starts.margin_search_labels`.

    Returns
    -------
    labels : ndarray of shape (n_samples,) or None
        The start's labels when the sample is every row (else None).
    labeller : SampleLabels or None
        The labeller of every row otherwise (else None).

    Examples
    --------
    >>> import numpy as np
    >>> from marginclust.starts._sample import sample_start
    >>> from marginclust.utils._blocks import RowBlocks
    >>> X = np.r_[np.zeros((20, 2)), np.ones((20, 2))] + np.random.RandomState(0).rand(40, 2) / 10
    >>> labels, labeller = sample_start(RowBlocks(X), 2, np.random.RandomState(0), "spectral")
    >>> np.bincount(labels).tolist(), labeller is None
    ([20, 20], True)
    """
    sample, _ = rows.sample(START_SAMPLE_ROWS, random_state)
    sample = np.asarray(sample, dtype=np.float64)
    labels = (spectral_sample_labels(sample, n_clusters, random_state=random_state)
              if init == "spectral" else
              margin_search_labels(sample, n_clusters, random_state))
    if sample.shape[0] == rows.shape[0]:
        return labels, None
    return None, SampleLabels(sample, labels)

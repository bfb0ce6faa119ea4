"""The harness's ``"label-free"`` protocol: the method's defaults, then a StabilitySearch.

The job's estimator (the method's factory at its defaults) is searched over its
own label-free grid (``_label_free_grid``) with
:class:`marginclust.model_selection.StabilitySearch`; the labels of the data
set are only handed to the measures after the pick is refitted. A factory that
returns the harness's ``Standardized`` wrapper is searched as the equivalent
``StandardScaler`` pipeline, so the grid is computed on the standardised rows.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LABEL_FREE", "label_free_search", "searched_estimator"]

LABEL_FREE = "label-free"


def label_free_search(estimator: Any, random_state: int) -> Any:
    """An unfitted StabilitySearch of ``estimator`` over its label-free grid."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from marginclust.model_selection import StabilitySearch

    if type(estimator).__name__ == "Standardized" and hasattr(estimator, "estimator"):
        estimator = make_pipeline(StandardScaler(), estimator.estimator)
    return StabilitySearch(estimator, None, random_state=random_state)


def searched_estimator(search: Any) -> tuple[Any, str]:
    """The fitted pick (a Pipeline's last step) and the chosen setting as JSON.

    Raises ValueError when every setting collapsed (the row records it as an error).
    """
    best = search.best_estimator_
    if best is None:
        raise ValueError("label-free search: every setting collapsed; nothing was chosen")
    steps = getattr(best, "steps", None)
    final = steps[-1][1] if steps else best
    return final, json.dumps(search.best_params_, sort_keys=True, default=str)

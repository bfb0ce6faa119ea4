"""Label-free model selection: scorers and a stability search that never read labels.

- Scorers with scikit-learn's callable signature ``scorer(estimator, X, y=None)``
  (``y`` is never read), usable as ``scoring=`` in ``GridSearchCV`` and
  ``HalvingGridSearchCV``: :func:`stability_scorer` (Lange et al. 2004, transfer
  by prediction, normalised instability), :func:`silhouette_scorer`,
  :func:`calinski_harabasz_scorer`, :func:`xie_beni_scorer` (geometric indices in
  the standardised input space; a degenerate fit gets the worst score).
- :class:`StabilitySearch`: drops degenerate settings, scores the rest against the
  estimator's defaults, refits the best on all rows; plans its cost before it starts
  (``budget="auto"``: about ten plain fits, a number: that many, by subsampling and
  successive halving over rows), shows its progress, and resumes from a cache of finished settings
  (``memory=``).
"""

from ._grid import candidate_settings, n_scaled_params, scale_params
from ._halving import Rung, SearchPlan, halving_schedule, plan_search
from ._scorers import (
    LABEL_FREE_SCORERS,
    calinski_harabasz_scorer,
    get_label_free_scorer,
    hungarian_disagreement,
    normalized_instability,
    reference_space,
    silhouette_scorer,
    stability_scorer,
    xie_beni_scorer,
)
from ._search import StabilitySearch

__all__ = [
    "LABEL_FREE_SCORERS",
    "Rung",
    "SearchPlan",
    "StabilitySearch",
    "calinski_harabasz_scorer",
    "candidate_settings",
    "get_label_free_scorer",
    "halving_schedule",
    "hungarian_disagreement",
    "n_scaled_params",
    "normalized_instability",
    "plan_search",
    "reference_space",
    "scale_params",
    "silhouette_scorer",
    "stability_scorer",
    "xie_beni_scorer",
]

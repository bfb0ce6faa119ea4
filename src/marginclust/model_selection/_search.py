"""StabilitySearch: choose a clusterer's parameters (and n_clusters) without labels."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClusterMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, check_memory, validate_data

from ..exceptions import ConvergenceWarning, NotFittedError
from ..utils import (
    AnyValue,
    Boolean,
    CacheLocation,
    Check,
    Constraint,
    Estimator,
    IntegerAtLeast,
    IsCallable,
    MaxIter,
    NJobs,
    OneOf,
    Or,
    Positive,
    PositiveFinite,
    Seed,
    StatusLine,
    Verbose,
    check_parameters,
    format_seconds,
)
from ._evaluate import (
    GEOMETRIC,
    PAIRED,
    Outcome,
    degeneracy_reason,
    evaluate_setting,
    fit_setting,
    labels_of,
    setting_n_clusters,
)
from ._grid import candidate_settings
from ._halving import (
    AUTO_BUDGET,
    AUTO_MIN_ROW_FITS,
    Rung,
    plan_search,
    schedule_cost,
)
from ._pick import least_degenerate, rank_settings, with_defaults
from ._progress import SearchProgress
from ._scorers import LABEL_FREE_SCORERS

__all__ = ["StabilitySearch"]

# Fewest rows per cluster in a half split (stability) or a rung (one-fit scorings):
# below this a method cannot be asked to find K clusters on the rung.
_HALF_ROWS_PER_CLUSTER = 20
_MIN_HALF_ROWS = 50
# budget="auto" spends fewer splits (down to 3) before it gives halves fewer rows than
# this per cluster.
_ROOMY_HALF_ROWS_PER_CLUSTER = 50


def _shown(params: Mapping[str, Any] | None) -> str:
    """A setting as printed: ``gamma=1.25, lam=100`` (floats to 4 significant digits: grid
    values computed from the data carry rounding noise), or ``the defaults``."""
    if not params:
        return "the defaults"

    def value(v: Any) -> str:
        if isinstance(v, float | np.floating):
            return f"{float(v):.4g}"
        return v if isinstance(v, str) else repr(v)

    return ", ".join(f"{k}={value(v)}" for k, v in params.items())


def _varies_n_clusters(settings: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the settings ask for different numbers of clusters."""
    values = {repr(v) for s in settings for k, v in s.items()
              if k == "n_clusters" or k.endswith("__n_clusters")}
    return len(values) > 1


def _resolve_scoring(scoring: str | Callable[..., float],
                     settings: Sequence[Mapping[str, Any]]) -> str | Callable[..., float]:
    """``"auto"``: stability when the grid varies ``n_clusters``, else Calinski-Harabasz.

    At a fixed number of clusters the CH index in one fixed (standardised) space
    orders partitions by their between-cluster sum of squares, the trace
    criterion of Fan et al.'s match-to-reference selection (ICML 2020) with a
    linear reference; stability there measures how unique the method's optimum
    is rather than whether it is right (Ben-David, von Luxburg & Pal 2006).
    Across numbers of clusters only the normalised instability of Lange et al.
    (2004) is comparable, so the grid's ``n_clusters`` is chosen by stability.
    """
    if scoring != "auto":
        return scoring
    return "stability" if _varies_n_clusters(settings) else "calinski_harabasz"


def _best_has(name: str) -> Callable[[Any], bool]:
    def check(self: Any) -> bool:
        est = getattr(self, "best_estimator_", None)
        return hasattr(est if est is not None else self.estimator, name)

    return check


def _min_rung_rows(k_max: int, paired: bool) -> int:
    """Fewest rows of a rung at which every setting can be asked for ``k_max`` clusters."""
    per_fit = max(_MIN_HALF_ROWS, _HALF_ROWS_PER_CLUSTER * k_max)
    return 2 * per_fit if paired else per_fit


_COLUMNS = ("score", "score_std", "degenerate", "n_clusters", "n_clusters_found",
            "smallest_cluster", "seconds", "n_fits", "n_rows", "iter", "n_convergence_warnings",
            "error", "reason", "n_failed_pairs", "pair_scores", "rank", "refit_degenerate",
            "tie_break_score", *GEOMETRIC)


def _empty_results(settings: list[dict[str, Any]], is_default: list[bool]) -> dict[str, list[Any]]:
    n = len(settings)
    start: dict[str, Any] = {
        "score": np.nan, "score_std": np.nan, "degenerate": True, "n_clusters": None,
        "n_clusters_found": 0, "smallest_cluster": 0, "seconds": 0.0, "n_fits": 0,
        "n_rows": 0, "iter": -1, "n_convergence_warnings": 0, "error": None, "reason": None,
        "n_failed_pairs": 0, "pair_scores": (), "rank": 0, "refit_degenerate": None,
        "tie_break_score": np.nan, **{name: np.nan for name in GEOMETRIC},
    }
    return {"params": settings, "is_default": is_default,
            **{c: [start[c]] * n for c in _COLUMNS}}


_SCORING = (f"{{name}} must be 'auto', one of {sorted(LABEL_FREE_SCORERS)} or a callable "
            "scorer(estimator, X); got {value!r}.")
_GEOMETRIC = sorted(set(LABEL_FREE_SCORERS) - {"stability"})


def _subsample(value: Any, name: str) -> None:
    """``subsample``: None, a number of rows (an int >= 2) or a fraction in (0, 1]."""
    if value is None:
        return
    message = f"{name} must be an int, a fraction in (0, 1] or None; got {value!r}."
    if isinstance(value, bool):
        raise ValueError(message)
    if isinstance(value, int | np.integer):
        if value < 2:
            raise ValueError(f"{name} must be at least 2 rows; got {value}.")
        return
    if not (isinstance(value, float) and 0.0 < value <= 1.0):
        raise ValueError(message)



def collapse_advice(estimator: Any) -> str:
    """The estimator's own advice after a collapse (for a pipeline, its last step's).

    Read from the instance: an estimator may word it by its parameters (a property).

    Parameters
    ----------
    estimator : estimator or Pipeline
        The searched estimator, unfitted.

    Returns
    -------
    advice : str
        Empty when the estimator has none.

    Examples
    --------
    >>> from marginclust import FuzzyCMeans
    >>> collapse_advice(FuzzyCMeans()).startswith("Lower the fuzzifier")
    True
    """
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    advice = getattr(final, "_collapse_advice", "")
    return advice if isinstance(advice, str) else ""

class StabilitySearch(ClusterMixin, BaseEstimator):
    """Choose a clusterer's parameters, n_clusters included, without labels.

    Every setting of the grid, and the estimator's own parameters (the
    defaults, one per ``n_clusters`` of the grid), is first fitted on the search
    rows; settings whose fit is degenerate (fewer non-empty clusters than
    asked, or a cluster below :func:`marginclust.utils.min_cluster_size`), or
    that raise, are dropped before any score is computed. The others are
    scored, the best is refitted on all rows and becomes ``best_estimator_``.
    Preprocessing is not searched: fix it by rule (e.g.
    ``make_pipeline(StandardScaler(), estimator)`` or standardised features),
    because a partition dominated by one large-scale feature is very stable and
    wrong.

    With ``scoring="stability"`` (Lange, Roth, Braun & Buhmann 2004) each
    setting is fitted on both halves of ``n_pairs`` random splits of the rows;
    each half's model labels the other half with its own ``predict``, and the
    disagreement with the other half's own fit, minimised over relabellings and
    divided by that of random labellings with the same cluster sizes, is the
    normalised instability. A split's stability is ``1 - normalised
    instability`` (averaged over both directions); the setting's score is the
    median over the splits, so one split that lands in a poor local optimum
    does not decide the pick. A split whose halves cannot be fitted or collapse
    is a failure (counted as the worst value, -1, and reported as a failure in
    ``results_``). Scores are comparable across ``n_clusters``: 1 is perfectly
    reproducible, 0 no better than chance. The geometric scores
    (``"silhouette"``, ``"calinski_harabasz"``, ``"xie_beni"``) are computed on
    the fit on the search rows, in the standardised input space.

    The defaults are the incumbent: a setting is picked over the defaults with
    the same ``n_clusters`` only when its score is better by more than ``tol``,
    so the search never picks a setting its own score rates below the defaults.
    All settings share the same splits and, when the estimator's
    ``random_state`` is None, the same seed drawn from ``random_state``.

    Parameters
    ----------
    estimator : clusterer
        An unfitted scikit-learn clusterer (``fit``, ``predict``).
    param_grid : dict or list of dicts, default=None
        Settings to compare (scikit-learn's ``ParameterGrid`` format), may
        include ``n_clusters``. None uses the estimator's own label-free grid
        when it declares one (marginclust's estimators do: e.g. SLMC's ``lam``
        x ``gamma``), computed from ``X`` only; otherwise the defaults alone
        are fitted. Values of the parameters that are sums over samples (EMMC's
        ``C``, WOC-SVM's ``temperature``), in the grid or the estimator, are meant for all
        the rows of ``X``: a fit on ``r`` of the ``n`` rows (a subsample, a
        half, a halving rung) uses ``value * r / n``, and the refit on all rows
        the value itself, so the defaults refitted are the plain fit.
    scoring : {"auto", "stability", "silhouette", "calinski_harabasz", "xie_beni"} or \
callable, default="stability"
        Label-free criterion, greater is better; a callable is
        ``scorer(fitted_estimator, X)`` evaluated on the search rows.
        ``"auto"`` is ``"stability"`` when the grid varies ``n_clusters`` and
        ``"calinski_harabasz"`` otherwise (``scoring_`` says which; see Notes).
    tie_break : {"calinski_harabasz", "silhouette", "xie_beni"} or None, \
default="calinski_harabasz"
        With ``scoring="stability"``, settings whose stability is within ``tol``
        of the best are ordered by this geometric score (standardised space).
        Stability cannot separate partitions that are all reproducible: on
        nested structure (two close blobs beside a far one) ``n_clusters=2``
        and ``3`` are both perfectly stable, and stability alone is biased to
        the smaller number (Ben-David et al. 2006).
    tol : float, default=0.1
        Score differences up to ``tol`` count as ties. With stability the
        settings are compared on the same splits: a setting ties with the best
        when the median over the splits of the best's lead is at most ``tol``
        (``score_std`` in ``results_`` shows a setting's spread over the
        splits, typically 0.05 to 0.2). A window of 0.1 rather than 0.05 made
        the chosen ``n_clusters`` independent of the search seed more often
        (13 of 18 method-data pairs on six shared UCI sets, 24 of 28 on
        fourteen sets of a held-out benchmark, against 11 and 22) at the cost
        of one held-out set (wingnut: 4 clusters chosen where 2 are labelled).
    n_pairs : int, default=5
        Random half splits per setting for ``scoring="stability"``.
    subsample : int, float or None, default=None
        Rows the search uses (an int, or a fraction of the rows); None uses all
        rows, or with a ``budget`` as many as the budget allows. The best
        setting is always refitted on all rows.
    budget : float, "auto" or None, default=None
        Largest cost of the whole search, the refit of the pick on all rows
        included, in fits on all rows of ``X`` (a fit on ``r`` of the ``n``
        rows costs ``r / n``; one stability evaluation costs ``1 + n_pairs``
        fits on its rows). A number and ``"auto"`` are planned alike: the
        search rows (unless ``subsample`` fixes them) and the successive-halving
        schedule over rows (rows grow and candidates shrink by ``factor`` per
        rung) that use the most rows within the budget, with fewer half splits
        (down to 3, see ``n_pairs_``) before halves would hold fewer than 50
        rows per cluster; ``plan_`` says what was chosen. ``"auto"`` is 10
        fits (or 20,000 rows fitted in all, whichever is more, so small data
        are searched on every row), so a number below 10 never costs more than
        ``"auto"``. When even the smallest plan costs more than the budget (a
        budget of 1 leaves nothing after the refit), that plan is used and a
        number warns. None compares every setting on every search row. No
        rung has fewer rows than ``2 x max(50, 20 x n_clusters)`` (stability)
        or ``max(50, 20 x n_clusters)``, so that every setting can be asked
        for its clusters.
    factor : int, default=3
        Halving factor.
    include_defaults : bool, default=True
        Add the estimator's own parameters (at each ``n_clusters`` of the grid)
        to the candidates when the grid does not hold them.
    memory : str, joblib.Memory or None, default=None
        Where finished settings are kept (a directory, or a
        :class:`joblib.Memory`, as scikit-learn's ``Pipeline`` takes). A search
        interrupted (Ctrl-C, a crash) and run again with the same data,
        estimator and integer ``random_state`` reads the settings it finished
        and fits only the others, ending with the same result.
    random_state : int, RandomState instance or None, default=None
        Seeds the row subsample, the splits and, when the estimator's
        ``random_state`` is None, the estimator.
    n_jobs : int or None, default=None
        Settings evaluated in parallel (joblib).
    verbose : int, default=0
        ``> 0`` prints the plan, an estimate of the time after the first fit, a
        progress line ``setting i/N, fit j/M, ETA`` and the pick to stderr
        (the progress line is ended before the search returns).

    Attributes
    ----------
    best_params_ : dict
        The chosen setting as given in the grid (``{}`` or ``{"n_clusters":
        k}`` for the defaults).
    best_estimator_ : estimator
        The chosen setting refitted on all rows.
    best_score_ : float
        Its score on the search rows (NaN when ``collapsed_``).
    best_index_ : int
        Its index in ``results_``.
    collapsed_ : bool
        True when every setting collapsed or failed on the search rows: a
        ``ConvergenceWarning`` says so and the pick is the least degenerate
        setting (most of its clusters found, largest smallest cluster, the
        defaults first), refitted on all rows.
    labels_ : ndarray of shape (n_samples,)
        ``best_estimator_``'s labels of the training rows.
    n_clusters_ : int
        Clusters the pick was asked for (its ``n_clusters``).
    n_clusters_found_ : int
        Non-empty clusters of ``labels_``.
    results_ : dict of lists
        One entry per setting: ``params``, ``is_default``, ``score`` (the
        median over the splits, failures counted as -1), ``score_std``,
        ``pair_scores`` (one per split, NaN for a failed split),
        ``n_failed_pairs``, ``degenerate`` and ``reason`` (why it was dropped),
        ``n_clusters``, ``n_clusters_found``, ``smallest_cluster``, ``seconds``
        (fit time summed over its fits), ``n_fits``, ``n_rows`` and ``iter``
        (the last rung it reached), ``n_convergence_warnings``, ``error``,
        ``rank`` (1 is the pick; dropped settings rank last),
        ``refit_degenerate``, ``tie_break_score`` and the geometric criteria
        of every kept setting whatever the scoring (``calinski_harabasz``,
        ``silhouette``, ``xie_beni``: its fit on the rung's rows, in the
        standardised space; NaN for dropped settings).
        ``pandas.DataFrame(results_)`` shows it as a table.
    schedule_ : list of Rung
        ``(n_candidates, n_rows)`` per rung as planned.
    n_search_rows_ : int
        Rows the search used.
    n_pairs_ : int
        Half splits per setting used (0 for the one-fit scorings).
    n_fits_planned_ : int
        Fits the plan allowed for before the search started (dropped settings
        spend fewer).
    cost_ : float
        Cost spent, in fits on all rows of ``X`` (the unit of ``budget``; refit
        excluded).
    plan_ : str
        One sentence: settings, rows, splits, halving and cost.
    scoring_ : str or callable
        The scoring used (``"auto"`` resolved).
    grid_source_ : str
        ``"given"``, ``"estimator"`` (its label-free grid) or ``"defaults"``.
    n_features_in_ : int
        Features seen in fit.

    Warns
    -----
    ConvergenceWarning
        When no setting is more stable than chance (best stability below
        ``tol``): "the data may not hold K clusters"; and when every setting
        collapsed (``collapsed_``).

    Notes
    -----
    ``scoring="auto"`` separates the two jobs of a label-free search. Across
    numbers of clusters only a criterion normalised against chance is
    comparable, and Lange et al.'s normalised instability is. At a fixed
    number of clusters stability mostly measures how unique the method's
    optimum is, not whether the partition is right (Ben-David, von Luxburg &
    Pal 2006), while the Calinski-Harabasz index in one fixed space orders
    partitions of the same rows by their between-cluster sum of squares (the
    trace criterion of match-to-reference selection with a linear reference,
    Fan et al. 2020). It is also one fit per setting instead of
    ``1 + 2 n_pairs``. It is not the default: on eight shared data sets
    (leave-one-data-set-out) it was about half a point of clustering accuracy
    better than stability, but on data sets kept out of that design it was
    worse, so neither rule is shown to generalise better.

    References
    ----------
    T. Lange, V. Roth, M. L. Braun and J. M. Buhmann, "Stability-based validation
    of clustering solutions", Neural Computation 16(6):1299-1323, 2004.
    S. Ben-David, U. von Luxburg and D. Pal, "A sober look at clustering
    stability", COLT 2006.
    X. Fan, Y. Yue, P. Sarkar and Y. X. R. Wang, "On hyperparameter tuning in
    general clustering problems", ICML 2020.
    Z. Karnin, T. Koren and O. Somekh, "Almost optimal exploration in
    multi-armed bandits", ICML 2013 (successive halving).

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.cluster import KMeans
    >>> from marginclust.model_selection import StabilitySearch
    >>> X, _ = make_blobs(300, centers=4, random_state=1)
    >>> search = StabilitySearch(KMeans(n_init=3), {"n_clusters": [2, 3, 4, 5, 6]},
    ...                          n_pairs=3, random_state=0).fit(X)
    >>> search.best_params_
    {'n_clusters': 4}
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "estimator": Estimator(),
        "param_grid": AnyValue(
            "a dict of lists, a list of such dicts or None: checked against the "
            "estimator's parameters as the settings are built (candidate_settings)"),
        "scoring": Or(("auto", *LABEL_FREE_SCORERS), IsCallable(_SCORING), _SCORING),
        "tie_break": OneOf((None, *_GEOMETRIC),
                           f"{{name}} must be None or one of {_GEOMETRIC}; got {{value!r}}."),
        "tol": Positive(strict=False),
        "n_pairs": MaxIter(),
        "subsample": Check(_subsample, invalid=(1, 0.0, 1.5, "half", True)),
        "budget": Or(("auto", None), PositiveFinite(),
                     "{name} must be a positive number of fits, 'auto' or None; got {value!r}."),
        "factor": IntegerAtLeast(2),
        "include_defaults": Boolean(),
        "memory": CacheLocation(),
        "random_state": Seed(),
        "n_jobs": NJobs(),
        "verbose": Verbose(),
    }

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Sequence[Any]] | Sequence[Any] | None = None,
        *,
        scoring: str | Callable[..., float] = "stability",
        tie_break: str | None = "calinski_harabasz",
        tol: float = 0.1,
        n_pairs: int = 5,
        subsample: int | float | None = None,
        budget: float | str | None = None,
        factor: int = 3,
        include_defaults: bool = True,
        memory: Any = None,
        random_state: Any = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.tie_break = tie_break
        self.tol = tol
        self.n_pairs = n_pairs
        self.subsample = subsample
        self.budget = budget
        self.factor = factor
        self.include_defaults = include_defaults
        self.memory = memory
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ----------------------------------------------------------------- checks
    def _subsample_rows(self, n: int) -> int | None:
        """The subsample size asked for on ``n`` rows (None: not fixed); the table
        checked the value."""
        sub = self.subsample
        if sub is None:
            return None
        if isinstance(sub, int | np.integer):
            return int(min(sub, n))
        return max(2, int(round(sub * n)))

    def _seeded(self, rng: np.random.RandomState) -> Any:
        """A clone whose unset random_state(s) get one seed drawn from ``rng``."""
        est = clone(self.estimator)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        unset = {k: seed for k, v in est.get_params(deep=True).items()
                 if (k == "random_state" or k.endswith("__random_state")) and v is None}
        return est.set_params(**unset) if unset else est

    def _plan(self, n: int, n_settings: int, paired: bool, k_max: int,
              fixed_rows: int | None) -> tuple[int, list[Rung], bool, float, int]:
        """Search rows, schedule, whether it fits the budget, the budget in fits on all
        rows, and the number of half splits."""
        min_rows = _min_rung_rows(k_max, paired)
        if self.budget is None:
            m = n if fixed_rows is None else fixed_rows
            return m, [Rung(n_settings, m)], True, np.nan, int(self.n_pairs)
        # "auto" and a number share one planner and one unit, fits on all rows with the
        # refit included; "auto" is 10 such fits (more on small data, see AUTO_MIN_ROW_FITS).
        if self.budget == "auto":
            budget = max(AUTO_BUDGET - 1.0, AUTO_MIN_ROW_FITS / n)
        else:
            # what is left for the search once the refit's one fit is paid; a budget of
            # one fit or less leaves nothing, and the smallest plan is used (with a warning)
            budget = max(float(self.budget) - 1.0, 1e-9)
        # fewer splits (down to 3) before fits with fewer than
        # _ROOMY_HALF_ROWS_PER_CLUSTER rows per cluster on the first rung
        roomy = min(n, _ROOMY_HALF_ROWS_PER_CLUSTER * k_max * (2 if paired else 1))
        pairs = [int(self.n_pairs)]
        if paired:  # at least 3: the median then ignores one split that failed
            pairs = list(range(int(self.n_pairs), min(3, int(self.n_pairs)) - 1, -1))
        best: tuple[Any, ...] | None = None
        chosen: tuple[Any, int] | None = None
        for floor in (max(min_rows, roomy), min_rows):
            for n_pairs in pairs:
                plan = plan_search(n_settings, n,
                                   fits_per_setting=1.0 + (n_pairs if paired else 0),
                                   budget=budget, factor=int(self.factor), min_rows=floor,
                                   n_rows=fixed_rows)
                if floor > min_rows and plan.within_budget:
                    chosen = (plan, n_pairs)
                    break
                key = (plan.within_budget, min(plan.schedule[0].n_rows, roomy), n_pairs)
                if floor == min_rows and (best is None or key > best[0]):
                    best = (key, plan, n_pairs)
            if chosen is not None:
                break
        if chosen is None:
            assert best is not None
            _, plan, n_pairs = best
        else:
            plan, n_pairs = chosen
        if not plan.within_budget and self.budget != "auto":
            warnings.warn(
                f"budget={self.budget} fits on all rows (the refit included) is below the "
                f"cost of the smallest search plan for {n_settings} settings, "
                f"{plan.cost:.3g} fits on all rows +1 for the refit (no rung may have "
                f"fewer than {min(n, min_rows)} rows); using that plan. Raise budget, "
                "lower n_pairs or use a smaller grid.",
                UserWarning, stacklevel=3,
            )
        return plan.n_rows, plan.schedule, plan.within_budget, budget, n_pairs

    # -------------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any = None) -> StabilitySearch:
        """Search the grid on ``X`` and refit the best setting on all of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (sparse if the estimator accepts it).
        y : ignored
            Never read: the search is label-free.

        Returns
        -------
        self : StabilitySearch
            The fitted search.
        """
        # sets n_features_in_ and, for a DataFrame, feature_names_in_ (checked at predict;
        # the settings are fitted on the bare array)
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric")
        n = X.shape[0]
        check_parameters(self, self._parameter_constraints)
        fixed_rows = self._subsample_rows(n)
        memory = check_memory(self.memory)
        if memory.location is not None and not isinstance(self.random_state, numbers.Integral):
            warnings.warn("memory= can resume a search only with an integer random_state "
                          "(the splits and seeds must repeat); nothing will be reused.",
                          UserWarning, stacklevel=2)
        rng = check_random_state(self.random_state)
        base = self._seeded(rng)
        settings, self.grid_source_ = candidate_settings(base, self.param_grid, X)
        n_grid = len(settings)
        if self.include_defaults:
            settings, is_default = with_defaults(base, settings)
        else:
            is_default = [False] * len(settings)
        scoring = self.scoring_ = _resolve_scoring(self.scoring, settings)
        paired = scoring in PAIRED
        ks = [setting_n_clusters(base, s) for s in settings]
        k_max = max([k for k in ks if k is not None] or [2])
        m, schedule, within, budget_n, n_pairs = self._plan(
            n, len(settings), paired, k_max, fixed_rows)
        self.n_pairs_ = n_pairs if paired else 0
        per_setting = 1.0 + self.n_pairs_
        self.schedule_ = schedule
        self.n_search_rows_ = m
        fits_per = 1 + 2 * self.n_pairs_
        self.n_fits_planned_ = int(sum(r.n_candidates for r in schedule) * fits_per)
        planned_cost = schedule_cost(schedule, m, per_setting)
        self.plan_ = self._describe_plan(base, n, m, n_grid, settings, is_default, schedule,
                                         fits_per, planned_cost, within, budget_n)
        line = StatusLine(enabled=self.verbose > 0)
        line.note(f"StabilitySearch: {self.plan_}")
        search_rows = np.arange(n) if m == n else np.sort(rng.choice(n, m, replace=False))
        order = rng.permutation(search_rows)
        results = _empty_results(settings, is_default)
        progress = SearchProgress(line, m)
        evaluate = memory.cache(evaluate_setting, ignore=["tick"])
        alive = list(range(len(settings)))
        cost = 0.0
        ranking: list[int] = []
        try:
            for it, rung in enumerate(schedule):
                rows = np.sort(order[: rung.n_rows])
                pairs = []
                for _ in range(self.n_pairs_):
                    perm = rng.permutation(rung.n_rows)
                    half = rung.n_rows // 2
                    pairs.append((np.sort(perm[:half]), np.sort(perm[half:])))
                rung_cost = per_setting * rung.n_rows / m
                progress.plan(len(alive), len(alive) * fits_per, len(alive) * rung_cost)
                tie_break = self.tie_break if paired else None
                args = (X[rows], n, pairs, scoring, tie_break)
                # the defaults first: the estimate after the first fit is then a plain
                # fit's (the order changes nothing else: every setting sees the same splits)
                first = sorted(alive, key=lambda i: not is_default[i])
                for i, out in self._run_rung(evaluate, base, settings, first, args, progress,
                                             fits_per, rung_cost, rung.n_rows):
                    self._store(results, i, out, it, rung.n_rows)
                cost += len(alive) * rung_cost
                ranking = rank_settings(alive, results, float(self.tol), base)
                line.note(f"StabilitySearch rung {it + 1}/{len(schedule)}: {len(alive)} "
                          f"setting{'s' if len(alive) != 1 else ''} on {rung.n_rows:,} rows, "
                          f"{len(alive) - len(ranking)} degenerate "
                          f"({format_seconds(progress.elapsed())} elapsed)")
                if it + 1 < len(schedule):
                    alive = self._next_alive(alive, ranking, results, base,
                                             schedule[it + 1].n_candidates)
        finally:
            line.close()
        self.cost_ = cost * m / n  # in fits on all rows, the unit of budget
        self.results_ = results
        ranking = self._chance(ranking, results, base)
        self._refit(X, base, settings, ranking, line)
        return self

    def _describe_plan(self, base: Any, n: int, m: int, n_grid: int, settings: list[Any],
                       is_default: list[bool], schedule: list[Rung], fits_per: int,
                       planned_cost: float, within: bool, budget_n: float) -> str:
        name = type(base).__name__
        if getattr(base, "steps", None):
            name = type(base.steps[-1][1]).__name__
        added = len(settings) - n_grid
        source = {"given": "of the grid", "estimator": f"of {name}'s label-free grid",
                  "defaults": "(the defaults)"}[self.grid_source_]
        what = f"{len(settings)} setting{'s' if len(settings) != 1 else ''} ({n_grid} {source}"
        what += f" + {added} default{'s' if added > 1 else ''})" if added else ")"
        rows = f"all {n:,} rows" if m == n else f"a subsample of {m:,} of {n:,} rows"
        scoring = self.scoring_ if isinstance(self.scoring_, str) else "a callable score"
        how = (f"stability over {self.n_pairs_} half splits" if scoring in PAIRED
               else f"{scoring} (one fit each)")
        if scoring in PAIRED and self.n_pairs_ < self.n_pairs:
            how += f" (fewer than n_pairs={self.n_pairs} to keep more rows)"
        text = f"{what} on {rows}, {how}"
        if len(schedule) > 1:
            text += (", successive halving " + " -> ".join(str(r.n_candidates) for r in schedule)
                     + " settings on " + " -> ".join(f"{r.n_rows:,}" for r in schedule)
                     + " rows")
        first = schedule[0].n_rows // (2 if scoring in PAIRED else 1)
        k_max = max([k for k in (setting_n_clusters(base, s) for s in settings)
                     if k is not None] or [2])
        if first < _HALF_ROWS_PER_CLUSTER * k_max:
            text += (f" (fits on {first:,} rows: fewer than {_HALF_ROWS_PER_CLUSTER} per "
                     f"cluster for {k_max} clusters, so some may collapse)")
        total = planned_cost * m / n
        text += (f": at most {self.n_fits_planned_:,} fits, costing about {total:.1f} fits "
                 f"on all rows (+1 for the refit)")
        if self.budget is not None:
            name = "'auto'" if self.budget == "auto" else f"{self.budget:g}"
            text += (f"; budget {name} allows {budget_n:.1f}" if within else
                     f"; over budget {name}, which allows {budget_n:.1f} (the smallest plan "
                     "that leaves every rung enough rows for its clusters): fewer settings "
                     "or n_pairs make it cheaper")
        return text

    def _run_rung(self, evaluate: Any, base: Any, settings: list[Any], alive: list[int],
                  args: tuple[Any, ...], progress: SearchProgress, fits_per: int,
                  rung_cost: float, n_rows: int) -> Any:
        """Yield ``(index, outcome)`` for every alive setting, counting progress."""
        m = progress.n_rows
        if self.n_jobs is None or self.n_jobs == 1:
            for i in alive:
                out = evaluate(base, settings[i], *args, tick=progress.tick)
                progress.setting_done(fits_per, rung_cost, out.n_fits,
                                      _spent(out, n_rows, m))
                yield i, out
            return
        outcomes = Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(evaluate)(base, settings[i], *args) for i in alive)
        for i, out in zip(alive, outcomes, strict=True):
            progress.setting_done(fits_per, rung_cost, out.n_fits, _spent(out, n_rows, m))
            yield i, out

    @staticmethod
    def _store(results: dict[str, list[Any]], i: int, out: Outcome, it: int,
               n_rows: int) -> None:
        results["score"][i] = out.score
        results["score_std"][i] = out.score_std
        results["degenerate"][i] = out.degenerate
        results["n_clusters"][i] = out.n_clusters
        results["n_clusters_found"][i] = out.n_found
        results["smallest_cluster"][i] = out.smallest
        results["seconds"][i] += out.seconds
        results["n_fits"][i] += out.n_fits
        results["n_rows"][i] = n_rows
        results["iter"][i] = it
        results["n_convergence_warnings"][i] += out.n_convergence_warnings
        results["error"][i] = out.error
        results["reason"][i] = out.reason
        results["pair_scores"][i] = out.pair_scores
        results["n_failed_pairs"][i] = int(np.sum(np.isnan(out.pair_scores)))
        results["tie_break_score"][i] = out.tie_score
        for name in GEOMETRIC:
            results[name][i] = (out.criteria or {}).get(name, np.nan)

    @staticmethod
    def _next_alive(alive: list[int], ranking: list[int], results: Mapping[str, list[Any]],
                    base: Any, n_next: int) -> list[int]:
        """The settings promoted to the next rung.

        The best ``n_next``, and the defaults at the number of clusters of any
        promoted setting (the incumbent is always compared at the last rung).
        A rung on which every setting collapsed decides nothing about quality:
        the least degenerate ``n_next`` go on.
        """
        if not ranking:
            return least_degenerate(alive, results)[:n_next]
        nxt = ranking[:n_next]
        ks = {setting_n_clusters(base, results["params"][i]) for i in nxt}
        for i in ranking[n_next:]:
            if results["is_default"][i] and setting_n_clusters(base, results["params"][i]) in ks:
                nxt.append(i)
        return nxt

    def _chance(self, ranking: list[int], results: Mapping[str, list[Any]],
                base: Any) -> list[int]:
        """Warn when no setting is more stable than chance; the defaults are then kept.

        With no evidence against them, the defaults at the best setting's
        ``n_clusters`` go first, even when only their half splits failed (their fit
        on the search rows found every cluster).
        """
        if self.scoring_ not in PAIRED or not ranking:
            return ranking
        top = ranking[0]
        best = results["score"][top]
        if not (np.isfinite(best) and best < self.tol):
            return ranking
        k = setting_n_clusters(base, results["params"][top])
        keep = [i for i in range(len(results["params"]))
                if results["is_default"][i] and results["error"][i] is None
                and results["n_clusters_found"][i] == results["n_clusters"][i]
                and setting_n_clusters(base, results["params"][i]) == k]
        ks = sorted({k for k in (setting_n_clusters(base, results["params"][i])
                                 for i in ranking) if k is not None})
        shown = ks[0] if len(ks) == 1 else "any of " + ", ".join(map(str, ks))
        failed, splits = results["n_failed_pairs"][top], len(results["pair_scores"][top])
        how = (f"best stability {best:.2f}, where 0 is chance and 1 perfectly "
               "reproducible" if 2 * failed <= splits else
               f"the best setting's halves collapsed in {failed} of {splits} splits")
        kept = ("the defaults are kept" if keep else
                "the pick is kept but is no better than a random split")
        warnings.warn(
            f"no setting is more stable than chance ({how}): the data may not hold "
            f"{shown} clusters. Try other numbers of clusters, standardised features or "
            f"another method; {kept}.",
            ConvergenceWarning, stacklevel=3,
        )
        return keep[:1] + [i for i in ranking if i not in keep[:1]]

    def _refit(self, X: Any, base: Any, settings: list[dict[str, Any]], ranking: list[int],
               line: StatusLine) -> None:
        results = self.results_
        self.collapsed_ = not ranking
        order = ranking if ranking else least_degenerate(range(len(settings)), results)
        chosen = None
        for i in order:
            params = dict(settings[i])
            try:
                est, _, _ = fit_setting(base, params, X)
                labels = labels_of(est, X)
                k = setting_n_clusters(est, {}) or int(np.unique(labels).size)
                bad = degeneracy_reason(labels, k) is not None
            except Exception as exc:  # noqa: BLE001 - the next setting is refitted instead
                results["error"][i] = f"refit: {type(exc).__name__}: {exc}"
                results["refit_degenerate"][i] = True
                continue
            results["refit_degenerate"][i] = bad
            if self.collapsed_ or not bad:
                chosen = (i, est, labels, k)
                break
        if chosen is None and ranking:  # every pick collapsed on all rows: least degenerate
            self.collapsed_ = True
            self._refit(X, base, settings, [], line)
            return
        if chosen is None:
            raise ValueError(
                f"Every setting of the {type(base).__name__} search failed to fit (see "
                f"results_['error'], e.g. {results['error'][order[0]]!r}); check the data "
                "and the parameter grid."
            )
        i, est, labels, k = chosen
        self.best_params_ = dict(settings[i])
        self.best_estimator_ = est
        self.best_index_ = i
        self.best_score_ = float(results["score"][i])
        self.labels_ = labels
        self.n_clusters_ = k
        self.n_clusters_found_ = int(np.unique(labels).size)
        placed = [i]
        rest = sorted(
            (j for j in range(len(settings)) if j != i),
            key=lambda j: (results["degenerate"][j], -results["iter"][j],
                           -results["score"][j] if np.isfinite(results["score"][j]) else np.inf),
        )
        for r, j in enumerate(placed + rest):
            results["rank"][j] = r + 1
        if self.collapsed_:
            shown = "; ".join(
                f"{_shown(settings[j])}: {results['reason'][j] or 'collapsed'}"
                + (f" ({results['error'][j]})" if results["error"][j] else "")
                for j in range(min(len(settings), 6))
            )
            more = "" if len(settings) <= 6 else f"; ... ({len(settings)} settings)"
            advice = collapse_advice(base)
            warnings.warn(
                f"Every setting of the {type(base).__name__} search collapsed or failed on "
                f"the search rows ({shown}{more}), so labels_ come from the least degenerate "
                f"one, {self.best_params_ or 'the defaults'}, refitted on all rows "
                f"({self.n_clusters_found_} of {k} clusters found); collapsed_ is True. Try "
                f"fewer clusters, standardised features or another grid. {advice}",
                ConvergenceWarning, stacklevel=3,
            )
        else:
            failed, splits = results["n_failed_pairs"][i], len(results["pair_scores"][i])
            how = (f"score {self.best_score_:.4f}" if 2 * failed <= splits else
                   f"its halves collapsed in {failed} of {splits} splits")
            line.note(f"StabilitySearch picked {_shown(self.best_params_)} ({how})")

    # ---------------------------------------------------------------- predict
    def _check_best(self) -> Any:
        check_is_fitted(self, "results_")
        if getattr(self, "best_estimator_", None) is None:
            raise NotFittedError("StabilitySearch has no fitted estimator; call fit first.")
        return self.best_estimator_

    def _check_predict_data(self, X: Any) -> Any:
        """``X`` checked against the columns seen in fit (count and, for a DataFrame, names
        and order: scikit-learn's error), as the array the best estimator was fitted on."""
        self._check_best()
        return validate_data(self, X, reset=False, accept_sparse=["csr", "csc"],
                             dtype="numeric", ensure_all_finite=False)

    def predict(self, X: Any) -> npt.NDArray[np.intp]:
        """Cluster labels of ``X`` from ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Index of the cluster of each sample.
        """
        X = self._check_predict_data(X)
        return np.asarray(self.best_estimator_.predict(X))

    @available_if(_best_has("predict_proba"))
    def predict_proba(self, X: Any) -> npt.NDArray[np.floating]:
        """Memberships of ``X`` from ``best_estimator_`` (when it has ``predict_proba``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        memberships : ndarray of shape (n_samples, n_clusters)
            Non-negative rows that sum to one.
        """
        X = self._check_predict_data(X)
        return np.asarray(self.best_estimator_.predict_proba(X))

    def fit_predict(self, X: Any, y: Any = None, **kwargs: Any) -> npt.NDArray[np.intp]:
        """Fit the search and return ``labels_`` (y is never read).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored (label-free).
        **kwargs : dict
            Ignored; accepted for scikit-learn's ``fit_predict`` signature.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster index of each sample, from the refitted best setting.
        """
        self.fit(X)
        return self.labels_


def _spent(out: Outcome, n_rows: int, m: int) -> float:
    """Cost an outcome's fits spent, in fits on the ``m`` search rows."""
    if out.n_fits <= 1:
        return out.n_fits * n_rows / m
    return (n_rows + (out.n_fits - 1) * (n_rows // 2)) / m

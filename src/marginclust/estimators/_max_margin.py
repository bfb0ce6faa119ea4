"""Maximum-margin clustering by a global search over diverse candidate partitions."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from sklearn.calibration import CalibratedClassifierCV
from sklearn.svm import SVC
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if

from ..base import BaseClusterer
from ..exceptions import ConvergenceWarning
from ..objectives._constraints import PairSet, make_pairs
from ..starts._candidates import DEFAULT_POOL, GENERATORS
from ..starts._margin_search import (
    MarginSearch,
    fitted_sample_size,
    margin_classifier,
    margin_gamma,
    margin_search,
    partition_margin,
    weighted_points,
)
from ..starts._selection import Candidate
from ..starts._separation import CLEAR_SEPARATION, MIN_UNION
from ..starts._valley import VALLEY
from ..starts._vote import classify
from ..utils import (
    Boolean,
    CacheLocation,
    Check,
    IntegerAtLeast,
    NClusters,
    OneOf,
    Or,
    PositiveFinite,
    Seed,
    Verbose,
    check_distinct_rows,
    check_parameters,
    check_sample_weight,
    report,
)
from ..utils._blocks import BLOCK_ROWS, out_of_core, sample_row_indices
from ..utils._memory import check_memory as check_memory_budget
from ..utils._preprocessing import SCALINGS, column_divisors, resolve_scaling
from ..utils._validation import DistinctRows

__all__ = ["MaxMarginClustering"]

# The K tried first with max_clusters="auto" (the former fixed default).
_FIRST_MAX_CLUSTERS = 10


def _check_candidates(value: Any, name: str) -> Any:
    """``"auto"`` or a non-empty list of generator names, (name, params) pairs, clusterers."""
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(
                f"{name} must be 'auto' or a list of names, (name, params) pairs or "
                f"clusterers; got {value!r}. Names: {sorted(GENERATORS)}."
            )
        return value
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(f"{name} must be 'auto' or a non-empty list; got {value!r}.")
    for entry in value:
        label = entry[0] if isinstance(entry, tuple) else entry
        if isinstance(label, str):
            if label not in GENERATORS:
                raise ValueError(f"Unknown candidate {label!r} in {name}; the names are "
                                 f"{sorted(GENERATORS)}.")
            if isinstance(entry, tuple) and (len(entry) != 2 or not isinstance(entry[1], dict)):
                raise ValueError(f"A candidate with parameters in {name} is a (name, dict) "
                                 f"pair; got {entry!r}.")
        elif not (hasattr(entry, "fit_predict") and hasattr(entry, "get_params") and (
                {"n_clusters", "n_components"} & set(entry.get_params()))):
            raise ValueError(f"A candidate estimator in {name} needs fit_predict and an "
                             f"n_clusters or n_components parameter; got {entry!r}.")
    return value


def _rows_and_weights(Xb: Any, lohi: tuple[int, int], wb: Any,
                      idx: npt.NDArray[np.intp]) -> tuple[Any, npt.NDArray[np.floating]]:
    """The rows ``idx`` (sorted row numbers) that fall in one block, and their weights."""
    lo, hi = lohi
    a, b = np.searchsorted(idx, [lo, hi])
    local = idx[a:b] - lo
    rows = sp.csr_matrix(Xb)[local] if sp.issparse(Xb) else np.asarray(Xb)[local]
    return rows, np.asarray(wb).ravel()[local]


class MaxMarginClustering(BaseClusterer):
    """Maximum-margin clustering found globally among diverse candidate partitions.

    Maximum-margin clustering seeks the labelling whose classifier separates the
    clusters best. Local search from a k-means start (the papers' solvers) stays
    near a convex split; this estimator searches globally instead: it generates
    cheap, diverse candidate partitions (density/MST-based Genie, a Gaussian
    mixture, spectral clustering of the kNN graph, k-means, Ward), judges each
    by a label-free, class-balanced margin, keeps the best, and learns a kernel
    SVM on it, which labels new points (``predict``) -- what Genie, spectral and
    agglomerative clustering cannot do.

    The judge is the out-of-fold functional margin of the k-nearest-neighbour
    vote: for each point, the share of its ``n_neighbors`` nearest neighbours
    (itself left out) in its own cluster minus the largest share in another
    cluster, in [-1, 1], averaged per cluster and then over clusters (an empty
    cluster counts -1). The vote is a kernel classifier whose width follows the
    local density (its window reaches the k-th neighbour), so one rule judges
    rings, chains and blobs of any spread without a global kernel width. A
    cluster of ``s`` points gets at most ``s - 1`` votes from its own members:
    groups of up to ``n_neighbors / 2 + 1`` outliers score at most 0 and are
    not taken for clusters, while separated clusters of ``n_neighbors + 1`` or
    more points score 1 however small they are.

    The data are centred and divided by their overall standard deviation (one
    number: shapes are kept), so the result does not change under translation
    or uniform rescaling. Columns measured in different units are first divided
    by their own spreads (``scale``; by default when their standard deviations
    differ more than 100-fold, see ``scale_``). In a table that mixes discrete
    columns (2 to 10 distinct values: yes/no answers, grades, small counts) with
    continuous ones, the judge reads each discrete value as its bin (spread
    uniformly over half the gap to each neighbouring level before the vote's
    neighbours are found): the empty space between two levels is the lattice
    of the measurement, not a density valley, and read as given it makes a
    split along one yes/no column look perfectly separated. Candidates are
    fitted on at most ``max_samples`` rows (a seeded random subset) and the
    margin classifier labels the other rows, so time and memory grow linearly in
    ``n_samples`` beyond that.

    Must-link and cannot-link pairs (``fit(X, must_link=..., cannot_link=...)``)
    are facts about rows; the candidates are generated without them, so the
    pairs each one breaks are honest evidence against it. A candidate is kept
    only if it breaks at most one standard error more pairs than the most
    consistent candidate (the count's binomial standard error, with the
    Agresti-Coull correction, so that one pair more or less among a few is not
    decisive), and among those the voting margin and the choice of K decide as
    without pairs (with ``"auto"`` and no clearly separated K, the K whose
    weakest boundary is best separated: the pairs ask for clusters). The chosen
    partition is then repaired on the pairs' rows: each must-link component
    takes the cluster with most votes among its members and their neighbours,
    and cannot-linked components that share a cluster are moved apart greedily
    (as the labels of :class:`~marginclust.BMMC`; where that leaves
    cannot-links broken, the components placed in turn, COP-KMeans's rule, if
    that breaks fewer), before the margin classifier learns it. The pairs'
    rows are always among the rows the candidates are fitted to.

    Parameters
    ----------
    n_clusters : int or "auto", default=2
        Number of clusters ``K`` (``n_clusters=1`` gives the trivial partition).
        ``"auto"``: every ``K`` in ``2 .. max_clusters`` is tried (see
        ``max_clusters`` for how far ``"auto"`` goes), and the largest ``K``
        whose partition's boundaries are all clear against data without
        clusters is kept (see "How K is chosen" below); one cluster when no
        ``K`` is clearly separated. ``k_scores_`` tables every ``K``.
    candidates : "auto" or list, default="auto"
        The candidate generators: ``"auto"`` is ``["genie", "gmm", "spectral",
        "k-means", "ward"]``. Entries may be names (also ``"slmc"``,
        ``"kernel-k-means"``, ``"emmc"``: the library's own methods, kernel
        width from the data's local scale), ``(name, params)`` pairs (e.g.
        ``("genie", {"gini_threshold": 0.5})``), or scikit-learn clusterers
        with an ``n_clusters`` or ``n_components`` parameter (cloned, and seeded
        when their ``random_state`` is None).
    n_neighbors : int, default=7
        Neighbours of the voting margin among the fitted rows (Zelnik-Manor &
        Perona's local scale uses the 7th); a vote on more rows than the fitted
        ones asks proportionally more (see ``max_vote_samples``). It is also the
        resolution: clusters need about ``n_neighbors + 1`` points to be
        recognised.
    max_clusters : int or "auto", default="auto"
        Largest ``K`` tried when ``n_clusters="auto"``. ``"auto"``: ``K`` up to
        10 first; while the ``K`` chosen is the largest tried, or one less (one
        unclear ``K`` ends neither the choice nor the range), up to half as
        many again, and so on, up to ``n_fit // (2 * n_neighbors)``
        clusters (``n_fit`` the rows the candidates are fitted to), so data with
        more than 10 separated clusters are not cut short (a fit that chooses
        ``K`` <= 8 of the first range costs what ``max_clusters=10`` does). An
        integer is a hard bound (the former default was 10).
    max_samples : int or "auto", default="auto"
        Rows on which the candidates are fitted, their boundaries tested and
        the margin classifier trained (all rows when there are fewer). No n x n
        matrix is formed beyond this many rows. ``"auto"``: 3,000, or 60 rows a
        cluster when ``K`` asks more (``max(3000, 60 K)``, at most 10,000, with
        ``K`` the ``n_clusters`` asked, or an integer ``max_clusters`` with
        ``"auto"``; 3,000 when both are ``"auto"``, as ``K`` is not known before
        the search), so that many clusters are not each left a few rows (sipu
        birch1, 1e5 rows, ``K = 100``: NCA .92 on 3,000 rows, .94 on 6,000);
        ``max_samples_`` holds the number used.
    max_vote_samples : int, default=10000
        Rows on which the voting margin ranks the candidates (all rows when
        there are fewer; at least the ``max_samples`` fitted ones): each row
        beyond the fitted ones takes the label of its nearest fitted row. A
        thin structure sampled sparsely has gaps, and a cut through a gap
        leaves no mixed vote among the sampled rows; among more rows the gap is
        filled and the cut is seen. The vote there asks ``n_neighbors`` times
        (these rows / the fitted rows) neighbours, rounded: the same reach, in
        space, as ``n_neighbors`` among the fitted rows. Candidates whose
        scores there are within one standard error of the best's (its margins
        taken as independent) cannot be told apart by these rows; among them
        the vote on the fitted rows decides, where each candidate's labels are
        its own rather than its nearest fitted row's. Costs one
        nearest-neighbour graph of these rows (no n x n matrix); ``labels_`` of
        these rows are the chosen partition's.
    scale : {"auto", "none", "standard", "robust"}, default="auto"
        Per-column scaling before the uniform one. ``"none"``: none (the columns
        keep their relative spreads: shapes are kept); ``"standard"``: each
        column divided by its standard deviation; ``"robust"``: by its
        interquartile range over 1.349 (outliers do not set the scale; the
        standard deviation where the quartiles coincide). ``"auto"``:
        ``"standard"`` when the columns' standard deviations differ by more than
        a factor 100 (the narrowest would then carry under 1/10,000 of a squared
        distance: different units, not a shape's aspect ratio), else ``"none"``.
        Constant columns are left as they are. ``marginclust fit --scale`` applies
        the same rule.
    C : float, default=10.0
        Penalty of the margin classifier (an RBF SVC, width twice the median
        distance to the ``n_neighbors``-th neighbour). Large enough that it
        reproduces the chosen partition on separated data.
    probability : bool, default=False
        Calibrate the classifier so that ``predict_proba`` is available: Platt
        scaling fitted on 5-fold cross-validated decision values
        (scikit-learn's ``CalibratedClassifierCV(SVC(...), ensemble=False)``;
        about five more classifier fits).
    memory : str, joblib.Memory or None, default=None
        Cache of the candidates' fits (a folder path or a ``joblib.Memory``):
        a repeated or interrupted fit on the same data resumes from it.
    random_state : int, RandomState instance or None, default=None
        Seeds the row subset, every candidate and the classifier. Use an int
        to make the randomness deterministic.
    verbose : int, default=0
        ``verbose > 0`` prints each candidate's score and time to stderr.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training point: the chosen candidate's labels on the
        rows it was fitted to, the margin classifier's on the others (a lazy
        dask array out of core).
    n_clusters_ : int
        Number of clusters (chosen when ``n_clusters="auto"``).
    max_samples_ : int
        The rows the candidates were fitted to, at most (``max_samples`` with
        ``"auto"`` resolved).
    scale_ : {"none", "standard", "robust"}
        The per-column scaling applied (``scale`` with ``"auto"`` resolved).
    candidates_ : list of Candidate
        Every candidate partition judged, with its name, number of clusters,
        score, cluster sizes and seconds.
    best_candidate_ : str
        Name of the chosen candidate.
    score_ : float
        Its class-balanced voting margin (1.0 for one cluster).
    separation_ : float
        The weakest boundary's separation: for the two clusters of the chosen
        partition that are worst separated, ``(s - r) / (1 - r)`` with ``s`` the
        voting margin of their split and ``r`` that of splitting data without
        clusters shaped like their union (1 = no neighbour across, 0 = no better
        than structureless data; 0 for two touching clusters of fewer than 16
        points together, too few to test; NaN for one cluster). Below 0.5 (unless the
        boundary lies in a valley between two modes and beats the reference by
        its error), or with a boundary where the data are not sparser than in
        the clusters (unless the boundary beats the reference between two
        Gaussians by the mixture's own test), a ``ConvergenceWarning`` says that
        the partition is not clearly separated.
    null_score_ : float
        ``r`` of that weakest boundary (NaN when no two clusters touch).
    k_scores_ : list of KScore
        One row per number of clusters judged (every ``K`` tried with
        ``"auto"``, a first row for ``K = 1`` when one cluster is chosen): the
        best partition's margin, its weakest boundary's separation, reference
        margin and sampling error, its smallest valley (density, modes or neck), whether
        every boundary is clear, and how many pairs of touching clusters were too
        small to test (fewer than 16 points together). :func:`marginclust.plotting.plot_k_curve`
        draws it.
    classifier_ : sklearn.svm.SVC or None
        The margin classifier, trained on the chosen partition (in the working
        coordinates: centred, unit overall standard deviation); None when the
        partition has a single non-empty cluster.
    calibrated_classifier_ : sklearn.calibration.CalibratedClassifierCV or None
        Its calibration (``probability=True``), behind ``predict_proba``.
    gamma_ : float
        The classifier's RBF ``gamma`` in those coordinates.
    sample_indices_ : ndarray of shape (n_fitted,)
        Rows the candidates were fitted to (all rows up to ``max_samples_``;
        out of core, distinct rows of the sample drawn across the chunks).
    classifier_moved_ : ndarray of int
        Rows where ``predict`` differs from ``labels_`` (rows of the chosen
        partition that the classifier puts on the other side of a boundary;
        empty on separated data).
    n_clusters_found_ : int
        Non-empty clusters of ``labels_``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    marginclust.SLMC : A maximum-margin solver started from one partition.
    marginclust.model_selection.StabilitySearch : Label-free choice of one
        method's parameters.

    Notes
    -----
    **How K is chosen.** A margin alone cannot count clusters: merging two
    separated clusters leaves a partition that is still perfectly separable, so
    the margin never falls as ``K`` falls and it cannot say "one cluster". What
    it lacks is the gap statistic's comparison with data that hold no cluster
    (Tibshirani, Walther & Hastie 2001), made here boundary by boundary. For
    each pair of clusters with a neighbour across, their union is split again
    into the two, and the boundary is clear when (i) its voting margin removes
    at least half of the mixed neighbourhoods that the principal-axis split of
    a Gaussian and of a uniform principal-axes box shaped like the union leaves
    (two draws of each, the larger reference margin, beaten by two of its
    standard errors), and (ii) the data are sparser at the boundary than in the
    sparser of the two clusters by a factor of 1.5 or more (k-nearest-neighbour
    densities, in the union's intrinsic dimension, from a two-standard-error
    lower bound of the boundary points' neighbour radius; where neither cluster
    has a mode to anchor the cut (at its centre or clearly in either half), as
    arcs of a ring, the bound allows for the
    ``n / b`` places a cut of ``b`` boundary points could take, Bonferroni at
    2.5 %), or the boundary is a
    neck: it mixes at most two thirds of the neighbourhoods that the cheaper of
    the two clusters' own principal-axis cuts mixes (at the 97.5 %
    Clopper-Pearson bound of the counts; a cut between two touching blobs of
    uniform density is cheaper than a cut through either). (ii) is what the
    vote cannot see: a cut across a thin ring leaves few mixed neighbours but
    passes through the ring's own density, and mixes as many as a cut across
    either piece. Clusters with no neighbour across are clear; two that touch
    but hold fewer than 16 points together cannot be tested, and their
    boundary is not clear (a handful of points cut into clusters of three is
    no partition shown; clusters of a few points each are found only where
    their neighbours lie within them). On a line (one
    column) every cut leaves about ``n_neighbors`` mixed votes or none,
    whatever the density there, so a boundary is judged by its gap alone: 1.5
    times as wide, in units of the clusters' neighbour radius, as the widest
    gap of uniform data of the same range and size (a cut in a sparse tail is
    not). A partition is clearly separated when every boundary is clear; per
    ``K`` the best-scoring candidate that is clearly separated is kept (else
    the best-scoring one). With ``"auto"`` the largest clearly separated ``K``
    is kept: the finest partition whose every boundary is real (past the first
    ``K`` that is not, only each ``K``'s best-scoring candidate is judged); with
    none, one cluster and a one-line warning. The thresholds read on their own
    scales (half of the structureless split's mixed neighbourhoods, two thirds
    of the clusters' density or of a cut through them) and were not fitted to a
    data set.

    **Sparse input** is copied dense (refused, with the remedy, when the copy
    would not fit in memory): the candidates need coordinates (the spanning
    tree of Genie, the mixture's covariances, Ward's centroids, the
    structureless references), and on the sparse high-dimensional data where a
    dense copy would not fit, the neighbour vote in the original space is
    itself the weak point (reduce the columns first, e.g. with
    ``TruncatedSVD``). ``predict`` densifies a block of rows at a time.

    **Weights.** Identical rows are one point of their summed weight (and
    ``sample_weight`` multiplies them): the vote counts a neighbour's weight,
    k-means and the margin classifier take the weights, the other candidates
    see each distinct row once. Repeating every row any number of times gives
    the same fit.

    **Out of core.** :class:`marginclust.dask.DaskClusterer` fits a row-chunked
    dask array (dense or CSR chunks) without gathering it, in two passes: one
    checks X, the other fetches ``min(max(max_samples_, max_vote_samples),
    n_samples)`` distinct rows
    drawn uniformly across the chunks (seeded by ``random_state``, whatever the
    chunks; the rows of ``must_link`` / ``cannot_link`` pairs are added, and a
    dask ``sample_weight`` comes with its rows). The search and the margin
    classifier then run in memory on that sample: the model is this ``fit`` on
    those rows with the same parameters (an int ``random_state``), and
    ``sample_indices_`` are their row numbers in X. ``labels_`` is a lazy dask
    array, the sample fit's labels on its rows and the margin classifier's on
    every other row, chunk by chunk; ``predict`` and ``predict_proba`` map over
    the chunks. Identical rows are merged within the sample only, and a row of
    weight 0 drawn into it takes a place of the sample. Labelling costs one
    classifier evaluation per row, proportional to the number of support
    vectors (``benchmarks/results/max-margin-dask.md``).

    The voting margin counts neighbours, not distances; where clusters overlap
    heavily (two Gaussians split at the Bayes boundary) it prefers a
    low-density cut to the mixture's split, and the rule above merges such
    clusters. A Gaussian mixture or k-means is then the better model. The
    measurements behind the defaults, on Gagolewski's benchmark batteries, are
    in ``benchmarks/results/max-margin.md`` and ``benchmarks/results/auto-k.md``.

    References
    ----------
    M. Gagolewski, M. Bartoszuk and A. Cena, "Genie: A new, fast, and
    outlier-resistant hierarchical clustering algorithm", Information Sciences
    363 (2016) 8-23.

    L. Zelnik-Manor and P. Perona, "Self-tuning spectral clustering", NIPS 17
    (2004).

    R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of clusters
    in a data set via the gap statistic", J. R. Statist. Soc. B 63 (2001)
    411-423.

    E. Levina and P. J. Bickel, "Maximum likelihood estimation of intrinsic
    dimension", NIPS 17 (2004).

    A. Damle, V. Minden and L. Ying, "Simple, direct and efficient multi-way
    spectral clustering", Information and Inference 8 (2019) 181-203.

    L. Xu, J. Neufeld, B. Larson and D. Schuurmans, "Maximum margin
    clustering", NIPS 17 (2004).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_circles
    >>> from marginclust import MaxMarginClustering
    >>> X, y = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    >>> est = MaxMarginClustering(n_clusters=2, random_state=0).fit(X)
    >>> est.best_candidate_
    'genie'
    >>> bool(np.all(est.labels_ == y) or np.all(est.labels_ != y))
    True
    >>> est.predict([[0.0, 0.0], [1.0, 0.0]]).tolist() == [est.labels_[y == 1][0],
    ...                                                    est.labels_[y == 0][0]]
    True

    Without K, the number of clusters whose boundaries are all clear (one
    cluster for data without any):

    >>> MaxMarginClustering(n_clusters="auto", random_state=0).fit(X).n_clusters_
    2

    Must-link / cannot-link pairs (indices into the rows of ``X``) are kept in
    ``labels_``:

    >>> inner, outer = np.flatnonzero(y == 1)[:2], np.flatnonzero(y == 0)[0]
    >>> semi = MaxMarginClustering(n_clusters=2, random_state=0).fit(
    ...     X, must_link=[inner], cannot_link=[[inner[0], outer]])
    >>> bool(semi.labels_[inner[0]] == semi.labels_[inner[1]] != semi.labels_[outer])
    True
    """

    _min_clusters = 1
    # out of core (marginclust.dask.DaskClusterer): the search on a sample of rows drawn
    # across the blocks, in memory; every row labelled by the margin classifier by blocks
    _out_of_core = True
    # as in memory, too few distinct rows for the clusters is the error (the fit of one
    # cluster takes constant data)
    _require_non_constant = False

    # fitted row numbers (declared for type checkers: the out-of-core fit maps them to X)
    sample_indices_: npt.NDArray[np.intp]
    classifier_moved_: npt.NDArray[np.intp]
    # sparse rows are densified in fit (see the class docstring: the candidates need
    # coordinates) under a memory guard, and in blocks in predict
    _accept_sparse = ("csr", "csc", "coo")
    # labels_ are the chosen candidate's on its rows, which the classifier may not
    # reproduce: the base class lists the rows where they differ
    _moved_attribute = "classifier_moved_"
    _collapse_advice = (
        "No candidate found that many separated clusters: try fewer n_clusters, "
        "n_clusters='auto', or more candidates."
    )
    _parameter_constraints = {
        "n_clusters": Or(("auto",), NClusters(1),
                         message="{name} must be 'auto' or a positive integer; got {value!r}."),
        "candidates": Check(_check_candidates, invalid=("best", [], ["no-such-generator"])),
        "n_neighbors": IntegerAtLeast(2),
        "max_clusters": Or(("auto",), IntegerAtLeast(2),
                           message="{name} must be 'auto' or an integer >= 2; got {value!r}."),
        "max_samples": Or(("auto",), IntegerAtLeast(10),
                          message="{name} must be 'auto' or an integer >= 10; got {value!r}."),
        "max_vote_samples": IntegerAtLeast(10),
        "scale": OneOf(SCALINGS),
        "C": PositiveFinite(),
        "probability": Boolean(),
        "memory": CacheLocation(),
        "random_state": Seed(),
        "verbose": Verbose(),
    }
    def __init__(
        self,
        n_clusters: int | str = 2,
        *,
        candidates: Any = "auto",
        n_neighbors: int = 7,
        max_clusters: int | str = "auto",
        max_samples: int | str = "auto",
        max_vote_samples: int = 10_000,
        scale: str = "auto",
        C: float = 10.0,
        probability: bool = False,
        memory: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.candidates = candidates
        self.n_neighbors = n_neighbors
        self.max_clusters = max_clusters
        self.max_samples = max_samples
        self.max_vote_samples = max_vote_samples
        self.scale = scale
        self.C = C
        self.probability = probability
        self.memory = memory
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _cluster_counts(self, X: Any) -> tuple[int, ...]:
        """Check the parameter table on ``X``; return the numbers of clusters to try."""
        check_parameters(self, self._parameter_constraints, X)
        self._pool = list(DEFAULT_POOL) if self.candidates == "auto" else list(self.candidates)
        if isinstance(self.n_clusters, str):
            sought = None if self.max_clusters == "auto" else int(self.max_clusters)
            self.max_samples_ = fitted_sample_size(self.max_samples, sought)
            first = _FIRST_MAX_CLUSTERS if self.max_clusters == "auto" else self.max_clusters
            return tuple(range(2, min(int(first), X.shape[0]) + 1))
        self.max_samples_ = fitted_sample_size(self.max_samples, int(self.n_clusters))
        return (int(self.n_clusters),)

    # ------------------------------------------------------------------ fit
    def fit(
        self, X: Any, y: Any = None, *, sample_weight: Any = None, must_link: Any = None,
        cannot_link: Any = None,
    ) -> MaxMarginClustering:
        """Generate the candidates on ``X``, judge them, keep the best, train the classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. Sparse rows are copied dense (see the class notes).
            :class:`marginclust.dask.DaskClusterer` fits a dask array through
            this method (see "Out of core" in the class notes).
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row; a row of weight ``r`` counts as ``r``
            identical rows (and identical rows count as one point of their summed
            weight). Rows of weight 0 are labelled by the margin classifier only.
            Out of core, a dask array with the row chunks of X.
        must_link : array-like of shape (n_pairs, 2), default=None
            Index pairs of rows that should share a cluster.
        cannot_link : array-like of shape (n_pairs, 2), default=None
            Index pairs of rows that should be in different clusters.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if out_of_core(X):
            return self._fit_out_of_core(X, sample_weight, must_link, cannot_link)
        X = self._dense(self._validate_fit_data(X))
        ks = self._cluster_counts(X)
        w = None if sample_weight is None else check_sample_weight(sample_weight, X)
        points, live, weights = weighted_points(X, w)
        P = X[points.first]
        ks = self._check_points(P[live], ks)
        # identical rows are one point of their summed weight: weighted spreads
        self.scale_ = resolve_scaling(P[live], self.scale, weights[live])
        columns = (None if self.scale_ == "none"
                   else column_divisors(P[live], self.scale_, weights[live]))
        pairs = self._point_pairs(must_link, cannot_link, X.shape[0], points, weights,
                                  ks[0] if len(ks) == 1 else None)
        search = margin_search(
            P, live, weights, ks, pairs, pool=self._pool, n_neighbors=int(self.n_neighbors),
            max_samples=self.max_samples_, auto=isinstance(self.n_clusters, str),
            random_state=check_random_state(self.random_state), memory=self.memory,
            verbose=self.verbose, n_clusters=self.n_clusters,
            extend=self.max_clusters == "auto", columns=columns,
            max_vote_samples=int(self.max_vote_samples),
        )
        self._set_search(search, points)
        on_points = self._fit_classifier(search)
        point_labels = on_points.copy()
        point_labels[search.rows] = search.labels
        self.labels_ = point_labels[points.inverse]
        # the base lists the rows where labels_ (the candidate's) and predict differ
        self._finish_fit(X, predicted=on_points[points.inverse])
        return self

    def _fit_out_of_core(self, X: Any, sample_weight: Any, must_link: Any,
                         cannot_link: Any) -> MaxMarginClustering:
        """The in-memory fit of a sample of the blocks' rows; every row labelled by blocks.

        The sample: ``min(max(max_samples_, max_vote_samples), n_samples)`` distinct
        row numbers drawn by
        :func:`~marginclust.utils._blocks.sample_row_indices` from ``random_state``
        (all rows when there are no more), with the pairs' rows added, fetched in
        one pass. It is fitted by this estimator's in-memory ``fit`` with the same
        parameters (weights and pairs carried over to the sample's rows), so the
        model is that fit's; the row numbers of its attributes are then mapped
        back to X and ``labels_`` becomes the lazy labels of every row.
        """
        rows = self._validate_fit_data(X)  # one pass: finite values, the width
        ks = self._cluster_counts(rows)
        n = rows.shape[0]
        pairs = make_pairs(must_link, cannot_link, n, ks[0] if len(ks) == 1 else None)
        size = max(self.max_samples_, int(self.max_vote_samples))
        idx = sample_row_indices(n, size, check_random_state(self.random_state))
        if pairs.size:  # the pairs' rows are always among the fitted rows (as in memory)
            idx = np.union1d(idx, np.concatenate([pairs.u, pairs.v])).astype(np.intp)
        ws = None
        if sample_weight is None:
            Xs = rows.take(idx)
        else:
            w, _ = rows.weights(sample_weight)
            parts = rows.partials(_rows_and_weights, idx, extra=(w,), with_offsets=True)
            Xs = (sp.vstack([p[0] for p in parts], format="csr") if rows.sparse
                  else np.concatenate([p[0] for p in parts], axis=0))
            ws = np.concatenate([p[1] for p in parts])
        at = np.column_stack([np.searchsorted(idx, pairs.u), np.searchsorted(idx, pairs.v)])
        ml, cl = at[pairs.z > 0], at[pairs.z < 0]
        self.fit(Xs, sample_weight=ws, must_link=ml if ml.size else None,
                 cannot_link=cl if cl.size else None)
        moved = self.classifier_moved_
        kept = np.asarray(self.labels_[moved], dtype=np.intp)
        self.sample_indices_ = idx[self.sample_indices_]
        self.classifier_moved_ = idx[moved]
        self.n_features_in_ = rows.shape[1]
        self.labels_ = rows.map_rows(self._labels_keeping, self.classifier_moved_, kept,
                                     dtype=np.intp, with_offsets=True)
        return self

    def _labels_keeping(self, X: Any, lohi: tuple[int, int], rows: npt.NDArray[np.intp],
                        labels: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
        """``predict`` of a block of rows, but ``labels`` at the sorted row numbers ``rows``."""
        out = self._labels_of(X)
        a, b = np.searchsorted(rows, lohi)
        out[rows[a:b] - lohi[0]] = labels[a:b]
        return out

    @staticmethod
    def _dense(X: Any) -> Any:
        """Sparse rows copied dense, under the memory guard (see the class notes)."""
        if sp.issparse(X):
            check_memory_budget(8.0 * X.shape[0] * X.shape[1],
                                f"A dense copy of the sparse X ({X.shape[0]} x {X.shape[1]})",
                                "reduce the columns first (e.g. TruncatedSVD)")
            X = np.asarray(X.toarray())
        return X

    def _check_points(self, P: npt.NDArray[np.floating], ks: tuple[int, ...]) -> tuple[int, ...]:
        """Enough distinct points of positive weight for the numbers of clusters ``ks``."""
        if isinstance(self.n_clusters, str):
            check_distinct_rows(P, 2)
            return tuple(k for k in ks if k <= P.shape[0])
        check_distinct_rows(P, ks[0])
        return ks

    def _set_search(self, search: MarginSearch, points: DistinctRows) -> None:
        """The search's fitted attributes (all but the classifier's and ``labels_``)."""
        best, chosen = search.best, search.chosen
        self._mean, self._scale = search.mean, search.scale
        self.k_scores_ = search.k_scores
        self.candidates_ = search.candidates
        self.best_candidate_ = best.name
        self.score_ = best.score
        self.n_clusters_ = best.n_clusters
        self._n_clusters = best.n_clusters
        self.sample_indices_ = points.first[search.fitted_rows]
        self.null_score_ = chosen.reference
        self.separation_ = chosen.separation
        self._best = best
        report(self.verbose, "chosen: %s with K=%d (margin %.4f, separation %.3f)", best.name,
               best.n_clusters, best.score, chosen.separation)

    def _fit_classifier(self, search: MarginSearch) -> npt.NDArray[np.intp]:
        """Train the margin classifier on the chosen partition; its labels of every point."""
        self.gamma_ = margin_gamma(search.width)
        present = np.unique(search.labels)
        self.calibrated_classifier_: CalibratedClassifierCV | None = None
        self._present = present
        if present.size == 1:  # a single cluster: every point belongs to it
            self.classifier_: SVC | None = None
            return np.full(search.Z.shape[0], present[0], dtype=np.intp)
        self.classifier_ = margin_classifier(search, self.C, self.gamma_)
        on_points = self._classify(search.Z)
        if self.probability:
            self.calibrated_classifier_ = self._calibrate(search.sample, search.sample_labels,
                                                          search.sample_weights)
        return on_points

    @staticmethod
    def _point_pairs(must_link: Any, cannot_link: Any, n: int, points: DistinctRows,
                     weights: npt.NDArray[np.float64], k: int | None) -> PairSet:
        """The pairs, validated on the rows, as pairs of distinct points."""
        pairs = make_pairs(must_link, cannot_link, n, k)
        if pairs.size == 0 or points.first.size == n:
            return pairs
        u, v = points.inverse[pairs.u], points.inverse[pairs.v]
        if np.any(weights[np.concatenate([u, v])] == 0):
            raise ValueError("must_link and cannot_link may not name rows of weight 0 "
                             "(the candidates are fitted to rows of positive weight).")
        same = u == v
        if np.any(same & (pairs.z < 0)):
            raise ValueError("A cannot-link joins two identical rows: no partition "
                             "separates them.")
        keep = ~same  # a must-link between copies of one row holds in every partition
        ml = np.column_stack([u, v])[keep & (pairs.z > 0)]
        cl = np.column_stack([u, v])[keep & (pairs.z < 0)]
        return make_pairs(ml, cl, points.first.size, k)

    def _warn_if_degenerate(self, deg: Any = None) -> None:
        """``n_clusters_found_`` and this estimator's own warnings (collapse, separation)."""
        self._warn(self._best)

    def _calibrate(self, Z: npt.NDArray[np.float64],
                   labels: npt.NDArray[np.intp],
                   weights: npt.NDArray[np.float64] | None = None,
                   ) -> CalibratedClassifierCV | None:
        """Platt scaling of the margin classifier on cross-validated decision values."""
        folds = int(min(5, np.bincount(labels)[np.unique(labels)].min()))
        if folds < 2:
            warnings.warn(
                "predict_proba is not available: a cluster of one point leaves no "
                "held-out decision values to calibrate on.", UserWarning, stacklevel=4,
            )
            return None
        return CalibratedClassifierCV(
            SVC(C=float(self.C), gamma=self.gamma_), method="sigmoid", cv=folds,
            ensemble=False,
        ).fit(Z, labels, sample_weight=weights)

    def _warn(self, best: Candidate) -> None:
        self.n_clusters_found_ = int(np.count_nonzero(best.cluster_sizes))
        chosen = next(row for row in self.k_scores_ if row.n_clusters == best.n_clusters)
        if best.n_clusters == 1 and isinstance(self.n_clusters, str):
            tried = [row.n_clusters for row in self.k_scores_ if row.n_clusters > 1]
            points = int(sum(best.cluster_sizes))
            few = (f" With {points} distinct points no boundary can be tested: two clusters "
                   f"that touch need {MIN_UNION} points together." if points < MIN_UNION
                   else "")
            span = (f"{min(tried)} to {max(tried)} clusters" if min(tried) < max(tried)
                    else f"{min(tried)} clusters")
            warnings.warn(
                f"MaxMarginClustering found one cluster: no partition into {span} has "
                "clearly separated clusters (k_scores_ lists each K's weakest boundary "
                f"against data without clusters).{few}",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif self.n_clusters_found_ < best.n_clusters:
            warnings.warn(
                f"MaxMarginClustering found only {self.n_clusters_found_} non-empty clusters "
                f"of n_clusters={best.n_clusters}: every candidate merged some. "
                f"{self._collapse_advice}",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif chosen.untested:
            warnings.warn(
                f"No candidate partition into {best.n_clusters} clusters is clearly "
                f"separated: the best ({best.name}, voting margin {best.score:.3f}) has "
                f"{chosen.untested} pair(s) of touching clusters with fewer than "
                f"{MIN_UNION} points together, too few to test their boundary "
                f"(separation_ = {self.separation_:.2f}). Try fewer clusters (or 'auto').",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif not chosen.separated:
            warnings.warn(
                f"No candidate partition into {best.n_clusters} clusters is clearly "
                f"separated: the best ({best.name}, voting margin {best.score:.3f}) has a "
                f"boundary hardly better than a split of data without clusters of the same "
                f"size and spread (separation_ = {self.separation_:.2f}, clear from "
                f"{CLEAR_SEPARATION}, or beyond the reference's error between two modes; "
                f"valley (density, modes or neck) {chosen.valley:.2f}, clear from "
                f"{VALLEY}, or beyond the reference's error between two Gaussians). The "
                "clusters overlap or are absent at this K; try another "
                "n_clusters (or 'auto'), or candidates suited to the data.",
                ConvergenceWarning,
                stacklevel=3,
            )

    # -------------------------------------------------------------- predict
    def _to_frame(self, X: Any) -> npt.NDArray[np.float64]:
        if sp.issparse(X):
            X = X.toarray()
        return (np.asarray(X, dtype=np.float64) - self._mean) * self._scale

    def _classify(self, Z: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
        assert self.classifier_ is not None
        return classify(self.classifier_, Z)

    def _predict(self, X: Any) -> npt.NDArray[np.intp]:
        if self.classifier_ is None:
            return np.full(X.shape[0], self._present[0], dtype=np.intp)
        if sp.issparse(X):  # densified a block at a time
            X = sp.csr_matrix(X)
            parts = [self._classify(self._to_frame(X[lo:lo + BLOCK_ROWS]))
                     for lo in range(0, X.shape[0], BLOCK_ROWS)]
            return np.concatenate(parts) if parts else np.empty(0, np.intp)
        return self._classify(self._to_frame(X))

    def score(self, X: Any, y: Any = None) -> float:
        """The class-balanced voting margin of the predicted partition of ``X``.

        What the search maximises among its candidates: for each point, the
        share of its ``n_neighbors`` nearest neighbours in ``X`` (itself left
        out) in its own predicted cluster minus the largest share in another,
        averaged per cluster and then over clusters, in [-1, 1] (higher is
        better; 1.0 for one cluster). Measured in the fit's working frame on at
        most ``max_samples_`` rows of ``X`` (a seeded subset: neighbours are
        exact), so it is the same whatever the scale and offset of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data (at least two rows).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            The voting margin of ``predict(X)`` on ``X``.

        Examples
        --------
        >>> from sklearn.datasets import make_moons
        >>> from marginclust import MaxMarginClustering
        >>> X, _ = make_moons(300, noise=0.05, random_state=0)
        >>> est = MaxMarginClustering(random_state=0).fit(X)
        >>> round(est.score(X), 3) == round(est.score_, 3)
        True
        """
        X = self._validate_predict_data(X)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"score needs at least two rows of X; got {n}.")
        rows = np.arange(n)
        if n > self.max_samples_:
            rows = np.sort(np.random.RandomState(0).choice(n, self.max_samples_,
                                                           replace=False))
        Xs = X[rows]
        labels = self._predict(Xs)
        return partition_margin(self._to_frame(Xs), labels, self.n_clusters_,
                                int(self.n_neighbors))

    def _calibrated(self) -> bool:
        return bool(self.probability)

    @available_if(_calibrated)
    def predict_proba(self, X: Any) -> npt.NDArray[np.floating]:
        """Calibrated probability of each cluster for each sample of ``X``.

        Available with ``probability=True`` (Platt scaling of the margin
        classifier, as :class:`sklearn.svm.SVC`); its argmax may differ from
        ``predict`` near a boundary, as scikit-learn documents for SVC.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_clusters_)
            Non-negative rows that sum to one (0 for an empty cluster).
        """
        X = self._validate_predict_data(X)
        P = np.zeros((X.shape[0], self.n_clusters_), dtype=X.dtype)
        if self.classifier_ is None:
            P[:, self._present[0]] = 1.0
            return P
        if self.calibrated_classifier_ is None:
            raise ValueError(
                "predict_proba is not available: the fit had a cluster of one point, too "
                "few to calibrate the classifier on held-out decision values."
            )
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        for lo in range(0, X.shape[0], BLOCK_ROWS):
            P[lo:lo + BLOCK_ROWS, self._present] = self.calibrated_classifier_.predict_proba(
                self._to_frame(X[lo:lo + BLOCK_ROWS]))
        return P



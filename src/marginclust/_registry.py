"""The one list of public estimators and what the package and its tests need to know of each.

``marginclust.__all__`` (and the lazy imports behind it), the command line's method
names (``marginclust fit --method``), the demo's parameters and the test suite's
parametrisations (scikit-learn's estimator checks at the defaults and on every
code-path variant, the bad-input tests, the property suite) all read
:data:`ESTIMATORS`. Adding an estimator is one :class:`EstimatorSpec` here.

This module imports nothing beyond the standard library, so ``import marginclust``
stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ESTIMATORS",
    "EstimatorSpec",
    "cli_aliases",
    "estimator_class",
    "clusterer_names",
    "expected_failed_checks",
    "get_spec",
]

_BINARY_ONLY = (
    "binary-only method (n_clusters=3 raises ValueError; scikit-learn has no clusterer tag "
    "for it, so the check asks for 3 clusters); binary recovery tested in "
)
# sample weights: every rule of these fits counts a weight as repeated rows (m="auto",
# gamma="sigma0", the stopping rule, empty clusters); only the random start cannot
_SW_START = (
    "the weights act as repeated rows, but the check shuffles the weighted rows and the "
    "k-means++ start is drawn in row order, so the two fits start from different centres: "
)
_SW_TESTED = (
    "a weighted fit equals the fit on repeated rows from one init array "
    "(tests/test_sklearn_clients.py and tests/estimators)"
)


@dataclass(frozen=True)
class EstimatorSpec:
    """One public estimator and its metadata.

    Parameters
    ----------
    name : str
        Public class name, exported by ``marginclust``.
    module : str
        Module that defines the class (imported lazily).
    aliases : tuple of str, default=()
        Short command-line names (``marginclust fit --method <alias>``); the class
        name always works too.
    clusterer : bool, default=True
        A clusterer (``fit_predict``, ``n_clusters``); ``False`` for transformers.
    demo_params : mapping, default={}
        Constructor arguments of ``marginclust demo``.
    test_params : mapping, default={}
        Constructor arguments that keep the test fits small (they select no code path).
    expected_failed_checks : mapping, default={}
        scikit-learn estimator check name -> written reason it is expected to fail.
    variants : tuple of (str, mapping), default=()
        Code-path variants tested beside the defaults: ``(variant id, parameters)``.
        Ids starting with ``"init-"`` only change the start.
    variant_expected_failed : mapping, default={}
        Variant id -> {check name: reason}, added to ``expected_failed_checks``.
    """

    name: str
    module: str
    aliases: tuple[str, ...] = ()
    clusterer: bool = True
    demo_params: Mapping[str, Any] = field(default_factory=dict)
    test_params: Mapping[str, Any] = field(default_factory=dict)
    expected_failed_checks: Mapping[str, str] = field(default_factory=dict)
    variants: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    variant_expected_failed: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


_MMC_SW = (
    "the weights act as repeated rows (identical rows are one point of their summed "
    "weight), but the check shuffles the repeated rows and the candidates see the distinct "
    "rows in order of first appearance (k-means starts, ties of the minimum spanning tree, "
    "the numbering of the clusters), so a shuffled copy is another, equally valid search; "
    "rows repeated in place or given integer weights give exactly the same fit "
    "(tests/estimators/test_auto_k.py)"
)

_E = "marginclust.estimators."

# the code paths BMMC and CPMMC share (BMMC's active-set QP is its own)
_MMC_VARIANTS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("qp-ipm", {"qp": "ipm"}),
    ("qp-clarabel", {"qp": "clarabel"}),
    ("init-pca", {"init": "pca"}),
    ("no-size-floor", {"min_cluster_size": 0, "C": 1.0}),
)

ESTIMATORS: tuple[EstimatorSpec, ...] = (
    EstimatorSpec(
        "FuzzyCMeans",
        _E + "_fcm",
        aliases=("fcm",),
        demo_params={"m": 2.0},
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": _SW_START + (
                "on its data the two fits reach the same fixed point (the same m_ and "
                "centres) with the clusters numbered in another order, each stopped within "
                "tol=1e-4 of it, not the check's rtol=1e-7; " + _SW_TESTED
            ),
        },
        variants=(("init-random", {"init": "random"}), ("m-2", {"m": 2.0})),
    ),
    EstimatorSpec(
        "KernelFuzzyCMeans",
        _E + "_fcm",
        aliases=("kernel-fcm",),
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": _SW_START + (
                "on its data the two fits reach the same fixed point (the same gamma_ and "
                "centres) with the clusters numbered in another order, each stopped within "
                "tol=1e-4 of it, not the check's rtol=1e-7; " + _SW_TESTED
            ),
        },
        variants=(("init-random", {"init": "random"}),),
    ),
    EstimatorSpec(
        "KernelKMeans",
        _E + "_kernel_kmeans",
        aliases=("kernel-kmeans",),
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": _SW_START + (
                "on its data (15 points in 30 dimensions) the two starts lead to different "
                "local minima of the crisp objective (the same gamma_); " + _SW_TESTED
            ),
        },
        variants=(("init-random", {"init": "random"}),),
    ),
    EstimatorSpec(
        "SLMC",
        _E + "_slmc",
        aliases=("slmc",),
        variants=(
            ("linear", {"kernel": "linear"}),
            ("low-rank-nystroem", {"n_components": 20}),
            ("low-rank-rff", {"n_components": 20, "low_rank": "rff"}),
            ("linear-low-rank", {"kernel": "linear", "n_components": 20}),
            ("low-rank-exact-w-step", {"n_components": 20, "w_step": "exact"}),
            ("init-k-means", {"init": "k-means"}),
            ("init-random", {"init": "random"}),
            ("init-fcm", {"init": "fcm"}),
            ("init-fcm-sharp", {"init": "fcm-sharp"}),
            ("gamma-scale", {"gamma": "scale"}),
        ),
    ),
    EstimatorSpec(
        "IterativeLSSVM",
        _E + "_iterative_lssvm",
        aliases=("iterative-lssvm",),
        expected_failed_checks={
            "check_clustering": (
                "binary-only method (Zhang, Tsang & Kwok 2009 define two clusters): "
                "n_clusters=3 raises ValueError; scikit-learn has no clusterer tag for it, so "
                "the check asks for 3 clusters; binary behaviour is tested in "
                "tests/estimators/test_iterative_lssvm.py"
            ),
        },
        variants=(
            ("linear", {"kernel": "linear"}),
            ("low-rank-nystroem", {"n_components": 20}),
            ("low-rank-rff", {"n_components": 20, "low_rank": "rff"}),
            ("init-random", {"init": "random"}),
        ),
    ),
    EstimatorSpec(
        "PKM",
        _E + "_pkm",
        aliases=("pkm",),
        variants=(
            ("solver-fmsagp", {"solver": "fmsagp"}),
            ("solver-msagp", {"solver": "msagp"}),
            ("solver-agp", {"solver": "agp"}),
            ("init-k-means++-soft", {"init": "k-means++-soft"}),
            ("init-dirichlet", {"init": "dirichlet"}),
            ("init-uniform-perturbed", {"init": "uniform-perturbed"}),
        ),
    ),
    EstimatorSpec(
        "EMMC",
        _E + "_emmc",
        aliases=("emmc",),
        test_params={"n_hidden": 30},
        variants=(
            ("gaussian", {"activation": "gaussian"}),
            ("output-single", {"output": "single"}),
            ("output-multi", {"output": "multi"}),
            ("init-kmeans", {"init": "k-means"}),
            ("init-kmeans-elm", {"init": "k-means-elm"}),
            ("init-random", {"init": "random"}),
        ),
    ),
    # the regression and the classification form: one module, the same checks and paths
    *(
        EstimatorSpec(
            name,
            _E + "_itersvr",
            aliases=(name.lower(),),
            expected_failed_checks={
                "check_clustering": _BINARY_ONLY + "tests/estimators/test_itersvr.py",
            },
            variants=(("linear", {"kernel": "linear"}), ("init-random", {"init": "random"})),
        )
        for name in ("IterSVR", "IterSVM")
    ),
    EstimatorSpec(
        "BMMC",
        _E + "_bmmc",
        aliases=("bmmc",),
        variants=(("qp-active-set", {"qp": "active-set"}), *_MMC_VARIANTS),
    ),
    EstimatorSpec(
        "CPMMC",
        _E + "_cpmmc",
        aliases=("cpmmc",),
        variants=_MMC_VARIANTS,
    ),
    EstimatorSpec(
        "WOCSVMClustering",
        _E + "_wocsvm",
        aliases=("wocsvm",),
        variants=(
            ("tax-duin", {"form": "tax-duin"}),
            ("linear", {"kernel": "linear"}),
            ("low-rank-nystroem", {"n_components": 20}),
            # the default schedule (decay 0.95) takes ~20 s at n = 60: a faster one
            ("annealing", {"annealing": True, "decay": 0.7, "max_iter": 20}),
            ("init-random-points", {"init": "random-points"}),
            ("init-random-weights", {"init": "random-weights"}),
            ("init-gmm", {"init": "gmm"}),
            # the paper's scale at the defaults of 0.1
            ("decision-libsvm", {"decision_scale": "libsvm", "nu": 0.9, "temperature": 1.0,
                                 "gamma": "sigma0"}),
            # at temperature 1 this scale collapses by design (see the docstring)
            ("decision-normalized", {"decision_scale": "normalized", "temperature": 0.01}),
        ),
    ),
    EstimatorSpec(
        "OCSVMHardClustering",
        _E + "_ocsvm_hard",
        aliases=("ocsvm-hard",),
        variants=(
            ("linear", {"kernel": "linear"}),
            ("low-rank-nystroem", {"n_components": 20}),
            ("init-random", {"init": "random"}),
            ("decision-normalized", {"decision_scale": "normalized"}),
        ),
    ),
    EstimatorSpec(
        "MaxMarginClustering",
        _E + "_max_margin",
        aliases=("max-margin",),
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": _MMC_SW,
            "check_sample_weight_equivalence_on_sparse_data": _MMC_SW,
        },
        variant_expected_failed={
            "probability": {
                check: (
                    "scikit-learn's sparse check sizes predict_proba's output from the "
                    "estimator's classifier tags, which a clusterer does not have (None: "
                    "AttributeError on multi_class); fit, predict and predict_proba on "
                    "sparse rows are tested in tests/estimators/test_auto_k.py"
                )
                for check in ("check_estimator_sparse_array", "check_estimator_sparse_matrix")
            },
        },
        variants=(
            ("subsample", {"max_samples": 20}),
            ("probability", {"probability": True}),
            ("library-candidates", {"candidates": ["slmc", "kernel-k-means", "k-means"]}),
        ),
    ),
    EstimatorSpec("ELMFeatures", "marginclust.feature_maps._elm", clusterer=False),
)


def get_spec(name: str) -> EstimatorSpec:
    """The registry entry of a public estimator.

    Parameters
    ----------
    name : str
        Public class name.

    Returns
    -------
    spec : EstimatorSpec
        Its entry.

    Raises
    ------
    KeyError
        If no estimator of that name is registered.

    Examples
    --------
    >>> from marginclust._registry import get_spec
    >>> get_spec("FuzzyCMeans").aliases
    ('fcm',)
    """
    for spec in ESTIMATORS:
        if spec.name == name:
            return spec
    raise KeyError(f"{name!r} is not a registered estimator.")


def estimator_class(name: str) -> type:
    """The public estimator class called ``name``, its module imported on first use.

    What ``getattr(marginclust, name)`` returns, for the modules above the
    estimators (which import no package face).

    Parameters
    ----------
    name : str
        Public class name.

    Returns
    -------
    cls : type
        The estimator class.

    Examples
    --------
    >>> from marginclust._registry import estimator_class
    >>> estimator_class("FuzzyCMeans").__name__
    'FuzzyCMeans'
    """
    cls: type = getattr(importlib.import_module(get_spec(name).module), name)
    return cls


def expected_failed_checks(estimator: Any) -> dict[str, str]:
    """scikit-learn checks an estimator fails by design, each with its reason.

    The argument ``expected_failed_checks`` of scikit-learn's ``check_estimator``
    (and the callable of ``parametrize_with_checks``): the registry's entry of the
    estimator's class; empty for the meta-estimators (``DaskClusterer``,
    ``StabilitySearch``), which pass every check.

    Parameters
    ----------
    estimator : estimator instance
        The estimator to check.

    Returns
    -------
    reasons : dict of str to str
        Check name -> why the method cannot pass it.

    Examples
    --------
    >>> from marginclust import IterSVM
    >>> from marginclust._registry import expected_failed_checks
    >>> sorted(expected_failed_checks(IterSVM()))
    ['check_clustering']
    """
    for spec in ESTIMATORS:
        if spec.name == type(estimator).__name__:
            return dict(spec.expected_failed_checks)
    return {}


def clusterer_names() -> list[str]:
    """Class names of the registered clusterers, sorted (the order of ``marginclust.__all__``).

    Returns
    -------
    names : list of str
        The clusterers (transformers such as ``ELMFeatures`` left out).

    Examples
    --------
    >>> from marginclust._registry import clusterer_names
    >>> clusterer_names()[:2]
    ['BMMC', 'CPMMC']
    """
    return sorted(spec.name for spec in ESTIMATORS if spec.clusterer)


def cli_aliases() -> dict[str, str]:
    """Short command-line method names -> class name, in registry order.

    Returns
    -------
    aliases : dict of str to str
        Every alias of every registered estimator.

    Examples
    --------
    >>> from marginclust._registry import cli_aliases
    >>> cli_aliases()["fcm"]
    'FuzzyCMeans'
    """
    return {alias: spec.name for spec in ESTIMATORS for alias in spec.aliases}

"""SLMC paper (Wang & Chen 2013): Tables 3, 4 (synthetic), 6 (CA) and 7 (PC, PE, XB).

Protocol (Sec. 4.1): 20 runs per method; per run, the best kernel and parameter
setting (linear and RBF kernels, ``lam`` in {0.1, 0.5, 1, 5, 10}, ``sigma`` in
{0.25, 0.5, 1, 2, 4} x sigma0 with sigma0 the mean pairwise distance), chosen by
clustering accuracy with the majority mapping (eq. 16); the mean over runs is
reported (the text calls the +- figure a variance). Number of clusters = number
of classes, except Tables 3-4 (synthetic four Gaussians with 3, 4, 5, 6 clusters).

Every published number of Tables 3, 4, 6, 7 and 8 is transcribed in
``published/slmc.csv`` from ``papers/slmc-wang-chen-2013.txt`` as printed,
for all of the paper's methods, keyed by our method names (``kmeans``, ``fcm``,
``mmc-sdp``, ``iterative-lssvm``, ``slmc``); a trailing "*" (significant by
t-test) is dropped and "-" means not reported. Which methods are run is listed
per table in the ``*_METHODS`` lists near the top: adding a method to a table is
one line there.
"""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import numpy as np

from marginclust.bench import TABLES, Dataset, Table, register_dataset

from . import slmc_methods  # noqa: F401  (registers slmc, iterative-lssvm, slmc-table8/fig2-4)
from ._common import register_table

__all__ = ["TABLE3_METHODS", "TABLE4_METHODS", "TABLE6_METHODS", "TABLE7_METHODS"]

# Methods each table runs (published numbers of every method are always shown).
TABLE3_METHODS = ["kmeans", "fcm", "slmc"]
TABLE4_METHODS = ["fcm", "slmc"]
TABLE6_METHODS = ["kmeans", "fcm", "kernel-kmeans", "kernel-fcm", "iterative-lssvm", "slmc"]
TABLE7_METHODS = ["fcm", "slmc"]

SOURCE = "Wang & Chen 2013, Soft large margin clustering, Inf. Sci."

# Our data set names for the paper's rows (Table 5 order). Ecoli is not among the
# shared data sets, so it is listed in the published numbers only.
DATASETS = {
    "Lenses": "lenses", "Soybean": "soybean_small", "Echocardiogram": "slmc-echocardiogram",
    "Hepatitis": "hepatitis", "Wine": "wine", "Glass": "glass", "Heart": "heart_statlog",
    "Ecoli": "ecoli", "Ionosphere": "ionosphere", "Optdigits89": "optdigits:8,9",
    "Optdigits38": "optdigits:3,8", "Optdigits39": "optdigits:3,9", "Arrhythmia": "arrhythmia",
    "Austra": "australian", "Pendigits89": "pendigits_train:8,9",
    "Pendigits38": "pendigits_train:3,8", "Pendigits39": "pendigits_train:3,9",
    "Image Segment": "segmentation",
}
UNAVAILABLE = ("ecoli",)

SYNTHETIC = "slmc-four-gaussians"
SYNTHETIC_KS = (3, 4, 5, 6)


def _synthetic(k: int) -> str:
    return f"{SYNTHETIC}@k={k}"


def _data_home(data_home: str | None) -> Path:
    from marginclust.datasets import resolve_data_home

    path = resolve_data_home(data_home)
    if path is None:
        raise ValueError("The shared data sets are not found: set MARGINCLUST_DATA to the "
                         "directory holding the *.csv.gz files (or pass data_home).")
    return path


def load_slmc_echocardiogram(data_home: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Echocardiogram as SLMC Table 5 counts it: 132 samples, classes (89, 43).

    The shared file's label (alive at one year) is missing for 58 rows; the
    paper's class sizes are those of ``still_alive`` (88 zeros, 43 ones, one
    missing, counted with the zeros). So ``still_alive`` is the label and every
    other column, ``alive_at_1`` included, is a feature (missing cells stay NaN
    for the harness to impute).
    """
    path = _data_home(data_home) / "echocardiogram.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        table = np.genfromtxt(fh, delimiter=",", dtype=np.float64)
    col = header.index("still_alive")
    y = np.nan_to_num(table[:, col], nan=0.0).astype(np.int64)
    X = np.delete(table, col, axis=1)
    return X, y


register_dataset(
    Dataset(
        "slmc-echocardiogram",
        load_slmc_echocardiogram,
        notes="label = still_alive (missing one counted as 0), alive_at_1 kept as a feature",
    )
)

_XB_NOTES = (
    " `xb`: data space (eq. 19), centres the u^2-weighted means (reproduces the paper's FCM "
    "values); `xb_kernel`: RBF kernel space (eq. 21) with the method's fitted sigma_ (data "
    "space for linear fits), the form the paper uses for SLMC."
)
_PROTOCOL_NOTES = (
    "SLMC Sec. 4.1: 20 runs, per run the best setting by CA (majority mapping, eq. 16); "
    "the paper calls its +- figure a variance; we print mean ± std. Missing feature cells "
    "are replaced by column means (the paper does not say what it did)."
)

register_table(
    Table(
        name="slmc-table3",
        title="Clustering accuracy on the synthetic four-Gaussian set, 3-6 clusters",
        source=f"{SOURCE}, Table 3 (data: Table 2)",
        datasets=[_synthetic(k) for k in SYNTHETIC_KS],
        methods=TABLE3_METHODS,
        measures=["ca_majority", "ca_hungarian"],
        n_runs=20,
        preprocessing="raw",
        quick={"n_runs": 2, "datasets": [_synthetic(4)], "grid_points": 1},
        notes=_PROTOCOL_NOTES + " The synthetic set is one seeded draw from Table 2's "
        "Gaussians, not the paper's own draw.",
    )
)

register_table(
    Table(
        name="slmc-table4",
        title="PC, PE and XB on the synthetic four-Gaussian set, 3-6 clusters",
        source=f"{SOURCE}, Table 4",
        datasets=[_synthetic(k) for k in SYNTHETIC_KS],
        methods=TABLE4_METHODS,
        measures=["ca_majority", "pc", "pe", "xb", "xb_kernel"],
        n_runs=20,
        preprocessing="raw",
        quick={"n_runs": 2, "datasets": [_synthetic(4)], "grid_points": 1},
        notes=_PROTOCOL_NOTES + _XB_NOTES,
    )
)

_TABLE6_DATASETS = [d for d in DATASETS.values() if d not in UNAVAILABLE]

# Published cells whose shortfall the feature scaling explains (the paper does not state
# it): our paper-protocol means under raw / standardised / min-max features, 20 runs,
# from benchmarks/slmc_table6_scalings.py.
_SCALINGS_CMD = (
    "`python benchmarks/slmc_table6_scalings.py --out DIR --datasets '{}'` after "
    "running slmc-table6, slmc-table6-standardize and slmc-table6-minmax into DIR"
)


def _scaling_note(dataset: str, label: str, raw: str, std: str, minmax: str) -> str:
    return (f"the feature scaling, which the paper does not state, decides this row: "
            f"{label} {raw} raw, {std} standardised, {minmax} min-max (20 runs each). "
            + _SCALINGS_CMD.format(dataset))


_TABLE6_SCALING_NOTES = {
    ("pendigits_train:3,9", "slmc", "ca_majority"):
        _scaling_note("pendigits_train:3,9", "SLMC", ".905", ".955", "1.000"),
    ("pendigits_train:3,9", "kmeans", "ca_majority"):
        _scaling_note("pendigits_train:3,9", "K-means pooled with kernel K-means",
                      ".868", ".985", ".994"),
    ("pendigits_train:3,9", "fcm", "ca_majority"):
        _scaling_note("pendigits_train:3,9", "FCM pooled with kernel FCM",
                      ".905", ".952", ".970"),
    ("segmentation", "slmc", "ca_majority"):
        _scaling_note("segmentation", "SLMC", ".548", ".637", ".745")
        + " (the paper's K-means and FCM columns, .525 and .542, sit at our raw-data "
        "baselines, .512-.566)",
}

register_table(
    Table(
        name="slmc-table6",
        title="Clustering accuracy on the UCI data sets",
        source=f"{SOURCE}, Table 6 (data: Table 5)",
        datasets=_TABLE6_DATASETS,
        methods=TABLE6_METHODS,
        measures=["ca_majority", "ca_hungarian", "nmi"],
        n_runs=20,
        preprocessing="raw",
        contradicted={
            ("glass", "slmc", "ca_majority"): "every scaling gives .538-.565 (paper protocol, "
            "20 runs: raw .565, standardised .551, min-max .538); SLMC started from the "
            "true labels drifts to .523 and from 30-70% randomised labels ends at "
            ".536-.539; .657 is the best K-means partition in 200 starts. `marginclust "
            "bench --table reachability-slmc`; " + _SCALINGS_CMD.format("glass"),
        },
        explained=_TABLE6_SCALING_NOTES,
        pooled={"kmeans+rbf": ["kmeans", "kernel-kmeans"], "fcm+rbf": ["fcm", "kernel-fcm"]},
        published_only=[*UNAVAILABLE, "mmc-sdp"],
        quick={
            "n_runs": 2,
            "datasets": ["lenses", "wine", "optdigits:3,8", "australian"],
            "grid_points": 2,
        },
        notes=_PROTOCOL_NOTES + " The paper's KM and FCM columns searched 'linear and RBF "
        "kernels' (Sec. 4.1): the pooled columns kmeans+rbf and fcm+rbf keep, per run, the "
        "best of the linear and the five RBF settings. Ecoli is not among the shared data "
        "sets (published numbers only). Pendigits pairs come from the training file (719 per "
        "class, as Table 5).",
    )
)

# Feature scaling decides several Table 6 rows (pendigits 3/9, segmentation) and the
# paper does not state it: the same table under the other two scalings, side by side.
for _how, _label in (("standardize", "standardised"), ("minmax", "min-max scaled")):
    register_table(
        replace(
            TABLES["slmc-table6"],
            name=f"slmc-table6-{_how}",
            published_from="slmc-table6",
            title=f"Clustering accuracy on the UCI data sets, features {_label}",
            preprocessing=_how,
            notes=f"Table 6 with every feature {_label} (the paper does not say how it "
            "scaled; its K-means/FCM columns match our raw-data baselines). Compare with "
            "slmc-table6 (raw) row by row. " + TABLES["slmc-table6"].notes,
        )
    )

register_table(
    Table(
        name="slmc-table7",
        title="Fuzzy indices PC, PE, XB of FCM and SLMC on the UCI data sets",
        source=f"{SOURCE}, Table 7",
        datasets=_TABLE6_DATASETS,
        methods=TABLE7_METHODS,
        measures=["ca_majority", "pc", "pe", "xb", "xb_kernel"],
        published_only=list(UNAVAILABLE),
        n_runs=20,
        preprocessing="raw",
        quick={"n_runs": 2, "datasets": ["lenses", "wine"], "grid_points": 1},
        notes=_PROTOCOL_NOTES + _XB_NOTES,
    )
)

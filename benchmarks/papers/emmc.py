"""EMMC paper (Zhang, Xia, Liu & Zhang, IEICE Trans. Inf. & Syst. E96-D(8), 2013): Tables 3-10.

Every table is a grid of the declarative runner: the paper fixes parameters per
data set (number of hidden nodes L = n for the small sets, 300 or 1000
otherwise; class balance l = 0.03 n or 0.15 n, Table 2), per-table grids say
what each table varies, and a ``seed_key`` keeps the seeds of the custom loops
these tables once were, so their numbers did not change with the conversion.
Table 4's schemes that are not EMMC (k-means alone, random labels alone) are
:class:`StartThenEMMC` fits without EMMC. The reports keep the paper's layouts.

Protocols:

- ``paper``: per run, C is picked from the grid 2^{-10, -8, ..., 10} with the
  labels (best accuracy), which is what the paper's "cross validation" over
  2^{-10..10} amounts to for clustering (Sec. 5.3); L and l as in Table 2 / Sec. 5.3.
- ``default`` (label-free): C = 500 (the paper's stated default, Sec. 5.3) and the
  same L and l.

Accuracy is the one-to-one (Hungarian) clustering accuracy (eq. 15), RI the Rand
index (eq. 16). Features are min-max scaled to [0, 1] (the paper does not say;
ELM practice normalises inputs, and svmguide1's raw features span 0-300 vs 0-1).
Times are wall-clock seconds of ``fit`` on this machine (the paper: MATLAB, i5-2400).
"""

from __future__ import annotations

import itertools
import json
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from marginclust.bench import METHODS, Method, Table, register_method

from ._common import (
    Delegating,
    fmt_value,
    md_table,
    mean_of,
    register_table,
    split_method,
    table_head,
    values,
)

SOURCE = "Zhang, Xia, Liu & Zhang 2013 (EMMC)"
C_GRID = [2.0**k for k in range(-10, 11, 2)]
# The paper picks C "from the range {2^-10, 2^-9, ..., 2^10} by cross validation" (Sec. 5.3).
C_GRID_ALL = [2.0**k for k in range(-10, 11)]
PAPER_C = 500.0


# ------------------------------------------------------------------ methods
class HiddenPerSample(Delegating):
    """EMMC with as many hidden nodes as samples (the paper's L = n), set at fit.

    Parameters
    ----------
    estimator : EMMC
        Unfitted; its ``n_hidden`` is set to the number of rows of the fitted X.
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any = None) -> HiddenPerSample:
        """Fit a copy of ``estimator`` with ``n_hidden = len(X)``."""
        from sklearn.base import clone

        self.estimator_ = clone(self.estimator).set_params(n_hidden=len(X)).fit(X)
        return self


def make_emmc(n_clusters: int, random_state: Any = None, **params: Any) -> Any:
    """:class:`marginclust.EMMC` with the given parameters (``n_hidden="n"``: L = n)."""
    from marginclust import EMMC

    # the paper's class balance (0.03 n) and start (k-means in the ELM layer) unless a
    # table says otherwise; EMMC's own defaults became the label-free balance="auto"
    # and the spectral start
    params.setdefault("balance", 0.03)
    params.setdefault("init", "k-means-elm")
    if params.get("n_hidden") == "n":
        params.pop("n_hidden")
        return HiddenPerSample(EMMC(n_clusters, random_state=random_state, **params))
    return EMMC(n_clusters, random_state=random_state, **params)


def make_estimator(name: str, n_clusters: int, random_state: Any = None, **params: Any) -> Any:
    """``marginclust.<name>(n_clusters, random_state=..., **params)`` (IterSVR, IterSVM)."""
    import marginclust

    return getattr(marginclust, name)(n_clusters, random_state=random_state, **params)


def _emmc_space_seed(seed: int) -> int:
    """The seed of the hidden layer that ``EMMC(random_state=seed)`` draws (n_init=1)."""
    from marginclust.utils import spawn_seeds

    return int(spawn_seeds(np.random.RandomState(seed), 1)[0])


class StartThenEMMC(Delegating):
    """An initialisation scheme alone, or EMMC started from its labels (Tables 4-6).

    Parameters
    ----------
    init : {"random", "k-means", "k-means-elm"}
        Random labels; k-means on X (best of 10 k-means++ starts, run to
        convergence; the paper does not say, one start gave 4-5% error on Table 4,
        its 3.49% matches 10); or that k-means in the ELM hidden layer EMMC fits
        (the paper's "KM in ELM feature space", kept for Tables 5-10). EMMC's own
        ``init="k-means-elm"`` is a cheaper approximation (subsample, projection,
        at most 10 Lloyd passes, made for speed), not the paper's scheme.
    C : float or None, default=None
        None: the scheme's labels are the result. Else EMMC (balance 0.03 n)
        starts from exactly those labels in the same ``fit``, so its time includes
        the initialisation, as the paper's does.
    n_clusters : int, default=2
        Number of clusters.
    n_hidden : int or "n", default="n"
        Hidden nodes L of the k-means-in-ELM-space layer and of EMMC; ``"n"``:
        as many as rows (Table 4).
    output : {"auto", "single", "multi"}, default="auto"
        EMMC's output nodes.
    activation : str, default="gaussian"
        ELM node type of the k-means-in-ELM-space layer and of EMMC (the paper:
        radial basis, Sec. 5.3).
    balance : float, default=0.03
        EMMC's class balance ``l`` as a fraction of n (Table 2).
    shared_space : bool, default=True
        k-means runs in the very hidden layer EMMC then fits (Algorithm 1 keeps
        one H); False draws that layer from the seed itself (the earlier harness).
    random_state : int or None, default=None
        Seed of the random labels, of k-means and of the hidden layer.
    """

    def __init__(
        self,
        init: str,
        C: float | None = None,
        n_clusters: int = 2,
        n_hidden: int | str = "n",
        output: str = "auto",
        activation: str = "gaussian",
        balance: float = 0.03,
        shared_space: bool = True,
        random_state: Any = None,
    ) -> None:
        self.init = init
        self.C = C
        self.n_clusters = n_clusters
        self.n_hidden = n_hidden
        self.output = output
        self.activation = activation
        self.balance = balance
        self.shared_space = shared_space
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None) -> StartThenEMMC:
        """Compute the scheme's labels on ``X`` and, with ``C``, fit EMMC from them.

        Sets ``start_time_`` (seconds the scheme's labels cost) and
        ``reused_time_`` (those seconds when the labels came from the start cache,
        else 0; the harness adds it to the fit time, see :func:`_start_labels`).
        """
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}; got {self.init!r}.")
        n, seed, k = len(X), self.random_state, int(self.n_clusters)
        L = n if self.n_hidden == "n" else int(self.n_hidden)
        labels, self.start_time_, reused = _start_labels(
            X, self.init, seed, k, L, self.activation, self.shared_space)
        self.reused_time_ = self.start_time_ if reused else 0.0
        if self.C is None:
            self.labels_ = labels
        else:  # the fitted attributes are EMMC's
            from marginclust import EMMC

            self.estimator_ = EMMC(
                k, n_hidden=L, C=self.C, output=self.output, activation=self.activation,
                balance=self.balance, init=labels.astype(np.intp), random_state=seed,
            ).fit(X)
        return self


# Start labels by (data digest, scheme, seed, k, L, node type, shared layer): a run of
# Tables 4-6 fits EMMC from one start for each of 21 values of C (and two outputs), and
# converged k-means in a 1000-node layer costs 7-8x the EMMC fit (USPS: 8.4 s vs 1.2 s).
_START_CACHE: OrderedDict[tuple[Any, ...], tuple[np.ndarray, float]] = OrderedDict()
_START_CACHE_SIZE = 256


def _compute_start(X: Any, init: str, seed: Any, k: int, L: int, activation: str,
                   shared_space: bool) -> np.ndarray:
    """The scheme's labels: random, k-means on X, or k-means in the ELM hidden layer."""
    if init == "random":
        return np.random.RandomState(seed).randint(k, size=len(X))
    from sklearn.cluster import KMeans

    from marginclust import ELMFeatures

    Z = X
    if init == "k-means-elm":
        space = _emmc_space_seed(seed) if shared_space else seed
        Z = ELMFeatures(n_hidden=L, activation=activation, random_state=space).fit_transform(X)
    return np.asarray(KMeans(k, n_init=10, random_state=seed).fit(Z).labels_)


def _start_labels(X: Any, init: str, seed: Any, k: int, L: int, activation: str,
                  shared_space: bool) -> tuple[np.ndarray, float, bool]:
    """``(labels, seconds, reused)``: a start, computed once per process and reused.

    The labels are a deterministic function of the key (an integer seed), so a
    reused start is the very start a fresh computation gives; ``seconds`` is what
    computing it took, which the harness adds to the time of a fit that reused
    it, so every row's time stays that of a standalone fit, start included, as the
    paper times it. Random labels and seeds that are not integers are not cached.
    """
    cacheable = init != "random" and isinstance(seed, int | np.integer)
    key: tuple[Any, ...] = ()
    if cacheable:
        import joblib

        key = (joblib.hash(np.asarray(X)), init, int(seed), k, L, activation, shared_space)
        if key in _START_CACHE:
            _START_CACHE.move_to_end(key)
            labels, seconds = _START_CACHE[key]
            return labels.copy(), seconds, True
    start = time.perf_counter()
    labels = _compute_start(X, init, seed, k, L, activation, shared_space)
    seconds = time.perf_counter() - start
    if cacheable:
        _START_CACHE[key] = (labels.copy(), seconds)
        while len(_START_CACHE) > _START_CACHE_SIZE:
            _START_CACHE.popitem(last=False)
    return labels, seconds, False


def make_start(n_clusters: int, random_state: Any = None, **params: Any) -> StartThenEMMC:
    """:class:`StartThenEMMC` for ``n_clusters`` clusters."""
    return StartThenEMMC(n_clusters=n_clusters, random_state=random_state, **params)


INITS = ["random", "k-means", "k-means-elm"]
for _method in [
    Method("emmc", make_emmc, grid={"C": C_GRID}, defaults={"C": PAPER_C},
           notes="EMMC, sigmoid ELM nodes (L = 300), k-means-in-ELM-space init, single output"),
    Method("emmc-multi", make_emmc, grid={"C": C_GRID, "output": ["multi"]},
           defaults={"C": PAPER_C, "output": "multi"},
           notes="EMMC with one output node per cluster"),
    Method("emmc-start", make_start, grid={"init": INITS},
           notes="a Table 4 initialisation scheme alone (random labels, k-means, k-means in "
           "the ELM hidden layer)"),
    Method("emmc-from-start", make_start, grid={"init": INITS, "C": C_GRID_ALL},
           defaults={"C": PAPER_C},
           notes="EMMC (L = n) from a Table 4 scheme's labels, timed with them"),
    Method("itersvr", partial(make_estimator, "IterSVR"), grid={"C": C_GRID}, defaults={"C": 1.0},
           notes="IterSVR (Zhang, Tsang & Kwok 2007): RBF SVR, Laplacian loss (epsilon = 0), "
           "gamma='scale', k-means init, balance 0.03 n; binary only"),
    Method("itersvm", partial(make_estimator, "IterSVM"), grid={"C": C_GRID}, defaults={"C": 1.0},
           notes="IterSVM: hinge-loss SVC in the IterSVR loop; binary only"),
]:
    register_method(_method)


# ------------------------------------------------------------------ helpers
# data set -> (paper name, L ("n" = number of samples), balance fraction); Table 2, Sec. 5.3
DATASETS: dict[str, tuple[str, Any, float]] = {
    "ionosphere": ("Ionosphere", "n", 0.15),
    "optdigits:1,7": ("Digits1-7", "n", 0.03),
    "optdigits:8,9": ("Digits8-9", "n", 0.03),
    "letter:A,B": ("LetterA-B", 300, 0.03),
    "satimage:1,2": ("SatelliteC1-C2", 300, 0.15),
    "svmguide1": ("Svmguide1-a", 300, 0.15),
    "ringnorm": ("Ringnorm", 300, 0.03),
    "optdigits:0,6,8,9": ("Digits0689", "n", 0.03),
    "optdigits:1,2,7,9": ("Digits1279", "n", 0.03),
    "letter:A,B,C,D": ("LetterABCD", 300, 0.03),
    "usps": ("USPS", 1000, 0.15),
}
TWO_CLASS = list(DATASETS)[:7]
MULTICLASS = list(DATASETS)[7:]
# quick runs skip the two largest sets (ringnorm, USPS)
QUICK_DATASETS = [d for d in DATASETS if d not in ("ringnorm", "usps")]


def table2_params(dataset: str, method: str) -> dict[str, Any]:
    """The paper's L (EMMC) and class balance (both) of ``dataset`` (Table 2, Sec. 5.3)."""
    _, L, balance = DATASETS[dataset]
    return {"n_hidden": L, "balance": balance} if method.startswith("emmc") else {
        "balance": balance
    }


# EMMC's tables print two decimals (the paper's).
_fmt = partial(fmt_value, spec=".2f")
_LABEL = {
    "itersvm": "IterSVM",
    "itersvr": "IterSVR",
    "emmc": "EMMC",
    "mmc-sdp": "MMC",
    "gmmc": "GMMC",
    "cpmmc": "CPMMC",
    "ncut": "NC",
    "lapgmm": "LapGMM",
}


def _flat(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The scored rows as the reports read them: the setting's parameters as keys,
    ``acc`` and ``error`` in % (eq. 15), ``time`` = the fit's seconds."""
    out = []
    for r in rows:
        if r.get("ca_hungarian") is None:  # failed, skipped or no data: in the footer
            continue
        params = r.get("params") or {}
        acc = 100.0 * r["ca_hungarian"]
        out.append({**(json.loads(params) if isinstance(params, str) else params),
                    "dataset": r["dataset"], "method": r["method"], "run": r["run"],
                    "acc": acc, "error": 100.0 - acc, "time": r.get("fit_time"),
                    "n_iter": r.get("n_iter"), "rand": r.get("rand")})
    return out


def _footer(rows: Sequence[Mapping[str, Any]], text: str) -> list[str]:
    """The closing line of a report, with the fits that gave no numbers and why."""
    from marginclust.bench._runner import row_status

    bad = [r for r in rows if row_status(r) in ("failed", "no-data")]
    lost = f" Fits without a result: {len(bad)} ({bad[0].get('error')})." if bad else ""
    return ["", text + lost]


def _printed(value: Any) -> Any:
    return int(value) if float(value).is_integer() else value


# ------------------------------------------------------------------ Table 3
TABLE3_C = [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 100.0]
TABLE3_METHODS = ["itersvm", "itersvr", "emmc"]


def report_table3(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    """Mean error (%) per method and C, ours beside the paper's."""
    flat, body = _flat(rows), []
    for m in TABLE3_METHODS:
        sel = [[r for r in flat if r["method"] == m and r["C"] == C] for C in TABLE3_C]
        body.append([_LABEL[m], "ours", *(mean_of(s, "error") for s in sel)])
        body.append([_LABEL[m], "paper", *(
            100 * table.published[("optdigits:3,9", f"{m}[C={C:g}]", "error")]
            for C in TABLE3_C)])
    lines = table_head(table)
    lines += md_table(["method", "", *[f"C={c:g}" for c in TABLE3_C]], body, _fmt)
    text = f"Mean error (%) over {len({r['run'] for r in rows})} runs. Notes: {table.notes}"
    return "\n".join(lines + _footer(rows, text))


register_table(
    Table(
        name="emmc-table3",
        title="Average clustering error (%) on digits 3 and 9 vs C",
        source=f"{SOURCE}, Table 3",
        datasets=["optdigits:3,9"],
        methods=TABLE3_METHODS,
        measures=["ca_hungarian"],
        n_runs=20,
        preprocessing="minmax",
        protocols=("paper",),
        aggregate="setting",
        grids={m: {"C": TABLE3_C} for m in TABLE3_METHODS},
        dataset_params=lambda dataset, method: {"n_hidden": "n"} if method == "emmc" else {},
        # one seed per run, shared by the three methods and every C
        seed_key=lambda job: ("emmc-table3", job.run),
        quick={"n_runs": 2, "grid": {m: {"C": TABLE3_C} for m in TABLE3_METHODS}},
        tiny={"grid": {m: {"C": TABLE3_C[::3]} for m in TABLE3_METHODS}},
        report=report_table3,
        notes="IterSVR/IterSVM: RBF, gamma='scale', k-means init (10 k-means++ starts), "
        "balance 0.03 n; EMMC: sigmoid nodes, L = n, k-means-in-ELM-space init. The paper "
        "does not give its kernel width or L for this table.",
    )
)


# ------------------------------------------------------------------ Table 4
TABLE4_SCHEMES = {  # as printed: (method, init); the published key
    "Random only": ("emmc-start", "random", "random"),
    "Random + EMMC": ("emmc-from-start", "random", "emmc[init=random]"),
    "Standard KM": ("emmc-start", "k-means", "kmeans"),
    "KM in ELM feature space": ("emmc-start", "k-means-elm", "kmeans-elm"),
    "Standard KM + EMMC": ("emmc-from-start", "k-means", "emmc[init=k-means]"),
    "KM in ELM feature space + EMMC": ("emmc-from-start", "k-means-elm",
                                       "emmc[init=k-means-elm]"),
}
TABLE4_FIXED_C = 2.0**-6
TABLE4_QUICK_C = [2.0**-6, 2.0**-2]
PAIRS = [f"optdigits:{a},{b}" for a, b in itertools.combinations(range(10), 2)]


def _table4_grids(Cs: Sequence[float]) -> dict[str, dict[str, list[Any]]]:
    # The label-free default C = 500 is one more setting of the paper protocol (one
    # run draws one seed for all schemes and Cs); the report keeps it apart. Every
    # EMMC fit computes its own start (the former loop shared one across the Cs:
    # same labels and reported times; about 1.3x the wall time of a full-grid pair).
    return {"emmc-start": {"init": INITS}, "emmc-from-start": {"init": INITS,
                                                                "C": [*Cs, PAPER_C]}}


def _table4_flat(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    by_key = {(m, init): s for s, (m, init, _) in TABLE4_SCHEMES.items()}
    out = []
    for r in _flat(rows):
        C = r.get("C")
        protocol = "both" if C is None else "default" if C == PAPER_C else "grid"
        out.append({**r, "scheme": by_key[(r["method"], r["init"])], "protocol": protocol,
                    "pair": r["dataset"], "rep": r["run"]})
    return out


def _best_c(rows: Sequence[Mapping[str, Any]], measure: str = "acc", sign: float = 1.0
            ) -> tuple[list[Mapping[str, Any]], float]:
    """The rows of the one C with the best mean ``measure`` (times ``sign``; picked with
    the labels) and that C; the first such C of the rows on ties."""
    by_c: dict[float, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_c.setdefault(r["C"], []).append(r)
    if not by_c:
        return [], float("nan")
    C = max(by_c, key=lambda c: sign * float(np.mean([r[measure] for r in by_c[c]])))
    return by_c[C], C


def _table4_best_c(rows: Sequence[Mapping[str, Any]], scheme: str, per_pair: bool
                   ) -> tuple[list[Mapping[str, Any]], float]:
    """Rows of the C that gives ``scheme`` its lowest mean error over all pairs, or per pair."""
    grid = [r for r in rows if r["scheme"] == scheme and r["protocol"] == "grid"]
    if not per_pair:
        return _best_c(grid, "error", -1.0)
    kept: list[Mapping[str, Any]] = []
    for pair in dict.fromkeys(r["pair"] for r in grid):
        kept += _best_c([r for r in grid if r["pair"] == pair], "error", -1.0)[0]
    return kept, float("nan")


def report_table4(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    """Error and time per scheme; EMMC's C per pair, once for all pairs, fixed, default."""
    flat, body = _table4_flat(rows), []
    n_grid = len({r["C"] for r in flat if r["protocol"] == "grid"})
    for scheme, (_, _, key) in TABLE4_SCHEMES.items():
        mine = [r for r in flat if r["scheme"] == scheme]
        variants: list[tuple[str, Sequence[Mapping[str, Any]]]] = [("-", mine)]
        if "EMMC" in scheme:
            one, one_c = _table4_best_c(flat, scheme, per_pair=False)
            fixed = [r for r in mine if r["protocol"] == "grid" and r["C"] == TABLE4_FIXED_C]
            variants = [
                (f"per pair, best of {n_grid}", _table4_best_c(flat, scheme, per_pair=True)[0]),
                (f"one for all pairs, best of {n_grid}: {one_c:g}", one),
                (f"{TABLE4_FIXED_C:g} for all pairs", fixed),
                (f"{PAPER_C:g}", [r for r in mine if r["protocol"] == "default"]),
            ]
        pe = 100 * table.published[("optdigits", key, "error")]
        pt = table.published[("optdigits", key, "fit_time")]
        for tag, sel in variants:
            if sel:
                body.append([scheme, tag, mean_of(sel, "error"), pe, mean_of(sel, "time"), pt,
                             mean_of(sel, "n_iter") if "EMMC" in scheme else "-"])
    lines = table_head(table)
    lines += md_table(
        ["scheme", "EMMC C", "error % (ours)", "paper", "time s (ours)", "paper", "iterations"],
        body,
        _fmt,
    )
    text = (f"Average over {len({r['dataset'] for r in rows})} pairs x "
            f"{len({r['run'] for r in rows})} repetitions. Notes: {table.notes}")
    return "\n".join(lines + _footer(rows, text))


_TABLE4_NOTES = (
    "L = n, single output; k-means: best of 10 k-means++ starts (the paper does not say; "
    "one start gave 4-5% error, the paper's 3.49% matches 10); EMMC starts from the labels "
    "of the same row's scheme and its time includes that initialisation. EMMC C: 'per "
    "pair, best of N' picks C per pair from the grid with the labels, as the paper picks C "
    "per data set; 'one for all pairs' picks one C for the 45 pairs with the labels; "
    "'0.015625 for all pairs' is one value (the best region of Table 3); '500': the ridge "
    "fit with L = n nearly reproduces the init (EMMC barely moves: the init-fixed-point "
    "pitfall)."
)


def _table4(name: str, title: str, Cs: Sequence[float], notes: str, **kw: Any) -> Table:
    return Table(
        name=name,
        title=title,
        source=f"{SOURCE}, Table 4",
        datasets=PAIRS,
        methods=["emmc-start", "emmc-from-start"],
        measures=["ca_hungarian"],
        n_runs=5,
        preprocessing="minmax",
        protocols=("paper",),
        aggregate="setting",
        grids=_table4_grids(Cs),
        # one seed per pair and repetition, shared by the six schemes and every C
        seed_key=lambda job: ("emmc-table4", *job.dataset.split(":")[1].split(","), job.run),
        quick={"datasets": PAIRS[::5], "n_runs": 1, "grid": _table4_grids(TABLE4_QUICK_C)},
        tiny={"grid": _table4_grids(TABLE4_QUICK_C[:1])},
        report=report_table4,
        notes=notes + " " + _TABLE4_NOTES,
        **kw,
    )


register_table(
    _table4(
        "emmc-table4",
        "Average performance on the 45 optdigits pairs under six initialisation schemes",
        C_GRID_ALL,
        "The paper's protocol (Sec. 5.3): Gaussian (radial-basis) hidden nodes for "
        "EMMC and for the k-means-in-ELM-space scheme, which runs in the hidden layer EMMC "
        "then fits; C grid 2^-10, 2^-9, ..., 2^10 (21 values).",
        published_only=["optdigits", "random", "kmeans-elm"],
    )
)
# The earlier harness setting: sigmoid nodes, even powers of 2 only, k-means in a
# separately drawn hidden layer.
register_table(
    _table4(
        "emmc-table4-sigmoid",
        "The 45 optdigits pairs, earlier harness setting (sigmoid nodes)",
        C_GRID,
        "Not the paper's protocol: sigmoid nodes, C grid 2^-10, 2^-8, ..., 2^10 (11 "
        "values), k-means in a separately drawn sigmoid layer.",
        dataset_params=lambda dataset, method: {"activation": "sigmoid", "shared_space": False},
        published_from="emmc-table4",
    )
)


# ------------------------------------------------------------------ Tables 5, 6
def _published_L(table: str) -> list[int]:
    """The numbers of hidden nodes L the paper's ``table`` prints a row for."""
    return sorted({int(split_method(m)[1]["n_hidden"]) for (_, m, _) in values(table)})


# The paper (Sec. 5.3) uses radial-basis hidden nodes, picks C from 2^-10, 2^-9, ..., 2^10
# "by cross validation" and averages 20 independent runs; the "fixed" variant keeps our
# earlier sigmoid nodes with C = 500 for comparison. Every fit of the grid is kept, so the
# report can pick C per setting (one C per L and output, best mean over the runs: the
# paper's per-data-set choice) or per run (an upper bound: the best C of each run).
TABLE56_QUICK_C = [2.0**-4, 1.0, 2.0**4]
TABLE5_RUNS = 20  # Sec. 5.3: "averaged over 20 independent runs"


def _pick_c(
    rows: Sequence[Mapping[str, Any]], how: str
) -> tuple[list[Mapping[str, Any]], float | None]:
    """The rows kept when C is picked with the labels: ``"setting"`` or ``"run"``.

    ``"setting"``: the one C with the best mean accuracy over the runs (returned);
    ``"run"``: the best C of each run separately (an upper bound). Rows of a
    single-C protocol are returned as they are.
    """
    if len({r["C"] for r in rows}) <= 1:
        return list(rows), None
    if how == "run":
        best: dict[Any, Mapping[str, Any]] = {}
        for r in rows:
            if r["run"] not in best or r["acc"] > best[r["run"]]["acc"]:
                best[r["run"]] = r
        return list(best.values()), None
    return _best_c(rows)


# report variants: (label, protocol, how C is picked)
_TABLE56_VARIANTS = [
    ("paper: C per setting", "paper", "setting"),
    ("paper: C per run", "paper", "run"),
    ("fixed", "fixed", "setting"),
]


def _report_single_multi(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    """Accuracy and time per L and output; C picked per setting, per run, or fixed."""
    flat = [{**r, "L": r["n_hidden"], "protocol": "paper" if r["activation"] == "gaussian"
             else "fixed"} for r in _flat(rows)]
    body = []
    for L in sorted({r["L"] for r in flat}):
        for label, protocol, how in _TABLE56_VARIANTS:
            cells: list[Any] = [str(L), label]
            for i, output in enumerate(["single", "multi"]):
                sel = [r for r in flat
                       if r["L"] == L and r["output"] == output and r["protocol"] == protocol]
                kept, C = _pick_c(sel, how) if sel else ([], None)
                key = (table.datasets[0], f"{('emmc', 'emmc-multi')[i]}[n_hidden={L}]")
                acc = table.published.get((*key, "ca_hungarian"))
                cells += [
                    mean_of(kept, "acc"),
                    f"{np.std([r['acc'] for r in kept]):.2f}" if kept else "-",
                    "-" if C is None else f"2^{int(round(np.log2(C)))}",
                    None if acc is None else 100 * acc,
                    mean_of(kept, "time"),
                    table.published.get((*key, "fit_time")),
                ]
            if any(c not in ("-", None) for c in cells[2:]):
                body.append(cells)
    header = ["L", "protocol"]
    for output in ["single", "multi"]:
        header += [f"{output} acc", "std", "C", "paper", "time s", "paper"]
    lines = table_head(table) + md_table(header, body, _fmt)
    n_settings = len({r["C"] for r in flat if r["protocol"] == "paper"}) or 1
    text = (
        f"Mean (std, population) over {len({r['run'] for r in rows})} runs. 'paper': "
        "Gaussian (radial-basis) hidden nodes and C from "
        f"{n_settings} values 2^-10, 2^-9, ..., 2^10 picked with the labels "
        "(Sec. 5.3): 'C per setting' = one C per L and output, the best mean over the runs "
        "(the paper picks C per data set; column C); 'C per run' = the best C of each run "
        "(an upper bound, the previous harness protocol); time = the kept fits. 'fixed': "
        f"sigmoid nodes, C = {PAPER_C:g}, no label use. Notes: {table.notes}"
    )
    return "\n".join(lines + _footer(rows, text))


def _single_multi_grids(Ls: Sequence[int], Cs: Sequence[float]) -> dict[str, Any]:
    # per L and output: the paper's protocol (Gaussian nodes over the C grid, started
    # from k-means run to convergence in the very layer EMMC fits) and the fixed
    # variant (library EMMC: sigmoid nodes, C = 500, its own cheap k-means-elm start)
    outs = ("single", "multi")
    return {
        "emmc-from-start": [{"init": "k-means-elm", "n_hidden": L, "output": out,
                             "activation": "gaussian", "C": C}
                            for L in Ls for out in outs for C in Cs],
        "emmc": [{"n_hidden": L, "output": out, "activation": "sigmoid", "C": PAPER_C}
                 for L in Ls for out in outs],
    }


def _single_multi(name: str, dataset: str, balance: float, Ls: Sequence[int],
                  quick_L: Sequence[int], preprocessing: str = "minmax", **kw: Any) -> Table:
    """EMMC single vs multi output on ``dataset`` per L: Gaussian nodes over the C grid
    (the paper's protocol) and the fixed sigmoid variant, every fit of a run on one seed."""
    return Table(
        name=name,
        datasets=[dataset],
        methods=["emmc-from-start", "emmc"],
        measures=["ca_hungarian"],
        preprocessing=preprocessing,
        protocols=("paper",),
        aggregate="setting",
        grids=_single_multi_grids(Ls, C_GRID_ALL),
        dataset_params={dataset: {"balance": balance}},
        # one seed per L and run (a subset run "<name>@..." draws the full table's runs)
        seed_key=lambda job: (job.table.split("@")[0], job.params.get("n_hidden"), job.run),
        quick={"n_runs": 1, "grid": _single_multi_grids(quick_L, TABLE56_QUICK_C)},
        tiny={"grid": _single_multi_grids(quick_L[:1], TABLE56_QUICK_C[:1])},
        report=_report_single_multi,
        **kw,
    )


_TABLE5_NOTES = (
    "balance 0.03 n; the paper's start (Sec. 5.3 keeps it after Table 4): k-means in the "
    "ELM hidden layer EMMC then fits, 10 k-means++ starts run to convergence, as in "
    "Table 4 (EMMC's own init='k-means-elm' is a cheaper approximation made for speed). "
    "Features as distributed: UCI letter is already on one integer scale 0-15 (every "
    "feature spans it over the 20,000 rows), so min-max scaling of the whole set, e.g. "
    "LIBSVM's letter.scale, is one affine map of every feature and gives the same hidden "
    "layer here (ELMFeatures standardises with one global scale); min-max scaling of the "
    "four-letter subset stretches its features unequally (ranges 9-15): table "
    "emmc-table5-l1000-minmax. A single output puts the clusters on a line (targets "
    "1..m): started from the true labels, in their order, it keeps .948 (30% randomised: "
    ".914), but from label-free starts, whose cluster order is arbitrary, it ends at "
    ".58-.63 (`marginclust bench --table reachability-letter`)."
)
register_table(_single_multi(
    "emmc-table5", "letter:A,B,C,D", 0.03, _published_L("emmc-table5"), [100, 300],
    preprocessing="raw", n_runs=TABLE5_RUNS,
    title="EMMC single vs multi output on LetterABCD over L",
    source=f"{SOURCE}, Table 5", notes=_TABLE5_NOTES))
# The L = 1000 row alone (the row the paper's later tables use), for a shorter full run,
# and the same row with the subset min-max scaled (the earlier harness's scaling).
for _how, _suffix, _title in (("raw", "", ""),
                              ("minmax", "-minmax", ", four-letter subset min-max scaled")):
    register_table(_single_multi(
        f"emmc-table5-l1000{_suffix}", "letter:A,B,C,D", 0.03, [1000], [1000],
        preprocessing=_how, n_runs=TABLE5_RUNS,
        title=f"EMMC single vs multi output on LetterABCD, L = 1000{_title}",
        source=f"{SOURCE}, Table 5 (last row)", notes=_TABLE5_NOTES,
        published_from="emmc-table5"))
_TABLE6_NOTES = (
    "balance 0.15 n (Table 2); the paper's start, as in Table 5: k-means in the ELM "
    "hidden layer EMMC then fits, 10 k-means++ starts run to convergence (computed once "
    "per run and shared by the run's fits, its seconds charged to each). Features "
    "min-max scaled (USPS pixels lie in [0, 1]). "
    "Published 94.47% (single) and 94.89% (multi) at L = 1000 contested: multi-output "
    "EMMC started from the true labels converges to .975 (30/50/70% randomised: "
    ".962/.951/.932) but from label-free starts to .60-.70; the paper also reports this "
    "536.61 s run as 94.47% (Tables 6, 9) and 96.20% (Table 8). "
    "`marginclust bench --table reachability`."
)
register_table(_single_multi(
    "emmc-table6", "usps", 0.15, _published_L("emmc-table6"), [200],
    n_runs=3, title="EMMC single vs multi output on USPS over L",
    source=f"{SOURCE}, Table 6",
    notes="3 runs, not the paper's 20 (USPS fits at L = 1500 take minutes each; "
    "table emmc-table6-l1000 runs the L = 1000 row 20 times). " + _TABLE6_NOTES))
# The L = 1000 row (the one Tables 8 and 9 reuse) with the paper's 20 runs.
register_table(_single_multi(
    "emmc-table6-l1000", "usps", 0.15, [1000], [1000], n_runs=TABLE5_RUNS,
    title="EMMC single vs multi output on USPS, L = 1000",
    source=f"{SOURCE}, Table 6 (row L = 1000)", notes=_TABLE6_NOTES,
    published_from="emmc-table6"))


# ------------------------------------------------------------------ Tables 7, 8, 9, 10
# The paper's protocol for its comparison tables (Sec. 5.3): "we use the EMMC algorithm
# with single output in both two-class and multiclass clustering", radial-basis nodes, C
# "from the range {2^-10, 2^-9, ..., 2^10} by cross validation", k-means in the ELM
# feature space as the start (Table 4's scheme), Table 2's L and balance, 20 runs. The
# earlier harness (sigmoid nodes, output 'auto', even powers of 2 only, C per run, 5 runs)
# differed in all five; its label-free column (library EMMC, sigmoid nodes, C = 500) is
# kept as "default" with its seeds.
ACC_RI_RUNS = {"itersvr": 5, "*": TABLE5_RUNS}  # IterSVR fits at large C take minutes


def _acc_ri_grids(emmc_c: Sequence[float], itersvr_c: Sequence[float]) -> dict[str, Any]:
    return {
        "emmc-from-start": [{"init": "k-means-elm", "output": "single",
                             "activation": "gaussian", "C": C} for C in emmc_c],
        "emmc": [dict(METHODS["emmc"].defaults)],
        "itersvr": {"C": list(itersvr_c)},
    }


def _acc_ri_cells(sel: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Acc and RI with one C per data set (best mean Acc), that C, and Acc with C per run."""
    if not sel:
        return [None, None, "-", None]
    kept, C = _pick_c(sel, "setting")
    per_run, _ = _pick_c(sel, "run")
    return [mean_of(kept, "acc"), mean_of(kept, "rand"),
            "-" if C is None else f"2^{int(round(np.log2(C)))}", mean_of(per_run, "acc")]


def _report_acc_ri(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    """Ours (the paper's protocol; the label-free default) beside the published Acc/RI."""
    flat, pub = _flat(rows), table.published
    pub_methods = list(dict.fromkeys(m for (_, m, s) in pub if s == "ca_hungarian"))
    ours = [m for m in ("emmc", "itersvr") if m in table.methods]
    header = ["data"]
    for m in ours:
        label = _LABEL[m]
        header += [f"{label} Acc", f"{label} RI", f"{label} C", f"{label} Acc C per run",
                   f"{label} Acc default", f"{label} RI default"]
    header += [f"{_LABEL[m]} (paper) Acc/RI" for m in pub_methods]
    body = []
    for ds in dict.fromkeys(d for (d, _, _) in pub):
        cells: list[Any] = [DATASETS[ds][0]]
        for m in ours:
            at = [r for r in flat if r["dataset"] == ds]
            if m == "emmc":  # the paper's protocol runs StartThenEMMC; "emmc" is the default
                grid, default = [r for r in at if r["method"] == "emmc-from-start"], [
                    r for r in at if r["method"] == "emmc"]
            else:
                grid = [r for r in at if r["method"] == m]
                default = [r for r in grid if r["C"] == METHODS[m].defaults["C"]]
            cells += [*_acc_ri_cells(grid), mean_of(default, "acc"), mean_of(default, "rand")]
        for m in pub_methods:
            acc, ri = pub.get((ds, m, "ca_hungarian")), pub.get((ds, m, "rand"))
            cells.append("-" if acc is None or ri is None else f"{100 * acc:.2f}/{ri:.2f}")
        body.append(cells)
    n_runs = {m: len({r["run"] for r in flat if r["method"] == m}) for m in table.methods}
    emmc_c = len({r["C"] for r in flat if r["method"] == "emmc-from-start"})
    text = (
        f"Runs: {', '.join(f'{m} {k}' for m, k in n_runs.items())}. Acc, RI: the paper's "
        f"protocol with one C per data set, the best mean Acc over the runs among "
        f"{emmc_c or '-'} values (EMMC) picked with the labels (column C); 'Acc C per run': "
        "the best C of each run (an upper bound, the earlier harness's pick). Default: "
        f"EMMC C = {PAPER_C:g} with sigmoid nodes, IterSVR C = 1; no label use. Empty "
        f"rows: data set not run (quick). Notes: {table.notes}"
    )
    return "\n".join(table_head(table) + md_table(header, body, _fmt) + _footer(rows, text))


_GRID_NOTES = (
    "EMMC, the paper's protocol: single output, Gaussian nodes, C in 2^-10, 2^-9, ..., "
    "2^10, started from k-means (10 k-means++ starts, run to convergence) in the ELM "
    "hidden layer it then fits, L = n (Ionosphere, Digits) or 300 (1000 for USPS) and "
    "balance 0.03 n or 0.15 n as in Table 2. A single output puts k > 2 clusters on a "
    "line; the label-free default (sigmoid nodes, C = 500, output 'auto': one-hot "
    "multi-output for k > 2) does not. IterSVR: RBF SVR, gamma='scale', epsilon = 0, "
    "k-means init, C in 2^-10, 2^-8, ..., 2^10. Ringnorm has 7400 rows here (paper: "
    "7000). Features min-max scaled, but letter's as distributed (one integer scale "
    "0-15, see Table 5)."
)


def _acc_ri_table(number: int, datasets: Sequence[str], methods: list[str],
                  published_only: list[str], title: str, notes: str = "",
                  quick_itersvr: Sequence[float] = C_GRID[::2]) -> Table:
    """Tables 7, 8 and 10: accuracy and RI, the paper's protocol beside the default."""
    return Table(
        name=f"emmc-table{number}",
        published_only=published_only,
        title=title,
        source=f"{SOURCE}, Table {number}",
        datasets=datasets,
        methods=methods,
        measures=["ca_hungarian", "rand"],
        n_runs=ACC_RI_RUNS,
        # letter as distributed, as in Table 5: min-max scaling a letter subset stretches
        # its features unequally (see _TABLE5_NOTES)
        preprocessing={d: "raw" if d.startswith("letter:") else "minmax" for d in datasets},
        protocols=("paper",),
        aggregate="setting",
        grids={m: g for m, g in _acc_ri_grids(C_GRID_ALL, C_GRID).items() if m in methods},
        dataset_params=table2_params,
        quick={"datasets": [d for d in datasets if d in QUICK_DATASETS], "n_runs": 2,
               "grid": {m: g for m, g in _acc_ri_grids(C_GRID_ALL[::4], quick_itersvr).items()
                        if m in methods}},
        report=_report_acc_ri,
        notes=_GRID_NOTES + notes,
    )


register_table(_acc_ri_table(
    7, TWO_CLASS, ["emmc-from-start", "emmc", "itersvr"], ["mmc-sdp", "gmmc"],
    "Clustering accuracy (%) and Rand index, two-class problems",
    " Published EMMC 97.11 on SatelliteC1-C2 contradicted: its classes are 1533 and 703 of "
    "2236 rows, so under the stated balance l = 0.15 n, which EMMC enforces at every "
    "iteration, no labelling exceeds 88.9 % (the true labels, 30-70 % randomised and "
    "EMMC's own start all end at 88.8-88.9). `python benchmarks/emmc_balance_cap.py`; "
    "`marginclust bench --table reachability-emmc-table7`.",
    # IterSVR's libsvm fits at large C take minutes each
    quick_itersvr=[C for C in C_GRID[::4] if C <= 1.0]))
register_table(_acc_ri_table(
    8, MULTICLASS, ["emmc-from-start", "emmc"], ["mmc-sdp"],
    "Clustering accuracy (%) and Rand index, multiclass problems",
    " GMMC and IterSVR are binary ('*' in the paper)."))
register_table(_acc_ri_table(
    10, list(DATASETS), ["emmc-from-start", "emmc"], ["lapgmm"],
    "EMMC vs normalized cut and LapGMM (published), accuracy (%) and Rand index",
    " NC and LapGMM are not implemented here (published numbers only). The EMMC fits "
    "are those of Tables 7 and 8 (same settings and seeds)."))


def report_table9(rows: Sequence[Mapping[str, Any]], table: Table) -> str:
    """Mean fit time (and EMMC's iterations) beside the paper's seconds."""
    flat, pub, body = _flat(rows), table.published, []
    for ds in dict.fromkeys(d for (d, _, s) in pub if s == "fit_time"):
        e = [r for r in flat if r["dataset"] == ds and r["method"] == "emmc"]
        s = [r for r in flat if r["dataset"] == ds and r["method"] == "itersvr"]
        pe = pub.get((ds, "emmc", "fit_time"))
        body.append([
            DATASETS[ds][0], mean_of(e, "time"), mean_of(e, "n_iter"),
            "-" if pe is None else f"{pe:.2f} ({_printed(pub[(ds, 'emmc', 'n_iter')])})",
            mean_of(s, "time"), *(pub.get((ds, m, "fit_time")) for m in ("itersvr", "cpmmc",
                                                                          "gmmc")),
        ])
    header = ["data", "EMMC time s", "EMMC iter", "paper EMMC s (iter)", "IterSVR s",
              "paper IterSVR s", "paper CPMMC s", "paper GMMC s"]
    text = (f"Mean over {len({r['run'] for r in rows})} runs, wall-clock on this machine "
            f"(shared, 1 BLAS thread unless set). Notes: {table.notes}")
    return "\n".join(table_head(table) + md_table(header, body, _fmt) + _footer(rows, text))


register_table(
    Table(
        name="emmc-table9",
        published_only=["gmmc"],
        title="CPU time (s) and iterations, two-class and multiclass problems",
        source=f"{SOURCE}, Table 9",
        datasets=list(DATASETS),
        methods=["emmc", "itersvr"],
        measures=["fit_time", "n_iter"],
        also_measures=["ca_hungarian", "rand"],
        n_runs=3,
        preprocessing="minmax",
        protocols=("default",),
        dataset_params=table2_params,
        skip=lambda dataset, method, X: "IterSVR is binary" if (
            method == "itersvr" and dataset in MULTICLASS) else None,
        # one seed per data set and run, shared by EMMC and IterSVR
        seed_key=lambda job: (job.table, job.dataset, job.run),
        quick={"datasets": QUICK_DATASETS, "n_runs": 1},
        report=report_table9,
        notes="EMMC at C = 500 with the paper's L and balance; IterSVR RBF, C = 1.",
    )
)

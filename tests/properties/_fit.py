"""Guarded fits: everything a property needs from one fit, computed in a child process."""

from __future__ import annotations

import functools
import pickle
from typing import Any

import numpy as np
from sklearn.base import clone

from ._cases import Case, make_data
from ._guard import Outcome, run_guarded
from ._registry import CONFIGS, Config

__all__ = ["fit_record", "refit_record", "stray_runtime_warnings"]

_BY_ID = {c.id: c for c in CONFIGS}


def _float_attributes(est: Any) -> dict[str, str]:
    out = {}
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_") and isinstance(value, np.ndarray):
            if value.dtype.kind == "f" and value.ndim >= 1:
                out[name] = str(value.dtype)
    return out


def _collect(
    config: Config, case: Case, transform: str, dtype: str, random_state: int, fmt: str
) -> dict:
    X, y = make_data(case, transform, np.dtype(dtype).type)
    if fmt != "dense":  # the same data as a sparse matrix
        import scipy.sparse as sp

        X = getattr(sp, f"{fmt}_matrix")(X)
    X0 = X.copy()
    est = config.make(case.k, random_state=random_state)
    est.fit(X)
    rec: dict[str, Any] = {
        "labels_": np.asarray(est.labels_),
        "memberships_": getattr(est, "memberships_", None),
        "objective_history_": getattr(est, "objective_history_", None),
        "converged_": getattr(est, "converged_", None),
        "n_clusters_found_": getattr(est, "n_clusters_found_", None),
        "attr_dtypes": _float_attributes(est),
        "X_unchanged_by_fit": bool(_same(X, X0)),
        "y": y,
    }
    # the project's vocabulary: a fitted attribute named ``*moved_`` lists the training
    # rows whose labels_ differ from predict(X_train) (e.g. EMMC's balance_moved_)
    # (row-index arrays only: a count such as IterativeLSSVM's n_tied_moved_ is not one)
    moved = [
        v
        for k, v in vars(est).items()
        if k.endswith("moved_") and isinstance(v, np.ndarray) and v.dtype.kind in "iu"
    ]
    rec["moved"] = np.unique(np.concatenate(moved)).astype(np.intp) if moved else None
    rec["predict"] = np.asarray(est.predict(X))
    if hasattr(est, "predict_proba"):
        rec["predict_proba"] = np.asarray(est.predict_proba(X))
    if hasattr(est, "decision_function"):
        rec["decision_function"] = np.asarray(est.decision_function(X), dtype=np.float64)
    rec["objective_"] = getattr(est, "objective_", None)
    rec["params"] = est.get_params()
    rec["C_"] = getattr(est, "C_", None)  # the C a C="auto" fit kept
    if hasattr(est, "data_scale_"):  # linear MMC: the largest norm of a row in its units
        Xd = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        Xc = (Xd - Xd.mean(axis=0)) / est.data_scale_
        rec["row_norm"] = float(np.max(np.linalg.norm(Xc, axis=1)))
    rec["X_unchanged"] = bool(_same(X, X0))
    return rec


def _same(A, B) -> bool:
    import scipy.sparse as sp

    if sp.issparse(A):
        return bool(A.shape == B.shape and (A != B).nnz == 0)
    return bool(np.array_equal(A, B))


@functools.lru_cache(maxsize=512)
def fit_record(
    config_id: str,
    case: Case,
    transform: str = "identity",
    dtype: str = "float64",
    random_state: int = 0,
    timeout: float | None = None,
    repeat: int = 0,
    fmt: str = "dense",
) -> Outcome:
    """Fit ``config`` on ``case`` (after ``transform``) in a guarded child; cached.

    ``fmt`` passes the data as a ``"csr"``, ``"csc"`` or ``"coo"`` matrix;
    ``repeat`` only changes the cache key (a second, independent fit).
    """
    config = _BY_ID[config_id]
    return run_guarded(
        lambda: _collect(config, case, transform, dtype, random_state, fmt), timeout=timeout
    )


def _refits(config: Config, case: Case, other: Case) -> dict:
    X, _ = make_data(case)
    X2, _ = make_data(other)
    est = config.make(case.k, random_state=0).fit(X)
    labels = np.asarray(est.labels_).copy()
    pred = np.asarray(est.predict(X))
    out: dict[str, Any] = {"labels": labels, "predict": pred}
    out["unpickled_predict"] = np.asarray(pickle.loads(pickle.dumps(est)).predict(X))
    out["clone_labels"] = np.asarray(clone(est).fit(X).labels_)
    # set_params then refit on other data: must equal a fresh fit with those parameters.
    est.set_params(random_state=1, n_clusters=other.k)
    out["refit_labels"] = np.asarray(est.fit(X2).labels_)
    fresh = config.make(other.k, random_state=1).fit(X2)
    out["fresh_labels"] = np.asarray(fresh.labels_)
    out["refit_n_features_in_"] = est.n_features_in_
    return out


def refit_record(config_id: str, case: Case, other: Case) -> Outcome:
    """Pickle / clone / set_params-refit results for ``config`` in a guarded child."""
    config = _BY_ID[config_id]
    return run_guarded(lambda: _refits(config, case, other))


def _pairs_fit(config: Config, case: Case) -> dict:
    """A fit with must-link and cannot-link pairs drawn from the true labels."""
    X, y = make_data(case)
    rng = np.random.RandomState(case.seed)
    u, v = rng.randint(case.n, size=(2, 6))
    keep = u != v
    u, v = u[keep], v[keep]
    same = y[u] == y[v]
    ml = np.column_stack([u[same], v[same]])
    cl = np.column_stack([u[~same], v[~same]])
    est = config.make(case.k, random_state=0)
    est.fit(X, must_link=ml if ml.size else None, cannot_link=cl if cl.size else None)
    moved = [getattr(est, a) for a in ("size_moved_", "pairs_moved_")]
    return {
        "labels_": np.asarray(est.labels_), "predict": np.asarray(est.predict(X)),
        "n_clusters_found_": est.n_clusters_found_, "ml": ml, "cl": cl,
        "size_moved_": moved[0], "pairs_moved_": moved[1],
    }


@functools.lru_cache(maxsize=64)
def pairs_record(config_id: str, case: Case) -> Outcome:
    """A fit of ``config`` with pairs drawn from ``case``'s labels, in a guarded child."""
    config = _BY_ID[config_id]
    return run_guarded(lambda: _pairs_fit(config, case))


def stray_runtime_warnings(out: Outcome) -> list[str]:
    """RuntimeWarnings (overflow, invalid value, ...) the call emitted."""
    return [
        f"{cat}: {msg} ({where})"
        for cat, mro, msg, where in out.warnings
        if "builtins.RuntimeWarning" in mro
    ]

"""EMMC from the spectral and the k-means-ELM start at one common class balance.

With ``balance="auto"`` each start resolves its own bound on the cluster-size
spread (the start's spread, at least 0.03 n), so the objectives of two fits
from different starts are values on different feasible sets, and the looser one
(often the spectral start's, when it isolates a small group) is favoured. Here
both starts are refitted at one bound, the smaller (``min``) or the larger
(``max``) of the two resolved ``balance_``, and the fit of lower ``objective_``
is kept (``lower``). Label-free fits (seed 0) with the true K on the sets of
``defaults_battery.py``; NCA best over a set's references and K.

Run (BLAS threads pinned to 1)::

    python benchmarks/emmc_common_balance.py --out /tmp/emmc_balance.jsonl [--uci]
    MARGINCLUST_BATTERY=/path/to/clustering-data-v1 python benchmarks/emmc_common_balance.py \\
        --batteries sipu,uci,other --out /tmp/emmc_balance_heldout.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import defaults_battery as db  # noqa: E402

from marginclust import EMMC  # noqa: E402
from marginclust.metrics import normalized_clustering_accuracy  # noqa: E402

STARTS = ("spectral", "k-means-elm")


def fit(X: np.ndarray, k: int, refs: list[Any], **params: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = EMMC(n_clusters=k, random_state=0, **params).fit(X)
    nca = max(normalized_clustering_accuracy(r[r > 0], est.labels_[r > 0]) for r in refs)
    return {"nca": float(nca), "objective": float(est.objective_),
            "found": int(np.unique(est.labels_).size), "balance": int(est.balance_)}


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    jobs = db.uci_jobs(args) if args.uci else db.battery_jobs(args)
    rows = []
    for name, X, groups in jobs:
        for k, refs in groups:
            row: dict[str, Any] = {"set": name, "k": k}
            own = {s: fit(X, k, refs, init=s) for s in STARTS}
            row.update({f"{s}@own": r for s, r in own.items()})
            bounds = [r["balance"] for r in own.values()]
            for mode, bound in (("min", min(bounds)), ("max", max(bounds))):
                for s in STARTS:
                    same = own[s]["balance"] == bound
                    row[f"{s}@{mode}"] = own[s] if same else fit(X, k, refs, init=s,
                                                                 balance=int(bound))
            rows.append(row)
            print(name, k, {key: round(v["nca"], 3) for key, v in row.items() if "@" in key},
                  flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> None:
    print("| balance | spectral | k-means-elm | lower objective |")
    print("|---|---|---|---|")
    for mode in ("own", "min", "max"):
        cells = []
        for pick in (*STARTS, "lower"):
            best: dict[str, float] = {}
            for r in rows:
                if pick == "lower":  # all K clusters first, then the lower objective
                    f = min((r[f"{s}@{mode}"] for s in STARTS),
                            key=lambda v: (v["found"] < r["k"], v["objective"]))
                else:
                    f = r[f"{pick}@{mode}"]
                best[r["set"]] = max(best.get(r["set"], -1.0), f["nca"])
            cells.append(f"{np.mean(list(best.values())):.3f}")
        print(f"| {mode} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="JSON lines; reused when it exists")
    p.add_argument("--uci", action="store_true")
    p.add_argument("--batteries", default=",".join(db.BATTERIES))
    p.add_argument("--max-samples", type=int, default=3000)
    p.add_argument("--uci-max-samples", type=int, default=3000)
    p.add_argument("--only", default="")
    args = p.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("MARGINCLUST_DATA", str(HERE.parents[1] / "shared" / "datasets"))
    out = Path(args.out)
    if out.is_file():
        rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    else:
        rows = run(args)
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary(rows)


if __name__ == "__main__":
    main()

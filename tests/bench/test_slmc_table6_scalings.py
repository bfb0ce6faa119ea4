"""benchmarks/slmc_table6_scalings.py: three scalings side by side over the same runs."""

from __future__ import annotations

import json


def test_columns_average_the_runs_complete_in_every_scaling(tmp_path, capsys, load_benchmark):
    mod = load_benchmark("slmc_table6_scalings")
    # glass: K-means (1 paper setting) and FCM; run 2 is missing under min-max, so every
    # column averages runs 0 and 1 only
    acc = {"slmc-table6": (0.50, 0.60, 0.90), "slmc-table6-standardize": (0.40, 0.80, 0.90),
           "slmc-table6-minmax": (0.70, 0.70)}
    for name, values in acc.items():
        rows = [dict(dataset="glass", method=m, protocol="paper", run=run, key=f"{m}{run}",
                     ca_majority=v) for m in ("kmeans", "fcm") for run, v in enumerate(values)]
        with (tmp_path / f"{name}.jsonl").open("w") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    assert mod.main(["--out", str(tmp_path), "--datasets", "glass",
                     "--methods", "kmeans;fcm"]) == 0
    out = capsys.readouterr().out
    assert "| glass | kmeans | 2 | 0.5500 ± 0.0500 | 0.6000 ± 0.2000 | 0.7000 ± 0.0000 |" in out
    assert "kmeans+rbf" not in out  # its kernel K-means half was not asked for

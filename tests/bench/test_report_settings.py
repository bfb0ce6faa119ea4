"""Reports print how many label-picked settings stand behind a 'best' column."""

from __future__ import annotations

from marginclust.bench._report import _settings_per_run


def test_settings_per_run_counts_paper_rows_only():
    rows = [
        {"method": "m", "dataset": "d", "run": r, "protocol": "paper", "params": {"C": c}}
        for r in range(2)
        for c in (1, 2, 3)
    ]
    rows += [{"method": "m", "dataset": "d", "run": 0, "protocol": "default", "params": {}}]
    rows += [{"method": "k", "dataset": "d", "run": 0, "protocol": "paper", "params": {}}]
    assert _settings_per_run(rows) == {"m": 3, "k": 1}

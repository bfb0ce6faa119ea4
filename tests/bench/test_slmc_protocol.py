"""The SLMC paper's tables: transcription against the paper text, data set variants."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from marginclust.bench._runner import get_table
from papers import slmc

PAPER = Path(__file__).resolve().parents[2].parent / "shared" / "papers"
PAPER = PAPER / "slmc-wang-chen-2013.txt"


def _numbers(text):
    """Every decimal number and every bare ``±0`` in ``text``, in order."""
    return [float(v) for v in re.findall(r"\d+\.\d+|(?<=±)0\b", text)]


def _paper_block(start, end):
    if not PAPER.is_file():
        pytest.skip(f"paper text not found at {PAPER}")
    text = PAPER.read_text(encoding="utf-8")
    a = text.index(start)
    return text[a : text.index(end, a)]


def _ours_in_paper_order(published, spread, rows, columns):
    out = []
    for dataset in rows:
        for key in columns:
            full = (dataset, *key)
            if full in published:
                out.append(published[full])
                if full in spread:
                    out.append(spread[full])
    return out


def test_table6_transcription_matches_paper():
    block = _paper_block("| Lenses         | 0.5546", "5 (small-scale)")
    table = get_table("slmc-table6")
    methods = ["kmeans", "fcm", "mmc-sdp", "iterative-lssvm", "slmc"]
    ours = _ours_in_paper_order(
        table.published, table.published_spread, slmc.DATASETS.values(),
        [(m, "ca_majority") for m in methods],
    )
    assert ours == _numbers(block)
    assert len(table.published) == 18 * 5 - 13  # MMC only on the first five sets


def test_table7_transcription_matches_paper():
    block = _paper_block("| Lenses         | 0.4231", "#### Table 8")
    table = get_table("slmc-table7")
    columns = [(m, s) for m in ("fcm", "slmc") for s in ("pc", "pe", "xb")]
    ours = _ours_in_paper_order(
        table.published, table.published_spread, slmc.DATASETS.values(), columns
    )
    assert ours == _numbers(block)


def test_tables3_4_transcription_matches_paper():
    block = _paper_block("| КМ ", "Fig. 2.")
    t3, t4 = get_table("slmc-table3"), get_table("slmc-table4")
    ks = [f"slmc-four-gaussians@k={k}" for k in (3, 4, 5, 6)]
    ours = [
        t3.published[(d, m, "ca_majority")]
        for m in ("kmeans", "fcm", "iterative-lssvm", "slmc")
        for d in ks
    ]
    for d in ks:
        ours.append(float(d[-1]))  # Table 4 starts each row with the cluster number
        ours += [t4.published[(d, m, s)] for m in ("fcm", "slmc") for s in ("pc", "pe", "xb")]
    paper = [v for v in re.findall(r"\d+\.\d+|(?<=\| )[3-6](?= )", block)]
    assert ours == [float(v) for v in paper]


def test_table_methods_are_registered_lists():
    assert list(get_table("slmc-table6").methods) == slmc.TABLE6_METHODS
    assert list(get_table("slmc-table7").methods) == slmc.TABLE7_METHODS


def test_echocardiogram_variant_has_paper_class_sizes(shared_data_dir):
    X, y = slmc.load_slmc_echocardiogram(str(shared_data_dir))
    assert X.shape == (132, 11)
    assert sorted(np.bincount(y).tolist()) == [43, 89]


def test_table3_quick_runs_end_to_end():
    from marginclust.bench._report import format_report
    from marginclust.bench._runner import run_table

    table = get_table("slmc-table3")
    rows = run_table(table, quick=True, progress=False)
    assert {r["dataset"] for r in rows} == {"slmc-four-gaussians@k=4"}
    assert all(r["n_clusters"] == 4 and r["error"] is None for r in rows)
    assert all(0.25 <= r["ca_majority"] <= 1.0 for r in rows)
    report = format_report(rows, table, quick=True)
    # The published numbers of all four methods appear beside ours.
    for value in ("0.9125", "0.9225", "0.9275", "0.9375"):
        assert value in report

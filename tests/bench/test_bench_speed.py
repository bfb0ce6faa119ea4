"""``make bench-speed``'s driver: scripts' records reach one table (no real benchmark run)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_driver():
    if not (BENCH / "bench_speed.py").is_file():
        pytest.skip("benchmarks/ is not beside the tests (installed package)")
    spec = importlib.util.spec_from_file_location("bench_speed", BENCH / "bench_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_records_of_every_script_reach_the_table(tmp_path, monkeypatch, capsys):
    # a stand-in script in benchmarks/ would be run with cwd=benchmarks/: the driver must
    # hand it an absolute record path even when --log-dir is relative (it was not, and
    # every script failed with FileNotFoundError in the first end-to-end run)
    script = tmp_path / "fake_bench.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(BENCH)!r})\n"
        "from _ratios import record\n"
        "record('fake method', 'fake peer', '10 x 2', 1, 0.5, 1.0)\n"
        "record('fake method', 'fake peer', '10 x 2', 2, 3.0, 1.0)\n"
    )
    driver = _load_driver()
    monkeypatch.setattr(driver, "RUNS", {"fake": [[str(script)]]})
    monkeypatch.chdir(tmp_path)
    assert driver.main(["--only", "fake", "--log-dir", "logs"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| fake method")]
    assert len(rows) == 2
    assert "| yes |" in rows[0] and "| **no** |" in rows[1]
    assert (tmp_path / "logs" / "ratios.jsonl").read_text().count("\n") == 2


def test_a_failing_script_is_reported(tmp_path, monkeypatch, capsys):
    script = tmp_path / "broken_bench.py"
    script.write_text("raise SystemExit(3)\n")
    driver = _load_driver()
    monkeypatch.setattr(driver, "RUNS", {"fake": [[str(script)]]})
    assert driver.main(["--only", "fake", "--log-dir", str(tmp_path / "logs")]) == 1
    assert "Failed: fake (exit 3" in capsys.readouterr().out

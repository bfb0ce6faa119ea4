"""``make bench-speed``'s driver: scripts' records reach one table (no real benchmark run)."""

from __future__ import annotations

from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_records_of_every_script_reach_the_table(tmp_path, monkeypatch, capsys, load_benchmark):
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
    driver = load_benchmark("bench_speed")
    monkeypatch.setattr(driver, "RUNS", {"fake": [[str(script)]]})
    monkeypatch.chdir(tmp_path)
    assert driver.main(["--only", "fake", "--log-dir", "logs"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| fake method")]
    assert len(rows) == 2
    assert "| yes |" in rows[0] and "| **no** |" in rows[1]
    assert (tmp_path / "logs" / "ratios.jsonl").read_text().count("\n") == 2


def test_a_failing_script_is_reported(tmp_path, monkeypatch, capsys, load_benchmark):
    script = tmp_path / "broken_bench.py"
    script.write_text("raise SystemExit(3)\n")
    driver = load_benchmark("bench_speed")
    monkeypatch.setattr(driver, "RUNS", {"fake": [[str(script)]]})
    assert driver.main(["--only", "fake", "--log-dir", str(tmp_path / "logs")]) == 1
    assert "Failed: fake (exit 3" in capsys.readouterr().out

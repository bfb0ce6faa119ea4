"""All speed ratios in one table (``make bench-speed``).

Runs every speed benchmark in a quick-but-honest mode, each in its own process
(so one script's memory and thread pools do not affect the next), with the
environment variable ``MARGINCLUST_BENCH_RATIOS`` pointing at a scratch file where
each script records the ratios it measures (``benchmarks/_ratios.py``). Then prints
ONE table: method, peer, size, BLAS threads, measured value, target, met?, and the
1-minute load average when the row was measured; with the load average and the
BLAS (threadpoolctl) configuration at the start and at the end.

Quick-but-honest means: the sizes of the targets where they fit in the budget
(FCM at 1e6 rows, PKM at 1e5 and 1e6, EMMC on the whole of USPS, SLMC low rank at
1e5 rows), ours and the peer interleaved in one process with the same seeds,
medians of a few repeats, 1 and 2 BLAS threads; smaller sizes than the targets
only where a single run would take minutes (BMMC and WOC-SVM's exact path). The
scripts' own full modes (see their docstrings) remain the reference; each
script's printed output is kept in ``--log-dir``.

Usage::

    python benchmarks/bench_speed.py                 # about 6-8 minutes on a quiet machine
    python benchmarks/bench_speed.py --only fcm pkm  # a subset
    python benchmarks/bench_speed.py --baseline-src /tmp/mmc_base/src   # + BMMC vs old code

Ratios measured on a loaded machine are only indicative; the load column says
how loaded it was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name -> the script's quick-but-honest runs (script and arguments)
RUNS: dict[str, list[list[str]]] = {
    "fcm": [["bench_fcm.py", "--n-gemm", "1000000", "--threads", "1", "2", "--repeat", "3"]],
    "pkm": [[
        "bench_pkm.py", "--sizes", "100000", "1000000", "--kinds", "blobs",
        "--threads", "1", "2", "--repeat", "3",
    ]],
    "emmc": [["bench_emmc.py", "--quick", "--threads", "1", "2"]],
    "bmmc": [["bench_bmmc.py", "--quick"]],
    "wocsvm": [
        ["bench_wocsvm.py", "--parts", "1", "--sizes", "1000", "2000", "--repeats", "2",
         "--threads", "1", "2"],
        ["bench_wocsvm.py", "--parts", "2", "--lowrank-sizes", "100000", "--threads", "1"],
    ],
    "max-margin": [["bench_max_margin_speed.py", "--repeats", "3"]],
    "slmc": [
        ["bench_slmc.py", "--n", "100000", "--repeats", "1", "--threads", "1", "2",
         "--no-exact"],
        ["bench_slmc.py", "--no-low-rank", "--repeats", "1", "--threads", "1"],
    ],
}


def _blas() -> str:
    try:
        import numpy  # noqa: F401  (loads the BLAS that threadpoolctl reports)
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover
        return "threadpoolctl not installed"
    parts = [
        f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    env = " ".join(
        f"{k}={os.environ[k]}"
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if k in os.environ
    )
    return "; ".join(parts) + (f"; {env}" if env else "")


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "%":
        return f"{100 * value:.1f} %"
    if unit == "s":
        return f"{value:.1f} s"
    if unit == "exact":
        return f"{value:.9f}"
    return f"{value:.2f}x"


def print_table(rows: list[dict]) -> None:
    print("| method | peer | size | threads | measured | target | met? | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        unit, target = r["unit"], r["target"]
        if target is None:
            tgt, met = "-", "(info)"
        else:
            sign = "<=" if r["better"] == "lower" else ">="
            tgt = f"{sign} {_fmt(target, unit)}"
            ok = r["value"] <= target if r["better"] == "lower" else r["value"] >= target
            met = "yes" if ok else "**no**"
        print(
            f"| {r['method']} | {r['peer']} | {r['size']} | {r['threads']} | "
            f"{_fmt(r['value'], unit)} | {tgt} | {met} | {r['load']:.1f} |"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(RUNS), default=sorted(RUNS))
    ap.add_argument("--baseline-src", default=None, help="src/ of old code (BMMC vs today)")
    ap.add_argument("--log-dir", default=None, help="keep each script's output here")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per script")
    args = ap.parse_args(argv)
    # absolute: the scripts run with cwd=benchmarks/ and append to the record file
    log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="bench-speed-")).resolve()
    log_dir.mkdir(parents=True, exist_ok=True)
    record = log_dir / "ratios.jsonl"
    record.write_text("")
    env = dict(os.environ, MARGINCLUST_BENCH_RATIOS=str(record))
    src = HERE.parent / "src"
    if src.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(src), env.get("PYTHONPATH", "")) if p
        )
    load0, blas0, t_start = os.getloadavg(), _blas(), time.perf_counter()
    failed: list[str] = []
    order = [name for name in RUNS if name in args.only]
    for name in order:
        t0 = time.perf_counter()
        with open(log_dir / f"{name}.log", "w", encoding="utf-8") as out:
            for script, *script_args in RUNS[name]:
                cmd = [sys.executable, str(HERE / script), *script_args]
                if name == "bmmc" and args.baseline_src:
                    cmd += ["--baseline-src", args.baseline_src]
                print(f"[bench-speed] {name}: {' '.join(cmd[1:])}", flush=True)
                out.write(f"$ {' '.join(cmd[1:])}\n")
                out.flush()
                try:
                    rc = subprocess.run(
                        cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                        timeout=args.timeout, cwd=HERE,
                    ).returncode
                except subprocess.TimeoutExpired:
                    rc = -1
                if rc != 0:
                    failed.append(f"{name} (exit {rc}, see {log_dir / (name + '.log')})")
        print(f"[bench-speed] {name}: {time.perf_counter() - t0:.0f} s", flush=True)
    rows = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    print(f"\n## Speed ratios, {time.perf_counter() - t_start:.0f} s in all\n")
    print(f"Load average at start {load0[0]:.2f} / {load0[1]:.2f} / {load0[2]:.2f}, "
          f"at end " + " / ".join(f"{v:.2f}" for v in os.getloadavg()) + ".")
    print(f"BLAS: {blas0}. Per-script output: {log_dir}\n")
    print_table(rows)
    if failed:
        print("\nFailed: " + "; ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

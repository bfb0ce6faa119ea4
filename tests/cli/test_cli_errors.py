"""The CLI answers every bad input in one line.

Each test is one bad input; all run in a few seconds.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from marginclust.cli import _fit as fit_cli
from marginclust.cli import build_parser, main

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _blobs(path, rng, *, header=True, label=True, delimiter=",", n=20):
    X = np.vstack([rng.normal(0, 0.3, (n, 2)), rng.normal(3, 0.3, (n, 2))])
    y = np.repeat(["a", "b"], n)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, delimiter=delimiter)
        if header:
            w.writerow(["x0", "x1"] + (["kind"] if label else []))
        for xi, yi in zip(X, y):
            w.writerow([*xi] + ([yi] if label else []))
    return X, y


def _one_line_error(err: str, command: str = "fit") -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err
    assert lines and lines[-1].startswith(f"marginclust {command}: error: ")
    return lines[-1]


# ------------------------------------------------------------ silent long work
def test_fit_verbose_says_what_it_fits(tmp_path, rng, capsys):
    src = tmp_path / "in.csv"
    _blobs(src, rng)
    assert main(["fit", str(src), "--n-clusters", "2", "--label-column", "kind",
                 "--method", "slmc", "--verbose", "--out", str(tmp_path / "o.csv")]) == 0
    assert "fitting SLMC(n_clusters=2) on 40 x 2" in capsys.readouterr().err


def test_fit_progress_line_needs_no_extra(capsys, no_tqdm):
    import time

    with fit_cli.fit_progress("fitting SLMC", enabled=True, delay=0.0):
        time.sleep(0.3)
    assert "marginclust fit: fitting SLMC, 0 s elapsed" in capsys.readouterr().err
    with fit_cli.fit_progress("fitting SLMC", enabled=True, delay=5.0):
        pass  # a short fit prints nothing
    assert capsys.readouterr().err == ""


def test_fit_progress_line_names_the_latest_phase(capsys):
    # the estimators' phases (a start, a re-seed) show on the line; sweeps do not
    import time

    from marginclust.utils import report

    with fit_cli.fit_progress("fitting SLMC", enabled=True, delay=0.0):
        report(0, "SLMC start (init='max-margin'): the margin search for %d clusters ...", 3)
        report(0, "SLMC sweep %d: objective 1.0", 7, iteration=True)
        time.sleep(1.3)  # the line is rewritten every second
    err = capsys.readouterr().err
    assert re.search(r"fitting SLMC, \d+ s elapsed: SLMC start \(init='max-margin'\): the "
                     r"margin search", err)
    assert "sweep 7" not in err


def test_bench_progress_without_tqdm(no_tqdm, capsys):
    from marginclust.bench._runner import _progress

    assert list(_progress(range(3), 3, True, "table")) == [0, 1, 2]
    assert "table 3/3" in capsys.readouterr().err


# ---------------------------------------------------------------- n_clusters
def test_n_clusters_defaults_to_label_classes_with_message(tmp_path, rng, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _blobs(src, rng)
    assert main(["fit", str(src), "--method", "slmc", "--label-column", "kind",
                 "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "using 2, the number of classes in column 'kind'" in captured.err
    assert "SLMC: k=2," in captured.out


def test_n_clusters_required_without_labels(tmp_path, rng, capsys):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)
    assert main(["fit", str(src), "--method", "fcm"]) == 1
    assert "--n-clusters is required" in _one_line_error(capsys.readouterr().err)


def test_n_clusters_conflict_is_an_error(tmp_path, rng, capsys):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)
    assert main(["fit", str(src), "--param", "n_clusters=3", "--n-clusters", "4"]) == 1
    assert "disagree" in _one_line_error(capsys.readouterr().err)


# ---------------------------------------------------------------- bad input
def test_headerless_csv_keeps_first_row_and_says_so(tmp_path, rng, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    X, _ = _blobs(src, rng, header=False, label=False)
    assert main(["fit", str(src), "--n-clusters", "2", "--out", str(out)]) == 0
    assert "has no header row" in capsys.readouterr().err
    with open(out) as fh:
        assert len(list(csv.DictReader(fh))) == X.shape[0]


def test_broken_pipe_is_quiet(tmp_path, rng):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False, n=3000)  # more output than a pipe buffer holds
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-m", "marginclust", "fit", str(src), "--n-clusters", "2",
         "--param", "max_iter=5", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    assert proc.stdout.readline().startswith(b"cluster")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_gz_that_is_not_gzip(tmp_path, rng, capsys):
    src = tmp_path / "plain.csv.gz"
    _blobs(src, rng, label=False)
    assert main(["fit", str(src), "--n-clusters", "2"]) == 1
    assert "not gzip-compressed" in _one_line_error(capsys.readouterr().err)


def test_truncated_gz(tmp_path, rng, capsys):
    plain, src = tmp_path / "in.csv", tmp_path / "cut.csv.gz"
    _blobs(plain, rng, label=False)
    data = gzip.compress(plain.read_bytes())
    src.write_bytes(data[: len(data) // 2])
    assert main(["fit", str(src), "--n-clusters", "2"]) == 1
    assert "truncated or corrupt" in _one_line_error(capsys.readouterr().err)


def test_out_directory_is_rejected_before_reading(tmp_path, capsys):
    # The input does not exist: the --out check comes first, before any work.
    assert main(["fit", str(tmp_path / "missing.csv"), "--n-clusters", "2",
                 "--out", str(tmp_path)]) == 1
    assert "is a directory; name a file" in _one_line_error(capsys.readouterr().err)


def test_bench_and_demo_out_naming_a_file(tmp_path, capsys):
    existing = tmp_path / "results"
    existing.write_text("x")
    assert main(["bench", "--table", "slmc-table3", "--quick", "--out", str(existing)]) == 1
    assert "not a directory" in _one_line_error(capsys.readouterr().err, "bench")
    assert main(["demo", "--methods", "fcm", "--out", str(existing)]) == 1
    assert "not a directory" in _one_line_error(capsys.readouterr().err, "demo")


def test_ctrl_c_prints_interrupted_exit_130(tmp_path, rng, capsys, monkeypatch):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(fit_cli, "read_csv", interrupt)
    assert main(["fit", str(src), "--n-clusters", "2"]) == 130
    err = capsys.readouterr().err
    assert "marginclust fit: interrupted" in err and "Traceback" not in err


def test_ctrl_c_in_bench_says_rerun_resumes(tmp_path, capsys, monkeypatch):
    import marginclust.bench._runner as runner

    monkeypatch.setattr(runner, "run_table", lambda *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    assert main(["bench", "--table", "slmc-table3", "--quick", "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert "interrupted; rerun the same command to resume" in err
    assert main(["bench", "--table", "slmc-table3", "--quick"]) == 130
    assert "rerun with --out DIR" in capsys.readouterr().err


def test_non_utf8_file_names_file_and_fix(tmp_path, capsys):
    src = tmp_path / "latin.csv"
    src.write_bytes("caf\xe9,x1\n1,2\n3,4\n5,6\n".encode("latin-1"))
    assert main(["fit", str(src), "--n-clusters", "2"]) == 1
    line = _one_line_error(capsys.readouterr().err)
    assert str(src) in line and "not UTF-8" in line and "iconv" in line


def test_semicolon_separated_file(tmp_path, rng, capsys):
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    X, _ = _blobs(src, rng, label=False, delimiter=";")
    assert main(["fit", str(src), "--n-clusters", "2", "--out", str(out)]) == 0
    assert "separated by ';'" in capsys.readouterr().err
    assert main(["fit", str(src), "--n-clusters", "2", "--delimiter", "semicolon",
                 "--out", str(out)]) == 0


def test_directory_as_input(tmp_path, capsys):
    assert main(["fit", str(tmp_path), "--n-clusters", "2"]) == 1
    assert "is a directory; give a CSV file" in _one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("cell", ["NA", "nan", "inf", "-Infinity"])
def test_nan_and_inf_get_the_row_column_message(tmp_path, capsys, cell):
    src = tmp_path / "in.csv"
    src.write_text(f"x0,x1\n1,2\n3,{cell}\n5,6\n")
    assert main(["fit", str(src), "--n-clusters", "2"]) == 1
    line = _one_line_error(capsys.readouterr().err)
    assert f"row 3, column 'x1' holds '{cell}', not a finite number" in line
    assert "supervised" not in line


def test_warnings_print_as_one_cli_line(tmp_path, rng, capsys):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)
    assert main(["fit", str(src), "--n-clusters", "2", "--param", "max_iter=1",
                 "--param", "tol=1e-12", "--out", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert "marginclust fit: warning: ConvergenceWarning: Fuzzy c-means stopped" in err
    assert ".py:" not in err


def test_unexpected_errors_are_one_line(tmp_path, rng, capsys, monkeypatch):
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)
    monkeypatch.setattr(fit_cli, "read_csv", lambda *a, **k: 1 / 0)
    assert main(["fit", str(src), "--n-clusters", "2"]) == 1
    assert "ZeroDivisionError" in _one_line_error(capsys.readouterr().err)


# ------------------------------------------------------------ data directory
def test_bench_without_data_directory_fails_first(capsys, monkeypatch):
    monkeypatch.delenv("MARGINCLUST_DATA", raising=False)
    assert main(["bench", "--table", "slmc-table6", "--quick", "--no-progress"]) == 1
    line = _one_line_error(capsys.readouterr().err, "bench")
    assert "no data directory is configured" in line and "wine" in line
    assert "MARGINCLUST_DATA" in line and "--data-home" in line


def test_datasets_says_when_no_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MARGINCLUST_DATA", raising=False)
    assert main(["datasets"]) == 0
    assert "No data directory is configured" in capsys.readouterr().err
    assert main(["datasets", "--data-home", str(tmp_path / "nope")]) == 1
    assert "does not exist" in _one_line_error(capsys.readouterr().err, "datasets")


# ------------------------------------------------------------ names and help
def test_fit_and_demo_accept_the_same_method_names():
    from marginclust.cli._demo import _methods

    found, _ = _methods("fcm,SLMC,kernel-kmeans,itersvr")
    assert [name for name, _ in found] == ["FuzzyCMeans", "SLMC", "KernelKMeans", "IterSVR"]
    for alias, cls_name in fit_cli.METHOD_ALIASES.items():
        assert fit_cli.resolve_method(alias).__name__ == cls_name
        assert fit_cli.resolve_method(cls_name).__name__ == cls_name


def _help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return " ".join(sub.choices[command].format_help().split())


def test_datasets_help_does_not_promise_fit_takes_names():
    text = _help("datasets")
    assert "accepted by 'bench' and 'fit'" not in text and "'fit' reads a CSV file" in text


def test_fit_help_shows_defaults_and_two_examples():
    text = _help("fit")
    assert "(default: fcm)" in text and "(default: 0)" in text
    assert text.count("marginclust fit ") >= 2 and "examples:" in text


def test_list_methods_says_soft_hard_binary(capsys):
    assert main(["fit", "--list-methods"]) == 0
    rows = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert rows["fcm"].endswith(" soft") and rows["slmc"].endswith(" soft")
    assert rows["kernel-kmeans"].endswith(" hard")
    assert rows["itersvr"].endswith("hard, binary only")


def test_large_exact_kernel_fit_points_to_low_rank(tmp_path, rng, capsys, monkeypatch):
    monkeypatch.setattr(fit_cli, "EXACT_KERNEL_NOTE_ROWS", 30)  # keep the test small
    src = tmp_path / "in.csv"
    _blobs(src, rng, label=False)
    out = str(tmp_path / "o.csv")
    # An exact kernel asked for explicitly (the default "auto" switches by itself).
    assert main(["fit", str(src), "--method", "slmc", "--n-clusters", "2", "--out", out,
                 "--param", "n_components=None"]) == 0
    assert "--param n_components=300" in capsys.readouterr().err
    assert main(["fit", str(src), "--method", "slmc", "--n-clusters", "2", "--out", out,
                 "--param", "n_components=20"]) == 0
    assert "n_components=300" not in capsys.readouterr().err

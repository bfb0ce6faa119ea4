"""``marginclust fit`` on real files: IDs, label-like columns, scales, formats, stdin/stdout.

Every case ends in a result with a note or in one line naming the fix.
"""

from __future__ import annotations

import bz2
import io
import lzma
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from marginclust.cli import _fit as fit_cli
from marginclust.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _rows(n=20, seed=0):
    rng = np.random.RandomState(seed)
    return np.vstack([rng.normal(0, 0.3, (n, 2)), rng.normal(3, 0.3, (n, 2))])


def _text(X, header="x0,x1", extra=None, end=""):
    lines = [header]
    for i, x in enumerate(X):
        cells = [f"{v:.6f}" for v in x] + ([extra[i]] if extra is not None else [])
        lines.append(",".join(cells) + end)
    return "\n".join(lines) + "\n"


def _error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err
    assert lines[-1].startswith("marginclust fit: error: ")
    return lines[-1]


def _fit(tmp_path, name, content, *extra, mode="w"):
    src = tmp_path / name
    if mode == "w":
        src.write_text(content)
    else:
        src.write_bytes(content)
    out = tmp_path / "out.csv"
    code = main(["fit", str(src), "--method", "kernel-kmeans", "--n-clusters", "2",
                 "--out", str(out), *extra])
    return code, out


def test_id_columns_are_kept_out_of_the_fit_and_copied_to_the_output(tmp_path, capsys):
    X = _rows()
    lines = ["name,x0,x1,batch"] + [f"s{i:02d},{x[0]:.6f},{x[1]:.6f},b{i % 3}"
                                     for i, x in enumerate(X)]
    code, out = _fit(tmp_path, "ids.csv", "\n".join(lines) + "\n", "--id-column", "name",
                     "--id-column", "batch")
    assert code == 0
    rows = out.read_text().splitlines()
    assert rows[0] == "name,batch,cluster"
    assert rows[1].startswith("s00,b0,") and rows[40].startswith("s39,b0,")
    labels = np.array([int(r.split(",")[2]) for r in rows[1:]])
    assert len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[39]


def test_a_string_id_column_suggests_id_column_not_label_column(tmp_path, capsys):
    X = _rows()
    code, _ = _fit(tmp_path, "ids.csv", _text(X, "x0,x1,sample",
                                              [f"patient-{i}" for i in range(40)]))
    line = _error(capsys.readouterr().err)
    assert code == 1 and "--id-column sample" in line and "--label-column" not in line
    # following the old advice (--label-column on an identifier) is refused too
    code, _ = _fit(tmp_path, "ids.csv", _text(X, "x0,x1,sample",
                                              [f"patient-{i}" for i in range(40)]),
                   "--label-column", "sample")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "looks like an identifier" in line and "--id-column sample" in line


def test_an_unnamed_label_column_gets_a_note(tmp_path, capsys):
    X = _rows()
    code, _ = _fit(tmp_path, "lab.csv", _text(X, "x0,x1,target", ["0"] * 20 + ["1"] * 20))
    assert code == 0
    assert ("note: " in (err := capsys.readouterr().err)
            and "column 'target' looks like labels but is used as a feature; pass "
                "--label-column target" in err)


def test_features_far_apart_in_scale_are_standardised_by_default_with_a_note(tmp_path, capsys):
    X = _rows() * [1.0, 1000.0]
    code, out = _fit(tmp_path, "scale.csv", _text(X))
    auto = out.read_text()
    err = capsys.readouterr().err
    assert code == 0 and "the features' scales differ by" in err
    assert "each feature was standardised (--scale none keeps them" in err
    code, out = _fit(tmp_path, "scale.csv", _text(X), "--scale", "standard")
    assert code == 0 and "scales differ" not in capsys.readouterr().err
    assert out.read_text() == auto  # the same output: "auto" chose "standard"
    code, _ = _fit(tmp_path, "scale.csv", _text(X), "--standardize")
    assert code == 0 and "scales differ" not in capsys.readouterr().err
    code, _ = _fit(tmp_path, "scale.csv", _text(X), "--scale", "none")
    err = capsys.readouterr().err
    assert code == 0 and "--scale standard gives every feature unit variance" in err


def test_features_in_one_unit_are_left_as_they_are(tmp_path, capsys):
    X = _rows() * [1.0, 20.0]  # an aspect ratio, not a change of unit
    code, out = _fit(tmp_path, "shape.csv", _text(X))
    auto = out.read_text()
    assert code == 0 and "scales differ" not in capsys.readouterr().err
    code, out = _fit(tmp_path, "shape.csv", _text(X), "--scale", "none")
    assert out.read_text() == auto


def test_thousands_separators_are_named(tmp_path, capsys):
    lines = _text(_rows()).splitlines()
    lines[3] = '"1,065.0",' + lines[3].split(",")[1]  # a quoted grouped number
    code, _ = _fit(tmp_path, "k.csv", "\n".join(lines) + "\n")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "row 4, column 'x0' holds '1,065.0'" in line
    assert "thousands separator" in line and "1065.0" in line
    lines[3] = "1,065.0," + lines[3].split(",")[-1]  # unquoted: one cell too many
    code, _ = _fit(tmp_path, "k.csv", "\n".join(lines) + "\n")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "row 4 has 3 cells, the header 2" in line
    assert "thousands separator" in line


@pytest.mark.parametrize("header_too", [False, True])
def test_a_trailing_comma_on_every_line_is_ignored_with_a_note(tmp_path, capsys, header_too):
    X = _rows()
    text = _text(X, "x0,x1," if header_too else "x0,x1", end=",")
    code, out = _fit(tmp_path, "t.csv", text)
    assert code == 0
    assert "every line ends with ',' (an empty last column), which is ignored" in \
        capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 41


def test_comment_lines_before_the_header_are_skipped(tmp_path, capsys):
    text = "# exported by a lab instrument\n# units: mm\n" + _text(_rows())
    code, out = _fit(tmp_path, "c.csv", text)
    assert code == 0 and "skipped 2 comment lines starting with '#'" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 41


def test_duplicate_column_names_with_label_column(tmp_path, capsys):
    X = _rows()
    text = _text(X, "x0,label,label", [str(i % 2) for i in range(40)])
    text = "\n".join([text.splitlines()[0]] + [ln.rsplit(",", 1)[0] + f",{i % 2},{i % 2}"
                                               for i, ln in enumerate(text.splitlines()[1:])])
    code, _ = _fit(tmp_path, "d.csv", text + "\n", "--label-column", "label")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "'label' appears 2 times (columns 2, 3)" in line


@pytest.mark.parametrize("kind", ["bz2", "xz", "zip", "gz"])
def test_compressed_files_are_read_transparently(tmp_path, capsys, kind):
    import gzip

    text = _text(_rows()).encode()
    packed = {"bz2": bz2.compress, "xz": lzma.compress, "gz": gzip.compress}
    if kind == "zip":
        content = _zip({"data.csv": text})
    else:
        content = packed[kind](text)
    code, out = _fit(tmp_path, f"data.csv.{kind}", content, mode="b")
    assert code == 0 and len(out.read_text().splitlines()) == 41


def _zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return buf.getvalue()


def test_a_zip_of_several_files_and_a_mislabelled_bz2_are_named(tmp_path, capsys):
    code, _ = _fit(tmp_path, "two.zip", _zip({"a.csv": "x\n1\n", "b.csv": "x\n1\n"}), mode="b")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "zip archive of 2 files (a.csv, b.csv)" in line
    code, _ = _fit(tmp_path, "plain.csv.bz2", _text(_rows()))
    line = _error(capsys.readouterr().err)
    assert code == 1 and "ends in .bz2 but is not bzip2-compressed" in line


def test_an_excel_workbook_says_to_save_as_csv(tmp_path, capsys):
    workbook = _zip({"[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>"})
    code, _ = _fit(tmp_path, "data.xlsx", workbook, mode="b")
    line = _error(capsys.readouterr().err)
    assert code == 1 and "is an Excel workbook" in line and "CSV UTF-8" in line
    assert "iconv" not in line


def test_dash_reads_stdin_and_writes_stdout(tmp_path, capsys, monkeypatch):
    text = _text(_rows())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code = main(["fit", "-", "--method", "kernel-kmeans", "--n-clusters", "2", "--out", "-"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines()[0] == "cluster" and len(captured.out.splitlines()) == 41
    assert "KernelKMeans: k=2, 40 samples" in captured.err  # the summary is not in the data


def test_out_dev_null_is_accepted(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text(_text(_rows()))
    assert main(["fit", str(src), "--method", "kernel-kmeans", "--n-clusters", "2",
                 "--out", "/dev/null"]) == 0
    assert "KernelKMeans: k=2" in capsys.readouterr().out


def test_large_files_get_a_reading_and_a_writing_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fit_cli, "LARGE_IO_CELLS", 10)
    code, out = _fit(tmp_path, "in.csv", _text(_rows()))
    err = capsys.readouterr().err
    assert code == 0
    assert f"read 40 rows x 2 features from {tmp_path / 'in.csv'} in " in err
    assert f"wrote 40 rows to {out} in " in err


def test_text_columns_are_quoted_only_when_needed(tmp_path):
    X = _rows()
    names = [f'"a, {i}"' if i == 0 else f"n{i}" for i in range(40)]
    code, out = _fit(tmp_path, "q.csv", _text(X, "x0,x1,name", names), "--id-column", "name")
    assert code == 0
    import csv

    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[1][0] == "a, 0" and rows[2][0] == "n1"


def test_bench_without_a_table_lists_the_tables_and_runs_nothing(capsys):
    assert main(["bench"]) == 0
    captured = capsys.readouterr()
    assert "slmc-table3" in captured.out
    assert "no table named, so nothing was run" in captured.err and "--all" in captured.err


def test_make_demo_pins_blas_threads():
    makefile = (ROOT / "Makefile").read_text()
    demo = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert "$(THREADS) $(BIN)/marginclust demo" in demo
    assert "OPENBLAS_NUM_THREADS=1" in makefile.split("THREADS :=", 1)[1].splitlines()[0]

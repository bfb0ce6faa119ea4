"""The ``fit`` command's CSV reader gives what ``np.loadtxt`` gives, label column or not.

The bulk reader (one structured ``np.loadtxt`` pass) and the line-by-line reader it falls
back to must agree on every file both accept: features bitwise (the same C parser reads
every number), labels and IDs as the stripped strings.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from marginclust.cli import _csv
from marginclust.cli._csv import read_csv


def _table(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4, size=d)
    y = np.array(["setosa", "versicolor", "virginica"])[rng.integers(0, 3, n)]
    return X, y


def _write(path, header, rows, end="\n"):
    path.write_text(end.join([header, *rows]) + end)
    return str(path)


def _both(path, monkeypatch, **kw):
    """The reader's result, and the line-by-line reader's on the same file."""
    fast = read_csv(path, **kw)
    with monkeypatch.context() as m:
        m.setattr(_csv, "_fast_read", lambda *a, **k: None)
        slow = read_csv(path, **kw)
    return fast, slow


def _loadtxt(path, usecols, skiprows=1):
    return np.loadtxt(path, delimiter=",", usecols=usecols, skiprows=skiprows, ndmin=2)


@pytest.mark.parametrize("where", ["last", "first", "middle"])
def test_label_column_anywhere_gives_loadtxt_features_and_the_labels(tmp_path, monkeypatch,
                                                                    where):
    X, y = _table()
    names = ["a", "b", "c"]
    at = {"last": 3, "first": 0, "middle": 1}[where]
    header = ",".join(names[:at] + ["label"] + names[at:])
    rows = [",".join([*(f"{v:.17g}" for v in x[:at]), lab, *(f"{v:.17g}" for v in x[at:])])
            for x, lab in zip(X, y, strict=True)]
    path = _write(tmp_path / "t.csv", header, rows)
    fast, slow = _both(path, monkeypatch, label_column="label")
    expected = _loadtxt(path, [j for j in range(4) if j != at])
    for data in (fast, slow):
        np.testing.assert_array_equal(data.X, expected)
        assert data.X.flags.c_contiguous and data.X.dtype == np.float64
        np.testing.assert_array_equal(data.labels, y)
        assert data.feature_names == names


def test_no_label_column_equals_loadtxt_on_rounded_and_wide_numbers(tmp_path, monkeypatch):
    X, _ = _table(n=40, d=5, seed=1)
    rows = [",".join([f"{x[0]:.3f}", f"{x[1]:.17g}", f"{x[2]:e}", f"{x[3]:+.6g}",
                      str(int(x[4]))]) for x in X]
    path = _write(tmp_path / "n.csv", "p,q,r,s,t", rows)
    fast, slow = _both(path, monkeypatch)
    expected = _loadtxt(path, None)
    np.testing.assert_array_equal(fast.X, expected)
    np.testing.assert_array_equal(slow.X, expected)
    assert fast.labels is None and slow.labels is None


def test_crlf_blank_lines_spaces_trailing_delimiter_and_ids_agree(tmp_path, monkeypatch):
    X, y = _table(n=30, seed=2)
    rows = [f"r{i}, {x[0]:.6f},{x[1]:.6f} ,{x[2]:.6f}, {lab} ,"
            for i, (x, lab) in enumerate(zip(X, y, strict=True))]
    rows.insert(10, "")
    path = _write(tmp_path / "w.csv", "id,a,b,c,label", rows, end="\r\n")
    fast, slow = _both(path, monkeypatch, label_column="label", id_columns=["id"])
    expected = np.array([[float(f"{v:.6f}") for v in x] for x in X])
    for data in (fast, slow):
        np.testing.assert_array_equal(data.X, expected)
        np.testing.assert_array_equal(data.labels, y)
        np.testing.assert_array_equal(data.ids["id"], [f"r{i}" for i in range(30)])
        assert any("empty last column" in note for note in data.notes)


def test_a_long_label_late_in_a_big_file_is_not_cut(tmp_path, monkeypatch):
    # The bulk reader guesses string widths from the first rows; a longer label further
    # down must come back whole (the line-by-line reader takes over).
    n = 5000
    X, _ = _table(n=n, seed=3)
    y = np.array(["a"] * n, dtype=object)
    y[::2] = "b"
    y[-1] = "a-much-longer-class-name-than-any-before-it"
    rows = [f"{x[0]:.6f},{x[1]:.6f},{x[2]:.6f},{lab}" for x, lab in zip(X, y, strict=True)]
    path = _write(tmp_path / "l.csv", "a,b,c,label", rows)
    fast, slow = _both(path, monkeypatch, label_column="label")
    np.testing.assert_array_equal(fast.labels, y.astype(str))
    np.testing.assert_array_equal(slow.labels, y.astype(str))
    np.testing.assert_array_equal(fast.X, _loadtxt(path, [0, 1, 2]))


def test_quoted_cells_and_unicode_labels(tmp_path, monkeypatch):
    rows = ['1.5,"2.5","Ärger, groß"', '3.0,4.0,klein', '"5.25",6.0,"Ärger, groß"']
    path = _write(tmp_path / "q.csv", "a,b,label", rows)
    fast, slow = _both(path, monkeypatch, label_column="label")
    for data in (fast, slow):
        np.testing.assert_array_equal(data.X, [[1.5, 2.5], [3.0, 4.0], [5.25, 6.0]])
        np.testing.assert_array_equal(data.labels, ["Ärger, groß", "klein", "Ärger, groß"])


def test_stdin_and_gzip_read_as_the_plain_file(tmp_path, monkeypatch):
    import gzip

    X, y = _table(n=25, seed=4)
    rows = [f"{x[0]:.6f},{x[1]:.6f},{x[2]:.6f},{lab}" for x, lab in zip(X, y, strict=True)]
    path = _write(tmp_path / "p.csv", "a,b,c,label", rows)
    plain = read_csv(path, label_column="label")
    gz = tmp_path / "p.csv.gz"
    gz.write_bytes(gzip.compress((tmp_path / "p.csv").read_bytes()))
    packed = read_csv(str(gz), label_column="label")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "p.csv")
                                                                 .read_bytes())))
    piped = read_csv("-", label_column="label")
    for data in (packed, piped):
        np.testing.assert_array_equal(data.X, plain.X)
        np.testing.assert_array_equal(data.labels, plain.labels)


@pytest.mark.parametrize("bad, words", [
    ("1.0,2.0,3.0,x\n4.0,5.0,y\n", "row 3 has 3 cells"),
    ("1.0,2.0,3.0,x\n4.0,5.0,6.0,y,z\n", "row 3 has 5 cells"),
    ("1.0,2.0,3.0,x\n4.0,NA,6.0,y\n", "holds 'NA'"),
    ("1.0,2.0,3.0,x\n4.0,inf,6.0,y\n", "holds 'inf'"),
])
def test_a_bad_row_is_still_named_when_a_label_column_is_given(tmp_path, bad, words):
    path = tmp_path / "bad.csv"
    path.write_text("a,b,c,label\n" + bad)
    with pytest.raises(ValueError, match=words):
        read_csv(str(path), label_column="label")

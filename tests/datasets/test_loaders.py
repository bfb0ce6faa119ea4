"""Loaders: shared files against the manifest, subsets, aliases, errors, synthetic sets."""

from __future__ import annotations

import gzip
import json
import socket

import numpy as np
import pytest

from marginclust.datasets import (
    list_datasets,
    load_dataset,
    make_four_gaussians,
    make_pkm_310,
)


def _manifest(shared_data_dir):
    path = shared_data_dir / "manifest.json"
    if not path.is_file():
        pytest.skip("manifest.json not found")
    return json.loads(path.read_text())["datasets"]


def test_every_shared_file_matches_manifest(shared_data_dir):
    for entry in _manifest(shared_data_dir):
        name = entry["name"]
        X, y, meta = load_dataset(name, return_meta=True)
        n_expected = entry["n"] - entry["label_missing"]
        assert X.shape == (n_expected, entry["d"]), name
        assert X.dtype == np.float64 and np.all(np.isfinite(X)), name
        assert np.issubdtype(y.dtype, np.integer), name
        assert meta["n_classes"] == entry["n_classes"], name
        assert sorted(meta["class_names"]) == sorted(entry["class_counts"]), name
        counts = {c: int(np.sum(y == i)) for i, c in enumerate(meta["class_names"])}
        assert counts == entry["class_counts"], name
        assert set(np.unique(y)) == set(range(entry["n_classes"])), name
        assert sum(meta["imputed_cells"].values()) <= entry["missing_feature_cells"], name


def test_missing_cells_are_imputed_with_column_mean(tmp_path):
    text = "a,b,c,label\n1,2,x,p\n3,,y,q\n5,6,x,\n,4,y,q\n"
    (tmp_path / "toy.csv").write_text(text)
    X, y, meta = load_dataset("toy", data_home=tmp_path, return_meta=True)
    # row 3 (missing label) dropped; a: mean of (1, 3) = 2 fills row 4; b: mean of (2, 4) = 3
    np.testing.assert_allclose(X, [[1, 2, 0], [3, 3, 1], [2, 4, 1]])
    np.testing.assert_array_equal(y, [0, 1, 1])
    assert meta["n_unlabeled_dropped"] == 1
    assert meta["imputed_cells"] == {"a": 1, "b": 1}
    assert meta["encoded_columns"] == {"c": ["x", "y"]}
    assert "mean" in meta["preprocessing"] and "ordinal" in meta["preprocessing"]


def test_gzip_file_and_numeric_label_order(tmp_path):
    with gzip.open(tmp_path / "g.csv.gz", "wt") as fh:
        fh.write("f1,label\n0.5,10\n1.5,9\n2.5,10\n")
    X, y, meta = load_dataset("g", data_home=tmp_path, return_meta=True)
    assert meta["class_names"] == ["9", "10"]  # numeric, not lexicographic, order
    np.testing.assert_array_equal(y, [1, 0, 1])


def test_no_label_column(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="label"):
        load_dataset("bad", data_home=tmp_path)


def test_sklearn_sets_and_optdigits_alias():
    X, y = load_dataset("sk-iris")
    assert X.shape == (150, 4) and X.dtype == np.float64
    X, y = load_dataset("optdigits")
    assert X.shape == (1797, 64) and np.unique(y).size == 10
    X38, y38, meta = load_dataset("optdigits-3-8", return_meta=True)
    Xs, ys = load_dataset("optdigits:3,8")
    np.testing.assert_array_equal(X38, Xs)
    np.testing.assert_array_equal(y38, ys)
    assert meta["class_names"] == ["3", "8"]
    assert X38.shape[0] == np.sum(np.isin(y, [3, 8]))
    np.testing.assert_array_equal(X38, X[np.isin(y, [3, 8])])


def test_subsets_use_original_labels(shared_data_dir):
    X, y, meta = load_dataset("letter:B,A", return_meta=True)
    assert meta["class_names"] == ["A", "B"]
    assert set(np.unique(y)) == {0, 1}
    Xs, ys, ms = load_dataset("satimage:1,2", return_meta=True)
    Xall, yall, mall = load_dataset("satimage", return_meta=True)
    keep = np.isin(yall, [mall["class_names"].index("1"), mall["class_names"].index("2")])
    np.testing.assert_array_equal(Xs, Xall[keep])
    assert Xs.shape[0] == 1533 + 703
    Xu, yu = load_dataset("usps:1,2,3,4")
    assert np.unique(yu).size == 4
    with pytest.raises(ValueError, match="not in"):
        load_dataset("letter:A,AA")
    with pytest.raises(ValueError, match="repeats"):
        load_dataset("letter:A,A")


def test_loader_returns_fresh_copies(shared_data_dir):
    X1, _ = load_dataset("iris")
    X1[0, 0] = 1e9
    X2, _ = load_dataset("iris")
    assert X2[0, 0] != 1e9
    S1, t1 = load_dataset("sk-wine")
    S1[0, 0], t1[0] = 1e9, 99
    S2, t2 = load_dataset("sk-wine")
    assert S2[0, 0] != 1e9 and t2[0] != 99


def test_missing_set_error_names_directory_and_env(tmp_path, monkeypatch):
    (tmp_path / "iris.csv").write_text("a,label\n1,x\n2,y\n")
    with pytest.raises(FileNotFoundError) as info:
        load_dataset("irsi", data_home=tmp_path)
    msg = str(info.value)
    assert str(tmp_path) in msg and "MARGINCLUST_DATA" in msg and "iris" in msg
    monkeypatch.delenv("MARGINCLUST_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="MARGINCLUST_DATA"):
        load_dataset("iris")
    with pytest.raises(ValueError, match="non-empty"):
        load_dataset("")


def test_env_variable_is_used(tmp_path, monkeypatch):
    (tmp_path / "toy2.csv").write_text("a,label\n1,x\n2,y\n")
    monkeypatch.setenv("MARGINCLUST_DATA", str(tmp_path))
    X, y = load_dataset("toy2")
    assert X.shape == (2, 1)
    names = [d["name"] for d in list_datasets()]
    assert "toy2" in names and "sk-iris" in names and "pkm-310" in names


def test_offline_no_network(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a loader tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    (tmp_path / "t.csv").write_text("a,label\n1,x\n2,y\n")
    for name in ("sk-wine", "sk-digits", "sk-breast_cancer", "slmc-four-gaussians", "pkm-310"):
        X, y = load_dataset(name)
        assert X.shape[0] == y.shape[0] > 0
    X, y = load_dataset("t", data_home=tmp_path)
    assert X.tolist() == [[1.0], [2.0]] and y.tolist() == [0, 1]


# ------------------------------------------------------------- synthetic
def test_four_gaussians_seeded_and_shaped():
    X1, y1 = make_four_gaussians(random_state=3)
    X2, y2 = make_four_gaussians(random_state=3)
    np.testing.assert_array_equal(X1, X2)
    assert X1.shape == (400, 2) and np.bincount(y1).tolist() == [100] * 4
    assert not np.array_equal(X1, make_four_gaussians(random_state=4)[0])
    # Table 2 means and variances, checked on a large draw
    X, y = make_four_gaussians(n_per_cluster=20000, random_state=0)
    means = np.array([X[y == k].mean(axis=0) for k in range(4)])
    np.testing.assert_allclose(means, [[0, 0], [0, 1.5], [1.6, 0], [1, 1.5]], atol=0.02)
    var = np.array([X[y == k].var(axis=0).mean() for k in range(4)])
    np.testing.assert_allclose(var, [0.2, 0.1, 0.2, 0.1], rtol=0.05)
    Xd, yd = load_dataset("slmc-four-gaussians")
    np.testing.assert_array_equal(Xd, make_four_gaussians(random_state=0)[0])
    with pytest.raises(ValueError, match="n_per_cluster"):
        make_four_gaussians(0)


def test_pkm_310_seeded_and_shaped():
    X1, y1 = make_pkm_310(random_state=1)
    np.testing.assert_array_equal(X1, make_pkm_310(random_state=1)[0])
    assert X1.shape == (310, 2)
    assert np.bincount(y1).tolist() == [150, 150, 5, 5]
    X, y = load_dataset("pkm-310")
    np.testing.assert_array_equal(X, make_pkm_310(random_state=0)[0])

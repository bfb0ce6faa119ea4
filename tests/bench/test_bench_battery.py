"""benchmarks/bench_battery.py on a tiny made-up battery: report, cache, failures, UCI mode."""

from __future__ import annotations

import gzip

import numpy as np
import pytest


def _write_set(folder, name, X, refs):
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / f"{name}.data.gz", "wt") as f:
        np.savetxt(f, X)
    for j, ref in enumerate(refs):
        with gzip.open(folder / f"{name}.labels{j}.gz", "wt") as f:
            np.savetxt(f, ref, fmt="%d")


@pytest.fixture
def battery(tmp_path):
    rng = np.random.RandomState(0)
    root = tmp_path / "suite"
    X = np.vstack([rng.randn(30, 2), rng.randn(30, 2) + 8, rng.randn(30, 2) + [0, 8]])
    y = np.repeat([1, 2, 3], 30)
    noisy = y.copy()
    noisy[:3] = 0  # noise points are left out of the scores
    _write_set(root / "toy", "three", X, [y, noisy])
    _write_set(root / "toy", "two", X[:60], [y[:60]])
    _write_set(root / "toy", "big", rng.randn(120, 2), [np.repeat([1, 2], 60)])
    (root / "toy" / "broken.data.gz").write_bytes(gzip.compress(b"1 2\n3 4\n")[:-8])
    return root


def test_report_cache_and_failures(battery, tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("bench_battery")
    out = tmp_path / "report.md"
    args = ["--root", str(battery), "--methods", "MaxMarginClustering,KMeans,HDBSCAN,IterSVR",
            "--max-samples", "95", "--cache", str(tmp_path / "cache"), "--out", str(out)]
    assert bench.main(args) == 0
    text = out.read_text()
    assert "| MaxMarginClustering | 1.000 / 1.000 | 1.000 | 1.000 |" in text
    assert "toy/big" not in text  # 120 points > --max-samples
    assert "toy/broken: unreadable" in text  # a truncated file is reported, not fatal
    # IterSVR is binary-only: its K = 3 fit fails and scores 0 on that set
    assert "IterSVR on toy/three: K=3: ValueError" in text
    assert "| KMeans |" in text.split("## Win / tie / loss")[1]

    # a rerun reads every fit from the cache: no method is called again
    def refuse(*args, **kwargs):
        raise AssertionError("refitted instead of read from the cache")

    original = bench.all_methods

    def no_fits(code=None):
        return {k: bench.Method(m.name, m.group, refuse, m.identity)
                for k, m in original(code).items()}

    monkeypatch.setattr(bench, "all_methods", no_fits)
    assert bench.main(args) == 0
    assert out.read_text().split("## Mean NCA")[1] == text.split("## Mean NCA")[1]


def test_collapsed_fit_rule(load_benchmark):
    bench = load_benchmark("bench_battery")
    ref = np.repeat([1, 2], 100)
    assert bench._collapsed(np.zeros(200, int), ref, 2)  # fewer clusters than asked
    tiny = np.r_[np.zeros(199, int), 1]
    assert bench._collapsed(tiny, ref, 2)  # a cluster under 1% of n
    small_ref = np.r_[np.ones(199, int), 2]
    assert not bench._collapsed(tiny, small_ref, 2)  # ... unless the reference has one


def test_hdbscan_rule_gives_k_clusters_or_fails(load_benchmark):
    bench = load_benchmark("bench_battery")
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(40, 2) * 0.3, rng.randn(40, 2) * 0.3 + 6, [[3.0, 3.0]]])
    labels = bench._hdbscan(X, 2, 0)
    assert sorted(np.bincount(labels)) == [40, 41]  # the noise point joined its nearest
    with pytest.raises(bench.Failed):
        bench._hdbscan(X, 7, 0)


def test_uci_mode_reads_the_data_folder(tmp_path, monkeypatch, load_benchmark):
    bench = load_benchmark("bench_battery")
    rng = np.random.RandomState(1)
    X = np.vstack([rng.randn(20, 3), rng.randn(20, 3) + 6])
    rows = ["a,b,c,label"] + [f"{a},{b},{c},{'yes' if i < 20 else 'no'}"
                              for i, (a, b, c) in enumerate(X)]
    (tmp_path / "toy.csv").write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("MARGINCLUST_DATA", str(tmp_path))
    out = tmp_path / "uci.md"
    assert bench.main(["--uci", "--methods", "KMeans", "--cache", str(tmp_path / "c"),
                       "--out", str(out)]) == 0
    assert "| uci-shared/toy | **1.00** |" in out.read_text()


def test_side_by_side_reports_both_collections(battery, tmp_path, monkeypatch, load_benchmark):
    bench = load_benchmark("bench_battery")
    rng = np.random.RandomState(2)
    X = np.vstack([rng.randn(20, 3), rng.randn(20, 3) + 6])
    rows = ["a,b,c,label"] + [f"{a},{b},{c},{'yes' if i < 20 else 'no'}"
                              for i, (a, b, c) in enumerate(X)]
    data = tmp_path / "data"
    data.mkdir()
    (data / "toy.csv").write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("MARGINCLUST_DATA", str(data))
    out = tmp_path / "side.md"
    methods = "MaxMarginClustering,PKM,GaussianMixture,GaussianMixture(diag)"
    assert bench.main(["--side-by-side", "--root", str(battery), "--methods", methods,
                       "--max-samples", "95", "--cache", str(tmp_path / "c"),
                       "--out", str(out)]) == 0
    text = out.read_text()
    # PKM is the only library method beside MaxMarginClustering: the best by definition
    assert "Best single library method: **PKM**" in text
    # two readable battery sets (toy/big too large, toy/broken unreadable), one UCI-like set
    assert "| battery NCA (2) | UCI NCA (1) | both (3) |" in text
    # a method against itself ties everywhere
    assert "| 0/1/0 | 0/2/0 | " in text.split("| GaussianMixture |")[1].splitlines()[0]
    assert "| uci-shared/toy | " in text.split("## NCA per UCI-like set")[1]
    assert "toy/broken: unreadable" in text
    with pytest.raises(SystemExit):
        bench.main(["--side-by-side", "--uci", "--methods", methods])
    with pytest.raises(SystemExit):  # the report compares against GaussianMixture
        bench.main(["--side-by-side", "--methods", "MaxMarginClustering,KMeans"])

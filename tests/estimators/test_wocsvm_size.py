"""WOC-SVM and OC-SVM hard clustering in high dimension and after fit: the GMM start
scales with the features, and a fitted model keeps only what predict needs."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from marginclust import OCSVMHardClustering, WOCSVMClustering
from marginclust.starts import _one_class

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _two_blobs(n, d, seed=0, shift=3.0):
    rng = np.random.RandomState(seed)
    return np.r_[rng.normal(0, 1, (n // 2, d)), rng.normal(shift, 1, (n - n // 2, d))]


@pytest.mark.parametrize(("d", "expected"), [(4, "full"), (100, "full"), (101, "diag"),
                                             (10_000, "diag")])
def test_gmm_start_uses_diagonal_covariances_in_high_dimension(monkeypatch, d, expected):
    import sklearn.mixture

    seen = []
    real = sklearn.mixture.GaussianMixture

    def spy(*args, **kwargs):
        seen.append(kwargs.get("covariance_type"))
        return real(*args, **kwargs)

    monkeypatch.setattr(sklearn.mixture, "GaussianMixture", spy)
    Z = _two_blobs(40, d) / 10.0
    W = _one_class.initial_weights("gmm", Z, 2, np.random.RandomState(0))
    assert seen == [expected]
    np.testing.assert_allclose(W.sum(axis=1), 1.0)


def test_high_dimensional_fit_runs_within_a_small_memory_limit():
    """100 rows x 10,000 features: full covariances needed 6.5 GB; now 2 GiB of address
    space is plenty (the fit runs in a subprocess under RLIMIT_AS)."""
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
        sys.path.insert(0, {SRC!r})
        import numpy as np
        from marginclust import WOCSVMClustering
        rng = np.random.RandomState(0)
        X = np.r_[rng.normal(0, 1, (50, 10_000)), rng.normal(3, 1, (50, 10_000))]
        est = WOCSVMClustering(2, random_state=0).fit(X)
        print(sorted(np.bincount(est.labels_).tolist()))
    """)
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[50, 50]"


@pytest.mark.parametrize("cls", [WOCSVMClustering, OCSVMHardClustering])
def test_fitted_model_pickles_without_the_training_kernel(cls):
    X = _two_blobs(600, 2)
    est = cls(2, random_state=0).fit(X)
    size = len(pickle.dumps(est))
    assert size < 600 * 600 * 8 / 4  # the 600 x 600 kernel alone is 2.9 MB
    kept = est._data
    assert kept.K is None and kept.features is None and kept.X.shape[0] == 0
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    np.testing.assert_array_equal(again.predict(X), est.labels_)


def test_low_rank_model_keeps_its_feature_map_only():
    X = _two_blobs(400, 3)
    est = WOCSVMClustering(2, n_components=50, random_state=0).fit(X)
    assert est._data.features is None and est._data.feature_map is not None
    np.testing.assert_array_equal(est.predict(X), est.labels_)

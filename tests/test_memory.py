"""Memory checked before it is spent: a clear refusal under a memory limit, never a kill.

Each fit runs in a child process whose address space is limited
(``resource.setrlimit(RLIMIT_AS)``) to what it has mapped plus a margin; the data
are small, the step's estimated peak is far above the margin, so the fit must
refuse with :class:`~marginclust.exceptions.MemoryLimitError` (one line: the
estimate and the alternative) before allocating, and a small fit must still run
under the same limit. ``max_memory`` (the library-wide setting) is checked the same
way in this process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import marginclust
from marginclust import config_context
from marginclust.exceptions import MemoryLimitError

resource = pytest.importorskip("resource")

MARGIN = 800 * 2**20  # address space the child may still map

_CHILD = textwrap.dedent(
    """
    import json, os, resource, sys, warnings
    import numpy as np
    import marginclust
    from marginclust.exceptions import MemoryLimitError

    warnings.simplefilter("ignore")
    name, params, shape, margin, small = json.loads(sys.argv[1])
    rng = np.random.RandomState(0)
    X = rng.randn(*shape)
    X[: shape[0] // 2] += 3.0
    est = getattr(marginclust, name)(**params)
    # the limit: what is mapped now (libraries, data) plus the margin
    used = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (used + margin, used + margin))
    out = {}
    try:
        est.fit(X)
        out["fitted"] = True
    except MemoryLimitError as exc:
        out["refused"] = str(exc)
    if small:
        getattr(marginclust, name)(**params).fit(X[: small])
        out["small_fitted"] = True
    print(json.dumps(out))
    """
)

# (estimator, parameters, shape of X, rows of the small fit that must run, words of
# the alternative the message names)
CASES = [
    ("SLMC", {"n_components": None, "max_iter": 2}, (12000, 4), 300, "n_components"),
    ("IterativeLSSVM", {"n_components": None, "max_iter": 2}, (12000, 4), 300, "n_components"),
    ("SLMC", {"n_components": 12000, "max_iter": 2}, (20000, 4), 0, "fewer n_components"),
    ("WOCSVMClustering", {"n_components": None, "max_iter": 2, "init": "k-means"},
     (12000, 4), 300, "n_components=300"),
    ("OCSVMHardClustering", {"n_components": None, "max_iter": 2}, (12000, 4), 300,
     "n_components=300"),
    # (the Gaussian-mixture start takes diagonal covariances above 100 features: on
    # 60 x 6000 data it needs a few MiB and fits, so it has no case here)
    ("EMMC", {"n_hidden": 8000, "max_iter": 2}, (6000, 4), 300, "n_hidden <= n_samples"),
    ("EMMC", {"n_hidden": 12000, "max_iter": 2}, (20000, 4), 0, "fewer n_hidden"),
    ("FuzzyCMeans", {"n_clusters": 1000, "max_iter": 2}, (200000, 2), 3000, "subsample"),
    ("KernelKMeans", {"n_clusters": 1000, "max_iter": 2}, (200000, 2), 0, "subsample"),
    ("PKM", {"n_clusters": 1000, "solver": "msagp", "max_iter": 2}, (200000, 2), 0,
     "subsample"),
]


def _run_child(name, params, shape, small):
    arg = json.dumps([name, params, list(shape), MARGIN, small])
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", _CHILD, arg], capture_output=True, text=True,
                          timeout=600, env=env)
    return proc


@pytest.mark.parametrize(("name", "params", "shape", "small", "advice"), CASES,
                         ids=[f"{c[0]}-{'-'.join(map(str, c[2]))}" for c in CASES])
def test_refused_with_the_estimate_under_an_address_space_limit(name, params, shape, small,
                                                                advice):
    proc = _run_child(name, params, shape, small)
    # a kill (signal) or an uncaught MemoryError would leave no JSON line and a code != 0
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "refused" in out, f"{name} fitted under a {MARGIN >> 20} MiB margin: {out}"
    message = out["refused"]
    assert "\n" not in message and "needs about" in message and "available" in message
    assert advice in message
    if small:
        assert out.get("small_fitted"), "a small fit must still run under the same limit"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_max_memory_setting_refuses_and_is_scoped():
    X = np.random.RandomState(0).randn(400, 3)
    with config_context(max_memory="1MB"):
        assert marginclust.get_config()["max_memory"] == 10**6
        with pytest.raises(MemoryLimitError, match="allowed by max_memory.*n_components"):
            marginclust.SLMC(n_components=None).fit(X)
        with pytest.raises(MemoryError):  # also a MemoryError (and a ValueError)
            marginclust.EMMC(n_hidden=500).fit(X)
    assert marginclust.get_config()["max_memory"] is None
    marginclust.SLMC(n_components=None, max_iter=2).fit(X)  # the budget is back


@pytest.mark.parametrize("value", [0, -1, "lots", "3 parsecs", True])
def test_max_memory_bad_values(value):
    with pytest.raises(ValueError, match="max_memory"):
        marginclust.set_config(max_memory=value)
    assert marginclust.get_config()["max_memory"] is None

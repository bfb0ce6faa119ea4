"""Fixtures of the dask tests: skip without dask; one module-scoped LocalCluster."""

from __future__ import annotations

import pytest

_WHY = "the dask extra is not installed (pip install marginclust[dask])"
pytest.importorskip("dask", reason=_WHY)
pytest.importorskip("distributed", reason=_WHY)


@pytest.fixture(scope="module")
def local_cluster_client():
    """A ``distributed.Client`` on a 2-process LocalCluster on loopback (no dashboard)."""
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit="1GiB",
    ) as cluster, Client(cluster) as client:
        yield client


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Bitwise comparisons need one BLAS thread in this process.

    A multi-threaded OpenBLAS may split a float32 product differently from one call
    to the next under load, which changes the last bits (seen outside ``make test``,
    which already sets one thread).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield

"""The documentation site builds from the repository without a warning.

One Sphinx build (numpydoc API pages from each module's ``__all__`` and the
sphinx-gallery examples, which run on small data): about 15 s on a quiet
machine. It runs in ``make test``; skipped where Sphinx is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT / "src"),
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-E", "-q",
         str(ROOT / "docs"), str(out)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    return proc, out


@pytest.mark.timeout(600)
def test_docs_build_without_warnings(built):
    proc, _ = built
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[-3000:]


def test_every_public_estimator_has_an_api_page(built):
    import marginclust

    _, out = built
    for name in marginclust.__all__:
        if name[0].isupper():
            assert (out / "generated" / f"marginclust.{name}.html").is_file(), name


def test_gallery_draws_every_example(built):
    _, out = built
    images = {p.name for p in (out / "_images").glob("sphx_glr_plot_*_001.png")}
    assert images == {"sphx_glr_plot_memberships_001.png", "sphx_glr_plot_convergence_001.png",
                      "sphx_glr_plot_paper_table_001.png", "sphx_glr_plot_pairs_001.png",
                      "sphx_glr_plot_max_margin_001.png"}


def test_make_docs_target_exists():
    makefile = (ROOT / "Makefile").read_text()
    assert "\ndocs:" in makefile and "sphinx" in makefile

"""The wheel installs the library alone and works without the repository.

One test builds the wheel from a copy of this checkout's ``src``, ``pyproject.toml``
and ``README.md`` (so no stale ``build/`` folder can leak into it; ``pip wheel
--no-build-isolation``: the ``test`` extra brings setuptools, nothing is downloaded),
installs it into a fresh virtual environment that borrows this environment's
third-party packages through a ``.pth`` line (not this checkout, which is installed
in development mode), and runs a smoke script there from an empty folder: every
public estimator fits and predicts, the harness runs a table defined by the script,
and the command line's ``--help`` and ``fit`` work. The wheel must hold no per-paper
protocol and no published number: those live in ``benchmarks/papers``. About 15 s.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SMOKE = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np

    import marginclust
    from marginclust._registry import ESTIMATORS

    # the installed copy, not the checkout
    assert Path(marginclust.__file__).resolve().is_relative_to(Path(sys.prefix).resolve())

    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(-2.0, 0.5, (30, 2)), rng.normal(2.0, 0.5, (30, 2))])
    for spec in ESTIMATORS:
        cls = getattr(marginclust, spec.name)
        if not spec.clusterer:
            Z = cls(random_state=0, **spec.test_params).fit(X).transform(X)
            assert Z.shape[0] == X.shape[0], spec.name
            continue
        params = {"n_clusters": 2, **spec.test_params}
        est = cls(random_state=0, **params).fit(X)
        labels = est.predict(X)
        assert labels.shape == (60,) and set(np.unique(labels)) <= {0, 1}, spec.name
        print("fitted", spec.name)

    # the harness without the repository: no paper table is installed, a user's runs
    from marginclust import FuzzyCMeans
    from marginclust.bench import (
        TABLES, Dataset, Method, Table, format_report, register_dataset, register_method,
        register_table, run_table,
    )

    assert not TABLES, sorted(TABLES)
    register_dataset(Dataset("two-blobs", lambda data_home: (X, np.repeat([0, 1], 30))))
    register_method(Method("my-fcm", FuzzyCMeans, grid={"m": [1.5, 2.0]}))
    table = register_table(Table("my-table", "FCM", "smoke test", ["two-blobs"], ["my-fcm"],
                                 ["ca_majority"], n_runs=2))
    report = format_report(run_table(table, progress=False), table)
    assert "my-fcm" in report and "failed: 0" in report, report
    print("harness ok")
    """
)


def _venv_python(env_dir: Path) -> Path:
    return env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


@pytest.mark.timeout(300)
def test_wheel_installs_the_library_without_the_research(tmp_path):
    pytest.importorskip("setuptools", minversion="77")
    source = tmp_path / "source"
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--wheel-dir", str(wheels)],
        capture_output=True, text=True, cwd=tmp_path, timeout=240,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = wheels.glob("marginclust-*.whl")

    names = zipfile.ZipFile(wheel).namelist()
    assert "marginclust/__init__.py" in names and "marginclust/bench/_runner.py" in names
    research = [n for n in names if n.endswith(".csv") or "/protocols/" in n
                or n.startswith(("papers/", "benchmarks/"))]
    assert not research, f"the wheel ships research files: {research}"

    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = _venv_python(env_dir)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    # this environment's third-party packages; a path line adds the folder only, so the
    # checkout's development install (a .pth file in that folder) stays out
    borrowed = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(site) / "borrowed.pth").write_text("\n".join(borrowed) + "\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--quiet", str(wheel)],
        capture_output=True, text=True, timeout=240,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": str(python.parent), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MPLBACKEND": "Agg", "SYSTEMROOT": "", "HOME": str(tmp_path)}
    smoke = subprocess.run([str(python), "-c", SMOKE], capture_output=True, text=True,
                           cwd=work, env=env, timeout=240)
    assert smoke.returncode == 0, smoke.stdout[-2000:] + smoke.stderr[-3000:]
    assert "harness ok" in smoke.stdout

    command = python.parent / "marginclust"
    helped = subprocess.run([str(command), "--help"], capture_output=True, text=True,
                            cwd=work, env=env, timeout=60)
    assert helped.returncode == 0 and "fit" in helped.stdout, helped.stderr
    data = work / "points.csv"
    rows = ["x,y,label"] + [f"{-2 + 0.1 * i},{0.05 * i},0" for i in range(10)]
    rows += [f"{2 + 0.1 * i},{0.05 * i},1" for i in range(10)]
    data.write_text("\n".join(rows) + "\n")
    fitted = subprocess.run(
        [str(command), "fit", str(data), "--method", "fcm", "--label-column", "label",
         "--out", str(work / "labels.csv")],
        capture_output=True, text=True, cwd=work, env=env, timeout=120,
    )
    assert fitted.returncode == 0, fitted.stderr
    assert len((work / "labels.csv").read_text().splitlines()) == 21
    # the papers' tables are not installed: bench says where they are
    listed = subprocess.run([str(command), "bench", "--list"], capture_output=True, text=True,
                            cwd=work, env=env, timeout=60)
    assert listed.returncode == 1 and "benchmarks/papers" in listed.stderr, listed.stderr

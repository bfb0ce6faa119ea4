"""The README's Python examples run as written."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path, monkeypatch):
    code = BLOCKS[index]
    if "run_table(" in code:
        code = code.replace('out_dir="bench-results"', f"out_dir={str(tmp_path)!r}")
        papers = str(README.parent / "benchmarks" / "papers")
        code = code.replace('load_benchmark("benchmarks/papers")', f"load_benchmark({papers!r})")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, f"README block {index}", "exec"), {})


TEXT = README.read_text(encoding="utf-8")
BASH = re.findall(r"```bash\n(.*?)```", TEXT, re.S)


def _commands(prefix: str) -> list[str]:
    lines = []
    for block in BASH:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith(prefix):
                lines.append(line)
    return lines


def test_install_section_names_python_version_and_extras():
    import tomllib

    project = tomllib.loads((README.parent / "pyproject.toml").read_text())["project"]
    install = TEXT.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert project["requires-python"].lstrip(">=") in install
    for extra in project["optional-dependencies"]:
        if extra != "peers":  # documented in benchmarks/
            assert f"`{extra}`" in install, extra


def test_make_targets_in_readme_exist():
    makefile = (README.parent / "Makefile").read_text()
    targets = {ln.split(":")[0] for ln in makefile.splitlines() if re.match(r"^[a-z]+:", ln)}
    used = {line.split()[1] for line in _commands("make ")}
    assert {"demo", "test"} <= used
    assert used <= targets


def test_readme_command_lines_parse():
    import shlex

    from marginclust.cli import build_parser

    lines = _commands("marginclust ")
    assert len(lines) >= 8
    parser = build_parser()
    for line in lines:
        parser.parse_args(shlex.split(line)[1:])  # SystemExit on an unknown option


def test_register_your_own_tables_example_prints_results_without_a_data_directory(
        tmp_path, monkeypatch, capsys):
    # the example names scikit-learn's bundled sets, so it needs no MARGINCLUST_DATA
    from marginclust.bench import _registry

    (code,) = [b for b in BLOCKS if "register_table(" in b]
    # the block may have run in this process already: register its names afresh
    for registry, name in ((_registry.METHODS, "my-fcm"), (_registry.METHODS, "my-kmeans"),
                           (_registry.TABLES, "my-table")):
        monkeypatch.delitem(registry, name, raising=False)
    monkeypatch.delenv("MARGINCLUST_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "README register example", "exec"), {})
    out = capsys.readouterr().out
    assert "no data" not in out and "failed: 0" in out
    assert "| sk-iris | my-fcm |" in out and "| sk-wine | my-fcm |" in out
    assert "seed: None" not in out

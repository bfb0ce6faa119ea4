"""Imports follow the package's layers (see the ``marginclust`` package docstring).

Every module's imports are read from its source (the module level, functions,
``TYPE_CHECKING`` blocks: every ``import`` statement), so an import hidden in a
function to dodge a circle counts too. None may run up a layer: a module imports
only from its own layer or below. There is no list of exceptions.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import marginclust
from marginclust._registry import ESTIMATORS

PACKAGE = Path(marginclust.__file__).resolve().parent

# Lowest first; modules of one layer may import each other. The package's face
# (``marginclust/__init__.py``: lazy access to the estimators, ``__version__``) sits
# with the estimators.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("utils", "exceptions", "metrics", "datasets", "_version"),
    ("objectives",),
    ("solvers",),
    ("feature_maps",),
    ("starts",),
    ("estimators", "base", "_registry", ""),
    ("dask", "model_selection", "plotting"),
    ("bench",),
    ("cli", "__main__"),
)
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    """``marginclust.a.b`` names a module or package of the source tree."""
    rel = Path(*name.split(".")[1:]) if "." in name else Path()
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _imports(path: Path, name: str | None = None) -> list[tuple[str, int]]:
    """``(imported marginclust module, line)`` for every import statement of a file.

    ``name`` is the module's dotted name (by default, from its place in the package).
    """
    name = _module_name(path) if name is None else name
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[: len(package) - (node.level - 1)]
                base = ".".join(stem + ([node.module] if node.module else []))
            # ``from pkg import sub`` imports the submodule when there is one
            found += [(f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base,
                       node.lineno) for alias in node.names]
    return [(target, line) for target, line in found
            if target == "marginclust" or target.startswith("marginclust.")]


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_part_of_the_package_has_a_layer():
    parts = {_layer(_module_name(p)) for p in SOURCES}
    assert parts <= set(RANK), f"parts without a layer: {sorted(parts - set(RANK))}"


def test_no_import_runs_up_a_layer():
    upward = []
    for path in SOURCES:
        source = _module_name(path)
        for target, line in _imports(path):
            if RANK[_layer(target)] > RANK[_layer(source)]:
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line} {source} -> {target}")
    assert not upward, "imports that run up a layer:\n" + "\n".join(upward)


def test_the_parser_sees_function_level_and_relative_imports(tmp_path):
    # a deliberately upward module, read the way the package's files are
    path = tmp_path / "_layer_probe.py"
    code = "def f():\n    from ..estimators import _fcm\n    from marginclust import bench\n"
    path.write_text(code, encoding="utf-8")
    found = _imports(path, "marginclust.objectives._layer_probe")
    assert found == [("marginclust.estimators._fcm", 2), ("marginclust.bench", 3)]


def _face_imports(path: Path, name: str | None = None) -> list[int]:
    """Lines of the import statements of a file that import the package's face.

    ``import marginclust`` and ``from marginclust import name`` (``name`` not a
    submodule), also relative (``from .. import name`` at the package's top), at
    the module level or in a function. ``import marginclust.metrics`` and
    ``from marginclust import metrics`` name a module and are not counted.
    """
    name = _module_name(path) if name is None else name
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            lines += [node.lineno for alias in node.names if alias.name == "marginclust"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[: len(package) - (node.level - 1)]
                base = ".".join(stem + ([node.module] if node.module else []))
            if base == "marginclust" and any(
                    not _is_module(f"{base}.{alias.name}") for alias in node.names):
                lines.append(node.lineno)
    return lines


def test_no_module_imports_the_package_face():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}"
             for path in SOURCES for line in _face_imports(path)]
    assert not found, "imports of the package face:\n" + "\n".join(found)


def test_the_face_check_sees_function_level_and_relative_imports(tmp_path):
    path = tmp_path / "_face_probe.py"
    code = ("import marginclust.metrics\n"
            "from marginclust import metrics\n"
            "def f():\n"
            "    import marginclust\n"
            "    from marginclust import SLMC\n"
            "    from .. import __version__\n")
    path.write_text(code, encoding="utf-8")
    assert _face_imports(path, "marginclust.bench._face_probe") == [4, 5, 6]


# The modules that define a public estimator. The estimators' shared bases
# (``_linear_mmc``, ``_kernel_model``, ``_one_class``, ``_balance``) are not among them.
ESTIMATOR_MODULES = frozenset(spec.module for spec in ESTIMATORS
                              if spec.module.startswith("marginclust.estimators."))


def _estimator_imports(path: Path, name: str | None = None) -> list[str]:
    """The estimator modules a file imports (``"line module"``)."""
    return [f"{line} {target}" for target, line in _imports(path, name)
            if target in ESTIMATOR_MODULES]


def test_no_estimators_module_imports_an_estimator_module():
    # the estimators' __init__ alone imports several, to register them with the starts
    found = [f"{path.relative_to(PACKAGE.parent)}:{hit}"
             for path in SOURCES
             if _module_name(path).startswith("marginclust.estimators.")
             for hit in _estimator_imports(path)]
    assert not found, "estimators modules importing estimator modules:\n" + "\n".join(found)


def test_the_estimator_check_sees_function_level_and_relative_imports(tmp_path):
    path = tmp_path / "_estimator_probe.py"
    code = ("from ..base import BaseClusterer\n"
            "from ._kernel_model import KernelModelMixin\n"
            "def f():\n"
            "    from ._fcm import FuzzyCMeans\n"
            "    from marginclust.estimators import _slmc\n")
    path.write_text(code, encoding="utf-8")
    assert _estimator_imports(path, "marginclust.estimators._estimator_probe") == [
        "4 marginclust.estimators._fcm", "5 marginclust.estimators._slmc"]


def test_only_the_bench_command_imports_the_harness():
    cli = [p for p in SOURCES if _layer(_module_name(p)) == "cli"]
    users = sorted(_module_name(p) for p in cli
                   if any(_layer(t) == "bench" for t, _ in _imports(p)))
    assert users == ["marginclust.cli._bench"]


def test_fit_command_runs_without_the_harness(tmp_path):
    data = tmp_path / "points.csv"
    data.write_text("a,b\n" + "\n".join(f"{i % 2 * 5 + 0.1 * i},{i % 3}" for i in range(20)))
    code = (
        "import sys\n"
        "from marginclust.cli import main\n"
        f"assert main(['fit', {str(data)!r}, '--n-clusters', '2', '--out', "
        f"{str(tmp_path / 'out.csv')!r}]) == 0\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('marginclust.bench'))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_package_docstring_states_the_order():
    doc = marginclust.__doc__ or ""
    places = [doc.find(f"``{parts[0]}``") for parts in LAYERS[:-1]] + [doc.find("``cli``")]
    assert -1 not in places and places == sorted(places), places

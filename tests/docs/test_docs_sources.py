"""The documentation's sources keep what the site promises, checked without building it.

``make docs`` builds the site (Sphinx, numpydoc, sphinx-gallery; warnings are errors) in
a few minutes, too slow for ``make test``; these checks read the configuration, the
autosummary template and the page sources instead: class pages list inherited methods,
the API reference covers every public module (``marginclust.dask`` included), and the
user guide, changelog, citation page and gallery exist and are linked.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import marginclust

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _conf_value(name):
    """A literal assigned at the top level of docs/conf.py (the file is not executed:
    running it writes docs/api.rst)."""
    tree = ast.parse((DOCS / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"docs/conf.py assigns no literal {name}")


def _toctree_entries(page):
    entries, inside = [], False
    for line in (DOCS / page).read_text().splitlines():
        if line.startswith(".. toctree::"):
            inside = True
        elif inside and line and not line.startswith(" "):
            inside = False
        elif inside and line.strip() and not line.strip().startswith(":"):
            entries.append(line.strip())
    return entries


def test_class_pages_list_inherited_methods():
    template = (DOCS / "_templates" / "autosummary" / "class.rst").read_text()
    directive = template[template.index(".. autoclass::"):]
    options = re.findall(r"^\s+(:[\w-]+:)", directive, flags=re.M)
    assert ":members:" in options and ":inherited-members:" in options
    assert ":no-inherited-members:" not in template
    assert _conf_value("autodoc_default_options").get("inherited-members") is True


def test_only_generated_request_methods_are_skipped():
    """The member filter hides scikit-learn's set_*_request only, never predict & co."""
    tree = ast.parse((DOCS / "conf.py").read_text())
    pattern = next(
        node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign) and node.targets[0].id == "_SKIPPED_MEMBERS"
    )
    skipped = re.compile(pattern)
    for name in ("fit", "predict", "predict_proba", "fit_predict", "transform", "score",
                 "get_params", "set_params", "decision_function"):
        assert not skipped.match(name)
    assert skipped.match("set_fit_request")


def _public_modules():
    """Every importable public module of the package that declares ``__all__``."""
    names = ["marginclust"]
    for info in pkgutil.iter_modules(marginclust.__path__, "marginclust."):
        last = info.name.rsplit(".", 1)[-1]
        if last.startswith("_") or last in ("cli", "base", "objectives", "solvers"):
            continue  # private, the command line (docs/cli.rst), developer layers
        names.append(info.name)
    return names


@pytest.mark.parametrize("modname", _public_modules())
def test_api_reference_covers_public_module(modname):
    listed = {mod for mod, _, _ in _conf_value("API_MODULES")}
    if modname == "marginclust.dask":
        pytest.importorskip("dask")
    module = importlib.import_module(modname)
    if getattr(module, "__all__", None):
        assert modname in listed, f"{modname} is missing from API_MODULES in docs/conf.py"


def test_api_reference_has_the_dask_page():
    assert "marginclust.dask" in {mod for mod, _, _ in _conf_value("API_MODULES")}


def test_site_pages_exist_and_are_linked():
    entries = _toctree_entries("index.rst")
    for page in ("install", "user_guide/index", "auto_examples/index", "api", "cli",
                 "changelog", "citation"):
        assert page in entries, page
        if not page.startswith("auto_examples") and page != "api":
            assert (DOCS / f"{page}.rst").is_file(), page
    for page in _toctree_entries("user_guide/index.rst"):
        assert (DOCS / "user_guide" / f"{page}.rst").is_file(), page


def test_user_guide_covers_the_topics():
    text = "\n".join(p.read_text() for p in (DOCS / "user_guide").glob("*.rst"))
    for needle in ("MaxMarginClustering", "StabilitySearch", "DaskClusterer", "must_link",
                   "cannot_link", "marginclust bench", "memory=", "n_clusters=\"auto\""):
        assert needle in text, needle
    # claims cite the result files they come from, and those files exist
    cited = set(re.findall(r"benchmarks/results/[\w.-]+\.md", text))
    assert cited
    for path in cited:
        assert (ROOT / path).is_file(), path


def test_gallery_has_the_examples():
    examples = sorted(p.name for p in (DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= 8, examples
    assert "plot_compare_methods.py" in examples
    for name in examples:
        head = (DOCS / "examples" / name).read_text().lstrip()
        assert head.startswith('"""'), f"{name}: sphinx-gallery needs a docstring title"


def test_docs_build_treats_warnings_as_errors_and_renders_maths_offline():
    makefile = (ROOT / "Makefile").read_text()
    docs_rule = makefile[makefile.index("\ndocs:"):].split("\n\n")[0]
    assert "sphinx" in docs_rule and " -W " in docs_rule
    extensions = _conf_value("extensions")
    assert "sphinx.ext.mathjax" in extensions and "sphinx-mathjax-offline" in extensions
    assert "sphinx-mathjax-offline" in (ROOT / "pyproject.toml").read_text()

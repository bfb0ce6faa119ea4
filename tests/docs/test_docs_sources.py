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
                 "architecture", "changelog", "citation"):
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


def _conf_functions(*names):
    """Functions and the regexes they use from docs/conf.py, without running the file."""
    tree = ast.parse((DOCS / "conf.py").read_text())
    keep = [node for node in tree.body
            if (isinstance(node, ast.FunctionDef) and node.name in names)
            or (isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) and t.id.startswith("_") and t.id.isupper()
                for t in node.targets))]
    namespace = {"re": re}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "docs/conf.py", "exec"), namespace)
    return namespace


def test_bare_attribute_names_become_literal_but_literals_stay_as_written():
    conf = _conf_functions("_mark_outside_literals", "_literal_attributes")
    lines = [
        "separation_ : float",
        "    ``(score_ - null_score_) / (1 - null_score_)``: the share of that",
        "    boundary; see n_iter_ and ``labels_``.",
        "    The same as a width, ``1 / sqrt(2 gamma_)``.",
        "    the number of clusters found (``1 + ",
        "    n_clusters_found_ - 1``), and n_iter_.",
        "",
        "mean_ : ndarray of shape (n_features_in_,)",
    ]
    conf["_literal_attributes"](None, "class", "x", None, None, lines)
    assert lines == [
        "separation_ : float",
        "    ``(score_ - null_score_) / (1 - null_score_)``: the share of that",
        "    boundary; see ``n_iter_`` and ``labels_``.",
        "    The same as a width, ``1 / sqrt(2 gamma_)``.",
        "    the number of clusters found (``1 + ",
        "    n_clusters_found_ - 1``), and ``n_iter_``.",
        "",
        "mean_ : ndarray of shape (``n_features_in_``,)",
    ]


def _code_blocks(page):
    """The dedented lines of every code block of a page."""
    text = (DOCS / page).read_text().splitlines()
    blocks, i = [], 0
    while i < len(text):
        if text[i].strip().startswith(".. code-block::"):
            indent = len(text[i]) - len(text[i].lstrip())
            i += 1
            block = []
            while i < len(text) and (not text[i].strip()
                                     or len(text[i]) - len(text[i].lstrip()) > indent):
                block.append(text[i])
                i += 1
            lines = [ln for ln in block if ln.strip()]
            cut = min(len(ln) - len(ln.lstrip()) for ln in lines)
            blocks.append([ln[cut:] for ln in lines])
        else:
            i += 1
    return blocks


@pytest.mark.parametrize("page", ["cli.rst", "install.rst", "architecture.rst"])
def test_code_lines_fit_the_text_column(page):
    # a code block in the text column (in the command-line page's definition list too)
    # shows about 76 monospace characters before its edge
    blocks = _code_blocks(page)
    assert blocks
    for block in blocks:
        for line in block:
            assert len(line) <= 76, line


def test_architecture_page_lists_the_layers_in_their_import_order():
    from tests.test_layers import LAYERS

    # the first cell of each row of the page's layer table names its folder
    text = (DOCS / "architecture.rst").read_text()
    rows = re.findall(r"^   \* - ``(\w+)``", text, flags=re.M)
    for parts in LAYERS:
        assert parts[0] in rows, f"the layer {parts[0]!r} has no row"
    order = [rows.index(parts[0]) for parts in LAYERS]
    assert order == sorted(order), rows


def _install_section(text):
    return text.split("## Install", 1)[1].split("\n## ", 1)[0]


def test_install_page_and_readme_give_the_same_extras():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    page = (DOCS / "install.rst").read_text().replace("``", "`").replace(":mod:", "")
    readme = _install_section((ROOT / "README.md").read_text())

    def listed(text):
        body = " ".join(text.split("Extras:", 1)[1].split())
        return dict(re.findall(r"`(\w+)` \(([^()]*(?:\[[^]]*\][^()]*)*)\)", body))

    assert listed(page) == listed(readme)
    for name, requirements in extras.items():
        if name == "peers":  # benchmark-only, documented in benchmarks/
            continue
        said = listed(page)[name]
        for requirement in requirements:
            package = re.split(r"[\[<>=~ ]", requirement)[0]
            assert package in said, (name, package)
    full = 'pip install -e ".[' + ",".join(["test", "plot", "bench", "qp", "docs", "dask"])
    assert full in page and full in readme


def test_every_method_citation_names_its_authors():
    text = (DOCS / "citation.rst").read_text()
    rows = re.findall(r"\* - :class:`[^`]+`[^\n]*\n\s+- ([^\n]+)", text)
    assert len(rows) >= 9
    for reference in rows:
        assert re.match(r"([A-Z]\. )+[A-Z][\w-]+", reference), reference


def test_compare_example_thumbnail_is_its_landscape_summary_figure():
    source = (DOCS / "examples" / "plot_compare_methods.py").read_text()
    assert "# sphinx_gallery_thumbnail_number = 2" in source
    assert source.count("plt.show()") == 2

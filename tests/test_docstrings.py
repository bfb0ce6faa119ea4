"""Docstrings promise only what the code does; the text speaks of the library, not its making."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import marginclust
from marginclust._registry import clusterer_names

CLUSTERERS = clusterer_names()


@pytest.mark.parametrize("name", CLUSTERERS)
def test_sparse_promised_only_where_accepted(name):
    cls = getattr(marginclust, name)
    accepts = cls().__sklearn_tags__().input_tags.sparse
    docs = [inspect.getdoc(cls) or ""]
    docs += [inspect.getdoc(getattr(cls, m)) or "" for m in ("fit", "predict", "predict_proba")
             if hasattr(cls, m)]
    promises = any("{array-like, sparse matrix}" in d for d in docs)
    assert accepts or not promises, f"{name} rejects sparse input its docstring promises"


def test_no_references_to_documents_outside_the_repository():
    src = Path(marginclust.__file__).parent
    outside = ("SPEC", "../shared", "STYLE.md", "shared/notes")
    hits = [
        f"{p.relative_to(src)}:{i}"
        for p in src.rglob("*.py")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if any(word in line for word in outside)
    ]
    assert not hits, f"references to documents not in the repository: {hits}"


ROOT = Path(__file__).resolve().parents[1]
# Words about how the project is made (an issue number, who did the work, a work
# period); code, tests, docs and results state the property or the dated fact instead.
# Written so that this file does not match itself.
PROCESS_WORDS = re.compile(
    r"issue[- ]?#?[0-9]+|\bengineers?\b|\bsessions?\b|new" r"comer|this[ ]stop|\bstops? of\b",
    re.IGNORECASE,
)
# Build outputs of make docs (docs/.gitignore), not sources.
_GENERATED = ("_build", "generated", "auto_examples", "api.rst", "sg_execution_times.rst")


def _text_files():
    for name in ("pyproject.toml", "Makefile", "README.md"):
        yield ROOT / name
    for folder in ("src", "tests", "benchmarks", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT)
            skip = "__pycache__" in rel.parts or ".egg-info" in str(rel) or (
                folder == "docs" and rel.parts[1] in _GENERATED)
            if path.is_file() and not skip:
                yield path


def test_no_words_about_how_the_project_is_made():
    if not (ROOT / "benchmarks").is_dir():
        pytest.skip("not a repository checkout")
    hits = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary (a figure)
            continue
        for i, line in enumerate(text.splitlines(), 1):
            # a pytest fixture's scope keyword is not about the project
            if PROCESS_WORDS.search(line.replace('scope="session"', "")):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:80]}")
    assert not hits, "state the property or the dated fact instead:\n" + "\n".join(hits)


@pytest.mark.parametrize("name", CLUSTERERS + ["ELMFeatures"])
def test_every_public_estimator_has_examples_and_references(name):
    doc = inspect.getdoc(getattr(marginclust, name)) or ""
    assert "Examples\n--------" in doc and ">>>" in doc, f"{name} has no Examples section"
    assert "References\n----------" in doc, f"{name} cites no paper"


# ---------------------------------------------------------------- numpydoc validation
# Every public class, function and method of these modules (their ``__all__``) is
# validated with ``numpydoc.validate``: the subpackages the API reference documents
# (docs/conf.py, API_MODULES) plus ``solvers`` and ``base``, also public.
NUMPYDOC_MODULES = [
    "marginclust",
    "marginclust.base",
    "marginclust.bench",
    "marginclust.dask",
    "marginclust.datasets",
    "marginclust.exceptions",
    "marginclust.feature_maps",
    "marginclust.metrics",
    "marginclust.model_selection",
    "marginclust.plotting",
    "marginclust.solvers",
    "marginclust.starts",
    "marginclust.utils",
]

# Checks NOT enforced, and why; every other numpydoc check is (GL01-GL10 layout and
# section order, SS01-SS04/SS06 summary, PR01-PR10 every parameter documented, existing,
# typed and described, RT01/RT03-RT05 a described Returns section, YD01 Yields, SA02-SA04
# See Also form, GL08 a docstring at all).
NUMPYDOC_NOT_ENFORCED = {
    "ES01": "an extended summary is optional: many helpers say all in one line",
    "EX01": "examples are required of the public estimators (test above) and run as "
    "doctests wherever given, not of every method and helper",
    "SA01": "a See Also section is optional",
    "RT02": "returns are written 'name : type' as in scikit-learn, which this check "
    "rejects (it wants the type alone)",
    "SS05": "summaries may be noun phrases ('Minus the objective on X'); the check only "
    "asks for the infinitive verb form",
}
# A typing.Protocol has no constructor of its own: its signature is typing's
# (*args, **kwargs), which no docstring should document.
_PROTOCOL_CONSTRUCTOR = {"PR01", "PR02"}


def _is_ours(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == "marginclust" or module.startswith("marginclust.")


def _public_objects(modname):
    """``(import path, object)`` for the public callables of a module and their methods."""
    import importlib

    module = importlib.import_module(modname)
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        # constants (registries, environment names) are not validated; re-exports from
        # scikit-learn (ConvergenceWarning, NotFittedError) carry scikit-learn's text
        if name.startswith("_") or not callable(obj) or not _is_ours(obj):
            continue
        yield f"{modname}.{name}", obj
        if not inspect.isclass(obj):
            continue
        for mname, member in inspect.getmembers(obj):
            if mname.startswith("_"):
                continue
            owner = next((k for k in obj.__mro__ if mname in vars(k)), None)
            raw = vars(owner).get(mname) if owner is not None else None
            func = raw.fget if isinstance(raw, property) else inspect.unwrap(member)
            if owner is None or not _is_ours(owner) or not _is_ours(func):
                continue  # inherited from scikit-learn (get_params, set_output, ...)
            if inspect.isfunction(func) or isinstance(raw, property):
                yield f"{modname}.{name}.{mname}", member


@pytest.mark.parametrize("modname", NUMPYDOC_MODULES)
def test_public_docstrings_pass_numpydoc_validation(modname):
    validate = pytest.importorskip("numpydoc.validate").validate
    failures = []
    n_checked = 0
    for path, obj in _public_objects(modname):
        n_checked += 1
        is_protocol = inspect.isclass(obj) and getattr(obj, "_is_protocol", False)
        for code, message in validate(path)["errors"]:
            if code in NUMPYDOC_NOT_ENFORCED:
                continue
            if is_protocol and code in _PROTOCOL_CONSTRUCTOR:
                continue
            failures.append(f"{path}: {code} {message}")
    assert n_checked, f"{modname} exports nothing to validate"
    assert not failures, "numpydoc validation:\n" + "\n".join(failures)

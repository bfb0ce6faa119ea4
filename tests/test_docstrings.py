"""Docstrings promise only what the code does (issue 12)."""

from __future__ import annotations

import inspect
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


@pytest.mark.parametrize("name", CLUSTERERS + ["ELMFeatures"])
def test_every_public_estimator_has_examples_and_references(name):
    doc = inspect.getdoc(getattr(marginclust, name)) or ""
    assert "Examples\n--------" in doc and ">>>" in doc, f"{name} has no Examples section"
    assert "References\n----------" in doc, f"{name} cites no paper"

"""The declared row-block backend: its interface, ``out_of_core`` and ``backend_for``."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import marginclust
from marginclust.utils._blocks import (
    BLOCK_ROWS,
    RowBlockBackend,
    RowBlocks,
    backend_for,
    out_of_core,
)

PACKAGE = Path(marginclust.__file__).resolve().parent


def declared_methods() -> list[str]:
    """The operations every backend implements (the abstract methods of the interface)."""
    return sorted(RowBlockBackend.__abstractmethods__)


def test_the_interface_cannot_be_instantiated_and_in_memory_blocks_implement_it():
    with pytest.raises(TypeError):
        RowBlockBackend()  # type: ignore[abstract]
    rows = RowBlocks(np.zeros((5, 2)))  # instantiable: no declared method is missing
    assert isinstance(rows, RowBlockBackend)
    for name in declared_methods():
        assert getattr(type(rows), name) is not getattr(RowBlockBackend, name), name


class _Graph:
    """A holder of a task graph (a stand-in for a lazy collection of another package)."""

    def __init__(self, graph: object) -> None:
        self.graph = graph

    def __dask_graph__(self) -> object:
        return self.graph


@pytest.mark.parametrize(
    "X",
    [np.zeros((3, 2)), sp.csr_matrix(np.eye(3)), [[0.0, 1.0], [2.0, 3.0]],
     RowBlocks(np.zeros((3, 2))), _Graph(None)],
    ids=["ndarray", "csr", "list", "RowBlocks", "graph-None"],
)
def test_in_memory_data_are_not_out_of_core(X):
    assert out_of_core(X) is False


def test_a_holder_of_a_graph_is_out_of_core():
    assert out_of_core(_Graph({"x": 1})) is True
    assert out_of_core(_Graph) is False  # the class, not a collection


def test_backend_for_in_memory_data_and_for_a_backend():
    X = np.arange(20.0).reshape(10, 2)
    rows = backend_for(X)
    assert isinstance(rows, RowBlocks) and rows.X is X and rows.block_rows == BLOCK_ROWS
    assert backend_for(rows) is rows  # a backend keeps its blocks
    small = backend_for(rows, 4)
    assert small.n_blocks == 3 and backend_for(small, 4) is small


def test_backend_for_a_lazy_array_without_a_registered_backend():
    with pytest.raises(TypeError, match="No row-block backend"):
        backend_for(_Graph({"x": 1}))


def _in_memory_reads(path: Path) -> list[int]:
    """Lines of ``path`` that read a backend's ``in_memory`` flag."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "in_memory":
            lines.append(node.lineno)
        elif (isinstance(node, ast.Constant) and node.value == "in_memory"):
            lines.append(node.lineno)  # getattr(rows, "in_memory", ...)
    return lines


def test_only_out_of_core_reads_the_in_memory_flag():
    # every other module asks out_of_core(X); the backends only declare the flag
    homes = {PACKAGE / "utils" / "_blocks.py", PACKAGE / "dask" / "_backend.py"}
    readers = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in homes and (found := _in_memory_reads(path))
    }
    assert readers == {}

"""Every solver checks its problem object before it runs: a missing method is named."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import marginclust.solvers as solvers_pkg
from marginclust.solvers._alternating import AlternatingMinimizer
from marginclust.solvers._base import IterativeSolver, check_capabilities, requires
from marginclust.solvers._bundle import BundleMethod
from marginclust.solvers._cccp import CCCP
from marginclust.solvers._cutting_plane import CuttingPlaneMMC, CuttingPlaneSVM
from marginclust.solvers._em import FixedPointEM
from marginclust.solvers._fuzzy import fuzzy_alternation
from marginclust.solvers._gradient_projection import active_gradient_projection
from marginclust.solvers._kernel_kmeans import kernel_kmeans_alternation
from marginclust.solvers._label_alternation import LabelAlternation

# How to run each solver on a problem object; a solver added to solvers/ without an
# entry here fails test_every_solver_is_listed.
RUN = {
    "AlternatingMinimizer": lambda p: AlternatingMinimizer().solve(p, None),
    "BundleMethod": lambda p: BundleMethod().solve(p, None),
    "CCCP": lambda p: CCCP(BundleMethod()).solve(p, None),
    "CuttingPlaneMMC": lambda p: CuttingPlaneMMC().solve(p, None),
    "CuttingPlaneSVM": lambda p: CuttingPlaneSVM().solve(p, None),
    "FixedPointEM": lambda p: FixedPointEM([1.0], tol=1e-3, max_iter=1, n_samples=1).solve(
        p, np.ones((1, 1))),
    "LabelAlternation": lambda p: LabelAlternation().solve(p, np.zeros(2, dtype=np.intp)),
    "fuzzy_alternation": lambda p: fuzzy_alternation(np.zeros((2, 1)), None, p),
    "kernel_kmeans_alternation": lambda p: kernel_kmeans_alternation(
        p, np.zeros((2, 1)), n_clusters=1, sample_weight=np.ones(2), centres=np.zeros((1, 1)),
        max_iter=1, tol=0.0),
    "active_gradient_projection": lambda p: active_gradient_projection(p, np.ones((2, 1))),
}
SOLVERS = {
    "AlternatingMinimizer": AlternatingMinimizer,
    "BundleMethod": BundleMethod,
    "CCCP": CCCP,
    "CuttingPlaneMMC": CuttingPlaneMMC,
    "CuttingPlaneSVM": CuttingPlaneSVM,
    "FixedPointEM": FixedPointEM,
    "LabelAlternation": LabelAlternation,
    "fuzzy_alternation": fuzzy_alternation,
    "kernel_kmeans_alternation": kernel_kmeans_alternation,
    "active_gradient_projection": active_gradient_projection,
}


def _solver_modules():
    for info in pkgutil.iter_modules(solvers_pkg.__path__):
        yield importlib.import_module(f"{solvers_pkg.__name__}.{info.name}")


def test_every_solver_is_listed():
    """Every class of solvers/ with a ``solve`` is an IterativeSolver, and every
    solver (class or checked function) is run by the test below."""
    found = set()
    for module in _solver_modules():
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj) and callable(getattr(obj, "solve", None)):
                assert issubclass(obj, IterativeSolver), name
                if obj is not IterativeSolver:
                    found.add(name)
            elif inspect.isfunction(obj) and hasattr(obj, "required"):
                found.add(name)
    assert found == set(RUN)


def _without(required, missing):
    """A problem providing every method of ``required`` except the entry ``missing``."""
    names = {}
    for req in required:
        if req != missing:
            names[req[0] if isinstance(req, tuple) else req] = lambda self, *a, **k: None
    return type("Incomplete", (), names)()


@pytest.mark.parametrize("name", sorted(RUN))
def test_solver_rejects_a_problem_missing_a_required_method(name):
    required = SOLVERS[name].required
    assert required, f"{name} declares no required methods"
    for missing in required:
        alternatives = missing if isinstance(missing, tuple) else (missing,)
        message = f"{name} needs the objective to provide {' or '.join(alternatives)}; " \
                  "Incomplete does not."
        with pytest.raises(TypeError, match=message):
            RUN[name](_without(required, missing))


def test_an_alternative_satisfies_the_check():
    class Solver(IterativeSolver):
        required = (("a", "b"), "c")

        def _solve(self, problem, x0, *, scale=1):
            return scale * x0

    class HasB:
        def b(self):
            pass

        def c(self):
            pass

    assert Solver().solve(HasB(), 2, scale=3) == 6
    check_capabilities(HasB(), Solver())
    with pytest.raises(TypeError, match="to provide a or b, c; object does not"):
        Solver().solve(object(), 1)


def test_requires_reads_the_problem_by_position_or_keyword():
    @requires("step", arg="problem")
    def run(x, problem, *, k=1):
        return x + k

    class Steps:
        def step(self):
            pass

    assert run(1, Steps(), k=2) == 3 and run(1, problem=Steps()) == 2
    assert run.required == ("step",)
    with pytest.raises(TypeError, match="run needs the objective to provide step; int does not"):
        run(1, problem=5)

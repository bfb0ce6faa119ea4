"""The demo figure, the first a user sees (styles, colours, caption, scales)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from marginclust.cli._demo import CAPTION, demo_figure  # noqa: E402
from marginclust.plotting import align_memberships, method_styles  # noqa: E402


def _soft(U, history):
    return SimpleNamespace(memberships_=U, objective_history_=history)


@pytest.fixture
def figure(rng):
    X = np.vstack([rng.normal(c, 0.2, (30, 2)) for c in (0, 3, 6)])
    U = np.repeat(np.eye(3), 30, axis=0) * 0.8 + 0.2 / 3
    fitted = [
        ("A", _soft(U, np.linspace(5, 1, 175))),           # a 175-iteration run
        ("B", _soft(U[:, [2, 0, 1]], [4.0, 2.0, 1.0])),    # same clusters, permuted
    ]
    fitted += [(f"hard{i}", SimpleNamespace(objective_history_=[3.0, 2.0, 1.0 + i / 10]))
               for i in range(11)]
    fig = demo_figure(X, fitted)
    yield fig
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_every_method_has_its_own_colour_and_line_style(figure):
    curves = figure.axes[-1]
    handles, labels = curves.get_legend_handles_labels()
    assert len(labels) == 13
    looks = {(tuple(h.get_color()), h.get_linestyle()) for h in handles}
    colours = {tuple(h.get_color()) for h in handles}
    assert len(looks) == 13 and len(colours) == 13
    styles = method_styles([f"m{i}" for i in range(20)])
    assert len({tuple(s["color"]) for s in styles.values()}) == 20


def test_cluster_colours_match_across_panels(figure):
    a, b = figure.axes[0], figure.axes[1]
    np.testing.assert_allclose(a.collections[0].get_facecolors(),
                               b.collections[0].get_facecolors())


def test_align_memberships_undoes_a_permutation(rng):
    U = rng.dirichlet(np.ones(4), size=50)
    labels = U.argmax(axis=1)
    perm = [2, 3, 0, 1]
    np.testing.assert_array_equal(align_memberships(U[:, perm], labels), U)


def test_caption_and_no_empty_panels(figure):
    texts = " ".join(t.get_text() for t in figure.texts)
    assert "blended colours are split memberships" in texts and CAPTION in texts
    for ax in figure.axes:
        assert ax.collections or ax.lines, ax.get_title()
    assert len(figure.axes) == 3  # two membership panels and the curves, nothing empty


def test_long_runs_do_not_squash_short_ones(figure):
    curves = figure.axes[-1]
    for line in curves.get_lines():
        assert line.get_xdata().min() == 0.0 and line.get_xdata().max() == 1.0
    labels = curves.get_legend_handles_labels()[1]
    assert "A (175 it.)" in labels and "B (3 it.)" in labels

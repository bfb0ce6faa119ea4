"""The ranking of candidates when the vote runs on more rows than were fitted."""

from __future__ import annotations

import numpy as np

from marginclust.feature_maps._neighbors import NeighborGraph
from marginclust.objectives._margin import class_balanced_error, class_balanced_mean, vote_margins
from marginclust.starts._margin_search import _rank_near_ties_by_own_labels
from marginclust.starts._selection import Candidate


def _setup(clean_score: float):
    # 40 fitted points on a line; "clean" cuts it in the middle, "ragged" swaps two
    # points across the cut, so its own labels vote worse on the fitted points
    Z = np.arange(40, dtype=float)[:, None]
    graph = NeighborGraph.from_data(Z, 4)
    clean = np.repeat([0, 1], 20)
    ragged = clean.copy()
    ragged[[18, 21]] = [1, 0]
    # on 60 judged points every candidate's margins alternate 1 and 0 in both clusters:
    # standard error sqrt(2 * 0.25 / 30) / 2
    judged_labels = np.repeat([0, 1], 30)
    judged_margins = np.tile([1.0, 0.0], 30)
    make = [("ragged", 0.95, ragged), ("clean", clean_score, clean), ("far", 0.5, clean)]
    judged, entries = [], []
    for name, score, own in make:
        cand = Candidate(name, 2, score, (30, 30), 0.0)
        judged.append((cand, judged_labels, judged_margins))
        entries.append((cand, own))
    return graph, judged, entries, clean, ragged


def test_near_ties_on_the_judged_points_are_ordered_by_the_fitted_points_vote():
    graph, judged, entries, clean, ragged = _setup(clean_score=0.90)
    error = class_balanced_error(judged[0][2], judged[0][1], 2)
    assert np.isclose(error, np.sqrt(2 * 0.25 / 30) / 2)
    assert 0.95 - 0.90 < error < 0.95 - 0.5  # clean is tied with the best, far is not

    def own(labels):
        return class_balanced_mean(vote_margins(labels, graph.indices, 2), labels, 2)

    assert own(clean) > own(ragged)
    rank = _rank_near_ties_by_own_labels(judged, graph, None, None)
    assert [c.name for c, _ in rank(entries)] == ["clean", "ragged", "far"]
    # the far one stays last even though its own labels are the clean ones
    assert [c.name for c, _ in rank(entries[::-1])] == ["clean", "ragged", "far"]


def test_a_clear_lead_on_the_judged_points_is_kept():
    graph, judged, entries, _, _ = _setup(clean_score=0.80)  # 0.15 below: beyond the error
    rank = _rank_near_ties_by_own_labels(judged, graph, None, None)
    assert [c.name for c, _ in rank(entries)] == ["ragged", "clean", "far"]


def test_equal_own_scores_keep_the_judged_order():
    graph, judged, entries, clean, _ = _setup(clean_score=0.90)
    same = [(entries[0][0], clean), (entries[1][0], clean), entries[2]]
    rank = _rank_near_ties_by_own_labels(judged, graph, None, None)
    assert [c.name for c, _ in rank(same)] == ["ragged", "clean", "far"]

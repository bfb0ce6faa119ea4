"""More reference draws where the first ones alone leave a boundary between two modes open."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import t as student_t

from marginclust.starts import _separation
from marginclust.starts._separation import _against, _pair_separation
from marginclust.starts._valley import VALLEY


def _two_gaussians(distance, seed, n=200):
    rng = np.random.RandomState(seed)
    Z = np.r_[rng.randn(n, 2), rng.randn(n, 2) + [distance, 0.0]]
    return Z, (Z[:, 0] > distance / 2).astype(np.intp)


@pytest.mark.parametrize("score, clear", [(0.85, False), (0.95, True)])
def test_the_first_draws_are_judged_by_two_standard_deviations_of_all_of_them(score, clear):
    gauss, box = np.array([0.60, 0.64]), np.array([0.70, 0.78])
    pair = _against((0, 1), score, 2.0, 2.0, [gauss, box])
    assert pair.reference == pytest.approx(0.74)
    error = np.std([0.60, 0.64, 0.70, 0.78])  # 0.0685: the bound is 0.74 + 0.137 = 0.877
    assert pair.error == pytest.approx(error)
    assert pair.multiplier == 2.0
    assert pair.clear is clear


@pytest.mark.parametrize("score, clear", [(0.76, False), (0.79, False), (0.81, True),
                                          (0.85, True)])
def test_a_settled_boundary_beats_the_prediction_bound_of_one_more_margin(score, clear):
    rng = np.random.RandomState(0)
    gauss, box = 0.70 + 0.03 * rng.randn(8), 0.75 + 0.03 * rng.randn(8)
    pair = _against((0, 1), score, 2.0, 2.0, [gauss, box], settle=True)
    # the larger kind's mean, its own standard deviation, Student's prediction multiplier
    chosen = box if box.mean() > gauss.mean() else gauss
    multiplier = student_t.ppf(0.975, 7) * np.sqrt(1 + 1 / 8)
    bound = chosen.mean() + multiplier * chosen.std(ddof=1)
    assert abs(score - bound) > 0.005  # the scores lie clearly on either side (0.7997)
    assert pair.reference == pytest.approx(chosen.mean())
    assert pair.error == pytest.approx(chosen.std(ddof=1))
    assert pair.multiplier == pytest.approx(multiplier)
    assert pair.clear is clear


class _Draws:
    """Stands in for the reference draws: given margins per call, the calls recorded."""

    def __init__(self, *calls):
        self.calls, self.asked = list(calls), []

    def __call__(self, Zu, k, rng, draws, weights=None):
        self.asked.append(draws)
        return [np.full(draws, value) + spread * np.linspace(-1, 1, draws)
                for value, spread in self.calls.pop(0)]


def test_more_draws_settle_a_boundary_between_two_modes(monkeypatch):
    Z, split = _two_gaussians(5.0, 0)
    # the first draws: the kinds 0.3 apart, so their pooled deviation swamps the gain
    draws = _Draws([(0.62, 0.01), (0.92, 0.01)], [(0.62, 0.01), (0.92, 0.01)])
    monkeypatch.setattr(_separation, "_reference_margins", draws)
    pair = _pair_separation(Z, split, (0, 1), True, None, 7, np.random.RandomState(0), 2)
    assert pair.valley >= VALLEY and pair.modes >= VALLEY
    assert draws.asked == [2, 6]  # topped up to eight of each kind
    assert pair.clear and pair.multiplier > 2.0
    assert pair.reference == pytest.approx(0.92)


def test_no_more_draws_where_the_boundary_is_no_valley(monkeypatch):
    rng = np.random.RandomState(1)
    Z = rng.randn(400, 2)
    halves = (Z[:, 0] > np.median(Z[:, 0])).astype(np.intp)
    draws = _Draws([(0.6, 0.01), (0.9, 0.01)])
    monkeypatch.setattr(_separation, "_reference_margins", draws)
    pair = _pair_separation(Z, halves, (0, 1), True, None, 7, np.random.RandomState(0), 2)
    assert pair.modes < VALLEY
    assert draws.asked == [2] and not pair.clear and pair.multiplier == 2.0


def test_no_more_draws_where_the_first_already_decide(monkeypatch):
    Z, split = _two_gaussians(8.0, 2)
    draws = _Draws([(0.5, 0.01), (0.55, 0.01)])
    monkeypatch.setattr(_separation, "_reference_margins", draws)
    pair = _pair_separation(Z, split, (0, 1), True, None, 7, np.random.RandomState(0), 2)
    assert draws.asked == [2] and pair.clear and pair.multiplier == 2.0


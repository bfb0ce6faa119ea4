"""EM-type fixed-point driver with optional deterministic annealing (Bicego & Figueiredo, Sec. 3).

The driver knows the model only through two methods of the objective:
``m_step(Z, previous_params) -> params`` and
``e_step(params, sigma) -> (Z, f_ll)``. One iteration is an M-step followed by
an E-step; the E-step's ``f_ll`` (eq. 16) is recorded after every iteration
(and once after the initial M-step at every scale). A scale level stops when
``|f_t - f_{t-1}| <= tol * n_samples`` (the paper's "convergence of f_LL").

f_LL is **not** monotone: the M-step retrains one-class SVMs, which do not
maximise f_LL, so this is a fixed-point iteration rather than EM. The paper
notes that it sometimes oscillates between two values; a period-2 cycle
(``f_t ~ f_{t-2}`` while ``f_t != f_{t-1}``, three times in a row) is
detected, ends the level and is reported in the result's message.

Deterministic annealing (Sec. 3.3): the levels are
``sigma_max, decay * sigma_max, ...`` while ``sigma > sigma_min``
(:func:`annealing_schedule`), each run to convergence or ``max_iter``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ._base import IterativeSolver
from ._result import SolverResult

__all__ = ["MAX_LEVELS", "FixedPointEM", "annealing_schedule"]

MAX_LEVELS = 10_000


def annealing_schedule(sigma_max: float, sigma_min: float, decay: float) -> npt.NDArray[np.float64]:
    """The temperatures of the annealing loop: ``sigma_max * decay**t`` while ``> sigma_min``.

    This is the paper's steps (2)-(5): run at ``sigma = sigma_max``, multiply by
    ``decay``, go on while ``sigma > sigma_min``.

    Parameters
    ----------
    sigma_max : float
        First (largest) scale, > 0.
    sigma_min : float
        The loop stops once the scale is no longer above this, 0 < sigma_min.
    decay : float
        Factor in (0, 1).

    Returns
    -------
    sigmas : ndarray
        Decreasing scales; at least ``[sigma_max]``.

    Raises
    ------
    ValueError
        On a non-positive scale, a decay outside (0, 1), or a schedule of more
        than ``MAX_LEVELS`` levels (e.g. ``decay = 1 - 1e-9``).
    """
    if not (np.isfinite(sigma_max) and sigma_max > 0 and np.isfinite(sigma_min) and sigma_min > 0):
        raise ValueError(
            "temperature_max and temperature_min must be positive and finite; got "
            f"{sigma_max!r}, {sigma_min!r}."
        )
    if not (np.isfinite(decay) and 0 < decay < 1):
        raise ValueError(f"decay must be in (0, 1); got {decay!r}.")
    if sigma_max <= sigma_min:
        raise ValueError(
            f"temperature_max={sigma_max} must be larger than temperature_min={sigma_min} "
            "for annealing."
        )
    n_levels = np.floor(np.log(sigma_min / sigma_max) / np.log(decay)) + 1
    if not n_levels <= MAX_LEVELS:
        raise ValueError(
            f"The annealing schedule from {sigma_max:g} down to {sigma_min:g} by decay={decay!r} "
            f"has {n_levels:.3g} levels (at most {MAX_LEVELS} are allowed; the paper's 5 -> 0.1 "
            "by 0.95 has 77). Use a smaller decay or a narrower range."
        )
    n = int(n_levels)
    sig = sigma_max * decay ** np.arange(n + 1)
    return np.asarray(sig[sig > sigma_min * (1 + 1e-12)], dtype=np.float64)


class FixedPointEM(IterativeSolver):
    """EM-type loop over a sequence of scales (one scale = no annealing).

    Parameters
    ----------
    sigmas : sequence of float
        Scales to run, in order.
    tol : float
        A level stops when ``|delta f_LL| <= tol * n_samples``.
    max_iter : int
        Maximum iterations (M-step + E-step) per level.
    n_samples : int
        Used to make ``tol`` per-sample.
    callback : callable or None
        ``callback(iteration, f_ll, sigma)``; returning True stops the run.
    """

    required: ClassVar[tuple[str, ...]] = ("m_step", "e_step")

    def __init__(
        self,
        sigmas: Any,
        *,
        tol: float,
        max_iter: int,
        n_samples: int,
        callback: Callable[[int, float, float], bool | None] | None = None,
    ) -> None:
        self.sigmas = np.atleast_1d(np.asarray(sigmas, dtype=np.float64))
        self.tol = tol
        self.max_iter = max_iter
        self.n_samples = n_samples
        self.callback = callback

    def _solve(self, objective: Any, x0: npt.NDArray[np.float64]) -> SolverResult:
        """Run from the initial weights ``x0`` (n_samples x n_clusters).

        Parameters
        ----------
        objective : object
            Provides ``m_step`` and ``e_step``.
        x0 : ndarray of shape (n_samples, n_clusters)
            Initial weights of each machine (one column per cluster).

        Returns
        -------
        result : SolverResult
            ``x = (params, Z, sigma)``; ``objective = -f_LL`` at the end;
            ``objective_history`` = f_LL after every E-step; ``info`` holds
            ``sigma_history``, ``n_fits``, ``oscillating_levels`` and ``level_converged``.
        """
        atol = self.tol * self.n_samples
        params = objective.m_step(x0, None)
        history: list[float] = []
        sig_hist: list[float] = []
        osc_levels: list[float] = []
        level_conv: list[bool] = []
        n_iter = 0
        stop = False
        Z = x0
        for sigma in self.sigmas:
            Z, f = objective.e_step(params, sigma)
            history.append(f)
            sig_hist.append(sigma)
            level: list[float] = [f]
            converged = False
            oscillating = False
            n_osc = 0
            for _ in range(self.max_iter):
                params = objective.m_step(Z, params)
                Z, f_new = objective.e_step(params, sigma)
                n_iter += 1
                history.append(f_new)
                sig_hist.append(sigma)
                level.append(f_new)
                if self.callback is not None and self.callback(n_iter, f_new, float(sigma)):
                    stop = True
                    break
                if abs(f_new - f) <= atol:
                    converged = True
                    break
                if len(level) >= 3 and abs(level[-1] - level[-3]) <= atol:
                    n_osc += 1
                    if n_osc >= 3:
                        oscillating = True
                        break
                else:
                    n_osc = 0
                f = f_new
            level_conv.append(converged)
            if oscillating:
                osc_levels.append(float(sigma))
            if stop:
                break
        f_final = history[-1]
        converged = bool(level_conv[-1]) if level_conv else False
        message = ""
        if not converged:
            last = self.sigmas[len(level_conv) - 1]
            if osc_levels and osc_levels[-1] == last:
                message = (
                    f"f_LL oscillates between two values ({history[-1]:.6g} and "
                    f"{history[-2]:.6g}) at temperature={last:.4g} (the 2-cycle noted in Bicego & "
                    "Figueiredo, Sec. 3.2), so the loop stopped without converging. Try "
                    "annealing=True, another init or a larger temperature."
                )
            else:
                message = (
                    f"The fixed-point EM did not converge in max_iter={self.max_iter} "
                    f"iterations at temperature={last:.4g}; increase max_iter or tol."
                )
        return SolverResult(
            x=(params, Z, float(self.sigmas[len(level_conv) - 1])),
            objective=-f_final,
            objective_history=np.asarray(history),
            n_iter=n_iter,
            converged=converged,
            stop_crit=abs(history[-1] - history[-2]) if len(history) > 1 else float("nan"),
            message=message,
            info={
                "sigma_history": np.asarray(sig_hist),
                "n_fits": params.n_fits if hasattr(params, "n_fits") else None,
                "oscillating_levels": osc_levels,
                "level_converged": level_conv,
            },
        )

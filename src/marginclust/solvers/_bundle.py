"""Bundle method for regularised risk minimisation (BMRM; Teo, Vishwanathan, Smola & Le, 2010).

Minimises ``J(W, t) = 1/2 ||W||^2 + C R(W, t)`` over a polyhedral set of the
small variable ``t`` (the balance constraint), for a convex, non-smooth risk
``R`` known only through ``plane(x) -> (R(x), dR/dW, dR/dt)``. Each step
minimises the cutting-plane model ``1/2||W||^2 + C max_j (a_j.x + o_j)`` (a
small QP over the planes, solved in its dual by :func:`._qp.solve_bundle_dual`),
adds the plane at the minimiser, keeps the best iterate seen, and stops when the
gap between the best true value and the model minimum (a lower bound on the
optimum) is at most ``tol`` times the best value (BMMC Table 2).

Planes whose weight stayed zero for ``max_idle`` consecutive steps are dropped;
if more than ``max_planes`` remain, the idle part is aggregated into its
weighted average plane (Teo et al., Sec. 4.3), so the QP stays small.

A risk with a cheap part. When the objective says ``split`` (the pair term of
MMC with must-link / cannot-link pairs, which reads only the pairs' rows),
``R = R_0 + R_1`` is modelled by two cutting-plane models, ``max_j`` over the
planes of each part (a disaggregated bundle: the sum of the two maxima is a
tighter lower model than one maximum of summed planes), and before each pass
over the data the model of the cheap part ``R_1`` is refined at the candidate
(planes from ``cheap_plane``, no pass) until its error there is at most
``cheap_tol * max(tol * J_best, s * gap)``, with ``gap`` the current gap and
``s`` the objective's ``cheap_share`` (rows a cheap plane reads over rows a pass
reads, at most 1): where a pass reads far more rows than the pairs (1e5 rows,
500 pairs: ``s = 0.01``) the cheap model is refined to the final precision and
the passes stay as few as without pairs; where the pairs' rows are a good part
of the data (arrhythmia, 452 rows, 100 pairs: ``s`` about 0.36) the passes cost
about what a refinement does, and refining far below the current gap would
spend hundreds of QPs to save one pass. The pair term is a sum of hinges with weights far
above one row's (each pair weighs ``C'``, each row ``C / n``): modelled with
the margin in one maximum, its kinks forced many short steps, each a pass
over the data (measured with 500 pairs on 1e5 blobs: 80 and 112 steps for
K = 2 and 3 against 14 and 19 without pairs); modelled apart, the passes are
about those of the margin alone (3 for both).
The lower bound and the stopping rule are unchanged.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ._base import Callback, IterativeSolver
from ._qp import solve_bundle_dual
from ._result import SolverResult

__all__ = ["BundleMethod"]

Array = npt.NDArray[np.float64]


class BundleMethod(IterativeSolver):
    """BMRM with an exact dual QP per step, best iterate kept, gap stopping rule.

    The objective must provide ``plane(x)`` returning ``(risk, dR/dW, dR/dt)``,
    attributes ``C`` (risk weight), ``shape`` (shape of ``W``) and ``balance``
    (a :class:`~marginclust.objectives._constraints.BalanceSet` for ``t``).
    ``x = (W, t)``. An objective whose ``split`` is true also provides
    ``plane_parts(x)`` (the planes of the two parts) and ``cheap_plane(x)`` (the
    second part's, without a pass over the data), and may provide ``cheap_cuts``:
    a list of planes ``(dR/dW, dR/dt, offset)`` of the second part, valid for this
    objective, from which its model starts; the solver leaves its planes of that
    part there (so a sequence of subproblems sharing that part builds it once).

    Parameters
    ----------
    tol : float, default=1e-3
        Stop when ``J_best - lower_bound <= tol * J_best``.
    max_iter : int, default=200
        Maximum bundle steps.
    qp : {"auto", "active-set", "ipm", "clarabel"}, default="auto"
        Dual QP solver: ``"auto"``/``"active-set"``: the built-in active-set
        method warm-started from the previous step's plane weights (the new plane
        at weight 0), with the interior point method as fallback; ``"ipm"``: the
        built-in interior point method every step; ``"clarabel"``: the optional
        clarabel package.
    max_planes : int, default=60
        Aggregate the planes of a part beyond this number (the cheap part's,
        beyond ``max_planes + max_cheap``: one refinement may add ``max_cheap``).
    max_idle : int, default=10
        Drop a plane whose weight was zero for this many consecutive steps.
    nonnegative_risk : bool, default=True
        Add the plane ``R >= 0`` (``a_0 = 0, o_0 = 0``, Table 2) to the model
        (one per part with a split risk).
    max_cheap : int, default=100
        Split risk: most planes of the cheap part added before one pass.
    cheap_tol : float, default=0.5
        Split risk: refine the cheap part's model until its error at the
        candidate is at most ``cheap_tol * max(tol * J_best, s * gap)`` (see above).
    """

    required: ClassVar[tuple[str, ...]] = ("plane",)

    def __init__(
        self,
        *,
        tol: float = 1e-3,
        max_iter: int = 200,
        qp: str = "auto",
        max_planes: int = 60,
        max_idle: int = 10,
        nonnegative_risk: bool = True,
        max_cheap: int = 100,
        cheap_tol: float = 0.5,
    ) -> None:
        self.tol = tol
        self.max_iter = max_iter
        self.qp = qp
        self.max_planes = max_planes
        self.max_idle = max_idle
        self.nonnegative_risk = nonnegative_risk
        self.max_cheap = max_cheap
        self.cheap_tol = cheap_tol

    def _solve(
        self,
        objective: Any,
        x0: tuple[Array, Array] | None = None,
        *,
        callback: Callback | None = None,
    ) -> SolverResult:
        """Minimise ``objective`` starting from ``x0`` (a plane is taken there).

        Parameters
        ----------
        objective : object
            See the class docstring.
        x0 : tuple (W, t) or None
            Warm start; None is zero. The best iterate is never worse than ``x0``.
        callback : callable or None
            ``callback(iteration, best_value)``; returning True stops.

        Returns
        -------
        result : SolverResult
            ``x = (W, t)`` the best iterate; ``info`` has ``n_planes``,
            ``lower_bound``, ``qp_iter`` and ``qp_time``.
        """
        qp = "active-set" if self.qp == "auto" else self.qp
        C = float(objective.C)
        bal = objective.balance
        shape = tuple(objective.shape)
        p = int(np.prod(shape))
        # a risk with a cheap part (no pass over the data): one model per part
        split = bool(getattr(objective, "split", False))
        n_groups = 2 if split else 1
        share = float(getattr(objective, "cheap_share", 0.0)) if split else 0.0
        if x0 is None:
            x0 = (np.zeros(shape), np.zeros(bal.G.shape[1]))
        W0 = np.asarray(x0[0], dtype=np.float64).reshape(shape)
        t0 = np.asarray(x0[1], dtype=np.float64).ravel()
        qdim = t0.size
        # Planes live in fixed slots of A (cap x p, the only large array): dropping a
        # plane frees its slot and adding one fills a free slot, so no row of A is
        # ever moved. ``order`` lists the slots of the m planes of the model (the QP
        # order); Q (m x m) is kept in that order.
        cap = self.max_planes + 2 * n_groups
        A = np.zeros((cap, p))
        Ct = np.zeros((cap, qdim))
        o = np.zeros(cap)
        idle = np.zeros(cap, dtype=np.int64)
        weights = np.zeros(cap)  # plane weights of the last QP (warm start of the next)
        group = np.zeros(cap, dtype=np.intp)  # the part each plane models
        order = np.zeros(0, dtype=np.intp)
        Q = np.zeros((0, 0))
        free = list(range(cap - 1, -1, -1))
        rest: npt.NDArray[np.float64] | None = None

        def add(a: Array, c: Array, off: float, part: int = 0) -> None:
            nonlocal A, Ct, o, idle, weights, group, order, Q
            if not free:  # grow (aggregation disabled by max_planes, or cheap planes)
                old = A.shape[0]
                A = np.vstack([A, np.zeros_like(A)])
                Ct = np.vstack([Ct, np.zeros_like(Ct)])
                o = np.concatenate([o, np.zeros_like(o)])
                idle = np.concatenate([idle, np.zeros_like(idle)])
                weights = np.concatenate([weights, np.zeros_like(weights)])
                group = np.concatenate([group, np.zeros_like(group)])
                free.extend(range(2 * old - 1, old - 1, -1))
            slot = free.pop()
            A[slot] = a
            Ct[slot] = c
            o[slot] = off
            idle[slot] = 0
            weights[slot] = 0.0
            group[slot] = part
            order = np.append(order, slot)
            hi = int(order.max()) + 1  # slots fill lowest first: a view of the used ones
            col = (A[:hi] @ a)[order]
            m = order.size
            Qn = np.empty((m, m))
            Qn[: m - 1, : m - 1] = Q
            Qn[m - 1, :] = col
            Qn[:, m - 1] = col
            Q = Qn

        def keep(mask: npt.NDArray[np.bool_]) -> None:
            nonlocal order, Q
            free.extend(int(j) for j in order[~mask])
            order = order[mask]
            Q = Q[np.ix_(mask, mask)]

        if self.nonnegative_risk:
            for part in range(n_groups):
                add(np.zeros(p), np.zeros(qdim), 0.0, part)
        # planes of the cheap part left by the previous subproblem with the same part
        # (valid lower bounds of the same convex function): its model starts built
        cuts = getattr(objective, "cheap_cuts", None) if split else None
        for a_c, c_c, o_c in cuts or ():
            add(a_c, c_c, o_c, 1)

        def add_plane(W: Array, t: Array, risk: float, aW: Any, at: Any, part: int) -> None:
            aW = np.asarray(aW, dtype=np.float64).ravel()
            at = np.asarray(at, dtype=np.float64).ravel()
            add(aW, at, risk - float(aW @ W.ravel()) - float(at @ t), part)

        def model_value(W: Array, t: Array, part: int) -> float:
            sel = order[group[order] == part]
            return float(np.max(A[sel] @ W.ravel() + Ct[sel] @ t + o[sel]))

        def evaluate(W: Array, t: Array) -> float:
            if split:
                parts = objective.plane_parts((W, t))
                for part, (r, aW, at) in enumerate(parts):
                    add_plane(W, t, r, aW, at, part)
                risk = float(sum(r for r, _, _ in parts))
            else:
                risk, aW, at = objective.plane((W, t))
                add_plane(W, t, risk, aW, at, 0)
            return float(0.5 * np.vdot(W, W) + C * risk)

        qp_iter = 0
        qp_time = 0.0

        def solve_model() -> Any:
            """The model's minimiser (dual QP), warm-started from the last plane weights."""
            nonlocal rest, qp_iter, qp_time
            tic = time.perf_counter()
            warm = None
            w_ord = weights[order]
            g_ord = group[order]
            if split:  # each part's weights on its simplex
                sums = np.bincount(g_ord, weights=w_ord, minlength=n_groups)[g_ord]
            else:
                sums = np.full(w_ord.size, w_ord.sum())
            if qp == "active-set" and rest is not None and np.all(sums > 0):
                warm = (w_ord / sums, rest)
            res = solve_bundle_dual(
                Q,
                o[order],
                Ct[order],
                C,
                bal.G,
                bal.h,
                bal.E,
                bal.e,
                method=qp if warm is not None or self.nonnegative_risk else "ipm",
                warm_start=warm,
                groups=g_ord if split else None,
            )
            weights[order] = res.beta / C
            rest = res.rest
            qp_time += time.perf_counter() - tic
            qp_iter += res.n_iter
            return res

        def minimiser(res: Any) -> tuple[Array, Array]:
            hi = int(order.max()) + 1
            beta_slots = np.zeros(hi)
            beta_slots[order] = res.beta
            return -(beta_slots @ A[:hi]).reshape(shape), res.t

        best_W, best_t = W0.copy(), t0.copy()
        J_best = evaluate(W0, t0)
        lower = -np.inf
        history = [J_best]
        converged = False
        gap = np.inf
        n_cheap = 0
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007
            res = solve_model()
            lower = max(lower, res.lower_bound)
            gap = J_best - lower
            if gap <= self.tol * max(abs(J_best), 1e-12):
                converged = True
                break
            W, t = minimiser(res)
            if split:
                # Refine the cheap part's model at the candidate before paying for a
                # pass over the data: its planes cost no pass, so the expensive steps
                # are left to the part that needs the data.
                for _ in range(self.max_cheap):
                    r1, a1, c1 = objective.cheap_plane((W, t))
                    error = C * (r1 - model_value(W, t, 1))
                    target = max(self.tol * max(abs(J_best), 1e-12), share * (J_best - lower))
                    if error <= self.cheap_tol * target:
                        break
                    add_plane(W, t, r1, a1, c1, 1)
                    n_cheap += 1
                    res = solve_model()
                    lower = max(lower, res.lower_bound)
                    W, t = minimiser(res)
                gap = J_best - lower
                if gap <= self.tol * max(abs(J_best), 1e-12):
                    converged = True
                    break
            n_old = order.size
            active = res.beta > 1e-10 * C
            idle[order] = np.where(active, 0, idle[order] + 1)
            J = evaluate(W, t)
            if J < J_best:
                J_best, best_W, best_t = J, W, t.copy()
            history.append(J_best)
            gap = J_best - lower
            if callback is not None and callback(it, J_best):
                break
            if gap <= self.tol * max(abs(J_best), 1e-12):
                converged = True
                break
            m = order.size
            # Each part has its own budget, the cheap part's larger by the planes one
            # refinement may add: aggregating every part once the planes of both
            # exceeded max_planes collapsed the pair model each step, and the next
            # step rebuilt it with up to max_cheap QPs (arrhythmia, k = 13, 50 pairs:
            # stopped after 300 s, against 26 s with one budget per part).
            counts = np.bincount(group[order], minlength=n_groups)
            budget = self.max_planes + np.where(np.arange(n_groups) == 1, self.max_cheap, 0)
            over = np.flatnonzero(counts > budget)
            if over.size:
                order, Q = self._aggregate(
                    res.beta, A, Ct, o, idle, weights, group, order, n_old, free, n_groups,
                    parts=over,
                )
                continue
            # drop long-idle planes (never a zero plane nor the newest)
            mask = np.ones(m, dtype=bool)
            mask[: m - n_groups] = idle[order[: m - n_groups]] < self.max_idle
            if self.nonnegative_risk:
                mask[:n_groups] = True
            if not mask.all():
                keep(mask)
        if cuts is not None:
            # the cheap part's planes with weight in the last QP: they hold its model at
            # the solution, and the next model starts small (a cold QP start is cheap)
            used = order[(group[order] == 1) & (weights[order] > 0)]
            used = used[A[used].any(axis=1) | Ct[used].any(axis=1) | (o[used] != 0)]
            cuts[:] = [(A[j].copy(), Ct[j].copy(), float(o[j])) for j in used]
        polish = getattr(objective, "polish", None)
        if callable(polish):  # exact re-optimisation of the offsets; never increases J
            best_W, best_t = polish((best_W, best_t))
            J_best = min(J_best, float(objective.value((best_W, best_t))))
        return SolverResult(
            x=(best_W, best_t),
            objective=J_best,
            objective_history=np.asarray(history),
            n_iter=it,
            converged=converged,
            stop_crit=float(gap),
            message="" if converged else f"bundle method stopped at max_iter={self.max_iter}",
            info={
                "n_planes": int(order.size),
                "lower_bound": float(lower),
                "qp_iter": qp_iter,
                "qp_time": qp_time,
                "n_cheap_planes": n_cheap,
            },
        )

    def _aggregate(
        self,
        beta: Array,
        A: Array,
        Ct: Array,
        o: Array,
        idle: npt.NDArray[np.int64],
        weights: Array,
        group: npt.NDArray[np.intp],
        order: npt.NDArray[np.intp],
        n_old: int,
        free: list[int],
        n_groups: int = 1,
        parts: Any = None,
    ) -> tuple[npt.NDArray[np.intp], Array]:
        """Replace the planes of the last QP by their beta-average, per part of ``parts``
        (None: every part); the new order and Q."""
        start = n_groups if self.nonnegative_risk else 0
        parts = list(range(n_groups)) if parts is None else [int(g) for g in parts]
        kept = [order[:start]]
        others = order[start:n_old][~np.isin(group[order[start:n_old]], parts)]
        for part in parts:
            pos = start + np.flatnonzero(group[order[start:n_old]] == part)
            if pos.size == 0:
                continue
            wts = beta[pos].copy()
            in_part = group[order[:n_old]] == part
            part_total = float(beta[:n_old][in_part].sum())
            agg_weight = float(wts.sum() / part_total) if part_total > 0 else 0.0
            total = wts.sum()
            if total <= 0:
                wts = np.full(pos.size, 1.0)
                total = wts.sum()
            wts /= total
            old = order[pos]
            w_slots = np.zeros(A.shape[0])
            w_slots[old] = wts
            agg_a = w_slots @ A
            agg_c = wts @ Ct[old]
            agg_o = float(wts @ o[old])
            # the aggregated plane takes the first old slot of its part
            slot = int(old[0])
            free.extend(int(j) for j in old[1:])
            A[slot] = agg_a
            Ct[slot] = agg_c
            o[slot] = agg_o
            idle[slot] = 0
            weights[slot] = agg_weight
            kept.append(np.array([slot]))
        # Layout after: [zero planes], aggregated planes, the other parts' planes, newer planes.
        new_order = np.concatenate([*kept, others, order[n_old:]]).astype(np.intp)
        rows = A[new_order]
        return new_order, rows @ rows.T

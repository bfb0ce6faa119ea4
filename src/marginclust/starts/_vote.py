"""The margin classifier's labels: LIBSVM's one-against-one vote by matrix products.

:func:`classify` labels rows with a fitted RBF :class:`~sklearn.svm.SVC` a block
of rows at a time. A block's pair decisions are first computed in float32 (one
product for the kernel exponents, NumPy's vectorised float32 ``exp``, one product
with the pairs' coefficients) together with a rigorous bound on their error; the
rows where some decision is not farther from 0 than its bound are recomputed in
float64 (:func:`_decisions64`, the literal evaluation), so every label is the
float64 evaluation's.

The bound, for a row ``b`` and a pair's coefficients ``c`` (``u = 2**-24``,
``gamma_n = n u / (1 - n u)``, ``m`` support vectors ``s_i`` of dimension ``d``):

- exponents. ``x_i = -g ||b - s_i||^2`` is one product of the float32 rows
  ``[b, ||b||^2, 1]`` and columns ``[2 g s_i, -g, -g ||s_i||^2]`` (``d + 2`` terms,
  each input rounded once to float32 from float64), so
  ``|x~_i - x_i| <= gamma_{d+6} g (||b|| + ||s_i||)^2 <= D`` with
  ``D = gamma_{d+6} g (||b|| + max ||s||)^2``; clipping ``x~`` to ``[-60, 0]``
  only moves it towards ``x_i <= 0`` above -60.
- kernel values. float32 ``exp`` has a relative error ``e`` at most 4 ulp (NumPy's
  SIMD kernels; glibc's ``expf`` 1 ulp), taken as ``e = 16 u`` (8 ulp). For an
  exponent not clipped at -60, ``K~ / K`` lies in ``[e^-D (1 - e), e^D (1 + e)]``,
  so ``|K~ - K| <= r K~`` with ``r = (e^D (1 + e) - 1) e^D / (1 - e)``; for one
  clipped at -60 both values are below ``t = e^-59`` when ``D <= 1/2``.
- decision. The coefficients rounded to float32 and the product's round-off add
  ``gamma_{m+1} sum |c_i| K~_i``; ``A = sum |c_i| K~_i`` comes from the same
  product (so ``A <= A~ / (1 - gamma_{m+2})``), the intercept is added in float64.

Hence ``|f~ - f| <= (r + gamma_{m+1}) A~ / (1 - gamma_{m+2}) + t ||c||_1`` plus the
float64 addition's ``2^-52 |f~|`` (and, for products below float32's normal range,
``(d + 2) 2^-125`` more in ``D`` and ``m 2^-125`` more in the decision); twice that
covers the float64 rounding of the bound's own terms. A row with ``D > 1/2`` (far
from every support vector), with ``||b||^2 > 1e36`` (near float32's overflow) or with
a decision not farther from 0 than twice the bound is rechecked in float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.svm import SVC

from ..utils._blocks import BLOCK_ROWS, PARALLEL_ROWS

__all__ = ["classify"]

# Classes up to which classify evaluates the one-against-one vote by matrix products:
# a block's pair decisions (BLOCK_ROWS x 496 at 32 classes, 32 MB) stay near its
# kernel values in size; beyond, their number grows as K^2 / 2.
_MAX_VOTE_CLASSES = 32

_U32 = 2.0 ** -24
# float32 exp's relative error: NumPy documents at most 4 ulp for its SIMD kernels;
# one ulp is at most 2u relative, and the bound takes twice the 8u
_EXP_ERROR = 16 * _U32
# Exponents are floored at -60: below about -87 the SIMD exp leaves its fast path for
# subnormal results (measured 5x slower), and products of the coefficients with
# kernel values near 1e-38 are subnormal, which slows the coefficients' product 10x;
# exp(-60) ~ 9e-27 keeps them normal down to coefficients of 1e-11
_EXP_FLOOR = -60.0
_TAIL = float(np.exp(_EXP_FLOOR + 1.0))
_MAX_EXPONENT_ERROR = 0.5
_FLOAT32_SQUARES = 1e36  # squared norms below it, and so every coordinate, are finite floats
_UNDERFLOW = 2.0 ** -125  # a float32 product or sum below the normal range: its error
# rows per float32 pass: its kernel values, about 1 MiB, stay in a core's cache across
# the four passes over them (measured 1.9x faster than 8192 rows at 513 support vectors)
_CACHED_KERNEL_VALUES = 2 ** 18
_MIN_ROWS = 256
# kernel values of a row block of the many-class vote (float64, 32 MiB)
_PRUNED_KERNEL_VALUES = 2 ** 22
# The pruned vote's cost a row, in LIBSVM's multiply-adds (m K a row, m support
# vectors): the kernel and the bounds about 3 m, and each near class its shares (m)
# and its pairs' vectorised passes (about 20 K); it runs where that is below 0.7 of
# LIBSVM's. Measured with one thread (2-D blobs of 40-200 classes, sipu/birch1): 2.3-6.7x
# faster than LIBSVM at 1-12 near classes a row of 40-200, 1.3-4.6x slower where a
# wide kernel puts 20-80 % of the classes near every row.
_KERNEL_COST = 3.0
# classes up to which the pruned vote keeps its K x K tables (32 MB at 2,000 classes)
_MAX_PRUNED_CLASSES = 2000
_PAIR_PASSES = 20.0
_PRUNED_SHARE = 0.7
# a class is far from a row where its shares are bounded by this fraction of the median
# |intercept| (the pairs with an intercept within twice that are computed for every row)
_FAR = 1e-3


def _gamma(n: int) -> float:
    """Higham's ``gamma_n``: the relative error of ``n`` float32 roundings."""
    return n * _U32 / (1 - n * _U32)


@dataclass(frozen=True)
class _Vote:
    """A fitted SVC's one-against-one pairs, in float64 and in float32."""

    pairs: list[tuple[int, int]]
    n_classes: int
    gamma: float
    S: npt.NDArray[np.float64]
    s_sq: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: npt.NDArray[np.float64]
    exponent32: npt.NDArray[np.float32]  # (d + 2, m): [2 g s, -g, -g ||s||^2]
    coef32: npt.NDArray[np.float32]  # (m, 2 P): [c, |c|]
    s_max: float
    coef_l1: npt.NDArray[np.float64]

    @classmethod
    def of(cls, classifier: SVC) -> _Vote:
        pairs, coef, intercept = _one_against_one(classifier)
        S = np.asarray(classifier.support_vectors_, dtype=np.float64)
        s_sq = np.einsum("ij,ij->i", S, S)
        gamma = float(classifier._gamma)
        exponent = np.vstack([2.0 * gamma * S.T, np.full(S.shape[0], -gamma), -gamma * s_sq])
        coef32 = coef.astype(np.float32)
        return cls(pairs, classifier.classes_.size, gamma, S, s_sq, coef, intercept,
                   exponent.astype(np.float32), np.hstack([coef32, np.abs(coef32)]),
                   float(np.sqrt(s_sq.max(initial=0.0))), np.abs(coef).sum(axis=0))


def _decisions64(vote: _Vote, B: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each pair's decision value in float64: the rows' squared distances to the
    support vectors from one product (``||z||^2 + ||s||^2 - 2 z.s``), their kernel
    values, one product with the pairs' coefficients."""
    K = B @ vote.S.T
    K *= -2.0
    K += np.einsum("ij,ij->i", B, B)[:, None]
    K += vote.s_sq
    np.maximum(K, 0.0, out=K)
    K *= -vote.gamma
    np.exp(K, out=K)
    return np.asarray(K @ vote.coef + vote.intercept)


def _decisions32(
    vote: _Vote, B: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each pair's decision value computed in float32, and a bound on its distance to
    the exact value (the module's docstring derives it; infinite where not derived)."""
    n, d = B.shape
    m, n_pairs = vote.coef.shape
    b_sq = np.einsum("ij,ij->i", B, B)
    rows = np.empty((n, d + 2), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        rows[:, :d] = B
        rows[:, d] = b_sq
        rows[:, d + 1] = 1.0
        K = rows @ vote.exponent32
        np.clip(K, _EXP_FLOOR, 0.0, out=K)
        np.exp(K, out=K)
        sums = K @ vote.coef32
    decision = sums[:, :n_pairs] + vote.intercept
    D = (_gamma(d + 6) * vote.gamma * (np.sqrt(b_sq) + vote.s_max) ** 2
         + (d + 2) * _UNDERFLOW)
    with np.errstate(over="ignore", invalid="ignore"):
        growth = np.exp(D)
        r = (growth * (1 + _EXP_ERROR) - 1) * growth / (1 - _EXP_ERROR)
        bound = 2.0 * (((r + _gamma(m + 1)) / (1 - _gamma(m + 2)))[:, None] * sums[:, n_pairs:]
                       + _TAIL * vote.coef_l1 + m * _UNDERFLOW + 2.0 ** -52 * np.abs(decision))
    # a row whose squared norm would overflow float32 is not bounded even when the
    # kernel is so wide that D stays small (the product's infinities are clipped)
    bound[(D > _MAX_EXPONENT_ERROR) | ~(b_sq <= _FLOAT32_SQUARES)] = np.inf
    return decision, bound


def classify(classifier: SVC, Z: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """The RBF classifier's labels of the rows of ``Z``, a row block at a time.

    LIBSVM's one-against-one vote, evaluated with matrix products: for a block of
    rows, every pair's decision value; a pair's decision above 0 votes for its first
    class, and the first class with the most votes wins, as in LIBSVM's
    ``svm_predict``. The decisions are computed in float32 with a rigorous bound on
    their error, and the rows where some decision lies within its bound of 0 are
    recomputed in float64, so the labels are those of the float64 evaluation; these
    differ from LIBSVM's by round-off only (a label can differ only where a decision
    is within about 1e-12 of 0). A whole fit of ``make_moons(1_000_000)`` is about
    7x faster than with LIBSVM's prediction and 3.7x faster than with the float64
    evaluation alone (``benchmarks/bench_max_margin_classify.py``).
    Each row's label is its own, whatever the block: the block only bounds memory, and
    inside ``joblib.parallel_config(n_jobs=...)`` the rows are labelled in as many
    contiguous parts on its workers (from ``PARALLEL_ROWS`` rows), with the same labels.
    With more than 32 classes (496 pairs) a product with every pair's coefficients
    would cost ``K / 2`` times the vote's own work (a support vector has coefficients
    in ``K - 1`` pairs only), and most classes are far from a given row:
    :func:`_many_class_labels` computes only the pairs of the classes near it.

    Parameters
    ----------
    classifier : sklearn.svm.SVC
        Fitted, with the RBF kernel.
    Z : ndarray of shape (n_samples, n_features)
        Rows in the classifier's coordinates.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        ``classifier.classes_`` of each row.
    """
    n_jobs = effective_n_jobs(None)
    if n_jobs > 1 and Z.shape[0] >= PARALLEL_ROWS:
        cuts = np.linspace(0, Z.shape[0], min(n_jobs, Z.shape[0] // BLOCK_ROWS) + 1).astype(int)
        parts = Parallel()(delayed(_classify)(classifier, Z[lo:hi])
                           for lo, hi in zip(cuts[:-1], cuts[1:]))
        return np.concatenate(parts)
    return _classify(classifier, Z)


def _classify(classifier: SVC, Z: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """:func:`classify` in this process."""
    if classifier.classes_.size > _MAX_VOTE_CLASSES:
        return _many_class_labels(classifier, Z)
    vote = _Vote.of(classifier)
    step = min(BLOCK_ROWS, max(_MIN_ROWS, _CACHED_KERNEL_VALUES // max(vote.S.shape[0], 1)))
    out = np.empty(Z.shape[0], dtype=np.intp)
    for lo in range(0, Z.shape[0], step):
        B = np.asarray(Z[lo:lo + step], dtype=np.float64)
        decision, bound = _decisions32(vote, B)
        first = decision > 0.0
        # a NaN decision (a row overflowing float32) is not certain either
        recheck = ~np.all(np.abs(decision) > bound, axis=1)
        if recheck.any():
            first[recheck] = _decisions64(vote, B[recheck]) > 0.0
        out[lo:lo + step] = _winners(first, vote.pairs, vote.n_classes)
    return np.asarray(classifier.classes_, dtype=np.intp)[out]


def _many_class_labels(classifier: SVC, Z: npt.NDArray[np.float64],
                       far: float = _FAR) -> npt.NDArray[np.intp]:
    """LIBSVM's one-against-one vote for many classes, each row's distant classes pruned.

    With ``K`` classes a row's vote has ``K (K - 1) / 2`` pairs, but the RBF kernel
    makes most classes' support vectors negligible far from them. A class ``c``'s
    share of any of its pairs' decisions at a row is at most
    ``e_c = sum_{s in c} max_j |coef_j(s)| K(row, s)``. With ``tau = far`` times the
    median ``|intercept|``, a class with ``e_c <= tau`` is *far* from the row: its
    shares are left out. A pair of two far classes is then decided by its intercept
    alone, certainly where ``|intercept| > 2 tau`` (the pair's error is at most
    ``e_i + e_j``); the few pairs with a smaller intercept are computed for every
    row. A pair with a *near* class is computed from the near classes' shares, and
    a row where such a decision lies within the far class's ``e`` of 0 is uncertain
    and goes to LIBSVM's own prediction. The votes start from the intercepts' and
    the computed pairs correct them; the first class with the most votes wins, as in
    LIBSVM. Labels equal to LIBSVM's up to round-off, as :func:`classify`'s. Where
    so many classes are near each row that the pruning saves less than its
    vectorised vote costs (a kernel as wide as the classes' spacing), LIBSVM's
    prediction runs instead: judged on a sample of rows first, then block by block.
    """
    k = classifier.classes_.size
    if k > _MAX_PRUNED_CLASSES:
        parts = [classifier.predict(Z[lo:lo + BLOCK_ROWS])
                 for lo in range(0, Z.shape[0], BLOCK_ROWS)]
        return np.concatenate(parts).astype(np.intp) if parts else np.empty(0, np.intp)
    starts = np.r_[0, np.cumsum(classifier.n_support_)]
    S = np.asarray(classifier.support_vectors_, dtype=np.float64)
    s_sq = np.einsum("ij,ij->i", S, S)
    gamma = float(classifier._gamma)
    dual = np.asarray(classifier._dual_coef_, dtype=np.float64)  # LIBSVM's signs
    i, j = np.triu_indices(k, 1)  # LIBSVM's pair order
    intercept = np.asarray(classifier._intercept_, dtype=np.float64)
    pair = np.zeros((k, k))  # pair[c, o]: the intercept of the pair of c and o
    pair[i, j] = intercept
    pair[j, i] = intercept
    tau = far * float(np.median(np.abs(intercept)))
    fragile = np.abs(pair) <= 2.0 * tau  # pairs computed for every row
    np.fill_diagonal(fragile, False)
    fi, fj = np.nonzero(np.triu(fragile))
    reach = np.abs(dual).max(axis=0)  # a vector's largest coefficient over its pairs
    cols = np.arange(k)
    after = cols[None, :] > cols[:, None]  # [c, o]: o > c, so c is the pair's first class
    # [c, o]: c wins its pair with o on the intercept alone (above 0 the first class wins)
    alone = np.where(after, pair > 0.0, pair <= 0.0)
    np.fill_diagonal(alone, False)
    base = alone.sum(axis=1).astype(np.int64)
    step = max(256, min(BLOCK_ROWS, _PRUNED_KERNEL_VALUES // max(S.shape[0], 1)))

    def kernel_and_bound(B: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], ...]:
        K = B @ S.T
        K *= -2.0
        K += np.einsum("ij,ij->i", B, B)[:, None]
        K += s_sq
        np.maximum(K, 0.0, out=K)
        K *= -gamma
        np.exp(K, out=K)
        return K, np.add.reduceat(K * reach, starts[:-1], axis=1)  # bound: (rows, classes)

    def libsvm(B: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
        return np.searchsorted(classifier.classes_, classifier.predict(B))

    m = S.shape[0]

    def worth(near: npt.NDArray[np.bool_]) -> bool:
        """Whether pruning at these near classes costs less than LIBSVM's vote."""
        per_row = float(near.sum(axis=1).mean())
        return per_row * (m + _PAIR_PASSES * k) + _KERNEL_COST * m < _PRUNED_SHARE * m * k

    out = np.empty(Z.shape[0], dtype=np.intp)
    probe = np.asarray(Z[np.linspace(0, Z.shape[0] - 1, min(Z.shape[0], 256)).astype(int)],
                       dtype=np.float64)
    pruning = Z.shape[0] > 0 and worth(kernel_and_bound(probe)[1] > tau)
    for lo in range(0, Z.shape[0], step):
        B = np.asarray(Z[lo:lo + step], dtype=np.float64)
        b = B.shape[0]
        if not pruning:
            out[lo:lo + step] = libsvm(B)
            continue
        K, bound = kernel_and_bound(B)
        near = bound > tau
        if not worth(near):
            out[lo:lo + step] = libsvm(B)
            continue
        # the near classes' shares, stacked: row at[r, c] of share holds c's share at
        # row r in its pair with every class (0 against itself)
        first = np.r_[0, np.cumsum(near.sum(axis=0))]
        share = np.zeros((first[-1], k))
        at = np.zeros((b, k), dtype=np.intp)
        rows = []
        for c in range(k):
            R = np.flatnonzero(near[:, c])
            rows.append(R)
            if R.size:
                part = K[R, starts[c]:starts[c + 1]] @ dual[:, starts[c]:starts[c + 1]].T
                share[first[c]:first[c + 1], :c] = part[:, :c]
                share[first[c]:first[c + 1], c + 1:] = part[:, c:]
                at[R, c] = first[c] + np.arange(R.size)
        votes = np.tile(base, (b, 1))
        unsure = np.zeros(b, dtype=bool)
        for c in range(k):
            R = rows[c]
            if not R.size:
                continue
            other = near[R]
            decision = (share[first[c]:first[c + 1]] + pair[c]
                        + np.where(other, share[at[R], c], 0.0))
            unsure[R] |= np.any(~other & ~fragile[c] & (np.abs(decision) <= bound[R]), axis=1)
            wins = np.where(after[c], decision > 0.0, decision <= 0.0)
            change = wins.astype(np.int64) - alone[c]
            # each pair once: not against itself, a pair of two near classes at the
            # smaller, the fragile pairs below
            change[:, c] = 0
            change[(other & (cols < c)) | fragile[c]] = 0
            votes[R, c] += change.sum(axis=1)
            votes[R] -= change
        for a, o in zip(fi, fj):  # a < o: every row, both classes' shares
            decision = (K[:, starts[a]:starts[a + 1]] @ dual[o - 1, starts[a]:starts[a + 1]]
                        + K[:, starts[o]:starts[o + 1]] @ dual[a, starts[o]:starts[o + 1]]
                        + pair[a, o])
            change = (decision > 0.0).astype(np.int64) - alone[a, o]
            votes[:, a] += change
            votes[:, o] -= change
        labels = np.argmax(votes, axis=1)
        if unsure.any():
            labels[unsure] = libsvm(B[unsure])
        out[lo:lo + step] = labels
    return np.asarray(classifier.classes_, dtype=np.intp)[out]


def _winners(first: npt.NDArray[np.bool_], pairs: list[tuple[int, int]],
             n_classes: int) -> npt.NDArray[np.intp]:
    """The first class with the most votes, each pair voting by its decision's sign."""
    votes = np.zeros((first.shape[0], n_classes), dtype=np.intp)
    for p, (i, j) in enumerate(pairs):
        votes[:, i] += first[:, p]
        votes[:, j] += ~first[:, p]
    return np.argmax(votes, axis=1)


def _one_against_one(
    classifier: SVC,
) -> tuple[list[tuple[int, int]], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """LIBSVM's pairs ``(i, j)``, ``i < j``, with one column of support-vector coefficients
    each (zero for the other classes' vectors) and their intercepts (``-rho``)."""
    starts = np.r_[0, np.cumsum(classifier.n_support_)]
    n_classes = classifier.classes_.size
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    # LIBSVM's own signs (the public dual_coef_ and intercept_ are negated for two classes)
    dual = np.asarray(classifier._dual_coef_, dtype=np.float64)
    coef = np.zeros((starts[-1], len(pairs)))
    for p, (i, j) in enumerate(pairs):
        coef[starts[i]:starts[i + 1], p] = dual[j - 1, starts[i]:starts[i + 1]]
        coef[starts[j]:starts[j + 1], p] = dual[i, starts[j]:starts[j + 1]]
    return pairs, coef, np.asarray(classifier._intercept_, dtype=np.float64)

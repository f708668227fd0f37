"""Candidates: the decoded skeletons a data set chooses between, without duplicates, each
fitted on one part of the points and scored on the other (:class:`Points`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import to_sympy
from .fitting import fit_many
from .settings import FormulaSettings

__all__ = ["Candidate", "Points", "POWER_COST", "fitted_powers", "power_saving", "fit_candidates", "unique_trees", "skeleton_key", "structural_key", "structural_hashes",
           "selection_sample"]


def skeleton_key(tree, basis: Basis) -> str:
    """A string equal for trees sympy renders alike up to renaming their constants
    (c0*x1 + c1 and c1 + x1*c0): duplicates of one skeleton need one fit. All constants
    become one symbol unless sympy would then merge some (c0*c1 -> c**2); in that case
    the key keeps the prefix-order names."""
    e = to_sympy(tree, basis)
    cs = {s for s in e.free_symbols if s.name.startswith("c") and s.name[1:].isdigit()}
    if not cs:
        return str(e)
    k = sympy.Symbol("_c")
    merged = e.xreplace({s: k for s in cs})
    before = sum(1 for a in sympy.preorder_traversal(e) if a in cs)
    after = sum(1 for a in sympy.preorder_traversal(merged) if a == k)
    return str(merged) if before == after else "#" + str(e)


# ------------------------------------------------------------------- candidates

@functools.lru_cache(maxsize=64)
def _power_colours(names: tuple) -> tuple | None:
    """Colours of exp, mul, the constant and log in a basis (colour k + 1 is names[k])."""
    where = {n: k + 1 for k, n in enumerate(names)}
    codes = tuple(where.get(n, -1) for n in ("exp", "mul", "c", "log"))
    return None if -1 in codes else codes


POWER_COST = 3
"""Complexity of a fitted power |u|^a beside its argument u: what c u costs (mul, c and the
constant; in PySR's count the power node, its exponent and the constant). Written
exp(mul(c, log(u))) a power holds four nodes and its constant (5), the native ``powc`` one node
and its constant (2); both count this (:func:`power_saving`). A definition of the complexity
measure every candidate carries (not a threshold of the tuning record: a candidate has no
settings); benchmarks/decisions.md tells why it is 3."""


def fitted_powers(tree, basis_names: tuple) -> int:
    """How many fitted powers exp(mul(c, log(u))) the prefix tree holds."""
    codes = _power_colours(tuple(basis_names))
    return 0 if codes is None else _fitted_in(np.asarray(tree).tolist(), codes)


def _fitted_in(t: list, codes: tuple) -> int:
    if len(t) < 5 or codes[3] not in t:  # most trees hold no log
        return 0
    return sum(1 for i in range(len(t) - 3) if t[i + 3] == codes[3] and t[i] == codes[0] and t[i + 1] == codes[1]
               and t[i + 2] == codes[2])


@functools.lru_cache(maxsize=64)
def _powc_colour(names: tuple) -> int:
    return names.index("powc") + 1 if "powc" in names else 0


def power_saving(tree, basis_names: tuple) -> int:
    """What a tree's fitted powers take off its nodes plus constants so that each counts
    :data:`POWER_COST`: 5 - POWER_COST per exp(mul(c, log(u))), 2 - POWER_COST (a cost) per
    native ``powc``. Counted for every fitted candidate: on plain lists, not numpy."""
    names = tuple(basis_names)
    codes, powc = _power_colours(names), _powc_colour(names)
    t = np.asarray(tree).tolist()
    fitted = 0 if codes is None else _fitted_in(t, codes)
    return (5 - POWER_COST) * fitted + (2 - POWER_COST) * (t.count(powc) if powc else 0)


@dataclass(slots=True)
class Candidate:
    """One decoded skeleton after fitting: ``tree``, decoder ``log_likelihood`` and
    ``rank`` (0 = most likely), constants fitted on the fitting part, the normalised
    errors on the fitting and validation parts and ``r2_validation``; ``source``: the proposer
    that found it (:mod:`superpos.symreg.proposers`); ``code_length``: its description length in
    nats where it was a finalist of the ``"mdl"`` rule (:mod:`~superpos.symreg.description`)."""

    tree: np.ndarray
    basis_names: tuple = field(repr=False)
    log_likelihood: float
    rank: int
    constants: np.ndarray
    nmse_fit: float
    nmse_validation: float
    source: str = ""
    code_length: float = float("nan")
    decomposition: tuple = field(default=(), repr=False, compare=False)
    """("sum" or "product", input groups) where the separable proposer built the candidate
    part by part; kept through refits."""
    written_from: tuple = field(default=(), repr=False, compare=False)
    """(tree, constants) of the candidate this one writes with its unit constants fixed
    (:mod:`~superpos.symreg.unit_constants`), the units at +-1; () for the others."""
    saving: int = field(init=False, repr=False, compare=False, default=0)
    """What the tree's fitted powers take off its complexity (:func:`power_saving`), counted once."""
    tie_key: tuple = field(init=False, repr=False, compare=False, default=())
    """(complexity, -log_likelihood, rank), the selection's tie keys, counted once: the pool is
    ranked again at every merge."""

    def __post_init__(self):
        self.saving = power_saving(self.tree, self.basis_names)
        self.tie_key = (self.complexity, -self.log_likelihood, self.rank)

    @property
    def size(self) -> int:
        return int(self.tree.size)

    @property
    def complexity(self) -> int:
        """Nodes plus free constants: a fitted constant costs more than a fixed number. A
        fitted power |u|^a, written exp(a log|u|) or powc(u), counts as a product with a
        fitted constant does (:data:`POWER_COST`)."""
        return int(self.tree.size + self.constants.size) - self.saving

    @property
    def basis(self) -> Basis:
        return Basis(self.basis_names)

    @property
    def r2_validation(self) -> float:
        return 1.0 - self.nmse_validation

    @property
    def formula(self) -> sympy.Expr:
        """The skeleton with its fitted constants (rounded to 6 significant digits)."""
        c = [float(f"{v:.6g}") if np.isfinite(v) else v for v in self.constants]
        return to_sympy(self.tree, self.basis, c)

    @property
    def skeleton(self) -> sympy.Expr:
        return to_sympy(self.tree, self.basis)

    def __repr__(self) -> str:
        return (f"Candidate({self.formula}, log_likelihood={self.log_likelihood:.3f}, "
                f"r2_validation={self.r2_validation:.6g})")


def kept_rows(idx: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The row indices ``idx`` that the boolean mask ``keep`` keeps, renumbered among the kept rows."""
    return (np.cumsum(keep) - 1)[idx[keep[idx]]]


@dataclass(frozen=True)
class Points:
    """A data set split into the points that fit constants (``fit``) and the points that
    choose between candidates (``val``). Small data sets are not split once but into
    ``folds`` [(fit, val)] for K-fold cross-validation; ``fit`` and ``val`` are then all points."""

    X: np.ndarray
    y: np.ndarray
    fit: np.ndarray
    val: np.ndarray
    folds: tuple = ()

    @classmethod
    def split(cls, X: np.ndarray, y: np.ndarray, validation_fraction: float, rng: np.random.Generator,
              cross_validate_below: int = 0) -> "Points":
        """A random split; below ``cross_validate_below`` points (or when a split would leave
        fewer than 4 fitting or 2 validation points) K-fold folds instead: leave-one-out up
        to 10 points, 5 folds above."""
        n = X.shape[0]
        n_val = int(round(validation_fraction * n))
        if n < max(8, cross_validate_below) or n_val < 2 or n - n_val < 4:
            idx = np.arange(n)
            if validation_fraction == 0 or n < 3:
                return cls(X, y, idx, idx)
            return cls.k_folds(X, y, n if n <= 10 else 5, rng)
        perm = rng.permutation(n)
        return cls(X, y, np.sort(perm[n_val:]), np.sort(perm[:n_val]))

    @classmethod
    def k_folds(cls, X: np.ndarray, y: np.ndarray, k: int, rng: np.random.Generator) -> "Points":
        """All points, in ``k`` random folds of (almost) equal size for K-fold cross-validation,
        stratified by |y - median y|: each run of k points in that order is dealt to the k folds
        in a random order, so that the few largest values of a target spanning decades (all a
        law at 1 % noise leaves above the noise) fall in different folds, not one."""
        n = X.shape[0]
        fold = np.empty(n, dtype=np.int64)
        yv = np.asarray(y, dtype=np.float64).ravel()
        with np.errstate(all="ignore"):
            size = np.abs(yv - np.median(yv)) if np.all(np.isfinite(yv)) else np.zeros(n)
        order = np.argsort(-size, kind="stable")
        deal = np.concatenate([rng.permutation(k) for _ in range(-(-n // k))])[:n]
        fold[order] = deal
        idx = np.arange(n)
        return cls(X, y, idx, idx, tuple((np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(k)))

    def subset(self, keep: np.ndarray) -> "Points":
        """The points at the rows ``keep`` (a boolean mask over the rows), split as here: the
        fitting, validation and fold rows among them, renumbered (:func:`kept_rows`)."""
        return Points(self.X[keep], self.y[keep], kept_rows(self.fit, keep), kept_rows(self.val, keep),
                      tuple((kept_rows(f, keep), kept_rows(v, keep)) for f, v in self.folds))

    @property
    def n_validation(self) -> int:
        return int(self.val.size)

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_fit, y_fit, X_val, y_val)."""
        return self.X[self.fit], self.y[self.fit], self.X[self.val], self.y[self.val]

    def cross_validated(self, trees, basis: Basis, constants: list, settings: FormulaSettings, seed: int,
                        per_point: bool = False) -> np.ndarray:
        """Per tree, the pooled held-out error over the folds (sum of squared errors on each
        fold's held-out points, refitted on the rest from ``constants``), normalised like the
        validation error: SSE / (n error_scale(y)). With ``per_point``, the (trees, n) squared
        held-out errors / error_scale(y) themselves, whose row means are those errors."""
        from ..core.numeric import error_scale
        from ..core.tree import evaluate

        sse = np.zeros(len(trees))
        err = np.zeros((len(trees), self.y.size)) if per_point else None
        for tr, te in self.folds:
            fits = fit_many(trees, basis, self.X[tr], self.y[tr], self.X[te], self.y[te], n_starts=1,
                            max_iter=settings.lm_iterations, init=constants, random_state=seed)
            sse += np.array([ev for _, _, ev in fits]) * error_scale(self.y[te]) * te.size
            for k, (tree, (c, _, _)) in enumerate(zip(trees, fits) if per_point else ()):
                with np.errstate(all="ignore"):
                    r2 = (self.y[te] - evaluate(tree, basis, self.X[te], c)) ** 2
                err[k, te] = np.where(np.isfinite(r2), r2, np.inf)
        scale = error_scale(self.y)
        return err / scale if per_point else sse / (self.y.size * scale)


_COMMUTATIVE = ("add", "mul")


def structural_key(tree, basis: Basis) -> str:
    """Functional notation with the arguments of add and mul sorted and every constant
    written ``c``: equal for trees that differ only by the order of commutative
    arguments (about 50x cheaper than :func:`skeleton_key`); the plain-Python twin of
    :func:`structural_hashes`, which the search uses."""
    names, arities, commutative = _key_table(basis)
    stack: list[str] = []
    for c in np.asarray(tree, dtype=np.int64).tolist()[::-1]:
        a = arities[c]
        if a == 0:
            stack.append(names[c])
            continue
        args = [stack.pop() for _ in range(a)]
        if commutative[c]:
            args.sort()
        stack.append(names[c] + "(" + ",".join(args) + ")")
    return stack[0]


def structural_hashes(trees, basis: Basis) -> np.ndarray:
    """:func:`structural_key` of many trees at once as 64-bit hashes (equal where the keys are
    equal; a collision between different keys has odds of about n^2 / 2^65), compiled:
    local search keys thousands of neighbours per data set."""
    from .._kernels.keys import structural_hashes as kernel

    trees = [np.asarray(t, dtype=np.int64) for t in trees]
    if not trees:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([t.size for t in trees])
    _, arities, commutative = _key_table(basis)
    return kernel(np.concatenate(trees), offsets, np.asarray(arities, dtype=np.int64), np.asarray(commutative))


@functools.lru_cache(maxsize=32)
def _key_table(basis: Basis) -> tuple[list[str], list[int], list[bool]]:
    """Per colour: name, arity, commutative (plain lists: the key is computed for thousands of trees)."""
    return ([f.name for f in basis.functions], basis.arities.tolist(),
            [f.name in _COMMUTATIVE for f in basis.functions])


def unique_trees(ranked, basis: Basis, n_variables: int, key: str = "structural"):
    """Drop trees using variables beyond ``n_variables`` and duplicates of a better-ranked
    tree: ``key="structural"`` (commutative reorderings, cheap) or ``"sympy"`` (trees
    sympy renders alike, e.g. x1 + x1 and 2*x1; about 0.5 ms per tree).
    ``ranked``: [(score, tree)] best first -> [(rank, score, tree)]."""
    seen, out = set(), []
    bad_vars = {j for j, f in enumerate(basis.functions) if f.kind == "variable" and f.index >= n_variables}
    kept = [(r, score, tree) for r, (score, tree) in enumerate(ranked)
            if not (bad_vars and bad_vars.intersection(np.asarray(tree).tolist()))]
    hashes = structural_hashes([t for _, _, t in kept], basis).tolist() if key == "structural" else None
    for j, (r, score, tree) in enumerate(kept):
        try:
            k = hashes[j] if hashes is not None else skeleton_key(tree, basis)
        except Exception:  # noqa: BLE001 - sympy may choke on an odd tree; keep it unkeyed
            k = ("tree", tuple(tree))
        if k in seen:
            continue
        seen.add(k)
        out.append((r, float(score), np.asarray(tree)))
    return out


def fit_candidates(ranked, basis: Basis, points: Points, settings: FormulaSettings, seed: int,
                   init: list | None = None) -> list[Candidate]:
    """Fit every (rank, score, tree) on ``points.fit``, score on ``points.val``.

    Every skeleton first gets the cheap ``settings.screen`` fit (starts, iterations) on at
    most ``settings.screen_points`` of the fitting points; the ``settings.refit_top`` best by
    validation error are then fitted on all of them with ``n_starts`` / ``lm_iterations``,
    starting also from the screen's constants. Each stage is one compiled
    call (:func:`~superpos.symreg.fitting.fit_many`). With ``points.folds`` (small data) the
    validation error is the cross-validated one (:meth:`Points.cross_validated`). ``init``: per
    tree None or a start of its constants, tried beside the generic starts of the first stage."""
    Xf, yf, Xv, yv = points.parts()
    names = tuple(basis.to_list())
    trees = [tree for _, _, tree in ranked]
    starts, iters = settings.screen
    # small data (folds) choose their cross-validated candidates by training error: all points
    few = settings.screen_points and not points.folds and yf.size > settings.screen_points
    sub = np.unique(np.linspace(0, yf.size - 1, settings.screen_points).astype(np.int64)) if few else slice(None)
    fits = fit_many(trees, basis, Xf[sub], yf[sub], Xv, yv, n_starts=starts, max_iter=iters, random_state=seed,
                    init=init)
    if fits:
        n_c = np.array([c.size for c, _, _ in fits])
        err = np.array([ev for _, _, ev in fits])
        order = np.argsort(err, kind="stable")
        redo = [int(j) for j in order[:settings.refit_top] if n_c[j]]
        again = fit_many([trees[j] for j in redo], basis, Xf, yf, Xv, yv, n_starts=settings.n_starts,
                         max_iter=settings.lm_iterations, random_state=seed, init=[fits[j][0] for j in redo])
        for j, new in zip(redo, again):
            if new[2] < fits[j][2] or not np.isfinite(fits[j][2]):
                fits[j] = new
    if points.folds and fits:  # small data: the best by training error are ranked by cross-validation
        top = [int(j) for j in np.argsort([ef for _, ef, _ in fits], kind="stable")[:3 * settings.refit_top]]
        cv = points.cross_validated([trees[j] for j in top], basis, [fits[j][0] for j in top], settings, seed)
        held_out = np.full(len(fits), np.inf)  # the others are not cross-validated and cannot win
        held_out[top] = cv
        fits = [(c, ef, float(e)) for (c, ef, _), e in zip(fits, held_out)]
    return [Candidate(tree, names, score, r, c, ef, ev) for (r, score, tree), (c, ef, ev) in zip(ranked, fits)]


def selection_sample(X: np.ndarray, y: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of at most ``m`` points that choose the formula: all points when there are no
    more, else the extremes of every input and of the target (so the sample spans each
    input's range) and a uniform random draw for the rest, in their original order."""
    n = X.shape[0]
    if n <= m:
        return np.arange(n)
    ends = np.unique(np.concatenate([X.argmin(axis=0), X.argmax(axis=0), [y.argmin(), y.argmax()]]))
    rest = np.setdiff1d(rng.choice(n, m, replace=False), ends)[:max(0, m - ends.size)]
    return np.sort(np.concatenate([ends, rest]))

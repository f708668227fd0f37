"""Choosing between decoded skeletons: de-duplication, fitting every candidate on one part
of the points, ranking on the rest (ties go to the simpler tree), and rendering the
winner (constants rounded, sympy simplification under a time cap)."""
from __future__ import annotations

import signal
import threading
from dataclasses import dataclass, field

import numpy as np
import sympy

from .basis import Basis
from .batch_fit import fit_many
from .tree import to_sympy

__all__ = ["Candidate", "fit_candidates", "selection_order", "split_points", "unique_trees", "round_constants",
           "simplify_capped", "skeleton_key", "structural_key"]

class _Timeout(Exception):
    pass


def simplify_capped(expr: sympy.Expr, seconds: float = 1.0, positive=()) -> sympy.Expr:
    """sympy.simplify under a wall-clock cap (SIGALRM, so only in the main thread and when
    no other interval timer is running; otherwise ``expr`` comes back as it is). Returns
    ``expr`` unchanged on timeout or when simplify makes it longer.
    Symbols named in ``positive`` are treated as positive while simplifying."""
    repl = {s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols if s.name in set(positive)}
    back = {v: k for k, v in repl.items()}
    e = expr.xreplace(repl) if repl else expr
    hidden = None
    trig = e.atoms(sympy.sin, sympy.cos)
    if len(trig) == 1:
        # trigsimp, most of simplify's time, has nothing to combine with a single trig call:
        # hide it behind an opaque function while simplifying
        kind = type(next(iter(trig)))
        hidden = (sympy.Function(f"_{kind.__name__}_"), kind)
        e = e.replace(kind, hidden[0])
    out = e
    usable = (seconds > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
              and signal.getitimer(signal.ITIMER_REAL)[0] == 0)  # never disturb a caller's own timer
    if usable:
        def _alarm(signum, frame):
            raise _Timeout()

        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            out = sympy.simplify(e)
            if sympy.count_ops(out) > sympy.count_ops(e):
                out = e
        except _Timeout:
            out = e
        except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
            out = e
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    if hidden is not None:
        out = out.replace(*hidden)
    return out.xreplace(back) if back else out


def round_constants(expr: sympy.Expr, digits: int = 3, max_denominator: int = 12,
                    keep_floats: bool = False) -> sympy.Expr:
    """Floats within ``digits`` significant digits of a small rational (denominator <=
    ``max_denominator``) become that rational; the others become the exact rational of
    their value rounded to ``digits`` significant digits, or stay as they are when
    ``keep_floats``."""
    def fix(f):
        v = float(f)
        if not np.isfinite(v):
            return f
        if v == 0:
            return sympy.Integer(0)
        q = sympy.Rational(v).limit_denominator(max_denominator)
        if abs(float(q) - v) <= 0.5 * 10.0 ** (1 - digits) * abs(v):
            return q
        return f if keep_floats else sympy.Rational(f"{v:.{digits}g}")

    return expr.xreplace({f: fix(f) for f in expr.atoms(sympy.Float)})


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

@dataclass
class Candidate:
    """One decoded skeleton after fitting: ``tree``, decoder ``log_likelihood`` and
    ``rank`` (0 = most likely), constants fitted on the fitting part, the normalised
    errors on the fitting and validation parts and ``r2_validation``."""

    tree: np.ndarray
    basis_names: tuple = field(repr=False)
    log_likelihood: float
    rank: int
    constants: np.ndarray
    nmse_fit: float
    nmse_validation: float

    @property
    def size(self) -> int:
        return int(self.tree.size)

    @property
    def complexity(self) -> int:
        """Nodes plus free constants: a fitted constant costs more than a fixed number."""
        return int(self.tree.size + self.constants.size)

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


def split_points(n: int, validation_fraction: float, rng: np.random.Generator):
    """Indices (fit, validation). Fewer than 8 points, or a zero fraction: both are all points."""
    n_val = int(round(validation_fraction * n))
    if n < 8 or n_val < 2 or n - n_val < 4:
        idx = np.arange(n)
        return idx, idx
    perm = rng.permutation(n)
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


_COMMUTATIVE = ("add", "mul")


def structural_key(tree, basis: Basis) -> str:
    """Functional notation with the arguments of add and mul sorted and every constant
    written ``c``: equal for trees that differ only by the order of commutative
    arguments (about 50x cheaper than :func:`skeleton_key`)."""
    funcs = basis.functions
    stack: list[str] = []
    for c in np.asarray(tree)[::-1]:
        f = funcs[c]
        if f.arity == 0:
            stack.append(f.name)
            continue
        args = [stack.pop() for _ in range(f.arity)]
        if f.name in _COMMUTATIVE:
            args.sort()
        stack.append(f"{f.name}({','.join(args)})")
    return stack[0]


def unique_trees(ranked, basis: Basis, n_variables: int, key: str = "structural"):
    """Drop trees using variables beyond ``n_variables`` and duplicates of a better-ranked
    tree: ``key="structural"`` (commutative reorderings, cheap) or ``"sympy"`` (trees
    sympy renders alike, e.g. x1 + x1 and 2*x1; about 0.5 ms per tree).
    ``ranked``: [(score, tree)] best first -> [(rank, score, tree)]."""
    seen, out = set(), []
    bad_vars = {j for j, f in enumerate(basis.functions) if f.kind == "variable" and f.index >= n_variables}
    for r, (score, tree) in enumerate(ranked):
        if bad_vars and bad_vars.intersection(np.asarray(tree).tolist()):
            continue
        try:
            k = skeleton_key(tree, basis) if key == "sympy" else structural_key(tree, basis)
        except Exception:  # noqa: BLE001 - sympy may choke on an odd tree; keep it unkeyed
            k = ("tree", tuple(tree))
        if k in seen:
            continue
        seen.add(k)
        out.append((r, float(score), np.asarray(tree)))
    return out


def fit_candidates(ranked, basis: Basis, X, y, fit_idx, val_idx, n_starts: int = 4, max_iter: int = 40,
                   random_state=None, screen: tuple | None = (2, 8), refit_top: int = 10) -> list[Candidate]:
    """Fit every (rank, score, tree) on the points ``fit_idx``, score on ``val_idx``.

    With ``screen=(starts, iterations)`` every skeleton first gets that cheaper fit; the
    ``refit_top`` best by validation error are then fitted with ``n_starts`` / ``max_iter``,
    starting also from the screen's constants. ``screen=None`` fits all at full effort. All fits of
    a stage run in one compiled call (:func:`~superpos.batch_fit.fit_many`)."""
    Xf, yf, Xv, yv = X[fit_idx], y[fit_idx], X[val_idx], y[val_idx]
    names = tuple(basis.to_list())
    trees = [tree for _, _, tree in ranked]
    starts, iters = (n_starts, max_iter) if screen is None else screen
    fits = fit_many(trees, basis, Xf, yf, Xv, yv, n_starts=starts, max_iter=iters, random_state=random_state)
    if screen is not None and fits:
        n_c = np.array([c.size for c, _, _ in fits])
        err = np.array([ev for _, _, ev in fits])
        order = np.argsort(err, kind="stable")
        redo = [int(j) for j in order[:refit_top] if n_c[j]]
        again = fit_many([trees[j] for j in redo], basis, Xf, yf, Xv, yv, n_starts=n_starts, max_iter=max_iter,
                         random_state=random_state, init=[fits[j][0] for j in redo])
        for j, new in zip(redo, again):
            if new[2] < fits[j][2] or not np.isfinite(fits[j][2]):
                fits[j] = new
    return [Candidate(tree, names, score, r, c, ef, ev) for (r, score, tree), (c, ef, ev) in zip(ranked, fits)]


def selection_order(cands: list[Candidate], rtol: float = 0.05, atol: float = 1e-10) -> list[int]:
    """Candidates best first. The validation error decides; errors within ``rtol`` (relative)
    or ``atol`` (absolute, normalised error) of the best count as a tie, and ties go to the
    simpler tree (fewer nodes plus free constants), then the more likely one. The rest
    follow by validation error."""
    if not cands:
        return []
    err = np.array([c.nmse_validation if np.isfinite(c.nmse_validation) else np.inf for c in cands])
    best = err.min()
    tied = err <= best * (1.0 + rtol) + atol if np.isfinite(best) else np.ones(len(cands), bool)
    key = [((0, c.complexity, -c.log_likelihood, c.rank) if tied[k] else (1, err[k], c.complexity, c.rank))
           for k, c in enumerate(cands)]
    return sorted(range(len(cands)), key=lambda k: key[k])

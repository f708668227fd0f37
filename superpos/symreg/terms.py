"""Sums of terms: formulas the structure model's trees are too small for, such as polynomials
of degree 4-6 (x^6 + x^5 + ... + x) or sums of a few functions of single inputs.

As FFX (McConaghy 2011) and SINDy (Brunton et al. 2016) do, y is fitted as a sparse linear
combination c_0 + sum_k c_k t_k(x) of terms from a fixed library (:func:`term_library`: powers
x_i^1..6, sin, cos and exp of x_i and x_i^2 and the products of two of those sines and
cosines, sqrt|x_i|, products x_i x_j and x_i^2 x_j, and for an input of one sign x_i^-1,
x_i^-2 and log|x_i|, which would be infinite between points of both signs). Two selections propose skeletons, whose constants are then fitted and
scored like every other candidate:

- forward stepwise (orthogonal matching pursuit): the term that most reduces the squared error
  next, every prefix of the path up to ``max_terms`` terms a candidate, and the whole path
  pruned by backward elimination;
- backward elimination from the full polynomial of each degree 1..6 (pairwise products
  included): the term with the smallest |t| statistic dropped while it is small.

Both stop where a term no longer pays for having been picked out of many: its reduction of
n log(SSE) (for backward elimination its t^2) must exceed log n + 2 log p for a library of p
terms (BIC plus the risk inflation criterion of Foster & George 1994). Exact data pass any such
price; on 20 noisy points with 100 terms to choose from, chance fits do not.

Neither selection sees the validation points of a split (small data sets, scored by
cross-validation, are selected on all their points). Sums are proposed only where one of the
selected sums explains ``sum_explained`` of the variance: laws measured cleanly, not noisy
tables.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import from_sympy
from ..exceptions import NotRepresentable
from .noise_floor import as_good, noise_floor, unexplained as _unexplained
from .tuning import TUNING, Tuning

__all__ = ["term_library", "sum_trees", "sum_skeletons", "transformed_sums"]

def term_library(X: np.ndarray, basis: Basis, tuning: Tuning = TUNING) -> tuple[list[sympy.Expr], np.ndarray, list[int]]:
    """(terms as sympy expressions over ``basis.variables``, their values (n, k), their
    degrees as polynomials, 0 for the others); powers up to ``sum_max_degree``; terms the basis
    cannot write, or that are not finite at every row, left out."""
    v = basis.variables
    m = X.shape[1]
    terms: list[tuple[sympy.Expr, np.ndarray, int]] = []
    with np.errstate(all="ignore"):
        for j in range(m):
            x = X[:, j]
            terms += [(v[j] ** k, x ** k, k) for k in range(1, tuning.sum_max_degree + 1)]
            if np.all(x > 0) or np.all(x < 0):  # singular where x = 0: only for inputs of one sign
                terms += [(1 / v[j], 1 / x, 0), (1 / v[j] ** 2, 1 / x**2, 0),
                          (sympy.log(sympy.Abs(v[j])), np.log(np.abs(x)), 0)]
            terms += [(sympy.sqrt(sympy.Abs(v[j])), np.sqrt(np.abs(x)), 0)]
            unary = []
            for name, f, g in (("sin", sympy.sin, np.sin), ("cos", sympy.cos, np.cos), ("exp", sympy.exp, np.exp)):
                if basis.has(name):
                    unary += [(f(v[j]), g(x), 0), (f(v[j] ** 2), g(x * x), 0)]
            terms += unary
            trig = [(e, col) for e, col, _ in unary if not isinstance(e, sympy.exp)]
            terms += [(a[0] * b[0], a[1] * b[1], 0) for k, a in enumerate(trig) for b in trig[k + 1:]]
        for i in range(m):
            for j in range(m):
                if i < j:
                    terms.append((v[i] * v[j], X[:, i] * X[:, j], 2))
                if i != j:
                    terms.append((v[i] ** 2 * v[j], X[:, i] ** 2 * X[:, j], 3))
    keep = [t for t in terms if np.all(np.isfinite(t[1])) and np.ptp(t[1]) > 0 and np.max(np.abs(t[1])) < 1e150]
    if not keep:
        return [], np.zeros((X.shape[0], 0)), []
    return [e for e, _, _ in keep], np.column_stack([col for _, col, _ in keep]), [d for _, _, d in keep]


def _price(n: int, p: int) -> float:
    """What a term chosen among p must earn, in n log(SSE) (its squared t statistic): log n + 2 log p,
    BIC's price plus the risk inflation of having searched p columns (Foster & George 1994), and
    at least 4 (|t| >= 2)."""
    return max(4.0, float(np.log(n) + 2.0 * np.log(max(p, 1))))


def _stepwise(T: np.ndarray, y: np.ndarray, max_terms: int) -> list[list[int]]:
    """The forward stepwise path: the chosen columns after each step (intercept implied)."""
    n = y.size
    Q = np.ones((n, 1)) / np.sqrt(n)
    r = y - Q @ (Q.T @ y)
    Tc = T - Q @ (Q.T @ T)
    chosen: list[int] = []
    path = []
    sse0 = float(r @ r)
    price = _price(n, T.shape[1])
    for _ in range(min(max_terms, T.shape[1], n - 2)):
        norms = np.einsum("ij,ij->j", Tc, Tc)
        gain = np.where(norms > 1e-12 * np.maximum(np.einsum("ij,ij->j", T, T), 1e-300), (Tc.T @ r) ** 2 / np.maximum(norms, 1e-300), -1.0)
        gain[chosen] = -1.0
        j = int(np.argmax(gain))
        sse = float(r @ r)
        if gain[j] <= 0 or n * np.log(sse / max(sse - gain[j], 1e-300 * sse0)) <= price:
            break  # the best term left does not pay for having been picked from all of them
        chosen.append(j)
        path.append(list(chosen))
        q = Tc[:, j] / np.sqrt(norms[j])
        r = r - q * (q @ r)
        Tc = Tc - np.outer(q, q @ Tc)
        if float(r @ r) <= 1e-24 * sse0:
            break
    return path


def _backward(T: np.ndarray, y: np.ndarray) -> list[int] | None:
    """Columns kept by backward elimination from all of T (intercept included and never dropped)."""
    n = y.size
    cols = list(range(T.shape[1]))
    price = _price(n, T.shape[1])
    while cols:
        A = np.column_stack([np.ones(n), T[:, cols]])
        if A.shape[1] >= n:
            return None
        coef, *_ = np.linalg.lstsq(A, y, rcond=None)
        res = y - A @ coef
        dof = n - A.shape[1]
        s2 = float(res @ res) / dof
        try:
            cov = np.linalg.inv(A.T @ A) * s2
        except np.linalg.LinAlgError:
            return None
        se = np.sqrt(np.maximum(np.diag(cov)[1:], 0.0))
        with np.errstate(all="ignore"):
            t = np.where(se > 0, np.abs(coef[1:]) / se, np.inf)
        if s2 <= 1e-28 * max(float(y @ y), 1e-300):  # exact: drop only the terms with no weight
            small = np.abs(coef[1:]) * np.std(T[:, cols], axis=0) <= 1e-9 * np.std(y)
            if not small.any():
                return cols
            cols = [c for c, s in zip(cols, small) if not s]
            continue
        k = int(np.argmin(t))
        if t[k] ** 2 >= price:
            return cols
        del cols[k]
    return cols


def _atoms(X: np.ndarray, basis: Basis) -> list[tuple[sympy.Expr, np.ndarray]]:
    """The factors of grown terms: x_j, sin x_j and cos x_j, and 1/x_j for an input of one sign."""
    v = basis.variables
    out = []
    for j in range(X.shape[1]):
        x = X[:, j]
        if np.ptp(x) <= 0:
            continue
        out.append((v[j], x))
        if np.all(x > 0) or np.all(x < 0):
            out.append((1 / v[j], 1.0 / x))
        for name, f, g in (("sin", sympy.sin, np.sin), ("cos", sympy.cos, np.cos)):
            if basis.has(name):
                out.append((f(v[j]), g(x)))
    return out


def _grown(X: np.ndarray, ys: np.ndarray, basis: Basis, max_terms: int, tuning: Tuning,
           first: int = 0, pairs: bool = False) -> tuple[list[sympy.Expr], np.ndarray, list[list[int]]]:
    """Forward stepwise over products grown one factor at a time (as MARS grows its basis):
    the candidates of each step are the atoms (:func:`_atoms`) and every chosen term times an
    atom (``pairs``: also times two, with at most ``paired_atoms`` atoms: x1 cos z and
    x1 x3 cos(z)^2 are reached without first choosing x1 or cos z alone; these paths add to
    those of one atom a step, not replace them, since with many more candidates each step's
    price is higher and the path can go astray elsewhere), so x1 x5 x6 cos(x4) / (x2 x3) is
    reached through x1, x1 x5, ...; a term is a product of at most ``grown_max_factors`` atoms;
    the same price per term as :func:`_stepwise`, for the candidates of that step. (terms,
    their columns, the path as lists of term indices)."""
    atoms = _atoms(X, basis)
    if not atoms or (pairs and len(atoms) > tuning.paired_atoms):
        return [], np.zeros((ys.size, 0)), []
    n = ys.size
    A = np.column_stack([col for _, col in atoms])
    # what a step may multiply a term by: each atom, then (pairs) that atom times each later one
    steps = [e for a in range(len(atoms)) for e in [(a,)] + ([(a, b) for b in range(a, len(atoms))] if pairs else [])]
    single = np.array([len(e) == 1 for e in steps])
    with np.errstate(all="ignore"):
        S = np.column_stack([A[:, e[0]] if len(e) == 1 else A[:, e[0]] * A[:, e[1]] for e in steps])
    keys: list[tuple[int, ...]] = []
    cols: list[np.ndarray] = []
    Q = np.ones((n, 1)) / np.sqrt(n)
    r = ys - Q @ (Q.T @ ys)
    sse0 = float(r @ r)
    path: list[list[int]] = []
    for _ in range(min(max_terms, n - 2)):
        names: list[tuple[int, ...]] = []
        blocks = []
        seen = set(keys)
        for base, col in [((), np.ones(n))] + list(zip(keys, cols)):
            if len(base) >= tuning.grown_max_factors:
                continue
            use = np.ones(len(steps), dtype=bool) if len(base) + 2 <= tuning.grown_max_factors else single
            new = []
            for k in np.flatnonzero(use):
                key = tuple(sorted(base + steps[k]))
                if key not in seen:
                    seen.add(key)
                    names.append(key)
                    new.append(k)
            if new:
                with np.errstate(all="ignore"):
                    blocks.append(col[:, None] * S[:, new])
        if not blocks:
            break
        C = np.concatenate(blocks, axis=1)
        with np.errstate(all="ignore"):
            ok = np.all(np.isfinite(C), axis=0) & (np.ptp(C, axis=0) > 0) & (np.max(np.abs(C), axis=0) < 1e150)
        if not ok.any():
            break
        names = [k for k, o in zip(names, ok) if o]
        C = C[:, ok]
        raw = C
        C = C / np.linalg.norm(C, axis=0)
        Cc = C - Q @ (Q.T @ C)
        norms = np.einsum("ij,ij->j", Cc, Cc)
        gain = np.where(norms > 1e-12, (Cc.T @ r) ** 2 / np.maximum(norms, 1e-300), -1.0)
        j = int(np.argsort(-gain, kind="stable")[min(first, gain.size - 1)] if not keys else np.argmax(gain))
        sse = float(r @ r)
        if gain[j] <= 0 or n * np.log(sse / max(sse - gain[j], 1e-300 * sse0)) <= _price(n, len(names)):
            break
        keys.append(names[j])
        cols.append(raw[:, j])
        path.append(list(range(len(keys))))
        q = Cc[:, j] / np.sqrt(norms[j])
        r = r - q * (q @ r)
        Q = np.column_stack([Q, q])
        if float(r @ r) <= 1e-24 * sse0:
            break
    exprs = [sympy.Mul(*[atoms[a][0] for a in key]) for key in keys]
    return exprs, (np.column_stack(cols) if cols else np.zeros((n, 0))), path


def sum_trees(X: np.ndarray, y: np.ndarray, basis: Basis, max_terms: int = 8, grown: bool = True,
              exact: bool = False, tuning: Tuning = TUNING) -> list[np.ndarray]:
    """Skeletons c_0 + sum c_k t_k proposed by forward stepwise and backward elimination over
    :func:`term_library` on (X, y) where one of them explains ``sum_explained`` of the variance
    (``exact``: all but ``sum_exact``), and (``grown``) by the stepwise paths over grown products
    (:func:`_grown`, from each of the ``grown_beam`` best first terms: two alike on the data, the
    one that is not the law's leads the greedy path astray) where one of those explains all but
    ``sum_exact`` and no library sum does:
    distinct trees of at most ``max_terms`` terms over ``basis`` (a longer sum is a series: it
    fits the sample and not beyond it), the library's first. Grown products choose among hundreds of
    products, which on noisy data fit the noise (1.5 x1 x2 - 0.14 / x2^2 at 1 % noise): on data
    no path describes exactly, only the short sums that fit as well as a smooth polynomial
    (:func:`~superpos.symreg.noise_floor.as_good`) are kept of them, and so of the library's
    sums where ``exact``."""
    if X.shape[0] < 8 or not np.all(np.isfinite(y)) or np.ptp(y) == 0:
        return []
    exprs, T, degree = term_library(X, basis, tuning)
    if not exprs:
        return []
    with np.errstate(all="ignore"):
        scale = np.std(T, axis=0)
    usable = np.isfinite(scale) & (scale > 0) & np.all(np.isfinite(T), axis=0)
    if not usable.all():  # a term constant or overflowing on these data (inputs over decades) cannot be scaled
        keep = np.flatnonzero(usable)
        exprs, T, degree, scale = [exprs[k] for k in keep], T[:, keep], np.asarray(degree)[keep], scale[keep]
        if not exprs:
            return []
    Ts = (T - T.mean(axis=0)) / scale
    ys = (y - y.mean()) / np.std(y)
    picks = _stepwise(Ts, ys, min(max_terms, X.shape[0] // 3))
    if picks:  # the longest path pruned: an early wrong pick the later ones made redundant goes
        kept = _backward(Ts[:, picks[-1]], ys)
        if kept:
            picks.append([picks[-1][c] for c in kept])
    for d in range(1, tuning.sum_max_degree + 1):
        cols = [k for k in range(len(exprs)) if 0 < degree[k] <= d]
        if cols and len(cols) <= min(tuning.max_backward, X.shape[0] - 3):
            kept = _backward(Ts[:, cols], ys)
            if kept:
                picks.append([cols[c] for c in kept])
    share = [_unexplained(Ts[:, cols], ys) for cols in picks]
    floor = None
    if exact and not any(e <= tuning.sum_exact for e in share):
        floor = noise_floor(X, ys, tuning)
        picks = [cols for cols, e in zip(picks, share) if as_good(cols, e, ys.size, floor, tuning)]
    elif not any(e <= (tuning.sum_exact if exact else 1.0 - tuning.sum_explained) for e in share):
        picks = []  # no sparse sum describes these data: a noisy table, where sums only overfit
    products: list[list[int]] = []
    beams = [(first, pairs) for pairs in (False, True) for first in range(tuning.grown_beam)]
    for first, pairs in (beams if grown and not any(e <= tuning.sum_exact for e in share) else []):
        terms, G, path = _grown(X, ys, basis, min(max_terms, X.shape[0] // 3), tuning, first, pairs)
        if not terms:
            continue
        full = [len(exprs) + k for k in path[-1]]
        exprs = exprs + terms
        Ts = np.column_stack([Ts, (G - G.mean(axis=0)) / np.std(G, axis=0)])
        kept = _backward(Ts[:, full], ys)
        products += [full] + ([[full[c] for c in kept]] if kept else [])
    product_shares = [_unexplained(Ts[:, cols], ys) for cols in products]
    if any(e <= tuning.sum_exact for e in product_shares):
        picks += products
    elif products:
        floor = noise_floor(X, ys, tuning) if floor is None else floor
        picks += [cols for cols, e in zip(products, product_shares) if as_good(cols, e, ys.size, floor, tuning)]
    return sum_skeletons([[exprs[c] for c in sorted(cols)] for cols in picks], basis, max_terms)


def sum_skeletons(term_lists: list[list[sympy.Expr]], basis: Basis, max_terms: int) -> list[np.ndarray]:
    """The distinct skeletons c_0 + sum c_k t_k over ``basis`` of the lists of terms (a term
    repeated in a list counted once), those of at most ``max_terms`` terms that the basis can
    write."""
    out, seen = [], set()
    for terms in term_lists:
        terms = list(dict.fromkeys(terms))  # grown paths can repeat a term
        key = frozenset(terms)
        if key in seen or len(terms) > max_terms:
            continue
        seen.add(key)
        expr = sympy.Symbol("c0") + sum(sympy.Symbol(f"c{k + 1}") * t for k, t in enumerate(terms))
        try:
            out.append(from_sympy(expr, basis)[0])
        except NotRepresentable:
            continue
    return out


def _wrapped(tree: np.ndarray, basis: Basis, outer: tuple[str, ...]) -> np.ndarray:
    """``tree`` below the prefix of the functions named in ``outer`` ("one" for the number 1,
    the first argument of a division)."""
    head = [basis.index("1" if name == "one" else name) for name in outer]
    return np.concatenate([np.array(head, dtype=np.int64), np.asarray(tree, dtype=np.int64)])


def transformed_sums(X: np.ndarray, y: np.ndarray, basis: Basis, keep: int = 2,
                     tuning: Tuning = TUNING) -> list[tuple[np.ndarray, np.ndarray]]:
    """(tree, constants) of y = T^-1(sum of terms) for T(y) = y, 1/y, y^2 and 1/y^2 (the last
    three for y of one sign): the sums :func:`sum_trees` selects for T(y) where one of them
    describes T(y) exactly (a reduction of clean data: on noisy data the four transforms,
    each searched, add chances for a spurious winner) or, on noisy data, the short sums that fit
    T(y) as well as a smooth polynomial does (:func:`~superpos.symreg.noise_floor.as_good`),
    their constants fitted to T(y) (where they enter linearly: exact least squares), the ``keep`` that fit
    T(y) best per transform. 1/sqrt(q1^2 + q2^2 - 2 q1 q2 cos a) (a charge's potential) is a sum
    of terms only as 1/y^2; the wrapped trees need no new constant."""
    from .fitting import fit_many

    if not np.all(np.isfinite(y)) or np.ptp(y) == 0:
        return []
    transforms = [((), y)]
    if np.all(y > 0) or np.all(y < 0):
        neg = ("neg",) if y[0] < 0 else ()
        a = np.abs(y)
        transforms += [(neg + ("div", "one"), 1.0 / a), (neg + ("sqrt",), a * a),
                       (neg + ("div", "one", "sqrt"), 1.0 / (a * a))]
    out = []
    for outer, t in transforms:
        if not (all(basis.has("1" if n == "one" else n) for n in outer) and np.all(np.isfinite(t))):
            continue
        trees = sum_trees(X, t, basis, exact=True, tuning=tuning)
        if not trees:
            continue
        fits = fit_many(trees, basis, X, t, n_starts=1, max_iter=20)
        for k in np.argsort([e for _, e, _ in fits], kind="stable")[:keep]:
            if np.all(np.isfinite(fits[k][0])):
                out.append((_wrapped(trees[k], basis, outer), fits[k][0]))
    return out

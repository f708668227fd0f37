"""The corpus prior: random admissible trees, their constants and input ranges, and the
accept/reject rules that turn a draw into a training formula.

Trees are drawn top-down from the basis's weights (inner functions damped with depth),
constants at random, then canonicalised through sympy (x + x and 2*x become one label).
Input points are uniform in a random range per variable. Rejected: non-finite targets,
|y| > ``MAX_TARGET``, constant targets, trees beyond the size and depth limits.

Two options bring measured data's habits into the prior (both off by default, so older
corpora regenerate unchanged): ``offset_share`` of the ranges are narrow and far from zero
(kelvin, not degrees C: [lo, lo (1 + U(0.1, 0.6))], lo ~ U(1.5, 7)), and ``noisy_share`` of
the targets carry additive noise, y + N(0, gamma rms(y)) with gamma drawn from
``NOISE_LEVELS``; the label stays the noiseless law.
"""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis
from ..core.symbolic import canonicalize
from ..core.timecap import CapExceeded, capped
from ..core.tree import evaluate, tree_depth
from ..exceptions import NotRepresentable, SuperposError
from .schema import MAX_DEPTH, MAX_SIZE

__all__ = ["sample_tree", "draw_formulas", "fingerprint", "check_prior", "distinct_formulas_bound", "MAX_TARGET", "NOISE_LEVELS"]

MAX_TARGET = 1e6
"""Largest |y| of an accepted training formula."""

CANONICAL_SECONDS = 2.0
"""A draw whose canonical form takes sympy longer is rejected (one sqrt of a long product ran
for minutes and stalled the corpus; ordinary draws take milliseconds)."""

NOISE_LEVELS = (0.001, 0.01, 0.1)
"""Noise levels gamma: y + N(0, gamma * rms(y)), the convention of La Cava et al. (2021)."""

_PROBE = np.array([-2.3, -1.1, -0.4, 0.37, 0.9, 1.7, 2.9])


def _int_or_range(v, lo: int, hi: int, what: str) -> None:
    vals = v if isinstance(v, (tuple, list)) else (v,)
    if len(vals) not in (1, 2) or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                                           and lo <= k <= hi for k in vals) or (len(vals) == 2 and vals[0] > vals[1]):
        raise SuperposError(f"{what} must be an integer in [{lo}, {hi}] or a range (lo, hi) within it, got {v!r}")


def check_prior(basis: Basis, n_formulas: int, max_depth: int, max_size: int, min_size: int, n_points,
                n_variables, depth_decay: float, offset_share: float = 0.0, noisy_share: float = 0.0) -> None:
    """Refuse settings that cannot give a corpus (before any work, instead of a hang)."""
    if not (isinstance(n_formulas, (int, np.integer)) and 1 <= n_formulas <= 100_000_000):
        raise SuperposError(f"the number of formulas must be in [1, 100000000], got {n_formulas!r}")
    _int_or_range(max_depth, 1, MAX_DEPTH, "max_depth")  # the bounds Corpus.load reads back
    _int_or_range(max_size, 1, MAX_SIZE, "max_size")
    _int_or_range(min_size, 1, max_size, "min_size")
    _int_or_range(n_points, 5, 100_000, "n_points")
    if n_variables is not None:
        _int_or_range(n_variables, 1, basis.n_variables, "n_variables (at most the basis's variables)")
    if not 0.0 < float(depth_decay) <= 1.0:
        raise SuperposError(f"depth_decay must be in (0, 1], got {depth_decay!r}")
    for name, v in (("offset_share", offset_share), ("noisy_share", noisy_share)):
        if not 0.0 <= float(v) <= 1.0:
            raise SuperposError(f"{name} must be a share in [0, 1], got {v!r}")
    most = distinct_formulas_bound(basis, max_size, max(n_variables) if isinstance(n_variables, (tuple, list))
                                   else (n_variables or basis.n_variables))
    if most < n_formulas:
        raise SuperposError(f"trees of at most {max_size} nodes over this basis give at most {int(most)} distinct "
                            f"formulas, fewer than the {n_formulas} asked for: raise max_size or ask for fewer")


def distinct_formulas_bound(basis: Basis, max_size, n_variables: int) -> float:
    """An upper bound on the distinct formulas (each reading an input) of at most ``max_size``
    nodes: inf where a free constant can join a variable (c * x1 takes 3 nodes, and every value
    of c is another formula), else the count of trees over the variables, numbers and functions
    (a tree of s nodes: a unary function over s - 1 nodes, or a binary one over a + b = s - 1)."""
    top = max(max_size) if isinstance(max_size, (tuple, list)) else int(max_size)
    arity = [f.arity for f in basis.functions[1:] if f.kind not in ("variable", "constant", "number")]
    unary, binary = arity.count(1), sum(1 for a in arity if a >= 2)
    if basis.constant >= 0 and binary and top >= 3:
        return float("inf")
    leaves = n_variables + sum(1 for f in basis.functions[1:] if f.kind == "number")
    count = [0, leaves]
    for size in range(2, top + 1):
        count.append(unary * count[size - 1] + binary * sum(count[a] * count[size - 1 - a] for a in range(1, size - 1)))
        if sum(count) > 1e12:
            return float("inf")
    return float(sum(count))


def sample_tree(basis: Basis, rng: np.random.Generator, max_depth: int = 5, depth_decay: float = 0.75,
                n_variables: int | None = None) -> np.ndarray:
    """One random admissible tree: at depth d an inner function has weight
    ``weight * depth_decay**(d - 1)``; at max_depth only leaves are drawn."""
    ar = basis.arities
    m = basis.n_variables if n_variables is None else n_variables
    w = basis.weights.copy()
    w[0] = 0.0
    for k, f in enumerate(basis.functions):
        if f.kind == "variable" and f.index >= m:
            w[k] = 0.0
    inner = ar > 0
    out: list[int] = []
    stack = [1]
    while stack:
        d = stack.pop()
        p = w * np.where(inner, depth_decay ** (d - 1) if d < max_depth else 0.0, 1.0)
        c = int(rng.choice(len(p), p=p / p.sum()))
        out.append(c)
        stack.extend([d + 1] * int(ar[c]))
    return np.array(out, dtype=np.int64)


def _sample_range(rng: np.random.Generator, offset_share: float = 0.0) -> tuple[float, float]:
    if offset_share and rng.random() < offset_share:
        lo = rng.uniform(1.5, 7.0)
        return lo, lo * (1.0 + rng.uniform(0.1, 0.6))
    u = rng.random()
    if u < 0.4:
        a = rng.uniform(1.0, 5.0)
        return -a, a
    if u < 0.8:
        lo = rng.choice([0.0, 0.0, rng.uniform(0.0, 2.0)])
        return lo, lo + rng.uniform(1.0, 8.0)
    lo = rng.uniform(-6.0, 2.0)
    return lo, lo + rng.uniform(1.0, 8.0)


def _sample_constant(rng: np.random.Generator) -> float:
    return float(np.round(rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 3.0), 2))


def fingerprint(tree, consts, basis: Basis, m: int):
    X = np.stack([np.roll(_PROBE, k) for k in range(m)], axis=1)
    v = evaluate(tree, basis, X, consts)
    with np.errstate(all="ignore"):
        v = np.where(np.isfinite(v), v, 0.0)
        return (np.round(v, 6) + 0.0).tobytes()  # + 0.0 folds -0.0 into 0.0


def draw_formulas(basis_names, seed, n, max_depth, max_size, n_points, n_variables, depth_decay,
                  min_size, offset_share: float = 0.0, noisy_share: float = 0.0):
    basis = Basis(basis_names)
    rng = np.random.default_rng(seed)
    trees, consts, data, prints = [], [], [], []
    tries = 0
    while len(trees) < n and tries < 200 * n + 1000:
        tries += 1
        m = n_variables if isinstance(n_variables, int) else int(rng.integers(n_variables[0], n_variables[1] + 1))
        raw = sample_tree(basis, rng, max_depth, depth_decay, m)
        c = [_sample_constant(rng) for _ in range(basis.n_constants(raw))]
        try:
            t, cs = capped(lambda: canonicalize(raw, basis, c), CANONICAL_SECONDS)
        except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError, CapExceeded):
            continue  # sympy's own limits on exotic expressions also reject the draw, as does a runaway
        cs = np.array([float(v) for v in cs], dtype=np.float64)
        if not (min_size <= t.size <= max_size) or tree_depth(t, basis.arities) > max_depth:
            continue
        used = {basis.functions[k].index for k in t if basis.functions[k].kind == "variable"}
        if not used:
            continue
        n_pts = n_points if isinstance(n_points, int) else int(rng.integers(n_points[0], n_points[1] + 1))
        ranges = [_sample_range(rng, offset_share) for _ in range(m)]
        X = np.column_stack([rng.uniform(lo, hi, n_pts) for lo, hi in ranges])
        y = evaluate(t, basis, X, cs)
        if not np.all(np.isfinite(y)) or np.max(np.abs(y)) > MAX_TARGET:
            continue
        if np.std(y) <= 1e-8 * (1.0 + np.mean(np.abs(y))):
            continue
        if noisy_share and rng.random() < noisy_share:
            y = y + rng.normal(0.0, NOISE_LEVELS[rng.integers(len(NOISE_LEVELS))] * np.sqrt(np.mean(y**2)), len(y))
        trees.append(t)
        consts.append(cs)
        data.append((X, y))
        prints.append(fingerprint(t, cs, basis, basis.n_variables))
    return trees, consts, data, prints



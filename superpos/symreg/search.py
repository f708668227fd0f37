"""Local search around the decoder's candidates: single edits of the best-fitting trees.

The decoder ranks skeletons by the model's likelihood only; a formula the model ranks far
down (sin(x1) + sin(x2^2) may score 8 nats below the 1000th tree) is often one edit
away from a candidate the data already likes (0.9 x2^2 + sin(x1)). Each round takes the
``n_seeds`` candidates with the lowest validation error, builds every tree one edit away,
fits them all in one compiled call and keeps the new ones; the data, not the model, ranks
them. Edits of the subtree at a node: another function of the same arity (relabel), a unary
function around it (wrap), one of its children instead of it (collapse), and a binary
function joining it with a leaf (add, sub, mul, div with c or a variable; sub and div
either side, add and mul once, the other side being the same tree). A free constant is
neither wrapped nor joined with c: u(c) and c op c are a (narrower) free constant again,
which cannot fit better than the tree it came from.
"""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis
from ..core.tree import subtree_ends
from .candidates import Candidate, Points, fit_candidates, structural_hashes
from .selection import rank_candidates
from .settings import FormulaSettings

__all__ = ["neighbours", "depths_and_scores", "local_search"]


def neighbours(tree, basis: Basis, n_variables: int, max_size: int = 14) -> list[np.ndarray]:
    """Every tree one edit away from ``tree`` (see the module), over the first
    ``n_variables`` variables, with at most ``max_size`` nodes (duplicates possible)."""
    t = np.asarray(tree, dtype=np.int64)
    ar = basis.arities
    funcs = basis.functions
    usable = [k for k, f in enumerate(funcs)
              if k and not (f.kind == "variable" and f.index >= n_variables)]
    by_arity: dict[int, list[int]] = {}
    for k in usable:
        by_arity.setdefault(int(ar[k]), []).append(k)
    unary = by_arity.get(1, [])
    binary = [k for k in by_arity.get(2, []) if funcs[k].name in ("add", "sub", "mul", "div")]
    joiners = [k for k in by_arity.get(0, []) if funcs[k].kind in ("constant", "variable")]
    free = {k for k, f in enumerate(funcs) if f.kind == "constant"}
    end = subtree_ends(t, ar)
    out: list[np.ndarray] = []
    for k in range(t.size):
        head, sub, tail = t[:k], t[k:end[k]], t[end[k]:]
        for c in by_arity.get(int(ar[t[k]]), []):
            if c != t[k]:
                new = t.copy()
                new[k] = c
                out.append(new)
        at_free = int(t[k]) in free  # u(c) and c op c are only a free constant again
        leaves = [j for j in joiners if not (at_free and j in free)]
        for u in () if at_free else unary:
            out.append(np.concatenate([head, [u], sub, tail]))
        child = k + 1
        for _ in range(int(ar[t[k]])):
            out.append(np.concatenate([head, t[child:end[child]], tail]))
            child = end[child]
        for b in binary:
            for leaf in leaves:
                out.append(np.concatenate([head, [b], sub, [leaf], tail]))
                if funcs[b].name in ("sub", "div"):  # add and mul: the same tree either side
                    out.append(np.concatenate([head, [b, leaf], sub, tail]))
    return [n for n in out if n.size <= max_size]


def depths_and_scores(S: np.ndarray, trees, arities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tree: its depth and the sum of S (Dd, G, H, A, H) over its edges (depths beyond
    Dd use the last layer)."""
    from ..structure.decode import edge_rows  # numba loads on first use, not at import

    if not trees:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    e, offsets = edge_rows(trees, arities)
    Dd, G, _, A, _ = S.shape
    v = S[np.minimum(e[:, 0] - 1, Dd - 1), e[:, 1] if G > 1 else 0, e[:, 2], np.minimum(e[:, 3], A - 1), e[:, 4]]
    return np.maximum.reduceat(e[:, 0], offsets[:-1]), np.add.reduceat(v, offsets[:-1])


def local_search(cands: list[Candidate], S: np.ndarray, basis: Basis, points: Points, settings: FormulaSettings,
                 seed: int) -> list[Candidate]:
    """``settings.search_rounds`` rounds: each fits every tree one edit away from the
    ``settings.search_seeds`` best candidates (``cands`` come best first, and go back best
    first). ``S`` scores the new trees' edges (their log-likelihood, for the tie rule). New
    trees may be one level deeper than the deepest candidate."""
    rtol = settings.tie_tolerance(points.n_validation)
    n_variables = points.X.shape[1]
    seen_raw: set = set()
    seen = set(structural_hashes([c.tree for c in cands], basis).tolist())
    max_depth = int(depths_and_scores(S, [c.tree for c in cands], basis.arities)[0].max()) + 1
    for _ in range(settings.search_rounds):
        fresh = []
        for c in cands[:settings.search_seeds]:
            for t in neighbours(c.tree, basis, n_variables):
                raw = t.tobytes()
                if raw not in seen_raw:
                    seen_raw.add(raw)
                    fresh.append(t)
        new = []
        for t, key in zip(fresh, structural_hashes(fresh, basis).tolist()):
            if key not in seen:
                seen.add(key)
                new.append(t)
        depth, score = depths_and_scores(S, new, basis.arities)
        keep = np.flatnonzero(depth <= max_depth)
        if not keep.size:
            break
        ranked = [(len(cands) + r, float(score[j]), new[j]) for r, j in enumerate(keep)]
        cands = rank_candidates(cands + fit_candidates(ranked, basis, points, settings, seed), rtol)
    return cands

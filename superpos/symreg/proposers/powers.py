"""Power laws with fitted exponents (source ``powers``): c x1^a1 ... xk^ak over the inputs of one
sign (no zeros), and over each of them c x^a, c x^a e^(b x) and c x^a e^(b / x) (a power law
with a cut-off, a gamma-shaped response, thermionic emission), the exponents free (|x|^a =
exp(a log|x|) in the tree), started from the least-squares line of log|y| on the log|x_i| of
the fitting points and refined by least squares on y itself; then the products' snapped twins
(:func:`snapped_twins`: c x1 / x2 / x3 where the exponents snap to 1, -1, -1). Run after the
structure model, whose trees of the same power (2 x, x^2) are shorter than exp(a log x), and
even after an exact candidate."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidate, power_saving
from ..engine import Search
from ...core.tree import from_string
from ...exceptions import NotRepresentable, SuperposError
from ..snapping import snap_constants

__all__ = ["PowersProposer", "power_trees", "snapped_twins"]


def _one_sign(v: np.ndarray) -> bool:
    return bool(np.all(v > 0) or np.all(v < 0))


def power_trees(X: np.ndarray, y: np.ndarray, basis) -> list[tuple[np.ndarray, np.ndarray]]:
    """(tree, start) of the power law over all inputs of one sign and over each alone, and of the
    power law times an exponential of x or 1/x over each; none where the basis lacks mul, exp,
    log or c. The start: least squares of log|y| on the points of the targets' common sign whose
    |y| is at least the median there (where noise of a fixed size leaves the small values of a
    law spanning decades, and their signs, to chance, the large ones still follow the law); for
    the products, also on the largest 10 % and 3 % (at least 2 more points than unknowns): a
    law over 22 decades at 1 % noise keeps 4 of 200 values above the noise."""
    sign = 1.0 if np.sum(y > 0) >= np.sum(y < 0) else -1.0
    same = sign * y > 0
    keep = same & (np.abs(y) >= np.median(np.abs(y[same]))) if same.any() else same
    if not (keep.sum() >= 4 and all(basis.has(n) for n in ("mul", "exp", "log")) and basis.constant >= 0):
        return []
    cols = [j for j in range(min(X.shape[1], basis.n_variables)) if _one_sign(X[:, j]) and np.ptp(X[:, j]) > 0]
    groups = [cols] + ([[j] for j in cols] if len(cols) > 1 else [])
    out = []
    size = np.abs(y[same])
    for g in groups if cols else []:
        text = f"exp(mul(c, log({basis.variables[g[-1]].name})))"
        for j in reversed(g[:-1]):
            text = f"mul(exp(mul(c, log({basis.variables[j].name}))), {text})"
        tree = from_string(f"mul(c, {text})", basis)
        subsets = [keep] + [same & (np.abs(y) >= np.quantile(size, 1.0 - share))
                            for share in (0.1, 0.03) if share * size.size >= len(g) + 3]
        seen = []
        for rows in subsets:
            A = np.column_stack([np.ones(rows.sum())] + [np.log(np.abs(X[rows, j])) for j in g])
            coef, *_ = np.linalg.lstsq(A, np.log(np.abs(y[rows])), rcond=None)
            if not np.all(np.isfinite(coef)) or any(np.allclose(coef[1:], s, atol=0.05) for s in seen):
                continue
            seen.append(coef[1:])
            out.append((tree, np.concatenate([[sign * np.exp(np.clip(coef[0], -700, 700))], coef[1:]])))
    X, y = X[keep], y[keep]
    ly = np.log(np.abs(y))
    for j in cols:  # c x^a e^(b x) (gamma-shaped, a power law with a cut-off) and c x^a e^(b / x)
        x = X[:, j]
        name = basis.variables[j].name
        for extra, text in ((x, f"exp(mul(c, {name}))"), (1.0 / x, f"exp(div(c, {name}))")):
            A = np.column_stack([np.ones(y.size), np.log(np.abs(x)), extra])
            coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
            if np.all(np.isfinite(coef)):
                start = np.array([sign * np.exp(np.clip(coef[0], -700, 700)), coef[1], coef[2]])
                out.append((from_string(f"mul(c, mul(exp(mul(c, log({name}))), {text}))", basis), start))
    return out


class PowersProposer:
    """Power laws; the plan runs them after the model, and even after an exact candidate or
    once the effort is spent: a few fits, and an exact candidate may be a long twin of the
    power law (x^3 (0.0017 log(sqrt x + 0.77) + 0.0115) for 0.0123 x^3.05), which the shorter
    law then beats in the tie rule."""

    name = "powers"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        found = power_trees(p.X[p.fit], p.y[p.fit], search.work)
        names = tuple(search.work.to_list())
        simplest = min((t.size + search.work.n_constants(t) - power_saving(t, names) for t, _ in found),
                       default=0)
        if search.exact(pool) and pool[0].complexity <= simplest:  # no power law can be a shorter twin
            return []
        cands = search.fit([t for t, _ in found], search.work, self.name, starts=[s for _, s in found],
                           scores=search.floor(pool), first_rank=len(pool), full=True)
        errors = [c.nmse_validation for c in pool + cands if np.isfinite(c.nmse_validation)]
        # a power law 10x worse than the best, or below R^2 0.99, is not the law its twin would write
        limit = min(10.0 * min(errors, default=np.inf), 0.01)
        twins = snapped_twins([c for c in cands if c.nmse_validation <= limit], search.work, p.X[p.fit], p.y[p.fit])
        return cands + search.fit([t for t, _ in twins], search.work, self.name, starts=[s for _, s in twins],
                                  scores=search.floor(pool), first_rank=len(pool) + len(cands), full=True)


def snapped_twins(cands: list[Candidate], basis, X: np.ndarray, y: np.ndarray, top: int = 4) -> list:
    """(tree, start) of the best ``top`` products of powers with their exponents snapped on the
    fitting points (:func:`~superpos.symreg.snapping.snap_constants`) and written with the
    basis's own functions: c x1^0.998 x2^-1.003 x3^-0.995 becomes c x1 / x2 / x3, one constant
    and 7 nodes, which the tie rule and the selection then see as the short law it is (one
    division at a time: x2 x3 may be below the protected division's 1e-12 where x2 and x3 are
    not). An exponent that does not snap to an integer or a half stays a fitted power."""
    out, seen = [], set()
    best = sorted((c for c in cands if np.isfinite(c.nmse_validation)), key=lambda c: c.nmse_validation)[:top]
    for c in best:
        inputs = [j for j in range(basis.n_variables) if basis.index(basis.variables[j].name) in c.tree]
        if c.constants.size != len(inputs) + 1 or not np.all(np.isfinite(c.constants)):
            continue  # a cut-off form, not a product of powers
        snapped = snap_constants(c.tree, basis, X, y, c.constants)
        if np.array_equal(snapped[1:], c.constants[1:]):
            continue
        text, start = "c", [float(snapped[0])]
        for j, a in zip(inputs, snapped[1:]):
            x = basis.variables[j].name
            step = _power_step(text, x, float(a), X[:, j], basis)
            if step is None:
                text = f"mul({text}, exp(mul(c, log({x}))))"
                start.append(float(a))
            else:
                text = step
        try:
            tree = from_string(text, basis)
        except (ValueError, SuperposError, NotRepresentable):
            continue
        if tree.tobytes() not in seen:
            seen.add(tree.tobytes())
            out.append((tree, np.asarray(start, dtype=np.float64)))
    return out


_POWERS = {1.0: "{x}", 2.0: "pow2({x})", 3.0: "pow3({x})", 0.5: "sqrt({x})"}


def _power_step(acc: str, x: str, a: float, values: np.ndarray, basis) -> str | None:
    """acc times x^a with the basis's own functions (a in +-1, +-2, +-3, +-1/2), one
    multiplication or division; None where a is another value, the function is missing, a
    root would take a negative input or a divisor would come within 1e-10 of 0."""
    form = _POWERS.get(abs(a))
    size = np.abs(values)
    if form is None or a == 0 or (abs(a) == 0.5 and np.min(values) <= 0):
        return None
    name = form.split("(")[0]
    if "(" in form and not basis.has(name):
        return None
    if a < 0 and (not basis.has("div") or float(np.min(size)) ** abs(a) <= 1e-10):
        return None
    if a > 0 and not basis.has("mul"):
        return None
    return f"{'mul' if a > 0 else 'div'}({acc}, {form.format(x=x)})"

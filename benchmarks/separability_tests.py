"""How often the separability tests fire, on separable laws and on non-separable controls,
and the composed-law test (y = F(g(x)): a transform of y splits where y does not,
:func:`superpos.symreg.proposers.outer.firing`) on composed laws and the same controls.

For each law of ``datasets/benchmarks/separable.tsv`` and ``separable_controls.tsv`` (one
sample of 200 points, seed 0), clean and at 1 % noise (y += N(0, (0.01 rms y)^2)), the tests
of :func:`superpos.symreg.separable.separations` run on a random 75 % of the points (the
fitting points of a search). A test "fires" when it proposes a partition: on a separable law
it is right when the partition is the law's finest split into disjoint groups (or a
coarsening of it), on a control every firing is a false positive. Time per call.

Run:  python benchmarks/separability_tests.py
"""
from __future__ import annotations

import time

import numpy as np
import sympy

from superpos.datasets import load_problems
from superpos.symreg.proposers.outer import firing
from superpos.symreg.separable import separations

INVERSE = {"comp_sqrt": "square", "comp_inv": "inverse", "comp_resistors": "inverse", "comp_exp": "log",
           "comp_log": "exp"}
"""The transform that undoes each composed law's outer function, by the start of its name."""


def groups(expr: sympy.Expr, kind: str, m: int) -> list[set]:
    """The law's finest split: inputs joined when they share a term (sum) or factor (product)."""
    args = sympy.Add.make_args(sympy.expand(expr)) if kind == "sum" else sympy.Mul.make_args(sympy.factor(expr))
    parent = list(range(m))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a in args:
        used = sorted(int(s.name[1:]) - 1 for s in a.free_symbols)
        for u in used[1:]:
            parent[find(u)] = find(used[0])
    out: dict = {}
    for j in range(m):
        out.setdefault(find(j), set()).add(j)
    return list(out.values())


def coarsens(found, finest) -> bool:
    """Every found part is a union of the finest parts."""
    return all(any(set(p) >= g for g in finest if g & set(p)) and all(g <= set(p) for g in finest if g & set(p))
               for p in found)


def samples(sets):
    """(set, problem, X, y at each noise level, the fitting rows) of one 200-point sample per law
    (seed 0), clean and at 1 % noise, on a random 75 % of the points (a search's fitting points)."""
    for name in sets:
        for p in load_problems(name):
            X, y = p.sample(random_state=0)
            fit = np.random.default_rng(0).permutation(len(y))[:int(0.75 * len(y))]
            for noise in (0.0, 0.01):
                yy = y + np.random.default_rng(1).normal(0, noise * np.sqrt(np.mean(y**2)), y.size)
                yield name, p, X, yy, noise, fit


def timed(f, *args):
    """(f(*args), seconds)."""
    t = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t


def table(rows, sets, head, right_set, false_positives):
    """One row per set and condition: laws, fired, right, false positives, median ms."""
    print(f"\n| {head} | condition | laws | fired | right | false positives | median ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in sets:
        for noise in (0.0, 0.01):
            r = [x for x in rows if x[0] == name and x[2] == noise]
            fired = sum(bool(x[3]) for x in r)
            right = sum(x[4] for x in r)
            print(f"| {name} | {'clean' if noise == 0 else '1 % noise'} | {len(r)} | {fired} | "
                  f"{right if name == right_set else '-'} | {false_positives(name, fired, right)} | "
                  f"{1e3 * np.median([x[5] for x in r]):.1f} |")


def main() -> None:
    rows = []
    for name, p, X, yy, noise, fit in samples(("separable", "separable_controls")):
        found, sec = timed(separations, X, yy, fit)
        right = False
        for s in found:
            finest = groups(p.expr(), s.kind, X.shape[1]) if name == "separable" else None
            right |= finest is not None and len(finest) > 1 and coarsens(s.parts, finest)
        rows.append((name, p.name, noise, [(s.kind, s.parts) for s in found], right, sec))
        print(f"{name:19s} {p.name:22s} noise={noise:<5} {'RIGHT' if right else '     '} {sec * 1e3:6.1f} ms "
              f"{[(s.kind, s.parts) for s in found]}")
    outer_rows = []
    for name, p, X, yy, noise, fit in samples(("composed", "separable_controls")):
        fired, sec = timed(firing, X, yy, fit)
        kinds = [k for k, _ in fired]
        right = name == "composed" and next(v for k, v in INVERSE.items() if p.name.startswith(k)) in kinds
        outer_rows.append((name, p.name, noise, kinds, right, sec))
        print(f"outer {name:19s} {p.name:22s} noise={noise:<5} {'RIGHT' if right else '     '} "
              f"{sec * 1e3:6.1f} ms {kinds}")
    table(rows, ("separable", "separable_controls"), "set", "separable",
          lambda name, fired, right: fired if name == "separable_controls" else fired - right)
    table(outer_rows, ("composed", "separable_controls"), "composed-law test", "composed",
          lambda name, fired, right: fired if name != "composed" else "-")


if __name__ == "__main__":
    main()

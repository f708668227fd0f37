"""Public symbolic-regression benchmark problems (Nguyen, Keijzer, ...) and the exact-
recovery test.

The definitions are tab-separated files in the repository's ``datasets/benchmarks/``
(one problem per row: name, formula, sampling range, number of points; ``#`` lines
give the source). Ranges: ``U[a,b]`` uniform random, ``E[a,b,step]`` evenly spaced, one
range for all variables or ``x1:...;x2:...`` per variable.
"""
from __future__ import annotations

import csv
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy

from ..core.symbolic import parse_formula
from ..exceptions import SuperposError
from ..symreg.render import round_constants, simplify_capped

__all__ = ["Problem", "Recovery", "load_problems", "available_problem_sets", "benchmark_folder", "is_exact_recovery",
           "solve_problem"]

_RANGE = re.compile(r"^\s*([UE])\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*(?:,\s*([-+0-9.eE]+)\s*)?\]\s*$")
_VAR = re.compile(r"x([1-9][0-9]*)")


def benchmark_folder() -> Path:
    """The shipped problem definitions, ``superpos/datasets/data/benchmarks`` (linked from
    ``datasets/benchmarks`` in the repository)."""
    return Path(__file__).resolve().parent / "data" / "benchmarks"


def available_problem_sets(folder=None) -> list[str]:
    folder = Path(folder) if folder else benchmark_folder()
    return sorted(p.stem for p in folder.glob("*.tsv"))


def _parse_range(text: str):
    m = _RANGE.match(text)
    if not m:
        raise SuperposError(f"bad sampling range {text!r}: use U[a,b] or E[a,b,step]")
    kind, lo, hi, step = m.group(1), float(m.group(2)), float(m.group(3)), m.group(4)
    if hi < lo or (kind == "E" and (step is None or float(step) <= 0)):
        raise SuperposError(f"bad sampling range {text!r}")
    return kind, lo, hi, float(step) if step else 0.0


@dataclass(frozen=True)
class Problem:
    """One benchmark problem. ``ranges`` has one (kind, low, high, step) per variable."""

    name: str
    formula: str
    n_variables: int
    ranges: tuple
    n_points: int
    source: str = ""

    @property
    def symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"x{k + 1}", real=True) for k in range(self.n_variables)]

    def expr(self) -> sympy.Expr:
        """The true formula, over real symbols x1, x2, ..."""
        return parse_formula(self.formula, {str(s): s for s in self.symbols})

    @property
    def positive_variables(self) -> list[str]:
        """Variables sampled from a range with a non-negative low end."""
        return [f"x{k + 1}" for k, r in enumerate(self.ranges) if r[1] >= 0]

    def function(self):
        """Vectorised numpy function of the true formula: f(X (n, m)) -> (n,)."""
        f = sympy.lambdify(self.symbols, self.expr(), modules="numpy")
        return lambda X: np.broadcast_to(np.asarray(f(*[X[:, k] for k in range(self.n_variables)]), dtype=np.float64),
                                         (X.shape[0],)).copy()

    def sample(self, n: int | None = None, random_state=None, fresh: bool = False):
        """Points (X, y). ``fresh=True`` draws ``n`` (default 1000) uniform points in the
        ranges' bounds whatever their kind (for test R^2); otherwise the published design:
        U ranges draw ``n`` (default ``n_points``) uniform points, E ranges give the grid."""
        rng = np.random.default_rng(random_state)
        if fresh or all(r[0] == "U" for r in self.ranges):
            n = int(n or (1000 if fresh else self.n_points))
            X = np.column_stack([rng.uniform(r[1], r[2], n) for r in self.ranges])
        else:
            axes = []
            for kind, lo, hi, step in self.ranges:
                if kind == "E":
                    axes.append(lo + step * np.arange(int(np.floor((hi - lo) / step + 1e-9)) + 1))
                else:
                    axes.append(rng.uniform(lo, hi, int(n or self.n_points)))
            X = np.column_stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")])
        with np.errstate(all="ignore"):
            y = self.function()(X)
        return X, y


def load_problems(name: str = "nguyen", folder=None, names=None) -> list[Problem]:
    """Problems of the set ``name`` (a file ``<name>.tsv`` in ``folder``, default
    :func:`benchmark_folder`); ``names`` keeps only those problems, in that order."""
    folder = Path(folder) if folder else benchmark_folder()
    path = folder / f"{name}.tsv"
    if not path.is_file():
        raise SuperposError(f"no benchmark set {name!r} in {folder} (available: {', '.join(available_problem_sets(folder))})")
    lines = path.read_text(encoding="utf-8").splitlines()
    source = " ".join(line.lstrip("# ").strip() for line in lines if line.startswith("#"))
    rows = list(csv.DictReader([line for line in lines if line.strip() and not line.startswith("#")], delimiter="\t"))
    out = []
    for row in rows:
        formula = row["formula"].strip()
        used = [int(v) for v in _VAR.findall(formula)]
        m = max(used) if used else 1
        spec = row["sampling_range"].strip()
        if ":" in spec:
            parts = dict(p.split(":", 1) for p in spec.split(";"))
            ranges = tuple(_parse_range(parts[f"x{k + 1}"]) for k in range(m))
        else:
            ranges = (_parse_range(spec),) * m
        n_pts = row.get("n_points", "-").strip()
        out.append(Problem(row["name"].strip(), formula, m, ranges, int(n_pts) if n_pts not in ("", "-") else 0, source))
    if names is not None:
        by = {p.name: p for p in out}
        missing = [n for n in names if n not in by]
        if missing:
            raise SuperposError(f"unknown problems {missing} in {name!r}")
        out = [by[n] for n in names]
    return out


def is_exact_recovery(predicted, true, positive=(), digits: int = 3, seconds: float = 2.0) -> bool:
    """True when ``predicted``, its constants rounded to ``digits`` significant digits (and
    snapped to small rationals within that precision), simplifies to ``true``. Variables
    named in ``positive`` are declared positive (log|x| = log x there). sympy works under
    a ``seconds`` cap; a timeout counts as not recovered."""
    pred = round_constants(parse_formula(predicted) if isinstance(predicted, str) else predicted, digits=digits)
    true = round_constants(parse_formula(true) if isinstance(true, str) else true, digits=digits)
    names = {s.name for s in pred.free_symbols | true.free_symbols}
    sym = {n: sympy.Symbol(n, positive=True) if n in set(positive) else sympy.Symbol(n, real=True) for n in names}
    pred = pred.xreplace({s: sym[s.name] for s in pred.free_symbols})
    true = true.xreplace({s: sym[s.name] for s in true.free_symbols})
    diff = pred - true
    if diff == 0:
        return True
    try:
        cheap = sympy.expand(sympy.expand_log(diff, force=True))
    except Exception:  # noqa: BLE001
        cheap = diff
    if cheap == 0:
        return True
    out = simplify_capped(cheap, seconds)
    if out == 0:
        return True
    return simplify_capped(sympy.expand_trig(out), seconds) == 0


@dataclass(frozen=True)
class Recovery:
    """One problem solved: ``exact`` recovery, ``r2`` on 1,000 fresh points, ``seconds`` of
    :func:`~superpos.symreg.pipeline.find_formula`, and the ``formula`` (or why it failed)."""

    name: str
    exact: bool
    r2: float
    seconds: float
    formula: str


def solve_problem(predictor, problem: Problem, settings, seed: int = 0) -> Recovery:
    """Sample ``problem`` (seed ``seed``), find its formula under ``settings`` (a
    :class:`~superpos.symreg.settings.FormulaSettings`) and score it (fresh points: seed + 1)."""
    from ..core.numeric import r2
    from ..symreg.pipeline import find_formula

    X, y = problem.sample(random_state=seed)
    t = time.perf_counter()
    try:
        f = find_formula(X, y, predictor, settings)
    except SuperposError as exc:
        return Recovery(problem.name, False, float("nan"), time.perf_counter() - t, f"(failed: {exc})")
    secs = time.perf_counter() - t
    Xf, yf = problem.sample(random_state=seed + 1, fresh=True)
    with np.errstate(all="ignore"):
        score = r2(yf, f.predict(Xf))
    exact = is_exact_recovery(f.expr, problem.formula, positive=problem.positive_variables)
    return Recovery(problem.name, bool(exact), float(score), secs, str(f.expr))

"""Public symbolic-regression benchmark problems (Nguyen, Keijzer, ...) and the exact-
recovery test.

The definitions are tab-separated files in the repository's ``datasets/benchmarks/``
(one problem per row: name, formula, sampling range, number of points; ``#`` lines
give the source). Ranges: ``U[a,b]`` uniform random, ``L[a,b]`` log-uniform random (0 < a: a
quantity spanning decades), ``E[a,b,step]`` evenly spaced, one range for all variables or
``x1:...;x2:...`` per variable; ends within +-1e40.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.formula import parse_formula
from ..core.symbolic import to_sympy
from ..core.timecap import CapExceeded, cap_available, capped
from ..exceptions import SuperposError
from .extrapolation import beyond_box, scored_r2
from ..symreg.render import simplify_capped

__all__ = ["Problem", "Recovery", "beyond_box", "scored_r2", "load_problems", "available_problem_sets", "benchmark_folder", "is_exact_recovery",
           "is_symbolic_solution", "recovery_forms", "solve_problem"]

_RANGE = re.compile(r"^\s*([UEL])\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*(?:,\s*([-+0-9.eE]+)\s*)?\]\s*$")
_VAR = re.compile(r"x([1-9][0-9]*)")
_REQUIRED = ("name", "formula", "sampling_range")
# limits on a benchmark file (users pass their own): problems, points, |range ends|, grid points per variable
# and in all, points and values of one sample, file size, seconds to read the formulas
_MAX_PROBLEMS, _MAX_N_POINTS, _MAX_ABS, _MAX_AXIS, _MAX_GRID = 10_000, 100_000, 1e40, 100_000, 1_000_000
_MAX_SAMPLE, _MAX_VALUES, _MAX_FILE_BYTES, _MAX_SECONDS = 1_000_000, 10_000_000, 64 << 20, 60


def benchmark_folder() -> Path:
    """The shipped problem definitions, ``superpos/datasets/data/benchmarks`` (linked from
    ``datasets/benchmarks`` in the repository)."""
    return Path(__file__).resolve().parent / "data" / "benchmarks"


def available_problem_sets(folder=None) -> list[str]:
    folder = Path(folder) if folder else benchmark_folder()
    return sorted(p.stem for p in folder.glob("*.tsv"))


def _parse_range(text: str):
    """(kind, low, high, step) of ``U[a,b]``, ``L[a,b]`` or ``E[a,b,step]``: finite ends within
    +-1e40, low <= high, a positive low end for L, and an E grid of at most 100,000 points."""
    m = _RANGE.match(text)
    if not m or (m.group(1) == "E") != (m.group(4) is not None):
        raise SuperposError(f"bad sampling range {text[:80]!r}: use U[a,b], L[a,b] or E[a,b,step]")
    try:
        lo, hi, step = (float(g) for g in (m.group(2), m.group(3), m.group(4) or "0"))
    except ValueError:
        raise SuperposError(f"bad number in the sampling range {text[:80]!r}") from None
    if not all(np.isfinite(v) and abs(v) <= _MAX_ABS for v in (lo, hi, step)) or hi < lo:
        raise SuperposError(f"bad sampling range {text[:80]!r}: finite ends with |value| <= {_MAX_ABS:g}, low <= high")
    if m.group(1) == "L" and not lo > 0:
        raise SuperposError(f"bad sampling range {text[:80]!r}: a log-uniform range needs a positive low end")
    if m.group(1) == "E" and not (step > 0 and (hi - lo) / step < _MAX_AXIS
                                  and _axis_size(("E", lo, hi, step), 0) <= _MAX_AXIS):
        raise SuperposError(f"bad sampling range {text[:80]!r}: the step must be positive and give at most "
                            f"{_MAX_AXIS:,} points")
    return m.group(1), lo, hi, step


def _axis_size(r, n: int) -> int:
    """Points on one axis of the grid: an E range's grid, or ``n`` uniform points."""
    return int(np.floor((r[2] - r[1]) / r[3] + 1e-9)) + 1 if r[0] == "E" else n


def _drawn(r, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random points of a U range (uniform) or an L range (log-uniform); an E range's
    bounds are drawn uniformly (fresh points)."""
    if r[0] == "L":
        return np.exp(rng.uniform(np.log(r[1]), np.log(r[2]), n))
    return rng.uniform(r[1], r[2], n)


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
        f = sympy.lambdify(self.symbols, self.expr(), modules=["numpy", "scipy"])  # scipy: erf
        return lambda X: np.broadcast_to(np.asarray(f(*[X[:, k] for k in range(self.n_variables)]), dtype=np.float64),
                                         (X.shape[0],)).copy()

    def beyond(self, n: int = 1000, random_state=None):
        """Points (X, y) beyond the sampled ranges (:func:`beyond_box`: each range widened by a
        quarter on each side, in log space where it is positive); y is NaN where the law is not
        defined there."""
        X = beyond_box([r[1] for r in self.ranges], [r[2] for r in self.ranges], n, np.random.default_rng(random_state))
        with np.errstate(all="ignore"):
            return X, self.function()(X)

    def sample(self, n: int | None = None, random_state=None, fresh: bool = False):
        """Points (X, y). ``fresh=True`` draws ``n`` (default 1000) random points in the
        ranges' bounds (uniform, log-uniform for L ranges) whatever their kind (for test R^2);
        otherwise the published design: U and L ranges draw ``n`` (default ``n_points``) random
        points, E ranges give the grid.
        ``n`` is between 1 and 1,000,000; a grid has at most 1,000,000 points."""
        rng = np.random.default_rng(random_state)
        uniform = fresh or all(r[0] != "E" for r in self.ranges)
        n = n if n is not None else 1000 if fresh else self.n_points or None
        if n is None and any(r[0] != "E" for r in self.ranges):
            raise SuperposError(f"problem {self.name!r} gives no n_points: pass the number of points n")
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= _MAX_SAMPLE):
            raise SuperposError(f"the number of points must be an integer between 1 and {_MAX_SAMPLE:,}, got {n!r}")
        rows = float(n if uniform else np.prod([_axis_size(r, n) for r in self.ranges], dtype=float))
        if rows > _MAX_GRID or rows * len(self.ranges) > _MAX_VALUES:
            raise SuperposError(f"problem {self.name!r}: {rows:,.0f} points of {len(self.ranges)} variables are too "
                                f"many (at most {_MAX_GRID:,} points and {_MAX_VALUES:,} values)")
        if uniform:
            X = np.column_stack([_drawn(r, n, rng) for r in self.ranges])
        else:
            axes = [r[1] + r[3] * np.arange(_axis_size(r, n)) if r[0] == "E" else _drawn(r, n, rng)
                    for r in self.ranges]
            X = np.column_stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")])
        with np.errstate(all="ignore"):
            y = self.function()(X)
        return X, y


def _read_rows(path: Path):
    """The source (``#`` lines), the header (column name -> index) and the (line number, cells)
    of each problem row of a .tsv file, checked: UTF-8, the required columns, full rows."""
    if path.stat().st_size > _MAX_FILE_BYTES:
        raise SuperposError(f"{path} is larger than {_MAX_FILE_BYTES >> 20} MiB")
    try:
        lines = [line.rstrip("\r") for line in path.read_bytes().decode("utf-8-sig").split("\n")]
    except UnicodeDecodeError as exc:
        raise SuperposError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    source = " ".join(line.lstrip("# ").strip() for line in lines if line.startswith("#"))
    rows = [(k + 1, [c.strip() for c in line.split("\t")]) for k, line in enumerate(lines)
            if line.strip() and not line.startswith("#")]
    if not rows:
        raise SuperposError(f"{path} has no header line (columns: {', '.join(_REQUIRED)}, n_points)")
    header = {c: k for k, c in reversed(list(enumerate(rows[0][1])))}
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise SuperposError(f"{path} lacks the columns {', '.join(missing)} (required: {', '.join(_REQUIRED)}; "
                            f"optional: n_points)")
    if len(rows) - 1 > _MAX_PROBLEMS:
        raise SuperposError(f"{path} has {len(rows) - 1:,} problems (at most {_MAX_PROBLEMS:,})")
    for line, cells in rows[1:]:
        need = [c for c in _REQUIRED if header[c] >= len(cells) or not cells[header[c]]]
        if need or any(cells[len(rows[0][1]):]):
            raise SuperposError(f"{path} line {line}: " + (f"no {', '.join(need)}" if need else
                                f"{len(cells)} cells, the header has {len(rows[0][1])}"))
    return source, header, rows[1:]


def _problem(path: Path, line: int, row: dict, source: str) -> Problem:
    """One checked row: the formula parses, the ranges cover its variables, the grid is not too large."""
    name, formula, spec = row["name"], row["formula"], row["sampling_range"]
    where = f"{path} line {line} (problem {name[:60]!r})"
    try:
        parse_formula(formula)
        used = [int(v) for v in _VAR.findall(formula)]
        m = max(used) if used else 1
        if ":" in spec:
            parts = dict((k.strip(), v) for k, _, v in (p.partition(":") for p in spec.split(";") if p.strip()))
            lacking = [f"x{k + 1}" for k in range(m) if f"x{k + 1}" not in parts]
            if lacking:
                raise SuperposError(f"the sampling range names no range for {', '.join(lacking[:5])}"
                                    + (", ..." if len(lacking) > 5 else ""))
            ranges = tuple(_parse_range(parts[f"x{k + 1}"]) for k in range(m))
        else:
            ranges = (_parse_range(spec),) * m
        n_pts = row.get("n_points", "-") or "-"
        if n_pts != "-" and not (re.fullmatch(r"[0-9]{1,6}", n_pts) and 1 <= int(n_pts) <= _MAX_N_POINTS):
            raise SuperposError(f"n_points must be '-' or an integer between 1 and {_MAX_N_POINTS:,}, "
                                f"got {n_pts[:40]!r}")
        n = int(n_pts) if n_pts != "-" else 0
        grid = np.prod([_axis_size(r, n or 1) for r in ranges], dtype=float)
        if any(r[0] == "E" for r in ranges) and grid > _MAX_GRID:
            raise SuperposError(f"the sampling grid has more than {_MAX_GRID:,} points")
    except SuperposError as exc:
        raise SuperposError(f"{where}: {exc}") from None
    return Problem(name, formula, m, ranges, n, source)


def load_problems(name: str = "nguyen", folder=None, names=None) -> list[Problem]:
    """Problems of the set ``name`` (a file ``<name>.tsv`` in ``folder``, default
    :func:`benchmark_folder`); ``names`` keeps only those problems, in that order. The file
    is checked (UTF-8, the columns name, formula and sampling_range, at most 10,000 rows,
    formulas :func:`parse_formula` accepts, bounded ranges and grids): a bad one gives
    one :class:`SuperposError` naming the line."""
    folder = Path(folder) if folder else benchmark_folder()
    path = folder / f"{name}.tsv"
    if not path.is_file():
        raise SuperposError(f"no benchmark set {name!r} in {folder} (available: {', '.join(available_problem_sets(folder))})")
    source, header, rows = _read_rows(path)
    out, seen, deadline = [], {}, time.perf_counter() + _MAX_SECONDS
    for line, cells in rows:
        if time.perf_counter() > deadline:  # each formula takes parse_formula at most 2 s, most a millisecond
            raise SuperposError(f"{path}: reading its formulas took more than {_MAX_SECONDS} s (line {line})")
        p = _problem(path, line, {c: cells[k] if k < len(cells) else "" for c, k in header.items()}, source)
        if p.name in seen:
            raise SuperposError(f"{path} line {line}: the problem name {p.name[:60]!r} is also on line {seen[p.name]}")
        seen[p.name] = line
        out.append(p)
    if names is not None:
        by = {p.name: p for p in out}
        missing = [n for n in names if n not in by]
        if missing:
            raise SuperposError(f"unknown problems {missing} in {name!r}")
        out = [by[n] for n in names]
    return out


def _numeric(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with pi, e and surds as floats (sqrt(2*pi) is 2.50662827463100), the
    variables and their integer powers untouched."""
    try:
        return expr.evalf(15)
    except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
        return expr


def _on_domain(expr: sympy.Expr, domain: dict) -> np.ndarray | None:
    """``expr`` (complex) at the points of ``domain`` ({variable name: values}); None when it
    reads a variable the domain lacks or numpy cannot evaluate it."""
    names = sorted(s.name for s in expr.free_symbols)
    if not domain or any(n not in domain for n in names):
        return None
    plain = expr.xreplace({s: sympy.Symbol(s.name) for s in expr.free_symbols})  # assumptions dropped
    try:
        f = sympy.lambdify([sympy.Symbol(n) for n in names], plain, modules=["numpy", "scipy"])
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(f(*[domain[n] for n in names]), dtype=np.complex128),
                                   np.shape(next(iter(domain.values()))))
    except Exception:  # noqa: BLE001 - a formula numpy cannot evaluate is not judged
        return None


def _real(v: np.ndarray | None) -> bool:
    return v is not None and bool(np.all(np.isfinite(v)) and np.all(v.imag == 0))


def _without_abs(expr: sympy.Expr, domain: dict) -> sympy.Expr:
    """Each |e| whose argument e has one sign at every point of ``domain`` ({variable name:
    values}) written as e or -e: sqrt|x2^2 - x3^2| is sqrt(x3^2 - x2^2) where x2 < x3."""
    def resolve(arg):
        v = _on_domain(arg, domain)
        if _real(v):
            if np.all(v.real > 0):
                return arg
            if np.all(v.real < 0):
                return -arg
        return sympy.Abs(arg)

    return expr.replace(sympy.Abs, resolve)


def _rounded(expr: sympy.Expr, digits: int, max_denominator: int = 12) -> sympy.Expr:
    """Every float rounded to ``digits`` significant digits, as the exact rational of that
    decimal, or the small rational (denominator <= ``max_denominator``) with the same rounding
    (0.333 is 1/3). A function of the rounded decimal alone: two constants that agree to
    ``digits`` digits (12.557 and 4 pi) give the same number."""
    def fix(f):
        v = float(f)
        if not np.isfinite(v) or v == 0:
            return f if v else sympy.Integer(0)
        d = f"{v:.{digits}g}"
        q = sympy.Rational(d).limit_denominator(max_denominator)
        return q if f"{float(q):.{digits}g}" == d else sympy.Rational(d)

    return expr.xreplace({f: fix(f) for f in expr.atoms(sympy.Float)})


def _compared(predicted, true, positive, digits: int, domain: dict | None) -> tuple[sympy.Expr, sympy.Expr]:
    """``predicted`` and ``true`` as the recovery checks compare them: numbers rounded
    (:func:`_rounded`), |e| of one sign on ``domain`` dropped from the prediction, variables in
    ``positive`` positive and the others real."""
    pred = parse_formula(predicted) if isinstance(predicted, str) else predicted
    pred = _rounded(_numeric(_without_abs(pred, domain) if domain else pred), digits)
    true = _rounded(_numeric(parse_formula(true) if isinstance(true, str) else true), digits)
    names = {s.name for s in pred.free_symbols | true.free_symbols}
    sym = {n: sympy.Symbol(n, positive=True) if n in set(positive) else sympy.Symbol(n, real=True) for n in names}
    return pred.xreplace({s: sym[s.name] for s in pred.free_symbols}), true.xreplace({s: sym[s.name] for s in true.free_symbols})


def is_symbolic_solution(predicted, true, positive=(), digits: int = 3, seconds: float = 2.0,
                         domain: dict | None = None) -> bool:
    """SRBench's "symbolic solution" (La Cava et al. 2021), looser than
    :func:`is_exact_recovery`: ``predicted`` does not reduce to a constant and differs from
    ``true`` by an additive constant or a nonzero factor (1.01 sqrt(x1) for sqrt(x1)), numbers
    rounded as there; with ``domain``, constancy may also be seen numerically on its points."""
    pred, true = _compared(predicted, true, positive, digits, domain)
    if not pred.free_symbols:
        return False
    for gap, zero_ok in ((pred - true, True), (pred / true, False)):
        out = simplify_capped(gap, seconds)
        if not out.free_symbols and (zero_ok or out != 0):
            return True
        v = _on_domain(gap, domain) if domain else None
        if v is not None and np.all(np.isfinite(v)) and np.ptp(v.real) <= 1e-9 * max(1.0, float(np.abs(v).max())) \
                and not np.any(v.imag):
            return True
    return False


def is_exact_recovery(predicted, true, positive=(), digits: int = 3, seconds: float = 2.0,
                      domain: dict | None = None) -> bool:
    """True when ``predicted``, its constants rounded to ``digits`` significant digits
    (:func:`_rounded`), simplifies to ``true``, whose numbers are rounded the same way (1/(4 pi)
    is 0.0796 on both sides, as a fitted constant is). Variables
    named in ``positive`` are declared positive (log|x| = log x there); with ``domain``
    ({variable name: sample values}) an absolute value whose argument keeps one sign there is
    dropped (the formulas need only agree on the problem's domain). sympy works under
    a ``seconds`` cap; a timeout counts as not recovered."""
    pred, true = _compared(predicted, true, positive, digits, domain)
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
    try:  # expand_trig writes sin(628 x) as a polynomial of degree 628: capped too
        trig = capped(lambda: sympy.expand_trig(out), seconds) if cap_available(seconds) else out
    except CapExceeded:
        trig = out
    if simplify_capped(trig, seconds) == 0:
        return True
    # radicals sympy does not combine (sqrt(a / b) against 1 / sqrt(c)): equal squares and,
    # on the domain, equal signs
    if domain and (pred.has(sympy.Pow) or true.has(sympy.Pow)) and _same_sign(pred, true, domain):
        square = sympy.expand(sympy.together(pred**2 - true**2))
        return square == 0 or simplify_capped(square, seconds) == 0
    return False


def _same_sign(a: sympy.Expr, b: sympy.Expr, domain: dict) -> bool:
    """Whether a and b are real and of the same sign at every point of ``domain``."""
    va, vb = _on_domain(a, domain), _on_domain(b, domain)
    return _real(va) and _real(vb) and bool(np.all(np.sign(va.real) == np.sign(vb.real)))


def recovery_forms(formula) -> list[sympy.Expr]:
    """The forms of a found :class:`~superpos.symreg.pipeline.Formula` an exactness check
    tries: the rendered ``expr``, then the unsimplified tree (sympy's simplification can hide
    an |e| of one sign: sqrt|e| becomes |sqrt(e)|)."""
    return [formula.expr, to_sympy(formula.tree, Basis(formula.basis_names), formula.constants)]


@dataclass(frozen=True)
class Recovery:
    """One problem solved: ``exact`` recovery, ``r2`` on 1,000 fresh points, ``seconds`` of
    :func:`~superpos.symreg.pipeline.find_formula`, the ``formula`` (or why it failed),
    ``r2_beyond`` on 1,000 points beyond the sampled ranges (:meth:`Problem.beyond`,
    :func:`scored_r2`) and the formula's ``status``."""

    name: str
    exact: bool
    r2: float
    seconds: float
    formula: str
    r2_beyond: float = float("nan")
    status: str = ""


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
    domain = {f"x{j + 1}": Xf[:, j] for j in range(Xf.shape[1])}
    exact = any(is_exact_recovery(e, problem.formula, positive=problem.positive_variables, domain=domain)
                for e in recovery_forms(f))
    Xb, yb = problem.beyond(1000, random_state=seed + 2)
    with np.errstate(all="ignore"):
        beyond = scored_r2(yb, f.predict(Xb))[0]
    return Recovery(problem.name, bool(exact), float(score), secs, str(f.expr), float(beyond), f.status)

"""Public symbolic-regression benchmark problems (Nguyen, Keijzer, ...), sampled and solved;
the exact-recovery test lives in :mod:`.exactness` (re-exported here).

The definitions are tab-separated files in the repository's ``datasets/benchmarks/``
(one problem per row: name, formula, sampling range, number of points; ``#`` lines
give the source). Ranges: ``U[a,b]`` uniform random, ``L[a,b]`` log-uniform random (0 < a: a
quantity spanning decades), ``S[a,b]`` log-uniform magnitude with a random sign (a signed
quantity spanning decades), ``I[a,b]`` uniform random integers a..b (a count, a quantum
number), ``E[a,b,step]`` evenly spaced, one range for all variables or ``x1:...;x2:...`` per
variable; ends within +-1e300.

Optional columns say how a scientist's table of the law looks: ``names`` (``x1=L; y=T``, the
quantities' names), ``units`` (``x1=m; y=s``, as written in a header), ``noise`` (the relative
noise of y: y += N(0, (noise rms y)^2)) and ``digits`` (significant digits the values are written
with).
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
from ..exceptions import SuperposError
from .exactness import is_exact_recovery, is_symbolic_solution
from .extrapolation import beyond_box, scored_r2

__all__ = ["Problem", "Recovery", "beyond_box", "scored_r2", "load_problems", "available_problem_sets", "benchmark_folder", "is_exact_recovery",
           "is_symbolic_solution", "recovery_forms", "solve_problem"]

_RANGE = re.compile(r"^\s*([UELSI])\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*(?:,\s*([-+0-9.eE]+)\s*)?\]\s*$")
_VAR = re.compile(r"x([1-9][0-9]*)")
_REQUIRED = ("name", "formula", "sampling_range")
_OPTIONAL = ("n_points", "names", "units", "noise", "digits")
# limits on a benchmark file (users pass their own): problems, points, |range ends|, grid points per variable
# and in all, points and values of one sample, file size, seconds to read the formulas
_MAX_PROBLEMS, _MAX_N_POINTS, _MAX_ABS, _MAX_AXIS, _MAX_SAMPLING_GRID = 10_000, 100_000, 1e300, 100_000, 1_000_000
_MAX_SAMPLE, _MAX_VALUES, _MAX_FILE_BYTES, _MAX_READ_SECONDS = 1_000_000, 10_000_000, 64 << 20, 60


def benchmark_folder() -> Path:
    """The shipped problem definitions, ``superpos/datasets/data/benchmarks`` (linked from
    ``datasets/benchmarks`` in the repository)."""
    return Path(__file__).resolve().parent / "data" / "benchmarks"


def available_problem_sets(folder=None) -> list[str]:
    folder = Path(folder) if folder else benchmark_folder()
    return sorted(p.stem for p in folder.glob("*.tsv"))


def _parse_range(text: str):
    """(kind, low, high, step) of ``U[a,b]``, ``L[a,b]``, ``S[a,b]``, ``I[a,b]`` or
    ``E[a,b,step]``: finite ends within +-1e300, low <= high, a positive low end for L and S, an
    integer in an I range, and an E grid of at most 100,000 points."""
    m = _RANGE.match(text)
    if not m or (m.group(1) == "E") != (m.group(4) is not None):
        raise SuperposError(f"bad sampling range {text[:80]!r}: use U[a,b], L[a,b], S[a,b], I[a,b] or E[a,b,step]")
    try:
        lo, hi, step = (float(g) for g in (m.group(2), m.group(3), m.group(4) or "0"))
    except ValueError:
        raise SuperposError(f"bad number in the sampling range {text[:80]!r}") from None
    if not all(np.isfinite(v) and abs(v) <= _MAX_ABS for v in (lo, hi, step)) or hi < lo:
        raise SuperposError(f"bad sampling range {text[:80]!r}: finite ends with |value| <= {_MAX_ABS:g}, low <= high")
    if m.group(1) in "LS" and not lo > 0:
        raise SuperposError(f"bad sampling range {text[:80]!r}: a log-uniform range needs a positive low end")
    if m.group(1) == "I" and np.floor(hi) < np.ceil(lo):
        raise SuperposError(f"bad sampling range {text[:80]!r}: an integer range needs an integer between its ends")
    if m.group(1) == "E" and not (step > 0 and (hi - lo) / step < _MAX_AXIS
                                  and _axis_size(("E", lo, hi, step), 0) <= _MAX_AXIS):
        raise SuperposError(f"bad sampling range {text[:80]!r}: the step must be positive and give at most "
                            f"{_MAX_AXIS:,} points")
    return m.group(1), lo, hi, step


def _axis_size(r, n: int) -> int:
    """Points on one axis of the grid: an E range's grid, or ``n`` uniform points."""
    return int(np.floor((r[2] - r[1]) / r[3] + 1e-9)) + 1 if r[0] == "E" else n


def _drawn(r, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random points of a U range (uniform), an L range (log-uniform), an S range
    (log-uniform magnitude, random sign) or an I range (uniform integers); an E range's bounds
    are drawn uniformly (fresh points)."""
    if r[0] in "LS":
        v = np.exp(rng.uniform(np.log(r[1]), np.log(r[2]), n))
        return v * rng.choice([-1.0, 1.0], n) if r[0] == "S" else v
    if r[0] == "I":
        return rng.integers(int(np.ceil(r[1])), int(np.floor(r[2])) + 1, n).astype(np.float64)
    return rng.uniform(r[1], r[2], n)


def _pairs(text: str, column: str) -> tuple:
    """``x1=kg; x2=m/s; y=J`` as ((variable, value), ...): a variable x1, x2, ... or y once each."""
    out: dict = {}
    for part in (p for p in text.split(";") if p.strip()):
        key, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not (key == "y" or _VAR.fullmatch(key)) or key in out:
            raise SuperposError(f"bad {column} {part.strip()[:60]!r}: write x1=..., x2=..., y=..., each once")
        out[key] = value
    return tuple(out.items())


@dataclass(frozen=True)
class Problem:
    """One benchmark problem. ``ranges`` has one (kind, low, high, step) per variable."""

    name: str
    formula: str
    n_variables: int
    ranges: tuple
    n_points: int
    source: str = ""
    names: tuple = ()
    units: tuple = ()
    noise: float = 0.0
    digits: int = 17

    @property
    def symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"x{k + 1}", real=True) for k in range(self.n_variables)]

    def expr(self) -> sympy.Expr:
        """The true formula, over real symbols x1, x2, ..."""
        return parse_formula(self.formula, {str(s): s for s in self.symbols})

    @property
    def positive_variables(self) -> list[str]:
        """Variables sampled from a range with a non-negative low end (not a signed S range)."""
        return [f"x{k + 1}" for k, r in enumerate(self.ranges) if r[1] >= 0 and r[0] != "S"]

    @property
    def integer_variables(self) -> list[str]:
        """Variables sampled from an I range (integer values)."""
        return [f"x{k + 1}" for k, r in enumerate(self.ranges) if r[0] == "I"]

    def name_of(self, variable: str) -> str:
        """The quantity's name of ``variable`` (x1, ..., y) from the ``names`` column, else ``variable``."""
        return dict(self.names).get(variable, variable)

    def unit_of(self, variable: str) -> str:
        """The unit of ``variable`` (x1, ..., y) as written in the ``units`` column ('' if none)."""
        return dict(self.units).get(variable, "")

    def function(self):
        """Vectorised numpy function of the true formula: f(X (n, m)) -> (n,)."""
        f = sympy.lambdify(self.symbols, self.expr(), modules=["numpy", "scipy"])  # scipy: erf
        return lambda X: np.broadcast_to(np.asarray(f(*[X[:, k] for k in range(self.n_variables)]), dtype=np.float64),
                                         (X.shape[0],)).copy()

    def beyond(self, n: int = 1000, random_state=None):
        """Points (X, y) beyond the sampled ranges (:func:`beyond_box`: each range widened by a
        quarter on each side, in log space where it is positive); y is NaN where the law is not
        defined there."""
        rng = np.random.default_rng(random_state)
        X = beyond_box([r[1] for r in self.ranges], [r[2] for r in self.ranges], n, rng)
        for k, r in enumerate(self.ranges):
            if r[0] == "S":  # the magnitude beyond its range, either sign
                X[:, k] *= rng.choice([-1.0, 1.0], X.shape[0])
            elif r[0] == "I":
                X[:, k] = np.round(X[:, k])
        with np.errstate(all="ignore"):
            return X, self.function()(X)

    def sample(self, n: int | None = None, random_state=None, fresh: bool = False):
        """Points (X, y), noiseless (see :meth:`noisy`). ``fresh=True`` draws ``n`` (default
        1000) random points in the ranges' bounds (as :func:`_drawn`; an E range uniformly) whatever their kind (for test R^2);
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
        if rows > _MAX_SAMPLING_GRID or rows * len(self.ranges) > _MAX_VALUES:
            raise SuperposError(f"problem {self.name!r}: {rows:,.0f} points of {len(self.ranges)} variables are too "
                                f"many (at most {_MAX_SAMPLING_GRID:,} points and {_MAX_VALUES:,} values)")
        if uniform:
            X = np.column_stack([_drawn(r, n, rng) for r in self.ranges])
        else:
            axes = [r[1] + r[3] * np.arange(_axis_size(r, n)) if r[0] == "E" else _drawn(r, n, rng)
                    for r in self.ranges]
            X = np.column_stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")])
        with np.errstate(all="ignore"):
            y = self.function()(X)
        return X, y

    def noisy(self, random_state=None):
        """The published sample with the row's ``noise``: y += N(0, (noise rms y)^2) (the noise
        drawn from ``random_state`` and the problem's name), and the noiseless y."""
        X, y = self.sample(random_state=random_state)
        rng = np.random.default_rng([0 if random_state is None else int(random_state), sum(map(ord, self.name))])
        top = float(np.max(np.abs(y))) if y.size else 0.0
        with np.errstate(all="ignore"):  # rms without squaring a value near 1e300
            scale = self.noise * top * float(np.sqrt(np.mean((y / top) ** 2))) if top > 0 else 0.0
        return X, (y + rng.normal(0.0, scale, y.size) if self.noise > 0 else y.copy()), y


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
                            f"optional: {', '.join(_OPTIONAL)})")
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
            m = max([m] + [int(k[1:]) for k in parts if _VAR.fullmatch(k)])  # an input the law does not use
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
        if any(r[0] == "E" for r in ranges) and grid > _MAX_SAMPLING_GRID:
            raise SuperposError(f"the sampling grid has more than {_MAX_SAMPLING_GRID:,} points")
        names, units = _pairs(row.get("names", ""), "names"), _pairs(row.get("units", ""), "units")
        known = {f"x{k + 1}" for k in range(m)} | {"y"}
        stray = [k for k, _ in names + units if k not in known]
        if stray:
            raise SuperposError(f"names or units for {', '.join(stray[:5])}, which the formula does not have")
        noise, digits = row.get("noise", "") or "0", row.get("digits", "") or "17"
        try:
            noise = float(noise)
        except ValueError:
            noise = -1.0
        if not 0 <= noise <= 10:
            raise SuperposError(f"noise must be a number between 0 and 10, got {row.get('noise', '')[:40]!r}")
        if not (re.fullmatch(r"[0-9]{1,2}", digits) and 1 <= int(digits) <= 17):
            raise SuperposError(f"digits must be an integer between 1 and 17, got {digits[:40]!r}")
    except SuperposError as exc:
        raise SuperposError(f"{where}: {exc}") from None
    return Problem(name, formula, m, ranges, n, source, names, units, noise, int(digits))


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
    out, seen, deadline = [], {}, time.perf_counter() + _MAX_READ_SECONDS
    for line, cells in rows:
        if time.perf_counter() > deadline:  # each formula takes parse_formula at most 2 s, most a millisecond
            raise SuperposError(f"{path}: reading its formulas took more than {_MAX_READ_SECONDS} s (line {line})")
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

"""Physical units: a column's unit read from text (``kg/m3``, ``J/(mol K)``, ``m s^-2``,
``kOhm``, ``degC``) as a factor to SI, an offset and a dimension over the seven SI base units.

A unit is ``value_SI = factor * (value + offset)``: metres are (1, 0), millimetres (1e-3, 0),
degrees Celsius (1, 273.15). Its dimension is the exponents of kg, m, s, A, K, mol and cd (the
SI brochure's base units), as fractions, so sqrt(Hz) works. Grammar: factors separated by
spaces, ``*``, ``.`` or a middle dot; everything after a ``/`` (within its parentheses) is in the
denominator (``W/m K`` is W / (m K), as tables write it); an exponent follows a symbol as
``^2``, ``**2``, ``2``, ``-1``, ``^(1/2)`` or a superscript; a symbol is an SI symbol, a derived
or lab unit, or a prefixed one (``mm``, ``uF``, ``µs``, ``kPa``, ``MeV``). A symbol that is both
a unit and a prefixed unit reads as the unit (``T`` tesla, ``cd`` candela, ``min`` minute, ``Pa``
pascal); ``m`` is the metre, ``C`` the coulomb. ``1``, ``-``, an empty unit and ``%`` are
dimensionless. An affine unit (degC, degF) has its offset only when it stands alone (``J/degC``
is per kelvin of difference).

This is the physical meaning of "units"; :mod:`superpos.symreg.decades` (data brought into
the decades the structure model knows) is not about units.
"""
from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from ..exceptions import SuperposError

__all__ = ["BASE", "Unit", "column_names", "column_units", "identifier", "parse_unit", "split_header", "units_option"]

BASE = ("kg", "m", "s", "A", "K", "mol", "cd")
_DIMENSIONLESS = (Fraction(0),) * 7


def _dim(**powers) -> tuple:
    return tuple(Fraction(powers.get(b, 0)) for b in BASE)


@dataclass(frozen=True)
class Unit:
    """``value_SI = factor * (value + offset)``; ``dimension``: exponents of :data:`BASE`."""

    factor: float = 1.0
    dimension: tuple = _DIMENSIONLESS
    offset: float = 0.0
    text: str = ""

    @property
    def dimensionless(self) -> bool:
        return all(p == 0 for p in self.dimension)

    def __mul__(self, other: "Unit") -> "Unit":
        return Unit(self.factor * other.factor, tuple(a + b for a, b in zip(self.dimension, other.dimension)))

    def __pow__(self, p) -> "Unit":
        p = Fraction(p)
        return Unit(self.factor ** float(p), tuple(a * p for a in self.dimension))

    def si(self) -> str:
        """The dimension written over the SI base units (``kg m^2 s^-2``; ``1`` if none)."""
        parts = [b if p == 1 else f"{b}^{p}" for b, p in zip(BASE, self.dimension) if p != 0]
        return " ".join(parts) or "1"


_N = _dim(kg=1, m=1, s=-2)
_J = _dim(kg=1, m=2, s=-2)
_W = _dim(kg=1, m=2, s=-3)
_V = _dim(kg=1, m=2, s=-3, A=-1)
_UNITS: dict[str, tuple[float, tuple]] = {
    # SI base units (the kilogram through the gram, so that prefixes apply to g)
    "g": (1e-3, _dim(kg=1)), "m": (1.0, _dim(m=1)), "s": (1.0, _dim(s=1)), "A": (1.0, _dim(A=1)),
    "K": (1.0, _dim(K=1)), "mol": (1.0, _dim(mol=1)), "cd": (1.0, _dim(cd=1)),
    # derived units with special names
    "N": (1.0, _N), "J": (1.0, _J), "W": (1.0, _W), "Pa": (1.0, _dim(kg=1, m=-1, s=-2)), "V": (1.0, _V),
    "C": (1.0, _dim(s=1, A=1)), "Ohm": (1.0, _dim(kg=1, m=2, s=-3, A=-2)), "Hz": (1.0, _dim(s=-1)),
    "F": (1.0, _dim(kg=-1, m=-2, s=4, A=2)), "H": (1.0, _dim(kg=1, m=2, s=-2, A=-2)),
    "S": (1.0, _dim(kg=-1, m=-2, s=3, A=2)), "Wb": (1.0, _dim(kg=1, m=2, s=-2, A=-1)),
    "T": (1.0, _dim(kg=1, s=-2, A=-1)), "Bq": (1.0, _dim(s=-1)), "Gy": (1.0, _dim(m=2, s=-2)),
    "Sv": (1.0, _dim(m=2, s=-2)), "lm": (1.0, _dim(cd=1)), "lx": (1.0, _dim(cd=1, m=-2)),
    "kat": (1.0, _dim(mol=1, s=-1)), "rad": (1.0, _DIMENSIONLESS), "sr": (1.0, _DIMENSIONLESS),
    # units in use beside the SI
    "eV": (1.602176634e-19, _J), "L": (1e-3, _dim(m=3)), "l": (1e-3, _dim(m=3)), "min": (60.0, _dim(s=1)),
    "h": (3600.0, _dim(s=1)), "d": (86400.0, _dim(s=1)), "yr": (3.15576e7, _dim(s=1)),
    "bar": (1e5, _dim(kg=1, m=-1, s=-2)), "atm": (101325.0, _dim(kg=1, m=-1, s=-2)),
    "Torr": (101325.0 / 760, _dim(kg=1, m=-1, s=-2)), "mmHg": (133.322387415, _dim(kg=1, m=-1, s=-2)),
    "psi": (6894.757293168, _dim(kg=1, m=-1, s=-2)), "cal": (4.184, _J), "Da": (1.66053906660e-27, _dim(kg=1)),
    "u": (1.66053906660e-27, _dim(kg=1)), "t": (1000.0, _dim(kg=1)), "AU": (1.495978707e11, _dim(m=1)),
    "ly": (9.4607304725808e15, _dim(m=1)), "pc": (3.0856775814913673e16, _dim(m=1)),
    "Angstrom": (1e-10, _dim(m=1)), "ha": (1e4, _dim(m=2)), "deg": (math.pi / 180, _DIMENSIONLESS),
    "M": (1e3, _dim(mol=1, m=-3)), "G": (1e-4, _dim(kg=1, s=-2, A=-1)), "dyn": (1e-5, _N), "erg": (1e-7, _J),
    "Wh": (3600.0, _J), "rpm": (1 / 60, _dim(s=-1)), "ppm": (1e-6, _DIMENSIONLESS), "%": (1e-2, _DIMENSIONLESS),
    # counted things: dimensionless
    **{w: (1.0, _DIMENSIONLESS) for w in ("count", "counts", "cells", "particles", "events", "photons", "atoms",
                                          "molecules", "nuclei", "turns", "cycles")},
}
_ALIASES = {"ohm": "Ohm", "\u03a9": "Ohm", "\u2126": "Ohm", "\u00c5": "Angstrom", "\u212b": "Angstrom", "A\u030a": "Angstrom",
            "sec": "s", "hr": "h", "day": "d", "year": "yr", "a": "yr", "liter": "L", "litre": "L",
            "\u00b0": "deg", "degree": "deg", "degrees": "deg", "percent": "%", "gauss": "G"}
_AFFINE = {"degC": (1.0, 273.15), "\u00b0C": (1.0, 273.15), "celsius": (1.0, 273.15),
           "degF": (5 / 9, 459.67), "\u00b0F": (5 / 9, 459.67)}
_PREFIXES = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2,
             "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "\u00b5": 1e-6, "\u03bc": 1e-6, "n": 1e-9,
             "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24}
# units a prefix may not take (a prefixed minute, hour or percent is no unit)
_UNPREFIXED = {"min", "h", "d", "yr", "deg", "%", "ppm", "rpm", "u", "t", "AU", "ly", "ha", "G", "mmHg",
               "Torr", "psi", "Da", "atm", "cal", "Wh", "Angstrom", "count", "counts", "cells", "particles",
               "events", "photons", "atoms", "molecules", "nuclei", "turns", "cycles"}
_SUPERSCRIPT = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b", "0123456789-")
_TOKEN = re.compile(r"\s*(?:(?P<open>\()|(?P<close>\))|(?P<div>/)|(?P<mul>[*.\u00b7\u22c5])(?!\*)|"
                    r"(?P<sym>[A-Za-z\u00b0\u00b5\u03bc\u03a9\u2126\u00c5\u212b%][A-Za-z\u00b0\u00b5\u03bc\u03a9\u2126\u00c5\u212b\u030a]*)"
                    r"(?P<exp>(?:\^|\*\*)?\s*(?:\(\s*-?[0-9]+(?:\s*/\s*[0-9]+)?\s*\)|-?[0-9]+(?:\.[0-9]+)?))?|"
                    r"(?P<one>1))")
_MAX_UNIT_TEXT = 80


def _error(text: str, why: str) -> SuperposError:
    return SuperposError(f"cannot read the unit {text!r}: {why}; write SI symbols (kg, m, s, A, K, mol, cd), "
                         "derived or lab units (N, J, W, Pa, V, C, Ohm, Hz, eV, T, L, min, h, bar, atm, degC) with "
                         "prefixes (mm, kPa, uF), or 1 for a dimensionless column")


def _symbol(sym: str, text: str) -> Unit:
    """One symbol, without its exponent: a unit, an alias, or a prefix and a unit."""
    sym = _ALIASES.get(sym, sym)
    if sym in _UNITS:
        f, d = _UNITS[sym]
        return Unit(f, d)
    if sym == "kg":
        return Unit(1.0, _dim(kg=1))
    for p in sorted(_PREFIXES, key=len, reverse=True):
        rest = _ALIASES.get(sym[len(p):], sym[len(p):])
        if sym.startswith(p) and rest in _UNITS and rest not in _UNPREFIXED:
            f, d = _UNITS[rest]
            return Unit(_PREFIXES[p] * f, d)
    raise _error(text, f"unknown unit symbol {sym!r}")


def _exponent(text: str, whole: str) -> Fraction:
    t = text.replace("^", "").replace("**", "").replace("(", "").replace(")", "").replace(" ", "")
    try:
        p = Fraction(t) if "/" in t else Fraction(float(t)).limit_denominator(12)
    except (ValueError, ZeroDivisionError):
        raise _error(whole, f"bad exponent {text!r}") from None
    if abs(p) > 12:
        raise _error(whole, f"the exponent {text!r} is larger than 12")
    return p


def parse_unit(text: str) -> Unit:
    """The :class:`Unit` of ``text``; one :class:`SuperposError` naming what cannot be read."""
    if not isinstance(text, str):
        raise SuperposError(f"a unit must be a string, got {type(text).__name__}")
    raw = text.strip()
    if len(raw) > _MAX_UNIT_TEXT:
        raise _error(raw[:_MAX_UNIT_TEXT] + "...", f"longer than {_MAX_UNIT_TEXT} characters")
    if raw in ("", "1", "-", "--"):
        return Unit(text=raw)
    if raw in _AFFINE:
        f, off = _AFFINE[raw]
        return Unit(f, _dim(K=1), off, raw)
    src = raw.translate(_SUPERSCRIPT)
    for name in _AFFINE:  # inside a product an affine unit is a difference: per kelvin
        src = src.replace(name, "K" if _AFFINE[name][0] == 1.0 else "degFdiff")
    stack: list[list] = [[Unit(), False]]  # (product so far, in the denominator) per parenthesis level
    pos, last = 0, None
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m or m.end() == pos:
            if src[pos:].strip() == "":
                break
            raise _error(raw, f"unexpected {src[pos:pos + 10].strip()!r}")
        pos = m.end()
        if m.group("open"):
            stack.append([Unit(), False])
            last = "open"
        elif m.group("close"):
            if len(stack) == 1:
                raise _error(raw, "a ')' without its '('")
            inner, _ = stack.pop()
            m2 = re.match(r"\s*(?:\^|\*\*)\s*(-?[0-9]+(?:\.[0-9]+)?|\(\s*-?[0-9]+\s*/\s*[0-9]+\s*\))", src[pos:])
            if m2:
                inner = inner ** _exponent(m2.group(1), raw)
                pos += m2.end()
            _apply(stack[-1], inner)
            last = "unit"
        elif m.group("div"):
            if last in (None, "div", "open", "mul"):
                raise _error(raw, "a '/' without a unit before it")
            stack[-1][1] = True
            last = "div"
        elif m.group("mul"):
            last = "mul"
        elif m.group("one"):
            last = "unit"
        else:
            sym = m.group("sym")
            u = Unit(5 / 9, _dim(K=1)) if sym == "degFdiff" else _symbol(sym, raw)
            if m.group("exp"):
                u = u ** _exponent(m.group("exp"), raw)
            _apply(stack[-1], u)
            last = "unit"
    if len(stack) != 1:
        raise _error(raw, "a '(' without its ')'")
    if last in ("div", "mul"):
        raise _error(raw, f"it ends with {'/' if last == 'div' else 'a product sign'}")
    u = stack[0][0]
    if not (math.isfinite(u.factor) and u.factor > 0):
        raise _error(raw, "its scale is out of range")
    return Unit(u.factor, u.dimension, 0.0, raw)


def _apply(level: list, u: Unit) -> None:
    level[0] = level[0] * (u ** -1 if level[1] else u)


_HEADER = re.compile(r"^(?P<name>.*?)\s*(?:\[(?P<b>[^\[\]]*)\]|\((?P<p>[^()]*(?:\([^()]*\)[^()]*)*)\))\s*$")


_GREEK = {"\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta", "\u0394": "Delta",
          "\u03b5": "epsilon", "\u03b6": "zeta", "\u03b7": "eta", "\u03b8": "theta", "\u03ba": "kappa",
          "\u03bb": "lambda_", "\u03bc": "mu", "\u00b5": "mu", "\u03bd": "nu", "\u03be": "xi", "\u03c0": "pi_",
          "\u03c1": "rho", "\u03c3": "sigma", "\u03a3": "Sigma", "\u03c4": "tau", "\u03c6": "phi", "\u03a6": "Phi",
          "\u03c7": "chi", "\u03c8": "psi", "\u03c9": "omega", "\u03a9": "Omega"}


def identifier(name: str, fallback: str) -> str:
    """A readable identifier for a column name: Greek letters spelt out (``\u03c1`` rho), other
    characters that an identifier cannot hold made ``_`` (``T hot`` T_hot), a leading digit
    prefixed; ``fallback`` (x3) when nothing readable is left."""
    text = "".join(_GREEK.get(c, c) for c in name.strip())
    text = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", text)).strip("_")
    if not text:
        return fallback
    return f"x_{text}" if text[0].isdigit() else text


def column_names(header: list[str]) -> tuple[list[str], list[str | None]]:
    """Each column's readable name and its unit text (None without one): ``T [K]`` is T in K,
    ``rho (kg/m3)`` rho in kg/m3 (checked: a unit that cannot be read is an error naming the
    column); a name that is not an identifier is made one (:func:`identifier`), each column on
    its own, and names made alike get a suffix _2, _3; a Python keyword (``lambda``) gets a
    trailing ``_``."""
    names, units, seen = [], [], set()
    for k, cell in enumerate(header):
        name, unit = split_header(str(cell))
        if unit is not None:
            try:
                parse_unit(unit)
            except SuperposError as exc:
                raise SuperposError(f"column {cell!r}: {exc}") from None
        ident = name if _IDENT.fullmatch(name) else identifier(name, f"x{k + 1}")
        if keyword.iskeyword(ident):
            ident += "_"  # a Python keyword (lambda) is no variable's name when the formula is read back
        base, n = ident, 2
        while ident in seen:
            ident, n = f"{base}_{n}", n + 1
        seen.add(ident)
        names.append(ident)
        units.append(unit)
    return names, units


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def split_header(cell: str) -> tuple[str, str | None]:
    """(name, unit text or None) of a header cell: ``T [K]`` and ``V (m^3)`` carry a unit, a
    cell without brackets does not; ``T []`` has the empty unit."""
    m = _HEADER.match(cell.strip())
    if not m or not m.group("name").strip():
        return cell.strip(), None
    unit = m.group("b") if m.group("b") is not None else m.group("p")
    return m.group("name").strip(), unit.strip()


def units_option(text: str) -> dict[str, str]:
    """The units of ``--units "T=K, P=Pa, y=J"`` (commas or semicolons between, ``name=unit``)
    as a mapping; one clear error for an entry without ``=`` or a name given twice."""
    out: dict[str, str] = {}
    for entry in re.split(r"[,;]", text):
        if not entry.strip():
            continue
        name, eq, unit = entry.partition("=")
        if not eq or not name.strip():
            raise SuperposError(f"cannot read the units entry {entry.strip()!r}: write name=unit, e.g. "
                                "--units \"T=K, P=Pa, y=J\"")
        name = name.strip()
        if name in out and out[name] != unit.strip():
            raise SuperposError(f"the units name {name!r} twice, as {out[name]!r} and {unit.strip()!r}: give it once")
        out[name] = unit.strip()
    return out


def _same_unit(a: str, b: str) -> bool:
    ua, ub = parse_unit(a), parse_unit(b)
    return (ua.dimension == ub.dimension and math.isclose(ua.factor, ub.factor, rel_tol=1e-9)
            and math.isclose(ua.offset, ub.offset, rel_tol=1e-9, abs_tol=1e-12))


def column_units(names: list[str], target: str, found: dict | None = None, given: dict | None = None) -> tuple | None:
    """The unit text of each input column ``names`` and of the target (last), or None where a
    column has none: from ``found`` (name -> unit, as a header or a DataFrame's attributes give
    them) and ``given`` (name -> unit: ``--units``, ``SuperposRegressor(units=...)``; the
    target by its name or as ``y``). None where no column has a unit. A name that is no column,
    a unit that cannot be read, and a column whose two units disagree (``T [K]`` given as degC)
    are each one clear error."""
    found, given = dict(found or {}), dict(given or {})
    columns = list(names) + [target]
    if "y" in given and "y" not in names:
        unit = given.pop("y")
        if target in given and not _same_unit(given[target], unit):
            raise SuperposError(f"the units give the target both as {given[target]!r} ({target}) and {unit!r} (y)")
        given.setdefault(target, unit)
    given = {(f"{k}_" if k not in columns and f"{k}_" in columns else k): u for k, u in given.items()}  # lambda: lambda_
    stray = [k for k in given if k not in columns]
    if stray:
        raise SuperposError(f"units for {', '.join(map(repr, stray))}, which is no column (columns: "
                            f"{', '.join(columns)}; the target also as y)")
    out = []
    for name in columns:
        a, b = found.get(name), given.get(name)
        for text in (a, b):
            if text is not None:
                try:
                    parse_unit(text)
                except SuperposError as exc:
                    raise SuperposError(f"column {name!r}: {exc}") from None
        if a is not None and b is not None and not _same_unit(a, b):
            raise SuperposError(f"units that contradict each other: column {name!r} is in {a!r} by its header and "
                                f"in {b!r} by the units given; give one (or correct the header)")
        out.append(b if b is not None else a)
    return tuple(out) if any(u is not None for u in out) else None

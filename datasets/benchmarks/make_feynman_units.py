"""Write ``superpos/datasets/data/benchmarks/feynman_units.tsv`` (linked from here): the rows and
columns of ``feynman.tsv`` plus ``names`` (``x1=theta; x2=sigma; y=f``, the original variable
names) and ``units`` (``x1=1; x2=1; y=1``, text :func:`superpos.core.units.parse_unit` reads),
from the AI Feynman units table (``feynman_units_source.csv``, a verbatim copy of AI Feynman's
units.csv: exponents of m, s, kg, T = kelvin and V = volt per variable name) and the project's
shared AI Feynman table (variable order and output name of each equation).

    python datasets/benchmarks/make_feynman_units.py ../shared/data/benchmarks/feynman.tsv

Standard library only; the written units are checked with superpos's parse_unit when
superpos imports (the project's own package).
"""
from __future__ import annotations

import csv
import keyword
import re
import sys
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCE = HERE / "feynman_units_source.csv"
FEYNMAN = ROOT / "superpos" / "datasets" / "data" / "benchmarks" / "feynman.tsv"
OUT = ROOT / "superpos" / "datasets" / "data" / "benchmarks" / "feynman_units.tsv"

# AI Feynman's columns and the unit symbols written for them (T is the kelvin: "T" would read as tesla)
COLUMNS = ("kg", "m", "s", "T", "V")  # written in this order
SYMBOL = {"kg": "kg", "m": "m", "s": "s", "T": "K", "V": "V"}

# Fixes: (equation, the first word of its name; variable) -> (exponents of m, s, kg, T, V, why). units.csv gives one unit per
# name, and in these equations the name stands for another quantity than the table's entry.
# Every variable and output of the 120 equations is in units.csv by name; none is missing.
FIXES = {
    # v = mu_drift q V / d: the mobility of v = mu F (s/kg, the table's own "mob"); the table's
    # kg/s ("drift velocity constant") makes the law inconsistent.
    ("I.43.16", "mu_drift"): (0, 1, -1, 0, 0, "mobility (v = mu F), s kg^-1; the table's kg s^-1 is inconsistent"),
    # N-slit diffraction: I and I_0 are light intensities (the table's I is an electric current)
    ("test_11", "I"): (0, -3, 1, 0, 0, "light intensity W m^-2, as the table's Int/I1 (the table's I is a current)"),
    ("test_11", "I_0"): (0, -3, 1, 0, 0, "light intensity W m^-2, as the table's Int_0 (the table's I_0 is a current)"),
    # number densities (molecules per unit volume, Feynman I.40.1, II.11.17, II.35.18, II.11.27-28),
    # which the table's n / n_0 (refractive index, counts, quantum numbers) give as dimensionless
    ("I.40.1", "n"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n is dimensionless)"),
    ("I.40.1", "n_0"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n_0 is dimensionless)"),
    ("II.11.17", "n"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n is dimensionless)"),
    ("II.11.17", "n_0"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n_0 is dimensionless)"),
    ("II.35.18", "n"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n is dimensionless)"),
    ("II.35.18", "n_0"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n_0 is dimensionless)"),
    # P = N alpha/(1 - N alpha/3) eps0 E, kappa = 1 + N alpha/(1 - N alpha/3): N per unit volume and
    # the atomic polarizability alpha of p = alpha eps0 E, a volume
    ("II.11.27", "n"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n is dimensionless)"),
    ("II.11.27", "alpha"): (3, 0, 0, 0, 0, "polarizability volume m^3 (p = alpha eps0 E; the table's alpha is dimensionless)"),
    ("II.11.28", "n"): (-3, 0, 0, 0, 0, "number density m^-3 (the table's n is dimensionless)"),
    ("II.11.28", "alpha"): (3, 0, 0, 0, 0, "polarizability volume m^3 (p = alpha eps0 E; the table's alpha is dimensionless)"),
}
# Best SI units for names missing from units.csv (none at present): name -> (m, s, kg, T, V, why)
MISSING: dict = {}

HEADER = ("# Units: the AI Feynman units table (units.csv of https://space.mit.edu/home/tegmark/aifeynman.html, "
          "Udrescu & Tegmark 2020; copied verbatim from github:WassimTenachi/PhySO "
          "physo/benchmark/FeynmanDataset/units.csv @ bfbfa88d into datasets/benchmarks/feynman_units_source.csv), "
          "converted by datasets/benchmarks/make_feynman_units.py: each variable's exponents of m, s, kg, T (kelvin) "
          "and V (volt) written as kg m s K V with ^p (1 if dimensionless); names are the original variable names; "
          "{nfix} units of {neq} equations ({eqs}) replaced where the name means another quantity there "
          "(listed in the script's FIXES); with these units every law is dimensionally consistent (checked with sympy).")


def read_units(path: Path) -> dict:
    """name -> exponents (m, s, kg, T, V) of units.csv (``#`` lines skipped, a BOM allowed)."""
    lines = [ln for ln in path.read_text(encoding="utf-8-sig").splitlines() if ln.strip() and not ln.startswith("#")]
    table = {}
    for r in csv.DictReader(lines):
        name = (r.get("Variable") or "").strip()
        if name:
            table[name] = tuple(int(r[c]) for c in ("m", "s", "kg", "T", "V"))
    return table


def unit_text(exps) -> str:
    """(m, s, kg, T, V) exponents as ``kg m^2 s^-2 K^-1 V`` ('1' if all zero)."""
    by = dict(zip(("m", "s", "kg", "T", "V"), exps))
    parts = [SYMBOL[c] if by[c] == 1 else f"{SYMBOL[c]}^{by[c]}" for c in COLUMNS if by[c] != 0]
    return " ".join(parts) or "1"


def si_dimension(exps) -> tuple:
    """Exponents over superpos's base units (kg, m, s, A, K, mol, cd); V = kg m^2 s^-3 A^-1."""
    m, s, kg, T, V = (Fraction(e) for e in exps)
    return (kg + V, m + 2 * V, s - 3 * V, -V, T, Fraction(0), Fraction(0))


def identifier(name: str) -> str:
    """The name as a Python identifier (other characters made _, a leading digit or keyword prefixed)."""
    text = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", name.strip())).strip("_") or "v"
    if text[0].isdigit() or keyword.iskeyword(text):
        text = f"v_{text}"
    return text


def read_tsv(path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    comments = [ln for ln in lines if ln.startswith("#")]
    body = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    return comments, body[0].split("\t"), [ln.split("\t") for ln in body[1:]]


def check_units(texts) -> None:
    """Each unit text read by superpos's parse_unit with the dimension meant (skipped without superpos)."""
    sys.path.insert(0, str(ROOT))
    try:
        from superpos.core.units import parse_unit
    except ImportError as exc:  # the script itself needs only the standard library
        print(f"note: superpos does not import ({exc}); unit texts not checked with parse_unit")
        return
    for text, exps in sorted(texts.items()):
        got = parse_unit(text).dimension
        if tuple(got) != si_dimension(exps):
            raise SystemExit(f"parse_unit reads {text!r} as {got}, meant {si_dimension(exps)}")
    print(f"parse_unit reads all {len(texts)} distinct unit texts with the dimension meant")


def main(shared: str) -> None:
    table = read_units(SOURCE)
    comments, head, rows = read_tsv(FEYNMAN)
    _, shead, srows = read_tsv(Path(shared))
    sh = {c: k for k, c in enumerate(shead)}
    by_name = {r[sh["name"]]: r for r in srows}
    col = {c: k for k, c in enumerate(head)}
    texts, fixed_eqs, missing, used_fixes = {}, [], [], set()
    out = []
    for r in rows:
        name = r[col["name"]]
        s = by_name.get(name)
        if s is None or s[sh["formula_x"]] != r[col["formula"]]:
            raise SystemExit(f"{name}: not in {shared} with the same formula_x")
        variables = re.findall(r"(\S+):\[", s[sh["variables_with_ranges"]])
        n_x = len(r[col["sampling_range"]].split(";"))
        if len(variables) != n_x:
            raise SystemExit(f"{name}: {len(variables)} variables in {shared}, {n_x} ranges here")
        names, units, eq = [], [], name.split(" ")[0]  # test_11 of "test_11 (N-slit diffraction)"
        for key, var in [(f"x{k + 1}", v) for k, v in enumerate(variables)] + [("y", s[sh["output"]])]:
            if (eq, var) in FIXES:
                exps = FIXES[(eq, var)][:5]
                used_fixes.add((eq, var))
            elif var in table:
                exps = table[var]
            elif var in MISSING:
                exps = MISSING[var][:5]
                missing.append((name, var))
            else:
                raise SystemExit(f"{name}: {var} is not in units.csv; give its SI unit in MISSING")
            ident = var if var.isidentifier() and not keyword.iskeyword(var) else identifier(var)
            if ident != var:
                print(f"{name}: the name {var!r} written as {ident!r}")
            text = unit_text(exps)
            texts[text] = exps
            names.append(f"{key}={ident}")
            units.append(f"{key}={text}")
        if any(e == eq for e, _ in used_fixes):
            fixed_eqs.append(eq)
        out.append("\t".join(r + ["; ".join(names), "; ".join(units)]))
    unused = sorted(set(FIXES) - used_fixes)
    if unused:
        raise SystemExit(f"FIXES names variables no equation has: {unused}")
    for (eq, var), fix in sorted(FIXES.items()):
        print(f"fix {eq} {var}: {unit_text(fix[:5])} -- {fix[5]} (units.csv: {unit_text(table[var]) if var in table else 'none'})")
    for eq, var in missing:
        print(f"missing from units.csv: {eq} {var}, written {unit_text(MISSING[var][:5])} -- {MISSING[var][5]}")
    check_units(texts)
    header = HEADER.format(nfix=len(FIXES), neq=len(fixed_eqs), eqs=", ".join(fixed_eqs))
    OUT.write_text("\n".join(comments + [header, "\t".join(head + ["names", "units"])] + out) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} problems to {OUT}: {len(out) - len(fixed_eqs)} with every unit from units.csv, "
          f"{len(fixed_eqs)} with fixes, {len(missing)} variables missing from units.csv")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared" / "data" / "benchmarks" / "feynman.tsv"))

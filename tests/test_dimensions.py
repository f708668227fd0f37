"""Dimensional analysis (superpos.core.dimensions): Buckingham's groups, the units a formula's
constants carry, physical constants by name; units given by --units, SuperposRegressor(units=...)
and a DataFrame's attrs; and hostile inputs of magnitudes, integers and units."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from superpos import SuperposError, SuperposRegressor
from superpos.core.dimensions import dimensional_constants, physical_constant, pi_groups, unit_text
from superpos.core.units import BASE, column_units, parse_unit, units_option
from superpos.symreg.pipeline import carrying_units, find_formula


def dims(*texts):
    return [parse_unit(t).dimension for t in texts]


def dimension_of(exponents, ds):
    out = [Fraction(0)] * len(BASE)
    for e, d in zip(exponents, ds):
        out = [o + e * x for o, x in zip(out, d)]
    return tuple(out)


@pytest.mark.parametrize("inputs, target, n_groups", [
    (("C", "C", "F/m", "m"), "N", 1),  # Coulomb with epsilon as an input: q1 / q2 left
    (("m", "m/s^2"), "s", 0),  # a pendulum: T ~ sqrt(L / g), no group
    (("kg", "m"), "m/s", None),  # escape velocity without G: no product of the inputs is a speed
    (("1", "1"), "1", 2),  # dimensionless inputs are their own groups
    (("kg", "m/s", "m/s"), "J", 1),  # kinetic energy of a relative speed: v1 / v2
])
def test_buckingham_groups_are_dimensionless_and_the_factor_has_ys_unit(inputs, target, n_groups):
    found = pi_groups(dims(*inputs), parse_unit(target).dimension)
    if n_groups is None:
        assert found is None
        return
    a, groups = found
    ds = dims(*inputs)
    assert dimension_of(a, ds) == parse_unit(target).dimension
    assert len(groups) == n_groups
    for g in groups:
        assert all(isinstance(b, int) for b in g) and any(g)
        assert not any(dimension_of(g, ds))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(-2, 2), min_size=3, max_size=3), min_size=1, max_size=5),
       st.lists(st.integers(-2, 2), min_size=3, max_size=3))
def test_buckingham_agrees_with_a_brute_force_search_of_small_exponents(cols, target):
    """Over the base units kg, m, s: a product of the inputs with y's dimension exists (small
    integer exponents) exactly where pi_groups finds one, and the number of groups is m - rank."""
    pad = lambda v: tuple(Fraction(x) for x in v) + (Fraction(0),) * (len(BASE) - 3)
    ds, t = [pad(c) for c in cols], pad(target)
    found = pi_groups(ds, t)
    brute = any(dimension_of(e, ds) == t for e in product(range(-4, 5), repeat=len(ds)))
    if brute:
        assert found is not None
    if found is not None:
        a, groups = found
        assert dimension_of(a, ds) == t
        rank = np.linalg.matrix_rank(np.array([[float(x) for x in c] for c in cols]))
        assert len(groups) == len(ds) - rank


def test_unit_text_merges_columns_of_the_same_unit():
    e = (Fraction(-1), Fraction(-1), Fraction(2), Fraction(1))
    assert unit_text(e, ["C", "C", "m", "N"]) == "m^2 N C^-2"
    assert unit_text((Fraction(1, 2),), ["m^3"]) == "(m^3)^(1/2)"
    assert unit_text((Fraction(0),), ["m"]) == "1"


def check(expr, names, units):
    syms = sympy.symbols(names)
    return dimensional_constants(expr(*syms), names, [parse_unit(u) for u in units], list(units))


def test_a_constant_takes_the_unit_its_place_needs():
    d = check(lambda T: 3.2e5 * sympy.exp(-6200.0 / T), ["T"], ["K", "Pa"])
    assert d.consistent
    by_value = {c.value: c for c in d.constants}
    assert by_value[320000.0].unit == "Pa" and by_value[-6200.0].unit == "K"
    d = check(lambda S: 2.1 * S / (0.52 + S), ["S"], ["mmol/L", "umol/min"])
    assert d.consistent and {c.unit for c in d.constants} == {"(umol/min)", "(mmol/L)"}


@pytest.mark.parametrize("expr, names, units, why", [
    (lambda V, R: V**2 / R + V, ["V", "R"], ["V", "Ohm", "W"], "a sum of terms"),
    (lambda V, R: sympy.exp(V) * R, ["V", "R"], ["V", "Ohm", "W"], "the argument of exp"),
    (lambda V, R: V**2 / R**2, ["V", "R"], ["V", "Ohm", "W"], "with no constant to carry"),
])
def test_inconsistent_formulas_say_where(expr, names, units, why):
    d = check(expr, names, units)
    assert not d.consistent and why in d.why


def test_a_dimensionless_overall_factor_carries_no_unit():
    d = check(lambda V, R: 0.5 * V**2 / R, ["V", "R"], ["V", "Ohm", "W"])
    assert d.consistent and d.constants == ()


def test_physical_constants_are_named_in_si():
    assert physical_constant(8.988e9, parse_unit("N m^2 C^-2").dimension) == "1/(4 pi epsilon_0)"
    assert physical_constant(6.674e-11, parse_unit("m^3 kg^-1 s^-2").dimension) == "G"
    assert physical_constant(2.0064, parse_unit("s m^(-1/2)").dimension) == "2 pi/sqrt(g_n)"
    assert physical_constant(8.314, parse_unit("J/(mol K)").dimension) == "R"
    assert physical_constant(8.9, parse_unit("J/(mol K)").dimension) is None  # 7 % off
    assert physical_constant(8.314, parse_unit("J/K").dimension) is None  # R's value, not its unit
    assert physical_constant(2.0, parse_unit("1").dimension) is None  # a number is no constant
    # in the columns' units: 13.6 eV is h c R_inf, not named, but converted to SI
    d = check(lambda n: 13.6 / n**2, ["n"], ["1", "eV"])
    assert d.consistent and d.constants[0].si_value == pytest.approx(13.6 * 1.602176634e-19)


def test_the_constants_of_a_tree_that_carry_units_are_kept_from_snapping():
    from superpos.core.basis import Basis
    from superpos.core.tree import from_string

    b = Basis.default(n_variables=2)
    tree = from_string("mul(c, div(mul(x1, x1), x2))", b)
    assert carrying_units(tree, b, np.array([0.5]), ("V", "Ohm", "W")) == ()  # 0.5 is a number
    assert carrying_units(tree, b, np.array([0.5]), ("V", "Ohm", "J")) == (0,)  # a time
    assert carrying_units(tree, b, np.array([0.5]), None) == ()


def test_a_pendulums_constant_stays_as_measured_with_units():
    rng = np.random.default_rng(0)
    L = rng.uniform(0.2, 1.5, 20)
    T = 2.006 * np.sqrt(L) * (1 + 0.01 * rng.standard_normal(20))
    plain = find_formula(L[:, None], T, random_state=0)
    assert plain.dimensions is None
    f = find_formula(L[:, None], T, units=("m", "s"), random_state=0)
    (c,) = f.dimensions.constants
    assert f.dimensions.consistent and c.unit == "s m^(-1/2)" and c.value == pytest.approx(2.006, rel=5e-3)
    assert c.value != 2.0  # a simple number in these units is none in others


def test_buckingham_reduces_a_law_whose_constants_are_inputs():
    rng = np.random.default_rng(1)
    q1, q2, eps, r = (rng.uniform(1, 5, 200) for _ in range(4))
    X = np.c_[q1, q2, eps, r]
    F = q1 * q2 / (4 * np.pi * eps * r**2)
    f = find_formula(X, F, units=("C", "C", "F/m", "m", "N"), random_state=0)
    steps = {s["proposer"]: s for s in f.trace.to_dict()["search"]["steps"]}
    assert steps["dimensions"]["ran"] and steps["dimensions"]["added"] > 0
    assert sympy.simplify(f.expr - sympy.sympify("x1*x2/(4*pi*x3*x4**2)",
                                                 locals={f"x{j}": sympy.Symbol(f"x{j}", real=True)
                                                         for j in range(1, 5)})) == 0
    no_units = find_formula(X, F, random_state=0)
    assert {s["proposer"]: s for s in no_units.trace.to_dict()["search"]["steps"]}["dimensions"]["skipped"]


def test_units_option_and_column_units():
    assert units_option("T=K, P = Pa; y=J") == {"T": "K", "P": "Pa", "y": "J"}
    with pytest.raises(SuperposError, match="name=unit"):
        units_option("T K")
    with pytest.raises(SuperposError, match="twice"):
        units_option("T=K, T=s")
    assert column_units(["T", "P"], "E", {"T": "K"}, {"y": "J"}) == ("K", None, "J")
    assert column_units(["T"], "E", {"T": "K"}, {"T": "K"}) == ("K", None)
    assert column_units(["T"], "E", None, None) is None
    with pytest.raises(SuperposError, match="contradict"):
        column_units(["T"], "E", {"T": "K"}, {"T": "degC"})
    with pytest.raises(SuperposError, match="no column"):
        column_units(["T"], "E", None, {"V": "m^3"})
    with pytest.raises(SuperposError, match="cannot read the unit"):
        column_units(["T"], "E", None, {"T": "furlongs"})


def test_units_given_to_the_regressor_from_names_attrs_and_the_parameter():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    n, T, V = rng.uniform(0.5, 3, 30), rng.uniform(250, 400, 30), rng.uniform(0.01, 0.1, 30)
    P = 8.314 * n * T / V
    df = pd.DataFrame({"n [mol]": n, "T [K]": T, "V": V})
    df.attrs["units"] = {"V": "m^3"}
    r = SuperposRegressor(random_state=0, units={"y": "Pa"}).fit(df, P)
    assert r.dimensions_ is not None and r.dimensions_.consistent
    assert [c.name for c in r.dimensions_.constants] == ["R"]
    assert "units" in r.get_params()
    with pytest.raises(SuperposError, match="contradict"):
        SuperposRegressor(units={"T": "degC"}).fit(df, P)
    with pytest.raises(SuperposError, match="4 unit texts"):
        SuperposRegressor(units=["mol", "K"]).fit(np.c_[n, T, V], P)
    plain = SuperposRegressor(random_state=0).fit(np.c_[n, T, V], P)
    assert plain.dimensions_ is None


def _predict(tmp_path, text, *args):
    p = tmp_path / "data.csv"
    p.write_text(text)
    return subprocess.run([sys.executable, "-m", "superpos", "predict", str(p), "--quiet", *args],
                          capture_output=True, text=True, timeout=300)


def _table(header, cols):
    rows = [",".join(repr(float(v)) if not float(v).is_integer() else str(int(v)) for v in r) for r in zip(*cols)]
    return ",".join(header) + "\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("scale", [1e-299, 1e-300 / 25, 1e298])
def test_hostile_columns_near_the_ends_of_float64(tmp_path, scale):
    rng = np.random.default_rng(3)
    x = rng.uniform(1, 5, 40)
    z = rng.uniform(1, 5, 40)
    y = x * z
    out = _predict(tmp_path, _table(["a", "b", "y"], [x * scale, z, y * scale]), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["r2"] > 0.999 and doc["inputs"] == ["a", "b"]


def test_hostile_a_column_of_integers_is_said_so(tmp_path):
    rng = np.random.default_rng(4)
    n = rng.integers(1, 10, 60).astype(float)
    x = rng.uniform(1, 3, 60)
    out = _predict(tmp_path, _table(["n", "x", "E"], [n, x, x / n**2]), "--format", "json")
    assert out.returncode == 0, out.stderr
    cols = {c["name"]: c for c in json.loads(out.stdout)["columns"]}
    assert cols["n"]["integer"] and not cols["x"]["integer"]


@pytest.mark.parametrize("header, args, message", [
    (["L [furlongs]", "T [s]"], (), "cannot read the unit 'furlongs'"),
    (["L [m]", "T [s]"], ("--units", "L=kg"), "contradict"),
    (["L [m]", "T [s]"], ("--units", "L=m, T=min"), "contradict"),
    (["L", "T"], ("--units", "Q=m"), "no column"),
])
def test_hostile_units_are_one_clear_error(tmp_path, header, args, message):
    x = np.linspace(0.2, 1.5, 12)
    out = _predict(tmp_path, _table(header, [x, 2 * np.sqrt(x)]), *args)
    assert out.returncode != 0 and message in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr


def test_hostile_brackets_without_a_unit_are_a_dimensionless_column(tmp_path):
    x = np.linspace(0.2, 1.5, 12)
    out = _predict(tmp_path, _table(["L []", "T [s]"], [x, 2 * np.sqrt(x)]), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["inputs"] == ["L"] and doc["units"] == {"L": "", "T": "s"}
    assert doc["dimensions"]["consistent"]


def test_an_inconsistent_leader_gives_way_to_a_consistent_finalist_within_the_noise():
    from superpos.core.basis import Basis
    from superpos.core.tree import from_string
    from superpos.symreg.candidates import Candidate
    from superpos.symreg.selection import consistent_order

    b = Basis.default(n_variables=2)
    names = tuple(b.to_list())
    inconsistent = from_string("add(x1, x2)", b)  # metres plus seconds
    consistent = from_string("mul(c, x1)", b)
    cands = [Candidate(t, names, 0.0, 0, np.array(c), 0.1, 0.1, "model") for t, c in
             ((inconsistent, []), (consistent, [1.0]))]
    rng = np.random.default_rng(0)
    E = np.abs(rng.normal(0.1, 0.02, (2, 40)))
    E[1] = E[0] + rng.normal(0, 0.002, 40)  # no better and no worse on the same points
    units = ("m", "s", "m")
    assert consistent_order(cands, b, E, [0, 1], 1e-10, units) == [1, 0]
    assert consistent_order(cands, b, E, [0, 1], 1e-10, None) == [0, 1]
    worse = E.copy()
    worse[1] = 3 * E[0]  # a practically worse fit keeps its place
    assert consistent_order(cands, b, worse, [0, 1], 1e-10, units) == [0, 1]


def test_a_power_law_written_through_the_logarithm_is_consistent():
    """exp(a log V) is V^a and log(x) + c is log(x / x0): a logarithm's unit goes into a
    constant beside it, so the power laws of the powers proposer are not inconsistent."""
    d = check(lambda V: 100.0 * sympy.exp(1.41 * sympy.log(V)), ["V"], ["L", "kPa"])
    assert d.consistent
    d = check(lambda P: 2.0 * sympy.log(P) + 3.5, ["P"], ["Pa", "1"])
    assert d.consistent


def test_a_term_of_no_effect_is_dropped_though_its_constant_carries_a_unit():
    from superpos.symreg.snapping import snap_values

    rng = np.random.default_rng(0)
    x = rng.uniform(1, 3, 40)
    y = 0.1003 * x**2 * (1 + 0.01 * rng.standard_normal(40))

    def predict(v):
        return v[0] * x**2 + v[1] * x

    fitted = np.linalg.lstsq(np.c_[x**2, x], y, rcond=None)[0]
    plain = snap_values(predict, y, fitted, thorough=True)
    kept = snap_values(predict, y, fitted, keep=(0, 1), thorough=True)
    assert plain[0] == 0.101 and plain[1] == 0.0
    assert kept[1] == 0.0  # zero is zero in every unit
    assert kept[0] != 0.101 and abs(kept[0] - 0.1003) < 0.002  # a simple number only in these units


def test_fitted_powers_and_nodes_without_a_rule_make_no_claim():
    x1, c0, c1 = sympy.symbols("x1 c0 c1")
    units = [parse_unit("s"), parse_unit("m/s")]
    d = dimensional_constants(2.99792458e8 * x1**1.37, ["x1"], units, ["s", "m/s"])
    assert d.consistent and d.constants == ()  # no unit claimed for c, so no false name
    d = dimensional_constants(c0 / sympy.Abs(x1)**c1 + 2.0, ["x1"], units, ["s", "m/s"], values={"c0": 1.5, "c1": 3.0})
    assert d.consistent
    m = [parse_unit("m"), parse_unit("m")]
    assert dimensional_constants(3.0 * x1**2.0, ["x1"], m, ["m", "m"]).constants[0].unit == "m^-1"  # 2.0 is 2
    assert dimensional_constants(x1 + 1, ["x1"], m, ["m", "m"]).consistent  # x + 1 is x + x0
    assert dimensional_constants(sympy.Mod(x1, 2.0), ["x1"], m, ["m", "m"]).consistent
    assert not dimensional_constants(sympy.Max(x1, 2 * x1), ["x1"], [parse_unit("m"), parse_unit("s")],
                                     ["m", "s"]).consistent  # no constant turns metres into seconds


def test_a_named_constant_keeps_its_parentheses():
    assert physical_constant(1 / (np.sqrt(2) * 6.6743e-11), parse_unit("kg s^2 m^-3").dimension) == "1/(sqrt(2) G)"


def test_the_regressor_reads_a_targets_unit_from_the_frames_attrs_and_an_input_named_y():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    x, z = rng.uniform(1, 3, 30), rng.uniform(1, 3, 30)
    df = pd.DataFrame({"x [m]": x, "y [s]": z, "P": x * z})
    df.attrs["units"] = {"P": "m s"}  # pandas copies it onto df["P"]
    r = SuperposRegressor(random_state=0, search_rounds=0).fit(df[["x [m]", "y [s]"]], df["P"])
    assert r.dimensions_ is not None and r.dimensions_.consistent
    with pytest.raises(SuperposError, match="unit texts"):
        SuperposRegressor(units=5).fit(np.c_[x, z], x * z)

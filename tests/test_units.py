"""Physical units read from a header or a unit string (superpos.core.units), and the column
names the reader keeps."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from superpos import SuperposError
from superpos.core.units import BASE, column_names, identifier, parse_unit, split_header
from superpos.datasets.reader import read_dataset


def dim(**p):
    return tuple(Fraction(p.get(b, 0)) for b in BASE)


@pytest.mark.parametrize("text, factor, dimension", [
    ("kg/m3", 1.0, dim(kg=1, m=-3)),
    ("J/(mol K)", 1.0, dim(kg=1, m=2, s=-2, mol=-1, K=-1)),
    ("W/m K", 1.0, dim(kg=1, m=1, s=-3, K=-1)),  # after a '/', the rest is the denominator
    ("m s^-2", 1.0, dim(m=1, s=-2)), ("m/s**2", 1.0, dim(m=1, s=-2)), ("kg.m.s-2", 1.0, dim(kg=1, m=1, s=-2)),
    ("N\u00b7m", 1.0, dim(kg=1, m=2, s=-2)), ("m\u00b2", 1.0, dim(m=2)),
    ("kOhm", 1e3, dim(kg=1, m=2, s=-3, A=-2)), ("\u03a9", 1.0, dim(kg=1, m=2, s=-3, A=-2)),
    ("uF", 1e-6, dim(kg=-1, m=-2, s=4, A=2)), ("\u00b5s", 1e-6, dim(s=1)), ("nC", 1e-9, dim(s=1, A=1)),
    ("mm^2", 1e-6, dim(m=2)), ("mL", 1e-6, dim(m=3)), ("1/mL", 1e6, dim(m=-3)), ("mM", 1.0, dim(mol=1, m=-3)),
    ("mmHg", 133.322387415, dim(kg=1, m=-1, s=-2)), ("kPa", 1e3, dim(kg=1, m=-1, s=-2)),
    ("atm", 101325.0, dim(kg=1, m=-1, s=-2)), ("bar", 1e5, dim(kg=1, m=-1, s=-2)),
    ("eV", 1.602176634e-19, dim(kg=1, m=2, s=-2)), ("MeV", 1.602176634e-13, dim(kg=1, m=2, s=-2)),
    ("min", 60.0, dim(s=1)), ("h", 3600.0, dim(s=1)), ("umol/min", 1e-6 / 60, dim(mol=1, s=-1)),
    ("GHz", 1e9, dim(s=-1)), ("Hz^(1/2)", 1.0, dim(s=Fraction(-1, 2))),
    ("%", 0.01, dim()), ("1", 1.0, dim()), ("-", 1.0, dim()), ("", 1.0, dim()), ("rad/s", 1.0, dim(s=-1)),
    ("cells/mL", 1e6, dim(m=-3)),
    # an ambiguous symbol reads as its SI unit
    ("m", 1.0, dim(m=1)), ("C", 1.0, dim(s=1, A=1)), ("T", 1.0, dim(kg=1, s=-2, A=-1)), ("cd", 1.0, dim(cd=1)),
    ("Pa", 1.0, dim(kg=1, m=-1, s=-2)),
])
def test_units_read_as_factor_and_dimension(text, factor, dimension):
    u = parse_unit(text)
    assert u.factor == pytest.approx(factor, rel=1e-12) and u.dimension == dimension and u.offset == 0.0


def test_an_affine_unit_has_its_offset_alone_and_is_a_difference_in_a_product():
    c = parse_unit("degC")
    assert (c.factor, c.offset, c.dimension) == (1.0, 273.15, dim(K=1))
    assert parse_unit("\u00b0C").offset == 273.15
    f = parse_unit("degF")
    assert f.factor * (32 + f.offset) == pytest.approx(273.15)
    per = parse_unit("J/degC")
    assert per.offset == 0.0 and per.dimension == dim(kg=1, m=2, s=-2, K=-1)


def test_the_si_form_names_the_base_units():
    assert parse_unit("N m^2 C^-2").si() == "kg m^3 s^-4 A^-2"
    assert parse_unit("%").si() == "1" and parse_unit("%").dimensionless and not parse_unit("m").dimensionless


@pytest.mark.parametrize("text, why", [
    ("furlong", "unknown unit symbol 'furlong'"), ("m//s", "without a unit before it"), ("/s", "without a unit"),
    ("(m", "without its '\\)'"), ("m)", "without its '\\('"), ("kg/", "ends with /"), ("m^99", "larger than 12"),
    ("10 m", "unexpected"), ("kmin", "unknown unit symbol"), ("x" * 200, "longer than 80"),
])
def test_a_unit_that_cannot_be_read_is_one_error_naming_it(text, why):
    with pytest.raises(SuperposError, match=why) as exc:
        parse_unit(text)
    assert "cannot read the unit" in str(exc.value) and "\n" not in str(exc.value)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_a_unit_or_one_clear_error(text):
    try:
        u = parse_unit(text)
    except SuperposError as exc:
        assert "cannot read the unit" in str(exc) or "must be a string" in str(exc)
    else:
        assert math.isfinite(u.factor) and u.factor > 0 and len(u.dimension) == 7


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m", "s", "kg", "A", "K", "mol", "N", "J", "Pa", "V"]),
                          st.integers(-3, 3).filter(bool)), min_size=1, max_size=4))
def test_a_product_of_powers_has_the_summed_dimension(factors):
    text = " ".join(f"{s}^{p}" for s, p in factors)
    want = [Fraction(0)] * 7
    for s, p in factors:
        for k, v in enumerate(parse_unit(s).dimension):
            want[k] += p * v
    assert parse_unit(text).dimension == tuple(want)


@pytest.mark.parametrize("cell, name, unit", [
    ("T [K]", "T", "K"), ("V (m^3)", "V", "m^3"), ("rho (kg/m3)", "rho", "kg/m3"), ("T []", "T", ""),
    ("rate (mol/(L s))", "rate", "mol/(L s)"), ("v_m_per_s", "v_m_per_s", None), ("a (b) c", "a (b) c", None),
    ("[K]", "[K]", None),
])
def test_a_header_cell_splits_into_name_and_unit(cell, name, unit):
    assert split_header(cell) == (name, unit)


def test_each_column_keeps_a_readable_name():
    names, units = column_names(["T [K]", "\u03c1 (kg/m3)", "T hot", "2nd run", "T (degC)", "!!", "y [J]"])
    assert names == ["T", "rho", "T_hot", "x_2nd_run", "T_2", "x6", "y"]
    assert units == ["K", "kg/m3", None, None, "degC", None, "J"]
    assert identifier("\u0394T", "x1") == "DeltaT"
    with pytest.raises(SuperposError, match="column 'L \\[furlong\\]'.*furlong"):
        column_names(["L [furlong]", "y"])


def test_the_reader_keeps_names_and_reports_units(tmp_path):
    p = tmp_path / "gas.csv"
    rng = np.random.default_rng(0)
    rows = rng.uniform(1, 2, (12, 3))
    p.write_text("n (mol),T [K],V (m^3),P [kPa]\n" + "".join(",".join(f"{v:.4g}" for v in r) + f",{r[0] * r[1] / r[2]:.4g}\n"
                                                            for r in rows))
    info: dict = {}
    X, y, names = read_dataset(str(p), info=info)
    assert names == ["n", "T", "V"] and X.shape == (12, 3)
    assert info["units"] == {"n": "mol", "T": "K", "V": "m^3", "P": "kPa"}
    X2, y2, names2 = read_dataset(str(p), target="T", info=info)  # the target by its name
    assert names2 == ["n", "V", "P"] and np.allclose(y2, X[:, 1])
    bad = tmp_path / "bad.csv"
    bad.write_text("L [parsecs per fortnight],y\n1,2\n2,3\n3,4\n4,5\n5,6\n")
    with pytest.raises(SuperposError, match="bad.csv: column 'L \\[parsecs per fortnight\\]'"):
        read_dataset(str(bad))
    odd = tmp_path / "odd.csv"
    odd.write_text("T hot [],x,y\n1,2,3\n2,3,4\n3,4,5\n4,5,7\n5,6,8\n")
    notes: list = []
    assert read_dataset(str(odd), notes=notes)[2] == ["T_hot", "x"]
    assert any("'T hot []' as T_hot" in n for n in notes)


def test_the_regressor_names_dataframe_columns_with_units():
    pd = pytest.importorskip("pandas")
    from superpos import SuperposRegressor

    x = np.linspace(0.2, 1.5, 20)
    X = pd.DataFrame({"L [m]": x})
    reg = SuperposRegressor(search_rounds=0, top_k=20, random_state=0).fit(X, 2.0 * np.sqrt(x))
    assert {str(s) for s in reg.expr_.free_symbols} == {"L"}


def test_a_keyword_as_a_column_name_is_renamed():
    from superpos.core.units import column_units

    names, units = column_names(["lambda [nm]", "E (V)", "x"])
    assert names == ["lambda_", "E", "x"] and units == ["nm", "V", None]
    assert column_units(names[:2], "x", None, {"lambda": "nm", "E": "V"}) == ("nm", "V", None)

"""Crafted formulas and benchmark files: refused with one SuperposError, quickly.

parse_formula walks Python's ast itself (no eval, no sympify): ordinary formulas give the
expression sympify gave, hostile ones (9**9**9**9, 1/0, attribute access, huge numbers,
deep nesting) a one-line SuperposError. load_problems checks a user's .tsv before using it.
"""
from __future__ import annotations

import re
import time

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superpos.core.basis import Basis
from superpos.core.formula import parse_formula
from superpos.core.symbolic import from_sympy
from superpos.datasets.problems import Problem, is_exact_recovery, load_problems
from superpos.exceptions import NotRepresentable, SuperposError


def _sympified(text: str) -> sympy.Expr:
    """What the old parser gave: sympify with real symbols and the whitelisted names."""
    names = {n: sympy.Symbol(n, real=True) for n in re.findall(r"\b(?:x[0-9]+|c[0-9]*)\b", text)}
    return sympy.sympify(text.replace("^", "**"), locals={"Abs": sympy.Abs, "abs": sympy.Abs, "E": sympy.E,
                                                          "pi": sympy.pi, **names})


def _refused(text: str, match: str | None = None, seconds: float = 1.0) -> SuperposError:
    t = time.perf_counter()
    with pytest.raises(SuperposError, match=match) as info:
        parse_formula(text)
    assert time.perf_counter() - t < seconds
    assert "\n" not in str(info.value)  # one line
    return info.value


# ------------------------------------------------------------------ known answers

ORDINARY = ["2*sin(x1) + x2**2", "x1^2", "sqrt(x1)/3", "exp(-x1)*c0", "log(x1 + 1)", "x1**(1/3)", "-x1", "+x1",
            "x1 - x2", "x1/2/3", "2/3", "E**x1", "1e5*x1", ".5 + x1", "c*x1 + c0", "Abs(x1) + abs(x2)", "x1**0.426",
            "x1 + x1", "2**10*x1", "sqrt(8)*x1", "tanh(x1) + tan(x2)", "  x1  ", "x1 - x1 + 3", "-x1**2", "2**-3",
            "asin(x1) + acos(x1) + atan(x1) + sinh(x1) + cosh(x1)", "x1**x2", "2*(x1 + 1)*x2", "x1*(x1 + 1)/2",
            "30*x1*x3/((x1 - 10)*x2**2)", "0.3*x1*sin(2*pi*x1)", "sin(pi/6)*x1", "3.39*x1**3 + 2.12*x1**2",
            "x1**3*exp(-x1)*cos(x1)*sin(x1)*(sin(x1)**2*cos(x1) - 1)", "log(x1 + sqrt(x1**2 + 1))", "x999 + c12"]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_formulas_read_as_sympify_read_them(text):
    got = parse_formula(text)
    want = _sympified(text)
    assert got == want and sympy.srepr(got) == sympy.srepr(want)
    assert all(s.is_real for s in got.free_symbols)


@pytest.mark.parametrize("name", ["nguyen", "keijzer"])
def test_shipped_benchmark_formulas_read_as_before(name):
    for p in load_problems(name):
        assert sympy.srepr(parse_formula(p.formula)) == sympy.srepr(_sympified(p.formula)), p.name


def test_given_symbols_and_constants():
    y = sympy.Symbol("y", positive=True)
    e = parse_formula("2*y + pi + E", {"y": y})
    assert e == 2 * y + sympy.pi + sympy.E
    assert parse_formula("x1", {"x1": sympy.Symbol("x1")}) == sympy.Symbol("x1")  # not the real one
    assert parse_formula("sqrt(x1)") == sympy.sqrt(sympy.Symbol("x1", real=True))
    assert parse_formula("log(x1)").func is sympy.log and parse_formula("abs(x1)").func is sympy.Abs
    # five nested functions and a sum of 300 terms are fine
    assert parse_formula("sin(cos(exp(log(sqrt(x1)))))") == _sympified("sin(cos(exp(log(sqrt(x1)))))")
    assert len(parse_formula(" + ".join(f"x{k}" for k in range(1, 301))).args) == 300


def test_erf_and_pow_read():
    x1 = sympy.Symbol("x1", real=True)
    assert parse_formula("pow(x1, 0.45)") == parse_formula("x1**0.45") == x1**sympy.Float("0.45")
    assert parse_formula("2.5*erf(x1 - 3)") == 2.5 * sympy.erf(x1 - 3)
    assert float(parse_formula("erf(0.5)")) == pytest.approx(0.5204998778)
    for bad, match in [("pow(x1)", "pow\\(\\) of 1 arguments"), ("pow(x1, 2, 3)", "of 3 arguments"),
                       ("erf(x1, x2)", "of 2 arguments"), ("pow(2, 1000)", "exponent"),
                       ("erf(sqrt(-1))", "not a real number"), ("pow(x1, y=2)", "keyword")]:
        _refused(bad, match)


# ------------------------------------------------------------------ hostile input

HOSTILE = [
    ("9**9**9**9", "exponent"), ("9**(9**9)", "exponent"), ("2**1000", "exponent"), ("x1**101", "exponent"),
    ("x1**-101", "exponent"), ("(x1**50)**50", "exponent"), ("10**(x1*0 + 200)", "exponent"),
    ("1/0 + x1", r"not finite \(division by zero\?\)"), ("x1/(x1 - x1)", "not finite"), ("x1/0.0", "not finite"),
    ("log(0)", "not finite"), ("0**-1", "not finite"), ("tan(pi/2)", "not finite"),
    ("1e999", "above"), ("exp(1000)", "above"), ("(10**30)**10*(10**30)**10", "above"),
    ("1" * 31, "digits"), ("((1/10**30)**10)**10", "digits"), ("(((x1*3**-90)**100)**100)**100", "digits|exponent"),
    ("sqrt(-1)", "not a real number"), ("log(-2)*x1", "not a real number"), ("(-8)**(1/3)", "not a real number"),
    ("x1 +", "syntax"), ("(x1", "syntax"), ("", "nothing"), ("   ", "nothing"), ("*x1", "syntax"),
    ("x1.real", "attribute"), ("(1).__class__", "attribute"), ("x1[0]", "subscript"), ("sin(x=1)", "keyword"),
    ("lambda: 1", "lambda"), ("x1 < 2", "comparison"), ("x1 if x1 else 2", "if/else"), ("x1 and x2", "and/or"),
    ("'a'", "literal"), ("f'{x1}'", "string"), ("[x1]", "List"), ("(x1, x2)", "Tuple"), ("(x1 := 2)", "NamedExpr"),
    ("x1 % 2", "operator"), ("x1 // 2", "operator"), ("~x1", "operator"), ("not x1", "operator"), ("x1 @ x2", "operator"),
    ("0x10", "decimal"), ("1_000", "decimal"), ("1j", "decimal"), ("True", "decimal"),
    ("__import__('os').getpid()", "unknown name"), ("y + x1", "unknown name"), ("x0", "unknown name"),
    ("x1000", "unknown name"), ("I", "unknown name"), ("oo", "unknown name"), ("zoo*x1", "unknown name"),
    ("sin(x1, x2)", "2 arguments"), ("sin()", "0 arguments"), ("sin", "without its argument"),
    ("pi(2)", "not a function"), ("x1(2)", "not a function"), ("sin(x1)(2)", "not a function"),
    ("x1\n+ 1", "character"), ("x1 # c", "character"), ("\uff581", "character"), ("x1\x00", "character"),
    ("x" * 2001, "2000 characters"), ("-" * 150 + "x1", "nesting"), ("sin(" * 6 + "x1" + ")" * 6, "nested"),
    ("(" * 201 + "x1" + ")" * 201, "syntax"), ("x1" + "**x1" * 120, "nest"),
    ("log(" * 5 + "-2" + ")" * 5, "real"), ("((" * 3 + "-x1**2-3)**(1/3)-3)**(1/3)" * 3, "nested"),
]


@pytest.mark.parametrize("text,match", HOSTILE)
def test_hostile_formulas_are_refused_quickly(text, match):
    _refused(text, match)


def test_the_message_names_the_formula():
    assert "'1/0 + x1'" in str(_refused("1/0 + x1"))
    long = _refused("x1 + " * 500 + "x1")  # long formulas are shown shortened
    assert len(str(long)) < 300


@pytest.mark.parametrize("bad", [None, 12, b"x1", ["x1"]])
def test_only_strings_are_formulas(bad):
    with pytest.raises(SuperposError, match="string"):
        parse_formula(bad)


def test_from_sympy_refuses_infinite_and_huge_expressions():
    b = Basis.default(1)
    x1 = b.variables[0]
    with pytest.raises(SuperposError, match="not finite"):
        from_sympy("1/0 + x1", b)
    for e in [x1 + sympy.zoo, x1 * sympy.oo, x1 - sympy.oo, sympy.nan * x1, sympy.sin(x1) + sympy.nan]:
        with pytest.raises(NotRepresentable):
            from_sympy(e, b)
    small = Basis(["add", "mul", "1", "2", "x1"])  # no pow2/pow3, no constant: no recursion 5000 deep
    for e in [x1 ** 5000, 5000 * x1]:
        with pytest.raises(NotRepresentable):
            from_sympy(e, small)
    assert from_sympy(3 * x1, small)[0].size > 1


def test_exact_recovery_refuses_a_hostile_formula():
    with pytest.raises(SuperposError, match="not finite"):
        is_exact_recovery("1/0 + x1", "x1")
    with pytest.raises(SuperposError, match="exponent"):
        is_exact_recovery("x1", "9**9**9**9")


# ------------------------------------------------------------------ properties

TOKENS = ["x1", "x2", "x10", "c", "c0", "0", "1", "2", "9", "1.5", "1e5", "1e-9", "pi", "E", "sin(", "cos(", "exp(",
          "log(", "sqrt(", "Abs(", "tanh(", "asin(", "(", ")", ")", "+", "-", "*", "/", "**", "^", " ", ",", ".",
          "[0]", ".real", "y", "=", "<", "'", "lambda", ":", "1/0", "9**9", "**9", "__import__", "#", "\n"]


def _parse_or_refuse(text: str):
    t = time.perf_counter()
    try:
        out = parse_formula(text)
    except SuperposError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(out, sympy.Expr)
    assert time.perf_counter() - t < 1.0


@settings(deadline=1000, max_examples=300)
@given(st.text())
def test_any_text_parses_or_is_refused(text):
    _parse_or_refuse(text)


@settings(deadline=1000, max_examples=300)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_token_soup_parses_or_is_refused(text):
    _parse_or_refuse(text)


_LEAF = st.sampled_from(["x1", "x2", "c0", "2", "3", "0", "0.5", "10", "pi", "E", "-1"])
_FORMULA = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", "^"]), inner).map(lambda t: f"({t[0]}){t[1]}({t[2]})"),
        st.tuples(st.sampled_from(["sin", "cos", "exp", "log", "sqrt", "Abs", "tanh", "-"]), inner).map(
            lambda t: f"{t[0]}({t[1]})")),
    max_leaves=10)


@settings(deadline=1000, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_FORMULA)
def test_random_formulas_parse_or_are_refused(text):
    _parse_or_refuse(text)


# ------------------------------------------------------------------ benchmark files

HEADER = "name\tformula\tsampling_range\tn_points\n"


def _load(tmp_path, body: str | bytes, header: str = HEADER):
    path = tmp_path / "mine.tsv"
    if isinstance(body, bytes):
        path.write_bytes(header.encode() + body)
    else:
        path.write_text(header + body, encoding="utf-8")
    return load_problems("mine", folder=tmp_path)


def test_a_good_file_loads(tmp_path):
    body = ("# my own set\n\np1\tx1 + x2\tU[-1,1]\t20\n"
            "p2\tsin(x1)*x3\tx1:E[0,1,0.5]; x2:U[0,1] ;x3:U[1,2]\t-\r\n"
            "p3\tx1**2\tE[-1,1,0.1]\t\t\n")
    ps = _load(tmp_path, ("\ufeff" + HEADER + body).encode(), header="")  # a BOM and CRLF are fine
    assert [p.name for p in ps] == ["p1", "p2", "p3"] and [p.n_points for p in ps] == [20, 0, 0]
    assert ps[0].source == "my own set" and ps[1].n_variables == 3 and ps[1].ranges[0] == ("E", 0.0, 1.0, 0.5)
    X, y = ps[0].sample(random_state=0)
    assert X.shape == (20, 2) and np.allclose(y, X.sum(axis=1))
    with pytest.raises(SuperposError, match="n_points"):
        ps[1].sample()  # its U ranges need a number of points
    X, _ = ps[1].sample(4, random_state=0)
    assert X.shape == (3 * 4 * 4, 3)
    assert ps[2].sample()[0].shape == (21, 1)
    assert [p.name for p in load_problems("mine", folder=tmp_path, names=["p3", "p1"])] == ["p3", "p1"]


def test_log_uniform_ranges_span_decades(tmp_path):
    (p,) = _load(tmp_path, "p1\t6.67e-11*x1*x2/x2**2\tx1:L[1e20,1e30];x2:L[1e-3,1e3]\t400\n")
    assert p.ranges[0] == ("L", 1e20, 1e30, 0.0)
    for X in (p.sample(random_state=0)[0], p.sample(2000, random_state=1, fresh=True)[0]):
        lx = np.log10(X)
        assert lx[:, 0].min() >= 20 and lx[:, 0].max() <= 30 and lx[:, 1].min() >= -3 and lx[:, 1].max() <= 3
        assert np.mean(lx[:, 1] < 0) == pytest.approx(0.5, abs=0.1)  # uniform in log space: half below 1


def test_a_scientists_table_reads_signed_integer_and_huge_ranges_with_names_units_noise_and_digits(tmp_path):
    header = "name\tformula\tsampling_range\tn_points\tnames\tunits\tnoise\tdigits\n"
    body = ("p1\t8.99e9*x1*x2/x3**2\tx1:S[1e-19,1e-15];x2:S[1e-19,1e-15];x3:L[1e-100,1e100]\t300\t"
            "x1=q1; x2=q2; x3=r; y=F\tx1=C; x2=C; x3=m; y=N\t0.02\t4\n"
            "p2\t13.6/x1**2\tx1:I[1,7]\t50\t\t\t\t\n")
    p, q = _load(tmp_path, body, header=header)
    assert p.ranges[0] == ("S", 1e-19, 1e-15, 0.0) and p.ranges[2] == ("L", 1e-100, 1e100, 0.0)
    assert (p.name_of("x3"), p.unit_of("x3"), p.name_of("y"), p.unit_of("y")) == ("r", "m", "F", "N")
    assert (q.name_of("x1"), q.unit_of("x1"), q.noise, q.digits, p.noise, p.digits) == ("x1", "", 0.0, 17, 0.02, 4)
    assert p.positive_variables == ["x3"] and q.integer_variables == ["x1"] and p.integer_variables == []
    for X in (p.sample(random_state=0)[0], p.sample(2000, random_state=1, fresh=True)[0]):
        mag = np.log10(np.abs(X[:, 0]))
        assert mag.min() >= -19 and mag.max() <= -15 and 0.35 < np.mean(X[:, 0] < 0) < 0.65  # both signs
        assert np.log10(X[:, 2]).min() < -80 and np.log10(X[:, 2]).max() > 80  # 200 decades
    Xb, _ = p.beyond(500, random_state=2)
    assert np.mean(Xb[:, 0] < 0) > 0.3 and np.mean(Xb[:, 0] > 0) > 0.3
    for X in (q.sample(random_state=0)[0], q.sample(500, random_state=1, fresh=True)[0], q.beyond(200, 3)[0]):
        assert np.array_equal(X, np.round(X))
    X, _ = q.sample(random_state=0)
    assert set(X[:, 0]) == set(range(1, 8))  # 50 draws of 7 integers: each end is reached
    X, y, clean = p.noisy(random_state=0)
    top = np.abs(clean).max()
    rel = (y - clean) / (top * np.sqrt(np.mean((clean / top) ** 2)))  # y spans 1e-229..1e171
    assert 0.015 < rel.std() < 0.025 and np.array_equal(p.noisy(random_state=0)[1], y)
    assert np.array_equal(q.noisy(random_state=0)[1], q.noisy(random_state=0)[2])  # no noise column: no noise


@pytest.mark.parametrize("cells, message", [
    ("x1=C; x1=m", "each once"), ("z=C", "each once"), ("x1 C", "each once"), ("x4=m", "does not have"),
])
def test_bad_names_and_units_columns_are_refused(tmp_path, cells, message):
    with pytest.raises(SuperposError, match=message):
        _load(tmp_path, f"p1\tx1*x2\tU[1,2]\t20\t{cells}\n", header="name\tformula\tsampling_range\tn_points\tunits\n")


@pytest.mark.parametrize("column, cell", [("noise", "-0.1"), ("noise", "lots"), ("digits", "0"), ("digits", "3.5")])
def test_bad_noise_and_digits_are_refused(tmp_path, column, cell):
    with pytest.raises(SuperposError, match=column):
        _load(tmp_path, f"p1\tx1\tU[1,2]\t20\t{cell}\n", header=f"name\tformula\tsampling_range\tn_points\t{column}\n")


BAD_FILES = [
    # columns and cells
    ("", "name\tformula\tn_points\n", "lacks the columns sampling_range .*required: name, formula, sampling_range"),
    ("", "nom\tformule\n", "lacks the columns name, formula, sampling_range"),
    ("", "# only a comment\n", "no header"),
    ("p1\tx1\n", HEADER, "line 2: no sampling_range"),
    ("p1\t\tU[0,1]\t20\n", HEADER, "line 2: no formula"),
    ("\tx1\tU[0,1]\t20\n", HEADER, "line 2: no name"),
    ("p1\tx1\tU[0,1]\t20\tmore\n", HEADER, "line 2: 5 cells, the header has 4"),
    ("p1\tx1\tU[0,1]\t20\np1\tx2\tU[0,1]\t20\n", HEADER, "line 3: .*'p1' is also on line 2"),
    # n_points
    ("p1\tx1\tU[0,1]\tabc\n", HEADER, "line 2 .*n_points"),
    ("p1\tx1\tU[0,1]\t0\n", HEADER, "n_points"),
    ("p1\tx1\tU[0,1]\t100001\n", HEADER, "n_points"),
    ("p1\tx1\tU[0,1]\t1.5\n", HEADER, "n_points"),
    ("p1\tx1\tU[0,1]\t-3\n", HEADER, "n_points"),
    ("p1\tx1\tU[0,1]\t\u00b2\n", HEADER, "n_points"),
    # ranges
    ("p1\tx1\tU[1,0]\t20\n", HEADER, "low <= high"),
    ("p1\tx1\tU[-1e301,1]\t20\n", HEADER, "1e\\+300"),
    ("p1\tx1\tS[0,1]\t20\n", HEADER, "positive low end"),
    ("p1\tx1\tI[1.2,1.8]\t20\n", HEADER, "an integer between its ends"),
    ("p1\tx1\tT[0,1]\t20\n", HEADER, "use U\\[a,b\\], L\\[a,b\\], S\\[a,b\\], I\\[a,b\\]"),
    ("p1\tx1\tL[0,1]\t20\n", HEADER, "positive low end"),
    ("p1\tx1\tL[-2,1]\t20\n", HEADER, "positive low end"),
    ("p1\tx1\tU[1e999,1]\t20\n", HEADER, "finite"),
    ("p1\tx1\tU[--1,1]\t20\n", HEADER, "bad number"),
    ("p1\tx1\tU[0,1,0.1]\t20\n", HEADER, "U\\[a,b\\]"),
    ("p1\tx1\tE[0,1]\t-\n", HEADER, "E\\[a,b,step\\]"),
    ("p1\tx1\tE[0,1,0]\t-\n", HEADER, "step must be positive"),
    ("p1\tx1\tE[-1,1,1e-9]\t-\n", HEADER, "100,000 points"),
    ("p1\tx1\tE[-1,1,5e-324]\t-\n", HEADER, "100,000 points"),
    ("p1\tx1 + x2\tE[0,1,0.0001]\t-\n", HEADER, "grid has more than 1,000,000 points"),
    ("p1\tx1 + x2\tx1:E[0,1,0.001];x2:U[0,1]\t5000\n", HEADER, "grid"),
    ("p1\tx1 + x2\tV[0,1]\t20\n", HEADER, "bad sampling range"),
    ("p1\tx1 + x2\tx1:U[0,1]\t20\n", HEADER, "line 2 .*'p1'.*no range for x2"),
    ("p1\tx1 + x3\tx1:U[0,1];junk\t20\n", HEADER, "no range for x2, x3"),
    # formulas
    ("p1\tx1 + y\tU[0,1]\t20\n", HEADER, "line 2 \\(problem 'p1'\\): unknown name 'y'"),
    ("p1\t9**9**9**9\tU[0,1]\t20\n", HEADER, "exponent"),
    ("p1\t1/0 + x1\tU[0,1]\t20\n", HEADER, "not finite"),
    ("p1\t__import__('os').system('true')\tU[0,1]\t20\n", HEADER, "unknown name"),
]


@pytest.mark.parametrize("body,header,match", BAD_FILES)
def test_bad_benchmark_files_are_refused(tmp_path, body, header, match):
    t = time.perf_counter()
    with pytest.raises(SuperposError, match=match) as info:
        _load(tmp_path, body, header)
    assert time.perf_counter() - t < 2.0 and "\n" not in str(info.value)


def test_benchmark_file_limits(tmp_path):
    with pytest.raises(SuperposError, match="UTF-8"):
        _load(tmp_path, b"p1\tx1\xff\tU[0,1]\t20\n")
    with pytest.raises(SuperposError, match="10,001 problems"):
        _load(tmp_path, "".join(f"p{k}\tx1\tU[0,1]\t20\n" for k in range(10_001)))
    assert len(_load(tmp_path, "".join(f"p{k}\tx1\tU[0,1]\t20\n" for k in range(300)))) == 300


@pytest.mark.parametrize("n", [0, -1, 1_000_001, 2.5, True, "10"])
def test_sample_refuses_bad_sizes(n):
    p = Problem("p", "x1 + 1", 1, (("U", 0.0, 1.0, 0.0),), 20)
    with pytest.raises(SuperposError, match="number of points"):
        p.sample(n)
    assert p.sample(1)[0].shape == (1, 1) and p.sample(np.int64(3))[0].shape == (3, 1)


def test_sample_refuses_a_huge_grid():
    p = Problem("p", "x1 + x2", 2, (("E", 0.0, 1.0, 1e-4), ("E", 0.0, 1.0, 1e-4)), 0)  # built by hand, unchecked
    with pytest.raises(SuperposError, match="too many"):
        p.sample()
    wide = Problem("w", "x20", 20, (("U", 0.0, 1.0, 0.0),) * 20, 0)
    with pytest.raises(SuperposError, match="too many"):
        wide.sample(1_000_000)  # 20 million values

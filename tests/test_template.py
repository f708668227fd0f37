"""User templates (superpos.symreg.template, the template proposer, the reader's template mode,
SuperposRegressor(template=...) and superpos predict --template)."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import sympy
from typer.testing import CliRunner

from superpos import SuperposRegressor
from superpos.cli import app
from superpos.core.formula import parse_template
from superpos.datasets.problems import is_exact_recovery
from superpos.exceptions import SuperposError
from superpos.symreg.settings import FormulaSettings
from superpos.symreg.template import check_template, fit_surrogates, read_template, template_over_inputs

X3 = {f"x{j}": sympy.Symbol(f"x{j}", real=True) for j in (1, 2, 3)}


def exact(expr, law: str, m: int) -> bool:
    return is_exact_recovery(expr, sympy.sympify(law, locals={f"x{k + 1}": sympy.Symbol(f"x{k + 1}") for k in range(m)}))


def test_reader_placeholders_shared_names_and_own_constants():
    e = parse_template("f(x1, x2) + f(x3, x1) * c + c", X3)
    calls = sorted(e.atoms(sympy.core.function.AppliedUndef), key=str)
    assert [c.func.__name__ for c in calls] == ["f", "f"]  # one function, used twice
    assert {str(s) for s in e.free_symbols if str(s)[0] == "c"} == {"c0", "c1"}  # each c its own constant
    t = read_template("exp(g(x2)) * h(x1, x3) + 2", 3)
    assert t.names == {"g": (1,), "h": (0, 2)} and t.inputs == (0, 1, 2) and t.constants == ()


@pytest.mark.parametrize("text, words", [
    ("x1 + x2", "no placeholder"),
    ("f(x1, 2)", "argument '2'"),
    ("f(x1 + x2)", "argument"),
    ("f(x1, x1)", "an input twice"),
    ("f(x1) + f(x1, x2)", "one name is one function"),
    ("x1(x2)", "a call of 'x1'"),
    ("x9(x2)", "placeholder name 'x9'"),
    ("c(x2)", "placeholder name 'c'"),
    ("f()", "without inputs"),
    ("f(x1) + q", "'q'"),
    ("f(x1) + c0", "'c0'"),
    ("f(x1, (x2)", "syntax error"),
    ("f(x1) + " + "x1 + " * 500 + "1", "characters"),
    ("sin(sin(sin(sin(sin(f(x1))))))", "nested"),
    ("f(x1).real", "attribute"),
])
def test_malformed_templates_are_one_clear_error(text, words):
    with pytest.raises(SuperposError, match="template") as err:
        parse_template(text, X3)
    assert words in str(err.value)


def test_columns_named_like_functions_or_placeholders_must_be_renamed():
    assert template_over_inputs("f(mass, v) + g(t)", ["mass", "v", "t", "junk"]) == ("f(x1, x2) + g(x3)", ["junk"])
    for bad in (["f", "v", "t"], ["exp", "v", "t"], ["c", "v", "t"]):
        with pytest.raises(SuperposError, match="rename the column"):
            template_over_inputs("f(mass, v) + g(t)", bad)
    check_template("f(mass) * exp(g(v, t)) + c")  # column names are not known yet: accepted
    with pytest.raises(SuperposError):
        check_template("f(mass) * ")
    with pytest.raises(SuperposError, match="template"):
        FormulaSettings(template="f(x1) +")


def test_surrogates_fit_a_product_template():
    rng = np.random.default_rng(0)
    X = rng.uniform(0.5, 2.0, (150, 2))
    y = np.exp(-X[:, 0]) * (1.0 + X[:, 1] ** 2)
    t = read_template("f(x1) * g(x2)", 2)
    fns, consts, err = fit_surrogates(t, X, y, 0)
    assert err < 1e-4 and consts.size == 0
    f_vals, = fns["f"](X)
    g_vals, = fns["g"](X)
    assert np.allclose(f_vals * g_vals, y, rtol=0.01, atol=0.01)


@pytest.mark.filterwarnings("ignore:the template does not name")
@pytest.mark.parametrize("template, law, make", [
    ("f(x1, x2) + g(x3)", "x1*sin(x2) + x3**2", lambda X: X[:, 0] * np.sin(X[:, 1]) + X[:, 2] ** 2),
    ("f(x1) * g(x2, x3)", "exp(-x1)*(x2 + x3**2)", lambda X: np.exp(-X[:, 0]) * (X[:, 1] + X[:, 2] ** 2)),
    ("exp(f(x1)) + c", "exp(x1/2) + 3/2", lambda X: np.exp(0.5 * X[:, 0]) + 1.5),
    ("f(x1) + f(x2)", "sin(x1) + sin(x2)", lambda X: np.sin(X[:, 0]) + np.sin(X[:, 1])),
])
def test_templates_are_solved_part_by_part(shipped, template, law, make):
    X = np.random.default_rng(0).uniform(-2, 2, (300, 3))
    reg = SuperposRegressor(predictor=shipped, template=template, random_state=0).fit(X, make(X))
    assert exact(reg.expr_, law, 3), reg.expr_
    assert reg.candidates_[0].source == "template"
    assert reg.get_params()["template"] == template


def test_regressor_template_over_column_names_warns_of_unused_inputs(shipped):
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(1).uniform(-2, 2, (200, 3))
    df = pd.DataFrame(X, columns=["t", "a", "b"])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        reg = SuperposRegressor(predictor=shipped, template="f(t) * g(a)", random_state=0)
        reg.fit(df, np.exp(-X[:, 0]) * (X[:, 1] + 1))
    assert any("does not name b" in str(w.message) for w in seen)
    assert str(reg.expr_) == "(a + 1)*exp(-t)"


def test_cli_template_one_file_and_batch(tmp_path, one_error_line):
    X = np.random.default_rng(2).uniform(-2, 2, (200, 4))
    y = X[:, 0] * np.sin(X[:, 1]) + X[:, 2] ** 2
    path = tmp_path / "d.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="mass,angle,speed,junk,out", comments="",
               fmt="%.12g")
    runner = CliRunner()
    r = runner.invoke(app, ["predict", str(path), "--template", "f(mass, angle) + g(speed)", "--format", "json",
                            "--quiet"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["formula"] == "mass*sin(angle) + speed**2" and doc["status"] == "exact"
    assert doc["candidates"][0]["source"] == "template"
    r = runner.invoke(app, ["predict", str(path), "--template", "f(mass, angle) + g(speed)"])
    assert "note: the template does not name junk: ignored" in r.output
    for bad in ("f(mass, angle + g(speed)", "f(mass, 2)", "mass + speed", "f(x1) " + "+ x1" * 700):
        assert one_error_line(runner.invoke(app, ["predict", str(path), "--template", bad])), bad
    (tmp_path / "d2.csv").write_text(path.read_text())
    r = runner.invoke(app, ["predict", str(tmp_path / "d.csv"), str(tmp_path / "d2.csv"), "--template",
                            "f(mass, angle) + g(speed)", "--quiet"])
    assert r.exit_code == 0 and r.stdout.count("mass*sin(angle) + speed**2,exact") == 2
    assert one_error_line(runner.invoke(app, ["predict", str(tmp_path / "d.csv"), str(tmp_path / "d2.csv"),
                                              "--template", "f(mass"]))


def test_an_inverted_target_is_read_on_the_rows_where_it_is_steady():
    """(y - f) / cos(x2) for g of f(x1) + g(x1) cos(x2): its sensitivity to y, 1 / |cos x2|,
    spans decades, and the rows kept are those where |cos x2| is at least its median; f's
    inversion y - g cos(x2) is as steady everywhere, and no rows are chosen."""
    from superpos.symreg.proposers.template import _steady, _target
    from superpos.symreg.template import solved_for

    X = np.random.default_rng(2).uniform(0, 6, (200, 2))
    y = X[:, 0] ** 2 + X[:, 0] * np.cos(X[:, 1])
    t = read_template("f(x1) + g(x1)*cos(x2)", 2)
    current = {"f": [X[:, 0] ** 2 + 0.1], "g": [X[:, 0]]}
    consts = np.zeros(0)
    solvers = {nm: solved_for(t, next(u for u in t.uses if u.func.__name__ == nm)) for nm in ("f", "g")}
    g_target = _target(t, "g", solvers["g"], current, consts, X, y)
    rows = _steady(t, "g", solvers["g"], current, consts, X, y, g_target)
    c = np.abs(np.cos(X[:, 1]))
    assert rows is not None and rows.sum() == 100 and c[rows].min() >= np.median(c) - 1e-9
    f_target = _target(t, "f", solvers["f"], current, consts, X, y)
    assert _steady(t, "f", solvers["f"], current, consts, X, y, f_target) is None

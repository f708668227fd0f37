"""The tuning record: one frozen record of the search's thresholds, passed in (never read from
a module default during a search), each name defined once, documented, and no benchmark law
named in the package's code."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from superpos.exceptions import SuperposError
from superpos.symreg import tuning as tuning_module
from superpos.symreg.settings import FormulaSettings
from superpos.symreg.tuning import TUNING, Tuning, tuning_markdown

PACKAGE = Path(__file__).parents[1] / "superpos"


def _numeric(node: ast.AST) -> bool:
    """Whether an expression is built of numbers only (1e-10, 16.27 / 3, (0.05, 0.01))."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    return False


def _numeric_constants(path: Path) -> list[str]:
    """Module-level upper-case names bound to numbers in one module."""
    out = []
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        for t in targets:
            names = [t] if isinstance(t, ast.Name) else list(t.elts) if isinstance(t, ast.Tuple) else []
            values = ([value] if isinstance(t, ast.Name) else list(value.elts)
                      if isinstance(value, ast.Tuple) and len(value.elts) == len(names) else [])
            for n, v in zip(names, values):
                if isinstance(n, ast.Name) and n.id.lstrip("_").isupper() and v is not None and _numeric(v):
                    out.append(n.id)
    return out


def test_no_threshold_name_is_defined_in_two_modules():
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in _numeric_constants(path):
            where.setdefault(name.lstrip("_"), []).append(str(path.relative_to(PACKAGE)))
    twice = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not twice, f"numeric constants named alike in several modules: {twice}"


def test_the_search_keeps_no_threshold_outside_the_record():
    """The numeric module constants left in symreg/ are definitions, not thresholds (docs/tuning.md)."""
    allowed = {"POWER_COST", "_SLOPED_STARTS", "_CHI2", "MAX_TOP_K", "TRACE_VERSION", "DEGREES"}
    found = {name for path in (PACKAGE / "symreg").rglob("*.py") if path.name != "tuning.py"
             for name in _numeric_constants(path)}
    assert found <= allowed, f"move these to superpos/symreg/tuning.py: {sorted(found - allowed)}"


def test_no_benchmark_law_set_or_seed_is_named_in_the_code():
    pattern = re.compile(r"\b(I|II|III)\.[0-9]+\.[0-9]+[a-z]?\b|\btest_[0-9]+\b|Nguyen|Keijzer|hard set|AI Feynman|"
                         r"Feynman|seed document|Jackson|SRBench")
    hits = [f"{path.relative_to(PACKAGE)}:{k}" for path in sorted(PACKAGE.rglob("*.py"))
            if "datasets" not in path.parts
            for k, line in enumerate(path.read_text().splitlines(), start=1) if pattern.search(line)]
    assert not hits, f"benchmark laws named in code (their story goes to benchmarks/decisions.md): {hits}"


def test_the_table_in_the_docs_is_the_record():
    doc = (Path(__file__).parents[1] / "docs" / "tuning.md").read_text()
    shown = doc.split("<!-- tuning:start -->\n")[1].split("<!-- tuning:end -->")[0]
    assert shown == tuning_markdown(), "regenerate the table with superpos.symreg.tuning.tuning_markdown()"


def test_every_field_has_its_meaning_and_unit():
    docs = tuning_module._docs()
    for name in Tuning.__dataclass_fields__:
        assert docs.get(name, "").strip(), f"{name} has no one-line meaning"


def test_the_record_is_frozen_checked_and_honoured():
    with pytest.raises(Exception):
        TUNING.edge_ratio = 1.0  # type: ignore[misc]
    with pytest.raises(SuperposError, match="unknown tuning value"):
        TUNING.replace(edge_raito=1.0)
    assert TUNING.replace(edge_ratio=8.0).edge_ratio == 8.0 and TUNING.edge_ratio != 8.0
    with pytest.raises(SuperposError, match="tuning must be"):
        FormulaSettings(tuning={"edge_ratio": 8.0})
    y = np.linspace(1.0, 2.0, 50)
    assert FormulaSettings(tuning=TUNING.replace(round_off=1e-6)).exact_threshold(y) == 1e-6
    from superpos.symreg.edges import holds_at_edges

    errors = np.array([[1e-3, 3e-3, 1e-3]])
    assert holds_at_edges(errors) and not holds_at_edges(errors, tuning=TUNING.replace(edge_ratio=2.0))


def test_the_regressor_takes_a_record_and_clones_with_it():
    from sklearn.base import clone

    from superpos import SuperposRegressor

    record = TUNING.replace(edge_ratio=8.0)
    model = SuperposRegressor(tuning=record)
    assert model.get_params()["tuning"] is record
    assert clone(model).get_params()["tuning"] == record


def _recording_default(monkeypatch) -> list[str]:
    """Make every attribute read of the module default ``TUNING`` recorded (the search must read
    the record it was given; a read of the default means a value was not passed in)."""
    reads: list[str] = []
    default = TUNING
    plain = object.__getattribute__

    def getattribute(self, name):
        if self is default and not name.startswith("__"):
            reads.append(name)
        return plain(self, name)

    monkeypatch.setattr(Tuning, "__getattribute__", getattribute)
    return reads


@pytest.mark.parametrize("case", ["separable", "noisy_curve", "reduction", "template"])
def test_a_search_reads_only_the_record_it_was_given(monkeypatch, case):
    from superpos.symreg.pipeline import find_formula

    rng = np.random.default_rng(3)
    template = None
    if case == "separable":
        X = rng.uniform(1, 3, (120, 3))
        y = X[:, 0] * X[:, 1] + np.sin(X[:, 2])
    elif case == "noisy_curve":
        X = rng.uniform(0, 4, (80, 1))
        y = 2.5 * np.exp(-0.7 * X[:, 0]) + 0.3
        y = y + 0.01 * np.std(y) * rng.normal(size=y.size)
    elif case == "reduction":
        X = rng.uniform(1, 3, (150, 4))
        y = X[:, 0] * X[:, 1] ** 2 * np.exp(-X[:, 2] / X[:, 3])
    else:
        X = rng.uniform(1, 3, (100, 2))
        y = np.exp(0.5 * X[:, 0]) + X[:, 1] ** 2
        template = "f(x1) + g(x2)"
    record = Tuning()  # equal to the shipped one, not the same object
    reads = _recording_default(monkeypatch)
    f = find_formula(X, y, settings=FormulaSettings(random_state=0, top_k=50, search_rounds=1, tuning=record,
                                                    template=template))
    assert f.expr is not None
    assert not reads, f"read from the module default instead of the record passed in: {sorted(set(reads))}"

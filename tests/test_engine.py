"""The search engine (superpos.symreg.engine): one pool, one merge, the effort budget, re-entrance,
the proposers setting, no state between calls, and an import graph without circles."""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import superpos
from superpos import SuperposError
from superpos.core.tree import from_string
from superpos.symreg.engine import Effort, Search, StructureModel, run_proposers
from superpos.symreg.pipeline import find_formula
from superpos.symreg.plan import PLAN, PROPOSER_NAMES, PROPOSERS
from superpos.symreg.settings import FormulaSettings


def _search(model, X, y, settings) -> Search:
    rng = np.random.default_rng(0)
    return Search.start(X, y, model, settings, rng, 7, PLAN)


def test_the_shipped_model_is_a_structure_model(shipped):
    assert isinstance(shipped, StructureModel)
    with pytest.raises(SuperposError, match="lacks basis_"):
        Search.start(np.ones((10, 1)), np.arange(10.0), object(), FormulaSettings(), np.random.default_rng(0), 0, PLAN)


def test_every_proposer_is_registered_once_with_the_interface():
    assert len(set(PROPOSER_NAMES)) == len(PROPOSER_NAMES) and PROPOSER_NAMES[0] == "model"
    for name, p in PROPOSERS.items():
        assert p.name == name and callable(p.propose)
    for ctx in PLAN.contexts.values():  # every step names a proposer, once per context
        names = [st.proposer for st in ctx.steps]
        assert set(names) <= set(PROPOSERS) and len(set(names)) == len(names) and 0 < ctx.share <= 1
    used = {st.proposer for ctx in PLAN.contexts.values() for st in ctx.steps}
    assert used == set(PROPOSERS)  # no proposer is left out of the plan


def test_unknown_proposer_names_are_one_clear_error(square_sin):
    with pytest.raises(SuperposError, match="unknown proposer.*'bogus'.*choose from model"):
        find_formula(*square_sin, proposers=("model", "bogus"))
    with pytest.raises(SuperposError, match="proposers must be"):
        FormulaSettings(proposers=3)


def test_merge_keeps_one_candidate_per_skeleton_best_first(shipped, square_sin, fast):
    s = _search(shipped, *square_sin, fast)
    b = s.work
    trees = [from_string(t, b) for t in ("add(mul(c, x1), c)", "add(c, mul(c, x1))", "mul(c, x1)")]
    a = s.fit(trees[:1], b, "test")
    c = s.fit(trees[1:], b, "test", first_rank=1)
    merged = s.merge(a, c)
    assert len(merged) == 2 and merged == sorted(merged, key=lambda k: k.nmse_validation)
    assert all(m.source == "test" for m in merged)


def test_the_effort_budget_stops_the_search_and_is_deterministic(shipped, square_sin, fast):
    from dataclasses import replace

    small = replace(fast, max_fits=30)
    s = _search(shipped, *square_sin, small)
    pool = run_proposers(s)
    assert pool and s.effort.spent >= 30  # the first proposer ran, the budget then stopped the rest
    assert {c.source for c in pool} <= {"model", "powers"}  # but for the cheap power laws
    f1 = find_formula(*square_sin, settings=small)
    f2 = find_formula(*square_sin, settings=small)
    assert str(f1.expr) == str(f2.expr)


def test_the_cheap_power_laws_run_once_the_effort_is_spent(shipped, fast):
    """A monomial over four inputs, the budget spent by the model's trees: the power laws, a few
    fits, still run and find it; nothing else does."""
    from dataclasses import replace

    X = np.random.default_rng(5).uniform(0.5, 3.0, (150, 4))
    y = X[:, 0] * X[:, 1] * X[:, 2] ** 2 * X[:, 3]
    s = _search(shipped, X, y, replace(fast, max_fits=30))
    pool = run_proposers(s)
    assert {c.source for c in pool} <= {"model", "powers"}
    assert min(c.nmse_validation for c in pool if c.source == "powers") < 1e-20


def test_a_share_of_the_effort_charges_its_parent():
    parent = Effort(100)
    child = parent.share(0.5)
    assert child.max_fits == 50
    child.spend(60)
    assert child.exhausted() and parent.spent == 60 and not parent.exhausted()
    parent.spend(40)
    assert parent.exhausted() and parent.share(0.5).exhausted()


def test_time_limit_is_opt_in_and_checked():
    assert FormulaSettings().time_limit is None
    for bad in (0, -1, float("inf"), True, "1"):
        with pytest.raises(SuperposError, match="time_limit"):
            FormulaSettings(time_limit=bad)
    e = Effort(10**9, deadline=0.0)  # long past
    assert e.exhausted()


def test_solve_reenters_on_data_of_its_own_with_the_same_split(shipped, product_law, fast):
    X, y = product_law
    s = _search(shipped, X, y, fast)
    sub = s.solve("reduced", X[:, :1] * X[:, 1:2] / X[:, 2:3], y)
    assert sub and sub[0].nmse_validation < 1e-10  # 2 z on the group z = x1 x2 / x3
    assert s.effort.spent > 0 and s.depth == 0


def test_proposers_setting_limits_the_sources(square_sin, fast):
    from dataclasses import replace

    f = find_formula(*square_sin, settings=replace(fast, proposers=("laws",)))
    assert {c.source for c in f.candidates} == {"laws"}


def test_no_state_between_calls(square_sin, product_law, fast):
    first = find_formula(*square_sin, settings=fast)
    find_formula(*product_law, settings=fast)
    again = find_formula(*square_sin, settings=fast)
    assert str(first.expr) == str(again.expr)
    assert [c.nmse_validation for c in first.candidates[:20]] == [c.nmse_validation for c in again.candidates[:20]]


def _imports(root: Path) -> nx.DiGraph:
    """superpos's module import graph, module-level and function-level imports alike, but for
    those marked ``# deferred: start-up time``."""
    mods = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = (p, ".".join(package))
    G = nx.DiGraph()
    for name, (p, package) in mods.items():
        text = p.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            if "# deferred: start-up time" in lines[node.lineno - 1]:
                continue
            G.add_edges_from((name, t) for t in targets if t in mods and t != name)
    return G


def test_no_import_circles():
    G = _imports(Path(superpos.__file__).parent)
    assert G.number_of_edges() > 100
    cycles = list(nx.simple_cycles(G))
    assert not cycles, [" -> ".join(c) for c in cycles[:5]]


def test_a_proposer_re_enters_with_the_whole_registry(shipped, product_law, fast):
    from dataclasses import replace

    f = find_formula(*product_law, settings=replace(fast, proposers=("reductions",)))
    assert f.status == "exact" and {c.source for c in f.candidates} <= {"reduction", "reduction+sums", "reduction+laws",
                                                                   "reduction+families"}

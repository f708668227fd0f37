"""The search trace (superpos.symreg.trace): what each context and proposer did, and what chose
the winner; its JSON form, --explain, and the plan's table in docs/proposers.md."""
from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from superpos.cli import app
from superpos.symreg.pipeline import find_formula
from superpos.symreg.plan import PLAN, markdown
from superpos.symreg.trace import TRACE_VERSION, ContextTrace, StepTrace, Trace

runner = CliRunner()


def _contexts(c: dict):
    yield c
    for s in c["steps"]:
        for sub in s.get("sub", []):
            yield from _contexts(sub)


def test_the_trace_lists_every_step_of_the_plan_and_is_deterministic(square_sin, fast):
    f1 = find_formula(*square_sin, settings=fast)
    f2 = find_formula(*square_sin, settings=fast)
    d = f1.trace.to_dict()
    assert d == f2.trace.to_dict() and d["version"] == TRACE_VERSION
    json.dumps(d, allow_nan=False)  # valid JSON: no NaN or infinity
    root = d["search"]
    assert root["context"] == "data" and root["depth"] == 0 and root["inputs"] == 1
    assert [s["proposer"] for s in root["steps"]] == [s.proposer for s in PLAN.contexts["data"].steps]
    ran = [s for s in root["steps"] if s["ran"]]
    assert ran and ran[0]["proposer"] == "model" and ran[0]["fits"] > 0 and ran[0]["added"] > 0
    assert root["fits"] == sum(s["fits"] for s in ran) <= root["effort"]
    for s in root["steps"]:
        assert s["ran"] or s["skipped"]
        if s["ran"] and s["best_before"] is not None:
            assert s["best_after"] <= s["best_before"]  # the pool only gains candidates
    sel = d["selection"]
    assert sel["winner"]["formula"] and sel["decided_by"] in {st["stage"] for st in sel["stages"]}
    assert sel["stages"][0]["stage"] == "search"


def test_skipped_steps_say_why(square_sin, fast):
    f = find_formula(*square_sin, settings=replace(fast, proposers=("laws", "reductions")))
    steps = {s["proposer"]: s for s in f.trace.to_dict()["search"]["steps"]}
    assert steps["model"] == {"proposer": "model", "ran": False, "skipped": "not among the chosen proposers"}
    assert steps["reductions"]["skipped"] == "needs at least 2 inputs"  # one input: its gate fails
    assert steps["laws"]["ran"]


def test_sub_searches_nest_under_the_step_that_entered_them(shipped, fast):
    """A sum over disjoint inputs: the separable step enters one context per part and pass."""
    X = np.random.default_rng(4).uniform(1, 3, (150, 4))
    y = X[:, 0] * X[:, 1] + np.exp(X[:, 2]) * X[:, 3]
    f = find_formula(X, y, settings=replace(fast, proposers=("separable",)))
    root = f.trace.to_dict()["search"]
    sep = next(s for s in root["steps"] if s["proposer"] == "separable")
    assert sep["ran"] and sep.get("sub")
    names = [c["context"] for c in sep["sub"]]
    assert names[0] == "part" and set(names) <= {"part", "part-later"}
    for c in sep["sub"]:
        assert c["depth"] == 1 and c["effort"] < root["effort"]
        assert [s["proposer"] for s in c["steps"]] == [s.proposer for s in PLAN.contexts[c["context"]].steps]
    assert sep["fits"] >= sum(c["fits"] for c in sep["sub"])  # a part's fits are charged to its step
    text = f.trace.text()
    assert "[part]" in text and "decided by:" in text


def test_trace_forms_from_a_constructed_trace():
    from types import SimpleNamespace as C

    step = StepTrace("powers", ran=True, fits=3, added=2, best_before=math.inf, best_after=0.5)
    skipped = StepTrace("rational", skipped="needs at least 20 fitting points")
    root = ContextTrace("data", 0, 12, 1, 100, [step, skipped])
    win = C(source="powers", nmse_validation=0.5, tree=[1, 2, 3], text="x1**2")
    twin = C(source="model", nmse_validation=0.6, tree=[1, 3, 2], text="x1**2")
    other = C(source="sums", nmse_validation=np.inf, tree=[4], text="x1")
    t = Trace(root, [("search", win)], "search", [win, twin, other], lambda c: c.text)
    d = t.to_dict()
    assert d["search"]["fits"] == 3
    assert d["search"]["steps"][0]["best_before"] is None and d["search"]["steps"][0]["best_after"] == 0.5
    assert d["search"]["steps"][1] == {"proposer": "rational", "ran": False,
                                       "skipped": "needs at least 20 fitting points"}
    assert d["selection"]["winner"] == {"source": "powers", "error": 0.5, "nodes": 3, "formula": "x1**2"}
    assert d["selection"]["runner_up"]["source"] == "sums"  # the twin is written as the winner: skipped
    assert d["selection"]["runner_up"]["error"] is None
    assert Trace(root, [("search", win)], "search", [win, twin], lambda c: c.text).runner_up == {}
    text = t.text()
    assert "rational    skipped: needs at least 20 fitting points" in text and "best - -> 0.5" in text


def test_a_fitted_regressor_with_its_trace_pickles(square_sin, fast):
    import pickle

    from superpos import SuperposRegressor

    reg = SuperposRegressor(top_k=40, search_rounds=0, random_state=0).fit(*square_sin)
    back = pickle.loads(pickle.dumps(reg))
    assert back.trace_.to_dict() == reg.trace_.to_dict()


def test_explain_on_the_command_line(model_path, tmp_path, one_error_line):
    data = tmp_path / "d.csv"
    x = np.linspace(0.5, 3.0, 40)
    data.write_text("speed,drag\n" + "".join(f"{float(a)!r},{float(2 * a * a)!r}\n" for a in x))
    base = ["predict", str(data), "--model", model_path, "--top-k", "20", "--quiet"]
    r = runner.invoke(app, base + ["--explain"])
    assert r.exit_code == 0, r.output
    assert "how the search went (inputs: x1 = speed)" in r.output and "[data]" in r.output
    r = runner.invoke(app, base + ["--explain", "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["trace"]["version"] == TRACE_VERSION and out["trace"]["search"]["context"] == "data"
    assert "trace" not in json.loads(runner.invoke(app, base + ["--format", "json"]).output)
    assert one_error_line(runner.invoke(app, base + ["--explain", "--format", "latex"]))
    assert one_error_line(runner.invoke(app, base[:2] + [str(data)] + base[2:] + ["--explain"]))


def test_the_plan_in_the_docs_is_the_plan():
    doc = (Path(__file__).parents[1] / "docs" / "proposers.md").read_text()
    shown = doc.split("<!-- plan:start -->\n")[1].split("<!-- plan:end -->")[0]
    assert shown == markdown(), "regenerate the table with superpos.symreg.plan.markdown()"


def test_a_numerical_failure_in_one_proposer_drops_its_candidates_not_the_call(square_sin, fast, monkeypatch):
    """An SVD that does not converge inside a proposer (data over many decades) is recorded in
    the trace as that step's failure, and the search goes on with the others' candidates; a
    user's error (SuperposError) still ends the call."""
    from superpos import SuperposError

    def broken(search, pool):
        raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")

    monkeypatch.setattr(PLAN.proposers["laws"], "propose", broken)
    f = find_formula(*square_sin, settings=fast)
    steps = {s["proposer"]: s for s in f.trace.to_dict()["search"]["steps"]}
    assert steps["laws"]["ran"] and steps["laws"]["added"] == 0
    assert steps["laws"]["failed"] == "LinAlgError: SVD did not converge in Linear Least Squares"
    assert "failed: LinAlgError" in f.trace.text() and np.isfinite(f.constants).all()

    def refused(search, pool):
        raise SuperposError("a user's error")

    monkeypatch.setattr(PLAN.proposers["laws"], "propose", refused)
    try:
        find_formula(*square_sin, settings=fast)
    except SuperposError as exc:
        assert "a user's error" in str(exc)
    else:
        raise AssertionError("a SuperposError must end the call")


def test_sums_of_terms_survive_inputs_whose_powers_overflow():
    """Terms such as m^-6 of a mass near 1e-31 overflow their variance (1e372): left out, not
    an SVD that does not converge."""
    from superpos.core.basis import Basis
    from superpos.symreg.terms import sum_trees

    rng = np.random.default_rng(0)
    X = np.column_stack([np.exp(rng.uniform(np.log(1e-31), np.log(1e-26), 200)),
                         np.exp(rng.uniform(np.log(1e6), np.log(2.9e8), 200))])
    y = X[:, 0] * X[:, 1]
    out = sum_trees(X / X.max(axis=0) * 1e-30, y, Basis.default(2))  # powers of 1e-30 .. 1e-35
    assert isinstance(out, list)

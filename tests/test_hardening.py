"""Hostile and odd input at the command line and in the API: one `error:` line, never a
traceback; CSV dialects; valid JSON; large data on a sample."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from superpos import SuperposError, SuperposRegressor
from superpos.cli import app
from superpos.datasets.reader import read_dataset, read_table

runner = CliRunner()
EXAMPLE = str(Path(__file__).resolve().parents[1] / "datasets" / "examples" / "example.csv")


def one_error_line(r, exit_code=2) -> bool:
    return (r.exit_code == exit_code and r.output.startswith("error: ") and r.output.count("\n") == 1
            and "Traceback" not in r.output)


def _csv(tmp_path, text, name="d.csv", encoding="utf-8") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(p)


ROWS = "".join(f"{x},{x * x + 1}\n" for x in range(1, 9))


@pytest.mark.parametrize("args, match", [
    (["--seed", "-1"], "--seed must be an integer >= 0,"),
    (["--top-k", "1000000000"], "--top-k must"),
    (["--top-k", "0"], "--top-k must"),
    (["--search", "-2"], "--search must"),
    (["--format", "xml"], "format"),
    (["--plot", "p.txt"], ".png"),
    (["--jobs", "0"], "jobs"),
])
def test_predict_options_checked_before_any_work(args, match, tmp_path):
    r = runner.invoke(app, ["predict", str(tmp_path / "missing.csv"), *args])
    assert one_error_line(r) and match in r.output, r.output


def test_output_naming_a_folder_fails_before_the_work(tmp_path):
    r = runner.invoke(app, ["predict", EXAMPLE, "-o", str(tmp_path)])
    assert one_error_line(r) and "folder" in r.output


def test_unreadable_file_is_one_line(tmp_path, monkeypatch):
    path = _csv(tmp_path, "x1,y\n" + ROWS)

    import builtins

    real_open = builtins.open

    def denied(file, *args, **kwargs):
        if str(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denied)
    r = runner.invoke(app, ["predict", path])
    assert one_error_line(r) and "Permission denied" in r.output


def test_unexpected_errors_and_interrupts_are_one_line(monkeypatch):
    import superpos.symreg.pipeline as P

    def bug(*a, **k):
        raise TypeError("something broke")

    monkeypatch.setattr(P, "find_formula", bug)
    r = runner.invoke(app, ["predict", EXAMPLE, "--quiet"])
    assert one_error_line(r, 3) and "internal error (TypeError: something broke)" in r.output and "report" in r.output

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(P, "find_formula", interrupted)
    r = runner.invoke(app, ["predict", EXAMPLE, "--quiet"])
    assert one_error_line(r, 130) and "interrupted" in r.output


@pytest.mark.parametrize("args", [["--max-depth", "0"], ["--max-depth", "1000"], ["--max-size", "0"], ["--n", "0"],
                                  ["--jobs", "0"], ["--variables", "0"]])
def test_generate_refuses_impossible_settings(args, tmp_path):
    r = runner.invoke(app, ["generate", str(tmp_path / "c.npz"), "--quiet", *args])
    assert one_error_line(r), r.output


def test_empty_folder_is_an_error(tmp_path):
    r = runner.invoke(app, ["predict", str(tmp_path), "--quiet"])
    assert one_error_line(r) and "no data files" in r.output


# ------------------------------------------------------------------ CSV dialects

@pytest.mark.parametrize("text, header, first", [
    ("\ufeffspeed,y\n" + ROWS, ["speed", "y"], [1.0, 2.0]),                      # BOM
    ("a;y\n" + ROWS.replace(",", ";"), ["a", "y"], [1.0, 2.0]),                  # semicolons
    ("a;y\n1,5;2\n2;5\n3;10\n4;17\n5;26\n", ["a", "y"], [1.5, 2.0]),            # decimal commas
    ("a\ty\n" + ROWS.replace(",", "\t"), ["a", "y"], [1.0, 2.0]),                # tabs
    ("a y\n" + ROWS.replace(",", "   "), ["a", "y"], [1.0, 2.0]),                # whitespace
    (ROWS, ["x1", "y"], [1.0, 2.0]),                                             # no header: the first row is data
    ('"a","y"\n' + "".join(f'"{x}","{x * 2}"\n' for x in range(1, 7)), ["a", "y"], [1.0, 2.0]),
])
def test_csv_dialects(text, header, first):
    t = read_table(text, "t")
    assert t.header == header and t.data[0].tolist() == first


def test_latin1_file_is_read_with_a_note(tmp_path):
    path = _csv(tmp_path, "temp°C,y\n" + ROWS, encoding="latin-1")
    notes: list = []
    X, y, names = read_dataset(path, notes=notes)
    assert X.shape == (8, 1) and names == ["temp_C"] and any("Latin-1" in n for n in notes)
    r = runner.invoke(app, ["predict", path, "--search", "0", "--top-k", "20"])
    assert r.exit_code == 0 and "note: read as Latin-1" in r.output


def test_capital_suffix_npz_and_bad_cells(tmp_path):
    p = tmp_path / "D.NPZ"
    X = np.linspace(1, 3, 10)[:, None]
    with open(p, "wb") as fh:
        np.savez(fh, X=X, y=X[:, 0] ** 2)
    assert read_dataset(str(p))[0].shape == (10, 1)
    for text, match in [("a,y\n1,2\n2\n", "cells"), ("a,y\n1," + "7" * 200_000 + "\n" + ROWS, "largest number a float holds"),
                        ("a,y\n1,abc" + "z" * 200_000 + "\n" + ROWS, "not a number"), ("a,a\n" + ROWS, "repeated")]:
        with pytest.raises(SuperposError, match=match):
            read_dataset(_csv(tmp_path, text))


def test_json_is_valid_with_huge_values_and_candidates_are_distinct(tmp_path):
    x = np.linspace(1, 2, 30)
    path = _csv(tmp_path, "x1,y\n" + "".join(f"{a},{1e250 * a}\n" for a in x))
    r = runner.invoke(app, ["predict", path, "--format", "json", "--search", "0", "--top-k", "50", "--quiet"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    r = runner.invoke(app, ["predict", EXAMPLE, "--format", "json", "--quiet"])
    cands = [c["formula"] for c in json.loads(r.output)["candidates"]]
    assert len(cands) == len(set(cands)) >= 5 and not any("1.0*" in c for c in cands)
    assert out["formula"]


def test_dataframe_names_reach_the_formula():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"speed": rng.uniform(-3, 3, 60)})
    y = df["speed"] ** 2 + np.sin(df["speed"])
    reg = SuperposRegressor(top_k=50, search_rounds=0, random_state=0).fit(df, y)
    assert {s.name for s in reg.expr_.free_symbols} == {"speed"}
    assert np.allclose(reg.predict(df), y)


def test_library_default_searches_like_the_command_line():
    assert SuperposRegressor().search_rounds == 2


def test_large_data_chooses_on_a_sample_and_refits_on_all_points():
    from superpos.symreg.pipeline import find_formula, selection_sample

    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (200_000, 1))
    y = X[:, 0] ** 2 + np.sin(X[:, 0])
    idx = selection_sample(X, y, 1000, rng)
    assert idx.size == 1000 and np.all(np.diff(idx) > 0) and X[:, 0].argmin() in idx and X[:, 0].argmax() in idx
    f = find_formula(X, y, search_rounds=0, random_state=0)
    assert str(f.expr) == "x1**2 + sin(x1)"
    assert SuperposRegressor(max_points=10).get_params()["max_points"] == 10
    with pytest.raises(SuperposError, match="max_points"):
        find_formula(X[:50], y[:50], max_points=10)


def test_chain_model_loss_is_not_normalised_by_default():
    from superpos.ssvm import ChainModel

    assert ChainModel().normalize_loss is False


def test_evaluate_with_a_foreign_tsv_and_help_without_type_tags(tmp_path):
    bad = tmp_path / "mine.tsv"
    bad.write_text("name\tformula\trange\nA\tx1 + 1\tU[0,1]\n")
    r = runner.invoke(app, ["evaluate", str(bad), "--quiet"])
    assert one_error_line(r) and "sampling_range" in r.output
    for cmd in ("predict", "generate", "fit", "evaluate", "basis"):
        assert "<bool>" not in runner.invoke(app, [cmd, "--help"]).output
    assert runner.invoke(app, ["basis", "--basis", "add,x1,c"]).exit_code == 0


def test_plot_of_several_inputs_is_predicted_against_observed(tmp_path):
    pytest.importorskip("matplotlib")
    rows = "".join(f"{a},{b},{a * b + 1}\n" for a, b in np.random.default_rng(0).uniform(1, 3, (30, 2)))
    path = _csv(tmp_path, "a,b,y\n" + rows)
    png = tmp_path / "p.PNG"
    r = runner.invoke(app, ["predict", path, "--plot", str(png), "--search", "0", "--top-k", "20", "--quiet"])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

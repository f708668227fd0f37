from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from superpos.cli import app
from superpos.exceptions import SuperposError
from superpos.datasets.reader import read_dataset

runner = CliRunner()


def test_help_lists_commands_with_examples():
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0
    for cmd in ("basis", "generate", "fit", "evaluate"):
        assert cmd in r.output
        sub = runner.invoke(app, [cmd, "--help"])
        assert sub.exit_code == 0 and "Example" in sub.output


def test_basis_lists_arities():
    r = runner.invoke(app, ["basis", "--variables", "2"])
    assert r.exit_code == 0
    assert "add" in r.output and "x2" in r.output and "arity 2" in r.output


def test_unknown_basis_name_is_one_line_error():
    r = runner.invoke(app, ["basis", "--names", "add,tanhh,x1"])
    assert r.exit_code != 0
    assert r.output.count("\n") == 1 and r.output.startswith("error: ") and "Traceback" not in r.output


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    corpus, model = tmp / "c.npz", tmp / "m.npz"
    r = runner.invoke(app, ["generate", str(corpus), "--n", "300", "--max-depth", "3", "--max-size", "7", "--quiet"])
    assert r.exit_code == 0 and r.output == "", r.output
    r = runner.invoke(app, ["fit", str(corpus), str(model), "--context", "parent+position+depth"])
    assert r.exit_code == 0, r.output
    return corpus, model


def test_generate_fit_evaluate_round_trip(model_file):
    corpus, model = model_file
    r = runner.invoke(app, ["evaluate", str(corpus), "--model", str(model)])
    assert r.exit_code == 0, r.output
    assert "top-1" in r.output and "all" in r.output
    outs = [r.output]
    for decision in ("mbr", "fit"):
        d = runner.invoke(app, ["evaluate", str(corpus), "--model", str(model), "--decision", decision,
                                "--top-k", "20", "--search", "0", "--quiet"])
        assert d.exit_code == 0, d.output
        outs.append(d.output)
    top_k = [line.split()[3] for out in outs for line in out.splitlines() if line.startswith("all")]
    assert len(top_k) == 3 and len(set(top_k)) == 1  # the k best are the most likely trees whatever the decision
    bad = runner.invoke(app, ["evaluate", str(corpus), "--model", str(model), "--decision", "best"])
    assert bad.exit_code != 0 and bad.output.startswith("error: ") and "decision" in bad.output


def test_generate_with_the_measured_prior(tmp_path):
    from superpos.structure.corpus import Corpus

    out = tmp_path / "m.npz"
    r = runner.invoke(app, ["generate", str(out), "--n", "40", "--offset-share", "1", "--noisy-share", "0.5",
                            "--quiet"])
    assert r.exit_code == 0, r.output
    X, _ = Corpus.load(out).dataset(0)
    assert X.min() >= 1.5 and X.max() / X.min() <= 1.6
    bad = runner.invoke(app, ["generate", str(tmp_path / "b.npz"), "--n", "10", "--noisy-share", "2", "--quiet"])
    assert bad.exit_code != 0 and bad.output.startswith("error: ") and "noisy_share" in bad.output


def test_generate_to_a_folder_shows_progress_and_fit_reads_it(tmp_path):
    from superpos.structure.corpus import Corpus

    folder, model = tmp_path / "big", tmp_path / "m.npz"
    r = runner.invoke(app, ["generate", str(folder), "--n", "120", "--max-depth", "3", "--shard-size", "40"])
    assert r.exit_code == 0, r.output
    assert "formulas" in r.output and "120/120" in r.output
    assert len(Corpus.load(folder)) == 120 and (folder / "manifest.json").is_file()
    r = runner.invoke(app, ["fit", str(folder), str(model), "--context", "parent+position+depth"])
    assert r.exit_code == 0, r.output
    for stage in ("features", "classifier", "size bonus"):
        assert stage in r.output
    r = runner.invoke(app, ["generate", str(folder), "--n", "10", "--quiet"])
    assert r.exit_code != 0 and r.output.startswith("error: ") and "not an empty folder" in r.output


def test_predict_text_json_latex(model_file, tmp_path):
    import json

    data = tmp_path / "d.csv"
    x = np.linspace(0.5, 3, 30)
    data.write_text("speed,y\n" + "".join(f"{a},{2.5 * a}\n" for a in x))
    r = runner.invoke(app, ["predict", str(data), "--model", str(model_file[1]), "--top-k", "20"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "speed" in lines[0] and "x1" not in lines[0]
    assert lines[1].split()[0] in ("exact", "law", "approximation") and "R^2 = " in lines[1]
    out = tmp_path / "o.json"
    r = runner.invoke(app, ["predict", str(data), "--model", str(model_file[1]), "--top-k", "20",
                            "--format", "json", "-o", str(out)])
    assert r.exit_code == 0, r.output
    js = json.loads(out.read_text())
    assert set(js) == {"formula", "status", "family", "parameters", "decomposition", "parts", "precision", "latex", "r2",
                       "seconds", "constants", "confidence",
                       "noise", "inputs", "units", "columns", "dimensions", "alike", "left_out_but_related", "front",
                       "candidates"}
    assert js["dimensions"] is None and js["columns"] == [{"name": "speed", "unit": None, "integer": False, "used": True}]
    assert js["status"] == "exact" and js["precision"] is None  # full float digits: float64 round-off
    assert set(js["candidates"][0]) == {"formula", "r2", "loglik", "source", "code_length"}
    assert js["candidates"][0]["source"] in ("model", "search", "reduction", "baselines", "sums", "laws")
    assert js["r2"] > 0.99
    r = runner.invoke(app, ["predict", str(data), "--model", str(model_file[1]), "--format", "latex"])
    assert r.exit_code == 0 and "speed" in r.output
    png = tmp_path / "p.png"
    r = runner.invoke(app, ["predict", str(data), "--model", str(model_file[1]), "--top-k", "20", "--plot", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _bad_model(tmp, kind):
    p = tmp / "bad.npz"
    if kind == "truncated":
        p.write_bytes(b"PK\x03\x04 truncated")
    elif kind == "foreign":
        np.savez(p, weights=np.ones(3))
    return p


@pytest.mark.parametrize("case", ["empty", "header", "one column", "text cell", "nan", "inf", "few rows",
                                  "constant", "huge", "missing model", "truncated model", "foreign model",
                                  "missing output folder", "bad format"])
def test_predict_bad_input_table(model_file, tmp_path, case):
    good = "x1,y\n" + "".join(f"{a},{a * a + 1}\n" for a in np.linspace(-2, 2, 9))
    texts = {"empty": "", "header": "x1,y\n", "one column": "y\n1\n2\n3\n4\n5\n",
             "text cell": good.replace("1.0,", "a,", 1) if "1.0," in good else "x1,y\n1,2\nb,3\n3,4\n4,5\n5,6\n",
             "nan": "x1,y\n1,2\n2,nan\n3,4\n4,5\n5,6\n", "inf": "x1,y\n1,2\n2,inf\n3,4\n4,5\n5,6\n",
             "few rows": "x1,y\n1,2\n2,3\n", "constant": "x1,y\n1,2\n2,2\n3,2\n4,2\n5,2\n",
             "huge": "x1,y\n1,2\n2,1e305\n3,4\n4,5\n5,6\n"}
    data = tmp_path / "d.csv"
    data.write_text(texts.get(case, good))
    model = model_file[1]
    if case == "missing model":
        model = tmp_path / "none.npz"
    elif case.endswith("model"):
        model = _bad_model(tmp_path, case.split()[0])
    out = tmp_path / ("nofolder/o.txt" if case == "missing output folder" else "o.txt")
    args = ["predict", str(data), "--model", str(model), "-o", str(out), "--top-k", "10"]
    if case == "bad format":
        args += ["--format", "yaml"]
    r = runner.invoke(app, args)
    assert r.exit_code != 0
    assert r.output.startswith("error: ") and r.output.count("\n") == 1, r.output
    assert "Traceback" not in r.output
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("args", [
    ["generate", "{tmp}/missing/c.npz", "--n", "10"],
    ["fit", "{tmp}/nope.npz", "{tmp}/m.npz"],
    ["evaluate", "{tmp}/nope.npz", "--model", "{tmp}/nope.npz"],
])
def test_bad_paths_fail_cleanly(tmp_path, args):
    r = runner.invoke(app, [a.format(tmp=tmp_path) for a in args])
    assert r.exit_code != 0
    assert r.output.startswith("error: ") and "Traceback" not in r.output
    assert not (tmp_path / "m.npz").exists()


def _write(tmp_path, text, name="d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


GOOD = "x1,y\n" + "".join(f"{x},{x * x + 1}\n" for x in np.linspace(-2, 2, 9))


def test_read_dataset_csv_tsv_and_target(tmp_path):
    X, y, names = read_dataset(_write(tmp_path, GOOD))
    assert X.shape == (9, 1) and names == ["x1"] and y[0] == pytest.approx(5.0)
    X, y, names = read_dataset(_write(tmp_path, GOOD.replace(",", "\t"), "d.tsv"))
    assert X.shape == (9, 1)
    X, y, names = read_dataset(_write(tmp_path, GOOD), target="x1")
    assert names == ["y"] and y[0] == pytest.approx(-2.0)


@pytest.mark.parametrize("text,match", [
    ("", "empty"),
    ("x1,y\n", "header"),
    ("y\n1\n2\n3\n4\n5\n", "one column"),
    ("x1,y\n1,2\n2,a\n3,4\n4,5\n5,6\n", "not a number"),
    ("x1,y\n1,2\n2,nan\n3,4\n4,5\n5,6\n", "NaN"),
    ("x1,y\n1,2\n2,inf\n3,4\n4,5\n5,6\n", "NaN or infinite"),
    ("x1,y\n1,2\n2,3\n3,4\n", "at least 5"),
    ("x1,y\n1,2\n2,2\n3,2\n4,2\n5,2\n", "constant"),
    ("x1,y\n1,2\n2,1e305\n3,4\n4,5\n5,6\n", "1e300"),
])
def test_read_dataset_bad_input(tmp_path, text, match):
    with pytest.raises(SuperposError, match=match):
        read_dataset(_write(tmp_path, text))


def test_predict_batch_streams_rows_and_resumes(model_file, tmp_path):
    import csv
    import json

    folder = tmp_path / "runs"
    folder.mkdir()
    x = np.linspace(0.5, 3, 30)
    for k, scale in enumerate((1.5, 2.5, 3.5)):
        (folder / f"d{k}.csv").write_text("x1,y\n" + "".join(f"{a},{scale * a}\n" for a in x))
    (folder / "bad.csv").write_text("x1,y\n1,2\n")
    out = tmp_path / "rows.csv"
    args = ["predict", str(folder), "--model", str(model_file[1]), "--top-k", "10", "-o", str(out), "--quiet"]
    r = runner.invoke(app, args)
    assert r.exit_code == 1 and "1 of 4 data sets failed" in r.output
    rows = list(csv.DictReader(out.open()))
    assert [Path(r["file"]).name for r in rows] == ["bad.csv", "d0.csv", "d1.csv", "d2.csv"]
    assert rows[0]["error"] and all(float(r["r2"]) > 0.99 for r in rows[1:])
    # an interrupted run: keep two finished rows, resume does the rest and skips the finished ones
    out.write_text("file,formula,r2,seconds,error\n" + "".join(
        f"{r['file']},{r['formula']},{r['r2']},{r['seconds']},\n" for r in rows[1:3]))
    r = runner.invoke(app, args + ["--resume"])
    again = list(csv.DictReader(out.open()))
    assert [Path(r["file"]).name for r in again] == ["d0.csv", "d1.csv", "bad.csv", "d2.csv"]
    js = tmp_path / "rows.jsonl"
    r = runner.invoke(app, ["predict", str(folder / "d0.csv"), str(folder / "d1.csv"), "--model",
                            str(model_file[1]), "--top-k", "10", "-o", str(js), "--quiet"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in js.read_text().splitlines()]
    assert [set(d) for d in lines] == [{"file", "formula", "status", "r2", "seconds", "error"}] * 2
    assert all(d["status"] == "exact" for d in lines)
    js2 = tmp_path / "rows2.jsonl"
    r = runner.invoke(app, ["predict", str(folder / "d0.csv"), str(folder / "d1.csv"), "--model",
                            str(model_file[1]), "--top-k", "10", "-o", str(js2), "--jobs", "2"])
    assert r.exit_code == 0, r.output
    parallel = [json.loads(line) for line in js2.read_text().splitlines()]
    assert [(d["file"], d["formula"], d["r2"]) for d in parallel] == [(d["file"], d["formula"], d["r2"]) for d in lines]


def test_predict_batch_resume_needs_output(model_file, tmp_path):
    r = runner.invoke(app, ["predict", str(tmp_path), "--model", str(model_file[1]), "--resume"])
    assert r.exit_code != 0 and r.output.startswith("error: ") and "--output" in r.output


def test_evaluate_benchmark_problems(model_file, tmp_path):
    tsv = tmp_path / "mine.tsv"
    tsv.write_text("name\tformula\tsampling_range\tn_points\nlinear\t2.5*x1\tU[0.5,3]\t30\nsq\tx1**2 + x1\tU[-1,1]\t20\n")
    r = runner.invoke(app, ["evaluate", str(tsv), "--model", str(model_file[1]), "--top-k", "20", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "linear" in r.output and "total: exact" in r.output
    r = runner.invoke(app, ["evaluate", "nosuchset", "--model", str(model_file[1])])
    assert r.exit_code != 0 and r.output.startswith("error: ")
    r = runner.invoke(app, ["evaluate", str(tsv), "--model", str(model_file[1]), "--k", "20"])
    assert r.exit_code != 0 and r.output.startswith("error: ") and "--top-k" in r.output


def test_the_command_line_does_not_need_click():
    """typer >= 0.2x vendors click (typer._click) and no longer installs it: a fresh
    `pip install .` has no click, so superpos.cli must not import it."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("typer._click") is None:
        pytest.skip("this typer still runs on the click package")
    code = "import sys; sys.modules['click'] = None; import superpos.cli; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_the_command_line_starts_without_pydantic():
    """Start-up is part of every `superpos predict` call: typer 0.29 builds a pydantic
    TypeAdapter per option before running a command (0.08-0.09 s measured), hence the cap on
    typer in pyproject.toml. A command that parses its options must not import pydantic."""
    import subprocess
    import sys

    code = ("import sys\nfrom superpos.cli import app\n"
            "try:\n    app(['predict', 'no-such-file.csv', '--quiet'])\nexcept SystemExit:\n    pass\n"
            "print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip().endswith("False"), (out.stdout, out.stderr)


def test_predict_pauses_the_garbage_collector_and_restores_it(tmp_path, monkeypatch):
    """One data set is solved with the cyclic collector off (its full passes were a tenth of
    a call); it is on again afterwards, also when the command fails."""
    import gc

    import superpos.cli.predict as cli_predict

    seen = []

    def fake_one(*args, **kwargs):
        seen.append(gc.isenabled())
        raise SuperposError("stop here")

    monkeypatch.setattr(cli_predict, "_predict_one", fake_one)
    csv = tmp_path / "d.csv"
    csv.write_text("x1,y\n1,2\n2,3\n3,4\n4,5\n5,6\n")
    assert gc.isenabled()
    r = runner.invoke(app, ["predict", str(csv)])
    assert seen == [False] and r.exit_code == 2 and "stop here" in r.output
    assert gc.isenabled()


def _console(argv: list[str], before: str = "") -> "subprocess.CompletedProcess":
    """The console script's entry run in a fresh interpreter with ``argv``, after ``before``."""
    import subprocess
    import sys

    code = (f"import atexit, sys\n{before}\nsys.argv = ['superpos'] + {argv!r}\n"
            "from superpos._console import main\nmain()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_the_console_script_skips_teardown_but_runs_exit_handlers_and_keeps_its_status(tmp_path):
    """The command ends without the interpreter's teardown: exit handlers still run (after the
    command's output), the output is flushed whole to a pipe, and the status is the command's."""
    import superpos

    r = _console(["--version"], "atexit.register(lambda: print('handler ran'))")
    assert r.returncode == 0 and r.stdout.split()[-3:] == [superpos.__version__, "handler", "ran"], r
    r = _console(["predict", str(tmp_path / "missing.csv"), "--quiet"],
                 "atexit.register(lambda: print('handler ran'))")
    assert r.returncode == 2 and r.stderr.startswith("error:") and r.stdout == "handler ran\n", r
    r = _console(["--version"], "import threading, time\n"
                 "threading.Thread(target=lambda: (time.sleep(0.5), print('thread ended'))).start()")
    assert r.returncode == 0 and r.stdout.split()[-2:] == ["thread", "ended"], r


def test_the_console_script_reports_a_message_status_as_python_does():
    """A SystemExit carrying a message prints it on stderr and exits 1, as the interpreter does."""
    r = _console(["--version"], "import superpos._console as c\nc.main = lambda: c._end('went wrong')")
    assert r.returncode == 1 and r.stderr.strip() == "went wrong", r


def test_library_text_never_reaches_stdout(tmp_path):
    """Text a compiled library writes to file descriptor 1 itself (LAPACK's DLASCL complaint
    about a NaN) goes to stderr; Python's output stays on stdout, whole."""
    import subprocess
    import sys

    code = ("from superpos._console import library_text_to_stderr\nimport os, numpy as np\n"
            "with library_text_to_stderr():\n    os.write(1, b'library text\\n')\n"
            "    try:\n        np.linalg.lstsq(np.full((5, 2), np.nan), np.ones(5), rcond=None)\n"
            "    except np.linalg.LinAlgError:\n        pass\nprint('{\"formula\": \"x\"}')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == '{"formula": "x"}\n', out
    assert "library text" in out.stderr
    data = tmp_path / "decades.csv"  # a mass near 1e-31 beside a speed near 1e8: once an SVD failure, exit 3
    rng = np.random.default_rng(0)
    m, v = np.exp(rng.uniform(np.log(1e-31), np.log(1e-26), 60)), np.exp(rng.uniform(np.log(1e6), np.log(2.9e8), 60))
    data.write_text("m [kg],v [m/s],p [kg m/s]\n" + "".join(f"{a:.10g},{b:.10g},{a * b / np.sqrt(1 - (b / 2.998e8) ** 2):.10g}\n"
                                                          for a, b in zip(m, v)))
    r = _console(["predict", str(data), "--format", "json", "--quiet"])
    assert r.returncode == 0, r.stderr
    import json

    doc = json.loads(r.stdout)
    assert set(doc["inputs"]) <= {"m", "v"} and doc["units"] == {"m": "kg", "v": "m/s", "p": "kg m/s"}

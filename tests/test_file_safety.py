"""Nothing lost, nothing wrong in silence: outputs never destroy an input or a special file,
batch files are whole or untouched, interrupts end cleanly, extreme magnitudes are carried,
and every message is one bounded line."""
from __future__ import annotations

import csv
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from superpos import SuperposError, SuperposRegressor
from superpos.cli import app
from superpos.cli.batch import FIELDS, Journal, read_results
from superpos.core.files import atomic_write, check_output
from superpos.core.numeric import r2
from superpos.datasets.reader import read_dataset

runner = CliRunner()
FAST = ["--search", "0", "--top-k", "20", "--quiet"]


def one_error_line(r, code=2) -> bool:
    return r.exit_code == code and r.output.startswith("error: ") and r.output.count("\n") == 1


def _data(path: Path, f=lambda x: x ** 2 + 1, n: int = 30, lo: float = 0.5, hi: float = 3.0) -> str:
    x = np.linspace(lo, hi, n)
    path.write_text("x,y\n" + "".join(f"{float(a)!r},{float(f(a))!r}\n" for a in x))
    return str(path)


@pytest.fixture
def runs(tmp_path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    for k, f in enumerate([lambda x: x ** 2 + 1, lambda x: 3 * x, lambda x: x ** 3]):
        _data(folder / f"r{k}.csv", f)
    return folder


def _cli(*args, timeout=120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "superpos", *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


# ---------------------------------------------------------------- outputs never destroy an input

@pytest.mark.parametrize("how", ["same", "dotted", "hardlink", "symlink"])
def test_output_naming_the_input_is_refused_and_the_input_kept(tmp_path, how):
    data = _data(tmp_path / "data.csv")
    before = Path(data).read_bytes()
    out = {"same": data, "dotted": str(tmp_path / "." / "data.csv")}.get(how, str(tmp_path / "alias.csv"))
    if how == "hardlink":
        os.link(data, out)
    elif how == "symlink":
        os.symlink(data, out)
    r = runner.invoke(app, ["predict", data, "-o", out, *FAST])
    assert one_error_line(r) and "is also an input" in r.output, r.output
    assert Path(data).read_bytes() == before


def test_batch_output_naming_a_file_of_the_folder_is_refused(runs):
    before = (runs / "r1.csv").read_bytes()
    r = runner.invoke(app, ["predict", str(runs), "-o", str(runs / "r1.csv"), *FAST])
    assert one_error_line(r) and "is also an input" in r.output
    assert (runs / "r1.csv").read_bytes() == before


def test_fit_refuses_to_write_the_model_over_a_shard(tmp_path):
    shards = tmp_path / "big"
    shards.mkdir()
    (shards / "part-00000.npz").write_bytes(b"shard")
    r = runner.invoke(app, ["fit", str(shards), str(shards / "part-00000.npz"), "--stream"])
    assert one_error_line(r) and "is also an input" in r.output


def test_fit_refuses_to_write_the_model_over_its_corpus(tmp_path):
    corpus = tmp_path / "c.npz"
    corpus.write_bytes(b"corpus bytes")
    r = runner.invoke(app, ["fit", str(corpus), str(corpus)])
    assert one_error_line(r) and "is also an input" in r.output
    assert corpus.read_bytes() == b"corpus bytes"


def test_plot_naming_the_output_or_the_input_is_refused(tmp_path):
    data = _data(tmp_path / "d.csv")
    r = runner.invoke(app, ["predict", data, "-o", str(tmp_path / "p.png"), "--plot", str(tmp_path / "p.png")])
    assert one_error_line(r) and "plot" in r.output


def test_resume_into_a_data_file_is_refused(runs, tmp_path):
    data = _data(tmp_path / "other.csv")
    before = Path(data).read_bytes()
    r = runner.invoke(app, ["predict", str(runs), "--resume", "-o", data, *FAST])
    assert one_error_line(r) and "not a superpos results file" in r.output
    assert Path(data).read_bytes() == before


# ---------------------------------------------------------------- special files: written into, never replaced

def test_a_fifo_is_written_into_not_replaced(tmp_path):
    data, fifo = _data(tmp_path / "d.csv"), tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
    reader.start()
    r = runner.invoke(app, ["predict", data, "-o", str(fifo), *FAST])
    reader.join(30)
    assert r.exit_code == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode), r.output
    assert got and got[0].startswith("x**2 + 1\n")


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_device_node_is_written_into_not_replaced(tmp_path):
    data, node = _data(tmp_path / "d.csv"), tmp_path / "n"
    try:
        os.mknod(node, 0o644 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("mknod is not permitted here")
    r = runner.invoke(app, ["predict", data, "-o", str(node), *FAST])
    assert r.exit_code == 0 and stat.S_ISCHR(os.stat(node).st_mode)


def test_a_symlink_to_standard_output_writes_there(tmp_path):
    data, link = _data(tmp_path / "d.csv"), tmp_path / "so"
    os.symlink("/proc/self/fd/1", link)
    r = _cli("predict", data, "-o", str(link), *FAST)
    assert r.returncode == 0 and r.stdout.startswith("x**2 + 1\n") and link.is_symlink()


def test_dev_stdout_appending_to_a_log_does_not_replace_the_log(tmp_path, runs):
    data, log = _data(tmp_path / "d.csv"), tmp_path / "log.txt"
    log.write_text("earlier line\n")
    for args in (["predict", data, "-o", "/dev/stdout", *FAST], ["predict", str(runs), "-o", "/dev/stdout", *FAST]):
        with open(log, "a") as fh:
            r = subprocess.run([sys.executable, "-m", "superpos", *args], stdout=fh, stderr=subprocess.PIPE,
                               text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    text = log.read_text()
    assert text.startswith("earlier line\nx**2 + 1\n") and "file,formula,status,r2,seconds,error\n" in text
    assert text.count(str(runs / "r2.csv")) == 1


def test_a_read_only_output_is_refused(tmp_path, runs):
    out = tmp_path / "res.csv"
    out.write_text("kept")
    out.chmod(0o444)
    r = runner.invoke(app, ["predict", str(runs), "-o", str(out), *FAST])
    assert one_error_line(r) and "read-only" in r.output and out.read_text() == "kept"


def test_a_full_device_is_an_error(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    r = runner.invoke(app, ["predict", _data(tmp_path / "d.csv"), "-o", "/dev/full", *FAST])
    assert one_error_line(r) and "No space left" in r.output


def test_a_symlinked_output_stays_a_symlink_and_permissions_are_kept(tmp_path):
    data = _data(tmp_path / "d.csv")
    target, link = tmp_path / "real.txt", tmp_path / "link.txt"
    target.write_text("old")
    target.chmod(0o600)
    os.symlink(target, link)
    r = runner.invoke(app, ["predict", data, "-o", str(link), *FAST])
    assert r.exit_code == 0 and link.is_symlink() and target.read_text().startswith("x**2 + 1")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_unwritable_output_or_plot_fails_before_the_work(tmp_path, monkeypatch):
    import superpos.symreg.pipeline as P

    monkeypatch.setattr(P, "find_formula", lambda *a, **k: pytest.fail("the work ran"))
    data = _data(tmp_path / "d.csv")
    for args in (["-o", "/proc/superpos-out.txt"], ["--plot", "/proc/superpos-plot.png"]):
        r = runner.invoke(app, ["predict", data, *args, *FAST])
        assert one_error_line(r) and "cannot write /proc/superpos-" in r.output and ".tmp" not in r.output


def test_atomic_write_errors_name_the_target_not_a_temporary_file(tmp_path):
    def full(fh):
        raise OSError(28, "No space left on device")

    with pytest.raises(SuperposError, match=r"cannot write .*out\.txt: No space left on device"):
        atomic_write(tmp_path / "out.txt", full)
    assert list(tmp_path.iterdir()) == []  # no temporary file left
    (tmp_path / "x").write_text("data")
    with pytest.raises(SuperposError, match="is also an input"):
        check_output(tmp_path / "x", [tmp_path / "x"])


# ---------------------------------------------------------------- batch files: whole, locked, resumable

def _rows(path: Path) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_batch_formats_follow_the_output_and_format(runs, tmp_path):
    for name in ("res.csv", "res.json", "res.jsonl"):
        r = runner.invoke(app, ["predict", str(runs), "-o", str(tmp_path / name), *FAST])
        assert r.exit_code == 0, r.output
    assert [r["formula"] for r in _rows(tmp_path / "res.csv")] == ["x**2 + 1", "3*x", "x**3"]
    assert len(json.loads((tmp_path / "res.json").read_text())) == 3
    assert [json.loads(ln)["file"] for ln in (tmp_path / "res.jsonl").read_text().splitlines()] == \
        [str(runs / f"r{k}.csv") for k in range(3)]
    r = runner.invoke(app, ["predict", str(runs), "--format", "json", *FAST])
    assert r.exit_code == 0 and [row["formula"] for row in json.loads(r.output)] == ["x**2 + 1", "3*x", "x**3"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no journal left behind


@pytest.mark.parametrize("args, match", [
    (["--plot", "p.png"], "--plot draws one data set"),
    (["--format", "latex"], "is for one data set"),
    (["--format", "json", "-o", "res.csv"], "contradicts"),
])
def test_batch_refuses_what_it_would_ignore(runs, args, match):
    r = runner.invoke(app, ["predict", str(runs), *args, *FAST])
    assert one_error_line(r) and match in r.output, r.output


def test_results_inside_the_input_folder_are_not_read_as_data(runs):
    out = runs / "formulas.csv"
    for _ in range(2):
        r = runner.invoke(app, ["predict", str(runs), "-o", str(out), *FAST])
        assert r.exit_code == 0
        assert [row["file"] for row in _rows(out)] == [str(runs / f"r{k}.csv") for k in range(3)]


def test_a_batch_with_failures_exits_1_and_keeps_the_others(runs, tmp_path):
    (runs / "bad.csv").write_text("x,y\n1,2\n")
    r = runner.invoke(app, ["predict", str(runs), "-o", str(tmp_path / "res.csv"), *FAST])
    rows = _rows(tmp_path / "res.csv")
    assert r.exit_code == 1 and "1 of 4 data sets failed" in r.output
    assert sum(bool(row["error"]) for row in rows) == 1 and sum(bool(row["formula"]) for row in rows) == 3


def test_a_second_writer_of_the_same_output_is_refused(runs, tmp_path):
    out = tmp_path / "res.csv"
    out.write_text("kept\n")
    with Journal(out):
        r = runner.invoke(app, ["predict", str(runs), "-o", str(out), *FAST])
    assert one_error_line(r) and "another superpos run is writing" in r.output
    assert out.read_text() == "kept\n"


def test_resume_drops_cut_short_and_failed_rows_and_redoes_them(runs, tmp_path):
    out = tmp_path / "res.csv"
    assert runner.invoke(app, ["predict", str(runs), "-o", str(out), *FAST]).exit_code == 0
    done = _rows(out)
    # a crash: the output holds the first row; the journal a failed row and a row cut mid-write
    out.write_text(",".join(FIELDS) + "\n" + ",".join(str(done[0][k]) for k in FIELDS) + "\n")
    journal = Journal(out).path
    failed = {"file": str(runs / "r1.csv"), "formula": "", "r2": None, "seconds": 0.1, "error": "boom"}
    journal.write_text(json.dumps(failed) + "\n" + json.dumps(dict(done[2], seconds=0.2))[:-9])
    r = runner.invoke(app, ["predict", str(runs), "-o", str(out), "--resume", *FAST])
    rows = _rows(out)
    assert r.exit_code == 0 and sorted(row["file"] for row in rows) == [str(runs / f"r{k}.csv") for k in range(3)]
    assert all(row["formula"] and not row["error"] for row in rows) and not journal.exists()
    assert read_results(out, "csv")[0]["formula"] == "x**2 + 1"


def _interrupt(args, after: float = 0.0, when=None, **kw) -> subprocess.CompletedProcess:
    """Run the command line, send SIGINT ``after`` seconds, or as soon as ``when()`` is true."""
    proc = subprocess.Popen([sys.executable, "-m", "superpos", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)
    time.sleep(after)
    while when is not None and not when() and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _slow_folder(folder: Path, n: int = 30) -> Path:
    folder.mkdir()
    rng = np.random.default_rng(0)
    for k in range(n):
        x = rng.uniform(0.5, 3, 80)
        np.savetxt(folder / f"d{k:02d}.csv", np.c_[x, np.sin(x) * x + k], delimiter=",", header="x,y", comments="")
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_interrupted_batch_leaves_the_output_whole_and_resume_finishes(tmp_path, jobs):
    folder, out = _slow_folder(tmp_path / "runs"), tmp_path / "prev.csv"
    out.write_text("file,formula,r2,seconds,error\nold.csv,x,1.0,0.1,\n")
    before = out.read_bytes()
    journal = Journal(out).path

    def two_rows_done() -> bool:
        return journal.exists() and journal.read_text().count("\n") >= 2

    r = _interrupt(["predict", str(folder), "-o", str(out), "--quiet", "--jobs", jobs], when=two_rows_done)
    assert r.returncode == 130 and r.stderr.strip().endswith("error: interrupted"), r.stderr
    assert "Traceback" not in r.stderr and "Warning" not in r.stderr
    assert out.read_bytes() == before  # whole: the earlier results, not a header
    assert journal.read_text().count("\n") >= 2  # the finished rows are kept for --resume
    r = _cli("predict", str(folder), "-o", str(out), "--quiet", "--resume", timeout=300)
    files = [row["file"] for row in _rows(out)]
    assert r.returncode == 0 and sorted(files) == sorted(["old.csv"] + [str(p) for p in folder.iterdir()])


def test_two_batch_processes_with_one_output_do_not_mix(tmp_path):
    folder, out = _slow_folder(tmp_path / "runs", n=20), tmp_path / "res.csv"
    journal = Journal(out).path
    first = subprocess.Popen([sys.executable, "-m", "superpos", "predict", str(folder), "-o", str(out), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (journal.exists() and journal.read_text()) and first.poll() is None:
        time.sleep(0.05)
    second = _cli("predict", str(folder), "-o", str(out), "--quiet")
    _, err = first.communicate(timeout=300)
    assert second.returncode == 2 and "another superpos run is writing" in second.stderr, second.stderr
    assert first.returncode == 0, err
    rows = _rows(out)
    assert sorted(r["file"] for r in rows) == sorted(str(p) for p in folder.iterdir())
    assert all(r["formula"] and r["seconds"] for r in rows)


def test_sigterm_ends_a_parallel_batch_with_143(tmp_path):
    folder, out = _slow_folder(tmp_path / "runs"), tmp_path / "res.csv"
    journal = Journal(out).path
    proc = subprocess.Popen([sys.executable, "-m", "superpos", "predict", str(folder), "-o", str(out), "--quiet",
                             "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (journal.exists() and journal.read_text()) and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and err.strip().endswith("error: terminated"), err
    assert not out.exists()


# ---------------------------------------------------------------- interrupts

@pytest.mark.parametrize("after", [0.2, 0.5, 2.0, 4.0])
def test_ctrl_c_always_gives_130_and_one_line(tmp_path, after):
    data = str(tmp_path / "d.csv")
    rng = np.random.default_rng(1)
    x = rng.uniform(0.1, 3, (300, 2))
    np.savetxt(data, np.c_[x, np.sin(x[:, 0]) * x[:, 1] + x[:, 0] ** 2], delimiter=",", header="a,b,y", comments="")
    out = tmp_path / "out.txt"
    r = _interrupt(["predict", data, "--top-k", "5000", "-o", str(out), "--quiet"], after=after)
    if r.returncode == 0:  # finished before the signal: nothing to check
        return
    assert r.returncode == 130 and r.stderr == "error: interrupted\n", r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]  # no output, no temporary file


# ---------------------------------------------------------------- magnitudes: carried, not zeroed

@pytest.mark.parametrize("e", [-160, -300, 160, 250])
def test_tiny_and_huge_targets_keep_their_formula(e):
    x = np.linspace(1, 3, 40)
    y = x ** 2 * 10.0 ** e
    reg = SuperposRegressor(search_rounds=0, top_k=50, random_state=0).fit(x[:, None], y)
    assert reg.expr_.free_symbols and "x" in str(reg.expr_) and str(reg.expr_) != "0"
    assert reg.score(x[:, None], y) > 0.999999
    assert np.allclose(reg.predict(x[:, None]), y, rtol=1e-9, atol=0)
    assert reg.score(x[:, None], np.ones_like(y) * 10.0 ** e + y) < 0.999  # R^2 is not 1 for any fit


def test_a_law_without_a_tree_in_the_data_units_is_still_given():
    x = 10.0 ** np.linspace(150, 200, 40)
    reg = SuperposRegressor(search_rounds=0, top_k=50, random_state=0).fit(x[:, None], np.log(x))
    assert "log" in str(reg.expr_) and reg.score(x[:, None], np.log(x)) > 0.999999


def test_subnormal_inputs_keep_their_factor(tmp_path):
    x = np.linspace(1, 3, 40) * 1e-310
    path = tmp_path / "s.csv"
    np.savetxt(path, np.c_[x, 2 * x], delimiter=",", header="x,y", comments="")
    r = runner.invoke(app, ["predict", str(path), *FAST])
    assert r.exit_code == 0 and r.output.startswith("2*x\n"), r.output


def test_r2_does_not_round_tiny_or_huge_data_to_one_or_minus_inf():
    y = np.linspace(1, 2, 10)
    for s in (1e-160, 1e-300, 1e200):
        assert r2(y * s, np.zeros(10)) < 0 and r2(y * s, y * s) == 1.0
        assert abs(r2(y * s, y * s * 1.01) - r2(y, y * 1.01)) < 1e-9


def test_no_runtime_warning_reaches_the_user(tmp_path):
    x = np.linspace(1, 2, 30)
    path = tmp_path / "h.csv"
    np.savetxt(path, np.c_[x, 1e280 * x ** 3], delimiter=",", header="x,y", comments="")
    r = _cli("predict", str(path), "--search", "0", "--quiet")
    assert r.returncode == 0 and "Warning" not in r.stderr and r.stderr == "", r.stderr


# ---------------------------------------------------------------- bad input: one line, exit 2

def test_npz_files_that_are_not_plain_real_arrays(tmp_path):
    x = np.linspace(1, 2, 10)
    np.savez(tmp_path / "complex.npz", X=(x + 1j * x)[:, None], y=x)
    np.save(tmp_path / "a.npy", x)
    os.rename(tmp_path / "a.npy", tmp_path / "renamed.npz")
    np.savez(tmp_path / "struct.npz", X=np.zeros(10, dtype=[("a", float), ("b", float)]), y=x)
    np.savez(tmp_path / "obj.npz", X=np.array([[1], [2]], dtype=object), y=x[:2])
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as z:  # a header claiming 2e8 zeros; no data
        buf = __import__("io").BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**8, 2)})
        z.writestr("X.npy", buf.getvalue())
    np.savez(tmp_path / "empty.npz", X=np.zeros((0, 2)), y=np.zeros(0))
    for name, match in [("empty", "at least 5 points"), ("complex", "complex numbers"), ("renamed", "not an .npz file"), ("struct", "records"),
                        ("obj", "Python objects"), ("huge", "200,000,000 elements")]:
        r = runner.invoke(app, ["predict", str(tmp_path / f"{name}.npz"), *FAST])
        assert one_error_line(r) and match in r.output and "allow_pickle" not in r.output, (name, r.output)


def test_complex_arrays_are_refused_by_the_api():
    x = np.linspace(1, 2, 10)
    with pytest.raises(SuperposError, match="not complex"):
        from superpos.symreg.pipeline import find_formula

        find_formula((x + 1j)[:, None], x)


def test_closed_standard_input_is_one_line():
    r = _cli("predict", "-", "--quiet", stdin=None, preexec_fn=lambda: os.close(0))
    assert r.returncode == 2 and r.stderr == "error: standard input is closed; give a data file, or pipe the " \
                                            "data into superpos\n", r.stderr


def test_a_pipe_is_read_as_data(tmp_path):
    fifo = tmp_path / "data"
    os.mkfifo(fifo)
    text = Path(_data(tmp_path / "d.csv")).read_text()
    writer = threading.Thread(target=lambda: Path(fifo).write_text(text), daemon=True)
    writer.start()
    r = runner.invoke(app, ["predict", str(fifo), *FAST])
    writer.join(30)
    assert r.exit_code == 0 and r.output.startswith("x**2 + 1"), r.output


@pytest.mark.parametrize("text, match", [
    ("a,y\n1,2\n2,nan\n3,4\n4,5\n5,6\n", r"d\.csv: data row 2, column 'y': 'nan' is NaN or infinite"),
    ("a,y\n1,2\ninf,3\n3,4\n4,5\n5,6\n", r"data row 2, column 'a'"),
    ("a,y\n1,2\n2," + "1" * 400 + "\n3,4\n4,5\n5,6\n", "beyond the largest number a float holds"),
])
def test_non_finite_cells_are_named(tmp_path, text, match):
    (tmp_path / "d.csv").write_text(text)
    with pytest.raises(SuperposError, match=match):
        read_dataset(str(tmp_path / "d.csv"))


def test_an_unreadable_quoted_cell_is_one_line(tmp_path):
    (tmp_path / "q.csv").write_text('x,y\n"' + "1" * 200_000 + '",2\n' + "1,2\n" * 6)
    r = runner.invoke(app, ["predict", str(tmp_path / "q.csv"), *FAST])
    assert one_error_line(r) and "quoted cell" in r.output


def test_quoted_header_and_headerless_decimal_commas(tmp_path):
    (tmp_path / "q.csv").write_text('"x, m",y\n' + "".join(f"{k},{2 * k}\n" for k in range(1, 8)))
    X, y, names = read_dataset(str(tmp_path / "q.csv"))
    assert X.shape == (7, 1) and y[-1] == 14.0
    (tmp_path / "s.csv").write_text("".join(f"{k},5;{k * k},25\n" for k in range(1, 8)))
    X, y, names = read_dataset(str(tmp_path / "s.csv"))
    assert X[0, 0] == 1.5 and y[0] == 1.25 and names == ["x1"]


def test_error_lines_are_bounded(tmp_path):
    (tmp_path / "w.csv").write_text(",".join(f"c{k}" for k in range(10_000)) + ",y\n"
                                    + ("1," * 10_000 + "2\n") * 6)
    (tmp_path / "n.csv").write_text("x" * 1_000_000 + ",y\n" + "1,a\n" * 6)
    for args in (["predict", str(tmp_path / "w.csv"), "--target", "nope"], ["predict", str(tmp_path / "n.csv")]):
        r = runner.invoke(app, args)
        assert one_error_line(r) and len(r.output) <= len("error: \n") + 400, len(r.output)


# ---------------------------------------------------------------- messages and promises

def test_version_exists_and_internal_errors_point_to_it():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.startswith("superpos ")


@pytest.mark.parametrize("args, match", [
    (["predict", "d.csv", "--bogus"], "No such option: --bogus"),
    (["predict"], "Missing argument"),
    (["predict", "d.csv", "--top-k", "abc"], "'abc' is not a valid int"),
    (["predict", "d.csv", "--top-k", "100000"], "--top-k must be an integer in [1, 20000]"),
    (["predict", "d.csv", "--search", "-1"], "--search must"),
    (["nocommand"], "No such command"),
])
def test_usage_errors_are_one_line_with_option_names(args, match):
    r = runner.invoke(app, args)
    assert one_error_line(r) and match in r.output and "top_k" not in r.output, r.output


def test_generate_refuses_at_once_what_it_cannot_give(tmp_path):
    r = runner.invoke(app, ["generate", str(tmp_path / "c.npz"), "--max-size", "1", "--n", "5", "--quiet"])
    assert one_error_line(r) and "distinct formulas" in r.output


@pytest.mark.parametrize("after", [1.5, 4.0])
def test_an_interrupt_during_a_search_of_the_largest_top_k_is_one_line_and_exit_130(tmp_path, after):
    """SIGINT while 20,000 skeletons are decoded, screened and fitted (the compiled kernels
    running, sympy simplifying) ends the call with one line and exit 130, never a crash."""
    rng = np.random.default_rng(0)
    X = rng.uniform(1, 3, (200, 3))
    data = tmp_path / "three.csv"
    np.savetxt(data, np.c_[X, X[:, 0] * np.exp(-X[:, 1] / X[:, 2]) + np.sin(X[:, 1])], delimiter=",",
               header="a,b,c,y", comments="")
    r = _interrupt(["predict", str(data), "--top-k", "20000", "--quiet"], after=after)
    assert r.returncode in (130, 0), r.stderr  # 0: finished first (a fast machine)
    if r.returncode == 130:
        assert r.stderr == "error: interrupted\n" and r.stdout == ""

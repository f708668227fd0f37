"""What superpos predict tells the user: the status line, shorter candidates of an approximation,
the new options and the precision read from the file's digits."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from superpos.cli import app
from superpos.datasets.reader import read_table, written_precision

runner = CliRunner()
FAST = ["--search", "0", "--top-k", "40", "--quiet"]


def _write(path, x, y, digits: int | None = None):
    fmt = (lambda v: f"{v:.{digits}g}") if digits else repr
    path.write_text("x,y\n" + "".join(f"{fmt(float(a))},{fmt(float(b))}\n" for a, b in zip(x, y)))
    return str(path)


@pytest.mark.parametrize("args, match", [
    (["--selection", "aic"], "--selection must be one of mdl, best, validation"),
    (["--proposers", "model,bogus"], "unknown proposer"),
    (["--precision", "lots"], "--precision must be auto, float64 or a number"),
    (["--precision", "0.5"], "precision must be None"),
    (["--max-fits", "0"], "--max-fits must be an integer"),
    (["--time-limit", "-1"], "--time-limit must be a positive number of seconds"),
])
def test_new_options_are_checked_before_the_work(tmp_path, args, match, one_error_line):
    data = _write(tmp_path / "d.csv", np.linspace(1, 2, 20), np.linspace(1, 2, 20) ** 2)
    r = runner.invoke(app, ["predict", data, *args, *FAST])
    assert one_error_line(r) and match in r.output, r.output


def test_precision_is_read_from_the_digits_written():
    t = read_table("x,y\n1.25,2.50\n3.50,7.00\n", "t")
    assert written_precision(t) == pytest.approx(np.median([0.005 / 1.25, 0.005 / 3.5]))
    assert written_precision(read_table("x,y\n1,2\n3,4\n", "t")) is None  # integers: counts, exact
    assert written_precision(read_table("x;y\n1,5;2,25\n3,5;7,75\n", "t")) == pytest.approx(
        np.median([0.05 / 1.5, 0.05 / 3.5]))  # decimal commas; the coarser column counts


def test_four_digit_lab_data_is_exact_with_auto_precision_and_not_with_float64(tmp_path):
    x = np.linspace(0.1, 3, 200)
    data = _write(tmp_path / "lab.csv", x, x**2 + np.sin(x), digits=4)
    auto = runner.invoke(app, ["predict", data, *FAST])
    assert auto.exit_code == 0, auto.output
    assert auto.output.splitlines()[0] == "x**2 + sin(x)" and auto.output.splitlines()[1].startswith("exact ")
    strict = runner.invoke(app, ["predict", data, "--precision", "float64", "--format", "json", *FAST])
    assert json.loads(strict.output)["status"] != "exact"


def test_an_approximation_says_so_and_shows_shorter_candidates(tmp_path):
    from scipy.special import j0

    x = np.random.default_rng(0).uniform(0, 15, 200)
    data = _write(tmp_path / "bessel.csv", x, j0(x), digits=10)  # no law of the pool: J0 is no basis function
    r = runner.invoke(app, ["predict", data, "--quiet"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[1].startswith("approximation ")
    shorter = [ln for ln in lines[2:] if ln.startswith("  shorter: ")]
    assert 1 <= len(shorter) <= 3

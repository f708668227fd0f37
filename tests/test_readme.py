"""The README's five minutes run as written: each ``bash`` block of one ``superpos`` command and
each ``python`` block followed by a ``text`` block must print that text (timings and numbers
compared to 4 significant digits)."""
from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from superpos.cli import app

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```(bash|python)\n((?:(?!```).)*)```\n+```text\n((?:(?!```).)*)```", re.S)
NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _normal(text: str) -> list[str]:
    text = re.sub(r"\(\d+\.\d+ s\)", "(_ s)", text)
    text = NUMBER.sub(lambda m: f"{float(m.group()):.4g}", text)
    return [line.rstrip() for line in text.strip().splitlines()]


def _examples() -> list[tuple[str, str, str]]:
    return BLOCK.findall((ROOT / "README.md").read_text())


def test_the_readme_has_examples_to_run():
    kinds = [k for k, _, _ in _examples()]
    assert kinds.count("bash") >= 3 and kinds.count("python") >= 1


@pytest.mark.parametrize("kind, code, expected", _examples(), ids=lambda v: str(v)[:40])
def test_readme_example(kind, code, expected, monkeypatch):
    monkeypatch.chdir(ROOT)
    if kind == "bash":
        args = shlex.split(code.strip())
        assert args[0] == "superpos", "one superpos command per block"
        r = CliRunner().invoke(app, args[1:] + ["--quiet"])
        assert r.exit_code == 0, r.output
        out = r.output
    else:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
        out = buf.getvalue()
    assert _normal(out) == _normal(expected)

"""Wall time of `superpos predict` per call, process start and reading included, on Feynman
equations with 4-9 variables (200 points each, written to CSV files in a temporary folder):
the per-call median the many-inputs issue asks to be at most 3 s.

    python benchmarks/cli_feynman.py [--n 10] [--seed 0] [--superpos PATH]

Time the README's install (``pip install .``, which compiles the package's bytecode). An
editable install run with PYTHONDONTWRITEBYTECODE set (as in some sandboxes) compiles every
module of the package again at each call, about 0.4 s more on 2 cores; the first line printed
says which it is.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    from superpos.datasets.problems import load_problems

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="equations, drawn at random among those with 4-9 variables")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--superpos", default=shutil.which("superpos") or "superpos", help="the command to time")
    args = ap.parse_args()
    wide = [p for p in load_problems("feynman") if p.n_variables >= 4]
    rng = np.random.default_rng(args.seed)
    chosen = [wide[i] for i in sorted(rng.choice(len(wide), min(args.n, len(wide)), replace=False))]
    print(_bytecode(args.superpos), flush=True)
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, p in enumerate(chosen):
            X, y = p.sample(random_state=args.seed)
            path = Path(tmp) / f"f{k:02d}.csv"
            header = ",".join([f"x{j + 1}" for j in range(X.shape[1])] + ["y"])
            np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.12g")
            t = time.perf_counter()
            out = subprocess.run([args.superpos, "predict", str(path), "--quiet"], capture_output=True, text=True)
            walls.append(time.perf_counter() - t)
            formula = out.stdout.strip().splitlines()[0] if out.stdout.strip() else out.stderr.strip()[:80]
            print(f"{p.name:28s} m={p.n_variables} {walls[-1]:6.2f} s  {formula[:90]}", flush=True)
    print(f"\nmedian {np.median(walls):.2f} s per call, max {np.max(walls):.2f} s ({len(walls)} calls)")


def _bytecode(command: str) -> str:
    """Whether the package the timed command imports has its bytecode compiled."""
    script = Path(shutil.which(command) or command)
    first = script.read_text(errors="replace").splitlines()[0] if script.is_file() else ""
    python = first[2:].strip() if first.startswith("#!") else "python"
    probe = ("import importlib.util, os, superpos.cli.base as m; "
             "print(os.path.exists(importlib.util.cache_from_source(m.__file__)), m.__file__)")
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tempfile.gettempdir())
    compiled, _, where = out.stdout.strip().partition(" ")
    return f"# bytecode of {where or 'superpos'}: {'compiled' if compiled == 'True' else 'not compiled (see the docstring)'}"


if __name__ == "__main__":
    main()

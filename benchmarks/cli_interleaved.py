"""`superpos predict FILE` wall time per call (process start included), two source trees
interleaved call by call (each imported through PYTHONPATH, run from a temporary folder so
that the current folder does not shadow them); the median per tree.

    python benchmarks/cli_interleaved.py --old /tmp/base --new . --runs 10 [FILE]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="datasets/examples/example.csv")
    ap.add_argument("--old", required=True, help="source tree of the baseline (its root folder)")
    ap.add_argument("--new", required=True, help="source tree measured (its root folder)")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    data = str(Path(args.file).resolve())
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    times: dict[str, list[float]] = {k: [] for k in trees}
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            for name, root in trees.items():
                env = dict(os.environ, PYTHONPATH=root)
                t = time.perf_counter()
                r = subprocess.run([sys.executable, "-m", "superpos", "predict", data, "--quiet"], cwd=cwd, env=env,
                                   capture_output=True, text=True)
                times[name].append(time.perf_counter() - t)
                if r.returncode:
                    raise SystemExit(f"{name}: {r.stderr.strip()}")
                first = r.stdout.splitlines()[0]
        for name, root in trees.items():
            print(f"{name} ({root}): median {1e3 * np.median(times[name]):.0f} ms over {args.runs} calls "
                  f"[{', '.join(f'{1e3 * t:.0f}' for t in times[name])}]")
    print(f"formula: {first}")


if __name__ == "__main__":
    main()

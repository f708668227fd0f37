"""`superpos predict` on large CSV files: wall time per call (process start, reading and the
search included), peak memory of the process, and whether the law is found.

Each law is written as a CSV of N rows x 3 inputs (uniform in [-3, 3], seeded; the third
input is in the law only in x1*sin(x2) + x3**2, issue 26's case), then `superpos predict FILE --quiet` runs with the default
settings in a fresh process. The same law on 200 rows is the home-ground reference.

    python benchmarks/large_csv.py                       # 1,000,000 rows (about 50 MB per file)
    python benchmarks/large_csv.py --rows 200 100000 1000000
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

LAWS = {
    "x1**2 + sin(x1)": lambda X: X[:, 0] ** 2 + np.sin(X[:, 0]),
    "x1*x2 + 1": lambda X: X[:, 0] * X[:, 1] + 1.0,
    "x1*sin(x2) + 2": lambda X: X[:, 0] * np.sin(X[:, 1]) + 2.0,
    "3*cos(x2) + x1": lambda X: 3.0 * np.cos(X[:, 1]) + X[:, 0],
    "x1*sin(x2) + x3**2": lambda X: X[:, 0] * np.sin(X[:, 1]) + X[:, 2] ** 2,
}


def write_csv(path: Path, law, rows: int, seed: int) -> None:
    X = np.random.default_rng(seed).uniform(-3, 3, (rows, 3))
    with path.open("w") as fh:
        fh.write("x1,x2,x3,y\n")
        np.savetxt(fh, np.column_stack([X, law(X)]), delimiter=",", fmt="%.12g")


# the command in a fresh process that reports its own peak memory when it ends
_WRAP = ("import resource, sys\nfrom superpos.cli import app\nsys.argv = ['superpos', 'predict', sys.argv[1], '--quiet']\n"
         "try:\n    app()\nfinally:\n    print('peak_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
         "file=sys.stderr)\n")


def run(path: Path) -> tuple[float, float, str, int]:
    """(wall seconds, peak RSS in GiB, first output line, exit status) of one predict call."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAP, str(path)], capture_output=True, text=True)
    wall = time.perf_counter() - t
    peak = [int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("peak_kib")]
    out = (proc.stdout or proc.stderr).splitlines()
    return wall, (peak[0] if peak else 0) / 1024**2, out[0] if out else "", proc.returncode


def main() -> None:
    from superpos.datasets.problems import is_exact_recovery

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--laws", nargs="+", default=None, help="these laws only (as written in LAWS)")
    args = ap.parse_args()
    subprocess.run([sys.executable, "-m", "superpos", "predict", str(Path(__file__).resolve().parents[1] / "datasets"
                    / "examples" / "example.csv"), "--quiet"], capture_output=True)  # numba's cache is warm
    print("| law | rows | MB | s per call | peak GiB | found | formula |")
    print("|---|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for law, f in LAWS.items():
            if args.laws and law not in args.laws:
                continue
            for rows in args.rows:
                path = Path(tmp) / f"data_{rows}.csv"
                write_csv(path, f, rows, args.seed)
                wall, peak, first, rc = run(path)
                found = rc == 0 and is_exact_recovery(first, law)
                mb = os.path.getsize(path) / 1e6
                print(f"| `{law}` | {rows:,} | {mb:.0f} | {wall:.2f} | {peak:.2f} | {'yes' if found else 'no'} | "
                      f"`{first[:60]}` |", flush=True)
                path.unlink()


if __name__ == "__main__":
    main()

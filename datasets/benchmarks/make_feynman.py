"""Rebuild ``superpos/datasets/data/benchmarks/feynman.tsv`` (linked from here; superpos's problem format) from the AI Feynman table of the
project's shared data (Udrescu & Tegmark, Sci. Adv. 2020; 100 Feynman + 20 bonus
equations with the paper's sampling ranges).

    python datasets/benchmarks/make_feynman.py ../shared/data/benchmarks/feynman.tsv
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

HEADER = """# AI Feynman benchmark (S.-M. Udrescu and M. Tegmark, "AI Feynman: a physics-inspired method for symbolic regression", Science Advances 6, 2020): 100 Feynman and 20 bonus equations.
# Converted by datasets/benchmarks/make_feynman.py from the copy of AI-Feynman's FeynmanEquations.csv in github:KenWuqianghao/Transformer-SR-Benchmarks @fa184707: formula_x (variables renamed x1..xn in the order of the original columns) and the paper's uniform sampling range per variable; 200 points each (the recovery protocol of benchmarks/recovery.py).
"""


def main(src: str, dst: str) -> None:
    rows = list(csv.DictReader((ln for ln in Path(src).read_text().splitlines() if not ln.startswith("#")),
                               delimiter="\t"))
    out = [HEADER.rstrip("\n"), "name\tformula\tsampling_range\tn_points\tset\toriginal"]
    for r in rows:
        ranges = re.findall(r"(\S+):\[([^,\]]+),([^\]]+)\]", r["variables_with_ranges"])
        spec = ";".join(f"x{k + 1}:U[{lo},{hi}]" for k, (_, lo, hi) in enumerate(ranges))
        out.append("\t".join([r["name"], r["formula_x"], spec, "200", r["set"], r["formula_sympy"]]))
    Path(dst).write_text("\n".join(out) + "\n")
    print(f"wrote {len(rows)} problems to {dst}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/benchmarks/feynman.tsv",
         str(Path(__file__).resolve().parents[2] / "superpos" / "datasets" / "data" / "benchmarks" / "feynman.tsv"))

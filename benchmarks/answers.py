"""Answer by answer: the formula, status, constants and candidates of ``find_formula`` on every
benchmark set, written as JSON lines, and the comparison of two such files. It checks that a
refactor changes no answer (a behaviour-identical step): the search is deterministic for a seed
(the effort is counted in fits, ``max_fits``, not seconds), so two runs of the same code agree
to the bit and a difference is a change of behaviour.

Cases: the problem sets of ``datasets/benchmarks`` (``hard`` with ``--samples`` samples, the
others one) and the noise and real tables of :mod:`benchmarks.honesty`, each under every
``--conditions`` (``plain``, ``noise=g``). Per case: ``formula`` (sympy's ``srepr`` of ``expr``,
every float to 17 digits), ``status``, ``constants`` and ``standard_errors`` (repr of each float),
``tree``, the number of pooled candidates and the first ten candidates' (source, validation
error), and the seconds of the call.

    python benchmarks/answers.py run --out results/answers_before.jsonl --jobs 2
    python benchmarks/answers.py compare results/answers_before.jsonl results/answers_after.jsonl
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SETS = ["hard", "feynman", "nguyen", "keijzer", "lab", "composed", "separable", "separable_controls", "affine",
        "phases", "constants", "lab_heldout", "noise", "real"]
"""Every set :func:`honesty.cases` knows, the shipped problem sets and the noise and real tables."""


def _floats(a) -> list[str]:
    return [repr(float(v)) for v in np.ravel(np.asarray(a, dtype=np.float64))]


def answer(case: dict, seed: int) -> dict:
    """One case's answer (or its exception) as a JSON-ready dict."""
    import sympy

    from honesty import case_data
    from superpos.symreg.pipeline import find_formula

    X, y = case_data(case, seed)
    cond = case["condition"]
    row = dict(set=case["set"], name=case["name"], sample=case["sample"], condition=cond)
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = find_formula(X, y, None, random_state=seed)
    except Exception as exc:  # noqa: BLE001 - an answer too
        row.update(error=f"{type(exc).__name__}: {exc}", sec=time.perf_counter() - t)
        return row
    row["sec"] = time.perf_counter() - t
    row.update(formula=sympy.srepr(f.expr), shown=str(f.expr), status=str(f.status), constants=_floats(f.constants),
               standard_errors=_floats(f.standard_errors), tree=np.asarray(f.tree).tolist(),
               n_candidates=len(f.candidates),
               first=[(c.source, repr(float(c.nmse_validation))) for c in f.candidates[:10]])
    return row


def key(r: dict) -> tuple:
    return (r["set"], r["name"], r["sample"], r["condition"])


def run(args) -> None:
    from joblib import Parallel, delayed

    from honesty import cases

    todo = cases(args.sets, args.samples, args.conditions)
    if args.only:
        todo = [c for c in todo if c["name"] in set(args.only)]
    print(f"{len(todo)} cases; seed {args.seed}", flush=True)
    tmp = args.out + ".part"
    with open(tmp, "w") as fh:
        fh.write(json.dumps({"header": header(args.note)}) + "\n")
        for r in Parallel(n_jobs=args.jobs, return_as="generator")(delayed(answer)(c, args.seed) for c in todo):
            fh.write(json.dumps(r) + "\n")
            fh.flush()
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


def header(note: str) -> dict:
    """The run's command, commit and machine (the first line of the output)."""
    import platform
    import subprocess

    def git(*a):
        try:
            return subprocess.run(["git", *a], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    return {"command": "python " + " ".join(sys.argv), "commit": git("rev-parse", "--short", "HEAD") + dirty,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                       f"one BLAS thread", "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "note": note}


def load(path: str) -> dict:
    with open(path) as fh:
        return {key(r): r for r in map(json.loads, fh) if r and "header" not in r}


FIELDS = ("error", "formula", "status", "constants", "standard_errors", "tree", "n_candidates", "first")


def compare(args) -> None:
    a, b = load(args.a), load(args.b)
    only_a, only_b = sorted(set(a) - set(b), key=str), sorted(set(b) - set(a), key=str)
    both = sorted(set(a) & set(b), key=str)
    differ = []
    for k in both:
        fields = [f for f in FIELDS if a[k].get(f) != b[k].get(f)]
        if fields:
            differ.append((k, fields))
    ta, tb = sum(a[k]["sec"] for k in both), sum(b[k]["sec"] for k in both)
    print(f"{len(both)} cases in both; {len(only_a)} only in {args.a}; {len(only_b)} only in {args.b}")
    print(f"identical in every field ({', '.join(FIELDS)}): {len(both) - len(differ)}; different: {len(differ)}")
    print(f"seconds in all: {ta:.1f} -> {tb:.1f} ({tb / ta if ta else float('nan'):.3f}x)")
    for k, fields in differ:
        print(f"  {' '.join(map(str, k))}: {', '.join(fields)}")
        for f in fields[:3]:
            print(f"    {f}: {str(a[k].get(f))[:150]}\n    {' ' * len(f)}  {str(b[k].get(f))[:150]}")
    for k in only_a + only_b:
        print(f"  missing on one side: {' '.join(map(str, k))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--sets", nargs="+", default=SETS)
    r.add_argument("--samples", type=int, default=2)
    r.add_argument("--conditions", nargs="+", default=["plain", "noise=0.01"])
    r.add_argument("--only", nargs="+", default=None)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--note", default="", help="a line for the header (how the run was made)")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args()
    run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    main()

"""Data as a scientist brings it (issue 53): ``superpos predict`` on tables with the names and
units of real quantities, over their real domains.

Two sets, both written before the code that targets them:

- ``--set realistic`` (``datasets/benchmarks/realistic.tsv``): 67 laws of physics, chemistry and
  engineering that no other set here holds (none from the AI Feynman list), each over its
  variables' real domains (log-uniform over decades, signed, integer), with its units; 200
  points, no noise; column ``split``: 47 ``train`` laws and a frozen ``test`` part of 20 that no
  one tunes on (also used by the structure-model issue and the sensitivity sweep).
- ``--set lab_tables`` (``datasets/benchmarks/lab_tables.tsv``): 40 small tables of a teaching
  lab (8-60 rows, 0.5-3 % noise, values written with 3-6 digits, three tables with no law).
- ``--set lab_tables_fresh`` (``datasets/benchmarks/lab_tables_fresh.tsv``): 32 more lab tables,
  written after the first set became a tuning set, held out (never tuned on).
- ``--set feynman_units`` (``datasets/benchmarks/feynman_units.tsv``): the 120 AI Feynman laws
  with their variables' names and the units of AI Feynman's public units table
  (``make_feynman_units.py``), 200 points over the paper's ranges: with units against without.

Each table is written as a CSV, the target last, and run as a user runs it: ``superpos predict
FILE --format json --quiet`` in its own process, timed from start to exit (the numba cache warm).
Conditions (``--conditions``):

- ``names``: headers with the quantities' names only (``rho``, ``v``);
- ``units``: names with units, as a lab writes them: ``T [K]`` and ``V (m^3)`` in turn, ``[-]``
  for a dimensionless column;
- ``dummies`` / ``dummies+units``: the same with three columns the law does not use (a
  humidity in %, a room temperature in K, a run number 1..50) shuffled among the inputs.

Per run: **exact** (the formula, constants rounded to 3 significant digits, simplifies to the
law: ``is_exact_recovery``), **form** (the law's tree with other constants, as in
``benchmarks/lab_laws.py``; for a table with no law: the answer uses no input), R^2 on 1,000
fresh noiseless points (values scaled by their largest magnitude before squaring), the status,
**wrong law** (status ``exact`` or ``law`` on a wrong answer: lab tables: not the law's form;
realistic: R^2 < 0.99 on fresh points), **names** (the answer writes each input by its header's
name), **dummy** (the answer uses a column the law does not), **failed** (exit code not 0, or
stdout not one JSON document) and seconds per call.

    python benchmarks/realistic.py --set lab_tables --conditions names units --jobs 2
    python benchmarks/realistic.py --set realistic --conditions names units dummies --jobs 2
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import sympy  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

# the columns a law does not use: (name, unit, range)
DUMMIES = (("humidity", "%", ("U", 20.0, 80.0, 0.0)), ("room_T", "K", ("U", 290.0, 300.0, 0.0)),
           ("run", "1", ("I", 1.0, 50.0, 0.0)))


def _column(rng_range, n: int, rng) -> np.ndarray:
    from superpos.datasets.problems import _drawn

    return _drawn(rng_range, n, rng)


def layout(p, condition: str) -> tuple[list[str], list[str], list[tuple]]:
    """The CSV's input columns in order: their header cells, the variable each holds (x1.. of the
    law, or d1.. for a column the law does not use) and the range of each dummy."""
    names = [p.name_of(f"x{k + 1}") for k in range(p.n_variables)]
    units = [p.unit_of(f"x{k + 1}") for k in range(p.n_variables)]
    keys = [f"x{k + 1}" for k in range(p.n_variables)]
    ranges = [None] * p.n_variables
    if condition.startswith("dummies"):
        names += [d[0] for d in DUMMIES]
        units += [d[1] for d in DUMMIES]
        keys += [f"d{k + 1}" for k in range(len(DUMMIES))]
        ranges += [d[2] for d in DUMMIES]
        order = np.random.default_rng(sum(map(ord, p.name))).permutation(len(keys))
        names, units, keys, ranges = ([v[i] for i in order] for v in (names, units, keys, ranges))
    return [_header(n, u, k, condition) for k, (n, u) in enumerate(zip(names, units))], keys, ranges


def _header(name: str, unit: str, k: int, condition: str) -> str:
    if not condition.endswith("units") or not unit:
        return name
    unit = "-" if unit == "1" else unit
    return f"{name} [{unit}]" if k % 2 == 0 else f"{name} ({unit})"


def table(p, condition: str, seed: int, n_fresh: int = 1000):
    """(header cells, keys, X of the CSV, y of the CSV, X fresh (all columns), y fresh noiseless,
    X of the law's inputs and noiseless y of the sample)."""
    cells, keys, ranges = layout(p, condition)
    X, y, clean = p.noisy(random_state=seed)
    Xf, yf = p.sample(n_fresh, random_state=seed + 1, fresh=True)
    rng = np.random.default_rng([seed, 7])
    cols, fresh = [], []
    for key, r in zip(keys, ranges):
        if key.startswith("x"):
            cols.append(X[:, int(key[1:]) - 1])
            fresh.append(Xf[:, int(key[1:]) - 1])
        else:
            cols.append(_column(r, X.shape[0], rng))
            fresh.append(_column(r, n_fresh, rng))
    target = _header(p.name_of("y"), p.unit_of("y"), len(cells), condition)
    return cells + [target], keys, np.column_stack(cols), y, np.column_stack(fresh), yf, X, clean


def write_csv(path: Path, cells: list[str], X: np.ndarray, y: np.ndarray, digits: int) -> None:
    with open(path, "w") as fh:
        fh.write(",".join(cells) + "\n")
        for row, v in zip(X, y):
            fh.write(",".join(f"{c:.{digits}g}" for c in list(row) + [v]) + "\n")


def scaled_r2(truth, pred) -> float:
    from superpos.datasets.problems import scored_r2

    truth, pred = np.asarray(truth, float), np.asarray(pred, float)
    top = np.nanmax(np.abs(truth[np.isfinite(truth)])) if np.isfinite(truth).any() else 1.0
    with np.errstate(all="ignore"):
        return scored_r2(truth / top, pred / top)[0]


def run_cli(path: Path, seed: int) -> tuple[dict | None, int, str, float]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "superpos", "predict", str(path), "--format", "json", "--quiet",
                          "--seed", str(seed)], capture_output=True, text=True)
    sec = time.perf_counter() - t
    try:
        doc = json.loads(out.stdout) if out.returncode == 0 else None
    except json.JSONDecodeError:
        doc = None
    why = "" if doc is not None else (out.stderr.strip().splitlines()[-1] if out.stderr.strip() else
                                      f"exit {out.returncode}, stdout not JSON: {out.stdout[:80]!r}")
    return doc, out.returncode, why, sec


def solve(p, condition: str, seed: int, split: str = "") -> dict:
    from lab_laws import same_form

    from superpos.core.formula import parse_formula
    from superpos.datasets.problems import is_exact_recovery

    cells, keys, X, y, Xf, yf, Xlaw, clean = table(p, condition, seed)
    nolaw = not p.expr().free_symbols
    row = dict(name=p.name, condition=condition, split=split, nolaw=nolaw, exact=False,
               form=False, r2=np.nan, status="-", sec=np.nan, formula="", failed=False, names=False, dummy=False,
               wrong_law=False, inputs=[])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{p.name}.csv"
        write_csv(path, cells, X, y, p.digits)
        doc, rc, why, row["sec"] = run_cli(path, seed)
    if doc is None:
        row.update(failed=True, formula=f"(failed, exit {rc}: {why[:160]})")
        return row
    text, row["status"], row["inputs"] = doc["formula"], doc.get("status", "-"), doc.get("inputs", [])
    row["formula"] = text
    plain = [c.split(" [")[0].split(" (")[0] for c in cells[:-1]]
    syms = {name: sympy.Symbol(f"c{k}", real=True) for k, name in enumerate(plain)}
    syms.update({f"x{k + 1}": sympy.Symbol(f"c{k}", real=True) for k in range(len(plain)) if f"x{k + 1}" not in syms})
    try:
        expr = parse_formula(text, syms)
    except Exception as exc:  # noqa: BLE001 - a benchmark row
        row["formula"] = f"{text} (unreadable: {exc})"
        return row
    used = sorted(int(s.name[1:]) for s in expr.free_symbols)
    row["names"] = all(v in plain for v in row["inputs"])
    row["dummy"] = any(keys[k].startswith("d") for k in used)
    law = {sympy.Symbol(f"c{k}", real=True): sympy.Symbol(keys[k], real=True) for k in range(len(keys))}
    mapped = expr.xreplace(law)
    f = sympy.lambdify([sympy.Symbol(k, real=True) for k in keys], mapped, modules=["numpy", "scipy"])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = np.broadcast_to(np.asarray(f(*Xf.T), dtype=float), yf.shape)
        row["r2"] = scaled_r2(yf, pred)
    if nolaw:
        row["form"] = row["exact"] = not used
        row["wrong_law"] = bool(used) and row["status"] in ("exact", "law")
        return row
    if not row["dummy"]:
        xs = [sympy.Symbol(f"x{k + 1}", real=True) for k in range(p.n_variables)]
        g = sympy.lambdify(xs, mapped, modules=["numpy", "scipy"])

        def predicted(Z):
            with np.errstate(all="ignore"):
                return np.broadcast_to(np.asarray(g(*Z.T), dtype=float), (Z.shape[0],))

        domain = {f"x{j + 1}": Xf[:, keys.index(f"x{j + 1}")] for j in range(p.n_variables)}
        try:
            row["exact"] = bool(is_exact_recovery(str(mapped), p.formula, positive=p.positive_variables,
                                                  domain=domain))
        except Exception:  # noqa: BLE001
            row["exact"] = False
        try:
            Xb, yb = p.beyond(400, random_state=seed + 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row["form"] = row["exact"] or same_form(p.expr(), predicted, Xlaw, clean if p.noise == 0 else y,
                                                        Xb[np.isfinite(yb)][:200])
        except Exception:  # noqa: BLE001
            row["form"] = False
    bad = not row["form"] if p.noise > 0 else not (row["r2"] > 0.99)
    row["wrong_law"] = bad and row["status"] in ("exact", "law")
    return row


def summary(rows: list[dict], lab: bool) -> None:
    keys = sorted({(r["condition"], r["split"]) for r in rows})
    print("| condition | part | tables | exact | form | R^2 > 0.99 | wrong answer called exact / law | names kept "
          "| uses a dummy | failed | median s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in keys + sorted({(c, "all") for c, _ in keys}) if not lab else keys:
        rs = [r for r in rows if r["condition"] == key[0] and (key[1] == "all" or r["split"] == key[1])]
        if key[1] == "all" and len({r["split"] for r in rs}) < 2:
            continue
        laws = [r for r in rs if not r["nolaw"]]
        print(f"| {key[0]} | {key[1] or 'all'} | {len(rs)} | {sum(r['exact'] for r in laws)} of {len(laws)} "
              f"| {sum(r['form'] for r in laws)} of {len(laws)} "
              f"| {sum(r['r2'] > 0.99 for r in laws)} | {sum(r['wrong_law'] for r in rs)} "
              f"| {sum(r['names'] for r in rs)} | {sum(r['dummy'] for r in rs)} | {sum(r['failed'] for r in rs)} "
              f"| {np.nanmedian([r['sec'] for r in rs]):.2f} |")
    if lab:
        nolaw = [r for r in rows if r["nolaw"]]
        if nolaw:
            print(f"\ntables with no law: {sum(r['form'] for r in nolaw)} of {len(nolaw)} answered with no input; "
                  f"{sum(r['wrong_law'] for r in nolaw)} called exact / law with an input")


def main() -> None:
    from joblib import Parallel, delayed

    from superpos.datasets.problems import benchmark_folder, load_problems

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="realistic", choices=["realistic", "lab_tables", "lab_tables_fresh", "feynman_units"])
    ap.add_argument("--conditions", nargs="+", default=["names", "units"],
                    choices=["names", "units", "dummies", "dummies+units"])
    ap.add_argument("--split", default=None, choices=["train", "test"], help="realistic: one part only")
    ap.add_argument("--only", nargs="+", default=None, help="these tables only (by name)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--rows", type=Path, default=None, help="also write the rows here (JSON Lines)")
    args = ap.parse_args()

    problems = load_problems(args.set, names=args.only)
    split = _column_of(benchmark_folder() / f"{args.set}.tsv", "split")
    if args.split:
        problems = [p for p in problems if split.get(p.name) == args.split]
    with tempfile.TemporaryDirectory() as tmp:  # numba cache warm, model file in the page cache
        path = Path(tmp) / "warm.csv"
        write_csv(path, ["x", "y"], np.linspace(0.1, 1.0, 20)[:, None], np.sin(np.linspace(0.1, 1.0, 20)), 17)
        run_cli(path, 0)
    jobs = [(p, c) for p in problems for c in args.conditions]
    rows = Parallel(n_jobs=args.jobs)(delayed(solve)(p, c, args.seed, split.get(p.name, "")) for p, c in jobs)
    for r in rows:
        print(f"{r['name']:22s} {r['condition']:13s} {r['split']:5s} exact={int(r['exact'])} form={int(r['form'])} "
              f"R2={r['r2']:.4f} names={int(r['names'])} dummy={int(r['dummy'])} wrong={int(r['wrong_law'])} "
              f"{r['status']:13s} {r['sec']:6.2f}s {r['formula'][:120]}")
    print()
    summary(rows, args.set.startswith("lab_tables"))
    if args.rows:
        with open(args.rows, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r, default=float) + "\n")


def _column_of(path: Path, column: str) -> dict:
    header, out = None, {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            if column not in header:
                return {}
            continue
        out[cells[header.index("name")]] = cells[header.index(column)]
    return out


if __name__ == "__main__":
    main()

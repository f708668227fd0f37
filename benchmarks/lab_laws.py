"""Power laws with fitted exponents and the curves of the lab (issue 25): ``superpos predict``
and pyoperon on the same data, clean and at 1 % noise.

The laws are ``datasets/benchmarks/lab.tsv`` (44 laws written before the code that targets
them: power laws of 1-4 inputs, peaks, steps and growth, dose-response, exponential rise and
decay, damped oscillations; inputs over the ranges of real quantities, log-uniform where they
span decades). One sample of 200 points per law (seed 0); ``--conditions`` ``plain`` and
``noise=g`` (y += N(0, (g rms y)^2), SRBench's; scored against the noiseless law).

superpos runs as a user runs it: ``superpos predict FILE --format json`` on a CSV written with
17 significant digits, one process per call, timed from start to exit (the numba cache warm:
one untimed call first). pyoperon (``--methods pyoperon``) runs in this process with the
settings of ``benchmarks/side_by_side.py`` on one core.

Per run:

- **exact**: the formula, constants rounded to 3 significant digits, simplifies to the law
  (``is_exact_recovery``);
- **form**: the formula is the law's tree with other constants: the law with each of its
  numbers (not +-1, not an integer exponent) made a free parameter fits the formula's own
  values on the sample and beyond it to a relative 1e-6 (root mean square of the error over
  |value| + 1 % of the median |value|), and each fitted parameter is
  within 3 standard errors of the law's value (the law refitted to the data: scipy's
  ``curve_fit``), or within 1e-6 of it relatively (clean data);
- R^2 on 1,000 fresh points in the sampled range and on 1,000 beyond it (``Problem.beyond``);
  the status the formula reports; seconds per call.

    python benchmarks/lab_laws.py --conditions plain noise=0.01
    python benchmarks/lab_laws.py --methods pyoperon --conditions plain noise=0.01 --jobs 2
    python benchmarks/lab_laws.py --set lab_heldout --jobs 2

``--set lab_heldout``: 24 more curves of the lab (log-normal sizes, a driven resonance, Planck's
photons, Weibull, Langmuir, Haldane, Debye-Hueckel, two-compartment decay, Kohlrausch, Antoine,
Beer-Lambert, Arps, Hagen-Poiseuille, Stokes settling, Cauchy, Tafel, Nernst, van der Waals, ...),
written after the families' code and before any code that targets them: generality.
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

GROUPS = ("power", "peak", "step", "dose", "exp", "osc", "other")


def parameterised(law: sympy.Expr) -> tuple[sympy.Expr, list[sympy.Symbol], list[float]]:
    """The law with each number that is not +-1 and not an integer exponent replaced by a
    symbol a0, a1, ... (each occurrence its own), the symbols and the law's values."""
    names, values = [], []

    def walk(e, exponent=False):
        if e.is_Number:
            if (exponent and e.is_Integer) or e in (1, -1):
                return e
            s = sympy.Symbol(f"a{len(names)}", real=True)
            names.append(s)
            values.append(float(e))
            return s
        if not e.args:
            return e
        if e.is_Pow:
            return sympy.Pow(walk(e.base), walk(e.exp, exponent=True), evaluate=False)
        if e.is_Mul and e.args[0] == -1:  # -x stays -x
            return e.func(*[e.args[0]] + [walk(a) for a in e.args[1:]], evaluate=False)
        return e.func(*[walk(a) for a in e.args], evaluate=False)

    return walk(law), names, values


def _function(expr, params, m):
    xs = [sympy.Symbol(f"x{k + 1}", real=True) for k in range(m)]
    f = sympy.lambdify(params + xs, expr, modules=["numpy", "scipy"])

    def g(X, *a):
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(f(*a, *[X[:, k] for k in range(m)]), dtype=float), (X.shape[0],))

    return g


def same_form(law: sympy.Expr, predicted, X, y, Xb) -> bool:
    """Whether ``predicted`` (a numpy function of X) is the law's tree with constants within 3
    standard errors of the law's, the errors from refitting the law to (X, y)."""
    from scipy.optimize import curve_fit, least_squares

    tree, params, truth = parameterised(law)
    if not params:
        return False
    g = _function(tree, params, X.shape[1])
    pts = np.vstack([X, Xb])
    with np.errstate(all="ignore"):
        target = np.asarray(predicted(pts), dtype=float)
    ok = np.isfinite(target) & np.isfinite(g(pts, *truth))
    if ok.mean() < 0.9:
        return False
    scale = np.abs(target[ok]) + 1e-2 * max(float(np.median(np.abs(target[ok]))), 1e-300)

    def res(a):  # relative, point by point: values may span decades
        r = (g(pts[ok], *a) - target[ok]) / scale
        return np.where(np.isfinite(r), r, 1e6)

    fit = least_squares(res, np.array(truth), x_scale=np.maximum(np.abs(truth), 1e-12), method="lm",
                        xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=20000)
    if np.sqrt(np.mean(fit.fun**2)) > 1e-6:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, cov = curve_fit(g, X, y, p0=truth, maxfev=20000)
        se = np.sqrt(np.abs(np.diag(cov)))
    except Exception:  # noqa: BLE001 - no covariance: only the relative tolerance
        se = np.zeros(len(truth))
    tol = np.maximum(3 * np.where(np.isfinite(se), se, 0.0), 1e-6 * np.abs(truth))
    return bool(np.all(np.abs(fit.x - np.array(truth)) <= tol))


def noisy(p, condition: str, seed: int):
    X, y = p.sample(random_state=seed)
    if condition.startswith("noise="):
        rng = np.random.default_rng([seed, sum(map(ord, p.name))])
        y = y + rng.normal(0.0, float(condition.split("=")[1]) * np.sqrt(np.mean(y**2)), y.size)
    return X, y


def run_superpos_cli(X, y, seed: int, folder: Path) -> tuple[str, str, float, dict]:
    path = folder / "data.csv"
    header = ",".join([f"x{k + 1}" for k in range(X.shape[1])] + ["y"])
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "superpos", "predict", str(path), "--format", "json", "--quiet",
                          "--seed", str(seed)], capture_output=True, text=True)
    sec = time.perf_counter() - t
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}")
    doc = json.loads(out.stdout)
    return doc["formula"], doc.get("status", "-"), sec, doc


def solve(p, condition: str, method: str, seed: int, args) -> dict:
    from superpos.core.formula import parse_formula
    from superpos.datasets.problems import is_exact_recovery, scored_r2

    X, y = noisy(p, condition, seed)
    Xf, yf = p.sample(1000, random_state=seed + 1, fresh=True)
    Xb, yb = p.beyond(1000, random_state=seed + 2)
    row = dict(name=p.name, group=GROUP[p.name], condition=condition,
               method=method, exact=False, form=False, r2=np.nan, r2_beyond=np.nan, status="-", sec=np.nan,
               formula="")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "superpos":
                with tempfile.TemporaryDirectory() as tmp:
                    text, row["status"], row["sec"], doc = run_superpos_cli(X, y, seed, Path(tmp))
                expr = parse_formula(text)
                row["parameters"] = doc.get("parameters")
            else:
                from side_by_side import run_operon

                expr, _, row["sec"] = run_operon(X, y, seed, args)
                text = str(expr)
    except Exception as exc:  # noqa: BLE001 - a benchmark row, not a crash
        row["formula"] = f"(failed: {type(exc).__name__}: {str(exc)[:160]})"
        return row
    row["formula"] = text
    expr = expr.xreplace({s: sympy.Symbol(s.name, real=True) for s in expr.free_symbols})
    predicted = _function(expr, [], p.n_variables)
    with np.errstate(all="ignore"):
        row["r2"] = scored_r2(yf, predicted(Xf))[0]
        row["r2_beyond"] = scored_r2(yb, predicted(Xb))[0]
    domain = {f"x{j + 1}": Xf[:, j] for j in range(Xf.shape[1])}
    try:
        # the text as shown (its decimals rounded as written, before sympy merges 0.5 e^4 into 27.3)
        row["exact"] = bool(is_exact_recovery(text, p.formula, positive=p.positive_variables, domain=domain))
    except Exception:  # noqa: BLE001
        row["exact"] = False
    try:
        row["form"] = row["exact"] or same_form(p.expr(), predicted, X, y, Xb[np.isfinite(yb)][:200])
    except Exception:  # noqa: BLE001
        row["form"] = False
    return row


GROUP: dict = {}


def summary(rows: list[dict]) -> None:
    print("| condition | method | laws | exact | form | R^2 > 0.99 | median R^2 beyond | min R^2 (products of powers) "
          "| status exact / law / approximation | median s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for key in sorted({(r["condition"], r["method"]) for r in rows}):
        rs = [r for r in rows if (r["condition"], r["method"]) == key]
        r2s = np.array([r["r2"] for r in rs], dtype=float)
        powers = [r["r2"] for r in rs if r["group"] == "power" and "exp" not in PLAIN[r["name"]]]
        st = [sum(r["status"] == s for r in rs) for s in ("exact", "law", "approximation")]
        print(f"| {key[0]} | {key[1]} | {len(rs)} | {sum(r['exact'] for r in rs)} | {sum(r['form'] for r in rs)} "
              f"| {int(np.sum(r2s > 0.99))} | {np.nanmedian([r['r2_beyond'] for r in rs]):.3f} "
              f"| {np.nanmin(powers) if powers else float('nan'):.3f} | {st[0]} / {st[1]} / {st[2]} "
              f"| {np.nanmedian([r['sec'] for r in rs]):.2f} |")
    print()
    groups = [g for g in GROUPS if any(r["group"] == g for r in rows)]
    print("| condition | method | " + " | ".join(f"{g} exact / form" for g in groups) + " |")
    print("|---|---|" + "---:|" * len(groups))
    for key in sorted({(r["condition"], r["method"]) for r in rows}):
        rs = [r for r in rows if (r["condition"], r["method"]) == key]
        cells = []
        for g in groups:
            gs = [r for r in rs if r["group"] == g]
            cells.append(f"{sum(r['exact'] for r in gs)} / {sum(r['form'] for r in gs)} of {len(gs)}")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


PLAIN: dict = {}


def main() -> None:
    from joblib import Parallel, delayed

    from superpos.datasets.problems import load_problems

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["superpos"], choices=["superpos", "pyoperon"])
    ap.add_argument("--conditions", nargs="+", default=["plain", "noise=0.01"])
    ap.add_argument("--set", default="lab", help="the benchmark set: lab (44 laws) or lab_heldout (24, held out)")
    ap.add_argument("--only", nargs="+", default=None, help="these laws only (by name)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--operon-population", type=int, default=1000, help="pyoperon's default: 1000")
    ap.add_argument("--operon-evaluations", type=int, default=1_000_000, help="pyoperon's default: 1e6")
    ap.add_argument("--rows", type=Path, default=None, help="also write the rows here (JSON Lines)")
    args = ap.parse_args()

    problems = load_problems(args.set, names=args.only)
    groups = _groups(args.set)
    GROUP.update(groups)
    PLAIN.update({p.name: p.formula for p in problems})
    if "superpos" in args.methods:  # numba cache warm, model file in the page cache: one untimed call
        with tempfile.TemporaryDirectory() as tmp:
            Xw = np.linspace(0.1, 1.0, 20)[:, None]
            run_superpos_cli(Xw, np.sin(Xw[:, 0]), 0, Path(tmp))
    jobs = [(p, c, m) for p in problems for c in args.conditions for m in args.methods]
    rows = Parallel(n_jobs=args.jobs)(delayed(_solve_job)(p, c, m, args.seed, args, groups) for p, c, m in jobs)
    for r in rows:
        print(f"{r['name']:20s} {r['condition']:11s} {r['method']:9s} exact={int(r['exact'])} form={int(r['form'])} "
              f"R2={r['r2']:.4f} beyond={r['r2_beyond']:.4f} {r['status']:13s} {r['sec']:6.2f}s {r['formula'][:110]}")
    print()
    summary(rows)
    if args.rows:
        with open(args.rows, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r, default=float) + "\n")


def _groups(name: str = "lab") -> dict:
    from superpos.datasets.problems import benchmark_folder

    out = {}
    lines = (benchmark_folder() / f"{name}.tsv").read_text().splitlines()
    header = None
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        out[cells[header.index("name")]] = cells[header.index("set")]
    return out


def _solve_job(p, c, m, seed, args, groups):
    GROUP.update(groups)
    return solve(p, c, m, seed, args)


if __name__ == "__main__":
    main()

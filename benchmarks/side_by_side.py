"""superpos next to gplearn and pyoperon on the same benchmark problems, the same points,
the same machine, in one run (issue 3, item 6). Needs the optional ``bench`` extra:
``pip install gplearn pyoperon``.

Per problem and method: exact symbolic recovery (constants rounded to 3 significant
digits, sympy-equivalent to the truth), R^2 on 1,000 fresh points and on 1,000 beyond the
sampled ranges (``Problem.beyond``: each widened by a quarter, in log space where positive;
points where the law is undefined counted, not scored), and fit seconds on one core
(superpos: model loading and numba compilation excluded, see the header line). A problem with
more inputs than any model given is solved with the widest model given.
Prints one markdown table and the totals.

    python benchmarks/side_by_side.py --model m1.npz --model2 m2.npz
    python benchmarks/side_by_side.py --model m1.npz --problems Nguyen-1 Nguyen-8 --operon-evaluations 100000
"""
from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import sympy  # noqa: E402

from superpos.core.numeric import r2  # noqa: E402
from superpos.datasets.problems import is_exact_recovery, load_problems, scored_r2  # noqa: E402
from superpos import SuperposRegressor
from superpos.structure.shipped import load_predictor  # noqa: E402

NGUYEN = [f"Nguyen-{k}" for k in range(1, 13) if k != 11]
GPLEARN_FUNCTIONS = ("add", "sub", "mul", "div", "sin", "cos", "log", "sqrt", "neg")
OPERON_SYMBOLS = "add,sub,mul,div,constant,variable,sin,cos,exp,log,sqrt,square"


def gplearn_sympy(program: str, m: int) -> sympy.Expr:
    """gplearn's program string (protected functions) as sympy (plain functions)."""
    loc = {f"X{k}": sympy.Symbol(f"x{k + 1}", real=True) for k in range(m)}
    loc.update(add=lambda a, b: a + b, sub=lambda a, b: a - b, mul=lambda a, b: a * b, div=lambda a, b: a / b,
               neg=lambda a: -a, sin=sympy.sin, cos=sympy.cos, log=lambda a: sympy.log(sympy.Abs(a)),
               sqrt=lambda a: sympy.sqrt(sympy.Abs(a)), inv=lambda a: 1 / a, abs=sympy.Abs)
    return sympy.sympify(program, locals=loc)


def operon_sympy(text: str, m: int) -> sympy.Expr:
    loc = {f"X{k + 1}": sympy.Symbol(f"x{k + 1}", real=True) for k in range(m)}
    loc.update(square=lambda a: a**2, sqrt=sympy.sqrt, log=sympy.log, exp=sympy.exp, sin=sympy.sin, cos=sympy.cos)
    return sympy.sympify(text.replace("^", "**"), locals=loc)


def run_superpos(model, X, y, seed, args):
    opts = {"selection": args.selection} if args.selection else {}
    reg = SuperposRegressor(predictor=model, top_k=args.top_k, search_rounds=args.search_rounds, random_state=seed,
                            **opts)
    t = time.perf_counter()
    reg.fit(X, y)
    return reg.expr_, reg.predict, time.perf_counter() - t


def run_gplearn(X, y, seed, args):
    from gplearn.genetic import SymbolicRegressor

    est = SymbolicRegressor(population_size=args.gplearn_population, generations=args.gplearn_generations,
                            function_set=GPLEARN_FUNCTIONS, random_state=seed, n_jobs=1)
    t = time.perf_counter()
    est.fit(X, y)
    sec = time.perf_counter() - t
    return gplearn_sympy(str(est._program), X.shape[1]), est.predict, sec


def run_operon(X, y, seed, args):
    from pyoperon.sklearn import SymbolicRegressor

    est = SymbolicRegressor(allowed_symbols=OPERON_SYMBOLS, population_size=args.operon_population,
                            max_evaluations=args.operon_evaluations, n_threads=1, random_state=seed)
    t = time.perf_counter()
    est.fit(X, y)
    sec = time.perf_counter() - t
    return operon_sympy(est.get_model_string(est.model_, 6), X.shape[1]), est.predict, sec


_WARM: list = []


def _one_problem(p, models, args) -> dict:
    """{method: {exact, r2, beyond, sec, expr} or None} for one problem (one core per method)."""
    runners = {"gplearn": run_gplearn, "pyoperon": run_operon}
    if "superpos" in args.methods and not _WARM:  # this worker's first call: compiled kernels loaded untimed
        Xw = np.linspace(0.1, 1.0, 20)[:, None]
        SuperposRegressor(predictor=models[max(models)], top_k=args.top_k, search_rounds=args.search_rounds).fit(
            Xw, np.sin(Xw[:, 0]))
        _WARM.append(True)
    X, y = p.sample(random_state=args.seed)
    Xt, yt = p.sample(1000, random_state=args.seed + 1, fresh=True)
    Xb, yb = p.beyond(1000, random_state=args.seed + 2)
    out: dict = {}
    for meth in args.methods:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if meth == "superpos":
                    model = models.get(p.n_variables, models[max(models)])
                    expr, predict, sec = run_superpos(model, X, y, args.seed, args)
                else:
                    expr, predict, sec = runners[meth](X, y, args.seed, args)
                with np.errstate(all="ignore"):
                    score = r2(yt, np.asarray(predict(Xt), dtype=np.float64))
                    beyond = scored_r2(yb, np.asarray(predict(Xb), dtype=np.float64))[0]
                exact = is_exact_recovery(expr, p.expr(), p.positive_variables)
            except Exception as exc:  # noqa: BLE001 - one tool failing must not stop the table
                out[meth], out[meth + "_error"] = None, str(exc)[:200]
                continue
        out[meth] = {"exact": exact, "r2": score, "sec": sec, "expr": str(expr), "beyond": beyond}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True, help="1-variable StructurePredictor (.npz)")
    ap.add_argument("--model2", type=Path, default=None, help="2-variable StructurePredictor")
    ap.add_argument("--set", default="nguyen")
    ap.add_argument("--problems", nargs="*", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top-k", type=int, default=200)
    ap.add_argument("--search-rounds", type=int, default=0, help="SuperposRegressor(search_rounds=...)")
    ap.add_argument("--methods", nargs="+", default=["superpos", "gplearn", "pyoperon"])
    ap.add_argument("--gplearn-population", type=int, default=1000, help="gplearn's default: 1000")
    ap.add_argument("--gplearn-generations", type=int, default=20, help="gplearn's default: 20")
    ap.add_argument("--operon-population", type=int, default=1000, help="pyoperon's default: 1000")
    ap.add_argument("--operon-evaluations", type=int, default=1_000_000, help="pyoperon's default: 1e6")
    ap.add_argument("--selection", default=None, help="SuperposRegressor(selection=...) (default: the library's)")
    ap.add_argument("--jobs", type=int, default=1, help="problems solved in parallel (each method on one core)")
    args = ap.parse_args()

    t = time.perf_counter()
    models = {1: load_predictor(args.model)}
    if args.model2 is not None:
        models[2] = load_predictor(args.model2)
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    for m, model in models.items():
        Xw = np.linspace(0.1, 1.0, 20)[:, None] * np.ones((1, m))
        SuperposRegressor(predictor=model, top_k=args.top_k, search_rounds=args.search_rounds).fit(
            Xw, np.sin(Xw).sum(axis=1))
    warm_s = time.perf_counter() - t
    names = args.problems if args.problems else (NGUYEN if args.set == "nguyen" else None)
    problems = load_problems(args.set, names=names)
    print(f"# Side by side: {platform.machine()}, {os.cpu_count()} cores (one used), Python {platform.python_version()}")
    print(f"superpos top_k={args.top_k}, search_rounds={args.search_rounds}, models {args.model}" + (f", {args.model2}" if args.model2 else "") +
          f" (loading {load_s:.2f} s and warm-up {warm_s:.2f} s excluded); gplearn population "
          f"{args.gplearn_population} x {args.gplearn_generations} generations, functions {','.join(GPLEARN_FUNCTIONS)}; "
          f"pyoperon population {args.operon_population}, max_evaluations {args.operon_evaluations}, "
          f"symbols {OPERON_SYMBOLS}\n", flush=True)

    from joblib import Parallel, delayed

    rows = Parallel(n_jobs=args.jobs)(delayed(_one_problem)(p, models, args) for p in problems)
    res = {m: [row[m] for row in rows] for m in args.methods}
    for p, row in zip(problems, rows):
        for meth in args.methods:
            r = row[meth]
            if r is None:
                print(f"  {p.name} {meth}: failed ({row.get(meth + '_error', '')})")
            else:
                print(f"  {p.name:12s} {meth:9s} {'EXACT' if r['exact'] else '     '} R2={r['r2']:.6f} "
                      f"beyond={r['beyond']:.4f} {r['sec']:8.3f}s {str(r['expr'])[:70]}", flush=True)

    print("\n| problem | " + " | ".join(f"{m} exact | {m} R^2 | {m} s" for m in args.methods) + " |")
    print("|---|" + "---|---|---|" * len(args.methods))
    for i, p in enumerate(problems):
        cells = []
        for m in args.methods:
            r = res[m][i]
            cells += ["-", "-", "-"] if r is None else ["yes" if r["exact"] else "no", f"{r['r2']:.4f}", f"{r['sec']:.3f}"]
        print(f"| {p.name} | " + " | ".join(cells) + " |")
    print("\n| method | problems | exact | R^2 > 0.99 | R^2 > 0.999 | median R^2 beyond | median s | mean s |")
    print("|---|---|---|---|---|---|---|---|")
    med = {}
    for m in args.methods:
        rows = [r for r in res[m] if r is not None]
        if not rows:
            continue
        sec = np.array([r["sec"] for r in rows])
        r2s = np.array([r["r2"] if np.isfinite(r["r2"]) else -np.inf for r in rows])
        med[m] = float(np.median(sec))
        print(f"| {m} | {len(rows)} | {sum(r['exact'] for r in rows)} | {int(np.sum(r2s > 0.99))} | "
              f"{int(np.sum(r2s > 0.999))} | {np.nanmedian([r['beyond'] for r in rows]):.4f} | {np.median(sec):.3f} "
              f"| {sec.mean():.3f} |")
    if "superpos" in med:
        for m in med:
            if m != "superpos":
                # per-problem ratio on the problems both ran
                pairs = [(a["sec"], b["sec"]) for a, b in zip(res["superpos"], res[m]) if a is not None and b is not None]
                ratio = np.median([b / a for a, b in pairs]) if pairs else float("nan")
                print(f"\nsuperpos vs {m}: median per-problem speed-up {ratio:.1f}x "
                      f"(ratio of medians {med[m] / med['superpos']:.1f}x)")


if __name__ == "__main__":
    main()

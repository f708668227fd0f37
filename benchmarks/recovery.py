"""Formula recovery with SuperposRegressor on public benchmark problems and on held-out
generated formulas (issue 3's measures).

Per problem: the published training points (seeded), ``SuperposRegressor(top_k=k)``,
exact symbolic recovery (constants rounded to 3 significant digits, sympy-equivalent to
the true formula, variables declared positive where the range is), R^2 on 1,000 fresh
points from the same ranges and on 1,000 beyond them (each widened by a quarter, in log space
where positive), and the wall-clock seconds of ``fit`` (model loading and the
first numba compilation excluded: a warm-up fit runs first). Prints markdown tables.

    python benchmarks/recovery.py --model m1.npz --model2 m2.npz          # Nguyen-1..12 but 11
    python benchmarks/recovery.py --model m1.npz --top-k 1 10 100 --corpus test.npz --n-corpus 200
    python benchmarks/recovery.py --model m1.npz --set keijzer
"""
from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import sympy

from superpos import Corpus
from superpos.core.numeric import r2
from superpos.datasets.problems import beyond_box, is_exact_recovery, load_problems, scored_r2
from superpos import SuperposRegressor
from superpos.structure.shipped import load_predictor
from superpos.core.symbolic import to_sympy
from superpos.core.tree import evaluate

NGUYEN = [f"Nguyen-{k}" for k in range(1, 13) if k != 11]


def one_core() -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(var, "1")


def solve(model, X, y, k, seed, opts):
    reg = SuperposRegressor(predictor=model, top_k=k, random_state=seed, **opts)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg.fit(X, y)
    return reg, time.perf_counter() - t


def run_problems(problems, models, ks, seed, opts, verbose=True):
    """rows[k] = list of dicts per problem."""
    rows = {k: [] for k in ks}
    for p in problems:
        model = models.get(p.n_variables)
        X, y = p.sample(random_state=seed)
        Xt, yt = p.sample(1000, random_state=seed + 1, fresh=True)
        for k in ks:
            if model is None:
                rows[k].append({"name": p.name, "skip": f"no {p.n_variables}-variable model"})
                continue
            reg, sec = solve(model, X, y, k, seed, opts)
            Xb, yb = p.beyond(1000, random_state=seed + 2)
            with np.errstate(all="ignore"):
                score = r2(yt, reg.predict(Xt))
                beyond = scored_r2(yb, reg.predict(Xb))[0]
            exact = is_exact_recovery(reg.expr_, p.expr(), p.positive_variables)
            rows[k].append({"name": p.name, "true": p.formula, "pred": reg.expr_, "exact": exact, "r2": score,
                            "sec": sec, "n_cand": len(reg.candidates_), "timings": reg.timings_, "beyond": beyond})
            if verbose:
                print(f"  {p.name:12s} k={k:<5d} {'EXACT' if exact else '     '} R2={score:.6f} "
                      f"beyond={beyond:.4f} {sec:6.3f}s "
                      f"{_short(reg.expr_)}", flush=True)
    return rows


def _short(e, n=70):
    s = str(e)
    return s if len(s) <= n else s[:n - 3] + "..."


def summary(rows) -> dict:
    done = [r for r in rows if "skip" not in r]
    if not done:
        return {"n": 0}
    r2s = np.array([r["r2"] if np.isfinite(r["r2"]) else -np.inf for r in done])
    sec = np.array([r["sec"] for r in done])
    return {"n": len(done), "exact": int(sum(r["exact"] for r in done)), "r2_99": int(np.sum(r2s > 0.99)),
            "r2_999": int(np.sum(r2s > 0.999)), "median_r2": float(np.median(r2s)),
            "median_beyond": float(np.nanmedian([r.get("beyond", np.nan) for r in done])),
            "median_sec": float(np.median(sec)), "mean_sec": float(np.mean(sec)), "max_sec": float(sec.max())}


def print_problem_table(rows, k):
    print(f"\n### top_k = {k}\n")
    print("| problem | true | predicted | exact | R^2 (fresh) | s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "skip" in r:
            print(f"| {r['name']} | | ({r['skip']}) | | | |")
            continue
        pred = _short(sympy.sstr(r["pred"]), 60).replace("|", "\\|")
        print(f"| {r['name']} | `{r['true']}` | `{pred}` | {'yes' if r['exact'] else 'no'} | "
              f"{r['r2']:.6f} | {r['sec']:.3f} |")
    s = summary(rows)
    if s["n"]:
        print(f"\n**Total ({s['n']} problems)**: exact {s['exact']}/{s['n']}, R^2 > 0.99 {s['r2_99']}/{s['n']}, "
              f"R^2 > 0.999 {s['r2_999']}/{s['n']}, median R^2 {s['median_r2']:.4f}, median R^2 beyond the range "
              f"{s['median_beyond']:.4f}, seconds per problem: "
              f"median {s['median_sec']:.3f}, mean {s['mean_sec']:.3f}, max {s['max_sec']:.3f}")


def run_corpus(corpus, model, ks, n, seed, opts):
    """Held-out generated formulas: exact recovery and R^2 on 1,000 fresh points drawn in
    each data set's own range."""
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ks}
    basis = corpus.basis
    for idx in range(min(n, len(corpus))):
        X, y = corpus.dataset(idx)
        tree, consts = corpus.trees[idx], corpus.constants[idx]
        lo, hi = X.min(axis=0), X.max(axis=0)
        Xt = rng.uniform(lo, hi, (1000, X.shape[1]))
        with np.errstate(all="ignore"):
            yt = evaluate(tree, basis, Xt, consts)
        if not np.all(np.isfinite(yt)):
            keep = np.isfinite(yt)
            Xt, yt = Xt[keep], yt[keep]
        true = to_sympy(tree, basis, consts)
        positive = [f"x{j + 1}" for j in range(X.shape[1]) if lo[j] >= 0]
        for k in ks:
            reg, sec = solve(model, X, y, k, seed, opts)
            Xb = beyond_box(lo, hi, 1000, np.random.default_rng([seed, idx]))
            with np.errstate(all="ignore"):
                score = r2(yt, reg.predict(Xt)) if yt.size > 10 else -np.inf
                beyond = scored_r2(evaluate(tree, basis, Xb, consts), reg.predict(Xb))[0]
            exact = is_exact_recovery(reg.expr_, true, positive, seconds=1.0)
            out[k].append({"name": str(idx), "exact": exact, "r2": score, "sec": sec, "beyond": beyond})
        if (idx + 1) % 25 == 0:
            print(f"  corpus {idx + 1}/{n}: " + ", ".join(
                f"k={k} exact {np.mean([r['exact'] for r in out[k]]):.2f} "
                f"R2>0.99 {np.mean([r['r2'] > 0.99 for r in out[k]]):.2f}" for k in ks), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True, help="1-variable StructurePredictor (.npz)")
    ap.add_argument("--model2", type=Path, default=None, help="2-variable StructurePredictor for 2-variable problems")
    ap.add_argument("--set", default="nguyen")
    ap.add_argument("--problems", nargs="*", default=None, help="default for nguyen: Nguyen-1..12 without 11")
    ap.add_argument("--top-k", type=int, nargs="+", default=[200])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--simplify-seconds", type=float, default=1.0)
    ap.add_argument("--search-rounds", type=int, default=0, help="SuperposRegressor(search_rounds=...)")
    ap.add_argument("--corpus", type=Path, default=None, help="held-out generated corpus (.npz)")
    ap.add_argument("--n-corpus", type=int, default=200)
    ap.add_argument("--threads", action="store_true", help="do not pin BLAS/numba to one core")
    args = ap.parse_args()
    opts = dict(simplify_seconds=args.simplify_seconds, search_rounds=args.search_rounds)
    if not args.threads:
        one_core()

    t = time.perf_counter()
    models = {1: load_predictor(args.model)}
    if args.model2 is not None:
        models[2] = load_predictor(args.model2)
    load_s = time.perf_counter() - t
    names = args.problems if args.problems else (NGUYEN if args.set == "nguyen" else None)
    problems = [p for p in load_problems(args.set, names=names)]
    t = time.perf_counter()
    for m, model in models.items():  # warm-up: numba compilation and first-call costs
        Xw = np.linspace(0.1, 1.0, 20)[:, None] * np.ones((1, m))
        for k in args.top_k:
            solve(model, Xw, np.sin(Xw).sum(axis=1), k, 0, opts)
    warm_s = time.perf_counter() - t
    print(f"# Recovery benchmark: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"BLAS/numba threads {'free' if args.threads else 1}")
    print(f"models: {args.model}" + (f", {args.model2}" if args.model2 else "") +
          f"; loading {load_s:.2f} s, warm-up fit {warm_s:.2f} s (both excluded from the per-problem seconds)\n")

    rows = run_problems(problems, models, args.top_k, args.seed, opts)
    for k in args.top_k:
        print_problem_table(rows[k], k)
    if len(args.top_k) > 1:
        print("\n### top_k comparison on the problems\n")
        print("| top_k | exact | R^2 > 0.99 | R^2 > 0.999 | median s | mean s |")
        print("|---|---|---|---|---|---|")
        for k in args.top_k:
            s = summary(rows[k])
            print(f"| {k} | {s['exact']}/{s['n']} | {s['r2_99']}/{s['n']} | {s['r2_999']}/{s['n']} | "
                  f"{s['median_sec']:.3f} | {s['mean_sec']:.3f} |")

    if args.corpus is not None:
        corpus = Corpus.load(args.corpus)
        model = models.get(corpus.basis.n_variables, models[1])
        print(f"\n### Held-out generated formulas: first {args.n_corpus} of {args.corpus.name} "
              f"({corpus.basis.n_variables} variable(s))\n")
        out = run_corpus(corpus, model, args.top_k, args.n_corpus, args.seed, opts)
        print("\n| top_k | exact | R^2 > 0.99 | R^2 > 0.999 | median R^2 | median s | mean s |")
        print("|---|---|---|---|---|---|---|")
        for k in args.top_k:
            s = summary(out[k])
            print(f"| {k} | {s['exact'] / s['n']:.3f} | {s['r2_99'] / s['n']:.3f} | {s['r2_999'] / s['n']:.3f} | "
                  f"{s['median_r2']:.4f} | {s['median_sec']:.3f} | {s['mean_sec']:.3f} |")


if __name__ == "__main__":
    main()

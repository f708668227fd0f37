"""Real measured data that ship offline inside PyPI packages: 5-fold cross-validated R^2 of
superpos, pyoperon (the budget of benchmarks/side_by_side.py: population 1000, 1e6
evaluations, one thread) and ordinary linear regression on the same folds.

Data (statsmodels' own data sets and scikit-learn's; none from R's base `datasets` package):
Engel's food expenditure, strike durations, Grunfeld's investment, the US consumption
function (macrodata), Linnerud's weights, world copper consumption, capital punishment,
the Scottish parliament vote, House committee bills, US state murder rates, diabetes
progression. R^2 is computed on the pooled out-of-fold predictions. superpos refuses data
with more than the shipped model's 3 inputs (the many-inputs issue); such rows say so.

    pip install ".[bench]" statsmodels
    python benchmarks/real_data.py [--methods superpos linear pyoperon]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def datasets() -> dict:
    """name -> (X, y, input names, target name)."""
    import statsmodels.api as sm
    from sklearn.datasets import load_diabetes, load_linnerud

    def sm_data(name, target, inputs):
        d = getattr(sm.datasets, name).load_pandas().data.dropna()
        return d[inputs].to_numpy(float), d[target].to_numpy(float), inputs, target

    out = {
        "engel (food ~ income)": sm_data("engel", "foodexp", ["income"]),
        "strikes (duration ~ production)": sm_data("strikes", "duration", ["iprod"]),
        "grunfeld (investment)": sm_data("grunfeld", "invest", ["value", "capital"]),
        "macrodata (consumption ~ income)": sm_data("macrodata", "realcons", ["realdpi"]),
        "copper (world consumption)": sm_data("copper", "WORLDCONSUMPTION",
                                              ["COPPERPRICE", "INCOMEINDEX", "ALUMPRICE", "INVENTORYINDEX", "TIME"]),
        "cpunish (executions)": sm_data("cpunish", "EXECUTIONS",
                                        ["INCOME", "PERPOVERTY", "PERBLACK", "VC100k96", "SOUTH", "DEGREE"]),
        "scotland (yes vote)": sm_data("scotland", "YES", ["COUTAX", "UNEMPF", "MOR", "ACT", "GDP", "AGE",
                                                          "COUTAX_FEMALEUNEMP"]),
        "committee (bills)": sm_data("committee", "BILLS104", ["SIZE", "SUBS", "STAFF", "PRESTIGE", "BILLS103"]),
        "statecrime (murder)": sm_data("statecrime", "murder", ["hs_grad", "poverty", "single", "white", "urban"]),
    }
    lin = load_linnerud()
    out["linnerud (weight ~ exercise)"] = (lin.data.astype(float), lin.target[:, 0].astype(float),
                                           list(lin.feature_names), "Weight")
    dia = load_diabetes()
    out["diabetes (progression)"] = (dia.data, dia.target.astype(float), list(dia.feature_names), "progression")
    return out


def fit_predict(method: str, Xtr, ytr, Xte, seed: int):
    if method == "linear":
        from sklearn.linear_model import LinearRegression

        return LinearRegression().fit(Xtr, ytr).predict(Xte)
    if method == "pyoperon":
        from pyoperon.sklearn import SymbolicRegressor

        est = SymbolicRegressor(population_size=1000, max_evaluations=1_000_000, n_threads=1, random_state=seed)
        return est.fit(Xtr, ytr).predict(Xte)
    from superpos import SuperposRegressor

    return SuperposRegressor(random_state=seed).fit(Xtr, ytr).predict(Xte)


def cv_r2(method: str, X, y, folds: int, seed: int) -> tuple[float, float]:
    """(pooled out-of-fold R^2, seconds per fit); nan when the method refuses the data."""
    from sklearn.model_selection import KFold

    pred = np.empty_like(y)
    t = time.perf_counter()
    for tr, te in KFold(folds, shuffle=True, random_state=seed).split(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                pred[te] = fit_predict(method, X[tr], y[tr], X[te], seed)
            except ValueError as exc:  # SuperposError is a ValueError: e.g. too many inputs
                return float("nan"), str(exc)[:60]
    sec = (time.perf_counter() - t) / folds
    with np.errstate(all="ignore"):
        ok = np.isfinite(pred)
        r2 = 1 - np.sum((y - np.where(ok, pred, np.mean(y))) ** 2) / np.sum((y - y.mean()) ** 2)
    return float(r2), sec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["superpos", "linear", "pyoperon"])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = []
    for name, (X, y, inputs, target) in datasets().items():
        res = {m: cv_r2(m, X, y, args.folds, args.seed) for m in args.methods}
        formula = ""
        if "superpos" in args.methods and np.isfinite(res["superpos"][0]):
            import pandas as pd

            from superpos import SuperposRegressor

            formula = str(SuperposRegressor(random_state=args.seed).fit(pd.DataFrame(X, columns=inputs), y).expr_)
        rows.append((name, X.shape, res, formula))
        cells = " | ".join(f"{r[0]:.3f}" if np.isfinite(r[0]) else "refused" for r in res.values())
        print(f"{name}: n={X.shape[0]} m={X.shape[1]} | {cells} | {formula}", flush=True)
    print("\n| data | n | inputs | " + " | ".join(f"{m} R^2" for m in args.methods) + " | superpos within 0.02 of the best "
          "| superpos formula (all points) |")
    print("|---|---:|---:|" + "---:|" * len(args.methods) + "---|---|")
    within = 0
    for name, shape, res, formula in rows:
        scores = {m: r[0] for m, r in res.items()}
        best = max(v for v in scores.values() if np.isfinite(v))
        ok = "superpos" in scores and np.isfinite(scores["superpos"]) and scores["superpos"] >= best - 0.02
        within += ok
        cells = " | ".join(f"{v:.3f}" if np.isfinite(v) else "refused" for v in scores.values())
        print(f"| {name} | {shape[0]} | {shape[1]} | {cells} | {'yes' if ok else 'no'} | `{formula}` |")
    print(f"\nsuperpos within 0.02 of the best on {within} of {len(rows)} data sets")


if __name__ == "__main__":
    main()

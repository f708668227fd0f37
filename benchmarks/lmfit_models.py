"""Which of lmfit's built-in one-input models superpos recovers (issue 25). Needs lmfit
(``pip install lmfit``: the models' own functions make the data).

Each model is evaluated by lmfit at parameters of at most 3 significant digits on 200 points
(seed 0) of a range that shows its shape; ``find_formula`` with the default settings (the
shipped model) finds the formula. Per model: **recovered** when the formula is ``exact`` and
equals the model on 1,000 fresh points of the range to a relative 1e-6 (the same function,
whatever the form), the family superpos names, R^2 beyond the range (each end widened by a
quarter), the seconds and the formula shown.

    python benchmarks/lmfit_models.py
"""
from __future__ import annotations

import os
import time
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

# (lmfit model class, its options, parameters, x range)
MODELS = [
    ("ConstantModel", {}, {"c": 2.5}, (0, 10)),
    ("LinearModel", {}, {"slope": 1.3, "intercept": -0.4}, (0, 10)),
    ("QuadraticModel", {}, {"a": 0.25, "b": -1.2, "c": 3.0}, (-5, 5)),
    ("ExponentialModel", {}, {"amplitude": 4.2, "decay": 2.5}, (0, 10)),
    ("PowerLawModel", {}, {"amplitude": 2.5, "exponent": 0.45}, (0.1, 100)),
    ("GaussianModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.6}, (1, 8)),
    ("LorentzianModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.6}, (1, 8)),
    ("SplitLorentzianModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.6, "sigma_r": 1.1}, (1, 8)),
    ("VoigtModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.5, "gamma": 0.3}, (1, 8)),
    ("PseudoVoigtModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.5, "fraction": 0.4}, (1, 8)),
    ("MoffatModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8, "beta": 1.5}, (1, 8)),
    ("Pearson4Model", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8, "expon": 1.5, "skew": 0.5}, (1, 8)),
    ("Pearson7Model", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8, "expon": 1.5}, (1, 8)),
    ("StudentsTModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8}, (1, 8)),
    ("BreitWignerModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8, "q": 2.0}, (1, 8)),
    ("LognormalModel", {}, {"amplitude": 3.0, "center": 0.5, "sigma": 0.4}, (0.2, 6)),
    ("DampedOscillatorModel", {}, {"amplitude": 2.0, "center": 3.0, "sigma": 0.2}, (0.5, 6)),
    ("DampedHarmonicOscillatorModel", {}, {"amplitude": 2.0, "center": 3.0, "sigma": 0.4, "gamma": 1.0}, (0.5, 6)),
    ("ExponentialGaussianModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.6, "gamma": 0.7}, (1, 10)),
    ("SkewedGaussianModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.8, "gamma": 2.0}, (1, 8)),
    ("SkewedVoigtModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.5, "gamma": 0.3, "skew": 1.5}, (1, 8)),
    ("ThermalDistributionModel", {"form": "bose"}, {"amplitude": 1.5, "center": 0.0, "kt": 0.8}, (0.1, 5)),
    ("ThermalDistributionModel", {"form": "maxwell"}, {"amplitude": 1.5, "center": 0.0, "kt": 0.8}, (0.1, 5)),
    ("ThermalDistributionModel", {"form": "fermi"}, {"amplitude": 1.5, "center": 2.0, "kt": 0.3}, (0, 5)),
    ("DoniachModel", {}, {"amplitude": 3.0, "center": 4.2, "sigma": 0.6, "gamma": 0.2}, (1, 8)),
    ("StepModel", {"form": "linear"}, {"amplitude": 2.5, "center": 3.0, "sigma": 1.5}, (0, 8)),
    ("StepModel", {"form": "arctan"}, {"amplitude": 2.5, "center": 3.0, "sigma": 0.7}, (0, 8)),
    ("StepModel", {"form": "erf"}, {"amplitude": 2.5, "center": 3.0, "sigma": 0.7}, (0, 8)),
    ("StepModel", {"form": "logistic"}, {"amplitude": 2.5, "center": 3.0, "sigma": 0.7}, (0, 8)),
    ("RectangleModel", {"form": "erf"}, {"amplitude": 2.5, "center1": 2.0, "sigma1": 0.4, "center2": 6.0,
                                         "sigma2": 0.6}, (0, 8)),
    ("RectangleModel", {"form": "logistic"}, {"amplitude": 2.5, "center1": 2.0, "sigma1": 0.4, "center2": 6.0,
                                              "sigma2": 0.6}, (0, 8)),
    ("SineModel", {}, {"amplitude": 1.5, "frequency": 2.2, "shift": 0.6}, (0, 10)),
]


def main() -> None:
    import lmfit

    from superpos.datasets.problems import scored_r2
    from superpos.symreg.pipeline import find_formula

    rng = np.random.default_rng(0)
    rows = []
    for name, opts, params, (lo, hi) in MODELS:
        model = getattr(lmfit.models, name)(**opts)
        pars = model.make_params(**params)
        x = rng.uniform(lo, hi, 200)
        xf = np.random.default_rng(1).uniform(lo, hi, 1000)
        span = hi - lo
        xb = np.random.default_rng(2).uniform(lo - span / 4, hi + span / 4, 1000)
        xb = xb[(xb < lo) | (xb > hi)]
        if lo >= 0 and name in ("PowerLawModel", "LognormalModel", "ThermalDistributionModel"):
            xb = xb[xb > 0]
        y, yf, yb = (np.asarray(model.eval(pars, x=v), dtype=float) for v in (x, xf, xb))
        label = name + (f"({opts['form']})" if opts else "")
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = find_formula(x[:, None], y, None)
        sec = time.perf_counter() - t
        with np.errstate(all="ignore"):
            pf = f.predict(xf[:, None])
            same = bool(np.all(np.abs(pf - yf) <= 1e-6 * np.maximum(np.abs(yf), 1e-3 * np.max(np.abs(yf)))))
            beyond = scored_r2(yb, f.predict(xb[:, None]))[0]
        rec = f.status == "exact" and same
        rows.append((label, rec, f.status, f.family or "-", beyond, sec, f.shown()))
        print(f"{label:36s} recovered={int(rec)} {f.status:13s} {f.family or '-':18s} beyond={beyond:8.4f} "
              f"{sec:5.2f}s {f.shown()[:100]}", flush=True)
    print()
    print("| lmfit model | recovered | status | family | R^2 beyond | s | formula |")
    print("|---|:---:|---|---|---:|---:|---|")
    for label, rec, st, fam, beyond, sec, text in rows:
        print(f"| {label} | {'yes' if rec else 'no'} | {st} | {fam} | {beyond:.4f} | {sec:.2f} | `{text[:80]}` |")
    print(f"\nrecovered {sum(r[1] for r in rows)} of {len(rows)}")


if __name__ == "__main__":
    main()

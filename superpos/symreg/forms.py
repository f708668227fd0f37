"""The textbook forms of the lab's curve families (:mod:`.families`): for each form, its
parameters from the constants of the family's tree (``*_params``: None where the constants do
not make that form, a Gaussian needs a negative curvature), its text (``*_text``: the formula
as a scientist writes it, numbers written short by :mod:`.notation`) and, where the tree's
constants do not follow directly, the inverse (``*_inverse``) that snapping maps back through."""
from __future__ import annotations

import math

from ..core.constants import pi_multiple
from .notation import plus, power, shifted, shortest, times


def gaussian_params(c):
    d, a, q, m = c
    return None if q >= 0 else {"amplitude": a, "center": -m, "sigma": math.sqrt(-1 / (2 * q)), "offset": d}


def gaussian_text(p, x):
    return plus(times(p["amplitude"], f"exp(-{shifted(x, p['center'])}**2/(2*{shortest(p['sigma'])}**2))"),
                 p["offset"])


def gaussian_width_params(c):
    d, a, q, m = c
    return None if q >= 0 else {"amplitude": a, "center": -m, "width": math.sqrt(-1 / q), "offset": d}


def gaussian_width_text(p, x):
    """A exp(-((x - c)/w)^2) + d, w = sigma sqrt(2): a Gaussian decay (of a spin echo, a beam's profile)."""
    return plus(times(p["amplitude"], f"exp(-({shifted(x, p['center'])}/{shortest(p['width'])})**2)"), p["offset"])


def exponential_params(c):
    d, a, nk = c if len(c) == 3 else (0.0, *c)
    return {"A": a, "k": -nk, "offset": d}


def exponential_text(p, x):
    return plus(times(p["A"], f"exp({times(-p['k'], x)})"), p["offset"])


def exponential_tau_params(c):
    d, a, nk = c if len(c) == 3 else (0.0, *c)
    return None if nk == 0 else {"A": a, "tau": -1 / nk, "offset": d}


def exponential_tau_text(p, x):
    tau = p["tau"]
    return plus(times(p["A"], f"exp(-{x}/{shortest(tau)})" if tau > 0 else f"exp({x}/{shortest(-tau)})"), p["offset"])


def antoine_params(c):
    """10^(A - B/(C + x)) from the tree's a exp(b / (x + m)): A = log10 a, B = -b / ln 10, C = m."""
    a, b, m = c
    return None if a <= 0 else {"A": math.log10(a), "B": -b / math.log(10), "C": m}


def antoine_text(p, x):
    return f"10**({shortest(p['A'])} - {shortest(p['B'])}/({x} + {shortest(p['C'])}))".replace("+ -", "- ").replace("- -", "+ ")


def lorentzian_params(c):
    d, a, g, m = c
    return None if g <= 0 else {"amplitude": a / g, "center": -m, "gamma": math.sqrt(g), "offset": d}


def lorentzian_text(p, x):
    return plus(f"{shortest(p['amplitude'])}/(1 + {shifted(x, p['center'])}**2/{shortest(p['gamma'])}**2)",
                 p["offset"])


def lorentzian_raw_params(c):
    d, a, g, m = c
    return {"a": a, "g": g, "center": -m, "offset": d}


def lorentzian_raw_text(p, x):
    return plus(f"{shortest(p['a'])}/({shifted(x, p['center'])}**2 + {shortest(p['g'])})".replace("+ -", "- "),
                 p["offset"])


def voigt_params(c):
    d, a, g, m1, b, q, m2 = c
    if g <= 0 or q >= 0:
        return None
    return {"lorentz_amplitude": a / g, "lorentz_center": -m1, "gamma": math.sqrt(g),
            "gauss_amplitude": b, "gauss_center": -m2, "sigma": math.sqrt(-1 / (2 * q)), "offset": d}


def voigt_text(p, x):
    lor = f"{shortest(p['lorentz_amplitude'])}/(1 + {shifted(x, p['lorentz_center'])}**2/{shortest(p['gamma'])}**2)"
    gau = times(p["gauss_amplitude"], f"exp(-{shifted(x, p['gauss_center'])}**2/(2*{shortest(p['sigma'])}**2))")
    return plus(f"{lor} + {gau}".replace("+ -", "- "), p["offset"])


def _odd(c):
    """(d, a, k, m) of d + a f(k (x + m)) for an odd f, with k > 0 (f(-u) = -f(u))."""
    d, a, k, m = c
    return (d, -a, -k, m) if k < 0 else (d, a, k, m)


def logistic_params(c):
    d, a, k, m = _odd(c)
    return {"L": 2 * a, "k": 2 * k, "x0": -m, "offset": d - a}


def logistic_text(p, x):
    return plus(f"{shortest(p['L'])}/(1 + exp({times(-p['k'], shifted(x, p['x0']))}))", p["offset"])


def logistic_b_params(c):
    d, a, k, m = _odd(c)
    if abs(2 * k * m) > 700:
        return None
    return {"L": 2 * a, "B": math.exp(-2 * k * m), "k": 2 * k, "offset": d - a}


def logistic_b_text(p, x):
    return plus(f"{shortest(p['L'])}/(1 + {times(p['B'], 'exp(' + times(-p['k'], x) + ')')})", p["offset"])


def tanh_params(c):
    d, a, k, m = _odd(c)
    return {"amplitude": a, "k": k, "x0": -m, "offset": d}


def tanh_text(p, x):
    return plus(times(p["amplitude"], f"tanh({times(p['k'], shifted(x, p['x0']))})"), p["offset"])


def erf_params(c):
    d, a, k, m = _odd(c)
    return {"amplitude": a, "center": -m, "sigma": 1 / (math.sqrt(2) * abs(k)) if k else math.inf, "k": k,
            "offset": d}


def erf_text(p, x):
    return plus(times(p["amplitude"], f"erf({times(p['k'], shifted(x, p['center']))})"), p["offset"])


def gompertz_params(c):
    d, a, nb, nk = c
    return {"A": a, "b": -nb, "k": -nk, "offset": d}


def gompertz_text(p, x):
    return plus(times(p["A"], f"exp({times(-p['b'], 'exp(' + times(-p['k'], x) + ')')})"), p["offset"])


def richards_params(c):
    d, a, pw, b, q = c
    if b <= 0 or pw == 0:
        return None
    return {"L": a * b**pw, "nu": -1 / pw, "B": 1 / b, "k": -q, "offset": d}


def richards_text(p, x):
    inner = f"(1 + {times(p['B'], 'exp(' + times(-p['k'], x) + ')')})"
    return plus(times(p["L"], power(inner, -1 / p["nu"])), p["offset"])


def richards_x0_params(c):
    d, a, pw, b, q = c
    if b <= 0 or pw == 0 or q == 0 or (-1 / pw) <= 0:
        return None
    nu = -1 / pw
    return {"L": a * b**pw, "nu": nu, "k": -q, "x0": math.log(1 / (b * nu)) / -q, "offset": d}


def richards_x0_text(p, x):
    inner = f"(1 + {times(p['nu'], 'exp(' + times(-p['k'], shifted(x, p['x0'])) + ')')})"
    return plus(f"{shortest(p['L'])}/{power(inner, 1 / p['nu'])}", p["offset"])


def hill_params(c):
    d, a, g, n = c
    if g == 0:
        return None
    return {"top": -a / g, "bottom": d + a / g, "K": g, "n": n}


def hill_text(p, x):
    xn = power(x, p["n"])
    return plus(times(p["top"], f"{xn}/({shortest(p['K'])} + {xn})"), p["bottom"])


def hill_ec50_params(c):
    d, a, g, n = c
    if g <= 0 or n == 0:
        return None
    return {"top": -a / g, "bottom": d + a / g, "ec50": g ** (1 / n), "n": n}


def hill_ec50_text(p, x):
    xn = power(x, p["n"])
    return plus(times(p["top"], f"{xn}/({power(shortest(p['ec50']), p['n'])} + {xn})"), p["bottom"])


def four_pl_params(c):
    d, a, g, n = c
    return None if g == 0 else {"bottom": d, "span": a / g, "b": 1 / g, "n": n}


def four_pl_text(p, x):
    return plus(f"{shortest(p['span'])}/(1 + {times(p['b'], power(x, p['n']))})", p["bottom"])


def damped_params(c, positive: bool = True):
    d, a, ng, w, ph = c
    if w < 0:  # cos(-u) = cos(u)
        w, ph = -w, -ph
    if a < 0 and positive:  # -cos(u) = cos(u + pi)
        a, ph = -a, ph + math.pi
    ph = ph - 2 * math.pi * round(ph / (2 * math.pi))
    return {"A": a, "gamma": -ng, "omega": w, "phase": ph, "offset": d}


def damped_signed_params(c):
    return damped_params(c, positive=False)


def damped_text(p, x, wave: str = "cos"):
    decay = f"exp({times(-p['gamma'], x)})*" if shortest(p["gamma"]) != "0" else ""
    wx = times(p["omega"], x)
    ph = pi_multiple(p["phase"], 1e-9) if p["phase"] else None
    phase = plus(wx, p["phase"]) if ph is None else f"{wx} - {-ph}" if ph.could_extract_minus_sign() else f"{wx} + {ph}"
    return plus(times(p["A"], f"{decay}{wave}({phase})"), p["offset"])


def damped_sin_params(c):
    """The damped oscillation with a sine, A e^(-g x) sin(w x + p) + d: the cosine's phase plus pi/2."""
    p = damped_params(c)
    ph = p["phase"] + math.pi / 2
    return {**p, "phase": ph - 2 * math.pi * round(ph / (2 * math.pi))}


def damped_sin_text(p, x):
    return damped_text(p, x, "sin")


def lognormal_params(c):
    """A/x exp(-(log x - mu)^2 / (2 sigma^2)) + d from the tree's d + a exp(q (log x + m)^2): the
    1/x is the square completed, mu = -m + sigma^2, A = a exp(mu - sigma^2 / 2)."""
    d, a, q, m = c
    if q >= 0:
        return None
    s2 = -1 / (2 * q)
    mu = -m + s2
    if abs(mu - s2 / 2) > 700:
        return None
    return {"amplitude": a * math.exp(mu - s2 / 2), "mu": mu, "sigma": math.sqrt(s2), "offset": d}


def lognormal_text(p, x):
    body = f"exp(-{shifted('log(' + x + ')', p['mu'])}**2/(2*{shortest(p['sigma'])}**2))/{x}"
    return plus(times(p["amplitude"], body), p["offset"])


def lognormal_inverse(p):
    s2 = p["sigma"] ** 2
    return [p["offset"], p["amplitude"] * math.exp(-p["mu"] + s2 / 2), -1 / (2 * s2), -(p["mu"] - s2)]


def log_gaussian_params(c):
    """The Gaussian's parameters in log x, its center called mu."""
    p = gaussian_params(c)
    return None if p is None else {"amplitude": p["amplitude"], "mu": p["center"], "sigma": p["sigma"], "offset": p["offset"]}


def log_gaussian_text(p, x):
    return gaussian_text({**p, "center": p["mu"]}, f"log({x})")


def stretched_params(c):
    """A exp(-(x/tau)^beta) + d from the tree's d + a exp(nb x^beta): tau = (-nb)^(-1/beta)."""
    d, a, nb, beta = c
    if nb >= 0 or beta == 0:
        return None
    return {"A": a, "tau": (-nb) ** (-1 / beta), "beta": beta, "offset": d}


def stretched_text(p, x):
    return plus(times(p["A"], f"exp(-{power('(' + x + '/' + shortest(p['tau']) + ')', p['beta'])})"), p["offset"])


def stretched_b_params(c):
    d, a, nb, beta = c
    return None if nb >= 0 else {"A": a, "b": -nb, "beta": beta, "offset": d}


def stretched_b_text(p, x):
    return plus(times(p["A"], f"exp({times(-p['b'], power(x, p['beta']))})"), p["offset"])


def power_offset_params(c):
    d, a, b = c
    return {"A": a, "exponent": b, "offset": d}


def power_offset_text(p, x):
    return plus(times(p["A"], power(x, p["exponent"])), p["offset"])


def biexponential_params(c):
    """A1 exp(-k1 x) + A2 exp(-k2 x), the fast phase first (k1 > k2)."""
    a1, n1, a2, n2 = c
    if -n1 < -n2:
        a1, n1, a2, n2 = a2, n2, a1, n1
    return {"A1": a1, "k1": -n1, "A2": a2, "k2": -n2}


def biexponential_text(p, x):
    return f"{times(p['A1'], 'exp(' + times(-p['k1'], x) + ')')} + {times(p['A2'], 'exp(' + times(-p['k2'], x) + ')')}" \
        .replace("+ -", "- ")

"""Start constants of the lab's curve families (:mod:`.families`), estimated from the data:
peak position, height and full width at half maximum; plateaus, midpoint and 10-90 % width of
a step; the half-effect point of a dose-response curve; the strongest frequencies of a
periodogram of unevenly spaced x (numpy only: nothing new on the command line's path). Each
``*_starts(x, y)`` returns start vectors in its template's prefix order of constants."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["gaussian_starts", "lorentzian_starts", "voigt_starts", "tanh_starts", "erf_starts", "gompertz_starts", "richards_starts", "hill_starts", "damped_starts",
           "lognormal_starts", "stretched_starts", "power_offset_starts", "on_slope",
           "biexponential_starts"]


def _sorted_smooth(x, y):
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    k = max(1, xs.size // 25)
    if k > 1:
        ys = np.convolve(np.pad(ys, k, mode="edge"), np.ones(2 * k + 1) / (2 * k + 1), mode="valid")
    return xs, ys


def _crossing(xs, ys, level) -> float:
    """The first x where the (sorted, smoothed) curve crosses ``level``; the middle x if none."""
    s = np.sign(ys - level)
    idx = np.flatnonzero(s[:-1] * s[1:] <= 0)
    if not idx.size:
        return float(xs[xs.size // 2])
    i = idx[0]
    dy = ys[i + 1] - ys[i]
    t = 0.5 if dy == 0 else (level - ys[i]) / dy
    return float(xs[i] + t * (xs[i + 1] - xs[i]))


def _peaks(x, y):
    """(base, amplitude, centre, full width at half maximum) for a peak and for a dip."""
    xs, ys = _sorted_smooth(x, y)
    span = max(float(np.ptp(xs)), 1e-300)
    out = []
    for sign in (1.0, -1.0):
        z = sign * ys
        base = float(np.percentile(z, 5))
        i = int(np.argmax(z))
        amp = float(z[i] - base)
        if amp <= 0:
            continue
        half = base + amp / 2
        left = np.flatnonzero(z[:i + 1] < half)
        right = np.flatnonzero(z[i:] < half)
        xl = xs[left[-1]] if left.size else xs[0] - (xs[i] - xs[0])
        xr = xs[i + right[0]] if right.size else xs[-1] + (xs[-1] - xs[i])
        fwhm = max(float(xr - xl), span / xs.size)
        out.append((sign * base, sign * amp, float(xs[i]), fwhm))
    return out


def gaussian_starts(x, y):
    return [np.array([b, a, -4 * math.log(2) / (f * s) ** 2, -c]) for b, a, c, f in _peaks(x, y) for s in (1.0, 0.5)]


def lorentzian_starts(x, y):
    out = []
    for b, a, c, f in _peaks(x, y):
        for s in (1.0, 0.5):
            g = (f * s / 2) ** 2
            out.append(np.array([b, a * g, g, -c]))
    return out


def voigt_starts(x, y):
    out = []
    for b, a, c, f in _peaks(x, y):
        g = (f / 2) ** 2
        out.append(np.array([b, 0.5 * a * g, g, -c, 0.5 * a, -4 * math.log(2) / f**2, -c]))
    return out


def _step(x, y):
    """(low, high, midpoint, 10-90 % width, direction) of a step or growth curve."""
    xs, ys = _sorted_smooth(x, y)
    lo, hi = float(np.min(ys)), float(np.max(ys))
    rising = 1.0 if np.mean(ys[-max(1, ys.size // 10):]) >= np.mean(ys[:max(1, ys.size // 10)]) else -1.0
    z = ys if rising > 0 else -ys
    a, b = (lo, hi) if rising > 0 else (-hi, -lo)
    mid = _crossing(xs, z, (a + b) / 2)
    width = abs(_crossing(xs, z, a + 0.9 * (b - a)) - _crossing(xs, z, a + 0.1 * (b - a)))
    return lo, hi, mid, max(width, float(np.ptp(xs)) / 50), rising


def tanh_starts(x, y):
    lo, hi, mid, w, s = _step(x, y)
    return [np.array([(lo + hi) / 2, s * (hi - lo) / 2, k * 2.197 / w, -mid]) for k in (1.0, 0.3, 3.0)]


def erf_starts(x, y):
    lo, hi, mid, w, s = _step(x, y)
    return [np.array([(lo + hi) / 2, s * (hi - lo) / 2, k * 1.812 / w, -mid]) for k in (1.0, 0.3, 3.0)]


def gompertz_starts(x, y):
    """d + A exp(-b exp(-k x)): A the plateau, the inflection (y = A / e) at ln(b) / k."""
    xs, ys = _sorted_smooth(x, y)
    lo, hi, _, w, s = _step(x, y)
    out = []
    for d in (0.0, lo) if s > 0 else (0.0, hi):
        amp = (hi - d) if s > 0 else (lo - d)
        if amp == 0:
            continue
        x0 = _crossing(xs, ys, d + amp / math.e)
        for m in (1.0, 0.5, 2.0):
            k = s * m * 3.084 / w
            b = math.exp(min(max(k * x0, -700), 700))
            out.append(np.array([d, amp, -b, -k]))
    return out


def richards_starts(x, y):
    """d + A |b + exp(q x)|^p (constants d, A, p, b, q): the logistic at p = -1 (q = -k, b = e^(q x0), A = L b^(-p))."""
    lo, hi, mid, w, s = _step(x, y)
    out = []
    for p in (-1.0, -2.0, -0.5):
        q = -s * 4.394 / w
        b = np.exp(np.clip(q * mid, -700, 700))
        out.append(np.array([lo, (hi - lo) * b ** (-p), p, b, q]))
    return out


def hill_starts(x, y):
    """d + a / (g + |x|^n): top d (large x), bottom d + a / g (small x), g = x50^n."""
    if not (np.all(x > 0) or np.all(x < 0)):
        return []
    ax = np.abs(x)
    xs, ys = _sorted_smooth(np.log(ax), y)
    k = max(1, ys.size // 10)
    y_small, y_large = float(np.mean(ys[:k])), float(np.mean(ys[-k:]))
    x50 = math.exp(_crossing(xs, ys, (y_small + y_large) / 2))
    out = []
    for n in (1.0, 2.0, 4.0):
        g = x50**n
        out.append(np.array([y_large, (y_small - y_large) * g, g, n]))
    return out


def _periodogram(x, y, top: int = 3) -> list[tuple[float, float, float]]:
    """(omega, amplitude, phase) of the ``top`` strongest frequencies of y - mean(y) on unevenly
    spaced x: |sum (y - ybar) e^(-i omega x)|, omega up to the mean spacing's Nyquist frequency."""
    span = float(np.ptp(x))
    if span <= 0 or x.size < 8:
        return []
    r = y - np.mean(y)
    omegas = np.linspace(0.5, x.size / 2, 4 * x.size) * (2 * math.pi / span)
    S = np.exp(-1j * np.outer(omegas, x)) @ r
    power = np.abs(S)
    out = []
    for i in np.argsort(-power):
        if all(abs(omegas[i] - o) > 2 * math.pi / span for o, _, _ in out):
            out.append((float(omegas[i]), float(2 * power[i] / x.size), float(np.angle(S[i]))))
        if len(out) >= top:
            break
    return out


def damped_starts(x, y):
    span = max(float(np.ptp(x)), 1e-300)
    out = []
    for w, amp, phase in _periodogram(x, y):
        for g in (0.0, 1.0 / span, 4.0 / span):
            a = amp * math.exp(min(g * float(np.min(x)), 700)) * (1 + g * span / 2)
            out.append(np.array([float(np.mean(y)), a, -g, w, phase]))
    return out


def lognormal_starts(x, y):
    """d + a exp(q (log x + m)^2): a Gaussian's starts in log x (none where x is not positive)."""
    return gaussian_starts(np.log(x), y) if np.all(x > 0) else []


def stretched_starts(x, y):
    """d + a exp(-b x^beta) (constants d, a, -b, beta), x > 0: the plateau at large x d, the
    value at x -> 0 d + a, b from the x where y is halfway (b x_half^beta = log 2), beta 0.5-2;
    and the first two of a Gompertz curve's starts in log x."""
    if not np.all(x > 0):
        return []
    xs, ys = _sorted_smooth(x, y)
    k = max(1, ys.size // 10)
    first, last = float(np.mean(ys[:k])), float(np.mean(ys[-k:]))
    x_half = max(_crossing(xs, ys, (first + last) / 2), float(xs[0]), 1e-300)
    out = [np.array([last, first - last, -math.log(2) / x_half**beta, beta]) for beta in (1.0, 0.5, 2.0)]
    return out + gompertz_starts(np.log(x), y)[:2]


def power_offset_starts(x, y):
    """d + a x^b (constants d, a, b), x > 0: for b in -2..2, d and a by least squares on [1, x^b]."""
    if not np.all(x > 0):
        return []
    out = []
    for b in (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0):
        with np.errstate(all="ignore"):
            A = np.column_stack([np.ones_like(x), x**b])
            if not np.all(np.isfinite(A)):
                continue
            (d, a), *_ = np.linalg.lstsq(A, y, rcond=None)
        out.append(np.array([d, a, b]))
    return out


def on_slope(starts, limit: int):
    """Starts of ``slope x + f(x)`` from f's (the first ``limit``): the slope of the line through
    the means of the first and last tenth of the sorted points (a peak or an oscillation on a
    sloping baseline), f's starts on y less that line."""
    def starts_on_slope(x, y):
        xs, ys = _sorted_smooth(x, y)
        k = max(1, xs.size // 10)
        dx = float(np.mean(xs[-k:]) - np.mean(xs[:k]))
        slope = float(np.mean(ys[-k:]) - np.mean(ys[:k])) / dx if dx > 0 else 0.0
        return [np.concatenate([[slope], s]) for s in starts(x, y - slope * x)[:limit]]

    return starts_on_slope


def _log_line(x, z):
    """(A, k) of A exp(-k x) through the points (x, log z) by least squares (z > 0)."""
    k, b = np.polyfit(x, np.log(z), 1)
    return math.exp(min(float(b), 700.0)), -float(k)


def biexponential_starts(x, y):
    """A1 exp(-k1 x) + A2 exp(-k2 x) (constants A1, -k1, A2, -k2) by peeling: the slow phase a
    line in log |y| over the last half of the sorted points, the fast one the same over the first
    third of what the slow phase leaves; for a decay of one sign."""
    xs, ys = _sorted_smooth(x, y)
    sign = 1.0 if np.all(ys > 0) else -1.0 if np.all(ys < 0) else 0.0
    if sign == 0 or xs.size < 12 or np.ptp(xs) <= 0:
        return []
    z = sign * ys
    half = xs.size // 2
    try:
        a2, k2 = _log_line(xs[half:], z[half:])
        head = slice(0, max(4, xs.size // 3))
        rest = z[head] - a2 * np.exp(-k2 * xs[head])
        if np.sum(rest > 0) < 3:
            return []
        a1, k1 = _log_line(xs[head][rest > 0], rest[rest > 0])
    except (ValueError, np.linalg.LinAlgError, OverflowError):
        return []
    out = [np.array([sign * a1, -k1, sign * a2, -k2])]
    return out + [np.array([sign * a1, -2 * k1, sign * a2, -k2]), np.array([sign * a1, -k1 / 2, sign * a2, -k2])]

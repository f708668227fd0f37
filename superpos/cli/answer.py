"""The fields of one data set's answer that the command line writes beside the formula: the
columns' units and kinds, what dimensional analysis says, and numbers made valid JSON."""
from __future__ import annotations

import numpy as np

__all__ = ["columns", "dimensions", "dimensions_line", "finite", "units_by_name"]


def units_by_name(units: tuple | None, names: list[str], info: dict) -> dict | None:
    """Each column's unit by name (the target's too), as the search had them; None without any."""
    if units is None:
        return None
    columns = list(names) + [info.get("target", "y")]
    return {n: u for n, u in zip(columns, units) if u is not None}


def columns(X: np.ndarray, names: list[str], units: tuple | None, used) -> list[dict]:
    """Per input column: its name, its unit (or null), whether it takes only integer values
    (a count, a quantum number) and whether the formula uses it."""
    with np.errstate(all="ignore"):
        integer = [bool(np.all(X[:, j] == np.round(X[:, j]))) for j in range(X.shape[1])]
    return [{"name": n, "unit": None if units is None else units[j], "integer": integer[j], "used": j in set(used)}
            for j, n in enumerate(names)]


def dimensions(d) -> dict | None:
    """The JSON of what dimensional analysis says (null without every column's unit)."""
    if d is None:
        return None
    return {"consistent": d.consistent, "why": d.why or None,
            "constants": [{"value": finite(c.value), "unit": c.unit, "si_dimension": c.si,
                           "si_value": finite(c.si_value), "name": c.name} for c in d.constants]}


def dimensions_line(d) -> str:
    """One line of what dimensional analysis says: whether the units agree, the constants' units."""
    if not d.consistent:
        return f"inconsistent ({d.why})"
    consts = "; ".join(f"{c.value:.6g} [{c.unit}]" + (f" = {c.name}" if c.name else "") for c in d.constants)
    return "consistent" + (f"; {consts}" if consts else "; every constant dimensionless")


def finite(v) -> float | None:
    """A number for JSON: None (null) where it is not finite, so the output is valid JSON."""
    v = float(v)
    return v if np.isfinite(v) else None

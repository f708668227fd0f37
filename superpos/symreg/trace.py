"""The trace of one search: for each context the engine entered (:mod:`.plan`) and each of its
steps, whether the proposer ran or why not, the fits it spent (its sub-searches' included), the
candidates it added and the least validation error of the pool before and after; the
sub-searches it entered nest under it. The selection then records each ordering of the
finalists and the rule that put the winner ahead of the runner-up.

It answers "why this formula and not mine?": which proposers saw the data, which were skipped
and why, where the winner came from and what chose it. It holds numbers and names only (the
formulas of the winner and runner-up as text), is deterministic for a seed (no seconds), and
is read as text (:meth:`Trace.text`) or as JSON (:meth:`Trace.to_dict`, schema
:data:`TRACE_VERSION`, described in docs/trace.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Trace", "ContextTrace", "StepTrace", "TRACE_VERSION"]

TRACE_VERSION = 1
"""The version of the JSON form; it changes when a field changes meaning or goes."""


def _number(v: float) -> float | None:
    """A float for JSON: None where it is not finite."""
    return float(v) if math.isfinite(v) else None


@dataclass
class StepTrace:
    """One step of a context: ``ran`` or ``skipped`` (the reason), ``fits`` spent, ``added``
    candidates, ``best_before`` / ``best_after`` (the least validation error of the pool,
    normalised by the variance of y), ``sub``: the contexts it entered, and ``failed``: the
    numerical failure that stopped it (its candidates dropped; empty if none)."""

    proposer: str
    ran: bool = False
    skipped: str = ""
    fits: int = 0
    added: int = 0
    best_before: float = math.inf
    best_after: float = math.inf
    sub: list = field(default_factory=list)
    failed: str = ""

    def to_dict(self) -> dict:
        out = {"proposer": self.proposer, "ran": self.ran}
        if not self.ran:
            out["skipped"] = self.skipped
            return out
        out.update(fits=self.fits, added=self.added, best_before=_number(self.best_before),
                   best_after=_number(self.best_after))
        if self.sub:
            out["sub"] = [c.to_dict() for c in self.sub]
        if self.failed:
            out["failed"] = self.failed
        return out


@dataclass
class ContextTrace:
    """One search of one context: its ``points`` and ``inputs``, the ``effort`` it was given (fits),
    its nesting ``depth`` and its steps in order."""

    context: str
    depth: int
    points: int
    inputs: int
    effort: int
    steps: list = field(default_factory=list)

    @property
    def fits(self) -> int:
        return sum(s.fits for s in self.steps)

    def to_dict(self) -> dict:
        return {"context": self.context, "depth": self.depth, "points": self.points, "inputs": self.inputs,
                "effort": self.effort, "fits": self.fits, "steps": [s.to_dict() for s in self.steps]}

    def lines(self, indent: int = 0) -> list[str]:
        pad = "  " * indent
        out = [f"{pad}[{self.context}] {self.points} points, {self.inputs} input(s), effort {self.effort} fits, "
               f"spent {self.fits}"]
        for s in self.steps:
            if not s.ran:
                out.append(f"{pad}  {s.proposer:<11s} skipped: {s.skipped}")
                continue
            out.append(f"{pad}  {s.proposer:<11s} {s.fits:>7d} fits  {s.added:>5d} added  best "
                       f"{_error(s.best_before)} -> {_error(s.best_after)}"
                       + (f"  failed: {s.failed} (its candidates dropped)" if s.failed else ""))
            for c in s.sub:
                out += c.lines(indent + 2)
        return out


def _error(e: float) -> str:
    return f"{e:.3g}" if math.isfinite(e) else "-"


@dataclass
class Trace:
    """The search's contexts (``search``, the root) and the selection: ``stages``, [(stage,
    leader)] in the order the orderings ran, ``decided_by`` (the last stage that changed the
    leader), ``candidates`` (the first of the final order, the winner first) and ``write``
    (a candidate's formula as text). Formulas are written only when the trace is read, so that
    a search that is not asked for its trace does not pay for them."""

    search: ContextTrace
    stages: list = field(default_factory=list)
    decided_by: str = ""
    candidates: list = field(default_factory=list, repr=False)
    write: object = field(default=None, repr=False)
    _written: dict = field(default_factory=dict, repr=False)

    def formula(self, c) -> str:
        if id(c) not in self._written:
            try:
                self._written[id(c)] = self.write(c)
            except Exception:  # noqa: BLE001 - reading a trace never fails
                self._written[id(c)] = "(not written)"
        return self._written[id(c)]

    def summary(self, c) -> dict:
        if c is None:
            return {}
        return {"source": c.source, "error": _number(float(c.nmse_validation)), "nodes": int(len(c.tree)),
                "formula": self.formula(c)}

    @property
    def winner(self) -> dict:
        return self.summary(self.candidates[0] if self.candidates else None)

    @property
    def runner_up(self) -> dict:
        """The first candidate after the winner that is written differently ({} where none is)."""
        if not self.candidates:
            return {}
        first = self.formula(self.candidates[0])
        return self.summary(next((c for c in self.candidates[1:] if self.formula(c) != first), None))

    def to_dict(self) -> dict:
        return {"version": TRACE_VERSION, "search": self.search.to_dict(),
                "selection": {"decided_by": self.decided_by, "winner": self.winner, "runner_up": self.runner_up,
                              "stages": [{"stage": s, "leader": c.source, "formula": self.formula(c)}
                                         for s, c in self.stages]}}

    def text(self) -> str:
        out = ["search:"] + self.search.lines(1) + ["selection:"]
        out += [f"  {s:<30s} leader {c.source}: {self.formula(c)}" for s, c in self.stages]
        for label, d in (("winner    ", self.winner), ("runner-up ", self.runner_up)):
            if d:
                out.append(f"  {label} {d['source']}: {d['formula']}  "
                           f"(error {_error(d['error'] if d['error'] is not None else math.inf)})")
        out.append(f"  decided by: {self.decided_by}")
        return "\n".join(out)

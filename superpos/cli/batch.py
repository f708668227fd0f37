"""The results file of a batch (``superpos predict runs/ -o formulas.csv``): one row per data
set, written so that nothing is lost and no two runs mix.

While a batch runs, each finished row is appended to a *journal* beside the output
(``.formulas.csv.journal``, JSON Lines), flushed row by row and held under an exclusive lock
(a second run with the same output is refused). The output itself is written once, at the
end, atomically (temporary file and rename), in the format its suffix names: ``.json`` one
JSON array, ``.jsonl`` JSON Lines, anything else CSV. An interrupted or crashed run leaves the
output as it was and the journal with its finished rows; ``--resume`` reads both, keeps only
whole, valid rows that found a formula (a line cut short by a crash, a failed row: done
again) and goes on.
"""
from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Iterable

from ..core.files import atomic_write_text, one_line
from ..exceptions import SuperposError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, the journal still protects the output
    fcntl = None

__all__ = ["FIELDS", "Journal", "batch_format", "expand_inputs", "format_rows", "is_results_file", "read_results"]

FIELDS = ("file", "formula", "status", "r2", "seconds", "error")
_HEADER = ",".join(FIELDS)
_EARLIER = ("file", "formula", "r2", "seconds", "error")
"""The fields of results written before the status column (still resumed)."""


def batch_format(output: Path | None, fmt: str | None) -> str:
    """``csv``, ``json`` or ``jsonl``: from the output's suffix, else from ``--format``
    (text means CSV); a ``--format`` that contradicts the suffix is an error."""
    asked = {None: None, "text": "csv", "csv": "csv", "json": "json", "jsonl": "jsonl"}
    if fmt not in asked:
        raise SuperposError(f"--format {fmt} is for one data set; a batch writes csv, json or jsonl")
    if output is None:
        return asked[fmt] or "csv"
    by_suffix = {".json": "json", ".jsonl": "jsonl"}.get(output.suffix.lower(), "csv")
    if asked[fmt] not in (None, by_suffix):
        raise SuperposError(f"--format {fmt} contradicts the output's name {one_line(output.name, 80)!r} "
                            f"({by_suffix}); name it .csv, .json or .jsonl, or leave --format out")
    return by_suffix


def _number(v):
    if v in ("", None):
        return None
    v = float(v)
    return v if v == v and abs(v) != float("inf") else None


def _valid(row) -> dict | None:
    """The row in its normal form, or None when it is not a whole results row."""
    if isinstance(row, dict) and set(row) == set(_EARLIER):
        row = {**row, "status": ""}
    if not isinstance(row, dict) or set(row) != set(FIELDS) or any(row[k] is None for k in ("file", "formula")):
        return None
    if row["status"] not in ("", "exact", "law", "approximation"):
        return None
    if not isinstance(row["file"], str) or not row["file"] or not isinstance(row["formula"], str):
        return None
    try:
        r2, seconds = _number(row["r2"]), _number(row["seconds"])
    except (TypeError, ValueError):
        return None
    error = row["error"] if isinstance(row["error"], str) else ("" if row["error"] is None else None)
    if error is None or seconds is None:
        return None
    return {"file": row["file"], "formula": row["formula"], "status": row["status"], "r2": r2, "seconds": seconds,
            "error": error}


def _whole_lines(text: str) -> list[str]:
    """The lines of ``text`` that end with a newline: a last line without one was cut short."""
    lines = text.split("\n")
    return [ln for ln in lines[:-1] if ln.strip()]


def _jsonl_rows(text: str) -> list[dict | None]:
    """Each whole line of JSON Lines ``text`` as a valid row, or None where it is not one."""
    rows = []
    for line in _whole_lines(text):
        try:
            rows.append(_valid(json.loads(line)))
        except json.JSONDecodeError:
            rows.append(None)
    return rows


def is_results_file(path) -> bool:
    """True when ``path`` starts like a batch's CSV results (so a folder's data sets skip it)."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    return first.decode("utf-8", "replace").strip().lstrip("\ufeff") in (_HEADER, ",".join(_EARLIER))


def read_results(path: Path, fmt: str) -> list[dict]:
    """The whole, valid rows of an earlier results file (missing: none). A file that is not a
    results file of this format is an error: ``--resume`` must not append to a data file."""
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuperposError(f"{one_line(path, 200)}: cannot read the results to resume ({exc})") from None
    not_results = SuperposError(f"{one_line(path, 200)} is not a superpos results file ({fmt}); --resume "
                                f"continues a batch's own output: give that file or another name")
    if not text.strip():
        return []
    if fmt == "json":
        try:
            rows = json.loads(text)
        except json.JSONDecodeError:
            raise not_results from None
        if not isinstance(rows, list):
            raise not_results
        return [r for r in map(_valid, rows) if r is not None]
    if fmt == "jsonl":
        rows = _jsonl_rows(text)
        if rows and not any(rows):
            raise not_results
        return [r for r in rows if r is not None]
    lines = _whole_lines(text.lstrip("\ufeff"))
    fields = {_HEADER: FIELDS, ",".join(_EARLIER): _EARLIER}.get(lines[0].strip()) if lines else None
    if fields is None:
        raise not_results
    out = []
    for cells in csv.reader(lines[1:]):
        if len(cells) == len(fields):
            row = _valid(dict(zip(fields, cells)))
            if row is not None:
                out.append(row)
    return out


def format_rows(rows: Iterable[dict], fmt: str) -> str:
    """The results file's text: CSV with a header, one JSON array, or JSON Lines."""
    rows = list(rows)
    if fmt == "json":
        return json.dumps(rows, indent=1, allow_nan=False) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(r, allow_nan=False) + "\n" for r in rows)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if r[k] is None else r[k]) for k in FIELDS} for r in rows)
    return buf.getvalue()


class Journal:
    """The locked, append-only journal of one batch output (see the module's docstring). Use as
    a context manager: entering takes the lock (or refuses), leaving releases it and keeps the
    journal unless :meth:`finish` wrote the output."""

    def __init__(self, output: Path):
        self.output = Path(output)
        real = Path(os.path.realpath(self.output))
        self.path = real.parent / f".{real.name[:200]}.journal"
        self.fd: int | None = None

    def __enter__(self) -> "Journal":
        for _ in range(10):  # the lock's file can be renamed away between open and lock: retry
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            except OSError as exc:
                raise SuperposError(f"cannot write {one_line(self.output, 200)}: {exc.strerror or exc}") from None
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    raise SuperposError(f"another superpos run is writing {one_line(self.output, 200)}; wait for "
                                        "it to end or give another --output") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except OSError:
                same = False
            if same:
                self.fd = fd
                return self
            os.close(fd)
        raise SuperposError(f"cannot lock {one_line(self.output, 200)}: its journal keeps changing")

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def rows(self) -> list[dict]:
        """The whole, valid rows the journal holds (a line cut short by a crash is dropped)."""
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            return [r for r in _jsonl_rows(fh.read()) if r is not None]

    def restart(self, rows: list[dict]) -> None:
        """Empty the journal and write ``rows`` into it (a run without ``--resume``)."""
        os.ftruncate(self.fd, 0)
        for row in rows:
            self.append(row)

    def seal(self) -> None:
        """End a line cut short by a crash (``--resume``), so that the next row starts a line of
        its own; the cut line stays, unreadable, and :meth:`rows` skips it."""
        size = os.fstat(self.fd).st_size
        if size and os.pread(self.fd, 1, size - 1) != b"\n":
            os.write(self.fd, b"\n")

    def append(self, row: dict) -> None:
        """One finished row, as one write of one whole line (flushed to the file at once)."""
        data = (json.dumps(row, allow_nan=False) + "\n").encode("utf-8")
        while data:
            data = data[os.write(self.fd, data):]

    def finish(self, rows: list[dict], fmt: str) -> None:
        """Write the output (all ``rows``) atomically, then drop the journal."""
        atomic_write_text(self.output, format_rows(rows, fmt))
        os.unlink(self.path)


_DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".npz")


def expand_inputs(data: list[str]) -> list[str]:
    """The data files named: a folder gives its data files, except hidden ones (a batch's
    journal, a temporary file) and earlier batch results (a data set's file starts with its
    header or numbers, a results file with ``file,formula,r2,...``)."""
    files: list[str] = []
    for d in data:
        p = Path(d)
        if d != "-" and p.is_dir():
            files += sorted(str(f) for f in p.iterdir()
                            if f.suffix.lower() in _DATA_SUFFIXES and f.is_file() and not f.name.startswith(".")
                            and not is_results_file(f))
        else:
            files.append(d)
    return files

"""Reading a user's data set: a delimited text file (CSV, semicolon, tab or whitespace, with
or without a header row), an ``.npz`` holding ``X`` and ``y``, or standard input.

Text is read as UTF-8 (a byte-order mark is dropped) and, failing that, as Latin-1 with a
note; the delimiter is detected from the first lines; a first row of numbers is data, not
a header. Large files are parsed by numpy in C (one pass, no per-cell Python), so a
1,000,000-row CSV reads in about a second; a file numpy cannot parse is re-read cell by
cell to say which cell is wrong.
"""
from __future__ import annotations

import csv
import io
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.dataset import check_dataset
from ..core.files import one_line
from ..core.units import column_names, split_header
from ..exceptions import SuperposError

__all__ = ["read_dataset", "read_table", "Table", "written_precision"]

_DELIMITERS = (",", ";", "\t")
_MAX_BYTES = 2 * 1024**3


def _cell(table: "Table", row: int, col: int) -> str:
    """The text of one data cell as written in the file (for messages)."""
    try:
        return _split(table.rows[row], table.delimiter)[col]
    except IndexError:
        return str(table.data[row, col])


@dataclass
class Table:
    """A parsed data file: ``header`` (column names), ``data`` (rows, columns) and ``notes``
    (what the reader assumed: encoding, delimiter, a missing header)."""

    header: list[str]
    data: np.ndarray
    notes: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list, repr=False)
    delimiter: str | None = None


def _decode(raw: bytes, source: str, notes: list[str]) -> str:
    if b"\x00" in raw[:4096]:
        raise SuperposError(f"{source}: not a text file (binary content); give CSV, TSV or .npz")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        notes.append("read as Latin-1 (the file is not valid UTF-8)")
        return raw.decode("latin-1")


def _is_number(cell: str, decimal_comma: bool = False) -> bool:
    try:
        float(cell.replace(",", ".") if decimal_comma else cell)
        return True
    except ValueError:
        return False


def _split(line: str, delim: str | None) -> list[str]:
    """The cells of one line; a line with double quotes is read as CSV (a quoted cell may hold
    the delimiter: ``"x, m",y``)."""
    if delim is not None and '"' in line:
        try:
            cells = next(csv.reader([line], delimiter=delim, skipinitialspace=True), [])
        except csv.Error as exc:
            raise SuperposError(f"a quoted cell that cannot be read ({one_line(exc, 80)}) in the line "
                                f"{one_line(line, 60)!r}") from None
        return [c.strip() for c in cells]
    return [c.strip().strip('"').strip("'") for c in (line.split() if delim is None else line.split(delim))]


def _sniff(lines: list[str]) -> str | None:
    """The delimiter giving the same number (>= 2) of cells on the first lines; None: whitespace.
    Semicolons first: where they separate cells, commas are decimal commas."""
    sample = lines[:20]
    if len({len(_split(ln, ";")) for ln in sample}) == 1 and len(_split(sample[0], ";")) >= 2:
        return ";"
    best, best_cells = None, 1
    for d in _DELIMITERS:
        counts = {len(_split(ln, d)) for ln in sample}
        if len(counts) == 1 and (n := counts.pop()) > best_cells:
            best, best_cells = d, n
    if best is None and all(len(ln.split()) >= 2 for ln in sample):
        return None
    return best if best is not None else ","


def read_table(text: str, source: str, notes: list[str] | None = None) -> Table:
    """Parse delimited text into a :class:`Table`; :class:`SuperposError` names the problem
    (and the line and column of a bad cell)."""
    notes = [] if notes is None else notes
    text = text.lstrip("\ufeff")
    body = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not body:
        raise SuperposError(f"{source}: the file is empty; give a header row and at least 5 data rows")
    delim = _sniff(body)
    first = _split(body[0], delim)
    if len(first) < 2:
        raise SuperposError(f"{source}: one column only; give input columns and a target column (the last), "
                            "separated by commas, semicolons, tabs or spaces")
    if all(_is_number(c, decimal_comma=delim == ";") for c in first):
        header = [f"x{k + 1}" for k in range(len(first) - 1)] + ["y"]
        rows = body
        notes.append("no header row: columns named x1..xm and y (the last is the target)")
    else:
        header = first
        rows = body[1:]
    if not rows:
        raise SuperposError(f"{source}: only a header row; add at least 5 data rows")
    if len(set(header)) != len(header) or any(not h for h in header):
        raise SuperposError(f"{source}: the header has empty or repeated column names: {', '.join(header)}")
    _check_row_lengths(rows, len(header), delim, source)
    data = _parse_fast(rows, len(header), delim)
    if data is None and delim == ";" and any("," in r for r in rows[:20]):
        data = _parse_fast([r.replace(",", ".") for r in rows], len(header), delim)
        if data is not None:
            notes.append("decimal commas read as decimal points")
    if data is None:
        data = _parse_cells(rows, header, delim, source)
    return Table(header, data, notes, rows, delim)


def _check_row_lengths(rows: list[str], n_cols: int, delim: str | None, source: str) -> None:
    """Every data row has the header's number of cells (the fast parser reads one stream of
    numbers and would shift the rows after a short one)."""
    if delim is None:
        bad = next((r for r, line in enumerate(rows) if len(line.split()) != n_cols), None)
    else:
        bad = next((r for r, line in enumerate(rows) if line.count(delim) != n_cols - 1
                    and ('"' not in line or len(_split(line, delim)) != n_cols)), None)
    if bad is not None:
        n = len(_split(rows[bad], delim))
        raise SuperposError(f"{source}: data row {bad + 1} has {n} cells, the header has {n_cols}")


def _parse_fast(rows: list[str], n_cols: int, delim: str | None) -> np.ndarray | None:
    """All rows at once in numpy's C parser; None when the text is not a clean grid of numbers."""
    sep = " " if delim is None else delim
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (and stops) at the first cell it cannot read
        try:
            flat = np.fromstring(sep.join(rows), sep=sep)
        except (ValueError, DeprecationWarning):
            flat = None
    if flat is not None and flat.size == len(rows) * n_cols:
        return flat.reshape(len(rows), n_cols)
    try:
        data = np.loadtxt(io.StringIO("\n".join(rows)), delimiter=delim, dtype=np.float64, ndmin=2, comments=None,
                          quotechar='"')
    except ValueError:
        return None
    return data if data.shape == (len(rows), n_cols) else None


def _parse_cells(rows: list[str], header: list[str], delim: str | None, source: str) -> np.ndarray:
    """The slow path: cell by cell, to name the first bad cell."""
    data = np.empty((len(rows), len(header)))
    for r, line in enumerate(rows):
        cells = _split(line, delim)
        if len(cells) != len(header):
            raise SuperposError(f"{source}: data row {r + 1} has {len(cells)} cells, the header has {len(header)}")
        for c, cell in enumerate(cells):
            try:
                data[r, c] = float(cell)
            except ValueError:
                shown = cell if len(cell) <= 40 else cell[:37] + "..."
                raise SuperposError(f"{source}: data row {r + 1}, column {header[c]!r}: {shown!r} is not a number") from None
    return data


def _read_npz(raw, source: str, target: str | None):
    """X and y of an ``.npz``: ``raw`` its bytes, or its path (a regular file: its arrays'
    headers are checked, against the element cap, before any array is read)."""
    from ..core.files import MAX_ELEMENTS, scan_npz

    if target is not None:
        raise SuperposError(f"{source}: --target applies to CSV/TSV; an .npz holds X and y")
    save = "save the data with numpy.savez(path, X=X, y=y), X (n, m) and y (n,) real numbers"
    if isinstance(raw, Path):
        with open(raw, "rb") as fh:
            magic = fh.read(6)
    else:
        magic, raw = raw[:6], io.BytesIO(raw)
    if not magic.startswith(b"PK"):
        kind = "it is a single .npy array" if magic.startswith(b"\x93NUMPY") else "not a zip archive of arrays"
        raise SuperposError(f"{source}: not an .npz file ({kind}); {save}")
    try:
        scan_npz(raw, MAX_ELEMENTS)
        if not isinstance(raw, Path):
            raw.seek(0)
        with np.load(raw, allow_pickle=False) as z:
            missing = [k for k in ("X", "y") if k not in z.files]
            if missing:
                raise ValueError(f"no array {' or '.join(missing)} (it holds {', '.join(z.files[:10]) or 'nothing'})")
            X, y = z["X"], z["y"]
    except Exception as exc:  # noqa: BLE001 - whatever breaks in reading the container is a damaged file
        raise SuperposError(f"{source}: {one_line(exc, 200)}; {save}") from None
    for name, a in (("X", X), ("y", y)):
        if a.dtype.kind not in "biuf":
            raise SuperposError(f"{source}: {name} holds {a.dtype} values, not real numbers; {save}")
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    names = [f"x{k + 1}" for k in range(X.shape[1] if X.ndim == 2 else 1)]
    if X.ndim in (1, 2) and y.ndim == 1 and X.size:
        _check_finite(X.reshape(len(X), -1), y, names + ["y"], source, None)
    X, y = check_dataset(X, y)
    return X, y, names


def _check_finite(X: np.ndarray, y: np.ndarray, header: list[str], source: str, cell_text) -> None:
    """Name the first cell that is NaN or infinite (row and column), and say when a number was
    too large for a float (a 400-digit integer is a number, not NaN)."""
    if X.shape[0] != y.shape[0] or (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        return
    data = np.column_stack([X, y])
    r, c = map(int, np.argwhere(~np.isfinite(data))[0])
    text = cell_text(r, c) if cell_text is not None else str(data[r, c])
    shown = text if len(text) <= 30 else text[:27] + "..."
    where = f"{source}: data row {r + 1}, column {header[c]!r}"
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text.strip()):
        raise SuperposError(f"{where}: {shown!r} is beyond the largest number a float holds (1.8e308); "
                            "rescale that column")
    raise SuperposError(f"{where}: {shown!r} is NaN or infinite; remove or fix that row")


_NUMBER = re.compile(r"^[+-]?(\d*)(?:[.,](\d*))?(?:[eE]([+-]?\d+))?$")

_PRECISION_ROWS = 2000
"""The precision of a file is read from at most this many rows (evenly spaced)."""


def _cell_precision(cell: str) -> float | None:
    """Half a unit of the last written digit over the value (1.25 -> 0.005 / 1.25); None for
    an integer written without a point or exponent (a count: exact) and for 0."""
    m = _NUMBER.match(cell.strip())
    if not m or (m.group(2) is None and m.group(3) is None):
        return None
    digits = int(m.group(1) + (m.group(2) or ""))  # the value is digits * 10^(e - decimals): the unit cancels
    return 0.5 / digits if digits else None


def written_precision(table: Table) -> float | None:
    """The relative precision the data were written with: per column, the median over its
    cells of half a unit of the last digit over the value (:func:`_cell_precision`), the
    largest over the columns; None when no cell has a decimal point or an exponent."""
    if not table.rows:
        return None
    step = max(1, len(table.rows) // _PRECISION_ROWS)
    cols: list[list[float]] = [[] for _ in table.header]
    for line in table.rows[::step]:
        for k, cell in enumerate(_split(line, table.delimiter)[:len(cols)]):
            p = _cell_precision(cell)
            if p is not None:
                cols[k].append(p)
    found = [float(np.median(c)) for c in cols if c]
    return max(found) if found else None


def read_dataset(path: str, target: str | None = None, notes: list[str] | None = None,
                 info: dict | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Load (X, y, variable names) from a delimited text file, an ``.npz`` holding arrays
    ``X`` and ``y``, or ``-`` (text on standard input). The target is the last column
    unless ``target`` names another (a header, or its name without the unit). Variable names are
    the header names, a unit in brackets or parentheses taken off (``T [K]`` is T, ``V (m^3)``
    V) and each made an identifier on its own (``T hot`` T_hot). What the reader assumed is
    appended to ``notes``; ``info`` receives the ``"precision"`` the text was written with
    (:func:`written_precision`; None for an ``.npz``) and the ``"units"`` of the columns that
    give one (name -> unit text, the target's too; a unit that cannot be read is an error)."""
    notes = [] if notes is None else notes
    if path == "-":
        source = "<stdin>"
        stream = sys.stdin
        if stream is None or stream.closed:
            raise SuperposError("standard input is closed; give a data file, or pipe the data into superpos")
        try:
            raw = stream.buffer.read(_MAX_BYTES + 1) if hasattr(stream, "buffer") else stream.read()
        except (OSError, ValueError) as exc:
            raise SuperposError(f"cannot read standard input ({getattr(exc, 'strerror', None) or exc}); "
                                "give a data file") from None
        if len(raw) > _MAX_BYTES:
            raise SuperposError(f"{source}: larger than 2 GiB; subsample it first")
        if isinstance(raw, bytes) and raw.startswith(b"PK"):
            return _read_npz(raw, source, target)
        text = raw if isinstance(raw, str) else _decode(raw, source, notes)
    else:
        p = Path(path)
        source = str(p)
        if p.is_dir():
            raise SuperposError(f"{source} is a folder; give a data file (or several files for a batch)")
        if not p.exists():
            raise SuperposError(f"{source}: no such file")
        if p.suffix.lower() == ".npz" and p.is_file():
            return _read_npz(p, source, target)
        try:
            if p.is_file() and p.stat().st_size > _MAX_BYTES:
                raise SuperposError(f"{source}: larger than 2 GiB; subsample it first")
            with open(p, "rb") as fh:  # a regular file, or a pipe such as <(zcat data.csv.gz)
                raw = fh.read(_MAX_BYTES + 1)
        except OSError as exc:
            raise SuperposError(f"{source}: cannot read the file ({exc.strerror or exc})") from None
        if len(raw) > _MAX_BYTES:
            raise SuperposError(f"{source}: larger than 2 GiB; subsample it first")
        if p.suffix.lower() == ".npz" or raw.startswith(b"PK\x03\x04"):
            return _read_npz(raw, source, target)
        text = _decode(raw, source, notes)
    table = read_table(text, source, notes)
    if info is not None:
        info["precision"] = written_precision(table)
    header, data = table.header, table.data
    if target is None:
        t = len(header) - 1
    elif target in header:
        t = header.index(target)
    elif target in [split_header(h)[0] for h in header]:  # the name of a header with a unit: T for 'T [K]'
        t = [split_header(h)[0] for h in header].index(target)
    else:
        raise SuperposError(f"{source}: no column named {target!r} (columns: {', '.join(header)})")
    try:
        readable, units = column_names(header)
    except SuperposError as exc:
        raise SuperposError(f"{source}: {exc}") from None
    if info is not None:
        info["units"] = {readable[k]: units[k] for k in range(len(header)) if units[k] is not None}
        info["target"] = readable[t]
    names = [h for k, h in enumerate(readable) if k != t]
    X = np.delete(data, t, axis=1)
    y = data[:, t]
    order = [k for k in range(len(header)) if k != t] + [t]
    _check_finite(X, y, [header[k] for k in order], source, lambda r, c: _cell(table, r, order[c]))
    X, y = check_dataset(X, y)
    if np.ptp(y) == 0:
        raise SuperposError(f"{source}: the target column is constant; there is no formula to find")
    changed = [f"{h!r} as {n}" for h, n in zip([header[k] for k in order[:-1]], names)
               if n != h and split_header(h)[0] != n]
    if changed:
        notes.append("column names written as identifiers: " + ", ".join(changed[:6]) + (", ..." if len(changed) > 6 else ""))
    return X, y, names


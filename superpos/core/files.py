"""Files without pickle: ``.npz`` of plain arrays plus a JSON header, written atomically."""
from __future__ import annotations

import json
import math
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..exceptions import SuperposError

__all__ = ["atomic_write", "atomic_write_npz", "atomic_write_text", "one_line", "parse_json", "read_npz",
           "MAX_ELEMENTS", "MAX_HEADER"]


def atomic_write(path, write) -> None:
    """Call ``write(fh)`` on a temporary file in ``path``'s folder, then rename it to ``path``:
    readers see the old file or the whole new one, never a part."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SuperposError(f"cannot write {path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_npz(path, **arrays) -> None:
    """np.savez_compressed to a temporary file in the same folder, then rename."""
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))


def atomic_write_text(path, text: str) -> None:
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


MAX_ELEMENTS = 50_000_000  # array elements in one file, all arrays together (8 bytes each at most on average)
MAX_HEADER = 1_000_000  # characters of a file's JSON header
_MAX_MEMBERS = 1000  # arrays in one file


def one_line(text, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters: for error messages."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number a superpos file may hold")


def _finite_float(text):
    value = float(text)
    if not np.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")
    return value


def parse_json(text: str):
    """json.loads without NaN, Infinity or numbers that overflow to them (ValueError)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _scan_npz(path: Path, max_elements: int) -> None:
    """Read every member's ``.npy`` header (not its data): refuse what is not a plain numeric or
    text array and files whose arrays would take more than ``max_elements`` elements."""
    total = nbytes = 0
    with zipfile.ZipFile(path) as zf:
        members = zf.infolist()
        if len(members) > _MAX_MEMBERS:
            raise ValueError(f"{len(members)} members")
        for info in members:
            if not info.filename.endswith(".npy"):
                raise ValueError(f"member {one_line(info.filename, 40)!r} is not an array")
            with zf.open(info) as fh:
                fmt = np.lib.format.read_magic(fh)
                if fmt == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
                elif fmt == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
                else:
                    raise ValueError(f"array format {fmt}")
            if dtype.kind not in "biufU" or dtype.fields is not None or dtype.subdtype is not None:
                raise ValueError(f"array {info.filename[:-4]!r} has the unsupported type {dtype.str}")
            count = math.prod(shape)
            if info.filename == "meta.npy" and (shape != () or dtype.kind != "U" or dtype.itemsize > 4 * MAX_HEADER):
                raise ValueError("the header is not one string of at most 1 MB")
            total += count
            nbytes += count * dtype.itemsize
    if total > max_elements or nbytes > 8 * max_elements:
        raise ValueError(f"its arrays hold {total:,} elements ({nbytes:,} bytes), more than the "
                         f"{max_elements:,} a superpos file may hold")


def read_npz(path, kind: str, version: int, *, remedy: str = "regenerate it",
             max_elements: int = MAX_ELEMENTS) -> tuple[dict, dict]:
    """Load an ``.npz`` written by superpos: (arrays, header). Refuses pickled objects,
    other kinds of file, newer format versions, headers that are not a JSON object with a
    ``version`` integer >= 0, and files of more than ``max_elements`` array elements, with a
    :class:`SuperposError` that ends with ``remedy``. The arrays' contents are the caller's to check."""
    path = Path(path)
    if not path.is_file():
        raise SuperposError(f"{path}: no such file")
    try:
        _scan_npz(path, max_elements)
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as exc:  # noqa: BLE001 - whatever breaks in reading the container is a damaged file
        raise SuperposError(f"{path}: not a readable {kind} file ({one_line(exc)}); {remedy}") from None
    meta = arrays.pop("meta", None)
    try:
        if meta is None or meta.shape != () or meta.dtype.kind != "U" or len(str(meta)) > MAX_HEADER:
            raise ValueError("no header")
        meta = parse_json(str(meta))
    except ValueError as exc:
        raise SuperposError(f"{path}: not a {kind} file (no valid header: {one_line(exc, 80)}); "
                            f"{remedy}") from None
    if not isinstance(meta, dict):
        raise SuperposError(f"{path}: not a {kind} file (its header is not a JSON object); {remedy}")
    if meta.get("format") != kind:
        found = meta.get("format")
        found = one_line(repr(found), 60) if found is not None else "foreign"
        raise SuperposError(f"{path}: this is a {found} file, expected a {kind!r} file")
    file_version = meta.get("version")
    if type(file_version) is not int or file_version < 0:
        raise SuperposError(f"{path}: damaged {kind} file (its format version {one_line(repr(file_version), 40)} "
                            f"is not an integer >= 0); {remedy}")
    if file_version > version:
        raise SuperposError(f"{path}: {kind} format version {file_version} is newer than this superpos "
                            f"understands ({version}); upgrade superpos")
    return arrays, meta

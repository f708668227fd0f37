"""Files without pickle: ``.npz`` of plain arrays plus a JSON header, written atomically."""
from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..exceptions import SuperposError

__all__ = ["atomic_write", "check_output", "same_file", "is_special", "open_descriptor", "remove_pending", "atomic_write_npz", "atomic_write_text", "one_line", "parse_json", "read_npz",
           "scan_npz", "MAX_ELEMENTS", "MAX_HEADER"]


_PENDING: set[str] = set()
"""Temporary files being written: an interrupt that ends the process at once (the command
line's signal handler) removes them (:func:`remove_pending`)."""


def remove_pending() -> None:
    """Remove the temporary files of writes still under way (called before a hard exit)."""
    for tmp in list(_PENDING):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _PENDING.discard(tmp)


def _cannot_write(path, exc: OSError) -> SuperposError:
    return SuperposError(f"cannot write {one_line(path, 200)}: {exc.strerror or exc}")


_DESCRIPTOR = re.compile(r"^/(?:dev/fd|proc/self/fd|proc/\d+/fd)/(\d+)$")
_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def open_descriptor(path) -> int | None:
    """The number of this process's open file that ``path`` names (/dev/stdout, /dev/fd/N,
    /proc/self/fd/N, or a symlink to one of them), else None. Such a path must be written
    through the open descriptor: reopened, a log file that standard output appends to would be
    truncated, and resolved, it would be replaced."""
    current = str(path)
    for _ in range(40):
        if current in _STANDARD:
            return _STANDARD[current]
        match = _DESCRIPTOR.match(current)
        if match and (not current.startswith("/proc/") or current.startswith(("/proc/self/", f"/proc/{os.getpid()}/"))):
            return int(match.group(1))
        try:
            target = os.readlink(current)
        except OSError:
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return None


def is_special(path) -> bool:
    """True when ``path`` names an open descriptor (:func:`open_descriptor`) or exists (symlinks
    followed) and is neither a regular file nor a folder: a device, a FIFO, a socket, a terminal."""
    if open_descriptor(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def atomic_write(path, write) -> None:
    """Call ``write(fh)`` on a temporary file in ``path``'s folder, then rename it to ``path``:
    readers see the old file or the whole new one, never a part. The file keeps its
    permissions; a symlink keeps pointing where it did (the file it names is replaced). A
    path that is not a regular file (``/dev/stdout``, a FIFO, a device) is written into, never
    replaced. Errors (a full disk included) are a :class:`SuperposError` naming ``path``."""
    path = Path(path)
    fd = open_descriptor(path)
    if fd is not None or is_special(path):
        try:
            if fd is not None:
                for stream in (sys.stdout, sys.stderr):  # text already printed goes first
                    if stream is not None:
                        stream.flush()
            with (os.fdopen(os.dup(fd), "wb") if fd is not None else open(path, "wb")) as fh:
                write(fh)
                fh.flush()
        except OSError as exc:
            raise _cannot_write(path, exc) from None
        return
    real = Path(os.path.realpath(path))
    folder = real.parent
    if not folder.is_dir():
        raise SuperposError(f"cannot write {one_line(path, 200)}: the folder {one_line(folder, 200)} does not exist")
    if real.is_dir():
        raise SuperposError(f"cannot write {one_line(path, 200)}: it is a folder; give a file name")
    try:
        old = os.stat(real)
    except OSError:
        old = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:100]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    _PENDING.add(tmp)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if old is not None:
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
            try:
                os.chown(tmp, old.st_uid, old.st_gid)
            except OSError:
                pass  # another owner's file: it becomes ours, as any new file would
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
        _PENDING.discard(tmp)


def same_file(a, b) -> bool:
    """True when the paths ``a`` and ``b`` name one file: the same path once resolved, or the
    same inode (a hard link, a symlink, ``./x`` and ``x``)."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_output(path, inputs=(), what: str = "output") -> None:
    """Refuse, before any work, an output ``path`` that names one of the ``inputs`` (by path
    or by inode), a folder, or a place that cannot be written; a device or FIFO is allowed (it
    is written into). A probe file is created and removed in the folder, so that a write that
    would fail at the end fails now, naming ``path``."""
    if path is None:
        return
    path = Path(path)
    shown = one_line(path, 200)
    for source in inputs:
        if source not in (None, "-") and same_file(path, source):
            raise SuperposError(f"the {what} {shown} is also an input ({one_line(source, 200)}): "
                                f"writing it would destroy that file; give another {what} file")
    if path.is_dir():
        raise SuperposError(f"cannot write {shown}: it is a folder; give a file name")
    if is_special(path):
        if open_descriptor(path) is None and not os.access(path, os.W_OK):
            raise SuperposError(f"cannot write {shown}: permission denied")
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not mode & 0o222:
        raise SuperposError(f"cannot write {shown}: the file is read-only (its permissions say so); make it "
                            "writable or give another file")
    folder = Path(os.path.realpath(path)).parent
    if not folder.is_dir():
        raise SuperposError(f"cannot write {shown}: the folder {one_line(folder, 200)} does not exist")
    try:
        fd, probe = tempfile.mkstemp(prefix=".superpos-probe.", dir=folder)
        _PENDING.add(probe)
        os.close(fd)
        os.unlink(probe)
        _PENDING.discard(probe)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


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


_KINDS = {"c": "complex numbers", "O": "Python objects (they would need pickle, which superpos never loads)",
          "V": "records (a structured type)", "M": "dates", "m": "time spans", "S": "bytes"}


def scan_npz(path, max_elements: int) -> None:
    """Read every member's ``.npy`` header (not its data) of the ``.npz`` at ``path`` (a path
    or a binary file): refuse what is not a plain numeric or text array, and files whose
    arrays would take more than ``max_elements`` elements, with a ValueError that says why."""
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
                what = _KINDS.get("V" if dtype.fields is not None else dtype.kind, f"the type {dtype.str}")
                raise ValueError(f"array {one_line(info.filename[:-4], 40)!r} holds {what}, not plain numbers")
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
        scan_npz(path, max_elements)
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

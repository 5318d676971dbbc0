"""Checks of the paths simkit reads and writes, made before the work starts: a figure that cannot
be saved, or a run directory that is a file, is refused before hours of play, not after them; a
small file a user names (a policy file, a position) is read only if it is a regular file within
its size cap, so that a FIFO, a device or a huge file is refused rather than read."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .errors import InputTypeError, InputValueError, show

__all__ = ["FIGURE_FORMATS", "check_figure_path", "check_run_directory", "read_regular_file"]

#: The file formats a figure may be saved in (matplotlib's Agg back end writes each of them).
FIGURE_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".webp", ".eps", ".ps", ".tif", ".tiff")


def check_figure_path(path, what: str = "figure") -> Path:
    """``path`` as a :class:`~pathlib.Path` where a figure can be saved, or a one-line
    :class:`~simkit.errors.InputValueError` naming ``what`` and what is wrong.

    The name must end in one of :data:`FIGURE_FORMATS` (matplotlib would otherwise add ``.png``
    to it and write another file than the one named), must not be a directory, and its directory
    must exist and take a new file (tried with a temporary file there, removed at once: a
    permission bit says nothing of ``/proc`` or a read-only mount)."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"{what} must be a file path, got {show(path)}")
    text = os.fspath(path)
    if not text.strip():
        raise InputValueError(f"{what}: an empty path; name the file to write (e.g. ratings.png)")
    if "\x00" in text:
        raise InputValueError(f"{what}: a path with a NUL character, {show(text)}")
    path = Path(text)
    mode = _mode(path, what)
    if mode is not None and stat.S_ISDIR(mode):
        raise InputValueError(f"{what}: {path} is a directory; name a file in it (e.g. {path / 'figure.png'})")
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise InputValueError(
            f"{what}: {path} does not end in a figure format ({', '.join(FIGURE_FORMATS)}); name the file with one"
        )
    folder = path.parent
    folder_mode = _mode(folder, what)
    if folder_mode is None:
        raise InputValueError(f"{what}: the directory {folder} of {path} does not exist")
    if not stat.S_ISDIR(folder_mode):
        raise InputValueError(f"{what}: {folder} is not a directory, so {path} cannot be written")
    if mode is not None and not stat.S_ISREG(mode):
        raise InputValueError(f"{what}: {path} exists and is not a regular file")
    if mode is not None and not os.access(path, os.W_OK):
        raise InputValueError(f"{what}: {path} is not writable")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".simkit-check-"):
            pass
    except OSError as exc:
        raise InputValueError(f"{what}: cannot write in {folder}: {exc.strerror or exc}") from None
    return path


def check_run_directory(out, what: str = "out") -> Path:
    """``out`` as the :class:`~pathlib.Path` of a run directory (new, or one to resume), or a
    one-line error naming ``what``: not a str or os.PathLike (:class:`~simkit.errors.InputTypeError`),
    an empty name (it would be the working directory), a NUL character, or a path that exists and is
    not a directory (:class:`~simkit.errors.InputValueError`)."""
    if isinstance(out, bytes) or not isinstance(out, (str, os.PathLike)):
        raise InputTypeError(f"{what} is the run directory, a str or os.PathLike, got {show(out)}")
    text = os.fspath(out)
    if not text.strip():
        raise InputValueError(
            f"{what} is the run directory, got an empty path (an empty name would be the working directory)"
        )
    if "\x00" in text:
        raise InputValueError(f"{what}: a path with a NUL character, {show(text)}")
    path = Path(text)
    mode = _mode(path, what)
    if mode is not None and not stat.S_ISDIR(mode):
        raise InputValueError(f"{what}: {path} exists and is not a directory")
    return path


def _mode(path: Path, what: str) -> int | None:
    """The file mode of ``path`` (links followed), None when nothing is there; a path the system
    cannot look up (a name too long, a loop of links, no permission) is a one-line error."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise InputValueError(f"{what}: cannot use {path}: {exc.strerror or exc}") from None


def read_regular_file(path: str, where: str, limit: int, kind: str, error: type) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; otherwise ``error``
    in one line starting with ``where`` (how the file is named), saying why it cannot be ``kind``
    (e.g. "a policy file"). The file is checked before it is opened and again once it is (should the
    path have changed meanwhile), opened without blocking (a FIFO would block, a device never end)
    and read at most ``limit + 1`` bytes."""

    def check_kind(info: os.stat_result) -> None:
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{where} is a directory: not a regular file, so not {kind}")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{where} is not a regular file (a FIFO, device or socket cannot be {kind})")
        if info.st_size > limit:
            raise error(f"{where} is {info.st_size:,} bytes, larger than {kind} can be (at most {limit:,} bytes)")

    try:
        check_kind(os.stat(path))
    except FileNotFoundError:
        raise error(f"{where} does not exist") from None
    except OSError as exc:
        raise error(f"{where} cannot be read ({exc.strerror or exc})") from None
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"{where} cannot be read ({exc.strerror or exc})") from None
    try:
        check_kind(os.fstat(fd))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(2**24, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise error(f"{where} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if size > limit:
        raise error(f"{where} is larger than {kind} can be (at most {limit:,} bytes)")
    return b"".join(chunks)

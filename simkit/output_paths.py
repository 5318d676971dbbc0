"""Checks of the paths a command will write, made before its work starts: a figure that cannot be
saved, or a run directory that is a file, is refused before hours of play, not after them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import InputTypeError, InputValueError, show

__all__ = ["FIGURE_FORMATS", "check_figure_path", "check_run_directory"]

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
    if path.is_dir():
        raise InputValueError(f"{what}: {path} is a directory; name a file in it (e.g. {path / 'figure.png'})")
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise InputValueError(
            f"{what}: {path} does not end in a figure format ({', '.join(FIGURE_FORMATS)}); name the file with one"
        )
    folder = path.parent
    if not folder.exists():
        raise InputValueError(f"{what}: the directory {folder} of {path} does not exist")
    if not folder.is_dir():
        raise InputValueError(f"{what}: {folder} is not a directory, so {path} cannot be written")
    if path.exists() and not path.is_file():
        raise InputValueError(f"{what}: {path} exists and is not a regular file")
    if path.exists() and not os.access(path, os.W_OK):
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
    if path.exists() and not path.is_dir():
        raise InputValueError(f"{what}: {path} exists and is not a directory")
    return path

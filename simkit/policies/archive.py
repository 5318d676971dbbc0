"""A policy file's bytes and arrays, read so that no file can hang, flood or trick the reader.

A policy file (:mod:`simkit.policies.files`) is a ``.npz``: a zip archive of ``.npy`` arrays -- the
metadata (a JSON string) and each layer's weights and biases. :func:`read_archive` reads one with
every size checked before it is trusted:

* the path must be a regular file (a FIFO, a device such as ``/dev/zero`` or a directory is
  refused before it is opened for reading; a symbolic link counts as what it points to);
* the file is at most :data:`MAX_FILE_BYTES`;
* the zip directory is checked first: at most :data:`MAX_MEMBERS` members, each one named as a
  policy file names them, stored or deflated, and their declared uncompressed sizes within
  what the largest network simkit accepts can need (:data:`MAX_UNPACKED_BYTES` in all), so that a
  small archive that would expand to gigabytes is refused without inflating it (reading a member
  never yields more than its declared size);
* each array's ``.npy`` header must declare a plain float array (a layer) or a text string (the
  metadata) whose size is exactly the member's: nothing is allocated from a header alone, and
  nothing is ever unpickled (object arrays are refused; arrays are read with
  ``allow_pickle=False``).

The caps follow from :data:`~simkit.policies.network.MAX_LAYERS` and
:data:`~simkit.policies.network.MAX_NUMBERS` (stored as float64 at most) and
:data:`MAX_METADATA_CHARS`.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import struct
import zipfile
import zlib

import numpy as np

from ..errors import InputTypeError, PolicyError, show
from ..paths import read_regular_file
from .network import MAX_LAYERS, MAX_NUMBERS

__all__ = [
    "MAX_METADATA_CHARS",
    "MAX_MEMBERS",
    "MAX_UNPACKED_BYTES",
    "MAX_FILE_BYTES",
    "as_file_path",
    "read_archive",
]

#: A policy file's metadata (its JSON text) is at most this many characters.
MAX_METADATA_CHARS = 65_536
#: The metadata and each layer's weights and biases.
MAX_MEMBERS = 1 + 2 * MAX_LAYERS
#: An ``.npy`` header is at most this long (numpy's own limit for a header it reads safely).
_NPY_HEADER_BYTES = 10_000
#: The most the members of a policy file may hold once unpacked: every number of the largest
#: network as float64, the metadata as numpy stores text (4 bytes a character), and their headers.
MAX_UNPACKED_BYTES = 8 * MAX_NUMBERS + 4 * MAX_METADATA_CHARS + MAX_MEMBERS * _NPY_HEADER_BYTES
#: A policy file is at most this many bytes (the unpacked cap and room for the zip's own records).
MAX_FILE_BYTES = MAX_UNPACKED_BYTES + 2**20
#: The zip's central directory is at most this many bytes (its members' records).
_DIRECTORY_BYTES = 64 * 1024

_MEMBER = re.compile(r"^(meta|weights_(\d+)|biases_(\d+))\.npy$")
_END_OF_DIRECTORY = struct.Struct("<4s4H2LH")  # the zip's end-of-central-directory record


def as_file_path(path, what: str) -> str:
    """``path`` (a str or os.PathLike naming a file) as a str; InputTypeError for another type
    (bytes included), PolicyError for an empty path or one holding a NUL character."""
    try:
        text = os.fspath(path)
    except TypeError:
        text = None
    if not isinstance(text, str):
        raise InputTypeError(f"{what} path is a str or os.PathLike, got {show(path)}")
    if not text or "\x00" in text:
        raise PolicyError(f"{what} path must be a non-empty path without NUL characters, got {text!r}")
    return text


def _check_directory(data: bytes, where: str) -> None:
    """The zip's end-of-directory record, read before the directory itself: few members, a small
    directory (a forged one could list millions of members)."""
    not_ours = f"{where} is not a simkit policy file (save one with simkit.save_policy)"
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - (_END_OF_DIRECTORY.size + 65_535)))
    if at < 0 or len(data) - at < _END_OF_DIRECTORY.size:
        raise PolicyError(not_ours)
    _, disk, _, _, members, directory_bytes, _, _ = _END_OF_DIRECTORY.unpack_from(data, at)
    if disk != 0:
        raise PolicyError(not_ours)
    if members > MAX_MEMBERS or directory_bytes > _DIRECTORY_BYTES:
        raise PolicyError(f"{where} lists more members than a policy file has (at most {MAX_MEMBERS})")


def _check_members(z: zipfile.ZipFile, where: str) -> list[zipfile.ZipInfo]:
    """The archive's members, each checked by its directory entry alone (nothing inflated)."""
    members = z.infolist()
    if len(members) > MAX_MEMBERS:
        raise PolicyError(f"{where} lists more members than a policy file has (at most {MAX_MEMBERS})")
    total = 0
    names = set()
    for info in members:
        m = _MEMBER.match(info.filename)
        layer = next((int(g) for g in m.groups()[1:] if g is not None), 0) if m else None
        if m is None or layer >= MAX_LAYERS or info.filename in names:
            raise PolicyError(
                f"{where} holds a member {info.filename!r} that a policy file does not have "
                f"(meta, weights_i, biases_i for at most {MAX_LAYERS} layers)"
            )
        names.add(info.filename)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise PolicyError(f"{where}: member {info.filename} is compressed by a method policy files do not use")
        limit = (4 * MAX_METADATA_CHARS if m.group(1) == "meta" else 8 * MAX_NUMBERS) + _NPY_HEADER_BYTES
        total += info.file_size
        if info.file_size > limit and m.group(1) == "meta":
            raise PolicyError(
                f"{where}: its metadata would unpack to {info.file_size:,} bytes, more than "
                f"{MAX_METADATA_CHARS:,} characters of text take"
            )
        if info.file_size > limit or total > MAX_UNPACKED_BYTES:
            raise PolicyError(
                f"{where}: member {info.filename} would unpack to {info.file_size:,} bytes, more than a policy file "
                f"of the largest network simkit accepts holds ({MAX_LAYERS} layers, {MAX_NUMBERS:,} weights and biases)"
            )
    return members


def _read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> np.ndarray:
    """One ``.npy`` member, its header checked against its size before any array is made."""
    name = info.filename[: -len(".npy")]
    bad = f"{where}: member {info.filename} is not an array a policy file holds"
    data = z.read(info)  # at most its declared size, checked above
    f = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=_NPY_HEADER_BYTES)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=_NPY_HEADER_BYTES)
        else:
            raise ValueError(version)
    except (ValueError, TypeError, SyntaxError, EOFError):
        raise PolicyError(bad) from None
    if name == "meta":
        fits = dtype.kind == "U" and shape == ()
    else:
        fits = dtype.kind == "f" and dtype.itemsize <= 8 and len(shape) == (2 if name.startswith("w") else 1)
    if not fits or dtype.hasobject:
        raise PolicyError(f"{bad} (it holds {dtype} of shape {shape})")
    count = int(np.prod(shape, dtype=object))
    if count * dtype.itemsize != len(data) - f.tell():
        raise PolicyError(f"{bad} (its header and its size disagree)")
    f.seek(0)
    return np.lib.format.read_array(f, allow_pickle=False)


def read_archive(path, what: str = "policy file") -> tuple[str, str, dict, str]:
    """``(path, where, arrays, sha256)`` of the policy file ``path``: the path as a str, how an
    error names the file, its arrays by name (``meta``, ``weights_i``, ``biases_i``) and the
    SHA-256 of its bytes.

    Every refusal is a one-line PolicyError naming the file (see the module docstring)."""
    text = as_file_path(path, f"a {what}'s")
    where = f"{what} {text!r}"
    data = read_regular_file(text, where, MAX_FILE_BYTES, "a policy file", PolicyError)
    _check_directory(data, where)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            arrays = {info.filename[: -len(".npy")]: _read_member(z, info, where) for info in _check_members(z, where)}
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,
    ) as exc:
        if isinstance(exc, PolicyError):
            raise
        raise PolicyError(f"{where} is not a simkit policy file (save one with simkit.save_policy)") from None
    return text, where, arrays, hashlib.sha256(data).hexdigest()

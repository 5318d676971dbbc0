"""A run's Parquet files: each chunk's shard written under a hidden temporary name, flushed and
renamed into place (:func:`write_shard`, or part by part :class:`ShardWriter`; :func:`commit_shard`),
its manifest entry with size and
SHA-256 (:func:`shard_entry`, :func:`decision_entry`), its footer metadata, the verification of a
listed shard (:func:`verify_shard`) and the temporary files a killed run leaves
(:func:`temporary_files`, :func:`clean_temporary`)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .schema import COMPRESSION, DECISIONS_DIR, METADATA_KEY, STATISTICS_COLUMNS, DatasetError

__all__ = [
    "decision_entry",
    "decision_file",
    "shard_name",
    "write_shard",
    "ShardWriter",
    "commit_shard",
    "shard_metadata",
    "clean_temporary",
    "temporary_files",
    "file_digest",
    "shard_entry",
    "verify_shard",
]


_SHARD_PREFIX = "part-"


_SHARD_SUFFIX = ".parquet"


TMP_SUFFIX = ".tmp"


def shard_name(chunk: int) -> str:
    """File name of chunk ``chunk``'s shard: ``part-000012.parquet``."""
    return f"{_SHARD_PREFIX}{chunk:06d}{_SHARD_SUFFIX}"


def chunk_of(name: str) -> int | None:
    if not (name.startswith(_SHARD_PREFIX) and name.endswith(_SHARD_SUFFIX)):
        return None
    digits = name[len(_SHARD_PREFIX) : -len(_SHARD_SUFFIX)]
    if not (digits.isascii() and digits.isdigit()):
        return None
    chunk = int(digits)
    return chunk if name == shard_name(chunk) else None  # part-1.parquet is not chunk 1's shard


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_shard(directory, chunk: int, table: pa.Table, metadata: dict) -> Path:
    """Write ``table`` as a complete, fsync'ed temporary file in ``directory``; returns its path.

    The file is hidden (``.part-000012.parquet.<pid>.tmp``) until :func:`commit_shard` renames it.
    ``metadata`` (JSON-ready) is stored under :data:`METADATA_KEY` with the Arrow schema. On Linux the
    file is written unnamed (``O_TMPFILE``) and gets its temporary name only once complete and
    fsync'ed, so a process killed while writing (``kill -9`` included) leaves no file at all.
    """
    directory = Path(directory)
    tmp = directory / f".{shard_name(chunk)}.{os.getpid()}{TMP_SUFFIX}"
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY.encode()] = json.dumps(metadata, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)

    def write(f):
        pq.write_table(table, f, row_group_size=max(1, table.num_rows), **_parquet_options(table.schema))
        f.flush()
        os.fsync(f.fileno())

    fd = _open_unnamed(directory)
    if fd is not None:
        try:
            with open(fd, "wb", closefd=False) as f:
                write(f)
            if _link_unnamed(fd, tmp):
                return tmp
        finally:
            os.close(fd)
    with open(tmp, "wb") as f:  # no O_TMPFILE here: a named temporary file from the start
        write(f)
    return tmp


class ShardWriter:
    """A shard written part by part, one row group per :meth:`write`, into a temporary file as
    :func:`write_shard` writes one (unnamed until :meth:`close` has flushed and fsync'ed it); its
    ``metadata`` is added at the close, under :data:`METADATA_KEY` in the footer's key-value
    metadata. For a table that comes in parts (a chunk's decision log, engine call by engine call),
    each written while the next is computed. The same parts give the same bytes."""

    def __init__(self, directory, chunk: int, schema: pa.Schema):
        self.directory = Path(directory)
        self.tmp = self.directory / f".{shard_name(chunk)}.{os.getpid()}{TMP_SUFFIX}"
        self.rows = 0
        self._fd = _open_unnamed(self.directory, os.O_RDWR)  # readable: copied to a named file if it cannot be linked
        self._file = open(self._fd, "wb", closefd=False) if self._fd is not None else open(self.tmp, "wb")  # noqa: SIM115
        self._writer = pq.ParquetWriter(self._file, schema, write_batch_size=WRITE_BATCH, **_parquet_options(schema))

    def write(self, table: pa.Table) -> None:
        """Append ``table`` as one row group."""
        self._writer.write_table(table, row_group_size=max(1, table.num_rows))
        self.rows += table.num_rows

    def close(self, metadata: dict) -> Path:
        """Finish the file with ``metadata`` (JSON-ready) and give it its temporary name; returns its path."""
        self._writer.add_key_value_metadata({METADATA_KEY: json.dumps(metadata, sort_keys=True)})
        self._writer.close()
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        if self._fd is not None:
            try:
                if not _link_unnamed(self._fd, self.tmp):
                    with open(self.tmp, "wb") as f:
                        size, at = os.fstat(self._fd).st_size, 0
                        while at < size:
                            at += f.write(os.pread(self._fd, min(1 << 24, size - at), at))
                        f.flush()
                        os.fsync(f.fileno())
            finally:
                os.close(self._fd)
                self._fd = None
        return self.tmp

    def abort(self) -> None:
        """Drop the file (nothing of it is left)."""
        with contextlib.suppress(Exception):
            self._writer.close()
        with contextlib.suppress(OSError):
            self._file.close()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        else:
            with contextlib.suppress(FileNotFoundError):
                self.tmp.unlink()


def _parquet_options(schema: pa.Schema) -> dict:
    """How a shard is written: LZ4 pages with checksums, dictionary encoding for the dictionary
    columns only, statistics for :data:`STATISTICS_COLUMNS` only."""
    return dict(
        compression=COMPRESSION,
        write_page_checksum=True,
        use_dictionary=[field.name for field in schema if pa.types.is_dictionary(field.type)],
        write_statistics=[name for name in STATISTICS_COLUMNS if name in schema.names],
    )


#: Values a :class:`ShardWriter` hands to each column's encoder at a time (pyarrow's default is
#: 1,024): a decision log's part has a few hundred thousand rows of narrow columns, and larger
#: batches take a tenth off its encoding.
WRITE_BATCH = 1 << 16


def _open_unnamed(directory: Path, access: int = os.O_WRONLY) -> int | None:
    """A new unnamed file in ``directory`` (``O_TMPFILE``), or None where the system has none."""

    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(directory, flag | access, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _link_unnamed(fd: int, path: Path) -> bool:
    """Give the unnamed file ``fd`` the name ``path`` (``linkat`` through ``/proc/self/fd``); False
    if this system cannot."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a stale file of an earlier process with this pid
    root = os.open("/", os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=root, follow_symlinks=True)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP, errno.EINVAL):
            return False
        raise
    finally:
        os.close(root)
    return True


def file_digest(path) -> str:
    """SHA-256 of a file's bytes (hex)."""

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_entry(path, chunk: int, meta: dict | None = None) -> dict:
    """The manifest's record of shard ``chunk`` whose bytes are at ``path`` (a temporary file about
    to be committed): file name, chunk, first match, matches, rows, byte size, SHA-256."""
    meta = meta if meta is not None else shard_metadata(path)
    return {
        "file": shard_name(chunk),
        "chunk": int(chunk),
        "first_match": int(meta.get("first_match", -1)),
        "matches": int(meta.get("matches", -1)),
        "rows": int(meta["rows"]),
        "bytes": os.path.getsize(path),
        "sha256": file_digest(path),
    }


def decision_file(chunk: int) -> str:
    """Path, relative to the run directory, of chunk ``chunk``'s decision shard:
    ``_decisions/part-000012.parquet``."""
    return f"{DECISIONS_DIR}/{shard_name(chunk)}"


def decision_entry(path, chunk: int, rows: int) -> dict:
    """The manifest's record of chunk ``chunk``'s decision shard whose bytes are at ``path`` (the
    ``"decisions"`` item of the chunk's shard entry): file, rows, byte size, SHA-256."""
    return {
        "file": decision_file(chunk),
        "rows": int(rows),
        "bytes": os.path.getsize(path),
        "sha256": file_digest(path),
    }


def commit_shard(tmp: Path, directory, chunk: int) -> Path:
    """Atomically rename a temporary shard to its final name and fsync the directory."""
    directory = Path(directory)
    final = directory / shard_name(chunk)
    os.replace(tmp, final)
    fsync_dir(directory)
    return final


def shard_metadata(path) -> dict:
    """The JSON description stored in a shard's key-value metadata (``{}`` if none).

    Read from the footer's bytes (:func:`_footer_value`; having pyarrow parse the whole footer, its
    schema and row-group statistics, takes several times as long), or through pyarrow when that
    finds nothing. A description nested too deeply to parse is a ``ValueError``, like one that is
    not JSON.
    """
    raw = _footer_value(path)
    try:
        if raw is not None:
            with contextlib.suppress(ValueError):
                meta = json.loads(raw)
                if isinstance(meta, dict):
                    return meta
        meta = pq.ParquetFile(path).metadata.metadata or {}  # the footer's key-value pairs
        raw = meta.get(METADATA_KEY.encode())
        return json.loads(raw) if raw else {}
    except RecursionError:
        raise ValueError("its metadata is nested too deeply") from None


# A Parquet footer (Thrift compact protocol) stores each key-value pair as a struct of two binary
# fields, 1 the key and 2 the value: header byte 0x18 (field delta 1, type binary), the length as a
# varint, the bytes. This is the key's encoding up to the value's header.
_FOOTER_KEY = b"\x18" + bytes([len(METADATA_KEY)]) + METADATA_KEY.encode() + b"\x18"


def _footer_value(path) -> bytes | None:
    """The value stored under :data:`METADATA_KEY` in a Parquet file's footer, read from the
    footer's bytes; None if the file is not Parquet or the key is not found (the caller then asks
    pyarrow). Only the footer is read."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 12:
            return None
        start = max(0, size - (1 << 16))
        tail = os.pread(f.fileno(), size - start, start)
        if tail[-4:] != b"PAR1":
            return None
        n = int.from_bytes(tail[-8:-4], "little")
        if n > size - 12:
            return None
        if n + 8 > len(tail):
            tail = os.pread(f.fileno(), n + 8, size - n - 8)
    footer = tail[len(tail) - 8 - n : len(tail) - 8]
    at = footer.rfind(_FOOTER_KEY)  # the pair is near the footer's end, after the schema and row groups
    if at < 0:
        return None
    j = at + len(_FOOTER_KEY)
    length = shift = 0
    while True:
        if j >= len(footer) or shift > 28:
            return None
        byte = footer[j]
        j += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return footer[j : j + length] if j + length <= len(footer) else None


_TMP_PATTERN = re.compile(r"^\.(part-\d{6,}\.parquet|_simkit\.json|_common_metadata)\.\d+\.tmp$")


def is_temporary(name: str) -> bool:
    """A temporary file simkit writes (``.part-000012.parquet.<pid>.tmp``, ``._simkit.json.<pid>.tmp``, ...)."""
    return _TMP_PATTERN.match(name) is not None


def temporary_files(directory, pid: int | None = None) -> list[Path]:
    """simkit's temporary files in ``directory`` and its decision log ``_decisions/`` (those of
    process ``pid`` only, if given)."""
    out = []
    directory = Path(directory)
    places = [directory]
    if (directory / DECISIONS_DIR).is_dir():
        places.append(directory / DECISIONS_DIR)
    for place in places:
        for path in place.iterdir():
            if is_temporary(path.name) and (pid is None or path.name.endswith(f".{pid}{TMP_SUFFIX}")):
                out.append(path)
    return out


def clean_temporary(directory, pid: int | None = None) -> int:
    """Remove simkit's temporary files left by killed runs or workers (of process ``pid`` only, if
    given); returns how many. Other hidden files are left alone."""
    n = 0
    for path in temporary_files(directory, pid):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            n += 1
    return n


def is_data_like(name: str) -> bool:
    """A file a reader of the directory could take for data (``pandas.read_parquet(dir)`` reads every
    file not starting with ``_`` or ``.``): any ``part-*`` or ``*.parquet`` name."""
    return not name.startswith((".", "_")) and (name.startswith(_SHARD_PREFIX) or name.endswith(_SHARD_SUFFIX))


_DIGESTS: dict = {}  # (path, inode, size, mtime, ctime) -> SHA-256 already computed in this process


def verify_shard(path, entry: dict) -> None:
    """Check a listed shard's bytes against the manifest's SHA-256 (a legacy entry has none: nothing
    to check). Each file version is hashed once per process.

    Raises
    ------
    DatasetError
        The shard's content differs from what was written (corrupt or replaced).
    """
    want = entry.get("sha256")
    if want is None:
        return
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DatasetError(f"{path} is missing (the manifest lists it)") from None
    key = (str(path.absolute()), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = file_digest(path)
        if len(_DIGESTS) > 100_000:
            _DIGESTS.clear()
        _DIGESTS[key] = digest
    if digest != want:
        raise DatasetError(
            f"{path} is corrupt: its SHA-256 differs from the manifest's; rerun the run with --overwrite"
        )

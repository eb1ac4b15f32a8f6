"""Which work-tree files hold exactly their blob at ``HEAD``, read from git's own files without
a git process (docs/design/search.md §Recall: a search hit is checked against its source).

A file's bytes are its blob at ``HEAD`` when three things hold, each read here: the bytes hash
to the blob id git's index (``.git/index``) records for the path; the index's cache tree
(its ``TREE`` extension, which git invalidates for every folder whose entries change) is valid
at the root; and that root tree is the tree of the ``HEAD`` commit (its object read loose or,
stored whole, from a pack). A cache tree left invalid (agentmem's own commits update the
index path by path) is made whole once with ``git write-tree``, as ``git commit`` leaves it.
Anything this cannot tell — a SHA-256 repository, an index of another version, a root tree
that is not ``HEAD``'s (something staged), a commit stored as a delta, a path not in the index
— answers "unknown", and the caller asks git (:func:`agentmem.search.index.check_rows`).
Standard library only (and the git runner when the cache tree needs it): this runs at every
search.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import re
import struct
import zlib
from pathlib import Path

from agentmem.errors import AgentmemError
from agentmem.store import regular

_TREE_EXT = re.compile(rb"TREE(.{4})\x00(-?\d+) (\d+)\n", re.S)


def _object_dirs(git_dir: Path) -> list[Path]:
    """``objects/`` of the repository, then those its ``info/alternates`` names."""
    objects = git_dir / "objects"
    found = [objects]
    try:
        lines = (objects / "info" / "alternates").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return found
    for line in lines:
        if line.strip() and not line.startswith("#"):
            path = Path(line.strip())
            found.append(path if path.is_absolute() else (objects / path).resolve())
    return found


def _packed(pack_idx: Path, sha: bytes) -> int | None:
    """The offset of object ``sha`` (20 bytes) in the pack of ``pack_idx`` (version 2)."""
    with open(pack_idx, "rb") as handle:
        head = handle.read(8 + 256 * 4)
        if head[:8] != b"\xfftOc\x00\x00\x00\x02" or len(head) < 8 + 256 * 4:
            return None
        fanout = struct.unpack(">256I", head[8:])
        total = fanout[255]
        low = fanout[sha[0] - 1] if sha[0] else 0
        high = fanout[sha[0]]
        handle.seek(8 + 256 * 4 + low * 20)
        names = handle.read((high - low) * 20)
        for index in range(high - low):  # at most a few dozen names share a first byte
            if names[index * 20 : index * 20 + 20] == sha:
                break
        else:
            return None
        position = low + index
        handle.seek(8 + 256 * 4 + total * 24 + position * 4)
        (offset,) = struct.unpack(">I", handle.read(4))
        if offset & 0x80000000:
            handle.seek(8 + 256 * 4 + total * 28 + (offset & 0x7FFFFFFF) * 8)
            (offset,) = struct.unpack(">Q", handle.read(8))
        return int(offset)


def commit_tree(git_dir: Path, commit: str) -> str | None:
    """The tree id of ``commit`` (40 hex digits), from its loose object or from a pack that
    stores it whole; None when neither does (a delta: ask git)."""
    for objects in _object_dirs(git_dir):
        try:
            data = zlib.decompress((objects / commit[:2] / commit[2:]).read_bytes())
        except (OSError, zlib.error):
            data = b""
        if data.startswith(b"commit "):
            body = data[data.index(b"\x00") + 1 :]
            return body[5:45].decode("ascii") if body.startswith(b"tree ") else None
        try:
            packs = [p for p in os.listdir(objects / "pack") if p.endswith(".idx")]
        except OSError:
            continue
        for name in packs:
            offset = _packed(objects / "pack" / name, bytes.fromhex(commit))
            if offset is None:
                continue
            with open(objects / "pack" / (name[:-4] + ".pack"), "rb") as handle:
                handle.seek(offset)
                chunk = handle.read(512)
            if (chunk[0] >> 4) & 7 != 1:  # not a whole commit
                return None
            start = 1
            while chunk[start - 1] & 0x80:
                start += 1
            body = zlib.decompressobj().decompress(chunk[start:], 64)
            return body[5:45].decode("ascii") if body.startswith(b"tree ") else None
    return None


class Staged:
    """What git's index says: the root tree it stands for (None: not known) and the blob id of
    each path (:meth:`blobs`). ``data``: the index file's bytes (or a map of them)."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        self.data = data
        self.tree: str | None = None
        if data[:4] != b"DIRC" or data[4:8] not in (b"\x00\x00\x00\x02", b"\x00\x00\x00\x03"):
            return
        end = len(data) - 20  # the checksum
        at = data.rfind(b"TREE", 12, end)
        while at > 12:  # the extensions follow the entries: the last "TREE" that is one
            found = _TREE_EXT.match(data[at : at + 64])
            if found is not None and self._extensions_end(at, int.from_bytes(found.group(1))):
                if found.group(2) == b"-1":
                    return  # the root's cache tree is invalid: something changed since
                sha = data[at + found.end() : at + found.end() + 20]
                self.tree = sha.hex() if len(sha) == 20 else None
                return
            at = data.rfind(b"TREE", 12, at)

    def _extensions_end(self, start: int, size: int) -> bool:
        """True when an extension of ``size`` bytes at ``start`` is followed only by other
        extensions and the index's final checksum (so it is one)."""
        position = start + 8 + size
        while position < len(self.data) - 20:
            if not self.data[position : position + 4].isalpha():
                return False
            position += 8 + int.from_bytes(self.data[position + 4 : position + 8])
        return position == len(self.data) - 20

    def blobs(self, relpaths: list[str]) -> dict[str, str | None]:
        """The blob id git's index holds for each of ``relpaths`` (stage 0), None when it holds
        none. The entries are sorted by path: one pass over the index for them all."""
        found: dict[str, str | None] = {}
        start = 12
        for relpath in sorted(relpaths, key=lambda p: p.encode("utf-8")):
            name = relpath.encode("utf-8")
            at = -1
            if len(name) < 0xFFF:
                at = self.data.find(len(name).to_bytes(2) + name + b"\x00", start)
            if at < 72:
                found[relpath] = None
                continue
            found[relpath] = self.data[at - 20 : at].hex()
            start = at
        return found


def committed(
    root: Path, git_dir: Path | None, head: str | None, relpaths: list[str]
) -> dict[str, bytes | None]:
    """For each of ``relpaths``: its work-tree bytes when they are provably its blob at
    ``head`` (module docstring), else None (unknown: ask git)."""
    unknown: dict[str, bytes | None] = dict.fromkeys(relpaths)
    if git_dir is None or head is None or len(head) != 40 or not relpaths:
        return unknown
    blobs = _staged_blobs(git_dir, head, relpaths)
    if blobs is None:
        # agentmem's commits update the index path by path, which leaves its cache tree
        # invalid: one ``git write-tree`` makes it whole again (as ``git commit`` leaves it),
        # once after them; then the index is read again
        # lazy: the git runner only when the cache tree is not whole
        from agentmem.store import gitio

        if gitio.run_git(root, ["write-tree"], check=False).returncode == 0:
            blobs = _staged_blobs(git_dir, head, relpaths)
    if blobs is None:
        return unknown
    found: dict[str, bytes | None] = {}
    for relpath, blob in blobs.items():
        work = _work_bytes(root, relpath) if blob else None
        same = work is not None and _blob_id(work) == blob
        found[relpath] = work if same else None
    return found


def _staged_blobs(git_dir: Path, head: str, relpaths: list[str]) -> dict[str, str | None] | None:
    """:meth:`Staged.blobs` of ``relpaths`` when git's index is ``head``'s tree, else None."""
    try:
        with (
            open(git_dir / "index", "rb") as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            staged = Staged(data)
            if staged.tree is None or commit_tree(git_dir, head) != staged.tree:
                return None
            return staged.blobs(relpaths)
    except (OSError, ValueError):
        return None


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def _work_bytes(root: Path, relpath: str) -> bytes | None:
    """The bytes of a regular work-tree file (its link, if one, not followed; whatever folder
    it is reached through, its bytes are compared with the blob), None otherwise."""
    try:
        read = regular.read_listed(root / relpath, relpath)
    except (AgentmemError, OSError):
        return None
    return None if read is None else read.data

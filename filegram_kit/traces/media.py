"""Content-addressed media store of one trajectory (spec 4.1).

    media/blobs/{hash}.blob   full text snapshots (<= 1 MB, text only)
    media/diffs/{hash}.diff   unified diffs
    media/manifest.json       {"version": 1, "entries": {hash: {type, original_path, size_bytes,
                               stored_at, references}}, "stats": {...}}

hash = first 16 hex digits of SHA-256 of the UTF-8 text; events point at content with a
MediaRef dict `{"type": "blob" | "diff", "hash": ..., "path": "blobs/<hash>.blob"}`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from ..util import atomic

HASH_LEN = 16
MAX_BLOB_BYTES = 1_048_576
_KIND_DIR = {"blob": ("blobs", ".blob"), "diff": ("diffs", ".diff")}


class MediaError(LookupError):
    """A media reference that is malformed or points at content that is not there."""


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LEN]


def make_ref(kind: str, digest: str) -> dict[str, str]:
    folder, ext = _KIND_DIR[kind]
    return {"type": kind, "hash": digest, "path": f"{folder}/{digest}{ext}"}


def unified_diff(before: str, after: str, path: str) -> str:
    """The diff text the engine stores for an edit ('' when nothing changed)."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    return "".join(lines)


class MediaStore:
    """Read and write one trajectory's `media/` folder. `clock` stamps manifest entries (ms)."""

    def __init__(self, root: str | Path, *, clock: Callable[[], float] | None = None, read_only: bool = False):
        self.root = Path(root)
        self.read_only = read_only  # stores opened by the loader: source data is never modified
        self._clock = clock or (lambda: time.time() * 1000)
        self._entries: dict[str, dict[str, Any]] | None = None
        self._transform: Callable[[str], str] | None = None

    def view(self, entries: dict[str, dict[str, Any]], transform: Callable[[str], str] | None = None) -> MediaStore:
        """A read-only store over the same files with other manifest entries, whose `read` passes the
        text through `transform` (clean() anonymises the sandbox paths inside diffs and contents)."""
        other = MediaStore(self.root, read_only=True)
        other._entries = entries
        other._transform = transform
        return other

    # -- reading ---------------------------------------------------------------------------
    @property
    def entries(self) -> dict[str, dict[str, Any]]:
        """Manifest entries by hash ({} when there is no manifest)."""
        if self._entries is None:
            self._entries = self._load_manifest()
        return self._entries

    def _load_manifest(self) -> dict[str, dict[str, Any]]:
        path = self.root / "manifest.json"
        if not path.exists():
            return {}
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise MediaError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        entries = doc.get("entries", doc) if isinstance(doc, dict) else None
        if not isinstance(entries, dict):
            raise MediaError(f"{path}: expected an object mapping hashes to entries")
        return {h: dict(e) for h, e in entries.items() if isinstance(e, dict)}

    def relative_path(self, ref: Any) -> str:
        """'blobs/<hash>.blob' for a MediaRef dict, a 'blobs/...' path or a bare hash."""
        if isinstance(ref, dict):
            if isinstance(ref.get("path"), str):
                rel = ref["path"]
            elif ref.get("type") in _KIND_DIR and isinstance(ref.get("hash"), str):
                rel = make_ref(ref["type"], ref["hash"])["path"]
            else:
                raise MediaError(f"media reference needs 'path' or 'type' + 'hash', got {ref!r:.80}")
        elif isinstance(ref, str) and "/" in ref:
            rel = ref
        elif isinstance(ref, str) and ref:
            kind = self.entries.get(ref, {}).get("type")
            kinds = [kind] if kind in _KIND_DIR else [
                k for k in _KIND_DIR if (self.root / make_ref(k, ref)["path"]).exists()]
            rel = make_ref(kinds[0] if kinds else "blob", ref)["path"]
        else:
            raise MediaError(f"not a media reference: {ref!r:.80}")
        parts = PurePosixPath(rel).parts
        if PurePosixPath(rel).is_absolute() or ".." in parts or not parts or parts[0] not in ("blobs", "diffs"):
            raise MediaError(f"media reference escapes media/blobs or media/diffs: {rel!r}")
        return rel

    def exists(self, ref: Any) -> bool:
        return (self.root / self.relative_path(ref)).is_file()

    def read(self, ref: Any) -> str:
        path = self.root / self.relative_path(ref)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise MediaError(f"{path}: referenced media file is missing") from None
        return self._transform(text) if self._transform else text

    # -- writing ---------------------------------------------------------------------------
    def put_blob(self, content: str, original_path: str) -> dict[str, str] | None:
        """Store a full-content snapshot; binary content is skipped (None), > 1 MB is truncated."""
        if "\x00" in content[:8192]:
            return None
        if len(content.encode("utf-8")) > MAX_BLOB_BYTES:
            content = content.encode("utf-8")[:MAX_BLOB_BYTES].decode("utf-8", "ignore") + "\n[truncated at 1MB]"
        return self._put("blob", content, original_path)

    def put_diff(self, before: str, after: str, original_path: str) -> dict[str, str] | None:
        """Store the unified diff between two versions (None when they are equal)."""
        diff = unified_diff(before, after, original_path)
        return self._put("diff", diff, original_path) if diff else None

    def import_ref(self, source: MediaStore, ref: Any) -> None:
        """Copy the content behind `ref` from another store, keeping its path and manifest entry."""
        rel = source.relative_path(ref)
        digest = PurePosixPath(rel).stem
        if self._bump(digest):
            return
        text = source.read(ref)
        self._write(rel, text)
        entry = dict(source.entries.get(digest) or {"type": "diff" if rel.startswith("diffs/") else "blob",
                                                    "original_path": "", "size_bytes": len(text.encode("utf-8")),
                                                    "stored_at": 0})
        self.entries[digest] = {**entry, "references": 1}

    def _bump(self, digest: str) -> bool:
        entry = self.entries.get(digest)
        if entry is None:
            return False
        entry["references"] = int(entry.get("references", 1)) + 1
        return True

    def _write(self, rel: str, text: str) -> None:
        if self.read_only:
            raise MediaError(f"{self.root}: store is read-only (opened from existing trajectory data)")
        atomic.write_text(self.root / rel, text)

    def _put(self, kind: str, text: str, original_path: str) -> dict[str, str]:
        digest = content_hash(text)
        ref = make_ref(kind, digest)
        if self._bump(digest):
            return ref
        self._write(ref["path"], text)
        self.entries[digest] = {"type": kind, "original_path": original_path,
                                "size_bytes": len(text.encode("utf-8")), "stored_at": self._clock(), "references": 1}
        return ref

    def flush(self) -> None:
        """Write manifest.json (atomically); call after a batch of puts."""
        if self.read_only:
            raise MediaError(f"{self.root}: store is read-only (opened from existing trajectory data)")
        blobs = [e for e in self.entries.values() if e.get("type") == "blob"]
        stats = {"total_blobs": len(blobs), "total_diffs": len(self.entries) - len(blobs),
                 "total_bytes": sum(int(e.get("size_bytes", 0)) for e in self.entries.values())}
        atomic.write_json(self.root / "manifest.json", {"version": 1, "entries": self.entries, "stats": stats})

import hashlib
import json

import pytest

from filegram_kit.traces.media import MediaError, MediaStore, content_hash


def test_blobs_are_content_addressed_and_deduplicated(tmp_path):
    store = MediaStore(tmp_path / "media", clock=lambda: 42.0)
    ref = store.put_blob("hello\n", "notes/a.md")
    digest = hashlib.sha256(b"hello\n").hexdigest()[:16]
    assert ref == {"type": "blob", "hash": digest, "path": f"blobs/{digest}.blob"}
    assert store.put_blob("hello\n", "notes/b.md") == ref
    store.flush()
    manifest = json.loads((tmp_path / "media" / "manifest.json").read_text())
    assert manifest["entries"][digest] == {"type": "blob", "original_path": "notes/a.md", "size_bytes": 6,
                                           "stored_at": 42.0, "references": 2}
    assert manifest["stats"]["total_blobs"] == 1
    assert MediaStore(tmp_path / "media").read(digest) == "hello\n"  # a bare hash resolves too


def test_diffs_and_skips(tmp_path):
    store = MediaStore(tmp_path)
    assert store.put_diff("a\n", "a\n", "x.md") is None
    ref = store.put_diff("a\n", "a\nb\n", "x.md")
    assert store.read(ref).splitlines()[-1] == "+b"
    assert ref["hash"] == content_hash(store.read(ref))
    assert store.put_blob("bin\x00ary", "x.bin") is None


def test_read_only_stores_refuse_writes_and_missing_files_are_named(tmp_path):
    store = MediaStore(tmp_path, read_only=True)
    with pytest.raises(MediaError, match="read-only"):
        store.put_blob("x", "x.md")
    with pytest.raises(MediaError, match="missing"):
        store.read({"type": "blob", "hash": "0" * 16, "path": f"blobs/{'0' * 16}.blob"})
    with pytest.raises(MediaError, match="escapes"):
        store.read("blobs/../../secret")

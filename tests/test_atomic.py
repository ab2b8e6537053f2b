"""Atomic writes: whole files only, with the permissions a plain write would give."""

from __future__ import annotations

import os
import stat

from filegram_kit.util import atomic


def test_atomic_files_get_umask_permissions_not_mkstemps_0600(tmp_path):
    path = atomic.write_text(tmp_path / "sub" / "a.txt", "hello")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert path.read_text() == "hello"


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path):
    atomic.write_json(tmp_path / "x.json", {"a": 1})
    atomic.write_json(tmp_path / "x.json", {"a": 2})
    assert (tmp_path / "x.json").read_text() == '{\n  "a": 2\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]

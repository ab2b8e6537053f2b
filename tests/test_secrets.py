"""No API key or Authorization header is ever written anywhere: a run with a sentinel key, every file it wrote
and everything it printed scanned for the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from filegram_kit.cli import main

from .test_knowact import OTHERS, PERSONA, TASKS  # personas and tasks that give every dimension an Act test
from .test_knowact import _loopback_reply as _reply  # a stand-in model

SENTINEL = "sk-SENTINEL-filegram-3f9a1c7e5b2d"  # what a leaked key would look like, nowhere else


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    from filegram_kit.engine import build_corpus

    out = tmp_path_factory.mktemp("secrets") / "corpus"
    build_corpus(out, profiles=[PERSONA, *OTHERS], tasks=TASKS, workers=1, progress=False)
    return out


def test_a_run_with_a_key_writes_the_key_nowhere(tiny, tmp_path, monkeypatch, server, capsys):
    (tmp_path / "empty.toml").write_text("", encoding="utf-8")
    monkeypatch.setenv("FILEGRAM_CONFIG", str(tmp_path / "empty.toml"))
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.setenv("FILEGRAM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FILEGRAM_CACHE_MODE", "use")
    server.reply("/v1/chat/completions", _reply, times=500)
    out = tmp_path / "out"
    code = main(["knowact", "--corpus", str(tiny), "--methods", "no_context,full_context", "--backend",
                 "openai_compat", "--out", str(out), "--workers", "1", "--personas", PERSONA])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    sent = server.requests_to("/v1/chat/completions")
    assert sent and all(r.headers["authorization"] == f"Bearer {SENTINEL}" for r in sent)  # the key was used
    written = [p for root in (out, tmp_path / "cache", tiny) for p in root.rglob("*") if p.is_file()]
    assert len(written) > 10 and any(p.suffix == ".json" for p in (tmp_path / "cache").rglob("*"))
    leaks = [p for p in written if SENTINEL.encode() in p.read_bytes()]
    assert leaks == [], f"the key was written to {leaks}"
    assert SENTINEL not in printed.out + printed.err
    assert "authorization" not in "\n".join(p.read_text("utf-8", errors="replace").lower() for p in written
                                            if p.suffix in (".json", ".jsonl", ".log", ".txt", ".md"))

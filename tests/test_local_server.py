"""The local model server's parts that need no model: the port it keeps, its stop with nothing to stop, and a busy
server found rather than doubled."""

from __future__ import annotations

import importlib.util
import os
import socket

import pytest

from filegram_kit.llm import local_server


def test_the_preferred_port_is_kept_when_free_and_another_is_taken_when_not():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        taken = holder.getsockname()[1]
        holder.listen()
        assert local_server.free_port(taken) != taken  # someone listens there: another port
    assert local_server.free_port(taken) == taken  # released: the same port again, so cache keys stay the same


def test_stop_with_no_server_recorded_says_so(tmp_path, capsys):
    assert local_server.stop(tmp_path) is False
    assert "no server recorded" in capsys.readouterr().err


def test_a_missing_model_wheel_names_the_command_that_installs_it(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(local_server.LocalServerError, match="make local-llm"):
        local_server.model_path()


def test_a_running_server_that_is_busy_is_waited_for_never_doubled(tmp_path, monkeypatch, capsys):
    """A server in the middle of a long generation listens but does not answer /v1/models: start() once took it
    for dead and started a second server on another port, both then at half speed on two cores."""
    import json

    with socket.socket() as busy:  # accepts connections, never answers
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (tmp_path / "server.json").write_text(json.dumps({"pid": os.getpid(), "port": port}))
        monkeypatch.setattr(local_server.subprocess, "Popen", lambda *a, **k: pytest.fail("a second server"))
        monkeypatch.setattr(local_server, "BUSY_TIMEOUT_S", 1.0)
        monkeypatch.setattr(local_server, "answers", lambda p, timeout=2.0: False)
        with pytest.raises(local_server.LocalServerError, match="has not answered for 1 s"):
            local_server.start(state_dir=tmp_path)
        assert "busy with a request" in capsys.readouterr().err
        replies = iter([False, False, True])  # busy twice, then free
        monkeypatch.setattr(local_server, "answers", lambda p, timeout=2.0: next(replies))
        monkeypatch.setattr(local_server, "BUSY_TIMEOUT_S", 30.0)
        assert local_server.start(state_dir=tmp_path) == port

"""The local model server's parts that need no model: the port it keeps, and its stop with nothing to stop."""

from __future__ import annotations

import importlib.util
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

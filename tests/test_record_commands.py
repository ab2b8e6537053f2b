"""Command-name-only streams (PU-style) -> trajectories: every command kept, file actions by the shell rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from filegram_kit.behaviour.fingerprint import fingerprints
from filegram_kit.cli import main
from filegram_kit.record import import_shell_history
from filegram_kit.record.commands import CommandStreamError, import_command_stream, write_command_trajectories
from filegram_kit.record.shell_commands import HANDLERS, action_of
from filegram_kit.traces.load import load_trajectories

STREAM = "\nls\nvi\n**SOF**\nmake\n'ls -l '\nrm\n**EOF**\n**SOF**\ncd\ngrep\nfind\n**EOF**\n\xff\xfeweird\n"


def _write(tmp_path: Path, text: str | bytes, name: str = "USER") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1") if isinstance(text, str) else text)
    return path


def _commands(traj) -> list[str]:
    return [e["tool_name"] for e in traj.events if e.event_type == "tool_call"]


def test_every_command_becomes_a_tool_call_and_file_commands_their_action(tmp_path):
    result = import_command_stream(_write(tmp_path, STREAM), user="u1", block=None)
    report = result.report
    assert (report.lines, report.blank_lines, report.markers, report.arguments_ignored) == (14, 1, 4, 1)
    assert report.replaced_lines == 1 and report.commands == 9 and report.sessions == 4
    # the commands before the first marker are a session of their own; so are those after the last
    assert [_commands(t) for t in result.trajectories] == [["ls", "vi"], ["make", "ls", "rm"], ["cd", "grep", "find"],
                                                           ["\ufffd\ufffdweird"]]
    first, second, third = result.trajectories[:3]
    assert [e.event_type for e in first.events] == ["file_browse", "tool_call", "file_read", "tool_call"]
    kinds = [e.event_type for e in second.events]
    assert kinds == ["tool_call", "file_browse", "tool_call", "file_delete", "tool_call"]  # make: the call alone
    searches = [e["search_type"] for e in third.events if e.event_type == "file_search"]
    assert searches == ["grep", "glob"]
    assert report.actions["other"] == 3 and report.other == {"make": 1, "cd": 1, "\ufffd\ufffdweird": 1}
    lines = [e["tool_parameters"]["line"] for t in result.trajectories for e in t.events if e.event_type == "tool_call"]
    assert lines == [2, 3, 5, 6, 7, 10, 11, 12, 14]
    assert all(e["tool_parameters"]["path_recovered"] is False for e in first.events if e.event_type == "tool_call")
    assert "paths" in str(report) and "times" in str(report)


def test_blocks_of_n_keep_a_short_last_block_and_times_are_synthesised(tmp_path):
    stream = _write(tmp_path, "\n".join(["ls", "cat", "make"] * 3 + ["rm"]))
    result = import_command_stream(stream, user="u1", block=4, start_ms=1_000, spacing_ms=500)
    assert [len(_commands(t)) for t in result.trajectories] == [4, 4, 2]
    assert result.report.short_last_block == 2 and result.report.trajectories == 3
    assert [t.id for t in result.trajectories] == ["u1_b0000", "u1_b0001", "u1_b0002"]
    times = [e.timestamp for t in result.trajectories for e in t.events if e.event_type == "tool_call"]
    assert times == [1_000 + 500 * i for i in range(10)]
    assert result.trajectories[2].summary["first_line"] == 9


def test_written_trajectories_load_fingerprint_and_are_byte_identical_again(tmp_path):
    stream = _write(tmp_path, "\n".join(["ls", "cat", "cat", "rm", "mkdir", "make"] * 5))
    result = import_command_stream(stream, user="u1", block=12)
    written = write_command_trajectories(result, tmp_path / "a")
    again = write_command_trajectories(import_command_stream(stream, user="u1", block=12), tmp_path / "b")
    for one, two in zip(written, again, strict=True):
        assert (one / "events.json").read_bytes() == (two / "events.json").read_bytes()
    loaded = load_trajectories(tmp_path / "a", progress=False)
    assert [t.id for t in loaded] == [t.id for t in result.trajectories]
    fp = fingerprints(loaded)
    # 30 commands: 5 ls (browse), 10 cat (read), 5 rm, 5 mkdir; paths unknown, so no revisit is claimed
    assert fp["total_deletes"].sum() == 5 and fp["dirs_created"].sum() == 5 and fp["revisit_ratio"].sum() == 0
    assert fp["browse_ratio"].to_list() == pytest.approx([1 / 3] * 3, abs=1e-3)


def test_the_command_kinds_are_the_shell_importers(tmp_path):
    """The kind given to a bare command is the kind the shell importer emits for it with arguments."""
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "a.txt").write_text("x\n", encoding="utf-8")
    examples = {"ls": "ls docs", "cat": "cat a.txt", "vi": "vi a.txt", "less": "less a.txt", "rm": "rm a.txt",
                "mkdir": "mkdir new", "mv": "mv a.txt b.txt", "cp": "cp a.txt c.txt", "touch": "touch d.txt",
                "grep": "grep -r x docs", "find": "find docs -name x", "tee": "tee e.txt"}
    for command, line in examples.items():
        history = _write(tmp_path, line + "\n", "history")
        kinds = {o.kind for o in import_shell_history(history, root=root, home=tmp_path).observations}
        assert kinds == {action_of(command)}, command
    assert action_of("cd") is None and action_of("make") is None and action_of("/usr/bin/ls") == "browse"
    assert all(action_of(name) is not None for name in HANDLERS if name not in ("cd", "pushd", "popd", "z", "zi",
                                                                                "j", "autojump", "git"))


def test_bad_input_is_refused_by_name(tmp_path):
    with pytest.raises(CommandStreamError, match="missing"):
        import_command_stream(tmp_path / "missing", user="u1")
    stream = _write(tmp_path, "ls\n")
    with pytest.raises(ValueError, match="block"):
        import_command_stream(stream, user="u1", block=0)
    with pytest.raises(ValueError, match="user"):
        import_command_stream(stream, user="a/b")
    assert import_command_stream(_write(tmp_path, "\n\n**SOF**\n", "empty"), user="u1").trajectories == []


def test_cli_imports_a_stream_by_blocks_or_sessions(tmp_path, capsys):
    stream = _write(tmp_path, STREAM)
    assert main(["import", "commands", str(stream), "--user", "pu1", "--block", "4", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "not recovered" in out and "wrote 3 trajectory folder(s)" in out
    summary = json.loads((tmp_path / "o" / "signal" / "pu1_b0000" / "summary.json").read_text(encoding="utf-8"))
    assert summary["commands"] == 4 and summary["time_synthesised"] is True
    assert main(["import", "commands", str(stream), "--user", "pu1", "--block", "0", "--out", str(tmp_path / "s")]) == 0
    assert sorted(p.name for p in (tmp_path / "s" / "signal").iterdir()) == [f"pu1_s000{i}" for i in range(4)]

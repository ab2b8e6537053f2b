"""Command-name-only histories (PU-style streams) -> trajectories: what such a history says about files.

    result = import_command_stream("USER3", user="user3", block=100)
    write_command_trajectories(result, "data/pu_user3")        # one trajectory per block of 100 commands

A stream holds one command per line, optionally with session markers (`**SOF**` opens a session and
`**EOF**` closes it, as in the untruncated PU data). Blank lines are counted and skipped; a line with
more than a command (real streams hold a few, e.g. `'ls -l '`) gives its first word, quotes stripped,
and is counted. Each command
becomes, in the engine's order, the atomic action the shell importer gives that command
(`shell_commands.action_of`: ls -> file_browse, vi -> file_read, rm -> file_delete, ...) and then a
`tool_call` event naming the command as typed; a command without a file effect (cd, make, elm, a.out)
is the `tool_call` alone, an "other" action that keeps its token. Nothing is dropped.

What cannot be recovered is said in the report and never guessed: paths (every path field is "" and
the tool call's parameters say `path_recovered: false`), so features that read paths (revisits,
depths, file types, structured and image files) are zero; sizes and contents; and times (the stream
has none: command i of the file is at start_ms + i * spacing_ms, marked `time_synthesised`).
`touch` is taken to create its file and `tee` to overwrite one (a history without arguments cannot
tell); a `grep` is a content search ("grep"), find / fd / locate a name search ("glob").

Trajectories are blocks of `block` consecutive commands (session markers are kept in the summary but
do not cut blocks: the usual protocol on PU), or, with block=None, one per session. The last block may
be shorter; it is kept and the report says so. Same file, same arguments: same bytes.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..traces.load import write_trajectory
from ..traces.schema import Trajectory
from ..traces.validation import parse_event
from .shell_commands import action_of, search_type_of

SESSION_START, SESSION_END = "**SOF**", "**EOF**"
_ID_SPACE = uuid.UUID("6f1b0f0e-3c55-4a47-9b1e-5f0c2f6a8d21")  # event ids: uuid5 of (user, line, k)
_UNKNOWN = ""  # a path the stream does not name

# observation kind -> (event type, the fields its event gets when nothing but the command is known)
_EVENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "read": ("file_read", {"file_path": _UNKNOWN, "file_type": "", "directory_depth": 0, "view_count": 1,
                           "view_range": None, "content_length": 0, "revisit_interval_ms": None}),
    "browse": ("file_browse", {"directory_path": _UNKNOWN, "files_listed": 0, "depth": 0}),
    "search": ("file_search", {"query": "", "files_matched": 0, "files_opened_after": []}),
    "write": ("file_write", {"file_path": _UNKNOWN, "file_type": "", "directory_depth": 0, "content_length": 0,
                             "before_hash": None, "after_hash": None}),
    "mkdir": ("dir_create", {"dir_path": _UNKNOWN, "depth": 0, "sibling_count": 0}),
    "move": ("file_move", {"old_path": _UNKNOWN, "new_path": _UNKNOWN, "destination_directory_depth": 0}),
    "copy": ("file_copy", {"source_path": _UNKNOWN, "dest_path": _UNKNOWN, "is_backup": False}),
    "delete": ("file_delete", {"file_path": _UNKNOWN, "file_age_ms": None, "was_temporary": False}),
}
NOT_RECOVERED = ("paths (every path field is empty)", "file sizes and contents",
                 "times (synthesised at a fixed spacing)", "command arguments")


class CommandStreamError(ValueError):
    """A stream that cannot be imported; names the file and the line."""

    def __init__(self, path: str, reason: str, line: int | None = None):
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}: {f'line {line}: ' if line is not None else ''}{reason}")


@dataclass(frozen=True)
class Command:
    line: int  # 1-based line number in the file
    token: str  # the command as typed
    session: int  # 0-based session (marker-delimited; 0 when the stream has no markers)


@dataclass
class CommandReport:
    """What an import read, made and could not recover (nothing is dropped without being counted here)."""

    path: str
    user: str
    lines: int = 0
    commands: int = 0
    blank_lines: int = 0
    markers: int = 0
    sessions: int = 0
    trajectories: int = 0
    short_last_block: int | None = None  # commands in a last block shorter than `block` (kept)
    actions: Counter[str] = field(default_factory=Counter)  # observation kind (or "other") -> commands
    other: Counter[str] = field(default_factory=Counter)  # commands without a file effect, by token
    replaced_lines: int = 0  # lines with bytes that were not UTF-8 (read as U+FFFD)
    arguments_ignored: int = 0  # lines holding more than a command name: the first word was taken
    not_recovered: tuple[str, ...] = NOT_RECOVERED

    def __str__(self) -> str:
        mapped = {kind: n for kind, n in sorted(self.actions.items()) if kind != "other"}
        lines = [f"command stream {self.path} (user {self.user}): {self.lines} lines -> {self.commands} commands "
                 f"in {self.sessions} session(s) -> {self.trajectories} trajectories",
                 f"  file actions {sum(mapped.values())} ({', '.join(f'{k} {n}' for k, n in mapped.items())}), "
                 f"other {self.actions['other']}",
                 f"  skipped: blank lines {self.blank_lines}, session markers {self.markers}"]
        if self.other:
            top = sorted(self.other.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
            lines.append("  commands without a file effect: " + ", ".join(f"{name} {n}" for name, n in top))
        if self.short_last_block is not None:
            lines.append(f"  the last trajectory is a short block of {self.short_last_block} commands (kept)")
        if self.replaced_lines:
            lines.append(f"  {self.replaced_lines} lines had bytes that are not UTF-8 (replaced)")
        if self.arguments_ignored:
            lines.append(f"  {self.arguments_ignored} lines held arguments too: their first word was taken as the "
                         "command, the rest ignored (a full history is `filegram import shell`)")
        lines.append("  not recovered: " + "; ".join(self.not_recovered))
        return "\n".join(lines)


@dataclass
class CommandImport:
    trajectories: list[Trajectory]
    report: CommandReport


def read_commands(path: str | os.PathLike[str]) -> tuple[list[Command], CommandReport]:
    """The commands of a stream file, in order, with their sessions; the report counts what was skipped."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CommandStreamError(str(path), f"cannot read: {err.strerror or err}") from None
    report = CommandReport(str(path), user="")
    commands: list[Command] = []
    session, used = 0, False  # a marker ends the current session if it holds a command
    for number, raw in enumerate(data.splitlines(), start=1):
        report.lines += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            report.replaced_lines += 1
        token = text.strip()
        if not token:
            report.blank_lines += 1
        elif token in (SESSION_START, SESSION_END):
            report.markers += 1
            session, used = (session + 1, False) if used else (session, used)
        else:
            words = token.strip("'\"").split()
            if len(words) != 1:  # real streams hold a few lines with arguments: the command is the first word
                report.arguments_ignored += 1
            commands.append(Command(number, words[0] if words else token, session))
            used = True
    report.commands = len(commands)
    report.sessions = len({c.session for c in commands})
    return commands, report


def import_command_stream(path: str | os.PathLike[str], *, user: str, block: int | None = 100,
                          start_ms: float = 0.0, spacing_ms: float = 10_000) -> CommandImport:
    """Trajectories of `user` from a command stream: one per `block` commands (None: one per session)."""
    if not user or "/" in user or user.startswith(".") or any(c.isspace() for c in user):
        raise ValueError(f"user must be a plain folder-safe word, got {user!r}")
    if block is not None and block < 1:
        raise ValueError(f"block must be >= 1 (or None: one trajectory per session), got {block}")
    if spacing_ms < 0:
        raise ValueError(f"spacing_ms must be >= 0, got {spacing_ms}")
    commands, report = read_commands(path)
    report.user = user
    if block is None:
        groups: list[list[int]] = []
        for i, command in enumerate(commands):
            if not groups or commands[groups[-1][0]].session != command.session:
                groups.append([])
            groups[-1].append(i)
    else:
        groups = [list(range(s, min(s + block, len(commands)))) for s in range(0, len(commands), block)]
        if groups and len(groups[-1]) < block:
            report.short_last_block = len(groups[-1])
    width = max(4, len(str(len(groups))))
    trajectories = []
    for number, positions in enumerate(groups):
        tid = f"{user}_{'b' if block is not None else 's'}{number:0{width}d}"
        trajectories.append(_trajectory(tid, user, [(i, commands[i]) for i in positions], report, start_ms,
                                        spacing_ms, str(path)))
    report.trajectories = len(trajectories)
    return CommandImport(trajectories, report)


def _trajectory(tid: str, user: str, commands: list[tuple[int, Command]], report: CommandReport,
                start_ms: float, spacing_ms: float, source: str) -> Trajectory:
    raw: list[dict[str, Any]] = []

    def add(event_type: str, time_ms: float, line: int, fields: dict[str, Any]) -> None:
        event_id = str(uuid.uuid5(_ID_SPACE, f"{user}/{line}/{len(raw)}"))
        raw.append({"event_id": event_id, "event_type": event_type, "timestamp": time_ms, "session_id": tid,
                    "profile_id": user, **fields})

    for position, (i, command) in enumerate(commands):
        time_ms = start_ms + i * spacing_ms
        kind = action_of(command.token)
        report.actions[kind or "other"] += 1
        if kind is None:
            report.other[command.token] += 1
        else:
            event_type, fields = _EVENTS[kind]
            if kind == "search":
                fields = {"search_type": search_type_of(command.token), **fields}
            elif kind == "write":
                fields = {**fields, "operation": "create" if os.path.basename(command.token) == "touch"
                          else "overwrite"}
            add(event_type, time_ms, command.line, fields)
        add("tool_call", time_ms, command.line, {
            "tool_name": command.token, "execution_time_ms": 0.0, "success": True, "error_type": None,
            "error_message": None, "retry_count": 0, "sequence_position": position,
            "tool_parameters": {"line": command.line, "session": command.session, "path_recovered": False,
                                "time_synthesised": True}})
    events = tuple(parse_event(e, k, f"{source} ({tid})") for k, e in enumerate(raw))
    lines = [c.line for _, c in commands]
    summary = {"task_id": None, "source": "commands", "stream": os.path.basename(source), "first_line": min(lines),
               "last_line": max(lines), "commands": len(commands),
               "sessions": sorted({c.session for _, c in commands}), "time_synthesised": True,
               "not_recovered": list(NOT_RECOVERED)}
    return Trajectory(tid, events, user, None, summary, None, None)


def write_command_trajectories(result: CommandImport, out: str | os.PathLike[str]) -> list[Path]:
    """Write the trajectories under `out/signal/`; returns their folders."""
    signal = Path(out) / "signal"
    return [write_trajectory(traj, signal / traj.id) for traj in result.trajectories]

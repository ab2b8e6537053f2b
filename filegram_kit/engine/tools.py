"""Sandboxed file tools that really act on a workspace and report to the recorder.

The toolset is the release engine's: read, write, edit, multiedit, grep, glob, ls and bash. Any
agent (the offline policy agent here, an LLM agent later) calls `ToolBox.call(name, **params)`;
the tool acts on the sandbox folder, the matching behavioral event is recorded (spec 4.3), then a
`tool_call` event with the simulated execution time. Errors are real (a missing file, an edit whose
old text is not there, a path outside the sandbox) and come back as `ToolResult(ok=False)`.

bash understands `&&`, `||` and `;` and a small command set (ls, mkdir, mv, cp, rm, cat, head, tail,
wc, find, echo, touch, and python3 for a script inside the sandbox). Like the release's recorder it
emits one event per sub-command: `ls` -> file_browse, `mkdir` -> one dir_create per path argument,
`mv`/`cp` -> one file_move/file_rename/file_copy for the last source of the sub-command, `rm` -> one
file_delete per removed file; other commands (cat, head, find, python3 ...) leave no behavioral event.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from ..traces.documents import is_text_format, read_text
from .recorder import Recorder, SimClock

TOOL_NAMES = ("read", "write", "edit", "multiedit", "grep", "glob", "ls", "bash")
# median simulated execution time per tool, ms (log-normal spread around it)
_EXEC_MS = {"read": 12.0, "write": 9.0, "edit": 11.0, "multiedit": 14.0, "grep": 35.0, "glob": 18.0,
            "ls": 8.0, "bash": 60.0}
_SPLIT = re.compile(r"\s*(?:&&|\|\||;)\s*")
SCRIPT_TIMEOUT_S = 30


def _spec(description: str, required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
    props = {name: {"type": kind} for name, kind in {**required, **(optional or {})}.items()}
    return {"description": description, "parameters": {"type": "object", "properties": props,
                                                       "required": list(required)}}


# What an LLM agent is told about each tool (JSON-schema parameters); `test_tool_specs_match_the_tools` keeps
# them in step with the methods below.
TOOL_SPECS: dict[str, dict[str, Any]] = {
    "read": _spec("Read a file (text view of any format); offset is the first line (1-based), limit the count.",
                  {"file_path": "string"}, {"offset": "integer", "limit": "integer"}),
    "write": _spec("Create or overwrite a file with the given content.", {"file_path": "string", "content": "string"}),
    "edit": _spec("Replace old_string (must occur in the file) by new_string.",
                  {"file_path": "string", "old_string": "string", "new_string": "string"}, {"replace_all": "boolean"}),
    "multiedit": _spec("Apply several {old_string, new_string} edits to one file in order.",
                       {"file_path": "string", "edits": "array"}),
    "grep": _spec("Search text files for a regular expression (case-insensitive).", {"pattern": "string"},
                  {"path": "string", "include": "string"}),
    "glob": _spec("Find files whose path or name matches a glob pattern.", {"pattern": "string"}, {"path": "string"}),
    "ls": _spec("List a folder.", {}, {"path": "string"}),
    "bash": _spec("Run shell commands joined by &&, || or ;: ls, mkdir [-p], mv, cp, rm [-r], cat, head, tail, wc, "
                  "find, echo, touch, python3 SCRIPT.", {"command": "string"}),
}


class ToolError(Exception):
    """A tool failure the agent sees (and the recorder logs as error_encounter)."""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    output: str
    error_type: str | None = None


class ToolBox:
    """The tools of one sandbox. Paths are sandbox-relative or under the recorder's virtual root."""

    def __init__(self, root: Path, recorder: Recorder, clock: SimClock, rng: np.random.Generator):
        self.root = Path(root).resolve()
        self.recorder = recorder
        self.clock = clock
        self.rng = rng

    # -- dispatch ------------------------------------------------------------------------------
    def call(self, name: str, *, retry_count: int = 0, **params: Any) -> ToolResult:
        """Run tool `name`, record its events and the tool_call, and return what the agent observes."""
        elapsed = float(_EXEC_MS.get(name, 20.0) * self.rng.lognormal(0.0, 0.5))
        self.clock.advance(elapsed * 0.5)
        try:
            method = getattr(self, f"_tool_{name}", None) if name in TOOL_NAMES else None
            if method is None:
                raise ToolError("unknown_tool", f"no tool named {name!r}; tools: {', '.join(TOOL_NAMES)}")
            output, ok, error_type = method(**params), True, None
        except ToolError as exc:
            output, ok, error_type = str(exc), False, exc.error_type
        except TypeError as exc:
            output, ok, error_type = f"bad parameters for {name}: {exc}", False, "invalid_parameters"
        self.clock.advance(elapsed * 0.5)
        shown = {k: (v if not isinstance(v, bytes) else f"<{len(v)} bytes>") for k, v in params.items()}
        if "content" in shown and isinstance(shown["content"], str) and len(shown["content"]) > 200:
            shown["content"] = shown["content"][:200] + "..."
        self.recorder.tool_call(name, shown, elapsed, success=ok, error_type=error_type,
                                error_message=None if ok else output, retry_count=retry_count)
        return ToolResult(ok, output, error_type)

    # -- paths ---------------------------------------------------------------------------------
    def rel(self, path: str) -> str:
        """Sandbox-relative posix path of `path`; refuses anything outside the sandbox."""
        text = str(path).strip()
        virtual = self.recorder.virtual_root
        if text == virtual or text.startswith(virtual + "/"):
            text = text[len(virtual):].lstrip("/") or "."
        posix = PurePosixPath(text)
        if posix.is_absolute() or ".." in posix.parts:
            raise ToolError("permission_denied", f"{path}: outside the sandbox")
        return posix.as_posix() if posix.parts else "."

    def real(self, rel: str) -> Path:
        return self.root / rel

    def _existing_file(self, path: str) -> tuple[str, Path]:
        rel = self.rel(path)
        real = self.real(rel)
        if not real.is_file():
            raise ToolError("file_not_found", f"{path}: no such file")
        return rel, real

    def _text(self, real: Path) -> str:
        return read_text(real)

    def files(self, rel_dir: str = ".") -> list[str]:
        """Every file under a folder, sandbox-relative and sorted."""
        base = self.real(rel_dir)
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*") if p.is_file())

    # -- reading tools -------------------------------------------------------------------------
    def _tool_read(self, file_path: str, offset: int = 1, limit: int | None = None) -> str:
        rel, real = self._existing_file(file_path)
        text = self._text(real)
        lines = text.splitlines() or [""]
        start = max(1, int(offset))
        end = len(lines) if limit is None else min(len(lines), start + int(limit) - 1)
        start = min(start, end)
        self.recorder.file_read(rel, (start, end), len(text))
        return "\n".join(f"{i:>5}\t{line}" for i, line in enumerate(lines[start - 1:end], start))

    def _tool_ls(self, path: str = ".") -> str:
        rel = self.rel(path)
        real = self.real(rel)
        if not real.is_dir():
            raise ToolError("file_not_found", f"{path}: no such directory")
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in real.iterdir())
        self.recorder.file_browse(rel, len(names))
        return "\n".join(names)

    def _tool_grep(self, pattern: str, path: str = ".", include: str | None = None) -> str:
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise ToolError("invalid_pattern", f"bad regular expression {pattern!r}: {exc}") from None
        hits: list[str] = []
        lines_out: list[str] = []
        for rel in self.files(self.rel(path)):
            if not is_text_format(rel) or (include and not fnmatch.fnmatch(PurePosixPath(rel).name, include)):
                continue
            found = [(i, line) for i, line in enumerate(self._text(self.real(rel)).splitlines(), 1)
                     if regex.search(line)]
            if found:
                hits.append(rel)
                lines_out += [f"{rel}:{i}:{line[:160]}" for i, line in found[:3]]
        self.recorder.file_search("grep", pattern, hits)
        return "\n".join(lines_out) if lines_out else "No matches found"

    def _tool_glob(self, pattern: str, path: str = ".") -> str:
        base = self.rel(path)
        hits = [rel for rel in self.files(base)
                if fnmatch.fnmatch(rel if base == "." else rel[len(base) + 1:], pattern)
                or fnmatch.fnmatch(PurePosixPath(rel).name, pattern)]
        self.recorder.file_search("glob", pattern, hits)
        return "\n".join(hits) if hits else "No files found"

    # -- writing tools -------------------------------------------------------------------------
    def _tool_write(self, file_path: str, content: str | bytes) -> str:
        rel = self.rel(file_path)
        real = self.real(rel)
        if real.is_dir():
            raise ToolError("is_a_directory", f"{file_path}: is a directory")
        before: str | bytes | None = None
        if real.is_file():
            before = real.read_bytes() if isinstance(content, bytes) else self._text(real)
        real.parent.mkdir(parents=True, exist_ok=True)
        real.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        self.recorder.file_write(rel, before, content)
        return f"{'Overwrote' if before is not None else 'Created'} {rel} ({len(content)} characters)"

    def _tool_edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> str:
        return self._apply_edits(file_path, [{"old_string": old_string, "new_string": new_string,
                                              "replace_all": replace_all}], "edit")

    def _tool_multiedit(self, file_path: str, edits: list[dict[str, Any]]) -> str:
        return self._apply_edits(file_path, edits, "multiedit")

    def _apply_edits(self, file_path: str, edits: list[dict[str, Any]], tool: str) -> str:
        rel, real = self._existing_file(file_path)
        if not is_text_format(rel):
            raise ToolError("unsupported_format", f"{file_path}: cannot edit a binary file as text")
        before = after = real.read_text(encoding="utf-8", errors="replace")
        for edit in edits:
            old, new = edit["old_string"], edit["new_string"]
            if old not in after:
                raise ToolError("edit_mismatch", f"{file_path}: old_string not found in file")
            after = after.replace(old, new) if edit.get("replace_all") else after.replace(old, new, 1)
        real.write_text(after, encoding="utf-8")
        counts = self.recorder.file_edit(rel, before, after, edit_tool=tool)
        return f"Edited {rel} (+{counts['lines_added']} -{counts['lines_deleted']})"

    # -- bash ----------------------------------------------------------------------------------
    def _tool_bash(self, command: str) -> str:
        outputs = []
        for sub in (s for s in _SPLIT.split(command.strip()) if s):
            try:
                argv = shlex.split(sub)
            except ValueError as exc:
                raise ToolError("syntax_error", f"bash: {exc}") from None
            handler = getattr(self, f"_sh_{argv[0]}", None) if argv else None
            if handler is None:
                raise ToolError("command_not_found", f"bash: {argv[0] if argv else ''}: command not found")
            flags = [a for a in argv[1:] if a.startswith("-") and len(a) > 1]
            args = [a for a in argv[1:] if not (a.startswith("-") and len(a) > 1)]
            outputs.append(handler(args, flags))
        return "\n".join(o for o in outputs if o)

    def _expand(self, arg: str) -> list[str]:
        rel = self.rel(arg)
        if not any(ch in rel for ch in "*?["):
            return [rel]
        parent = PurePosixPath(rel).parent.as_posix()
        base = self.real(parent)
        found = sorted((PurePosixPath(parent) / p.name).as_posix() for p in base.iterdir()
                       if fnmatch.fnmatch(p.name, PurePosixPath(rel).name)) if base.is_dir() else []
        if not found:
            raise ToolError("file_not_found", f"{arg}: no such file or directory")
        return found

    def _sh_ls(self, args: list[str], flags: list[str]) -> str:
        return self._tool_ls(args[0] if args else ".")

    def _sh_mkdir(self, args: list[str], flags: list[str]) -> str:
        for arg in args:
            rel = self.rel(arg)
            real = self.real(rel)
            if real.exists() and "-p" not in flags:
                raise ToolError("file_exists", f"mkdir: {arg}: File exists")
            if not real.parent.is_dir() and "-p" not in flags:
                raise ToolError("file_not_found", f"mkdir: {arg}: No such file or directory")
            real.mkdir(parents=True, exist_ok=True)
            self.recorder.dir_create(rel)
        return ""

    def _transfer(self, args: list[str], op: str) -> str:
        if len(args) < 2:
            raise ToolError("invalid_parameters", f"{op}: missing destination")
        sources = [s for a in args[:-1] for s in self._expand(a)]
        dest = self.rel(args[-1])
        into_dir = self.real(dest).is_dir()
        if len(sources) > 1 and not into_dir:
            raise ToolError("not_a_directory", f"{op}: target {args[-1]} is not a directory")
        last = ("", "")
        for source in sources:
            if not self.real(source).exists():
                raise ToolError("file_not_found", f"{op}: {source}: No such file or directory")
            target = (PurePosixPath(dest) / PurePosixPath(source).name).as_posix() if into_dir else dest
            self.real(target).parent.mkdir(parents=True, exist_ok=True)
            if op == "mv":
                shutil.move(self.real(source), self.real(target))
            elif self.real(source).is_dir():
                shutil.copytree(self.real(source), self.real(target))
            else:
                shutil.copyfile(self.real(source), self.real(target))
            last = (source, target)
        (self.recorder.move if op == "mv" else self.recorder.file_copy)(*last)
        return ""

    def _sh_mv(self, args: list[str], flags: list[str]) -> str:
        return self._transfer(args, "mv")

    def _sh_cp(self, args: list[str], flags: list[str]) -> str:
        return self._transfer(args, "cp")

    def _sh_rm(self, args: list[str], flags: list[str]) -> str:
        for rel in (r for a in args for r in self._expand(a)):
            real = self.real(rel)
            if real.is_dir():
                if not any(f in flags for f in ("-r", "-rf", "-fr", "-R")):
                    raise ToolError("is_a_directory", f"rm: {rel}: is a directory")
                shutil.rmtree(real)
            elif real.is_file():
                real.unlink()
            elif "-f" not in flags and "-rf" not in flags:
                raise ToolError("file_not_found", f"rm: {rel}: No such file or directory")
            else:
                continue
            self.recorder.file_delete(rel)
        return ""

    def _sh_touch(self, args: list[str], flags: list[str]) -> str:
        for arg in args:
            real = self.real(self.rel(arg))
            real.parent.mkdir(parents=True, exist_ok=True)
            real.touch()
        return ""

    def _sh_cat(self, args: list[str], flags: list[str]) -> str:
        return "\n".join(self._text(self._existing_file(a)[1]) for a in args)

    def _sh_head(self, args: list[str], flags: list[str]) -> str:
        count = next((int(f[1:]) for f in flags if f[1:].isdigit()), 10)
        return "\n".join("\n".join(self._text(self._existing_file(a)[1]).splitlines()[:count]) for a in args)

    def _sh_tail(self, args: list[str], flags: list[str]) -> str:
        count = next((int(f[1:]) for f in flags if f[1:].isdigit()), 10)
        return "\n".join("\n".join(self._text(self._existing_file(a)[1]).splitlines()[-count:]) for a in args)

    def _sh_wc(self, args: list[str], flags: list[str]) -> str:
        rows = [(len(self._text(self._existing_file(a)[1]).splitlines()), a) for a in args]
        return "\n".join(f"{n:>7} {a}" for n, a in rows)

    def _sh_find(self, args: list[str], flags: list[str]) -> str:
        rel = self.rel(args[0] if args else ".")
        return "\n".join(f"./{p}" for p in self.files(rel))

    def _sh_echo(self, args: list[str], flags: list[str]) -> str:
        return " ".join(args)

    def _sh_python3(self, args: list[str], flags: list[str]) -> str:
        """Run a script that lives in the sandbox, inside it. Whatever it does to files leaves no behavioral
        event: the release's recorder cannot see into scripts either, only the final fs_snapshot does."""
        if not args:
            raise ToolError("invalid_parameters", "python3: give a script file (interactive mode is not available)")
        rel, real = self._existing_file(args[0])
        try:
            done = subprocess.run([sys.executable, "-I", real.name, *args[1:]], cwd=real.parent, capture_output=True,
                                  text=True, timeout=SCRIPT_TIMEOUT_S, env={"PATH": os.environ.get("PATH", "")})
        except subprocess.TimeoutExpired:
            raise ToolError("timeout", f"python3 {rel}: no result after {SCRIPT_TIMEOUT_S} s") from None
        if done.returncode:
            raise ToolError("script_error", f"python3 {rel} exited {done.returncode}: {done.stderr[-400:]}")
        return done.stdout[-4000:]

    _sh_python = _sh_python3

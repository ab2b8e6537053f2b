"""Bash and zsh history -> Observations: what a real user's shell history says about their files.

Three small steps: shell_parse.py turns the file into `HistoryEntry`s (first line number, command,
time) and each entry into `SubCommand`s (split on && || ; | & and newlines, redirections apart);
`_Mapper.map` here turns one sub-command into observations, following the working directory and what
the stream showed to exist; the per-command rules (ls, mkdir, mv, grep, ...) are in shell_commands.py.

Formats (shell="auto" picks zsh when any line looks like `: <epoch s>:<elapsed>;<command>`):
  bash   one command per line; with HISTTIMEFORMAT a `#<epoch seconds>` line precedes its command
  zsh    extended history; a trailing backslash continues the command on the next line (how zsh stores
         multi-line commands); zsh's "metafied" bytes (0x83, byte ^ 0x20) are decoded when the raw file
         is not UTF-8. Other undecodable bytes become U+FFFD and the lines are counted.
A command without a time gets the previous command's time + spacing_ms (the first one: start_ms, default
0), carries extra["time_synthesised"] = True and is counted. All observations of one command share its
time; their order in the list is the order in which they happened.

Paths: `~`, `~/x`, $HOME and $PWD are expanded; observation paths are POSIX paths relative to `root`.
What a history cannot tell is skipped and counted in `ShellReport.skipped`, never guessed: globs
("glob not expanded"), other variables, $(...) and ~user ("variable not expanded"), relative paths after
a `cd` that could not be followed ("unknown cwd"), paths outside root, unbalanced quotes ("unparsable"),
commands without a modelled file effect ("no file effect"; their names in `ShellReport.unmapped`).
shlex drops quoting, so a quoted path containing * ? [ counts as a glob, and an operator quoted alone
(`';'`, `\\;`) splits the command there.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .observations import Observation
from .shell_commands import HANDLERS
from .shell_parse import (
    SubCommand,
    assign_times,
    detect_shell,
    expand_braces,
    parse_history,
    read_history_text,
    split_command,
    strip_wrappers,
)

_GLOB = re.compile(r"[*?\[]")
_HOME_VAR = re.compile(r"\$(?:\{HOME\}|HOME\b)")
_PWD_VAR = re.compile(r"\$(?:\{PWD\}|PWD\b)")


# -- one simple command -> observations -----------------------------------------------------------


def _relative(path: str, root: str) -> str | None:
    if path == root:
        return "."
    prefix = root.rstrip("/") + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def _ancestors(rel: str) -> list[str]:
    parts = [] if rel == "." else rel.split("/")
    return ["/".join(parts[:k]) for k in range(1, len(parts))]


class _Mapper:
    """Working directory, directory stack and what the stream showed to exist, while mapping one history."""

    def __init__(self, root: str, home: str, cwd: str, source: str):
        self.root, self.home, self.source = root, home, source
        self.cwd: str | None = cwd  # absolute; None once a cd could not be followed
        self.oldpwd: str | None = None
        self.stack: list[str | None] = []
        self.dirs: set[str] = {"."}  # relative paths the stream showed to be directories
        self.files: set[str] = set()  # ... and files
        self.observations: list[Observation] = []
        self.skipped: Counter[str] = Counter()
        self.unmapped: Counter[str] = Counter()
        self._time, self._extra = 0.0, {}
        self._saved: list[tuple[int, tuple]] = []  # (subshell id, (cwd, oldpwd, stack) before it)

    def enter(self, subshells: tuple[int, ...]) -> None:
        """Leave the subshells `subshells` does not hold (their cd ends with them), enter the new ones."""
        while self._saved and self._saved[-1][0] not in subshells:
            _, (self.cwd, self.oldpwd, self.stack) = self._saved.pop()
        for shell_id in subshells[len(self._saved):]:
            self._saved.append((shell_id, (self.cwd, self.oldpwd, list(self.stack))))

    def map(self, sub: SubCommand, line: int, time_ms: float, synthesised: bool) -> None:
        self.enter(sub.subshells)
        self._time = time_ms
        self._extra = {"command": sub.text, "line": line, **({"time_synthesised": True} if synthesised else {})}
        redirects = [(op.lstrip("0123456789"), op, target) for op, target in sub.redirects]
        for _, _, target in (r for r in redirects if r[0] == "<" and not r[2].startswith("/dev/")):
            for _, rel in self.paths([target]):
                self.emit("read", rel)
        words = strip_wrappers(sub.words)
        name = posixpath.basename(words[0]) if words else ""
        if name in HANDLERS:
            HANDLERS[name](self, name, words[1:], sub.piped_in)
        elif name:  # (nothing left, as in `done` or `FOO=1`, is no command at all)
            self.skip("no file effect")
            self.unmapped[name] += 1
        for base, op, target in redirects:  # here-docs, here-strings and descriptor copies name no file
            if base not in ("<", "<<", "<<<") and not (base in (">&", "<&") and (target.isdigit() or target == "-")):
                self.write_targets([target], op)

    def skip(self, reason: str) -> tuple[None, None]:
        self.skipped[reason] += 1
        return None, None

    def emit(self, kind: str, rel: str, **fields) -> None:
        extra = {**self._extra, **fields.pop("extra", {})}
        self.observations.append(Observation(kind, rel, self._time, source=self.source, extra=extra, **fields))
        dest, is_dir = fields.get("dest"), fields.get("is_dir", False)
        if kind == "delete":
            self.forget(rel)
        elif kind in ("move", "copy"):
            self.relocate(rel, dest, keep=kind == "copy")
            self.note(dest, is_dir=is_dir)
        elif kind == "search":
            self.note(rel, is_dir=None)
            for hit in fields.get("matched", ()):
                self.note(hit, is_dir=False)
        elif kind == "browse":  # `ls notes.md` lists a file: it says nothing about directories
            self.note(rel, is_dir=None if rel in self.files or os.path.isfile(self.abs(rel)) else True)
        else:
            self.note(rel, is_dir=is_dir or kind == "mkdir")

    def note(self, rel: str, *, is_dir: bool | None) -> None:
        """The stream shows `rel` exists (and so do its parents); is_dir None: kind unknown."""
        self.dirs.update(_ancestors(rel))
        if rel != "." and is_dir is not None:
            (self.dirs if is_dir else self.files).add(rel)
            (self.files if is_dir else self.dirs).discard(rel)

    # Invariant: a path with anything known inside it is in `dirs` (note() adds ancestors, relocate()
    # adds the destination's), so a path outside `dirs` needs no scan: long histories stay linear.
    def forget(self, rel: str) -> None:
        self.files.discard(rel)
        if rel in self.dirs:
            for known in (self.dirs, self.files):
                known -= {p for p in known if p == rel or p.startswith(rel + "/")}

    def relocate(self, src: str, dest: str, *, keep: bool) -> None:
        self.dirs.update(_ancestors(dest))
        if src not in self.dirs:
            if src in self.files:
                if not keep:
                    self.files.discard(src)
                self.files.add(dest)
            return
        for known in (self.dirs, self.files):
            moved = {p for p in known if p == src or p.startswith(src + "/")}
            if not keep:
                known -= moved
            known |= {dest + p[len(src):] for p in moved}

    def abs(self, rel: str) -> str:
        return self.root if rel == "." else f"{self.root}/{rel}"

    def is_dir(self, rel: str, arg: str = "") -> bool:
        """Stream knowledge first, then a trailing slash, then the folder as it is now."""
        if rel in self.files:
            return False
        return rel in self.dirs or arg.endswith("/") or os.path.isdir(self.abs(rel))

    def is_into_dir(self, dest: str, dest_arg: str, src_abs: str) -> bool:
        """Does `mv/cp SRC DEST` put SRC inside DEST? Stream knowledge, a trailing slash, else the folder now:
        DEST is a directory now and holds SRC's name, or SRC was a file (a renamed file would not be a dir)."""
        if dest in self.files:
            return False
        if dest in self.dirs or dest_arg.endswith("/"):
            return True
        if not os.path.isdir(self.abs(dest)):
            return False
        src = _relative(src_abs, self.root)
        src_was_dir = (src is not None and src in self.dirs) or os.path.isdir(src_abs)
        return os.path.exists(f"{self.abs(dest)}/{posixpath.basename(src_abs)}") or not src_was_dir

    @staticmethod
    def expand(arg: str) -> list[str]:
        return [] if arg == "-" else expand_braces(arg)

    def locate(self, arg: str) -> tuple[str | None, str | None]:
        """(absolute path, path relative to root or None when outside); (None, None) once counted why not."""
        if arg.startswith("~"):
            head, sep, tail = arg.partition("/")
            if head != "~":
                return self.skip("variable not expanded")
            arg = self.home + sep + tail
        arg = _HOME_VAR.sub(lambda _: self.home, arg)
        if self.cwd is not None:
            arg = _PWD_VAR.sub(lambda _: self.cwd, arg)
        if "$" in arg or "`" in arg:
            return self.skip("variable not expanded")
        if _GLOB.search(arg):
            return self.skip("glob not expanded")
        if not arg.startswith("/"):
            if self.cwd is None:
                return self.skip("unknown cwd")
            arg = f"{self.cwd}/{arg}"
        path = posixpath.normpath(arg)
        return path, _relative(path, self.root)

    def paths(self, args: list[str]) -> list[tuple[str, str]]:
        """(argument, relative path) for each argument (braces expanded) under root; the rest counted."""
        out = []
        for arg in (word for a in args for word in self.expand(a)):
            path, rel = self.locate(arg)
            if path is not None and rel is None:
                self.skip("outside root")
            elif rel is not None:
                out.append((arg, rel))
        return out

    def cwd_rel(self) -> str | None:
        if self.cwd is None:
            return self.skip("unknown cwd")[0]
        rel = _relative(self.cwd, self.root)
        return rel if rel is not None else self.skip("outside root")[0]

    def chdir(self, arg: str | None) -> None:
        """cd to `arg` (None: home, "-": the previous directory); an unresolvable target loses the cwd."""
        if arg == "-":
            if self.oldpwd is None:
                self.skip("OLDPWD not set")
                return
            target = self.oldpwd
        else:
            target = self.locate(arg or "~")[0]
        self.oldpwd, self.cwd = self.cwd, target
        rel = None if target is None else _relative(target, self.root)
        if rel is not None:
            self.note(rel, is_dir=True)

    def write_targets(self, args: list[str], redirect: str) -> None:
        for _, rel in self.paths([a for a in args if not a.startswith("/dev/")]):
            self.emit("write", rel, extra={"redirect": redirect})


# -- the importer ---------------------------------------------------------------------------------


@dataclass
class ShellReport:
    """What an import saw and what it could not use (nothing is dropped without being counted here)."""

    path: str
    shell: str
    commands: int = 0  # history entries
    subcommands: int = 0
    observations: int = 0
    times_synthesised: int = 0
    replaced_lines: int = 0  # lines with bytes that were not UTF-8 (read as U+FFFD)
    skipped: Counter[str] = field(default_factory=Counter)
    unmapped: Counter[str] = field(default_factory=Counter)  # command names counted as "no file effect"

    def __str__(self) -> str:
        lines = [f"{self.shell} history {self.path}: {self.commands} commands ({self.subcommands} simple commands)"
                 f" -> {self.observations} observations; {self.times_synthesised} times synthesised"]
        if self.replaced_lines:
            lines.append(f"  {self.replaced_lines} lines had bytes that are not UTF-8 (replaced)")
        if self.skipped:
            lines.append("  skipped: " + ", ".join(f"{why} {n}" for why, n in sorted(
                self.skipped.items(), key=lambda kv: (-kv[1], kv[0]))))
        if self.unmapped:
            top = sorted(self.unmapped.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
            lines.append("  commands without a file effect: " + ", ".join(f"{name} {n}" for name, n in top))
        return "\n".join(lines)


@dataclass
class ShellImport:
    observations: list[Observation]
    report: ShellReport


def _absolute(path: str | os.PathLike[str], base: str | None = None) -> str:
    """An absolute, normalised path (symlinks are not resolved: histories hold the paths as typed)."""
    text = os.path.expanduser(os.fspath(path))
    if not posixpath.isabs(text):
        text = f"{base}/{text}" if base is not None else os.path.abspath(text)
    return posixpath.normpath(text)


def import_shell_history(path: str | os.PathLike[str], *, root: str | os.PathLike[str],
                         home: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None,
                         shell: str = "auto", start_ms: float | None = None,
                         spacing_ms: float = 10_000) -> ShellImport:
    """Observations (source "bash"/"zsh") of the commands in a history file that touched files under root.

    root: the folder whose behaviour is modelled; cwd: where the history starts (absolute, or relative to
    root; default root); home: what `~` means (default: this user's home).
    """
    if shell not in ("auto", "bash", "zsh"):
        raise ValueError(f"shell must be 'auto', 'bash' or 'zsh', got {shell!r}")
    if spacing_ms < 0:
        raise ValueError(f"spacing_ms must be >= 0, got {spacing_ms}")
    path = Path(path)
    text, replaced = read_history_text(path)
    kind = detect_shell(text) if shell == "auto" else shell
    entries = parse_history(text, kind)
    root_abs = _absolute(root)
    mapper = _Mapper(root_abs, _absolute(home if home is not None else "~"),
                     root_abs if cwd is None else _absolute(cwd, root_abs), kind)
    report = ShellReport(str(path), kind, commands=len(entries), replaced_lines=replaced)
    for entry, (time_ms, synthesised) in zip(entries, assign_times(entries, start_ms, spacing_ms), strict=True):
        report.times_synthesised += synthesised
        try:
            subs = split_command(entry.text)
        except ValueError:
            mapper.skip("unparsable")
            continue
        report.subcommands += len(subs)
        for sub in subs:
            mapper.map(sub, entry.line, time_ms, synthesised)
        mapper.enter(())
    report.observations, report.skipped, report.unmapped = len(mapper.observations), mapper.skipped, mapper.unmapped
    return ShellImport(mapper.observations, report)

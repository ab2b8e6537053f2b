"""Shell history text -> entries -> simple commands -> words: the parsing half of the shell importer.

`read_history_text` decodes the file (zsh metafied bytes, counted replacements), `parse_history` turns it
into `HistoryEntry`s (first line number, command text, recorded time), `assign_times` fills missing
times, `split_command` cuts one entry into `SubCommand`s (words + redirections, split on && || ; | |& &
( ) and newlines, with shlex), `strip_wrappers` drops sudo/env/VAR=... and `expand_braces` does bash
brace expansion. No file-system access and no knowledge of the recorded root here.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from .observations import ObservationError

_ZSH_LINE = re.compile(r": *(\d+):(\d+);(.*)", re.S)
_BASH_TIME = re.compile(r"#(\d+)\s*")  # as bash reads it: '#' then digits, alone on the line
_PUNCT = frozenset("();<>|&\n")
_BARE = re.compile(r"[\w@%+=:,./~*?\[\]{}$-]+")  # shown without quotes in SubCommand.text
_REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<>", ">&", "<&"}
_WRAPPERS = {"sudo", "env", "command", "builtin", "time", "nohup", "exec", "noglob", "nocorrect"}
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_SUDO_VALUE = set("ugpChrtTUDR")
_ENV_VALUE = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}

# -- 1. history file -> entries -----------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    """One command as the history stored it: 1-based first line, text, epoch ms (None: not recorded)."""

    line: int
    text: str
    time_ms: float | None


def read_history_text(path: Path) -> tuple[str, int]:
    """(text, number of lines whose non-UTF-8 bytes were replaced by U+FFFD)."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ObservationError(str(path), f"cannot read the history file ({err.strerror or err})") from None
    for candidate in (raw, _unmetafy(raw)) if b"\x83" in raw else (raw,):
        try:
            return candidate.decode("utf-8"), 0
        except UnicodeDecodeError:
            pass
    bad = 0
    for line in raw.split(b"\n"):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
    return raw.decode("utf-8", errors="replace"), bad


def _unmetafy(raw: bytes) -> bytes:
    """zsh writes some bytes as 0x83 followed by the byte XOR 0x20."""
    out, it = bytearray(), iter(raw)
    for byte in it:
        out.append(next(it, 0x20) ^ 0x20 if byte == 0x83 else byte)
    return bytes(out)


def detect_shell(text: str) -> str:
    return "zsh" if any(_ZSH_LINE.fullmatch(line) for line in text.split("\n")) else "bash"


def parse_history(text: str, shell: str) -> list[HistoryEntry]:
    """Entries in file order. bash: one per line; zsh: backslash-continued lines joined with newlines."""
    lines, entries, pending, i = text.split("\n"), [], None, 0
    while i < len(lines):
        start, line = i + 1, lines[i].rstrip("\r")
        i += 1
        if shell == "bash":
            if m := _BASH_TIME.fullmatch(line):
                pending = int(m[1]) * 1000.0
            elif line.strip():
                entries.append(HistoryEntry(start, line, pending))
                pending = None
            continue
        m = _ZSH_LINE.fullmatch(line)
        time_ms, command = (int(m[1]) * 1000.0, m[3]) if m else (None, line)
        while command.endswith("\\") and i < len(lines):
            command, i = command[:-1] + "\n" + lines[i].rstrip("\r"), i + 1
        command = command[:-1] if command.endswith("\\") else command
        if command.strip():
            entries.append(HistoryEntry(start, command, time_ms))
    return entries


def assign_times(entries: list[HistoryEntry], start_ms: float | None, spacing_ms: float) -> list[tuple[float, bool]]:
    """(time_ms, synthesised) per entry: recorded times as they are; a missing one continues from the last."""
    out: list[tuple[float, bool]] = []
    last: float | None = None
    for entry in entries:
        if entry.time_ms is not None:
            last = entry.time_ms
            out.append((last, False))
        else:
            last = (float(start_ms or 0.0)) if last is None else last + spacing_ms
            out.append((last, True))
    return out


# -- 2. entry -> simple commands ------------------------------------------------------------------


@dataclass(frozen=True)
class SubCommand:
    """A simple command: its words, its redirections (operator, target), whether a pipe feeds it, and the
    subshells around it (ids of the enclosing `(`, `$(` or `<(`, outermost first; a cd ends with them)."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...] = ()
    piped_in: bool = False
    subshells: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """The command re-joined (shlex dropped the quotes: a word is quoted only where it needs it)."""
        return " ".join([*map(_quote, self.words), *(f"{op} {_quote(t)}" for op, t in self.redirects)])


def _quote(word: str) -> str:
    return word if _BARE.fullmatch(word) else shlex.quote(word)


def split_command(text: str) -> list[SubCommand]:
    """Split on && || ; | |& & ( ) and newlines. Raises ValueError (from shlex) on unbalanced quotes."""
    lex = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lex.whitespace, lex.whitespace_split = " \t\r", True
    tokens, out = list(lex), []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    subshells: list[int] = []
    piped, opened, i = False, 0, 0
    while i < len(tokens):
        token, i = tokens[i], i + 1
        if not set(token) <= _PUNCT:
            words.append(token)
            continue
        op = token.replace("\n", "") or ";"
        if op in _REDIRECTS:
            if i < len(tokens) and not set(tokens[i]) <= _PUNCT:
                if words and words[-1].isdigit():  # `2>file`: shlex splits the descriptor off as a word
                    op = words.pop() + op
                redirects.append((op, tokens[i]))
                i += 1
            continue
        if words or redirects:
            out.append(SubCommand(tuple(words), tuple(redirects), piped, tuple(subshells)))
        words, redirects, piped = [], [], op in ("|", "|&")
        for char in op:
            if char == "(":
                opened += 1
                subshells.append(opened)
            elif char == ")" and subshells:
                subshells.pop()
    if words or redirects:
        out.append(SubCommand(tuple(words), tuple(redirects), piped, tuple(subshells)))
    return out


def strip_wrappers(words: tuple[str, ...] | list[str]) -> list[str]:
    """Drop sudo/env/command/builtin/time/nohup (with their options), VAR=value and shell keywords."""
    words = list(words)
    while words:
        head = words[0]
        if _ASSIGNMENT.match(head) or head in _KEYWORDS:
            words.pop(0)
            continue
        if head not in _WRAPPERS:
            break
        words.pop(0)
        if head == "command" and words[:1] in (["-v"], ["-V"]):
            return []  # a lookup, not a run
        while words and words[0].startswith("-") and len(words[0]) > 1:
            flag = words.pop(0)
            if flag == "--":
                break
            takes_value = (head == "sudo" and len(flag) == 2 and flag[1] in _SUDO_VALUE) or (
                head == "env" and flag in _ENV_VALUE)
            if takes_value and words:
                words.pop(0)
    return words


def expand_braces(word: str) -> list[str]:
    """Bash brace expansion of `{a,b}` lists and `{1..3}` ranges (leftmost first, nested allowed)."""
    start = word.find("{")
    while start != -1:
        depth, commas = 0, []
        for end in range(start, len(word)):
            depth += {"{": 1, "}": -1}.get(word[end], 0)
            if word[end] == "," and depth == 1:
                commas.append(end)
            if depth == 0:
                break
        else:
            return [word]
        body, head, tail = word[start + 1:end], word[:start], word[end + 1:]
        if commas:
            cuts = [start, *commas, end]
            alternatives = [word[a + 1:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        elif m := re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body):
            a, b = int(m[1]), int(m[2])
            alternatives = [str(n) for n in range(a, b + (1 if b >= a else -1), 1 if b >= a else -1)]
        else:
            start = word.find("{", start + 1)
            continue
        return [out for alt in alternatives for out in expand_braces(head + alt + tail)]
    return [word]

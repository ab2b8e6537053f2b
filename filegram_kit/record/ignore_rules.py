"""Gitignore-style path rules: the default ignore list and `.filegramignore` files in any directory.

A pattern is read relative to the directory whose ignore file holds it (the recorded root for the
defaults), with git's rules:

    #...        comment (write `\\#` for a leading '#')
    !pat        negation: re-include what an earlier pattern excluded (the last matching pattern wins)
    pat/        directories only
    /pat, a/b   anchored: matched from the ignore file's directory (any '/' except a trailing one anchors)
    pat         not anchored: matched against the name at any depth below that directory
    *  ?  [ab]  any run of characters except '/', one character except '/', a character class
    **          `**/x` x at any depth, `a/**` everything inside a, `a/**/b` zero or more directories between

As in git, nothing inside an ignored directory can be re-included (the directory is never entered).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

IGNORE_FILE = ".filegramignore"


@dataclass(frozen=True)
class Rule:
    """One compiled pattern; `base` is the POSIX directory (relative to the root, "" = root) it belongs to."""

    pattern: str
    regex: re.Pattern[str]
    base: str = ""
    negate: bool = False
    dir_only: bool = False
    where: str = "pattern"  # "<file>:<line>" for patterns read from an ignore file

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1:]
        return self.regex.fullmatch(rel) is not None


def _class(glob: str, i: int) -> tuple[str, int]:
    """Translate the character class starting at glob[i] == '['; an unclosed '[' is a literal."""
    j = i + 1
    if j < len(glob) and glob[j] in "!^":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    while j < len(glob) and glob[j] != "]":
        j += 1
    if j >= len(glob):
        return re.escape("["), i + 1
    body = glob[i + 1:j]
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    return "[" + body.replace("\\", "\\\\") + "]", j + 1


def glob_to_regex(glob: str) -> str:
    """The regex (without anchors) of one gitignore glob whose leading/trailing '/' are removed."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == len(glob) and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            piece, i = _class(glob, i)
            out.append(piece)
        elif c == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def compile_rule(line: str, *, base: str = "", where: str = "pattern") -> Rule | None:
    """One line of an ignore file (or one default pattern) -> Rule; None for blanks and comments."""
    text = line.rstrip("\r\n")
    stripped = text.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(text):
        stripped += " "  # "\ " keeps one trailing space
    text = stripped
    if not text or text.startswith("#"):
        return None
    negate = text.startswith("!")
    if negate:
        text = text[1:]
    elif text.startswith(("\\#", "\\!")):
        text = text[1:]
    dir_only = text.endswith("/")
    body = text.rstrip("/")
    if not body:
        return None
    anchored = "/" in body
    body = body.lstrip("/")
    regex = glob_to_regex(body)
    if not anchored:
        regex = "(?:.*/)?" + regex
    return Rule(line.strip(), re.compile(regex, re.DOTALL), base, negate, dir_only, where)


def compile_rules(lines: Iterable[str], *, base: str = "", source: str = "pattern") -> list[Rule]:
    rules = []
    for number, line in enumerate(lines, start=1):
        rule = compile_rule(line, base=base, where=f"{source}:{number}")
        if rule is not None:
            rules.append(rule)
    return rules


class RuleTree:
    """Fixed rules plus the `.filegramignore` of every directory under `root`, read lazily.

    `forget(directory)` drops what was read (call it when that directory's ignore file changed);
    the next question re-reads it. Thread-safe: the recorder asks from the observer thread.
    """

    def __init__(self, rules: list[Rule], root: Path | None, *, read_ignore_files: bool = True,
                 reader: Callable[[Path], str] | None = None):
        self.rules = rules
        self.root = root
        self.read_ignore_files = read_ignore_files and root is not None
        self._reader = reader or (lambda p: p.read_text(encoding="utf-8"))
        self._files: dict[str, list[Rule]] = {}
        self._dirs: dict[str, bool] = {}
        self._lock = threading.RLock()

    def forget(self, directory: str) -> None:
        with self._lock:
            self._files.pop(directory.strip("/"), None)
            self._dirs.clear()

    def ignored(self, rel: str, is_dir: bool) -> bool:
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts:
            return False
        with self._lock:
            for i in range(1, len(parts)):
                if self._dir_ignored("/".join(parts[:i])):
                    return True
            return self._match("/".join(parts), is_dir)

    def _dir_ignored(self, rel: str) -> bool:
        if rel not in self._dirs:
            self._dirs[rel] = self._match(rel, True)
        return self._dirs[rel]

    def _match(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for rule in self._rules_for(rel):
            if rule.matches(rel, is_dir):
                verdict = not rule.negate
        return verdict

    def _rules_for(self, rel: str) -> list[Rule]:
        rules = list(self.rules)
        if not self.read_ignore_files:
            return rules
        parts = rel.split("/")[:-1]
        for i in range(len(parts) + 1):
            rules.extend(self._file_rules("/".join(parts[:i])))
        return rules

    def _file_rules(self, directory: str) -> list[Rule]:
        if directory not in self._files:
            assert self.root is not None
            path = self.root / directory / IGNORE_FILE if directory else self.root / IGNORE_FILE
            try:
                text = self._reader(path)
            except (FileNotFoundError, NotADirectoryError):
                text = ""
            except UnicodeDecodeError as err:
                raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
            self._files[directory] = compile_rules(text.splitlines(), base=directory, source=str(path))
        return self._files[directory]

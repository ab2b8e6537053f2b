"""One simple command -> observations: the release's bash rules plus the reads and searches a history shows.

  ls dir ll la l tree                -> browse (each path argument, or the cwd); files_listed counts the
                                        entries of that directory as it is now under root (None if absent)
  mkdir [-p]                         -> mkdir, one per path; -p also the parents the stream has not shown
  mv / cp [-t DIR] [-T]              -> move / copy, last argument the destination; several sources, a
                                        trailing slash or a known directory -> dest/basename. Into root
                                        from outside: a write; mv out of root: a delete
  rm rmdir unlink, git rm            -> delete, one per path (is_dir: rmdir, or -r/-d on a known directory)
  cat less more head tail bat view nl wc open xdg-open, editors vim vi nvim nano emacs code
                                     -> read (editors add extra["editor"]); a directory argument of an
                                        opener (open, xdg-open, vim, vi, nvim, view, emacs, code) is a browse
  grep egrep fgrep rg ag ack         -> search "grep", query = the pattern (-e patterns joined by "|");
                                        matched = the explicit file arguments; no file argument: grep reads
                                        its input (no file effect) unless -r, rg/ag/ack search the cwd
                                        unless a pipe feeds them; `rg --files`, `ag -g`, `ack -g` -> "glob"
  find fd locate                     -> search "glob", query = -name/-iname/-path/-regex value, fd's pattern
  touch                              -> write, content None, size 0 when the stream has not shown the file
  tee FILE, `> FILE`, `>> FILE`      -> write, extra["redirect"]; `< FILE` -> read
  cd pushd popd                      -> the working directory (z/j/autojump: lost, counted)
Flags are parsed getopt-style (flags may follow operands, `--` ends them); flags that take a value are
listed per command so that `head -n 20 a.md` reads a.md only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

# command -> (short flags that take a value, long flags that take the next word as value)
_VALUE_FLAGS: dict[str, tuple[str, set[str]]] = {
    "ls": ("ITw", {"--ignore", "--hide", "--width", "--sort", "--format", "--time-style", "--block-size"}),
    "tree": ("LPIo", {"--filelimit", "--sort", "--charset", "--timefmt"}),
    "mkdir": ("m", {"--mode", "--context"}),
    "mv": ("tS", {"--target-directory", "--suffix"}),
    "cp": ("tS", {"--target-directory", "--suffix"}),
    "head": ("nc", {"--lines", "--bytes"}),
    "tail": ("ncs", {"--lines", "--bytes", "--sleep-interval", "--pid"}),
    "less": ("bhjkoOpPtTxyz", {"--pattern", "--tag", "--log-file"}),
    "more": ("n", set()),
    "bat": ("lHrmL", {"--language", "--highlight-line", "--line-range", "--map-syntax", "--theme", "--style"}),
    "nl": ("bdfhilnsvw", set()),
    "vim": ("cSuUiTwWstq", {"--cmd"}),
    "nano": ("TYoQrsX", {"--tabsize", "--syntax", "--operatingdir", "--quotestr", "--fill"}),
    "emacs": ("lfLu", {"--eval", "--load", "--funcall", "--directory", "--user"}),
    "code": ("", {"--user-data-dir", "--extensions-dir", "--profile", "--locale"}),
    "grep": ("efmABCdD", {"--regexp", "--file", "--max-count", "--context", "--after-context",
                          "--before-context", "--include", "--exclude", "--exclude-dir", "--label"}),
    "rg": ("efmABCgtTjMdEr", {"--regexp", "--file", "--max-count", "--context", "--glob", "--type",
                               "--type-not", "--max-depth", "--replace", "--threads"}),
    "ag": ("GgmABCp", {"--file-search-regex", "--max-count", "--context", "--ignore", "--depth"}),
    "ack": ("gmABC", {"--max-count", "--context", "--type"}),
    "fd": ("edtEjSxXc", {"--extension", "--max-depth", "--type", "--exclude", "--exec", "--exec-batch"}),
    "locate": ("dln", {"--database", "--limit"}),
    "touch": ("dtr", {"--date", "--reference"}),
}
_CANONICAL = {"dir": "ls", "ll": "ls", "la": "ls", "l": "ls", "egrep": "grep", "fgrep": "grep",
              "vi": "vim", "nvim": "vim", "view": "vim", "rmdir": "rm", "unlink": "rm"}
_EDITORS = {"vim", "vi", "nvim", "nano", "emacs", "code"}
_OPENERS = {"open", "xdg-open", "vim", "vi", "nvim", "view", "emacs", "code"}
_PLUS_ARGS = {"vim", "vi", "nvim", "view", "nano", "emacs", "less", "more"}  # `+42` is a line, not a path
_FIND_QUERY = ("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex")
_FIND_ACTIONS = {"-delete", "-exec", "-execdir", "-ok", "-okdir"}


def parse_args(command: str, args: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(flags with their values, operands) the way GNU getopt sees them; "-" alone is an operand."""
    short, long_ = _VALUE_FLAGS.get(_CANONICAL.get(command, command), ("", set()))
    flags: list[tuple[str, str | None]] = []
    operands: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "--":
            operands.extend(it)
        elif arg.startswith("--"):
            key, eq, value = arg.partition("=")
            flags.append((key, value if eq else (next(it, None) if key in long_ else None)))
        elif arg.startswith("-") and len(arg) > 1:
            for k, letter in enumerate(arg[1:], 1):
                if letter in short:
                    flags.append(("-" + letter, arg[k + 1:] or next(it, None)))
                    break
                flags.append(("-" + letter, None))
        else:
            operands.append(arg)
    return flags, operands


def _has(flags: list[tuple[str, str | None]], *names: str) -> bool:
    return any(flag in names for flag, _ in flags)


def _value(flags: list[tuple[str, str | None]], *names: str) -> str | None:
    values = [value for flag, value in flags if flag in names and value is not None]
    return values[-1] if values else None


def count_entries(directory: str, hidden: bool, depth: int = 1) -> int | None:
    """Entries a listing of `directory` shows now (recursively to `depth`); None if it is not a directory."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return None
    total = 0
    for entry in entries:
        if hidden or not entry.name.startswith("."):
            total += 1
            if depth > 1 and entry.is_dir(follow_symlinks=False):
                total += count_entries(entry.path, hidden, depth - 1) or 0
    return total


# -- handlers: (mapper, command name, arguments, fed by a pipe) -> observations through mapper.emit --


def browse(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    hidden = name in ("ll", "la") or _has(flags, "-a", "-A", "--all", "--almost-all")
    level = _value(flags, "-L")
    depth = (int(level) if level and level.isdigit() else 64) if name == "tree" else 1
    targets = [rel for _, rel in m.paths(ops)] if ops else [m.cwd_rel()]
    for rel in targets:
        if rel is not None:
            m.emit("browse", rel, files_listed=count_entries(m.abs(rel), hidden, depth))


def mkdir(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    parents = _has(flags, "-p", "--parents")
    for _, rel in m.paths(ops):
        if parents:
            parts = rel.split("/")
            for k in range(1, len(parts)):
                if (parent := "/".join(parts[:k])) not in m.dirs:
                    m.emit("mkdir", parent, is_dir=True, extra={"implied_parent_of": rel})
        if rel in m.dirs:
            m.skip("directory already exists")
        else:
            m.emit("mkdir", rel, is_dir=True)


def delete(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    recursive = _has(flags, "-r", "-R", "--recursive", "-d", "--dir")
    for arg, rel in m.paths(ops):
        m.emit("delete", rel, is_dir=name == "rmdir" or (recursive and m.is_dir(rel, arg)))


def transfer(m: Any, name: str, args: list[str], piped: bool) -> None:
    """mv / cp: one observation per source; dest is dest/basename when it is (or must be) a directory."""
    kind = "move" if name == "mv" else "copy"
    flags, ops = parse_args(name, args)
    ops = [word for arg in ops for word in m.expand(arg)]
    target = _value(flags, "-t", "--target-directory")
    into = target is not None or len(ops) > 2
    if target is None:
        if len(ops) < 2:
            m.skip("missing destination")
            return
        *ops, target = ops
    dest_abs, dest = m.locate(target)
    if dest_abs is None:
        return
    for arg in ops:
        src_abs, src = m.locate(arg)
        if src_abs is None:
            continue
        if src is None and dest is None:
            m.skip("outside root")
            continue
        base = os.path.basename(src_abs)
        inside = into or (not _has(flags, "-T", "--no-target-directory") and dest is not None
                          and m.is_into_dir(dest, target, src_abs))
        final = (base if dest == "." else f"{dest}/{base}") if inside and dest is not None else dest
        if src is not None and dest is not None:  # a directory: known as one, or its new place is one now
            m.emit(kind, src, dest=final, is_dir=m.is_dir(src, arg) or m.is_dir(final))
        elif src is None:  # from outside into root: a file appears
            m.emit("write", final, is_dir=m.is_dir(final, arg), extra={"from_outside": src_abs})
        elif kind == "move":  # out of root: a file disappears
            m.emit("delete", src, is_dir=m.is_dir(src, arg), extra={"moved_outside": dest_abs})
        else:
            m.skip("outside root")


def read(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    if name in _PLUS_ARGS:
        ops = [op for op in ops if not op.startswith("+")]
    if name == "code" and _has(flags, "-g", "--goto"):
        ops = [re.sub(r"(:\d+){1,2}$", "", op) for op in ops]
    if not [op for op in ops if op != "-"]:
        m.skip("no file effect")  # reads its input, or an editor on an empty buffer
        return
    for arg, rel in m.paths(ops):
        if not m.is_dir(rel, arg):
            m.emit("read", rel, extra={"editor": name} if name in _EDITORS else {})
        elif name in _OPENERS:
            m.emit("browse", rel, files_listed=count_entries(m.abs(rel), False))
        else:
            m.skip("directory, not a file")


def touch(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    for arg, rel in m.paths(ops):
        new = rel not in m.files
        if m.is_dir(rel, arg) or (new and _has(flags, "-c", "--no-create")):
            m.skip("no file effect")
        else:
            m.emit("write", rel, size=0 if new else None)


def tee(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    if ops:
        m.write_targets(ops, "tee -a" if _has(flags, "-a", "--append") else "tee")
    else:
        m.skip("no file effect")


def grep(m: Any, name: str, args: list[str], piped: bool) -> None:
    canon = _CANONICAL.get(name, name)
    flags, ops = parse_args(name, args)
    glob = _value(flags, "-g", "--glob")
    if (canon == "rg" and _has(flags, "--files")) or (canon in ("ag", "ack") and glob is not None):
        search(m, ops, "glob", glob)
        return
    patterns = [value for flag, value in flags if flag in ("-e", "--regexp") and value is not None]
    if not patterns and not _has(flags, "-f", "--file"):
        if not ops:
            m.skip("no file effect")
            return
        patterns = [ops.pop(0)]
    recursive = canon != "grep" or _has(flags, "-r", "-R", "--recursive", "--dereference-recursive")
    if not ops and (not recursive or piped):
        m.skip("no file effect")  # searches its input, not files
        return
    search(m, ops, "grep", "|".join(patterns) or None)


def find(m: Any, name: str, args: list[str], piped: bool) -> None:
    args = list(args)
    while args and args[0] in ("-H", "-L", "-P"):
        args.pop(0)
    k = next((i for i, a in enumerate(args) if a[:1] in ("-", "(", "!", ")")), len(args))
    ops, expression = args[:k], args[k:]
    query = next((expression[i + 1] for i, a in enumerate(expression[:-1]) if a in _FIND_QUERY), None)
    if _FIND_ACTIONS & set(expression):
        m.skip("find action not expanded")
    search(m, ops, "glob", query)


def fd(m: Any, name: str, args: list[str], piped: bool) -> None:
    flags, ops = parse_args(name, args)
    query = ops.pop(0) if ops else None
    extension = _value(flags, "-e", "--extension")
    if query is None and extension:
        query = "*." + extension.lstrip(".")
    if _has(flags, "-x", "-X", "--exec", "--exec-batch"):
        m.skip("find action not expanded")
    search(m, ops, "glob", query)


def locate(m: Any, name: str, args: list[str], piped: bool) -> None:
    _, ops = parse_args(name, args)
    if ops:  # searches a database of the whole disk, not a folder: recorded at the root
        m.emit("search", ".", query=ops[0], search_type="glob")
    else:
        m.skip("no file effect")


def search(m: Any, ops: list[str], search_type: str, query: str | None) -> None:
    """One search at the first operand (or the cwd); matched = the operands that are files."""
    found = m.paths(ops) if ops else [(".", m.cwd_rel())]
    found = [(arg, rel) for arg, rel in found if rel is not None]
    if found:
        matched = tuple(rel for arg, rel in found if not m.is_dir(rel, arg))
        m.emit("search", found[0][1], query=query, search_type=search_type, matched=matched)


def change_dir(m: Any, name: str, args: list[str], piped: bool) -> None:
    _, ops = parse_args(name, args)
    if name == "popd" or (name == "pushd" and not ops):
        if not m.stack:
            m.skip("directory stack empty")
            return
        top = m.stack.pop()
        if name == "pushd":
            m.stack.append(m.cwd)
        m.oldpwd, m.cwd = m.cwd, top
    elif name == "pushd" and re.fullmatch(r"[+-]\d+", ops[0]):
        m.oldpwd, m.cwd = m.cwd, None
        m.skip("cd target unknown")  # a stack rotation we do not model
    else:
        if name == "pushd":
            m.stack.append(m.cwd)
        m.chdir(ops[0] if ops else None)


def jump(m: Any, name: str, args: list[str], piped: bool) -> None:
    """z / j / autojump pick a directory from their own database: the cwd is unknown afterwards."""
    if args:
        m.oldpwd, m.cwd = m.cwd, None
        m.skip("cd target unknown")
    else:
        m.skip("no file effect")


def git(m: Any, name: str, args: list[str], piped: bool) -> None:
    if args[:1] == ["mv"]:
        transfer(m, "mv", args[1:], piped)
    elif args[:1] == ["rm"] and "--cached" not in args:
        delete(m, "rm", args[1:], piped)
    else:
        m.skip("no file effect")
        m.unmapped["git"] += 1


Handler = Callable[[Any, str, list[str], bool], None]
HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(("ls", "dir", "ll", "la", "l", "tree"), browse),
    "mkdir": mkdir, "mv": transfer, "cp": transfer, "touch": touch, "tee": tee,
    **dict.fromkeys(("rm", "rmdir", "unlink"), delete),
    **dict.fromkeys(("cat", "less", "more", "head", "tail", "bat", "view", "nl", "wc", "open", "xdg-open"), read),
    **dict.fromkeys(sorted(_EDITORS), read),
    **dict.fromkeys(("grep", "egrep", "fgrep", "rg", "ag", "ack"), grep),
    "find": find, "fd": fd, "locate": locate,
    **dict.fromkeys(("cd", "pushd", "popd"), change_dir),
    **dict.fromkeys(("z", "zi", "j", "autojump"), jump),
    "git": git,
}

# what each command does to files when its arguments are not known (command-name-only histories,
# record/commands.py): the kind of observation its handler emits; None for a command without one
_ACTION_OF_HANDLER: dict[Handler, str] = {browse: "browse", mkdir: "mkdir", delete: "delete", read: "read",
                                          touch: "write", tee: "write", grep: "search", find: "search",
                                          fd: "search", locate: "search"}


def action_of(command: str) -> str | None:
    """The observation kind ("read", "browse", "search", "write", "mkdir", "move", "copy", "delete") this
    importer gives `command` (a bare name or a path to one) with file arguments; None: no file effect
    (cd, git and every command it has no rule for)."""
    name = os.path.basename(command)
    handler = HANDLERS.get(name)
    if handler is transfer:
        return "move" if name == "mv" else "copy"
    return _ACTION_OF_HANDLER.get(handler)


def search_type_of(command: str) -> str:
    """"grep" for the grep family (a content search), "glob" for find / fd / locate (a name search)."""
    return "grep" if HANDLERS.get(os.path.basename(command)) is grep else "glob"

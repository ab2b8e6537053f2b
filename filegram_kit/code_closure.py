"""Which package files a module's code uses: its import closure, read from the source (ast).

    closure("filegram_kit.report.tables")   -> the .py files it imports (at the top or inside a function),
                                               followed transitively, plus modules a registry names in a
                                               string ("filegram_kit.memory.mem0:Mem0")
    data_files(closure(...))                -> the package data files those sources name ("profiles.json")
    digest(paths)                           -> sha256 over the files' paths and bytes

Reading the source rather than `sys.modules` gives the same answer in any process, before anything is
imported. Each file is parsed once per version (its mtime and size), so a long-lived process (a notebook)
sees edits. Results caches (bench/manifest.py) and reproduce's step keys (report/provenance.py) hash a
closure, so a change to code a result never runs (a widget, the recorder) leaves that result valid.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_NAMED = re.compile(r"^(filegram_kit(?:\.\w+)+)(?::\w+)?$")


def module_path(name: str) -> Path | None:
    """The source file of a package module name (None outside the package or when absent)."""
    if name != "filegram_kit" and not name.startswith("filegram_kit."):
        return None
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["filegram_kit", *parts])


def _imports(path: Path) -> set[str]:
    """Package modules a source file names: imports (relative ones resolved), and registry strings."""
    return {n for n in _scan(path)[0] if module_path(n) is not None}


def _scan(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    stat = path.stat()
    return _scan_file(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _scan_file(path: Path, mtime_ns: int, size: int) -> tuple[frozenset[str], frozenset[str]]:
    """(module names, short string constants) of one source file, parsed once per version of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found.add(stem)
            found |= {f"{stem}.{a.name}" for a in node.names}  # `from . import tables` names a module
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
            strings.add(node.value)
            if m := _NAMED.match(node.value):
                found.add(m.group(1))
    return frozenset(found), frozenset(strings)


def _with_parents(name: str) -> set[str]:
    """A module and the packages above it (importing a.b.c runs a/__init__ and a/b/__init__)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def closure(module: str) -> tuple[Path, ...]:
    """The package source files `module`'s code uses, sorted: the modules it names, followed transitively.
    A package's __init__ that is only passed through (importing a.b.c) is hashed but not followed: the
    report package's __init__ imports every artifact module, which must not tie each artifact to all."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or module_path(name) is None:
            continue
        seen.add(name)
        todo.extend(_imports(module_path(name)) - seen)
    files = {module_path(n) for n in seen} | {module_path(p) for n in seen for p in _with_parents(n)}
    return tuple(sorted(f for f in files if f is not None))


def digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in sorted(set(paths)):
        h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def data_files(sources: tuple[Path, ...] | list[Path]) -> list[Path]:
    """The package data files these sources name (a string constant holding the file's name, as
    `DATA_FILE = "profiles.json"` does)."""
    names: set[str] = set()
    for path in sources:
        names |= _scan(path)[1]
    return [p for p in sorted((PACKAGE / "data").rglob("*")) if p.is_file() and p.name in names]

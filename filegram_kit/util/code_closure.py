"""Which package files a module's code uses: its import closure, read from the source (ast).

    closure("filegram_kit.report.tables")   -> the .py files it imports (at the top or inside a function),
                                               followed transitively, plus modules a registry names in a
                                               string ("filegram_kit.memory.mem0:Mem0"); `from pkg import
                                               name` follows the module defining `name`, not all of pkg;
                                               imports under `if TYPE_CHECKING:` are left out
    data_files(closure(...))                -> the package data files those sources name ("profiles.json")
    digest(paths)                           -> sha256 over the files' paths and what they do: a source
                                               file counts by its normalised AST (no docstrings, comments,
                                               formatting or blank lines), a data file by its bytes
                                               (less the provenance keys PROVENANCE_ONLY names)

Reading the source rather than `sys.modules` gives the same answer in any process, before anything is
imported. Each file is parsed once per version (its mtime and size), so a long-lived process (a notebook)
sees edits. Results caches (bench/manifest.py) and reproduce's step keys (report/provenance.py) hash a
closure, so a change to code a result never runs (a widget, the recorder) leaves that result valid, and
they hash what the code does, so a docstring or comment edit leaves it valid too.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

PACKAGE = Path(__file__).resolve().parents[1]
# top-level keys of a JSON data file that record where it came from, and that no result is computed from: the
# calibration's meta names the engine it was fitted on, so an engine refactor that changes no output refits
# identical models and, with this, keys nothing anew (before, it cost a second full reproduce)
PROVENANCE_ONLY = {"calibration.json": ("meta",)}
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
    """Package modules a source file uses: plain imports, each `from X import name` resolved to the module
    that defines `name` (X.name when that is a submodule), and registry strings."""
    scan = _scan(path)
    found = {n for n in scan.modules if module_path(n) is not None}
    for stem, name in scan.names:
        if module_path(f"{stem}.{name}") is not None:
            found.add(f"{stem}.{name}")
        elif (where := defining_module(stem, name)) is not None:
            found.add(where)
    return found


def defining_module(module: str, name: str, depth: int = 0) -> str | None:
    """The package module where `name`, imported from `module`, is defined: a package's __init__ that only
    re-exports it (`from .base import get_backend`) is passed through to the module it comes from. A name the
    module binds itself, or cannot be traced (a star import, a module __getattr__), is `module`'s own."""
    path = module_path(module)
    if path is None:
        return None
    source = _scan(path).reexports.get(name)
    if source is None or depth > 20:
        return module
    stem, original = source
    if module_path(f"{stem}.{original}") is not None:
        return f"{stem}.{original}"
    return defining_module(stem, original, depth + 1) if module_path(stem) is not None else module


class _Scan(NamedTuple):
    modules: frozenset[str]  # `import a.b`, registry strings: modules used as such
    names: frozenset[tuple[str, str]]  # `from a import b`: (a, b), b a submodule or a name defined in a
    strings: frozenset[str]  # short string constants (data file names)
    reexports: dict[str, tuple[str, str]]  # top-level `from a import b as c` only passed on: c -> (a, b)


def _scan(path: Path) -> _Scan:
    stat = path.stat()
    return _scan_file(path, stat.st_mtime_ns, stat.st_size)


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST):
    """Every node, except the bodies of `if TYPE_CHECKING:` (imports for type hints only never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if _is_type_checking(node):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))


def _stem(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@functools.lru_cache(maxsize=1024)
def _scan_file(path: Path, mtime_ns: int, size: int) -> _Scan:
    """What one source file imports and names, parsed once per version of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    modules: set[str] = set()
    names: set[tuple[str, str]] = set()
    strings: set[str] = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            modules |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            stem = _stem(node, package)
            names |= {(stem, a.name) for a in node.names if a.name != "*"}
            if any(a.name == "*" for a in node.names):
                modules.add(stem)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
            strings.add(node.value)
            if m := _NAMED.match(node.value):
                modules.add(m.group(1))
    return _Scan(frozenset(modules), frozenset(names), frozenset(strings), _reexports(tree, package))


def _reexports(tree: ast.Module, package: str) -> dict[str, tuple[str, str]]:
    """Top-level names the module only imports and passes on (none when it defines `__getattr__`: then any
    name may come from its own code)."""
    out: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return {}
        if isinstance(node, ast.ImportFrom):
            stem = _stem(node, package)
            out.update({(a.asname or a.name): (stem, a.name) for a in node.names if a.name != "*"})
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.pop(node.name, None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                out.pop(name, None)
    return out


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
    """sha256 over each file's package-relative path and its `code_bytes` (a docstring edit keys nothing)."""
    h = hashlib.sha256()
    for path in sorted(set(paths)):
        h.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + code_bytes(path) + b"\0")
    return h.hexdigest()


def file_hash(path: Path) -> str:
    """sha256 (16 hex) of one file's `code_bytes`: what a manifest records to name the files that changed."""
    return hashlib.sha256(code_bytes(path)).hexdigest()[:16]


def code_bytes(path: Path) -> bytes:
    """What a file contributes to a code key: a Python source's normalised form, a JSON file named in
    PROVENANCE_ONLY without those keys, any other file's bytes."""
    if path.name in PROVENANCE_ONLY:
        data = json.loads(path.read_bytes())
        for key in PROVENANCE_ONLY[path.name]:
            data.pop(key, None)
        return json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    if path.suffix != ".py":
        return path.read_bytes()
    stat = path.stat()
    return _normalised(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _normalised(path: Path, mtime_ns: int, size: int) -> bytes:
    """The source re-printed from its AST without docstrings or other bare string statements (they never
    run), so comments, formatting, blank lines and docstrings do not count; a file that does not parse
    counts by its bytes (its import fails anyway)."""
    source = path.read_bytes()
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError):
        return source
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
                continue
            kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                            and isinstance(s.value.value, str))]
            if len(kept) != len(body):
                setattr(node, field, kept or [ast.Pass()])
    return ast.unparse(tree).encode("utf-8")


def data_files(sources: tuple[Path, ...] | list[Path]) -> list[Path]:
    """The package data files these sources name (a string constant holding the file's name, as
    `DATA_FILE = "profiles.json"` does)."""
    names: set[str] = set()
    for path in sources:
        names |= _scan(path).strings
    return [p for p in sorted((PACKAGE / "data").rglob("*")) if p.is_file() and p.name in names]

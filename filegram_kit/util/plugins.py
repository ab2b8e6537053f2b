"""Your own classes by reference: `module:Class` or `path/to/file.py:Class`, wherever a memory or a backend name
goes (`get_memory`, `get_backend`, `filegram eval --methods`, `--backend`).

A researcher's memory system lives in their own file, not in this package; naming it this way lets every entry
point (and every spawned worker, which gets the same string) import it. A dotted module is looked up on the path
and, as `python -m` does, in the current folder; a file path is imported from that file. `code_digest` is the
sha256 of the file that defines the class, so results computed with older code can be told apart.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType


def is_reference(name: str) -> bool:
    """Whether a name is a `module:Class` / `file.py:Class` reference rather than a registered name."""
    module, sep, attribute = name.partition(":")
    return bool(sep and module and attribute.isidentifier())


def _module_from_file(path: Path) -> ModuleType:
    key = f"_filegram_user_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # before exec: dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module


def _module(name: str) -> ModuleType:
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = Path(name).expanduser().resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{name}: no such Python file (a reference is 'module:Class' or 'file.py:Class')")
        return _module_from_file(path)
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)  # as `python -m` would: the module beside you is found
    return importlib.import_module(name)


def load_class(reference: str, *, kind: str, base: type | None = None) -> type:
    """The class a `module:Class` or `file.py:Class` reference names; `kind` words the errors ("memory"),
    `base` is the class it must derive from."""
    if not is_reference(reference):
        raise ValueError(f"{reference!r} is not a {kind} reference: write 'module:Class' or 'path/to/file.py:Class'")
    module_name, _, class_name = reference.partition(":")
    module = _module(module_name)
    found = getattr(module, class_name, None)
    if found is None:
        raise AttributeError(f"{reference}: {module_name} defines no {class_name!r} "
                             f"(it has: {', '.join(n for n in dir(module) if not n.startswith('_'))})")
    if not inspect.isclass(found):
        raise TypeError(f"{reference}: {class_name} is a {type(found).__name__}, not a class")
    if base is not None and not issubclass(found, base):
        raise TypeError(f"{reference}: a {kind} class must derive from {base.__module__}.{base.__name__} "
                        f"({class_name} derives from {', '.join(b.__name__ for b in found.__mro__[1:-1]) or 'object'})")
    return found


def code_digest(cls: type) -> str:
    """First 12 hex of the sha256 of the source file defining `cls` (empty when it has none, e.g. a notebook)."""
    try:
        source = inspect.getsourcefile(cls)
    except TypeError:
        source = None
    if not source or not Path(source).is_file():
        return ""
    return hashlib.sha256(Path(source).read_bytes()).hexdigest()[:12]
